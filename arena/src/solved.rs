//! Solved positions: a suite of positions whose exact values and optimal
//! moves a perfect solver computed, and how close a network's play comes
//! to perfect play on them ([`judge_suite`]; `pacozero solved`). A game
//! bundles its suite as [`Tools::SOLVED_SUITE`](pacozero_engine::Tools::SOLVED_SUITE): Connect Four's
//! (`engine/tests/data/connect4-solved.jsonl`) was labelled by solvers
//! others wrote (`tools/connect4-solvers/`, docs/connect4.md). A suite of
//! any game in this format is judged the same way.
//!
//! The suite file has one JSON object per line:
//!
//! | field | meaning |
//! |---|---|
//! | `position` | the position in the game's notation (Connect Four: the columns played, `4453`) |
//! | `value` | the exact result for the side to move with perfect play: `1` win, `0` draw, `-1` loss |
//! | `score` | the solver's exact score for the side to move (Pascal Pons' convention: positive wins, the sooner the larger; 0 draws; negative loses, the later the nearer 0) |
//! | `move_scores` | each legal move by name, with its score for the side to move |
//! | `optimal` | the moves of the best score: the fastest win, a draw, or the slowest loss |
//! | `correct` | the moves that keep the value: every move that still wins a won position, every drawing move of a drawn one, every move of a lost one |
//! | `phase` | `begin`, `middle` or `end`: how far the game is |
//! | `source` | how the position was drawn |

use crate::tactics::{evaluate_position, network_turn, Knowledge};
use anyhow::{bail, Context, Result};
use pacozero_engine::Game;
use pacozero_search::{EvalOutput, Evaluator};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One position of a solved suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolvedLine {
    pub position: String,
    pub value: i8,
    pub score: i32,
    pub move_scores: BTreeMap<String, i32>,
    pub optimal: Vec<String>,
    pub correct: Vec<String>,
    pub phase: String,
    pub source: String,
}

/// Reads a suite's text (`name` in errors), each line checked against the
/// game: the position reads, it is running, every legal move has a score
/// and no other does, and the value, `optimal` and `correct` follow from
/// the scores. A bad line is named with what is wrong.
pub fn parse_solved<G: Game>(text: &str, name: &str) -> Result<Vec<SolvedLine>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = || format!("{name}, line {}", i + 1);
        let t: SolvedLine = serde_json::from_str(line).with_context(at)?;
        let g = G::from_notation(&t.position).map_err(|e| anyhow::anyhow!("{}: position: {e}", at()))?;
        if g.outcome().is_some() {
            bail!("{}: position {}: the game is over", at(), t.position);
        }
        let mut legal = Vec::new();
        g.playable_actions(&mut legal);
        let mut names: Vec<String> = legal.iter().map(|&a| g.action_name(a)).collect();
        names.sort();
        let scored: Vec<String> = t.move_scores.keys().cloned().collect();
        if names != scored {
            bail!("{}: move_scores has moves {scored:?}, the legal moves are {names:?}", at());
        }
        let derived = derive(&t.move_scores);
        if (t.value, t.score, sorted(&t.optimal), sorted(&t.correct)) != (derived.value, derived.score, derived.optimal.clone(), derived.correct.clone()) {
            bail!(
                "{}: value {}, score {}, optimal {:?} and correct {:?} do not follow from move_scores (they give {}, {}, {:?}, {:?})",
                at(),
                t.value,
                t.score,
                t.optimal,
                t.correct,
                derived.value,
                derived.score,
                derived.optimal,
                derived.correct
            );
        }
        out.push(t);
    }
    Ok(out)
}

fn sorted(v: &[String]) -> Vec<String> {
    let mut v = v.to_vec();
    v.sort();
    v
}

/// What the move scores of a position say about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Derived {
    pub value: i8,
    pub score: i32,
    pub optimal: Vec<String>,
    pub correct: Vec<String>,
}

/// The value, the score and the optimal and correct moves that a
/// position's move scores give (each move's score is for the side to move;
/// the position's score is the best of them).
pub fn derive(move_scores: &BTreeMap<String, i32>) -> Derived {
    let score = move_scores.values().copied().max().unwrap_or(0);
    let value = score.signum() as i8;
    let pick = |keep: &dyn Fn(i32) -> bool| move_scores.iter().filter(|(_, &s)| keep(s)).map(|(m, _)| m.clone()).collect::<Vec<_>>();
    let optimal = pick(&|s| s == score);
    let correct = match value {
        1 => pick(&|s| s > 0),
        0 => pick(&|s| s == 0),
        _ => pick(&|_| true),
    };
    Derived { value, score, optimal, correct }
}

/// One way of choosing moves, judged on the suite.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JudgeLine {
    /// Simulations per decision (0: the policy's most likely move).
    pub sims: u32,
    /// Positions, optimal moves and correct moves, all and by phase.
    pub total: usize,
    pub optimal: usize,
    pub correct: usize,
    pub by_phase: BTreeMap<String, [usize; 3]>,
}

impl JudgeLine {
    /// Share of positions where the move was optimal, in percent.
    pub fn optimal_rate(&self) -> f64 {
        100.0 * self.optimal as f64 / self.total.max(1) as f64
    }
    /// Share where the move kept the position's value, in percent.
    pub fn correct_rate(&self) -> f64 {
        100.0 * self.correct as f64 / self.total.max(1) as f64
    }
}

/// The network's value against the exact one: how often its most likely
/// result (win, draw or loss for the mover) is the exact result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValueLine {
    pub total: usize,
    pub right: usize,
    /// Mean probability the network gives the exact result.
    pub mean_probability: f64,
}

impl ValueLine {
    pub fn rate(&self) -> f64 {
        100.0 * self.right as f64 / self.total.max(1) as f64
    }
}

/// The move each of `sims` (0 = the policy alone) chooses at every position
/// of `suite`, judged against the solver's optimal and correct moves; and
/// the network's value against the exact result. The search is the one
/// that plays (win detection and the solver on, as in `tactics solve`).
pub fn judge_suite<G: Game, E: Evaluator<G>>(evaluator: &E, suite: &[SolvedLine], sims: &[u32]) -> Result<(Vec<JudgeLine>, ValueLine)> {
    let mut lines: Vec<JudgeLine> = sims.iter().map(|&s| JudgeLine { sims: s, ..JudgeLine::default() }).collect();
    let mut value = ValueLine::default();
    let (mut legal, mut out) = (Vec::new(), EvalOutput::default());
    for t in suite {
        let g = G::from_notation(&t.position).map_err(|e| anyhow::anyhow!("suite position {}: {e}", t.position))?;
        for line in &mut lines {
            let turn = network_turn(evaluator, &g, line.sims, Knowledge::Search)?;
            let name = turn.first().map(|&a| g.action_name(a)).unwrap_or_default();
            let (opt, cor) = (t.optimal.contains(&name), t.correct.contains(&name));
            line.total += 1;
            line.optimal += usize::from(opt);
            line.correct += usize::from(cor);
            let p = line.by_phase.entry(t.phase.clone()).or_default();
            p[0] += 1;
            p[1] += usize::from(opt);
            p[2] += usize::from(cor);
        }
        g.playable_actions(&mut legal);
        evaluate_position(evaluator, &g, &legal, &mut out)?;
        let wdl = out.wdl[0];
        let exact = match t.value {
            1 => 0,
            0 => 1,
            _ => 2,
        };
        let guess = (0..3).max_by(|&a, &b| wdl[a].total_cmp(&wdl[b])).expect("three results");
        value.total += 1;
        value.right += usize::from(guess == exact);
        value.mean_probability += wdl[exact] as f64;
    }
    value.mean_probability /= value.total.max(1) as f64;
    Ok((lines, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_engine::connect4;
    use pacozero_engine::prelude::*;
    use pacozero_search::{EvalRequest, UniformEvaluator};
    use std::collections::HashMap;

    fn scores(pairs: &[(&str, i32)]) -> BTreeMap<String, i32> {
        pairs.iter().map(|&(m, s)| (m.to_string(), s)).collect()
    }

    #[test]
    fn the_value_and_the_move_sets_follow_from_the_move_scores() {
        let won = derive(&scores(&[("1", -2), ("3", 1), ("4", 5), ("5", 0)]));
        assert_eq!((won.value, won.score), (1, 5));
        assert_eq!((won.optimal, won.correct), (vec!["4".to_string()], vec!["3".to_string(), "4".to_string()]));
        let drawn = derive(&scores(&[("1", -2), ("3", 0), ("4", 0)]));
        assert_eq!((drawn.value, drawn.optimal.len(), drawn.correct.len()), (0, 2, 2));
        let lost = derive(&scores(&[("1", -2), ("3", -7), ("4", -1)]));
        assert_eq!((lost.value, lost.score, lost.optimal, lost.correct.len()), (-1, -1, vec!["4".to_string()], 3));
    }

    /// Knows the suite: all its prior on the first optimal move and all its
    /// value on the exact result.
    struct Perfect(HashMap<String, (String, i8)>);

    impl<G: Game> Evaluator<G> for Perfect {
        fn name(&self) -> String {
            "perfect".into()
        }
        fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
            out.reset(batch);
            for (i, r) in batch.iter().enumerate() {
                let Some((best, value)) = self.0.get(&r.state.notation()) else { continue };
                let start = out.offsets[i];
                for (k, &a) in r.legal.iter().enumerate() {
                    out.priors[start + k] = if r.state.action_name(a) == *best { 1.0 } else { 0.0 };
                }
                out.wdl[i] = match value {
                    1 => [1.0, 0.0, 0.0],
                    0 => [0.0, 1.0, 0.0],
                    _ => [0.0, 0.0, 1.0],
                };
            }
            Ok(())
        }
    }

    #[test]
    fn the_judge_counts_what_the_evaluator_chose_and_what_it_valued() {
        let suite: Vec<SolvedLine> =
            parse_solved::<connect4::GameState>(connect4::GameState::SOLVED_SUITE.unwrap(), "bundled").unwrap().into_iter().step_by(10).collect();
        assert_eq!(suite.len(), 30);
        let perfect = Perfect(suite.iter().map(|t| (t.position.clone(), (t.optimal[0].clone(), t.value))).collect());
        let (lines, value) = judge_suite::<connect4::GameState, _>(&perfect, &suite, &[0]).unwrap();
        assert_eq!((lines[0].sims, lines[0].total, lines[0].optimal, lines[0].correct), (0, 30, 30, 30));
        assert_eq!(lines[0].by_phase.values().map(|p| p[0]).sum::<usize>(), 30);
        assert_eq!(value, ValueLine { total: 30, right: 30, mean_probability: 1.0 });
        // Uniform priors pick the last legal move (ties go to the last); a certain draw is right
        // exactly at the drawn positions, with probability one there.
        let drawn = suite.iter().filter(|t| t.value == 0).count();
        let first_is = |set: fn(&SolvedLine) -> &Vec<String>| suite.iter().filter(|t| set(t).contains(&last_legal(t))).count();
        let (lines, value) = judge_suite::<connect4::GameState, _>(&UniformEvaluator, &suite, &[0]).unwrap();
        assert_eq!((lines[0].total, lines[0].optimal, lines[0].correct), (30, first_is(|t| &t.optimal), first_is(|t| &t.correct)));
        assert!(lines[0].optimal < 30, "the suite has positions where the last column is not optimal");
        assert_eq!((value.total, value.right), (30, drawn));
        assert!((value.mean_probability - drawn as f64 / 30.0).abs() < 1e-9);
    }

    fn last_legal(t: &SolvedLine) -> String {
        let g = connect4::GameState::from_notation(&t.position).unwrap();
        let mut legal = Vec::new();
        g.playable_actions(&mut legal);
        g.action_name(legal[legal.len() - 1])
    }
}
