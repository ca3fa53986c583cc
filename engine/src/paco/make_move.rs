//! Applying actions: the make-move state machine (lift, place, chains,
//! promotions, castling, en passant, the end of a turn).

use super::position::{forward, square_key};
use super::zobrist;
use super::{Action, Hand, Position, Required, Status};
use crate::types::{Color, PieceKind, Square};
use std::fmt;

/// Result of applying an action, for callers that track history.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Transition {
    /// The same player acts again (chain, promotion, lifted piece).
    Continues,
    /// The turn ended (or a gifted promotion completed): the reference records
    /// the position here for repetition detection.
    Recorded,
    /// The turn passed to the opponent, who must first promote (nothing recorded yet).
    PassedToPromotion,
}

/// An action that is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalAction {
    pub action: Action,
    pub required: Required,
}

impl fmt::Display for IllegalAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "action {} is not legal here (required: {})", super::action_to_string(self.action), self.required.name())
    }
}
impl std::error::Error for IllegalAction {}

#[inline(always)]
pub(super) fn promotion_rank(color: Color) -> u8 {
    match color {
        Color::White => 7,
        Color::Black => 0,
    }
}

impl Position {
    /// Plays a legal action; returns an error (and leaves the position
    /// unchanged) if the action is not legal.
    pub fn play(&mut self, a: Action) -> Result<Transition, IllegalAction> {
        if !self.actions().contains(a) {
            return Err(IllegalAction { action: a, required: self.required });
        }
        Ok(self.play_unchecked(a))
    }

    /// Plays an action known to be legal (from [`Position::actions`]).
    /// Illegal input gives an unspecified (but memory-safe) position.
    pub fn play_unchecked(&mut self, a: Action) -> Transition {
        match a {
            Action::Lift(sq) => {
                self.lift(sq);
                Transition::Continues
            }
            Action::Place(sq) => self.place(sq),
            Action::Promote(k) => self.promote(k),
        }
    }

    pub(crate) fn lift(&mut self, sq: Square) {
        let me = self.side;
        let them = me.other();
        self.set_required(Required::Place);
        // The platform counts the half-move at the lift, so that a promotion
        // later in the same turn can reset it.
        self.no_progress = self.no_progress.saturating_add(1);
        let Some(kind) = self.kind_at(me, sq) else {
            return;
        };
        let partner = self.kind_at(them, sq);
        let mut mask = self.castling.mask;
        if mask != 0 && (kind == PieceKind::Rook || partner == Some(PieceKind::Rook)) {
            // Lifting a rook from its castling square forfeits that right; lifting a
            // union with the opponent's rook on its castling square takes theirs.
            for side in 0..2 {
                if kind == PieceKind::Rook && self.castling.rook_square(me, side) == sq {
                    mask &= !(1 << (me.index() * 2 + side));
                }
                if partner == Some(PieceKind::Rook) && self.castling.rook_square(them, side) == sq {
                    mask &= !(1 << (them.index() * 2 + side));
                }
            }
            self.set_castling_mask(mask);
        }
        self.take(me, kind, sq);
        match partner {
            Some(p) => {
                self.take(them, p, sq);
                self.set_hand(Hand::Pair { kind, partner: p, from: sq });
            }
            None => self.set_hand(Hand::Single { kind, from: sq }),
        }
    }

    fn place(&mut self, t: Square) -> Transition {
        let me = self.side;
        let them = me.other();
        match self.hand {
            Hand::Empty => Transition::Continues,
            Hand::Single { kind, from } => {
                if kind == PieceKind::Pawn && self.ep == Some(t) && Some(t) != from.offset(0, forward(me)) {
                    // En passant: the double-stepped pawn (or pawn-led union) steps back
                    // onto the skipped square first; this also works inside chains.
                    let back = t.offset(0, forward(them)).expect("en passant square is inside the board");
                    self.swap_squares(t, back);
                    self.set_ep(None);
                }
                if kind == PieceKind::Pawn && t.rank() == promotion_rank(me) {
                    self.set_promotion(Some(t));
                }
                if kind == PieceKind::King {
                    // Castling first: its target may hold a union (see castle_side).
                    let castles = self.castle_side(from, t);
                    if castles.is_some() || self.occ[0] & self.occ[1] & t.bb() == 0 {
                        self.set_ep(None);
                        return self.place_king(t, castles);
                    }
                    // vchess kings: taking over a union starts a king chain.
                    self.set_king_chain(true);
                    self.set_castling_mask(self.castling.mask & !(0b11 << (me.index() * 2)));
                }
                let released = self.kind_at(me, t);
                if let Some(r) = released {
                    self.take(me, r, t);
                    if r == PieceKind::Rook && self.castling.mask != 0 {
                        // A rook released from its castling square has moved: the right goes, as when it is lifted.
                        let mut mask = self.castling.mask;
                        for side in 0..2 {
                            if self.castling.rook_square(me, side) == t {
                                mask &= !(1 << (me.index() * 2 + side));
                            }
                        }
                        self.set_castling_mask(mask);
                    }
                }
                self.put(me, kind, t);
                if let Some(r) = released {
                    // A chain: the released piece must be placed next.
                    self.set_hand(Hand::Single { kind: r, from: t });
                    let next = if self.promotion.is_some() { Required::PromoteThenPlace } else { Required::Place };
                    self.set_required(next);
                    return Transition::Continues;
                }
                let partner = self.kind_at(them, t);
                if partner.is_some() {
                    self.no_progress = 0;
                }
                let ep = self.double_step(kind, from, t);
                self.set_ep(ep);
                self.set_hand(Hand::Empty);
                self.set_last_pair_move(None);
                if partner == Some(PieceKind::King) {
                    self.status = if self.king_chain { Status::KingChainDraw } else { Status::PacoVictory(me) };
                }
                self.set_king_chain(false);
                if self.promotion.is_some() {
                    self.set_required(Required::PromoteThenFinish);
                    Transition::Continues
                } else {
                    self.end_turn();
                    Transition::Recorded
                }
            }
            Hand::Pair { kind, partner, from } => {
                let ep = self.double_step(kind, from, t);
                self.set_ep(ep);
                self.put(me, kind, t);
                self.put(them, partner, t);
                self.set_hand(Hand::Empty);
                self.set_last_pair_move(if self.rules.no_union_undo { Some((from, t)) } else { None });
                if kind == PieceKind::Pawn && t.rank() == promotion_rank(me) {
                    self.set_promotion(Some(t));
                    self.set_required(Required::PromoteThenFinish);
                    Transition::Continues
                } else if partner == PieceKind::Pawn && t.rank() == promotion_rank(them) {
                    // The opponent's pawn was carried to its last rank: its owner
                    // promotes it first thing in their turn.
                    self.set_promotion(Some(t));
                    self.set_required(Required::PromoteThenLift);
                    self.switch_side();
                    Transition::PassedToPromotion
                } else {
                    self.end_turn();
                    Transition::Recorded
                }
            }
        }
    }

    /// The places among `targets` that simply end the turn (no chain, no
    /// promotion, no en passant, no double step, no castling), with what their
    /// results hash to: placing on `t` gives `base ^ zobrist::piece(side,
    /// kind, t)`. Returns `(places, base, kind)`; no places when the piece in
    /// hand is a king or a pair. Lets full-move counting count results without
    /// building them.
    #[inline]
    pub(crate) fn simple_places(&self, targets: u64) -> (u64, u64, PieceKind) {
        let Hand::Single { kind, from } = self.hand else { return (0, 0, PieceKind::King) };
        if self.required != Required::Place || kind == PieceKind::King {
            return (0, 0, kind);
        }
        let mut places = targets & !(self.occ[0] & self.occ[1]);
        if kind == PieceKind::Pawn {
            // Only single steps and diagonals that neither promote nor take en passant.
            let next = from.rank() as i8 + forward(self.side);
            let ok = (0..8).contains(&next) && next as u8 != promotion_rank(self.side);
            places &= if ok { 0xFFu64 << (8 * next as u32) } else { 0 };
            places &= !self.ep.map_or(0, |e| e.bb());
        }
        let mut base = self.hash
            ^ zobrist::HAND_OWN[kind.index() * 64 + from.index()]
            ^ zobrist::REQUIRED[Required::Place as usize]
            ^ zobrist::BLACK_TO_MOVE
            ^ square_key(&zobrist::EP, self.ep);
        if let Some((a, b)) = self.last_pair_move {
            base ^= zobrist::LAST_PAIR_FROM[a.index()] ^ zobrist::LAST_PAIR_TO[b.index()];
        }
        if self.king_chain {
            base ^= zobrist::KING_CHAIN;
        }
        (places, base, kind)
    }

    /// The en-passant square a place from `from` to `t` leaves (the skipped
    /// square of a double step from the pawns' own rank), recording the
    /// double step's file for `one_double_step_per_file`. The opponent's
    /// square, if any, goes in the same [`Position::set_ep`].
    fn double_step(&mut self, kind: PieceKind, from: Square, t: Square) -> Option<Square> {
        if kind != PieceKind::Pawn || from.rank().abs_diff(t.rank()) != 2 {
            return None;
        }
        let me = self.side;
        if self.rules.one_double_step_per_file {
            let bit = 1u8 << from.file();
            if self.double_steps[me.index()] & bit == 0 {
                self.hash ^= zobrist::DOUBLE_STEP[me.index() * 8 + from.file() as usize];
                self.double_steps[me.index()] |= bit;
            }
        }
        let pawn_rank = match me {
            Color::White => 1,
            Color::Black => 6,
        };
        if from.rank() == pawn_rank {
            from.offset(0, forward(me))
        } else {
            None
        }
    }

    /// The side (0 = queen side) on which the king lifted from `from` castles
    /// when placed on `t`, or `None` when that place is a king move (or,
    /// under the vchess king rule, takes over the union there). Notation
    /// writes `0-0` exactly when this says so.
    pub(crate) fn castle_side(&self, from: Square, t: Square) -> Option<usize> {
        let me = self.side;
        let side = (0..2).find(|&side| {
            self.castling.has(me, side) && {
                let g = self.castling.geometry(me, side);
                g.king_from == from && g.target == t
            }
        })?;
        // In Fischer-random setups the king castles by being placed on its
        // rook's square, which may hold a union. Under the vchess king rule the
        // king may also take over that union, so the place castles only where
        // castling is open.
        (!self.rules.king_chain_draw || self.castling_targets(from) & t.bb() != 0).then_some(side)
    }

    fn place_king(&mut self, t: Square, castles: Option<usize>) -> Transition {
        if let Some(side) = castles {
            let g = self.castling.geometry(self.side, side);
            // Castling: whatever stands on the rook's square (a union too) moves with it.
            if g.rook_from != g.rook_to {
                self.swap_squares(g.rook_from, g.rook_to);
            }
            self.put(self.side, PieceKind::King, g.king_to);
        } else {
            self.put(self.side, PieceKind::King, t);
        }
        self.finish_king_move();
        Transition::Recorded
    }

    fn finish_king_move(&mut self) {
        let me = self.side;
        // A chain that gave the king back to the hand ends with the king's own move.
        self.set_king_chain(false);
        self.set_hand(Hand::Empty);
        self.set_last_pair_move(None);
        self.set_castling_mask(self.castling.mask & !(0b11 << (me.index() * 2)));
        self.end_turn();
    }

    /// Passes the turn and records the position (the 100-half-move rule is checked here).
    fn end_turn(&mut self) {
        self.switch_side();
        self.set_required(Required::Lift);
        self.record();
    }

    fn record(&mut self) {
        if self.status == Status::Running && self.no_progress >= 100 {
            self.status = Status::NoProgressDraw;
        }
    }

    fn promote(&mut self, k: PieceKind) -> Transition {
        let Some(sq) = self.promotion else {
            return Transition::Continues;
        };
        let me = self.side;
        if self.kind_at(me, sq) == Some(PieceKind::Pawn) {
            self.take(me, PieceKind::Pawn, sq);
            self.put(me, k, sq);
        }
        self.set_promotion(None);
        self.no_progress = 0;
        match self.required {
            Required::PromoteThenLift => {
                self.set_required(Required::Lift);
                self.record();
                Transition::Recorded
            }
            Required::PromoteThenPlace => {
                self.set_required(Required::Place);
                Transition::Continues
            }
            _ => {
                self.set_ep(None);
                self.end_turn();
                Transition::Recorded
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{zobrist, Action, Hand, Position, Rules, STARTPOS_FEN};
    use crate::types::PieceKind;

    /// `simple_places` against its definition, place by place: a place
    /// simply ends the turn when playing it hands the move to the opponent
    /// with the result's hash `base ^ piece(mover, kind, target)` (a chain,
    /// a promotion, en passant or a double step changes more than that one
    /// piece). Kings, pairs and double steps are never grouped.
    #[test]
    fn simple_places_are_the_places_that_only_put_the_piece_down() {
        let mut seed = 0x5EED_u64;
        let mut next = move || {
            let (state, out) = zobrist::splitmix(seed);
            seed = state;
            out as usize
        };
        let (mut checked, mut grouped, mut pawns) = (0, 0, 0);
        // The optional rules add a recorded union move and double-step files to the hash.
        let all_rules = Rules { no_union_undo: true, one_double_step_per_file: true, king_chain_draw: true };
        for game in 0..40 {
            let rules = if game % 2 == 0 { Rules::OFFICIAL } else { all_rules };
            let mut pos = Position::from_fen(STARTPOS_FEN, rules).unwrap();
            for _ply in 0..300 {
                if pos.status().is_over() {
                    break;
                }
                let actions: Vec<Action> = pos.actions().iter().collect();
                if let (Hand::Single { kind, from }, false) = (pos.hand(), actions.is_empty()) {
                    let targets = actions.iter().fold(0u64, |b, a| if let Action::Place(t) = a { b | t.bb() } else { b });
                    let (simple, base, got_kind) = pos.simple_places(targets);
                    assert_eq!(simple & !targets, 0, "only targets are grouped");
                    for a in &actions {
                        let Action::Place(t) = *a else { continue };
                        let mut n = pos;
                        n.play(*a).unwrap();
                        let only_put_down = kind != PieceKind::King
                            && n.side_to_move() != pos.side_to_move()
                            && n.hash() == base ^ zobrist::piece(pos.side_to_move().index(), kind.index(), t.index());
                        // A double step from the first rank (a pawn carried
                        // back there) sets no en-passant square, so it only
                        // puts the pawn down too; it is left ungrouped with
                        // the other double steps, which the walk plays.
                        let double_step = kind == PieceKind::Pawn && from.rank().abs_diff(t.rank()) == 2;
                        assert_eq!(simple & t.bb() != 0, only_put_down && !double_step, "{} place {t:?}", pos.fen());
                        if only_put_down {
                            assert_eq!(got_kind, kind);
                            grouped += 1;
                            pawns += usize::from(kind == PieceKind::Pawn);
                        }
                        checked += 1;
                    }
                }
                if actions.is_empty() {
                    break;
                }
                pos.play(actions[next() % actions.len()]).unwrap();
            }
        }
        assert!(checked > 1000 && grouped > 300 && pawns > 50, "{checked} places checked, {grouped} grouped, {pawns} of pawns");
    }
}
