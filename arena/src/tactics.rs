//! Tactics: a suite of Paco-in-1 and Paco-in-2 positions proved by
//! exhaustive search ([`generate_suite`]), and a network's solve rate on it
//! ([`solve_suite`]); `pacozero tactics generate | solve`.
//!
//! The suite file has one JSON object per line:
//!
//! | field | meaning |
//! |---|---|
//! | `fen` | the position (a turn start), mover to win |
//! | `depth` | 1 or 2: the mover's turns to the union with the king |
//! | `winning_turns` | every first turn that forces it, in chain notation |
//! | `winning_actions` | the same turns as atomic actions (`"Lf3 Pe4"`) |
//! | `source` | where the position comes from |

use anyhow::{bail, Context, Result};
use pacozero_engine::paco::{action_from_index, parse_actions, turn_to_string, Action, FullMoveLimits, GameState, Position, Prover, Required};
use pacozero_engine::Game;
use pacozero_search::analysis::analysis_search_config;
use pacozero_search::turns::{search_turn, MAX_TURN_DECISIONS};
use pacozero_search::{EvalOutput, EvalRequest, Evaluator};
use serde::{Deserialize, Serialize};

/// The reference games whose turn starts are candidates.
pub const BUNDLED_GAMES: &str = include_str!("../../engine/tests/data/games.jsonl");
/// The suite in the repository (`engine/tests/data/tactics.jsonl`).
pub const BUNDLED_SUITE: &str = include_str!("../../engine/tests/data/tactics.jsonl");
/// Unions above which [`generate_suite`] leaves a position out.
pub const MAX_UNIONS: u32 = 10;
/// Chain states one full-move enumeration of [`generate_suite`] may visit.
pub const MAX_CHAIN_STATES: usize = 200_000;

/// One position of the suite.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TacticLine {
    pub fen: String,
    pub depth: u8,
    pub winning_turns: Vec<String>,
    pub winning_actions: Vec<String>,
    pub source: String,
}

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

fn actions_text(actions: &[Action]) -> String {
    actions.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(" ")
}

/// Reads a suite's text (`name` in errors); a bad line names the line.
pub fn parse_suite(text: &str, name: &str) -> Result<Vec<TacticLine>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let t: TacticLine = serde_json::from_str(line).with_context(|| format!("{name}, line {}", i + 1))?;
        t.fen.parse::<Position>().map_err(|e| anyhow::anyhow!("{name}, line {}: {e}", i + 1))?;
        if !(1..=2).contains(&t.depth) || t.winning_actions.is_empty() {
            bail!("{name}, line {}: depth must be 1 or 2 with at least one winning turn", i + 1);
        }
        out.push(t);
    }
    Ok(out)
}

/// The whole turn the network plays from `g`: each decision by `sims`
/// simulations of PUCT search (tree kept through the turn), or with 0 the
/// most likely decision of its policy. Search never uses the engine's win
/// detection here: the network must find the win.
pub fn network_turn<E: Evaluator<GameState>>(evaluator: &E, g: &GameState, sims: u32) -> Result<Vec<Action>> {
    let mover = g.to_move();
    let mut state = g.clone();
    let decisions = if sims > 0 {
        let mut cfg = analysis_search_config(sims);
        cfg.win_detection = false;
        // A cut turn (a chain re-entering unions) is no winning turn: unsolved.
        search_turn(&mut state, cfg, evaluator, sims)?.decisions
    } else {
        policy_turn(evaluator, &mut state)?
    };
    Ok(decisions.iter().map(|&d| action_from_index(d as usize, mover).expect("legal index")).collect())
}

/// The turn of the policy alone: the most likely decision each time.
fn policy_turn<E: Evaluator<GameState>>(evaluator: &E, state: &mut GameState) -> Result<Vec<u16>> {
    let mover = state.to_move();
    let words = (GameState::BOARD_HEIGHT * GameState::BOARD_WIDTH).div_ceil(64);
    let (mut planes, mut scalars) = (vec![0u64; GameState::NUM_BIT_PLANES * words], vec![0f32; GameState::NUM_SCALARS]);
    let (mut legal, mut out, mut played) = (Vec::new(), EvalOutput::default(), Vec::new());
    while state.to_move() == mover && state.outcome().is_none() && played.len() < MAX_TURN_DECISIONS {
        state.playable_actions(&mut legal);
        if legal.is_empty() {
            break;
        }
        state.encode(&mut planes, &mut scalars);
        let req = EvalRequest { state: &*state, legal: &legal, planes: &planes, scalars: &scalars };
        evaluator.evaluate(std::slice::from_ref(&req), &mut out)?;
        let priors = out.priors_of(0);
        let action = legal[(0..legal.len()).max_by(|&a, &b| priors[a].total_cmp(&priors[b])).expect("legal actions")];
        state.apply(action);
        played.push(action);
    }
    Ok(played)
}

/// Positions solved and tried, Paco in 1 (`[0]`) and in 2 (`[1]`).
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
/// one of its winning turns, or not.
pub fn solve_suite<E: Evaluator<GameState>>(evaluator: &E, suite: &[TacticLine], sims: u32) -> Result<SolveReport> {
    let mut r = SolveReport::default();
    for t in suite {
        let g = GameState::new(t.fen.parse().expect("checked when read"));
        let turn = actions_text(&network_turn(evaluator, &g, sims)?);
        let d = (t.depth - 1) as usize;
        r.total[d] += 1;
        r.solved[d] += t.winning_actions.contains(&turn) as usize;
    }
    Ok(r)
}
