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

use pacozero_engine::{Color, GameRules, Outcome};

use super::keys::{KeyMap, KeySet};

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
    match TwoTurnSearch::default().answer(root, budget) {
        TwoTurnAnswer::Win(w) => Some(w),
        TwoTurnAnswer::NoWin | TwoTurnAnswer::Unknown => None,
    }
}

/// What the two-turn search says of a root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum TwoTurnAnswer {
    Win(TwoTurnWin),
    /// Searched through: no way to end this turn wins in the next (nor does
    /// any from a position later in the same turn, whose turn ends are
    /// among these). Also the answer where the game is over.
    NoWin,
    /// The budget ran out first.
    Unknown,
}

/// One step of a path through the mover's turn: the step before it
/// (`NO_STEP` at the root) and its decision. Paths are kept as these links,
/// so a level of thousands of positions copies no path.
#[derive(Clone, Copy)]
struct Step {
    before: u32,
    action: u16,
}

const NO_STEP: u32 = u32::MAX;

/// A position of the mover's turn awaiting expansion: its path's first
/// decision and last step.
struct Open<G> {
    first: u16,
    step: u32,
    state: G,
}

/// The two-turn search with its buffers, kept by a [`Search`](super::Search)
/// between decisions so that a decision allocates nothing once they have
/// grown.
pub(super) struct TwoTurnSearch<G> {
    mover: Color,
    budget: usize,
    /// Whether the opponent can escape from a turn end of the mover, by its hash.
    refuted: KeyMap<u64, bool>,
    /// Positions of the mover's turn met, by their path's first decision.
    seen_mover: KeySet<(u16, u64)>,
    /// Positions of one opponent turn shown not to escape (or on the path).
    seen_opponent: KeySet<u64>,
    steps: Vec<Step>,
    level: Vec<Open<G>>,
    next_level: Vec<Open<G>>,
    /// The last steps of the winning paths of the current level.
    wins: Vec<u32>,
    /// Action lists, one per depth of the recursion through the opponent's turn.
    actions: Vec<Vec<u16>>,
}

impl<G> Default for TwoTurnSearch<G> {
    fn default() -> Self {
        TwoTurnSearch {
            mover: Color::White,
            budget: 0,
            refuted: KeyMap::default(),
            seen_mover: KeySet::default(),
            seen_opponent: KeySet::default(),
            steps: Vec::new(),
            level: Vec::new(),
            next_level: Vec::new(),
            wins: Vec::new(),
            actions: Vec::new(),
        }
    }
}

impl<G: GameRules> TwoTurnSearch<G> {
    /// The answer for `root` within `budget` visited positions.
    pub(super) fn answer(&mut self, root: &G, budget: usize) -> TwoTurnAnswer {
        if root.outcome().is_some() {
            return TwoTurnAnswer::NoWin;
        }
        self.mover = root.to_move();
        self.budget = budget;
        self.refuted.clear();
        self.seen_mover.clear();
        self.steps.clear();
        // Empty since the last answer, which cleared them on its way out.
        debug_assert!(self.level.is_empty() && self.next_level.is_empty());
        let answer = self.mover_turn(root);
        // Positions are dropped here, not kept alive until the next decision.
        self.level.clear();
        self.next_level.clear();
        answer
    }

    /// Counts one visited position; `false` once the budget is spent.
    fn spend(&mut self) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        true
    }

    /// The decisions of the path that ends with step `last`.
    fn path(&self, mut last: u32) -> Vec<u16> {
        let mut path = Vec::new();
        while last != NO_STEP {
            let s = self.steps[last as usize];
            path.push(s.action);
            last = s.before;
        }
        path.reverse();
        path
    }

    /// A new step after `before`; its index.
    fn push_step(&mut self, before: u32, action: u16) -> u32 {
        self.steps.push(Step { before, action });
        (self.steps.len() - 1) as u32
    }

    /// Breadth first through the mover's turn from `root`. A level is the
    /// set of positions one decision deeper, each with the path that
    /// reached it; the first level with a winning turn end answers.
    fn mover_turn(&mut self, root: &G) -> TwoTurnAnswer {
        let mut actions = self.actions.pop().unwrap_or_default();
        self.level.push(Open { first: 0, step: NO_STEP, state: root.clone() });
        while !self.level.is_empty() {
            self.wins.clear();
            let level = std::mem::take(&mut self.level);
            for open in &level {
                open.state.playable_actions(&mut actions);
                for &a in &actions {
                    if !self.spend() {
                        self.actions.push(actions);
                        return TwoTurnAnswer::Unknown;
                    }
                    let mut next = open.state.clone();
                    next.apply(a);
                    let first = if open.step == NO_STEP { a } else { open.first };
                    match next.outcome() {
                        // A win in this turn is win detection's to answer.
                        Some(_) => {}
                        None if next.to_move() == self.mover => {
                            if self.seen_mover.insert((first, next.hash())) {
                                let step = self.push_step(open.step, a);
                                self.next_level.push(Open { first, step, state: next });
                            }
                        }
                        None => match self.opponent_escapes_from(&next) {
                            None => {
                                self.actions.push(actions);
                                return TwoTurnAnswer::Unknown;
                            }
                            Some(false) => {
                                let step = self.push_step(open.step, a);
                                self.wins.push(step);
                            }
                            Some(true) => {}
                        },
                    }
                }
            }
            if !self.wins.is_empty() {
                self.actions.push(actions);
                let mut wins: Vec<Vec<u16>> = self.wins.iter().map(|&w| self.path(w)).collect();
                wins.sort();
                let mut first_actions: Vec<u16> = wins.iter().map(|p| p[0]).collect();
                first_actions.dedup();
                return TwoTurnAnswer::Win(TwoTurnWin { first_actions, turn: wins.swap_remove(0) });
            }
            // The drained level's allocation becomes the one after next.
            self.level = std::mem::replace(&mut self.next_level, level);
            self.next_level.clear();
        }
        self.actions.push(actions);
        TwoTurnAnswer::NoWin
    }

    /// Whether the opponent, to move at the start of its turn in `g`, has a
    /// way through its turn after which the mover is not sure to win
    /// (cached by position); `None`: the budget ran out.
    fn opponent_escapes_from(&mut self, g: &G) -> Option<bool> {
        let h = g.hash();
        if let Some(&known) = self.refuted.get(&h) {
            return Some(known);
        }
        self.seen_opponent.clear();
        let escapes = self.opponent_escapes(g)?;
        self.refuted.insert(h, escapes);
        Some(escapes)
    }

    /// Depth first through the opponent's turn from `g` (the opponent to
    /// move), stopping at the first path that escapes. `seen_opponent`:
    /// positions of this turn already shown not to escape (or on the
    /// current path).
    fn opponent_escapes(&mut self, g: &G) -> Option<bool> {
        let mut actions = self.actions.pop().unwrap_or_default();
        g.playable_actions(&mut actions);
        let answer = self.first_escape(g, &actions);
        self.actions.push(actions);
        answer
    }

    /// [`Self::opponent_escapes`] over the listed `actions` of `g`.
    fn first_escape(&mut self, g: &G, actions: &[u16]) -> Option<bool> {
        // Stuck: the game's callers adjudicate, nothing is proven.
        if actions.is_empty() {
            return Some(true);
        }
        for &a in actions {
            if !self.spend() {
                return None;
            }
            let mut next = g.clone();
            next.apply(a);
            let escaped = match next.outcome() {
                Some(o) => o != Outcome::Win(self.mover),
                None if next.to_move() != self.mover => self.seen_opponent.insert(next.hash()) && self.opponent_escapes(&next)?,
                None => !next.can_win_this_turn(),
            };
            if escaped {
                return Some(true);
            }
        }
        Some(false)
    }
}
