//! The run report: SVG plots by generation and one static HTML page.
//!
//! Written into the run directory by the loop after every generation, and by
//! `pacozero report --run DIR`:
//!
//! | path | content |
//! |---|---|
//! | `plots/elo.svg` | Elo of each generation vs gen-0001 (95% bars), and the baseline's |
//! | `plots/baseline.svg` | each candidate's score against the rollout baseline |
//! | `plots/draw_rate.svg` | draw rate by generation: self-play, baseline and gating matches |
//! | `plots/length.svg` | mean game length (decisions) by generation |
//! | `plots/ends.svg` | how self-play games end by generation: each end reason's share (stage `ends`) |
//! | `plots/resignation.svg` | the false resignation rate of the no-resign games by generation |
//! | `plots/time.svg` | wall time of each generation by stage (self-play, training, both at once, evaluation, other) |
//! | `plots/fresh_value.svg` | value loss on each generation's new games (stage `fresh`) against the loss of the constant prediction of their result shares, and the draw share against its prediction |
//! | `plots/losses.svg` | training losses by step (smoothed) |
//! | `plots/solved.svg` | against perfect play (`solved.jsonl`, and `solved-peer.jsonl` beside it): optimal-move share by minute of the run, by visit budget; only in a run that has the curve |
//! | `report.html` | the tables (with the yardstick ladder of `ladder.json` when the run has one), the plots and sample games with a board viewer (8x8 Paco Ŝako, 10x10 Shako) and their move lists |
//!
//! Inputs are the run's own files (`matches.jsonl`, `generations.jsonl`,
//! `ratings.csv`, `metrics.csv`, `solved.jsonl`, the newest data chunk); any of them may be
//! missing early in a run, and the report shows what there is.
//!
//! Modules: `inputs` (reading those files), `charts` (the SVG plots, drawn
//! by [`svg`]), `sections` (the parts of the page with files of their own,
//! and the league's page); this one writes the page, with its style sheet
//! and board viewer from `style.css` and `viewer.js`.

pub mod svg;

mod charts;
mod inputs;
mod sections;

use charts::*;
pub use inputs::*;
pub use sections::*;

use crate::files::{read_generations, read_matches, Generations, MatchLine};
use crate::solved_curve;
use anyhow::{Context, Result};
use pacozero_data::run_dir::{generation_of, model_name};
use pacozero_data::RunDir;
use pacozero_engine::{Color, Game, GameKind};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use svg::escape as html_escape;
use svg::{Chart, Series};

/// Writes the run's plots (`plots/*.svg`) and its page (`report.html`),
/// and returns the page's path.
pub fn write_report(run: &Path) -> Result<PathBuf> {
    if !run.is_dir() {
        anyhow::bail!("run directory {} does not exist", run.display());
    }
    let matches = read_matches(run)?;
    let ratings = read_ratings(run)?;
    let gens = read_generations(run)?;
    let plots = RunDir::new(run).plots();
    std::fs::create_dir_all(&plots).with_context(|| format!("creating {}", plots.display()))?;
    // Each chart is rendered once: to its file and inline in the page.
    let charts: Vec<(&str, String)> = charts(run, &gens, &matches, &ratings)?.into_iter().map(|(name, c)| (name, c.to_svg())).collect();
    for (name, svg) in &charts {
        pacozero_data::write_atomic(&plots.join(name), &[svg.as_bytes()])?;
    }

    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>PacoZero run report</title>\n<style>\n");
    h.push_str(STYLE);
    h.push_str("</style></head><body>\n");
    let _ = writeln!(h, "<h1>PacoZero run report</h1><p class=\"dim\">{}</p>", html_escape(&run.display().to_string()));

    // The share of the wall time that produced games and training, then the
    // plots, the ratings, and the per-generation table folded (an hour has
    // some 70 rows).
    if let Some(share) = time_share(&gens) {
        let _ = writeln!(
            h,
            "<p id=\"time-share\">Self-play and training took {:.0}% of the loop's measured wall time ({:.1} of {:.1} minutes over {} generations; evaluation {:.0}%).</p>",
            100.0 * share.productive / share.total,
            share.productive / 60.0,
            share.total / 60.0,
            share.generations,
            100.0 * share.eval / share.total
        );
    }
    h.push_str("<h2>Plots</h2>\n<div class=\"plots\">\n");
    for (name, svg) in &charts {
        let _ = writeln!(h, "<figure id=\"plot-{}\">{svg}</figure>", name.trim_end_matches(".svg"));
    }
    h.push_str("</div>\n");

    // Ratings.
    h.push_str(
        "<h2>Ratings</h2>\n<p class=\"dim\">One fit over every match of the run, anchored at gen-0001 = 0, with a prior of virtual draws (each player one, shared among its matchups) so that a 100% score has a finite rating; 95% intervals from the pentanomial counts of the paired games. <em>Above next</em>: the gap to the next player down, with the 95% interval of that difference; <em>apart</em>: no where that interval reaches 0, and the list cannot tell the two apart.</p>\n",
    );
    if !ratings.is_empty() {
        let mut rows: Vec<svg::RatingBar> = ratings.iter().map(|r| svg::RatingBar { name: r.player.clone(), elo: r.elo, ci95: r.ci95 }).collect();
        rows.sort_by(|a, b| b.elo.total_cmp(&a.elo));
        let _ = writeln!(h, "<figure id=\"plot-ratings\">{}</figure>", svg::rating_bars("Rating list", "Elo (gen-0001 = 0)", &rows));
    }
    h.push_str("<table class=\"data\"><tr><th>player</th><th>Elo</th><th>95%</th><th>above next</th><th>apart</th><th>games</th></tr>\n");
    for r in &ratings {
        let ci = if r.ci95.is_finite() { format!("± {:.0}", r.ci95) } else { "unbounded".into() };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{:+.0}</td><td>{ci}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            html_escape(&r.player),
            r.elo,
            r.above_next_cell(),
            r.apart_cell(),
            r.games
        );
    }
    h.push_str("</table>\n");
    h.push_str(&ladder_section(run)?);
    h.push_str(&solved_section(run)?);
    h.push_str("<h2>Generations</h2>\n<details><summary>Every generation's figures</summary>\n");
    h.push_str("<table class=\"data\"><tr><th>gen</th><th>self-play games</th><th>draw rate</th><th>mean length</th><th>sims/s</th><th>train loss</th><th>value loss on new games</th><th>Elo vs gen-0001</th><th>vs baseline (W-D-L)</th><th>score</th><th>vs gen-0001 (W-D-L)</th><th>score</th><th>gating (W-D-L)</th><th>promoted</th></tr>\n");
    for g in table_generations(&gens, &matches) {
        let v = gens.get(&g);
        let get = |k: &str| v.and_then(|v| v.get(k)).copied();
        let num = |x: Option<f64>, d: usize| x.map_or("–".to_string(), |x| format!("{x:.d$}"));
        let pct = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{:.0}%", 100.0 * x));
        let name = model_name(g);
        let rating = ratings.iter().find(|r| r.player == name).map_or("–".to_string(), |r| format!("{:+.0} ± {:.0}", r.elo, r.ci95));
        let bm = matches.iter().rev().find(|m| m.generation == g && is_baseline(m));
        let gm = matches.iter().rev().find(|m| m.generation == g && !is_baseline(m));
        // The anchor match (`[loop] anchor_games`) is recorded before the gating match.
        let am = matches.iter().find(|m| m.generation == g && m.b == "gen-0001");
        let wdl = |m: Option<&MatchLine>| m.map_or("–".to_string(), |m| format!("{}-{}-{}", m.wins, m.draws, m.losses));
        let promoted = match get("eval.promoted") {
            Some(x) if x > 0.5 => "yes",
            Some(_) => "no",
            None => "–",
        };
        let _ = writeln!(
            h,
            "<tr><td>{g}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{rating}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{promoted}</td></tr>",
            num(get("selfplay.games"), 0),
            pct(get("selfplay.draw_rate")),
            num(get("selfplay.avg_length"), 0),
            num(get("selfplay.sims_per_sec"), 0),
            num(get("train.loss"), 3),
            num(get("fresh.value_loss"), 3),
            wdl(bm),
            bm.map_or("–".to_string(), |m| format!("{:.0}%", 100.0 * score(m))),
            wdl(am),
            am.map_or("–".to_string(), |m| format!("{:.0}%", 100.0 * score(m))),
            wdl(gm),
        );
    }
    h.push_str("</table>\n</details>\n");

    // Sample games with a small viewer.
    let (samples, unreadable): (Vec<_>, Vec<_>) = sample_games(run, 3).into_iter().partition(Result::is_ok);
    h.push_str("<h2>Sample games</h2>\n<p class=\"dim\">From the newest self-play chunk. A union (Paco Ŝako) shows both pieces on one square; Shako's elephants and cannons are the letters E and C.</p>\n");
    for e in unreadable.into_iter().filter_map(Result::err) {
        let _ = writeln!(h, "<p class=\"dim\">Not shown: {}</p>", html_escape(&format!("{e:#}")));
    }
    h.push_str("<div id=\"games\"></div>\n");
    let json: Vec<serde_json::Value> = samples
        .iter()
        .filter_map(|s| s.as_ref().ok())
        .map(|s| {
            serde_json::json!({
                "title": s.title, "size": s.size, "height": s.height, "moves": s.move_list(),
                "turns": s.turns.iter().map(|(l, b)| serde_json::json!([l, b])).collect::<Vec<_>>(),
            })
        })
        .collect();
    // `</` cannot appear in JSON produced from our own strings except inside
    // text; escape it so the script block cannot be closed early.
    let _ = writeln!(h, "<script>const GAMES = {};</script>", serde_json::Value::Array(json).to_string().replace("</", "<\\/"));
    h.push_str("<script>\n");
    h.push_str(VIEWER_JS);
    h.push_str("</script>\n");

    if let Ok(cfg) = std::fs::read_to_string(RunDir::new(run).config()) {
        let _ = writeln!(h, "<h2>Configuration</h2>\n<pre>{}</pre>", html_escape(&cfg));
    }
    h.push_str("</body></html>\n");
    let page = RunDir::new(run).report();
    pacozero_data::write_atomic(&page, &[h.as_bytes()])?;
    Ok(page)
}

/// The page's style sheet and its board viewer, kept as files beside this
/// one (`style.css`, `viewer.js`) and built into the binary.
const STYLE: &str = include_str!("style.css");
/// Draws each sample game as a board with buttons to step through its turns.
const VIEWER_JS: &str = include_str!("viewer.js");

#[cfg(test)]
mod tests;
