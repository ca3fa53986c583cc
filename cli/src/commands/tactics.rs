//! `pacozero tactics`: a suite of Paco-in-1 and Paco-in-2 positions proved by
//! exhaustive search (`generate`), and a network's solve rate on it (`solve`).
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

use crate::args::{TacticsArgs, TacticsCommand};
use crate::atomic::write_atomic;
use anyhow::{bail, Context, Result};
use pacozero_engine::paco::{parse_actions, turn_to_string, Action, FullMoveLimits, GameState, Position, Prover, Required};
use pacozero_engine::Game;
use pacozero_selfplay::turns::MAX_TURN_DECISIONS;
use pacozero_selfplay::{EvalOutput, EvalRequest, Evaluator};
use serde::{Deserialize, Serialize};
use std::path::Path;

const BUNDLED_GAMES: &str = include_str!("../../../engine/tests/data/games.jsonl");
/// Unions above which `generate` leaves a position out.
const MAX_UNIONS: u32 = 10;
/// Chain states one full-move enumeration of `generate` may visit.
const MAX_CHAIN_STATES: usize = 200_000;
const BUNDLED_SUITE: &str = include_str!("../../../engine/tests/data/tactics.jsonl");

/// One position of the suite.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TacticLine {
    pub fen: String,
    pub depth: u8,
    pub winning_turns: Vec<String>,
    pub winning_actions: Vec<String>,
    pub source: String,
}

pub fn run(a: TacticsArgs) -> Result<()> {
    match a.what {
        TacticsCommand::Generate { out, max_depth } => generate(&out, max_depth),
        TacticsCommand::Solve { model, sims, suite } => solve(&model, sims, suite.as_deref()),
    }
}

/// Turn starts of the bundled reference games and the exact-FEN reference positions.
fn candidate_positions() -> Result<Vec<(Position, String)>> {
    let mut out = Vec::new();
    for (i, line) in BUNDLED_GAMES.lines().enumerate() {
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
    for line in super::REFERENCE_VECTORS.lines() {
        let v: serde_json::Value = serde_json::from_str(line)?;
        if v["fen_exact"] == true && v["required_action"] == "Lift" {
            let pos: Position = v["fen"].as_str().unwrap_or_default().parse().map_err(|e| anyhow::anyhow!("vector {}: {e}", v["id"]))?;
            out.push((pos, format!("reference vector {}", v["id"])));
        }
    }
    Ok(out)
}

fn generate(out: &Path, max_depth: u8) -> Result<()> {
    let candidates = candidate_positions()?;
    // A few union-heavy positions have millions of chain states (in the full
    // moves, or in the threat searches of the replies); they are left out
    // (and counted) rather than proved in gigabytes.
    let mut prover = Prover::new(FullMoveLimits { max_states: MAX_CHAIN_STATES });
    let mut seen = std::collections::HashSet::new();
    let mut text = String::new();
    let (mut in1, mut in2, mut too_big) = (0, 0, 0);
    for (n, (pos, source)) in candidates.iter().enumerate() {
        if n % 500 == 0 {
            eprintln!("{n}/{} positions: {in1} Paco in 1, {in2} Paco in 2 so far", candidates.len());
        }
        if !seen.insert(pos.hash()) {
            continue;
        }
        if pos.unions().len() > MAX_UNIONS {
            too_big += 1;
            continue;
        }
        let t = match prover.prove(pos, max_depth) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(_) => {
                too_big += 1;
                continue;
            }
        };
        let line = TacticLine {
            fen: pos.fen(),
            depth: t.depth,
            winning_turns: t.winning_turns.iter().map(|w| turn_to_string(pos, w)).collect(),
            winning_actions: t.winning_turns.iter().map(|w| actions_text(w)).collect(),
            source: source.clone(),
        };
        text.push_str(&serde_json::to_string(&line)?);
        text.push('\n');
        if t.depth == 1 {
            in1 += 1;
        } else {
            in2 += 1;
        }
    }
    write_atomic(out, text.as_bytes())?;
    println!(
        "{} positions ({} distinct) proved: {in1} Paco in 1, {in2} Paco in 2 ({too_big} left out: more than {MAX_UNIONS} unions or {MAX_CHAIN_STATES} chain states), written to {}",
        candidates.len(),
        seen.len(),
        out.display()
    );
    Ok(())
}

fn actions_text(actions: &[Action]) -> String {
    actions.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(" ")
}

/// Reads a suite (the bundled one without a path); a bad line names the file and the line.
pub fn read_suite(path: Option<&Path>) -> Result<Vec<TacticLine>> {
    let (text, name) = match path {
        Some(p) => (std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?, p.display().to_string()),
        None => (BUNDLED_SUITE.to_string(), "the bundled suite".to_string()),
    };
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
fn network_turn<E: Evaluator<GameState>>(evaluator: &E, g: &GameState, sims: u32) -> Result<Vec<Action>> {
    let mover = g.to_move();
    let mut state = g.clone();
    let decisions = if sims > 0 {
        let mut cfg = super::analyze::analysis_config(sims);
        cfg.win_detection = false;
        // A cut turn (a chain re-entering unions) is no winning turn: unsolved.
        super::analyze::search_turn(&mut state, cfg, evaluator, sims)?.decisions
    } else {
        policy_turn(evaluator, &mut state)?
    };
    Ok(decisions.iter().map(|&d| pacozero_engine::paco::action_from_index(d as usize, mover).expect("legal index")).collect())
}

/// The turn of the policy alone: the most likely decision each time.
fn policy_turn<E: Evaluator<GameState>>(evaluator: &E, state: &mut GameState) -> Result<Vec<u16>> {
    let mover = state.to_move();
    let words = (GameState::BOARD_HEIGHT * GameState::BOARD_WIDTH).div_ceil(64);
    let (mut planes, mut scalars) = (vec![0u64; GameState::NUM_BIT_PLANES * words], vec![0f32; GameState::NUM_SCALARS]);
    let (mut legal, mut out, mut played) = (Vec::new(), EvalOutput::default(), Vec::new());
    while state.to_move() == mover && state.outcome().is_none() && played.len() < MAX_TURN_DECISIONS {
        state.legal_actions(&mut legal);
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

fn solve(model: &Path, sims: u32, suite: Option<&Path>) -> Result<()> {
    let suite = read_suite(suite)?;
    let evaluator = pacozero_nn::load_evaluator(model, 0)?;
    let mut solved = [0usize; 2];
    let mut total = [0usize; 2];
    for t in &suite {
        let g = GameState::new(t.fen.parse().expect("checked when read"));
        let turn = actions_text(&network_turn(&evaluator, &g, sims)?);
        let d = (t.depth - 1) as usize;
        total[d] += 1;
        solved[d] += t.winning_actions.contains(&turn) as usize;
    }
    let rate = |d: usize| if total[d] == 0 { f64::NAN } else { 100.0 * solved[d] as f64 / total[d] as f64 };
    println!("{} at {sims} simulations per decision on {} positions:", Evaluator::<GameState>::name(&evaluator), suite.len());
    println!("  Paco in 1: {}/{} solved ({:.1}%)", solved[0], total[0], rate(0));
    println!("  Paco in 2: {}/{} solved ({:.1}%)", solved[1], total[1], rate(1));
    Ok(())
}
