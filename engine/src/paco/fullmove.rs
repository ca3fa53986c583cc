//! Full moves: the distinct settled results of all complete chains from a
//! position, dead-end detection, and the dead-end-free action list used by search.
//!
//! Chains can loop (a piece may re-enter a union it left), so every search
//! here keeps a set of visited chain states (8-byte Zobrist keys, never whole
//! positions) and walks depth-first: memory grows with the number of distinct
//! chain states, which can be bounded with [`FullMoveLimits::max_states`].

use super::position::{Action, ActionSet, Hand, Position, Required};
use crate::types::{BitBoard, Color, PieceKind, Square};
use crate::util::U64Set;
use std::fmt;

/// Bounds on one enumeration.
#[derive(Copy, Clone, Debug)]
pub struct FullMoveLimits {
    /// Maximum number of distinct chain states visited before giving up.
    pub max_states: usize,
}

impl Default for FullMoveLimits {
    fn default() -> Self {
        FullMoveLimits { max_states: 50_000_000 }
    }
}

/// The enumeration visited more chain states than allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitExceeded {
    pub max_states: usize,
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "full-move enumeration visited more than {} chain states", self.max_states)
    }
}
impl std::error::Error for LimitExceeded {}

/// Reusable scratch space for full-move enumeration (keeps its allocation between calls).
#[derive(Default)]
pub struct FullMoveGen {
    visited: U64Set,
    path: Vec<Action>,
    /// Chain states visited by the last enumeration.
    pub states_visited: usize,
    limits: FullMoveLimits,
}

impl FullMoveGen {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_limits(limits: FullMoveLimits) -> Self {
        FullMoveGen { limits, ..Self::default() }
    }

    /// Calls `f(result, trace)` once for every distinct settled result of a
    /// complete turn from `pos` (the turn passed to the opponent, or the game
    /// ended). Chains that end in a dead end produce nothing. Returns the
    /// number of results.
    pub fn for_each<F: FnMut(&Position, &[Action])>(&mut self, pos: &Position, mut f: F) -> Result<usize, LimitExceeded> {
        self.visited.clear();
        self.path.clear();
        self.states_visited = 0;
        let mut count = 0;
        if pos.status().is_over() {
            return Ok(0);
        }
        self.dfs(pos, pos.side_to_move(), &mut f, &mut count)?;
        Ok(count)
    }

    fn dfs<F: FnMut(&Position, &[Action])>(&mut self, pos: &Position, mover: Color, f: &mut F, count: &mut usize) -> Result<(), LimitExceeded> {
        for a in pos.actions() {
            let mut n = *pos;
            n.play_unchecked(a);
            if !self.visited.insert(n.hash()) {
                continue;
            }
            self.states_visited += 1;
            if self.states_visited > self.limits.max_states {
                return Err(LimitExceeded { max_states: self.limits.max_states });
            }
            self.path.push(a);
            if n.side_to_move() != mover || n.status().is_over() {
                *count += 1;
                f(&n, &self.path);
            } else {
                self.dfs(&n, mover, f, count)?;
            }
            self.path.pop();
        }
        Ok(())
    }

    /// Number of distinct full moves (bulk counting: positions where no chain
    /// can start are counted without playing the moves out).
    pub fn count(&mut self, pos: &Position) -> u64 {
        if pos.status().is_over() {
            return 0;
        }
        if pos.required() == Required::Lift {
            if let Some(n) = count_without_chains(pos) {
                return n;
            }
        }
        self.for_each(pos, |_, _| {}).expect("full-move enumeration within limits") as u64
    }

    /// Can the turn in progress still be completed (reach a settled position)?
    pub fn completes(&mut self, pos: &Position) -> bool {
        self.visited.clear();
        completes_rec(pos, &mut self.visited)
    }

    /// The legal actions without those that can only lead into dead-end
    /// chains: what search chooses from.
    pub fn completable_actions(&mut self, pos: &Position) -> ActionSet {
        let set = pos.actions();
        match set {
            ActionSet::None => set,
            ActionSet::Lifts(b) => {
                let mut keep = BitBoard::EMPTY;
                for sq in b {
                    let mut n = *pos;
                    n.play_unchecked(Action::Lift(sq));
                    if self.completes(&n) {
                        keep.insert(sq);
                    }
                }
                ActionSet::Lifts(keep)
            }
            ActionSet::Places(b) => {
                let mut keep = BitBoard::EMPTY;
                for sq in b {
                    if !may_chain(pos, sq) {
                        keep.insert(sq);
                        continue;
                    }
                    let mut n = *pos;
                    n.play_unchecked(Action::Place(sq));
                    if self.completes(&n) {
                        keep.insert(sq);
                    }
                }
                ActionSet::Places(keep)
            }
            ActionSet::Promotions => {
                if pos.required() != Required::PromoteThenPlace {
                    return set;
                }
                // Promotions differ only in the promoted piece, which a later step of
                // the chain may release again, so each is checked.
                let any = PieceKind::PROMOTIONS.iter().any(|&k| {
                    let mut n = *pos;
                    n.play_unchecked(Action::Promote(k));
                    self.completes(&n)
                });
                if any {
                    set
                } else {
                    ActionSet::None
                }
            }
        }
    }
}

/// Could placing the piece in hand on `t` continue the chain? (The square holds
/// a union, or it is the en-passant square and the double-stepped pawn stands
/// in a union.)
#[inline]
fn may_chain(pos: &Position, t: Square) -> bool {
    let Hand::Single { kind, .. } = pos.hand else {
        return false;
    };
    let unions = pos.occ[0] & pos.occ[1];
    if unions & t.bb() != 0 {
        return true;
    }
    kind == PieceKind::Pawn && pos.ep == Some(t) && ep_pawn_in_union(pos, t)
}

fn ep_pawn_in_union(pos: &Position, ep: Square) -> bool {
    let back = ep.offset(0, super::position::forward(pos.side.other()));
    back.is_some_and(|b| pos.occ[0] & pos.occ[1] & b.bb() != 0)
}

fn completes_rec(pos: &Position, visited: &mut U64Set) -> bool {
    match pos.required() {
        Required::Lift | Required::PromoteThenLift | Required::PromoteThenFinish => true,
        Required::PromoteThenPlace => PieceKind::PROMOTIONS.iter().any(|&k| {
            let mut n = *pos;
            n.play_unchecked(Action::Promote(k));
            visited.insert(n.hash()) && completes_rec(&n, visited)
        }),
        Required::Place => {
            let targets = pos.place_targets();
            let mut chains = 0u64;
            for t in BitBoard(targets) {
                if may_chain(pos, t) {
                    chains |= t.bb();
                } else {
                    return true;
                }
            }
            for t in BitBoard(chains) {
                let mut n = *pos;
                n.play_unchecked(Action::Place(t));
                if n.required() != Required::Place && n.required() != Required::PromoteThenPlace {
                    return true;
                }
                if visited.insert(n.hash()) && completes_rec(&n, visited) {
                    return true;
                }
            }
            false
        }
    }
}

/// Counts the full moves of a settled position directly when no chain can
/// start from it; `None` when one might (then the caller enumerates).
fn count_without_chains(pos: &Position) -> Option<u64> {
    let me = pos.side_to_move();
    let them = me.other();
    let unions = pos.occ[0] & pos.occ[1];
    if let Some(ep) = pos.ep {
        if ep_pawn_in_union(pos, ep) {
            return None;
        }
    }
    let own = pos.occ[me.index()];
    let lone_own = own & !unions;
    // Any lone piece that can be placed into a union starts a chain.
    if unions != 0 {
        for k in PieceKind::ALL {
            for sq in BitBoard(pos.pieces[me.index()][k.index()] & lone_own) {
                if pos.single_targets(k, sq) & unions != 0 {
                    return None;
                }
            }
        }
    }
    let last_rank: u64 = if me == Color::White { 0xFF00_0000_0000_0000 } else { 0xFF };
    let their_king = pos.pieces[them.index()][PieceKind::King.index()];
    let mut total = 0u64;
    for k in PieceKind::ALL {
        for sq in BitBoard(pos.pieces[me.index()][k.index()]) {
            let in_union = unions & sq.bb() != 0;
            if in_union {
                let t = pos.pair_targets(k, sq);
                let n = t.count_ones() as u64;
                // A pawn-led union reaching the last rank: 4 promotion choices.
                if k == PieceKind::Pawn {
                    total += n + 3 * (t & last_rank).count_ones() as u64;
                } else {
                    total += n;
                }
                continue;
            }
            match k {
                PieceKind::King => {
                    if pos.castling().is_empty() {
                        total += pos.single_targets(k, sq).count_ones() as u64;
                    } else {
                        let mut n = *pos;
                        n.play_unchecked(Action::Lift(sq));
                        total += n.place_targets().count_ones() as u64;
                    }
                }
                PieceKind::Pawn => {
                    let t = pos.single_targets(k, sq);
                    let promo = t & last_rank & !their_king;
                    total += t.count_ones() as u64 + 3 * promo.count_ones() as u64;
                }
                _ => total += pos.single_targets(k, sq).count_ones() as u64,
            }
        }
    }
    Some(total)
}
