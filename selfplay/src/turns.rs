//! Whole Paco Ŝako turns seen through a search tree of atomic decisions
//! (`pacozero analyze`, opening books, `play` and the Python package's
//! `analyze`).
//!
//! Search decides one atomic action at a time (lift, place, promotion); a
//! player's turn is the sequence of its decisions until the other side is to
//! move (or the game ends). This module groups a tree's decisions into turns:
//! the turns completed below the root with their statistics ([`root_turns`]),
//! and principal variations in turn notation ([`principal_variation`]).
//!
//! A turn's statistics are those of the tree node reached by its last
//! decision: visits, mean (win, draw, loss) for the player making it; its
//! prior is the product of the priors of its decisions. Different decision
//! sequences that end in the same position (hash) are merged into one turn:
//! visits and priors are summed, WDL is visit-weighted, and the name is that
//! of the most visited sequence.

use crate::Search;
use pacozero_engine::paco::{action_from_index, turn_to_string, Action, GameState, Required};
use pacozero_engine::{Color, Game};

/// Decisions after which a whole turn played by search is cut: a chain may
/// re-enter a union it left, and a search can keep choosing to (tactics
/// solving and book comparison count such a turn as not found).
pub const MAX_TURN_DECISIONS: usize = 256;

/// Is the game at the start of a turn (nothing in hand; at most a promotion
/// of a pawn the opponent carried home pending)?
pub fn is_turn_start(g: &GameState) -> bool {
    matches!(g.position().required(), Required::Lift | Required::PromoteThenLift)
}

/// Engine actions of policy indices played by `mover`.
pub fn engine_actions(path: &[u16], mover: Color) -> Vec<Action> {
    path.iter().map(|&i| action_from_index(i as usize, mover).expect("policy index from the search")).collect()
}

/// Space-separated atomic actions (`"Le2 Pe4"`).
pub fn actions_text(actions: &[Action]) -> String {
    actions.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(" ")
}

/// Name of `actions` played from `from`: turn notation when `from` is the
/// start of a turn, otherwise (the rest of a turn) the atomic actions.
pub fn turn_name(from: &GameState, actions: &[Action]) -> String {
    if is_turn_start(from) {
        turn_to_string(from.position(), actions)
    } else {
        actions_text(actions)
    }
}

/// One turn completed inside a search tree.
#[derive(Clone, Debug)]
pub struct TurnStats {
    /// Its decisions (policy indices) from the root.
    pub path: Vec<u16>,
    pub actions: Vec<Action>,
    pub name: String,
    /// The game after the turn.
    pub state: GameState,
    pub visits: u32,
    /// (win, draw, loss) for the player making the turn.
    pub wdl: [f32; 3],
    /// Product of the decisions' priors.
    pub prior: f32,
}

/// Every turn from the root that the search visited, merged by resulting
/// position, most visited first (ties: tree order).
pub fn root_turns(search: &Search<GameState>) -> Vec<TurnStats> {
    let root = search.root_state().clone();
    let mover = root.to_move();
    let mut found: Vec<TurnStats> = Vec::new();
    // Depth-first over nodes inside the turn: (path, state, prior product).
    let mut stack: Vec<(Vec<u16>, GameState, f32)> = vec![(Vec::new(), root.clone(), 1.0)];
    while let Some((path, state, prior)) = stack.pop() {
        let Some(children) = search.children_at(&path) else { continue };
        // Reverse so that the first child is explored first.
        for c in children.iter().rev() {
            if c.visits == 0 {
                continue;
            }
            let mut next = state.clone();
            next.apply(c.action);
            let mut p = path.clone();
            p.push(c.action);
            let pr = prior * c.prior;
            if next.to_move() != mover || next.outcome().is_some() {
                let actions = engine_actions(&p, mover);
                found.push(TurnStats { name: turn_name(&root, &actions), path: p, actions, state: next, visits: c.visits, wdl: c.wdl, prior: pr });
            } else if c.expanded {
                stack.push((p, next, pr));
            }
        }
    }
    // Merge transpositions (same resulting position), keeping the most visited name.
    let mut merged: Vec<TurnStats> = Vec::new();
    for t in found {
        match merged.iter_mut().find(|m| m.state.position().hash() == t.state.position().hash()) {
            Some(m) => {
                let n = (m.visits + t.visits) as f32;
                for k in 0..3 {
                    m.wdl[k] = (m.wdl[k] * m.visits as f32 + t.wdl[k] * t.visits as f32) / n;
                }
                let prior = m.prior + t.prior;
                if t.visits > m.visits {
                    let visits = m.visits + t.visits;
                    *m = TurnStats { visits, prior, wdl: m.wdl, ..t };
                } else {
                    m.visits += t.visits;
                    m.prior = prior;
                }
            }
            None => merged.push(t),
        }
    }
    merged.sort_by_key(|t| std::cmp::Reverse(t.visits));
    merged
}

/// The principal variation below the node at `path` (whose game is `state`):
/// most visited children (ties: the first), grouped into turns, at most
/// `max_turns` of them. A turn the tree does not complete ends the list as
/// its atomic actions in brackets, e.g. `[Lg8]`.
pub fn principal_variation(search: &Search<GameState>, path: &[u16], state: &GameState, max_turns: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut path = path.to_vec();
    let mut turn_start = state.clone();
    let mut current = state.clone();
    let mut pending: Vec<u16> = Vec::new();
    while out.len() < max_turns {
        let Some(children) = search.children_at(&path) else { break };
        let mut best: Option<&crate::mcts::ChildStats> = None;
        for c in &children {
            if c.visits > 0 && best.is_none_or(|b| c.visits > b.visits) {
                best = Some(c);
            }
        }
        let Some(best) = best else { break };
        let mover = current.to_move();
        current.apply(best.action);
        path.push(best.action);
        pending.push(best.action);
        if current.to_move() != mover || current.outcome().is_some() {
            out.push(turn_name(&turn_start, &engine_actions(&pending, mover)));
            pending.clear();
            turn_start = current.clone();
            if current.outcome().is_some() {
                break;
            }
        }
    }
    if !pending.is_empty() && out.len() < max_turns {
        out.push(format!("[{}]", actions_text(&engine_actions(&pending, turn_start.to_move()))));
    }
    out
}
