//! What the report reads: the run's ratings, training losses, matches,
//! stage times and sample games (the files other stages write).

use super::*;

/// One row of `ratings.csv`.
#[derive(Clone, Debug)]
pub struct RatingRow {
    pub player: String,
    pub elo: f64,
    pub ci95: f64,
    pub games: u32,
    /// Elo above the next player down the list and the 95% half-width of
    /// that gap (`None` for the last, and in files of earlier builds).
    pub above_next: Option<(f64, f64)>,
}

impl RatingRow {
    /// The gap to the next player down as a cell, `–` where there is none.
    pub(super) fn above_next_cell(&self) -> String {
        self.above_next.map_or("–".to_string(), |(gap, ci)| format!("{gap:+.0} ± {ci:.0}"))
    }

    /// Whether the list tells this player from the next one down: `yes`,
    /// `no` (the gap's interval reaches 0), `–` where there is no gap.
    pub(super) fn apart_cell(&self) -> &'static str {
        match self.above_next {
            Some((gap, ci)) if gap > ci => "yes",
            Some(_) => "no",
            None => "–",
        }
    }
}

pub(super) fn read_ratings(run: &Path) -> Result<Vec<RatingRow>> {
    let p = RunDir::new(run).ratings_csv();
    if !p.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
    let mut out = Vec::new();
    // Runs of earlier builds wrote player,elo,ci95,games, then
    // player,elo,ci95,ci95_trinomial,score,games; now
    // player,elo,ci95,ci95_trinomial,above_next,above_next_ci95,score,games.
    let columns = text.lines().next().map_or(8, |h| h.split(',').count());
    for (i, line) in text.lines().enumerate().skip(1) {
        // The player may be quoted and hold commas (RatingList::to_csv); the figures follow it.
        let mut f: Vec<&str> = line.rsplitn(columns, ',').collect();
        f.reverse();
        let parse = |j: usize| -> Result<f64> {
            f.get(j).and_then(|v| v.parse().ok()).with_context(|| format!("{}:{}: field {} is not a number", p.display(), i + 1, j + 1))
        };
        if ![4, 6, 8].contains(&f.len()) {
            anyhow::bail!(
                "{}:{}: expected 8 fields (player,elo,ci95,ci95_trinomial,above_next,above_next_ci95,score,games), found {}",
                p.display(),
                i + 1,
                f.len()
            );
        }
        let player = match f[0].strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
            Some(quoted) => quoted.replace("\"\"", "\""),
            None => f[0].to_string(),
        };
        // The last player's gap is empty.
        let above_next = if f.len() == 8 && !f[4].is_empty() { Some((parse(4)?, parse(5)?)) } else { None };
        out.push(RatingRow { player, elo: parse(1)?, ci95: parse(2)?, games: parse(f.len() - 1)? as u32, above_next });
    }
    Ok(out)
}

/// Training metrics: step and the loss columns.
pub(super) fn read_losses(run: &Path) -> Result<BTreeMap<String, Vec<(f64, f64)>>> {
    let p = RunDir::new(run).metrics();
    let mut cols: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    if !p.exists() {
        return Ok(cols);
    }
    let text = std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let wanted = ["loss", "policy_loss", "value_loss", "sako_loss"];
    let step_col = header.iter().position(|h| *h == "step");
    for line in lines {
        let v: Vec<&str> = line.split(',').collect();
        let (Some(sc), true) = (step_col, v.len() == header.len()) else { continue }; // a cut last line
        let Ok(step) = v[sc].parse::<f64>() else { continue };
        for (h, x) in header.iter().zip(&v) {
            if wanted.contains(h) {
                if let Ok(x) = x.parse::<f64>() {
                    cols.entry(h.to_string()).or_default().push((step, x));
                }
            }
        }
    }
    Ok(cols)
}

pub(super) fn is_baseline(m: &MatchLine) -> bool {
    m.b.starts_with("rollout")
}

pub(super) fn score(m: &MatchLine) -> f64 {
    (m.wins as f64 + 0.5 * m.draws as f64) / (m.wins + m.draws + m.losses).max(1) as f64
}

pub(super) fn draw_rate(m: &MatchLine) -> f64 {
    m.draws as f64 / (m.wins + m.draws + m.losses).max(1) as f64
}

/// A sample game for the viewer: one board per turn.
pub(super) struct SampleGame {
    pub(super) title: String,
    /// Board width (files) and height (ranks).
    pub(super) size: usize,
    pub(super) height: usize,
    /// (the turn prefixed by its side, `W`/`B`, in the game's turn notation;
    /// the board after it as [`Tools::board_cells`]: `size × height` two-letter cells,
    /// White's piece or `.` then Black's piece or `.`, from the top-left
    /// square on).
    pub(super) turns: Vec<(String, String)>,
}

impl SampleGame {
    /// The game's turns as a numbered move list (`1. e3e5 e8e6 2. ...`).
    pub(super) fn move_list(&self) -> String {
        let mut out = String::new();
        let mut number = 1;
        for (i, (label, _)) in self.turns.iter().skip(1).enumerate() {
            let (side, text) = label.split_once(' ').unwrap_or(("", label));
            if side == "W" {
                let _ = write!(out, "{}{number}. {text}", if i > 0 { " " } else { "" });
            } else {
                if i == 0 {
                    let _ = write!(out, "{number}... ");
                } else {
                    out.push(' ');
                }
                out.push_str(text);
                number += 1;
            }
        }
        out
    }
}

/// Replays a recorded game of `G` (its decisions by name, as the games
/// table stores them), one board per whole turn.
pub(super) fn sample_game<G: Game>(title: String, start_fen: &str, actions: &str) -> Result<SampleGame> {
    let mut g = G::from_notation(start_fen).map_err(|e| anyhow::anyhow!("start FEN {start_fen}: {e}"))?;
    let mut turns = vec![("start".to_string(), g.board_cells())];
    let mut turn_start = g.clone();
    let mut turn: Vec<u16> = Vec::new();
    for (k, name) in actions.split_whitespace().enumerate() {
        let d = g.parse_action(name).ok_or_else(|| anyhow::anyhow!("decision {} `{name}` is not legal in {}", k + 1, g.notation()))?;
        let mover = g.to_move();
        g.apply(d);
        turn.push(d);
        if g.to_move() != mover || g.outcome().is_some() {
            let who = if mover == Color::White { "W" } else { "B" };
            turns.push((format!("{who} {}", turn_start.turn_notation(&turn)), g.board_cells()));
            turn.clear();
            turn_start = g.clone();
        }
    }
    Ok(SampleGame { title, size: G::BOARD_WIDTH, height: G::BOARD_HEIGHT, turns })
}

/// Up to `n` games of the newest data chunk, decisive ones first, shortest
/// first, each replayed by its own game's rules; a game that does not replay
/// is named with the reason (it was written by another engine, or the chunk
/// is damaged).
pub(super) fn sample_games(run: &Path, n: usize) -> Vec<Result<SampleGame>> {
    let Ok(chunks) = pacozero_data::list_chunks(&RunDir::new(run).data()) else { return Vec::new() };
    let Some(last) = chunks.last() else { return Vec::new() };
    let (spec, mut games) = match pacozero_data::read_games_file(&last.games_path) {
        Ok(read) => read,
        Err(e) => return vec![Err(anyhow::anyhow!("{e}"))],
    };
    let kind: GameKind = match spec.game.parse() {
        Ok(kind) => kind,
        Err(e) => return vec![Err(anyhow::anyhow!("{}: {e}", last.games_path.display()))],
    };
    fn replay<G: Game>(g: &pacozero_data::GameRow) -> Result<SampleGame> {
        let title = format!("game {} ({}, {} decisions, {}, {})", g.game_id, g.result, g.num_decisions, g.reason, g.network_id);
        sample_game::<G>(title, &g.start_fen, &g.actions).with_context(|| format!("game {}", g.game_id))
    }
    games.sort_by_key(|g| (g.result == "1/2-1/2", g.num_decisions));
    games.iter().take(n).map(|g| pacozero_engine::with_game!(kind, G => replay::<G>(g))).collect()
}

/// The wall time of the generations with a full time record, in seconds.
pub(super) struct TimeShare {
    pub(super) productive: f64,
    pub(super) eval: f64,
    pub(super) total: f64,
    pub(super) generations: usize,
}

/// Self-play plus training against the whole, over the generations whose
/// stage times are all recorded (`None` before the first). The time of an
/// overlapped generation's self-play and training at once counts once.
pub(super) fn time_share(gens: &Generations) -> Option<TimeShare> {
    let mut share = TimeShare { productive: 0.0, eval: 0.0, total: 0.0, generations: 0 };
    for v in gens.values() {
        let get = |k: &str| v.get(&format!("time.{k}_seconds")).copied();
        let productive = match (get("selfplay"), get("train"), get("overlap")) {
            (Some(sp), Some(tr), None) => Some(sp + tr),
            (None, None, Some(both)) => Some(both),
            _ => None,
        };
        if let (Some(p), Some(ev), Some(ot)) = (productive, get("eval"), get("other")) {
            share.productive += p;
            share.eval += ev;
            share.total += p + ev + ot;
            share.generations += 1;
        }
    }
    // Times are never negative: a total above 0 has a generation in it.
    (share.total > 0.0).then_some(share)
}

/// The generations the report's table has a row for: those with figures or
/// matches, not every number up to the largest (a match line's generation is
/// read from a file: one damaged to 4294967295 would ask for as many rows).
pub(super) fn table_generations(gens: &Generations, matches: &[MatchLine]) -> BTreeSet<u32> {
    gens.keys().copied().chain(matches.iter().map(|m| m.generation)).collect()
}
