//! Sections of the report's page that read files of their own (perfect
//! play, the engine ladder), and the league's page.

use super::*;

/// The table of the curves against perfect play, and the wall time each
/// side needs to reach the peer's final share; nothing without a curve.
pub(super) fn solved_section(run: &Path) -> Result<String> {
    let (own, peer) = solved_curve::read_curves(run)?;
    if own.is_empty() && peer.is_empty() {
        return Ok(String::new());
    }
    let mut h = String::from(
        "<h2 id=\"perfect-play\">Against perfect play</h2>\n<p class=\"dim\">The share of a solved suite's positions where the chosen move is optimal (the solver's best score), by visits per decision (0: the policy alone), and the share where the value's most likely result is exact. From <code>solved.jsonl</code> and <code>solved-peer.jsonl</code> (<code>pacozero solved --run</code>).</p>\n",
    );
    let visits: Vec<u32> = own.iter().chain(&peer).flat_map(|p| p.optimal.keys().copied()).collect::<BTreeSet<_>>().into_iter().collect();
    if let Some(t) = solved_curve::to_peer_final(&own, &peer) {
        let at = |t: Option<f64>| t.map_or("never".to_string(), |s| format!("{:.1} minutes", s / 60.0));
        let _ = writeln!(
            h,
            "<p id=\"time-to-peer\">The peer's final share at {} visits is {:.1}%: this run reaches it after {}, the peer after {}.</p>",
            t.visits,
            t.share,
            at(t.own_seconds),
            at(t.peer_seconds)
        );
    }
    h.push_str("<table class=\"data\"><tr><th>who</th><th>network</th><th>minutes</th>");
    for v in &visits {
        let _ = write!(h, "<th>optimal, {}</th>", if *v == 0 { "policy".to_string() } else { format!("{v} visits") });
    }
    h.push_str("<th>value exact</th></tr>\n");
    for p in own.iter().chain(&peer) {
        let who = p.implementation.as_deref().unwrap_or("this run");
        let _ = write!(h, "<tr><td>{}</td><td>{}</td><td>{:.1}</td>", html_escape(who), html_escape(&p.network), p.seconds / 60.0);
        for v in &visits {
            let _ = write!(h, "<td>{}</td>", p.optimal.get(v).map_or("–".to_string(), |s| format!("{s:.1}%")));
        }
        let _ = writeln!(h, "<td>{:.1}%</td></tr>", p.value);
    }
    h.push_str("</table>\n");
    Ok(h)
}

/// Writes the plots and `report.html` of a run directory; returns the page's path.
/// The page of a league (`league/report.html`): the rating plot, the list
/// and the cross table (row player's score against the column player).
pub fn league_page(title: &str, plot: &str, list: &pacozero_arena::rating_list::RatingList, matchups: &[pacozero_arena::rating_list::Matchup]) -> String {
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>PacoZero league</title>\n<style>\n");
    h.push_str(STYLE);
    h.push_str("</style></head><body>\n");
    let _ = writeln!(h, "<h1>{}</h1>", html_escape(title));
    let _ = writeln!(h, "<figure id=\"plot-ratings\">{plot}</figure>");
    let _ = writeln!(
        h,
        "<h2>Rating list</h2>\n<p class=\"dim\">One fit over every game with a prior of virtual draws (each player one, shared among its matchups), pinned by {}; 95% intervals from the pentanomial counts of the paired games, and game by game for comparison. <em>Above next</em>: the gap to the next player down and its 95% interval; <em>apart</em>: no where that interval reaches 0.</p>",
        html_escape(&list.anchor.to_string())
    );
    h.push_str("<table class=\"data\"><tr><th>#</th><th>player</th><th>Elo</th><th>95% (pairs)</th><th>95% (games)</th><th>above next</th><th>apart</th><th>games</th><th>score</th></tr>\n");
    let ci = |c: f64| if c.is_finite() { format!("± {c:.0}") } else { "unbounded".into() };
    for (i, r) in list.ratings.iter().enumerate() {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{:+.0}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}%</td></tr>",
            i + 1,
            html_escape(&r.name),
            r.elo,
            ci(r.ci95),
            ci(r.ci95_trinomial),
            r.above_next_cell(),
            r.apart_cell(),
            r.games,
            100.0 * r.score
        );
    }
    h.push_str("</table>\n<h2>Cross table</h2>\n<p class=\"dim\">The row player's points against the column player, of the games played.</p>\n<table class=\"data\"><tr><th></th>");
    for c in &list.ratings {
        let _ = write!(h, "<th>{}</th>", html_escape(&c.name));
    }
    h.push_str("</tr>\n");
    for r in &list.ratings {
        let _ = write!(h, "<tr><th>{}</th>", html_escape(&r.name));
        for c in &list.ratings {
            let (mut pts, mut n) = (0.0, 0);
            for m in matchups {
                let s = m.wdl.wins as f64 + 0.5 * m.wdl.draws as f64;
                if m.a == r.name && m.b == c.name {
                    pts += s;
                    n += m.wdl.games();
                } else if m.b == r.name && m.a == c.name {
                    pts += m.wdl.games() as f64 - s;
                    n += m.wdl.games();
                }
            }
            let cell = if n == 0 { "–".to_string() } else { format!("{pts}/{n}") };
            let _ = write!(h, "<td>{cell}</td>");
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n</body></html>\n");
    h
}

/// The yardstick section from `ladder.json` (`pacozero ladder --run`), or
/// nothing when the run has no ladder.
pub(super) fn ladder_section(run: &Path) -> Result<String> {
    let path = RunDir::new(run).ladder_json();
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(String::new()) };
    let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}: not the JSON of pacozero ladder", path.display()))?;
    let field = |row: &serde_json::Value, key: &str| row[key].as_u64().map(|n| n as u32).with_context(|| format!("{}: a rung without `{key}`", path.display()));
    let mut h = String::new();
    let _ = writeln!(
        h,
        "<h2 id=\"yardstick\">Yardstick</h2>\n<p class=\"dim\">Against <code>{}</code> at rising node budgets, {} games a rung from paired openings (the same at every rung); Elo of the player against the engine, 95% interval from the pentanomial counts. From <code>ladder.json</code> (<code>pacozero ladder --run</code>).</p>",
        html_escape(v["engine"].as_str().unwrap_or("?")),
        v["games_per_rung"].as_u64().map_or("?".to_string(), |n| n.to_string())
    );
    h.push_str(
        "<table class=\"data\"><tr><th>player</th><th>engine nodes</th><th>games</th><th>W</th><th>D</th><th>L</th><th>score</th><th>Elo ± 95%</th></tr>\n",
    );
    for row in v["rungs"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let (w, d, l) = (field(row, "wins")?, field(row, "draws")?, field(row, "losses")?);
        let elo = row["elo"].as_f64().unwrap_or(f64::NAN);
        let ci = row["elo_ci95"].as_f64().unwrap_or(f64::NAN);
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{w}</td><td>{d}</td><td>{l}</td><td>{:.1}%</td><td>{}</td></tr>",
            html_escape(row["player"].as_str().unwrap_or("?")),
            field(row, "nodes")?,
            w + d + l,
            100.0 * row["score"].as_f64().unwrap_or(f64::NAN),
            pacozero_arena::ladder::elo_cell(w, d, l, elo, ci)
        );
    }
    h.push_str("</table>\n<table class=\"data\"><tr><th>player</th><th>scores 50% against the engine at</th></tr>\n");
    for f in v["fifty"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let at = pacozero_arena::ladder::Fifty::from_json(f).map_or_else(|| "no fit".to_string(), |f| f.to_string());
        let _ = writeln!(h, "<tr><td>{}</td><td>{}</td></tr>", html_escape(f["player"].as_str().unwrap_or("?")), html_escape(&at));
    }
    h.push_str("</table>\n");
    Ok(h)
}
