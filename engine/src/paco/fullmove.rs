//! Full moves: the distinct settled results of all complete chains from a
//! position, dead-end detection, and the dead-end-free action list used by search.
//!
//! Chains can loop (a piece may re-enter a union it left), so every search
//! here keeps a set of visited chain states (8-byte Zobrist keys, never whole
//! positions) and walks depth-first: memory grows with the number of distinct
//! chain states, which can be bounded with [`FullMoveLimits::max_states`].

use super::zobrist;
use super::{Action, ActionIter, ActionSet, Hand, Position, Required};
use crate::types::{BitBoard, Color, PieceKind, Square};
use crate::util::{U64MaskMap, U64Set};
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

/// What tells two states of a turn apart: the hash, and for a result the
/// way the game ended where the board cannot tell (under the vchess king
/// rule the same board is a king-chain draw or a win, depending on which
/// piece started the chain).
#[inline(always)]
fn result_key(p: &Position) -> u64 {
    if p.status() == super::Status::KingChainDraw {
        p.hash() ^ zobrist::KING_CHAIN_DRAW
    } else {
        p.hash()
    }
}

/// Reusable scratch space for full-move enumeration (keeps its allocation between calls).
#[derive(Default)]
pub struct FullMoveGen {
    visited: U64Set,
    path: Vec<Action>,
    /// Depth-first stacks, kept between calls so searches do not allocate.
    frames: Vec<(Position, ActionIter)>,
    pending: Vec<Position>,
    /// Chain states visited by the last enumeration.
    pub states_visited: usize,
    /// Scratch space for perft's children of one node, each with the key of
    /// the position after a promotion that opened its turn.
    pub(crate) children: Vec<(Position, Option<u64>)>,
    /// Counting (see [`FullMoveGen::count`]): the chain's lifted square and
    /// the mover's squares after that lift.
    chain_start: Option<(Square, u64)>,
    /// Counting: for each group of results (a result hash without its last
    /// placed piece, salted by that piece's kind), the squares already counted.
    groups: U64MaskMap,
    /// Counting: results not counted through a group that may equal one, as
    /// (group key, square).
    maybe_in_group: Vec<(u64, u64)>,
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
        self.dfs(pos, pos.side_to_move(), &mut f, &mut count, false)?;
        Ok(count)
    }

    /// Iterative depth-first walk (chains can be thousands of steps deep, too
    /// deep for the call stack); `path` holds the actions leading to the top frame.
    fn dfs<F: FnMut(&Position, &[Action])>(
        &mut self,
        root: &Position,
        mover: Color,
        f: &mut F,
        count: &mut usize,
        count_only: bool,
    ) -> Result<(), LimitExceeded> {
        let mut stack = std::mem::take(&mut self.frames);
        stack.clear();
        let actions = self.remaining_actions(root, count, count_only);
        stack.push((*root, actions));
        let result = self.walk(&mut stack, mover, f, count, count_only);
        self.frames = stack;
        result
    }

    /// With `count_only`, results that a simple place produces are counted in
    /// groups (`f` is not called for them; see `remaining_actions`).
    fn walk<F: FnMut(&Position, &[Action])>(
        &mut self,
        stack: &mut Vec<(Position, ActionIter)>,
        mover: Color,
        f: &mut F,
        count: &mut usize,
        count_only: bool,
    ) -> Result<(), LimitExceeded> {
        while let Some((pos, iter)) = stack.last_mut() {
            let Some(a) = iter.next() else {
                stack.pop();
                self.path.pop();
                continue;
            };
            let mut n = *pos;
            n.play_unchecked(a);
            if !self.visited.insert(result_key(&n)) {
                continue;
            }
            self.states_visited += 1;
            if self.states_visited > self.limits.max_states {
                return Err(LimitExceeded { max_states: self.limits.max_states });
            }
            self.path.push(a);
            if n.side_to_move() != mover || n.status().is_over() {
                *count += 1;
                if let (true, Some((_, lifted))) = (count_only, self.chain_start) {
                    self.note_maybe_in_group(&n, mover, lifted);
                }
                f(&n, &self.path);
                self.path.pop();
            } else {
                let actions = self.remaining_actions(&n, count, count_only);
                stack.push((n, actions));
            }
        }
        Ok(())
    }

    /// The actions of `pos` the walk must play. When counting a chain, the
    /// places that simply end the turn are counted here instead, as a group:
    /// their results are one hash without the placed piece (`base`) plus that
    /// piece on each square, so a group needs one table entry with the
    /// squares already counted, not one entry per result (most results of a
    /// chain are these).
    ///
    /// Results of different groups differ: within one chain lift from square
    /// `s`, the mover's squares at the end are the start's minus `s` plus the
    /// placed square `t`, so equal results have equal `t`, then equal kinds
    /// and bases. Places back onto `s` itself break this (the squares are
    /// the start's again, whatever the lift), so they are played as usual.
    #[inline]
    fn remaining_actions(&mut self, pos: &Position, count: &mut usize, count_only: bool) -> ActionIter {
        let actions = pos.actions();
        let (true, Some((start, _)), ActionSet::Places(targets)) = (count_only, self.chain_start, actions) else { return actions.iter() };
        let (simple, base, kind) = pos.simple_places(targets.0 & !start.bb());
        if simple != 0 {
            let counted = self.groups.mask_mut(base ^ zobrist::GROUP_SALT[kind.index()]);
            let new = simple & !*counted;
            *counted |= simple;
            *count += new.count_ones() as usize;
            self.states_visited += new.count_ones() as usize;
        }
        ActionSet::Places(BitBoard(targets.0 & !simple)).iter()
    }

    /// A result the walk played (a promotion, en passant, a place back onto
    /// the lifted square...) may still equal a grouped one; it is checked
    /// once all groups are known. Only a result whose mover has exactly one
    /// square not held after the lift (`lifted`) can.
    fn note_maybe_in_group(&mut self, n: &Position, mover: Color, lifted: u64) {
        let added = n.occ[mover.index()] & !lifted;
        if added.count_ones() != 1 {
            return;
        }
        let t = BitBoard(added).first().expect("one square");
        if let Some(kind) = n.kind_at(mover, t) {
            let base = result_key(n) ^ zobrist::piece(mover.index(), kind.index(), t.index());
            self.maybe_in_group.push((base ^ zobrist::GROUP_SALT[kind.index()], added));
        }
    }

    /// Number of distinct full moves, with bulk counting: a lift whose piece
    /// cannot start a chain yields results no other lift can produce (its
    /// square is emptied, and only chains can empty an own square other than
    /// the lifted one), so its moves are counted without playing them out;
    /// only chain-capable lifts are enumerated and deduplicated.
    pub fn count(&mut self, pos: &Position) -> u64 {
        if pos.status().is_over() {
            return 0;
        }
        if pos.required() != Required::Lift {
            return self.for_each(pos, |_, _| {}).expect("full-move enumeration within limits") as u64;
        }
        let mut total = 0u64;
        let mut chain_lifts = BitBoard::EMPTY;
        let me = pos.side_to_move();
        let unions = pos.occ[0] & pos.occ[1];
        let ep_union = pos.ep.filter(|&e| ep_pawn_in_union(pos, e));
        for k in PieceKind::ALL {
            for sq in BitBoard(pos.bb(me.index(), k)) {
                if unions & sq.bb() == 0 {
                    let t = pos.single_targets(k, sq);
                    let ep_chain = k == PieceKind::Pawn && ep_union.is_some_and(|e| t & e.bb() != 0);
                    if t & unions != 0 || ep_chain {
                        chain_lifts.insert(sq);
                        continue;
                    }
                }
                total += direct_count(pos, k, sq, unions & sq.bb() != 0);
            }
        }
        if !chain_lifts.is_empty() {
            self.visited.clear();
            self.groups.clear();
            self.maybe_in_group.clear();
            self.path.clear();
            self.states_visited = 0;
            let mut n = 0usize;
            for sq in chain_lifts {
                let mut lifted = *pos;
                lifted.play_unchecked(Action::Lift(sq));
                self.visited.insert(lifted.hash());
                self.chain_start = Some((sq, lifted.occ[me.index()]));
                self.dfs(&lifted, me, &mut |_, _| {}, &mut n, true).expect("full-move enumeration within limits");
            }
            self.chain_start = None;
            let duplicates = self.maybe_in_group.iter().filter(|&&(key, t)| self.groups.mask_of(key) & t != 0).count();
            total += (n - duplicates) as u64;
        }
        total
    }

    /// Can the turn in progress still be completed (reach a settled position)?
    pub fn completes(&mut self, pos: &Position) -> bool {
        self.visited.clear();
        completes_rec(pos, &mut self.visited, &mut self.pending)
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

fn completes_rec(root: &Position, visited: &mut U64Set, stack: &mut Vec<Position>) -> bool {
    // Depth-first over the chain states still in the turn, stopping at the first
    // that settles (an explicit stack: chains can be very deep).
    stack.clear();
    stack.push(*root);
    while let Some(pos) = stack.pop() {
        match pos.required() {
            Required::Lift | Required::PromoteThenLift | Required::PromoteThenFinish => return true,
            Required::PromoteThenPlace => {
                for k in PieceKind::PROMOTIONS {
                    let mut n = pos;
                    n.play_unchecked(Action::Promote(k));
                    if visited.insert(n.hash()) {
                        stack.push(n);
                    }
                }
            }
            Required::Place => {
                let targets = pos.place_targets();
                let mut chains = 0u64;
                for t in BitBoard(targets) {
                    if may_chain(&pos, t) {
                        chains |= t.bb();
                    } else {
                        return true;
                    }
                }
                for t in BitBoard(chains) {
                    let mut n = pos;
                    n.play_unchecked(Action::Place(t));
                    if visited.insert(n.hash()) {
                        stack.push(n);
                    }
                }
            }
        }
    }
    false
}

/// Full moves of one lift that cannot start a chain (each (lift, place) is a
/// distinct result; a pawn reaching the last rank has four promotions unless
/// it unites with the king, which ends the game at once).
fn direct_count(pos: &Position, k: PieceKind, sq: Square, in_union: bool) -> u64 {
    let me = pos.side_to_move();
    let last_rank: u64 = if me == Color::White { 0xFF00_0000_0000_0000 } else { 0xFF };
    if in_union {
        let t = pos.pair_targets(k, sq);
        let promos = if k == PieceKind::Pawn { (t & last_rank).count_ones() as u64 } else { 0 };
        return t.count_ones() as u64 + 3 * promos;
    }
    match k {
        PieceKind::King => {
            if pos.castling().is_empty() {
                pos.single_targets(k, sq).count_ones() as u64
            } else {
                let mut n = *pos;
                n.play_unchecked(Action::Lift(sq));
                n.place_targets().count_ones() as u64
            }
        }
        PieceKind::Pawn => {
            let t = pos.single_targets(k, sq);
            let their_king = pos.king_bb(me.other().index());
            t.count_ones() as u64 + 3 * (t & last_rank & !their_king).count_ones() as u64
        }
        _ => pos.single_targets(k, sq).count_ones() as u64,
    }
}
