//! A win in two turns, found at the root by a full-width search
//! ([`SearchConfig::root_win_in_two`](crate::SearchConfig::root_win_in_two)).
//!
//! The tree proves a win in two turns only once it has visited every reply
//! of the opponent: at 64 visits it rarely has. A position where the mover
//! has such a win is a short, exact question, so the root asks it before
//! the tree search, as chess engines run a mate search beside MCTS:
//!
//! | step | whose turn | the win needs |
//! |---|---|---|
//! | 1 | the mover's | some way to finish this turn (every decision path to its end) |
//! | 2 | the opponent's | that *every* way they finish their turn (every path) |
//! | 3 | the mover's | leaves a detected win ([`GameRules::can_win_this_turn`]) or a game already won |
//!
//! A turn of the opponent that ends the game otherwise (a draw by the
//! rules, their win), or that leaves them stuck, refutes the mover's turn.
//! Only what the rules and `can_win_this_turn` say is used, so a win found
//! here is proven, at a distance of three turn ends.
//!
//! The mover's paths are searched breadth first, so every first decision
//! listed starts a *shortest* path to such a turn end: each decision of the
//! turn is one nearer its end (a chain that goes round in a loop is never
//! listed; see [`winning_actions`](super::winning_actions)). The search
//! visits at most [`TWO_TURN_BUDGET`] positions and answers "not known"
//! past it.

use std::collections::{HashMap, HashSet};

use pacozero_engine::{Color, GameRules, Outcome};

/// Positions the two-turn search may visit before it gives up (its answer
/// is then "not known"). A Paco Ŝako root visits a few hundred to a few
/// thousand; the budget bounds pathological chains.
pub const TWO_TURN_BUDGET: usize = 20_000;

/// A win in two turns of the mover: the first decisions that start one
/// (by a shortest path through the mover's turn) and one such turn whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TwoTurnWin {
    /// The root's decisions that start a winning turn, ascending.
    pub first_actions: Vec<u16>,
    /// One winning turn, its decisions from the root (the one whose first
    /// decision is smallest).
    pub turn: Vec<u16>,
}

/// The mover's win in two turns from `root`, if the search finds one
/// within `budget` positions. `None` also when the mover wins in this turn
/// already (win detection answers that) or the game is over.
pub fn two_turn_win<G: GameRules>(root: &G, budget: usize) -> Option<TwoTurnWin> {
    if root.outcome().is_some() {
        return None;
    }
    let mut search = TwoTurnSearch { mover: root.to_move(), budget, refuted: HashMap::new(), actions: Vec::new() };
    search.mover_turn(root)
}

struct TwoTurnSearch {
    mover: Color,
    budget: usize,
    /// Whether the opponent can escape from a turn end of the mover, by its hash.
    refuted: HashMap<u64, bool>,
    actions: Vec<u16>,
}

impl TwoTurnSearch {
    /// Counts one visited position; `false` once the budget is spent.
    fn spend(&mut self) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        true
    }

    /// Breadth first through the mover's turn from `root`. A level is the
    /// set of positions one decision deeper, each with the path that
    /// reached it; the first level with a winning turn end answers.
    fn mover_turn<G: GameRules>(&mut self, root: &G) -> Option<TwoTurnWin> {
        let mut seen: HashSet<(u16, u64)> = HashSet::new();
        let mut level: Vec<(Vec<u16>, G)> = vec![(Vec::new(), root.clone())];
        while !level.is_empty() {
            let mut wins: Vec<Vec<u16>> = Vec::new();
            let mut next_level = Vec::new();
            for (path, g) in &level {
                g.playable_actions(&mut self.actions);
                let actions = std::mem::take(&mut self.actions);
                for &a in &actions {
                    if !self.spend() {
                        return None;
                    }
                    let mut next = g.clone();
                    next.apply(a);
                    let mut p = path.clone();
                    p.push(a);
                    match next.outcome() {
                        // A win in this turn is win detection's to answer.
                        Some(_) => {}
                        None if next.to_move() == self.mover => {
                            if seen.insert((p[0], next.hash())) {
                                next_level.push((p, next));
                            }
                        }
                        None => match self.opponent_escapes_from(&next) {
                            None => return None,
                            Some(false) => wins.push(p),
                            Some(true) => {}
                        },
                    }
                }
                self.actions = actions;
            }
            if !wins.is_empty() {
                wins.sort();
                let mut first_actions: Vec<u16> = wins.iter().map(|p| p[0]).collect();
                first_actions.dedup();
                return Some(TwoTurnWin { first_actions, turn: wins.swap_remove(0) });
            }
            level = next_level;
        }
        None
    }

    /// Whether the opponent, to move at the start of its turn in `g`, has a
    /// way through its turn after which the mover is not sure to win
    /// (cached by position); `None`: the budget ran out.
    fn opponent_escapes_from<G: GameRules>(&mut self, g: &G) -> Option<bool> {
        let h = g.hash();
        if let Some(&known) = self.refuted.get(&h) {
            return Some(known);
        }
        let mut seen = HashSet::new();
        let escapes = self.opponent_escapes(g, &mut seen)?;
        self.refuted.insert(h, escapes);
        Some(escapes)
    }

    /// Depth first through the opponent's turn from `g` (the opponent to
    /// move), stopping at the first path that escapes. `seen`: positions of
    /// this turn already shown not to escape (or on the current path).
    fn opponent_escapes<G: GameRules>(&mut self, g: &G, seen: &mut HashSet<u64>) -> Option<bool> {
        let mut actions = Vec::new();
        g.playable_actions(&mut actions);
        // Stuck: the game's callers adjudicate, nothing is proven.
        if actions.is_empty() {
            return Some(true);
        }
        for a in actions {
            if !self.spend() {
                return None;
            }
            let mut next = g.clone();
            next.apply(a);
            let escaped = match next.outcome() {
                Some(o) => o != Outcome::Win(self.mover),
                None if next.to_move() != self.mover => seen.insert(next.hash()) && self.opponent_escapes(&next, seen)?,
                None => !next.can_win_this_turn(),
            };
            if escaped {
                return Some(true);
            }
        }
        Some(false)
    }
}
