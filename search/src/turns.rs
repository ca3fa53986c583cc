//! Whole turns seen through a search tree of atomic decisions (`pacozero
//! analyze`, the analysis engine, opening books, `play` and the Python
//! package's `analyze`), for every game.
//!
//! Search decides one atomic decision at a time (Paco Ŝako: lift, place,
//! promotion); a player's turn is the sequence of its decisions until the
//! other side is to move (or the game ends). Turns are named by the game's
//! [`Notation::turn_notation`](pacozero_engine::Notation::turn_notation) (Paco Ŝako: chain notation). This module groups a tree's decisions into turns:
//! the turns completed below the root with their statistics ([`root_turns`]),
//! and principal variations in turn notation ([`principal_variation`]).
//!
//! A turn's statistics are those of the tree node reached by its last
//! decision: visits, mean (win, draw, loss) for the player making it; its
//! prior is the product of the priors of its decisions. Different decision
//! sequences that end in the same position (hash) are merged into one turn:
//! visits and priors are summed, WDL is visit-weighted, and the name is that
//! of the most visited sequence.

use crate::{Evaluator, Proof, Proven, Search, SearchConfig, SearchResult};
use anyhow::Result;
use pacozero_engine::{Encode, Game, GameRules};
use rand::SeedableRng;

/// Decisions after which a whole turn played by search is cut: a chain may
/// re-enter a union it left, and a search can keep choosing to (tactics
/// solving and book comparison count such a turn as not found).
pub const MAX_TURN_DECISIONS: usize = 256;

/// The names ([`Notation::action_name`](pacozero_engine::Notation::action_name)) of `decisions` played from `from`.
pub fn decision_names<G: Game>(from: &G, decisions: &[u16]) -> Vec<String> {
    let mut g = from.clone();
    decisions
        .iter()
        .map(|&d| {
            let name = g.action_name(d);
            g.apply(d);
            name
        })
        .collect()
}

/// One turn completed inside a search tree.
#[derive(Clone, Debug)]
pub struct TurnStats<G> {
    /// Its decisions (policy indices) from the root.
    pub path: Vec<u16>,
    /// The decisions' names (Paco Ŝako: atomic actions such as `Le2`, `Pe4`).
    pub actions: Vec<String>,
    /// The turn in the game's notation ([`Notation::turn_notation`](pacozero_engine::Notation::turn_notation)).
    pub name: String,
    /// The game after the turn.
    pub state: G,
    pub visits: u32,
    /// (win, draw, loss) for the player making the turn.
    pub wdl: [f32; 3],
    /// Product of the decisions' priors.
    pub prior: f32,
    /// What the search proved of the turn, for the player making it, with
    /// the turns counted from the root (this one included).
    pub proof: Option<Proof>,
}

/// Every turn from the root that the search visited, merged by resulting
/// position, most visited first (ties: tree order).
pub fn root_turns<G: Game>(search: &Search<G>) -> Vec<TurnStats<G>> {
    let root = search.root_state().clone();
    let mover = root.to_move();
    let mut found: Vec<TurnStats<G>> = Vec::new();
    // Depth-first over nodes inside the turn: (path, state, prior product).
    let mut stack: Vec<(Vec<u16>, G, f32)> = vec![(Vec::new(), root.clone(), 1.0)];
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
            // A decision into a detected win (search stops there): the turn is
            // completed by the engine's winning continuation.
            let won_here = !c.expanded && next.outcome().is_none() && next.to_move() == mover && next.can_win_this_turn();
            if won_here {
                if let Some(rest) = winning_turn(&next) {
                    p.extend_from_slice(&rest);
                    for &d in &rest {
                        next.apply(d);
                    }
                }
            }
            if next.to_move() != mover || next.outcome().is_some() {
                found.push(TurnStats {
                    name: root.turn_notation(&p),
                    actions: decision_names(&root, &p),
                    path: p,
                    state: next,
                    visits: c.visits,
                    wdl: c.wdl,
                    prior: pr,
                    // Inside the turn the mover stays: the last decision's
                    // proof counts from the root.
                    proof: c.proof,
                });
            } else if c.expanded {
                stack.push((p, next, pr));
            }
        }
    }
    merge_transpositions(found)
}

/// The root's turns best first: proven wins (the shortest first), then the
/// unproven and drawn ones as [`root_turns`] orders them (most visited), then
/// proven losses (the longest first). What a player should play is the first.
pub fn ranked_turns<G: Game>(search: &Search<G>) -> Vec<TurnStats<G>> {
    let mut turns = root_turns(search);
    // (A stable sort: equal ranks keep the visit order.)
    turns.sort_by_key(|t| match t.proof {
        Some(Proof { result: Proven::Win, turns }) => (0, turns as i64),
        Some(Proof { result: Proven::Loss, turns }) => (2, -(turns as i64)),
        _ => (1, 0),
    });
    turns
}

/// Merges turns that reach one position (a transposition inside the turn):
/// visits and priors add up, the (win, draw, loss) is the visit-weighted
/// mean, the most visited turn's name and path stay (the first on a tie);
/// most visited first.
fn merge_transpositions<G: Game>(found: Vec<TurnStats<G>>) -> Vec<TurnStats<G>> {
    let mut merged: Vec<TurnStats<G>> = Vec::new();
    for t in found {
        match merged.iter_mut().find(|m| m.state.hash() == t.state.hash()) {
            Some(m) => {
                let n = (m.visits + t.visits) as f32;
                for k in 0..3 {
                    m.wdl[k] = (m.wdl[k] * m.visits as f32 + t.wdl[k] * t.visits as f32) / n;
                }
                let prior = m.prior + t.prior;
                // One position, one result: whichever sequence proved it.
                m.proof = m.proof.or(t.proof);
                if t.visits > m.visits {
                    let visits = m.visits + t.visits;
                    *m = TurnStats { visits, prior, wdl: m.wdl, proof: m.proof, ..t };
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
/// its decisions' names in brackets, e.g. `[Lg8]`.
pub fn principal_variation<G: Game>(search: &Search<G>, path: &[u16], state: &G, max_turns: usize) -> Vec<String> {
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
            out.push(turn_start.turn_notation(&pending));
            pending.clear();
            turn_start = current.clone();
            if current.outcome().is_some() {
                break;
            }
        }
    }
    // The loop stops at `max_turns` only right after a whole turn, so a
    // pending part is always within the limit.
    if !pending.is_empty() {
        out.push(format!("[{}]", decision_names(&turn_start, &pending).join(" ")));
    }
    out
}

/// The decisions that complete a won turn from `state`, whose mover can
/// unite with the opponent's king this turn ([`GameRules::can_win_this_turn`]):
/// a shortest such continuation, the first of the search's winning actions
/// (`mcts::winning_actions`) at each step, so the turn shown is the
/// one the search plays. `None` when `state`'s mover cannot win this turn.
pub fn winning_turn<G: GameRules>(state: &G) -> Option<Vec<u16>> {
    // (A finished game cannot: `GameRules::can_win_this_turn`.)
    if !state.can_win_this_turn() {
        return None;
    }
    let mover = state.to_move();
    let (mut g, mut out, mut legal) = (state.clone(), Vec::new(), Vec::new());
    // Each step is on a shortest path, so the turn is at most that long.
    while g.outcome().is_none() && g.to_move() == mover {
        g.playable_actions(&mut legal);
        let a = *crate::mcts::winning_actions(&g, &legal).first()?;
        out.push(a);
        g.apply(a);
    }
    (g.outcome() == Some(pacozero_engine::Outcome::Win(mover))).then_some(out)
}

/// One decision search of `simulations` more simulations on `search` (batch
/// size 1, no noise, seed 0: analysis is deterministic).
pub fn search_decision<G: GameRules + Encode, E: Evaluator<G> + ?Sized>(search: &mut Search<G>, evaluator: &E, simulations: u32) -> Result<SearchResult> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    search.search_until(evaluator, simulations, None, false, &mut rng)
}

/// The decisions of a whole turn played by search, and what the search
/// said at its first decision.
pub struct SearchedTurn {
    pub decisions: Vec<u16>,
    /// The mover's (win, draw, loss) at the first decision.
    pub first_wdl: [f32; 3],
    /// The turn was cut after [`MAX_TURN_DECISIONS`]: a chain kept re-entering unions.
    pub cut: bool,
}

/// Plays the whole turn of `g`'s mover by search, `simulations` per decision
/// with the tree kept through the turn; `g` is left after the decisions.
pub fn search_turn<G: GameRules + Encode, E: Evaluator<G> + ?Sized>(g: &mut G, cfg: SearchConfig, evaluator: &E, simulations: u32) -> Result<SearchedTurn> {
    let mover = g.to_move();
    let mut search = Search::new(cfg, g.clone(), evaluator.needs_encoding());
    let mut turn = SearchedTurn { decisions: Vec::new(), first_wdl: [0.0, 1.0, 0.0], cut: false };
    while g.to_move() == mover && g.outcome().is_none() {
        if turn.decisions.len() >= MAX_TURN_DECISIONS {
            turn.cut = true;
            break;
        }
        let res = search_decision(&mut search, evaluator, simulations)?;
        if res.legal.is_empty() {
            break;
        }
        if turn.decisions.is_empty() {
            turn.first_wdl = res.root_wdl;
        }
        g.apply(res.action);
        turn.decisions.push(res.action);
        search.advance(res.action, g);
    }
    Ok(turn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Algorithm, SearchConfig, UniformEvaluator};
    use pacozero_engine::paco::{GameState, Position};
    use pacozero_engine::prelude::*;

    fn turn(name: &str, state: &GameState, visits: u32, wdl: [f32; 3], prior: f32) -> TurnStats<GameState> {
        TurnStats { path: vec![visits as u16], actions: vec![name.into()], name: name.into(), state: state.clone(), visits, wdl, prior, proof: None }
    }

    fn close(a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
    }

    #[test]
    fn transpositions_add_up_under_the_most_visited_name() {
        let s1 = GameState::new(Position::startpos());
        let mut s2 = s1.clone();
        let mut legal = Vec::new();
        s2.playable_actions(&mut legal);
        s2.apply(legal[0]);
        let merged = merge_transpositions(vec![
            turn("a", &s1, 3, [1.0, 0.0, 0.0], 0.1),
            turn("b", &s2, 5, [0.0, 1.0, 0.0], 0.25),
            turn("c", &s1, 6, [0.0, 0.0, 1.0], 0.2),
            turn("d", &s2, 2, [1.0, 0.0, 0.0], 0.5),
            turn("e", &s2, 7, [0.0, 1.0, 0.0], 0.0),
        ]);
        assert_eq!(merged.len(), 2);
        // s2: b (5), then d (2, fewer: b's name stays), then e (7 > 7? no: a
        // tie with b+d's 7 keeps b's name).
        let m = &merged[0];
        assert_eq!((m.name.as_str(), m.path.as_slice(), m.visits), ("b", &[5u16][..], 14));
        assert!((m.prior - 0.75).abs() < 1e-6, "{}", m.prior);
        assert!(close(m.wdl, [2.0 / 14.0, 12.0 / 14.0, 0.0]), "{:?}", m.wdl);
        // s1: a (3), then c (6, more: c's name and path).
        let m = &merged[1];
        assert_eq!((m.name.as_str(), m.path.as_slice(), m.visits), ("c", &[6u16][..], 9));
        assert!((m.prior - 0.3).abs() < 1e-6, "{}", m.prior);
        assert!(close(m.wdl, [1.0 / 3.0, 0.0, 2.0 / 3.0]), "{:?}", m.wdl);
    }

    fn searched(sims: u32) -> (Search<GameState>, GameState) {
        let root = GameState::new(Position::startpos());
        let cfg = SearchConfig { algorithm: Algorithm::Puct, dirichlet_epsilon: 0.0, ..SearchConfig::default() };
        let mut s = Search::new(cfg, root.clone(), false);
        search_decision(&mut s, &UniformEvaluator, sims).unwrap();
        (s, root)
    }

    /// The principal variation by its definition: from the root, the most
    /// visited child (the first of equals) while there is a visited one.
    fn most_visited_path(s: &Search<GameState>) -> Vec<u16> {
        let mut path = Vec::new();
        while let Some(children) = s.children_at(&path) {
            let mut best: Option<&crate::mcts::ChildStats> = None;
            for c in children.iter().filter(|c| c.visits > 0) {
                if best.is_none() || c.visits > best.unwrap().visits {
                    best = Some(c);
                }
            }
            let Some(b) = best else { break };
            path.push(b.action);
        }
        path
    }

    #[test]
    fn a_principal_variation_follows_the_most_visited_children_in_whole_turns() {
        let (s, root) = searched(3000);
        let path = most_visited_path(&s);
        assert!(path.len() >= 3, "{path:?}");
        // Cut the path into turns.
        let (mut g, mut turns, mut pending, mut start) = (root.clone(), Vec::new(), Vec::new(), root.clone());
        for &d in &path {
            let mover = g.to_move();
            g.apply(d);
            pending.push(d);
            if g.to_move() != mover {
                turns.push(start.turn_notation(&pending));
                pending.clear();
                start = g.clone();
            }
        }
        let mut expected = turns.clone();
        if !pending.is_empty() {
            expected.push(format!("[{}]", decision_names(&start, &pending).join(" ")));
        }
        assert_eq!(principal_variation(&s, &[], &root, 100), expected);
        for max in 0..expected.len() {
            assert_eq!(principal_variation(&s, &[], &root, max), expected[..max], "at most {max} turns");
        }
        assert!(expected.len() >= 2, "{expected:?}");
    }

    #[test]
    fn a_winning_turn_is_found_only_where_the_mover_can_win() {
        let start = GameState::new(Position::startpos());
        assert_eq!(winning_turn(&start), None);
        let win: GameState = GameState::new("rn3b1r/3kppp1/ppp2n2/2Np1E2/2P1F1P1/1P2B2p/P1Q1P2P/R2K1BNR w 8 - - -".parse().unwrap());
        let turn = winning_turn(&win).expect("Nc5xd7 wins");
        let mut g = win.clone();
        for &d in &turn {
            g.apply(d);
        }
        assert_eq!(g.outcome(), Some(pacozero_engine::Outcome::Win(pacozero_engine::Color::White)));
        assert_eq!(winning_turn(&g), None, "a finished game");
        assert_eq!(decision_names(&win, &turn).len(), turn.len());
    }
}
