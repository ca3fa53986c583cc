//! The tactics suite made from the platform's reference data: every turn
//! start of its reference games and exact-FEN vectors, proved to a Paco in
//! 1 or 2 (or not) by the engine's exhaustive [`Prover`]; `pacozero tactics
//! generate`. The suite's format is [`pacozero_data::tactics`], how a
//! network is measured on it `pacozero_arena::tactics`.

use anyhow::{Context, Result};
use pacozero_engine::paco::{actions_text, parse_actions, turn_to_string, FullMoveLimits, GameState, Position, Prover, Required};

use pacozero_data::tactics::TacticLine;

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

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_arena::tactics::{parse_suite, BUNDLED_SUITE};
    use pacozero_engine::prelude::*;

    use crate::REFERENCE_VECTORS as VECTORS;

    /// The bundled suite is what generation makes of the bundled games and
    /// vectors, line for line; every Paco in 1 of it wins when played.
    #[test]
    fn generation_remakes_the_bundled_suite() {
        let mut calls = Vec::new();
        let s = generate_suite(BUNDLED_GAMES, VECTORS, 2, &mut |n, total, in1, in2| calls.push((n, total, in1, in2))).unwrap();
        let bundled = parse_suite::<GameState>(BUNDLED_SUITE, "bundled").unwrap();
        assert_eq!(s.lines.len(), bundled.len());
        for (made, kept) in s.lines.iter().zip(&bundled) {
            assert_eq!(serde_json::to_value(made).unwrap(), serde_json::to_value(kept).unwrap());
        }
        assert_eq!((s.in1, s.in2), (bundled.iter().filter(|t| t.depth == 1).count(), bundled.iter().filter(|t| t.depth == 2).count()));
        assert!(s.distinct < s.candidates && s.too_big > 0 && s.in1 + s.in2 + s.too_big <= s.distinct, "{} {} {}", s.candidates, s.distinct, s.too_big);
        // Left out for their unions, counted here: all of them (under
        // MAX_UNIONS unions, no proof of these candidates passes
        // MAX_CHAIN_STATES).
        let mut seen = std::collections::HashSet::new();
        let candidates = candidate_positions(BUNDLED_GAMES, VECTORS).unwrap();
        let many_unions = candidates.iter().filter(|(p, _)| seen.insert(p.hash())).filter(|(p, _)| p.unions().len() > MAX_UNIONS).count();
        assert_eq!(seen.len(), s.distinct);
        assert_eq!(s.too_big, many_unions);
        // Progress every 500 candidates, from the first.
        assert_eq!(calls.len(), s.candidates.div_ceil(500));
        assert!(calls.iter().enumerate().all(|(k, &(n, total, ..))| n == 500 * k && total == s.candidates), "{calls:?}");
        assert_eq!(calls[0], (0, s.candidates, 0, 0));
        for t in s.lines.iter().filter(|t| t.depth == 1) {
            let pos: Position = t.fen.parse().unwrap();
            let mover = pos.side_to_move();
            for w in &t.winning_actions {
                let mut g = GameState::new(pos);
                for a in parse_actions(w).unwrap() {
                    g.play(a).unwrap();
                }
                assert_eq!(g.outcome(), Some(pacozero_engine::Outcome::Win(mover)), "{}: {w}", t.fen);
            }
        }
        // Proved to one turn only: the wins in 1, the same ones.
        let one = generate_suite(BUNDLED_GAMES, VECTORS, 1, &mut |_, _, _, _| {}).unwrap();
        assert_eq!((one.in1, one.in2, one.candidates), (s.in1, 0, s.candidates));
    }

    /// Candidates: every turn start of a game, and the vectors that are
    /// exact turn starts; a bad line is named.
    #[test]
    fn candidates_are_turn_starts_and_bad_lines_are_named() {
        let game = BUNDLED_GAMES.lines().next().unwrap();
        let v: serde_json::Value = serde_json::from_str(game).unwrap();
        let actions = v["actions"].as_str().unwrap().split(' ').count();
        let from_game = candidate_positions(game, "").unwrap();
        assert!(!from_game.is_empty() && 2 * from_game.len() <= actions, "{} turns of {actions} actions", from_game.len());
        assert_eq!(from_game[0].1, "reference game 0, turn 1");
        let fen = from_game[0].0.fen();
        let vectors = [
            serde_json::json!({"id": "v1", "fen": fen, "fen_exact": true, "required_action": "Lift"}),
            serde_json::json!({"id": "v2", "fen": fen, "fen_exact": false, "required_action": "Lift"}),
            serde_json::json!({"id": "v3", "fen": fen, "fen_exact": true, "required_action": "Place"}),
        ]
        .map(|v| v.to_string())
        .join("\n");
        let c = candidate_positions("", &vectors).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].1, "reference vector \"v1\"");
        let e = format!("{:#}", candidate_positions("{", "").unwrap_err());
        assert!(e.starts_with("games line 1"), "{e}");
    }
}
