//! Tactics: a suite of positions where the mover forces a win within one
//! or two of its turns, and a network's solve rate on it ([`solve_suite`]);
//! `pacozero tactics solve`. The bundled suite is Paco Ŝako's Paco-in-1 and
//! Paco-in-2 positions, made from the platform's reference data by
//! `pacozero_platform::tactics` (`pacozero tactics generate`); a suite of any
//! game in this format is solved the same way.
//!
//! The suite file has one JSON object per line, a [`TacticLine`] (its
//! fields: `pacozero_data::tactics`).

use anyhow::{bail, Context, Result};
use pacozero_engine::Game;
use pacozero_protocol::analysis::analysis_search_config;
use pacozero_search::turns::{search_turn, MAX_TURN_DECISIONS};
use pacozero_search::{EvalOutput, EvalRequest, Evaluator};

/// The suite in the repository (`engine/tests/data/tactics.jsonl`, Paco Ŝako).
pub const BUNDLED_SUITE: &str = include_str!("../../engine/tests/data/tactics.jsonl");

pub use pacozero_data::tactics::TacticLine;

/// Reads a suite's text (`name` in errors); a bad line names the line.
pub fn parse_suite<G: Game>(text: &str, name: &str) -> Result<Vec<TacticLine>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let t: TacticLine = serde_json::from_str(line).with_context(|| format!("{name}, line {}", i + 1))?;
        G::from_notation(&t.fen).map_err(|e| anyhow::anyhow!("{name}, line {}: {e}", i + 1))?;
        if !(1..=2).contains(&t.depth) || t.winning_actions.is_empty() {
            bail!("{name}, line {}: depth must be 1 or 2 with at least one winning turn", i + 1);
        }
        out.push(t);
    }
    Ok(out)
}

/// What the search that solves a suite may know besides its network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knowledge {
    /// The search as it plays (self-play, matches, UCI): the engine's win
    /// detection and the proven results of the MCTS-solver.
    Search,
    /// The network alone: neither, so that the network must find the win
    /// (what it has learnt).
    NetworkOnly,
}

/// The whole turn the network plays from `g`: each decision by `sims`
/// simulations of PUCT search (tree kept through the turn) knowing what
/// `knowledge` allows, or with 0 the most likely decision of its policy.
pub fn network_turn<G: Game, E: Evaluator<G>>(evaluator: &E, g: &G, sims: u32, knowledge: Knowledge) -> Result<Vec<u16>> {
    let mut state = g.clone();
    if sims > 0 {
        let mut cfg = analysis_search_config(sims);
        cfg.win_detection = knowledge == Knowledge::Search;
        cfg.solver = knowledge == Knowledge::Search;
        // A cut turn (a chain re-entering unions) is no winning turn: unsolved.
        Ok(search_turn(&mut state, cfg, evaluator, sims)?.decisions)
    } else {
        policy_turn(evaluator, &mut state)
    }
}

/// The network's output for `g` alone with the decisions `legal`, into
/// `out` (priors aligned with `legal`).
pub(crate) fn evaluate_position<G: Game, E: Evaluator<G>>(evaluator: &E, g: &G, legal: &[u16], out: &mut EvalOutput) -> Result<()> {
    let (mut planes, mut scalars) = (vec![0u64; G::NUM_BIT_PLANES * G::WORDS_PER_PLANE], vec![0f32; G::NUM_SCALARS]);
    g.encode(&mut planes, &mut scalars);
    let req = EvalRequest { state: g, legal, planes: &planes, scalars: &scalars };
    evaluator.evaluate(std::slice::from_ref(&req), out)
}

/// The turn of the policy alone: the most likely decision each time.
fn policy_turn<G: Game, E: Evaluator<G>>(evaluator: &E, state: &mut G) -> Result<Vec<u16>> {
    let mover = state.to_move();
    let (mut legal, mut out, mut played) = (Vec::new(), EvalOutput::default(), Vec::new());
    while state.to_move() == mover && state.outcome().is_none() && played.len() < MAX_TURN_DECISIONS {
        state.playable_actions(&mut legal);
        if legal.is_empty() {
            break;
        }
        evaluate_position(evaluator, &*state, &legal, &mut out)?;
        let priors = out.priors_of(0);
        let action = legal[(0..legal.len()).max_by(|&a, &b| priors[a].total_cmp(&priors[b])).expect("legal actions")];
        state.apply(action);
        played.push(action);
    }
    Ok(played)
}

/// Positions solved and tried, wins in 1 (`[0]`) and in 2 (`[1]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolveReport {
    pub solved: [usize; 2],
    pub total: [usize; 2],
}

impl SolveReport {
    /// Percentage solved at depth `d` (1 or 2).
    pub fn rate(&self, d: usize) -> f64 {
        let i = d - 1;
        if self.total[i] == 0 {
            f64::NAN
        } else {
            100.0 * self.solved[i] as f64 / self.total[i] as f64
        }
    }
}

/// The network's turn at each position of `suite` (see [`network_turn`]) is
/// one of its winning turns, or not: a turn that wins the game, or one that
/// reaches the position of a listed winning turn (a chain can reach it by
/// other decisions than the ones listed).
pub fn solve_suite<G: Game, E: Evaluator<G>>(evaluator: &E, suite: &[TacticLine], sims: u32, knowledge: Knowledge) -> Result<SolveReport> {
    let mut r = SolveReport::default();
    for t in suite {
        let g = G::from_notation(&t.fen).map_err(|e| anyhow::anyhow!("suite position {}: {e}", t.fen))?;
        let turn = network_turn(evaluator, &g, sims, knowledge)?;
        let d = (t.depth - 1) as usize;
        r.total[d] += 1;
        r.solved[d] += usize::from(is_winning_turn(&g, &turn, t));
    }
    Ok(r)
}

/// Whether `turn` from `g` wins the game, or reaches the position that one
/// of `t`'s winning turns reaches.
fn is_winning_turn<G: Game>(g: &G, turn: &[u16], t: &TacticLine) -> bool {
    let after = |decisions: &[u16]| {
        let mut s = g.clone();
        decisions.iter().for_each(|&d| s.apply(d));
        s
    };
    let played = after(turn);
    if played.outcome() == Some(pacozero_engine::Outcome::Win(g.to_move())) {
        return true;
    }
    t.winning_actions.iter().filter_map(|w| g.parse_decisions(w).ok()).any(|w| after(&w).hash() == played.hash())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_engine::prelude::*;
    use pacozero_engine::{paco, Outcome};

    /// A policy that knows the engine: all its prior on the decisions that
    /// keep a win this turn (`toward`), or on the others (`!toward`).
    struct Oracle {
        toward: bool,
    }

    /// An evaluator that counts its positions and checks their encoding
    /// against the game's own, then asks `inner`.
    struct Counting<E> {
        inner: E,
        positions: std::sync::atomic::AtomicUsize,
    }

    impl<G: Game, E: Evaluator<G>> Evaluator<G> for Counting<E> {
        fn name(&self) -> String {
            "counting".into()
        }
        fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
            for r in batch {
                let mut planes = vec![0u64; G::NUM_BIT_PLANES * G::WORDS_PER_PLANE];
                let mut scalars = vec![0f32; G::NUM_SCALARS];
                r.state.encode(&mut planes, &mut scalars);
                assert_eq!((r.planes, r.scalars), (&planes[..], &scalars[..]));
            }
            self.positions.fetch_add(batch.len(), std::sync::atomic::Ordering::Relaxed);
            self.inner.evaluate(batch, out)
        }
    }

    impl<G: Game> Evaluator<G> for Oracle {
        fn name(&self) -> String {
            "oracle".into()
        }
        fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
            out.reset(batch);
            for (i, r) in batch.iter().enumerate() {
                let mover = r.state.to_move();
                let wins: Vec<bool> = r
                    .legal
                    .iter()
                    .map(|&a| {
                        let mut next = r.state.clone();
                        next.apply(a);
                        next.outcome() == Some(Outcome::Win(mover)) || (next.to_move() == mover && next.outcome().is_none() && next.can_win_this_turn())
                    })
                    .collect();
                let chosen: Vec<bool> = wins.iter().map(|&w| w == self.toward).collect();
                let n = chosen.iter().filter(|&&c| c).count().max(1) as f32;
                let start = out.offsets[i];
                for (k, c) in chosen.into_iter().enumerate() {
                    out.priors[start + k] = if c { 1.0 / n } else { 0.0 };
                }
            }
            Ok(())
        }
    }

    fn in_one() -> Vec<TacticLine> {
        parse_suite::<paco::GameState>(BUNDLED_SUITE, "bundled").unwrap().into_iter().filter(|t| t.depth == 1).take(25).collect()
    }

    #[test]
    fn a_policy_toward_the_win_solves_the_wins_in_one_and_one_away_from_it_none() {
        let suite = in_one();
        assert_eq!(suite.len(), 25);
        for sims in [0, 24] {
            for knowledge in [Knowledge::Search, Knowledge::NetworkOnly] {
                let r = solve_suite::<paco::GameState, _>(&Oracle { toward: true }, &suite, sims, knowledge).unwrap();
                assert_eq!(r, SolveReport { solved: [25, 0], total: [25, 0] }, "{sims} simulations");
                assert_eq!(r.rate(1), 100.0);
                assert!(r.rate(2).is_nan());
            }
        }
        let r = solve_suite::<paco::GameState, _>(&Oracle { toward: false }, &suite, 0, Knowledge::Search).unwrap();
        assert_eq!(r, SolveReport { solved: [0, 0], total: [25, 0] });
        // A policy away from the win: the network alone misses every one;
        // the search as it plays finds each by the engine's win detection.
        let r = solve_suite::<paco::GameState, _>(&Oracle { toward: false }, &suite, 24, Knowledge::NetworkOnly).unwrap();
        assert_eq!(r, SolveReport { solved: [0, 0], total: [25, 0] });
        let r = solve_suite::<paco::GameState, _>(&Oracle { toward: false }, &suite, 24, Knowledge::Search).unwrap();
        assert_eq!(r, SolveReport { solved: [25, 0], total: [25, 0] });
        // The turn the policy plays is a whole turn: the mover is done after it.
        let g = paco::GameState::from_notation(&suite[0].fen).unwrap();
        let mut after = g.clone();
        for d in network_turn(&Oracle { toward: true }, &g, 0, Knowledge::Search).unwrap() {
            after.apply(d);
        }
        assert_eq!(after.outcome(), Some(Outcome::Win(g.to_move())));
        // Without simulations the policy is asked once a decision, each
        // position encoded as the game encodes it; with them (from the start,
        // where no turn wins), more often.
        let start = paco::GameState::start();
        let count = |sims: u32| {
            let e = Counting { inner: Oracle { toward: true }, positions: Default::default() };
            let turn = network_turn(&e, &start, sims, Knowledge::NetworkOnly).unwrap();
            (turn.len(), e.positions.into_inner())
        };
        let (decisions, asked) = count(0);
        assert_eq!(asked, decisions);
        let (_, searched) = count(24);
        assert!(searched > decisions, "{searched} {decisions}");
    }

    #[test]
    fn the_bundled_suite_reads_and_bad_lines_are_named() {
        let all = parse_suite::<paco::GameState>(BUNDLED_SUITE, "bundled").unwrap();
        assert_eq!(all.len(), BUNDLED_SUITE.lines().count());
        let depths = [1, 2].map(|d| all.iter().filter(|t| t.depth == d).count());
        assert!(depths[0] > 0 && depths[1] > 0 && depths[0] + depths[1] == all.len(), "{depths:?}");
        let good = BUNDLED_SUITE.lines().next().unwrap();
        let line = |f: &dyn Fn(&mut serde_json::Value)| {
            let mut v: serde_json::Value = serde_json::from_str(good).unwrap();
            f(&mut v);
            format!("{good}\n\n{v}\n")
        };
        for (text, why) in [
            (format!("{good}\nnot json\n"), "suite, line 2"),
            (line(&|v| v["fen"] = "x".into()), "suite, line 3: "),
            (line(&|v| v["depth"] = 3.into()), "suite, line 3: depth must be 1 or 2"),
            (line(&|v| v["depth"] = 0.into()), "suite, line 3: depth must be 1 or 2"),
            (line(&|v| v["winning_actions"] = serde_json::json!([])), "suite, line 3: depth must be 1 or 2 with at least one winning turn"),
        ] {
            let e = format!("{:#}", parse_suite::<paco::GameState>(&text, "suite").unwrap_err());
            assert!(e.starts_with(why), "{why}: {e}");
        }
        assert_eq!(parse_suite::<paco::GameState>(&line(&|v| v["depth"] = 2.into()), "suite").unwrap().len(), 2);
    }
}
