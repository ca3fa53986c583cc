//! Move generation: which squares each piece may go to, which pieces may be
//! lifted, and castling.

use super::tables::{bishop_attacks, queen_attacks, rook_attacks, KING, KNIGHT, PAWN_DIAG_BLACK, PAWN_DIAG_WHITE};
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
    pub fn liftable(&self) -> u64 {
        let me = self.side;
        let them = self.occ[me.other().index()];
        let mut out = 0;
        for k in PieceKind::ALL {
            for sq in BitBoard(self.pieces[me.index()][k.index()]) {
                let t = if them & sq.bb() != 0 { self.pair_targets(k, sq) } else { self.single_targets(k, sq) };
                if t != 0 {
                    out |= sq.bb();
                } else if k == PieceKind::King && self.castling.mask != 0 && them & sq.bb() == 0 && self.castling_paths_clear(sq) {
                    // In the standard setup castling implies a king step (the platform
                    // relies on that); in Fischer-random setups a boxed-in king may
                    // still castle, so look at its castling places.
                    let mut lifted = *self;
                    lifted.lift(sq);
                    if lifted.place_targets() != 0 {
                        out |= sq.bb();
                    }
                }
            }
        }
        out
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
        let mut out = 0;
        let mut threats: Option<u64> = None;
        for side in 0..2 {
            if !self.castling.has(me, side) {
                continue;
            }
            let g = self.castling.geometry(me, side);
            if g.king_from != from || g.must_be_empty & !self.empty_squares() != 0 {
                continue;
            }
            if !self.castling.is_standard(me) {
                // Outside the standard setup the rook must really be there.
                if self.kind_at(me, g.rook_from) != Some(PieceKind::Rook) {
                    continue;
                }
            }
            let t = *threats.get_or_insert_with(|| super::threats::opponent_threats(self));
            if t & g.must_be_safe == 0 {
                out |= g.target.bb();
            }
        }
        out
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

    /// True if placing the piece in hand on `t` continues a chain (the square
    /// holds a union with one of the mover's pieces).
    #[inline(always)]
    pub fn place_is_chain(&self, t: Square) -> bool {
        matches!(self.hand, Hand::Single { .. }) && (self.occ[0] & self.occ[1] & t.bb()) != 0
    }
}
