//! Move generation: which squares each piece may go to, which pieces may be
//! lifted, and castling.

use super::tables::{
    bishop_attacks, next_to_diagonally, next_to_orthogonally, queen_attacks, rook_attacks, DIAGONAL_STEP, FILE_A, FILE_H, KING, KNIGHT, ORTHOGONAL_STEP,
    PAWN_DIAG_BLACK, PAWN_DIAG_WHITE,
};
use super::threats::Goals;
use super::{ActionSet, Hand, Position, Required};
use crate::types::{BitBoard, Color, PieceKind, Square};

impl Position {
    #[inline(always)]
    pub(super) fn empty_squares(&self) -> u64 {
        !(self.occ[0] | self.occ[1])
    }

    /// Squares holding only a piece of `color` (not in a union).
    #[inline(always)]
    pub(super) fn lone(&self, color: Color) -> u64 {
        self.occ[color.index()] & !self.occ[color.other().index()]
    }

    #[inline(always)]
    pub(super) fn double_step_allowed(&self, me: Color, from: Square) -> bool {
        let rank_ok = match me {
            Color::White => from.rank() <= 1,
            Color::Black => from.rank() >= 6,
        };
        rank_ok && (!self.rules.one_double_step_per_file || self.double_steps[me.index()] & (1 << from.file()) == 0)
    }

    /// Forward steps of a pawn (or pawn-led union) of `me` on `from`.
    #[inline(always)]
    pub(super) fn pawn_pushes(&self, me: Color, from: Square) -> u64 {
        let empty = self.empty_squares();
        let (one, two) = match me {
            Color::White => {
                if from.rank() >= 7 {
                    return 0;
                }
                (from.bb() << 8, from.bb() << 16)
            }
            Color::Black => {
                if from.rank() == 0 {
                    return 0;
                }
                (from.bb() >> 8, from.bb() >> 16)
            }
        };
        if one & empty == 0 {
            return 0;
        }
        if two != 0 && two & empty != 0 && self.double_step_allowed(me, from) {
            one | two
        } else {
            one
        }
    }

    #[inline(always)]
    fn pawn_diagonals(me: Color, from: Square) -> u64 {
        match me {
            Color::White => PAWN_DIAG_WHITE[from.index()],
            Color::Black => PAWN_DIAG_BLACK[from.index()],
        }
    }

    /// Where a lone piece of the mover standing on `from` may be placed
    /// (kings without castling). Targets may be empty squares or hold an
    /// opponent's piece (alone, or in a union with one of the mover's pieces).
    #[inline]
    pub(crate) fn single_targets(&self, kind: PieceKind, from: Square) -> u64 {
        let me = self.side;
        let not_own_lone = !self.lone(me);
        let occ = self.occ[0] | self.occ[1];
        let i = from.index();
        match kind {
            PieceKind::Pawn => {
                let ep = self.ep.map_or(0, |s| s.bb());
                let diag = Self::pawn_diagonals(me, from) & (self.occ[me.other().index()] | ep);
                diag | self.pawn_pushes(me, from)
            }
            PieceKind::Knight => KNIGHT[i] & not_own_lone,
            PieceKind::Bishop => bishop_attacks(i, occ) & not_own_lone,
            PieceKind::Rook => rook_attacks(i, occ) & not_own_lone,
            PieceKind::Queen => queen_attacks(i, occ) & not_own_lone,
            PieceKind::King => {
                if self.rules.king_chain_draw {
                    KING[i] & (self.empty_squares() | (self.occ[0] & self.occ[1]))
                } else {
                    KING[i] & self.empty_squares()
                }
            }
        }
    }

    /// Where a union led by the mover's `kind` on `from` may go: empty squares only.
    #[inline]
    pub(crate) fn pair_targets(&self, kind: PieceKind, from: Square) -> u64 {
        let empty = self.empty_squares();
        let occ = !empty;
        let i = from.index();
        let mut t = match kind {
            PieceKind::Pawn => self.pawn_pushes(self.side, from),
            PieceKind::Knight => KNIGHT[i] & empty,
            PieceKind::Bishop => bishop_attacks(i, occ) & empty,
            PieceKind::Rook => rook_attacks(i, occ) & empty,
            PieceKind::Queen => queen_attacks(i, occ) & empty,
            // Only under the vchess king rules can a king stand in a union.
            PieceKind::King => KING[i] & empty,
        };
        if self.rules.no_union_undo {
            if let Some((a, b)) = self.last_pair_move {
                if b == from {
                    t &= !a.bb();
                }
            }
        }
        t
    }

    /// Squares the mover may lift from: own pieces (alone or in a union) with
    /// at least one square to go to. Chains into dead ends are still allowed,
    /// as on the platform.
    ///
    /// Computed for each kind at once with whole-board shifts, never with an
    /// attack lookup: a lone slider can move exactly when a square next to it
    /// in one of its directions is not the mover's own lone piece (that square
    /// is either empty or holds an opponent's piece, and both are targets), a
    /// union only when such a square is empty. [`Position::liftable_by_piece`]
    /// is the same set computed from each piece's targets; the fuzz checks
    /// compare the two.
    pub fn liftable(&self) -> u64 {
        let me = self.side;
        let c = me.index();
        let mine = |k| self.bb(c, k);
        let them = self.occ[me.other().index()];
        let empty = self.empty_squares();
        // Where a lone piece may be placed: anywhere but on the mover's own lone pieces.
        let lone_to = !self.lone(me);
        let ep = self.ep.map_or(0, |s| s.bb());
        let unite = them | ep;
        let (push, diagonal) = match me {
            Color::White => (empty >> 8, ((unite >> 7) & !FILE_A) | ((unite >> 9) & !FILE_H)),
            Color::Black => (empty << 8, ((unite << 9) & !FILE_A) | ((unite << 7) & !FILE_H)),
        };
        let pawns = mine(PieceKind::Pawn);
        let (rooks, bishops, queens) = (mine(PieceKind::Rook), mine(PieceKind::Bishop), mine(PieceKind::Queen));
        // Lone pawns and sliders, the bulk of the pieces, as whole sets.
        let mut out = (pawns & ((!them & (push | diagonal)) | (them & push)))
            | (!them & (((rooks | queens) & next_to_orthogonally(lone_to)) | ((bishops | queens) & next_to_diagonally(lone_to))));
        // Knights, the king and the mover's unions led by a slider are few: one
        // table lookup each.
        for sq in BitBoard(mine(PieceKind::Knight)) {
            let to = if them & sq.bb() != 0 { empty } else { lone_to };
            out |= sq.bb() & ((KNIGHT[sq.index()] & to != 0) as u64).wrapping_neg();
        }
        for sq in BitBoard(mine(PieceKind::King)) {
            let to = if them & sq.bb() == 0 && self.rules.king_chain_draw { empty | (self.occ[0] & self.occ[1]) } else { empty };
            out |= sq.bb() & ((KING[sq.index()] & to != 0) as u64).wrapping_neg();
        }
        for sq in BitBoard((rooks | bishops | queens) & them) {
            let i = sq.index();
            let steps =
                (if (rooks | queens) & sq.bb() != 0 { ORTHOGONAL_STEP[i] } else { 0 }) | (if (bishops | queens) & sq.bb() != 0 { DIAGONAL_STEP[i] } else { 0 });
            out |= sq.bb() & ((steps & empty != 0) as u64).wrapping_neg();
        }
        if self.rules.no_union_undo {
            // The union that just moved may not go straight back: its square needs its exact targets.
            if let Some((_, b)) = self.last_pair_move {
                if let (Some(k), true) = (self.kind_at(me, b), them & b.bb() != 0) {
                    out &= !b.bb();
                    if self.pair_targets(k, b) != 0 {
                        out |= b.bb();
                    }
                }
            }
        }
        let boxed_kings = mine(PieceKind::King) & !them & !out;
        if self.castling.mask != 0 && boxed_kings != 0 {
            for sq in BitBoard(boxed_kings) {
                if self.king_can_castle_boxed_in(sq) {
                    out |= sq.bb();
                }
            }
        }
        out
    }

    /// [`Position::liftable`] by its definition: each piece's targets, one
    /// piece at a time.
    pub fn liftable_by_piece(&self) -> u64 {
        let me = self.side;
        let them = self.occ[me.other().index()];
        let mut out = 0;
        for k in PieceKind::ALL {
            for sq in BitBoard(self.bb(me.index(), k)) {
                let t = if them & sq.bb() != 0 { self.pair_targets(k, sq) } else { self.single_targets(k, sq) };
                if t != 0 || (k == PieceKind::King && them & sq.bb() == 0 && self.king_can_castle_boxed_in(sq)) {
                    out |= sq.bb();
                }
            }
        }
        out
    }

    /// Can the lone king on `sq`, with no step to make, still castle? In the
    /// standard setup castling implies a king step (the platform relies on
    /// that); in Fischer-random setups a boxed-in king may still castle, so
    /// this looks at its castling places.
    fn king_can_castle_boxed_in(&self, sq: Square) -> bool {
        if self.castling.mask == 0 || !self.castling_paths_clear(sq) {
            return false;
        }
        let mut lifted = *self;
        lifted.lift(sq);
        lifted.place_targets() != 0
    }

    /// Is some castling option of the king on `from` free of blocking pieces
    /// (threats aside)? The king's own square counts as empty.
    pub(super) fn castling_paths_clear(&self, from: Square) -> bool {
        let me = self.side;
        let occupied = (self.occ[0] | self.occ[1]) & !from.bb();
        (0..2).any(|side| {
            self.castling.has(me, side) && {
                let g = self.castling.geometry(me, side);
                g.king_from == from && g.must_be_empty & occupied == 0
            }
        })
    }

    /// Castling places available to the king in hand.
    pub(super) fn castling_targets(&self, from: Square) -> u64 {
        let me = self.side;
        // The options whose squares are free, with what must not be threatened.
        let mut options = [(0u64, 0u64); 2];
        for (side, option) in options.iter_mut().enumerate() {
            if !self.castling.has(me, side) {
                continue;
            }
            let g = self.castling.geometry(me, side);
            if g.king_from != from || g.must_be_empty & !self.empty_squares() != 0 {
                continue;
            }
            // A right is only held with its rook on its square: validation
            // refuses a setup without it, and lifting the rook (or a union
            // with it), or releasing it from a union there, drops the right
            // (make_move.rs). The reference generator checks the rook; the
            // differential tests and this assertion hold the two together.
            debug_assert_eq!(self.kind_at(me, g.rook_from), Some(PieceKind::Rook), "a right without its rook: {}", self.fen());
            *option = (g.target.bb(), g.must_be_safe);
        }
        if options == [(0, 0); 2] {
            return 0;
        }
        // One threat search for both options; it may stop once it has found a
        // threat on each option's squares.
        let threats = super::threats::opponent_threats_toward(self, Goals::each_of(options[0].1, options[1].1));
        options.iter().filter(|(target, safe)| *target != 0 && threats & safe == 0).fold(0, |out, (target, _)| out | target)
    }

    /// The legal actions, as the platform lists them (chains into dead ends included).
    pub fn actions(&self) -> ActionSet {
        if self.status.is_over() {
            return ActionSet::None;
        }
        match self.required {
            Required::Lift => ActionSet::Lifts(BitBoard(self.liftable())),
            Required::Place => ActionSet::Places(BitBoard(self.place_targets())),
            _ => ActionSet::Promotions,
        }
    }

    /// Place targets of the piece(s) in hand.
    pub fn place_targets(&self) -> u64 {
        match self.hand {
            Hand::Empty => 0,
            Hand::Single { kind: PieceKind::King, from } => {
                let mut t = self.single_targets(PieceKind::King, from);
                if self.castling.mask != 0 {
                    t |= self.castling_targets(from);
                }
                t
            }
            Hand::Single { kind, from } => self.single_targets(kind, from),
            Hand::Pair { kind, from, .. } => self.pair_targets(kind, from),
        }
    }
}
