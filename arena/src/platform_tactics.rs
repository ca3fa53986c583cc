//! The tactics suite made from the platform's reference data: every turn
//! start of its reference games and exact-FEN vectors, proved to a Paco in
//! 1 or 2 (or not) by the engine's exhaustive [`Prover`]; `pacozero tactics
//! generate`. The suite's format and how a network is measured on it are
//! [`crate::tactics`].

use anyhow::{Context, Result};
use pacozero_engine::paco::{actions_text, parse_actions, turn_to_string, FullMoveLimits, GameState, Position, Prover, Required};

use crate::tactics::TacticLine;

/// The reference games whose turn starts are candidates.
pub const BUNDLED_GAMES: &str = include_str!("../../engine/tests/data/games.jsonl");
/// Unions above which [`generate_suite`] leaves a position out.
pub const MAX_UNIONS: u32 = 10;
/// Chain states one full-move enumeration of [`generate_suite`] may visit.
pub const MAX_CHAIN_STATES: usize = 200_000;

/// Turn starts of reference games (JSON lines with `setup.start_fen` and
/// `actions`) and the exact-FEN turn starts of reference vectors.
fn candidate_positions(games: &str, vectors: &str) -> Result<Vec<(Position, String)>> {
    let mut out = Vec::new();
    for (i, line) in games.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).with_context(|| format!("games line {}", i + 1))?;
        let start: Position = v["setup"]["start_fen"].as_str().unwrap_or_default().parse().map_err(|e| anyhow::anyhow!("game {i}: {e}"))?;
        let mut g = GameState::new(start);
        let mut turn = 0;
        for a in parse_actions(v["actions"].as_str().unwrap_or_default())? {
            if g.position().required() == Required::Lift {
                turn += 1;
                out.push((*g.position(), format!("reference game {i}, turn {turn}")));
            }
            g.play(a).with_context(|| format!("game {i}: action {a}"))?;
        }
    }
    for line in vectors.lines() {
        let v: serde_json::Value = serde_json::from_str(line)?;
        if v["fen_exact"] == true && v["required_action"] == "Lift" {
            let pos: Position = v["fen"].as_str().unwrap_or_default().parse().map_err(|e| anyhow::anyhow!("vector {}: {e}", v["id"]))?;
            out.push((pos, format!("reference vector {}", v["id"])));
        }
    }
    Ok(out)
}

/// What [`generate_suite`] found.
pub struct GeneratedSuite {
    pub lines: Vec<TacticLine>,
    /// Candidates, and distinct ones.
    pub candidates: usize,
    pub distinct: usize,
    pub in1: usize,
    pub in2: usize,
    /// Left out: more than [`MAX_UNIONS`] unions or [`MAX_CHAIN_STATES`] chain states.
    pub too_big: usize,
}

/// Proves every candidate (see `candidate_positions`) to `max_depth` turns
/// of the mover; `progress(done, total, in1, in2)` every 500 candidates.
pub fn generate_suite(games: &str, vectors: &str, max_depth: u8, progress: &mut dyn FnMut(usize, usize, usize, usize)) -> Result<GeneratedSuite> {
    let candidates = candidate_positions(games, vectors)?;
    // A few union-heavy positions have millions of chain states (in the full
    // moves, or in the threat searches of the replies); they are left out
    // (and counted) rather than proved in gigabytes.
    let mut prover = Prover::new(FullMoveLimits { max_states: MAX_CHAIN_STATES });
    let mut seen = std::collections::HashSet::new();
    let mut s = GeneratedSuite { lines: Vec::new(), candidates: candidates.len(), distinct: 0, in1: 0, in2: 0, too_big: 0 };
    for (n, (pos, source)) in candidates.iter().enumerate() {
        if n % 500 == 0 {
            progress(n, candidates.len(), s.in1, s.in2);
        }
        if !seen.insert(pos.hash()) {
            continue;
        }
        if pos.unions().len() > MAX_UNIONS {
            s.too_big += 1;
            continue;
        }
        let t = match prover.prove(pos, max_depth) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(_) => {
                s.too_big += 1;
                continue;
            }
        };
        s.lines.push(TacticLine {
            fen: pos.fen(),
            depth: t.depth,
            winning_turns: t.winning_turns.iter().map(|w| turn_to_string(pos, w)).collect(),
            winning_actions: t.winning_turns.iter().map(|w| actions_text(w)).collect(),
            source: source.clone(),
        });
        if t.depth == 1 {
            s.in1 += 1;
        } else {
            s.in2 += 1;
        }
    }
    s.distinct = seen.len();
    Ok(s)
}
