//! What a search answers: the turn of `bestmove` and the `info` lines.

use anyhow::Result;
use pacozero_engine::{Game, Outcome};
use pacozero_search::eval::Evaluator;
use pacozero_search::mcts::{Proven, Search};
use pacozero_search::turns::{principal_variation, ranked_turns, search_turn, winning_turn};
use pacozero_search::SearchConfig;

use super::info::{Info, Score};
use super::position::move_token;
use super::{engine_search_config, score, Running, COMPLETION_VISITS};
use crate::analysis::DEFAULT_PV_TURNS;

/// The settings of the short search that completes a turn: the engine's
/// (`cfg`'s policy temperature) at [`COMPLETION_VISITS`].
pub(super) fn completion_config(cfg: &SearchConfig) -> SearchConfig {
    engine_search_config(COMPLETION_VISITS, cfg.policy_temperature)
}

/// The turn `bestmove` names: the engine's win when the root is a detected
/// one, else the most visited complete turn, else the most visited path
/// completed by a short search.
pub(super) fn best_turn<G: Game>(search: &Search<G>, evaluator: &dyn Evaluator<G>) -> Result<Vec<u16>> {
    let root = search.root_state().clone();
    if search.root_is_detected_win() {
        if let Some(turn) = winning_turn(&root) {
            return Ok(turn);
        }
    }
    if let Some(turn) = search.root_two_turn_win() {
        return Ok(turn.to_vec());
    }
    if let Some(t) = ranked_turns(search).into_iter().next() {
        return Ok(t.path);
    }
    let mover = root.to_move();
    let mut g = root.clone();
    let mut path = Vec::new();
    while g.outcome().is_none() && g.to_move() == mover {
        match search.children_at(&path) {
            Some(children) => {
                let best = children
                    .iter()
                    .max_by(|a, b| a.visits.cmp(&b.visits).then(a.prior.total_cmp(&b.prior)))
                    .expect("an expanded node has children (a stuck one is terminal)");
                g.apply(best.action);
                path.push(best.action);
            }
            None => {
                let config = completion_config(search.config());
                let turn = search_turn(&mut g, config, evaluator, COMPLETION_VISITS)?;
                path.extend(turn.decisions);
                break;
            }
        }
    }
    if g.outcome().is_none() && g.to_move() == mover {
        anyhow::bail!("the search could not complete a turn from {}", root.notation());
    }
    Ok(path)
}

/// The `info` lines of a search in progress (none before the root has children).
pub(super) fn info_lines<G: Game>(r: &Running<G>, multipv: usize, show_wdl: bool) -> Vec<String> {
    let search = &r.search;
    let root = search.root_state();
    let mover = root.to_move();
    let ms = r.started.elapsed().as_millis() as u64;
    let nodes = search.total_simulations - r.sims_before;
    let nps = nodes * 1000 / ms.max(1);
    let depth = if nodes > 0 { ((search.node_visits - r.node_visits_before) as f64 / nodes as f64 - 1.0).round().max(1.0) as u64 } else { 1 };
    let line = |k: usize, score: Score, wdl: [f32; 3], pv: &[String]| {
        let info = Info {
            depth: Some(depth),
            multipv: Some(k),
            score: Some(score),
            wdl: show_wdl.then(|| score::wdl_permille(wdl)),
            nodes: Some(nodes),
            nps: Some(nps),
            time_ms: Some(ms),
            pv: pv.to_vec(),
        };
        info.to_string()
    };
    if search.root_is_detected_win() {
        return winning_turn(root).map(|t| vec![line(1, Score::Mate(1), [1.0, 0.0, 0.0], &[move_token(root, &t)])]).unwrap_or_default();
    }
    if let Some(t) = search.root_two_turn_win() {
        return vec![line(1, Score::Mate(2), [1.0, 0.0, 0.0], &[move_token(root, t)])];
    }
    let mut out = Vec::new();
    for (i, t) in ranked_turns(search).into_iter().take(multipv.max(1)).enumerate() {
        // A proven result is exact.
        let wdl = match t.proof.map(|p| p.result) {
            Some(Proven::Win) => [1.0, 0.0, 0.0],
            Some(Proven::Draw) => [0.0, 1.0, 0.0],
            Some(Proven::Loss) => [0.0, 0.0, 1.0],
            None => t.wdl,
        };
        let score = match t.proof.and_then(|p| p.uci_mate()) {
            Some(n) => Score::Mate(n),
            None if t.state.outcome() == Some(Outcome::Win(mover)) => Score::Mate(1),
            None => Score::Cp(score::centipawns(wdl[0] - wdl[2])),
        };
        let mut pv = vec![move_token(root, &t.path)];
        // Whole turns only: an unfinished last turn is shown in brackets by the tree's walk.
        let rest = principal_variation(search, &t.path, &t.state, DEFAULT_PV_TURNS);
        pv.extend(rest.into_iter().take_while(|m| !m.starts_with('[')).map(|m| m.split_whitespace().collect::<String>()));
        out.push(line(i + 1, score, wdl, &pv));
    }
    out
}
