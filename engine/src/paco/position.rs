//! The Paco Ŝako position: its state, accessors, hashing and the incremental
//! edits the rest of the engine builds on.
//!
//! A turn is a sequence of atomic actions by one player: `Lift` a piece (or a
//! whole union), `Place` it; placing a lone piece into a union that holds one
//! of the mover's pieces releases that piece into the hand and the turn goes
//! on (a chain). Promotions are their own action. [`Required`] says what kind
//! of action comes next.
//!
//! One type, its `impl` split by concern (as cozy-chess does):
//!
//! | file | concern |
//! |---|---|
//! | `position.rs` | the state, accessors, Zobrist hashing, incremental edits |
//! | `movegen.rs` | target squares, liftable pieces, castling, [`Position::actions`] |
//! | `make_move.rs` | applying actions: lift, place, chains, promotions, the end of a turn |
//! | `../threats.rs` | what the opponent could reach through chains (castling, Ŝako) |
//!
//! Rules follow the platform's reference engine exactly (see
//! `engine/tests/data/README.md`): unions move only to empty squares, kings
//! never unite or chain, Ŝako is not filtered, castling is refused when a
//! square of the king's path is threatened through chains, etc.

use super::zobrist;
use super::{Castling, Hand, Required, Rules, Status};
use crate::types::{BitBoard, Color, PieceKind, Square};

/// The value of [`Position::king`] while the king is in hand.
pub(crate) const NO_KING: u8 = 64;

/// A Paco Ŝako position, including mid-turn state (piece in hand, pending promotion).
///
/// The repetition history is not part of the position; [`super::GameState`]
/// keeps it and sets [`Status::RepetitionDraw`].
#[derive(Copy, Clone, Debug)]
pub struct Position {
    /// `officers[color][kind - 1]`: squares holding that colour's rook, knight,
    /// bishop or queen (unions included). Pawns are the rest of `occ` and the
    /// king is one square: keeping the position within 128 bytes lets the
    /// compiler copy it inline (copy-make is how every search applies an
    /// action), which made atomic perft about a quarter faster.
    pub(crate) officers: [[u64; 4]; 2],
    /// `king[color]`: the king's square index, or [`NO_KING`] while it is in hand.
    pub(crate) king: [u8; 2],
    /// `occ[color]`: every square with a piece of that colour; a union is a square in both.
    pub(crate) occ: [u64; 2],
    pub(crate) side: Color,
    pub(crate) required: Required,
    pub(crate) hand: Hand,
    pub(crate) ep: Option<Square>,
    pub(crate) promotion: Option<Square>,
    pub(crate) castling: Castling,
    pub(crate) no_progress: u8,
    pub(crate) status: Status,
    pub(crate) rules: Rules,
    /// Optional rules state: files on which each colour already double-stepped.
    pub(crate) double_steps: [u8; 2],
    /// Optional rules state: the union move just played (from, to).
    pub(crate) last_pair_move: Option<(Square, Square)>,
    /// Optional rules state: the chain in progress was started by the king.
    pub(crate) king_chain: bool,
    pub(crate) hash: u64,
}

impl PartialEq for Position {
    fn eq(&self, o: &Self) -> bool {
        self.officers == o.officers
            && self.king == o.king
            && self.occ == o.occ
            && self.side == o.side
            && self.required == o.required
            && self.hand == o.hand
            && self.ep == o.ep
            && self.promotion == o.promotion
            && self.castling == o.castling
            && self.no_progress == o.no_progress
            && self.status == o.status
            && self.rules == o.rules
            && self.double_steps == o.double_steps
            && self.last_pair_move == o.last_pair_move
            && self.king_chain == o.king_chain
    }
}
impl Eq for Position {}

impl Position {
    pub(crate) fn empty(rules: Rules) -> Position {
        Position {
            officers: [[0; 4]; 2],
            king: [NO_KING; 2],
            occ: [0; 2],
            side: Color::White,
            required: Required::Lift,
            hand: Hand::Empty,
            ep: None,
            promotion: None,
            castling: Castling::NONE,
            no_progress: 0,
            status: Status::Running,
            rules,
            double_steps: [0; 2],
            last_pair_move: None,
            king_chain: false,
            hash: zobrist::CASTLING[0],
        }
    }

    // ---- accessors -------------------------------------------------------

    pub fn side_to_move(&self) -> Color {
        self.side
    }
    pub fn required(&self) -> Required {
        self.required
    }
    pub fn hand(&self) -> Hand {
        self.hand
    }
    pub fn en_passant(&self) -> Option<Square> {
        self.ep
    }
    pub fn promotion_square(&self) -> Option<Square> {
        self.promotion
    }
    pub fn castling(&self) -> Castling {
        self.castling
    }
    pub fn no_progress_half_moves(&self) -> u8 {
        self.no_progress
    }
    pub fn status(&self) -> Status {
        self.status
    }
    pub fn rules(&self) -> Rules {
        self.rules
    }
    /// Zobrist hash of everything that decides the future of the game (not the history).
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }
    /// True when no piece is in hand and no promotion is pending.
    pub fn is_settled(&self) -> bool {
        self.required == Required::Lift
    }
    /// Squares with a piece of `color` (unions included).
    pub fn occupied(&self, color: Color) -> BitBoard {
        BitBoard(self.occ[color.index()])
    }
    /// Squares holding a union.
    pub fn unions(&self) -> BitBoard {
        BitBoard(self.occ[0] & self.occ[1])
    }
    pub fn pieces(&self, color: Color, kind: PieceKind) -> BitBoard {
        BitBoard(self.bb(color.index(), kind))
    }

    /// Squares holding colour `c`'s pieces of `kind` (unions included).
    #[inline(always)]
    pub(crate) fn bb(&self, c: usize, kind: PieceKind) -> u64 {
        match kind {
            PieceKind::Pawn => self.occ[c] & !(self.officers[c][0] | self.officers[c][1] | self.officers[c][2] | self.officers[c][3] | self.king_bb(c)),
            PieceKind::King => self.king_bb(c),
            k => self.officers[c][k.index() - 1],
        }
    }

    /// The king of colour `c` as a bitboard (empty while it is in hand).
    #[inline(always)]
    pub(crate) fn king_bb(&self, c: usize) -> u64 {
        // A shift by 64 would overflow: the u128 shift gives 0 for NO_KING.
        (1u128 << self.king[c]) as u64
    }
    /// `(white, black)` pieces on a square.
    pub fn at(&self, sq: Square) -> (Option<PieceKind>, Option<PieceKind>) {
        (self.kind_at(Color::White, sq), self.kind_at(Color::Black, sq))
    }
    pub(crate) fn set_status(&mut self, status: Status) {
        self.status = status;
    }

    #[inline(always)]
    pub fn kind_at(&self, color: Color, sq: Square) -> Option<PieceKind> {
        let c = color.index();
        let b = sq.bb();
        if self.occ[c] & b == 0 {
            return None;
        }
        // Exactly one kind holds the square: OR-ing each kind's index times its
        // bit gives that index without a data-dependent branch (pawn = 0).
        let s = sq.index();
        let o = &self.officers[c];
        let i = ((o[0] >> s) & 1) | (((o[1] >> s) & 1) * 2) | (((o[2] >> s) & 1) * 3) | (((o[3] >> s) & 1) * 4) | ((self.king[c] as usize == s) as u64 * 5);
        Some(PieceKind::from_index(i as usize))
    }

    /// Number of pieces on the board plus those in hand (always 32 from real games).
    pub fn piece_count(&self) -> u32 {
        let hand = match self.hand {
            Hand::Empty => 0,
            Hand::Single { .. } => 1,
            Hand::Pair { .. } => 2,
        };
        self.occ[0].count_ones() + self.occ[1].count_ones() + hand
    }

    /// The hash recomputed from scratch (tests check it equals the incremental one).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for c in 0..2 {
            for k in 0..6 {
                for sq in BitBoard(self.bb(c, PieceKind::from_index(k))) {
                    h ^= zobrist::piece(c, k, sq.index());
                }
            }
        }
        if self.side == Color::Black {
            h ^= zobrist::BLACK_TO_MOVE;
        }
        h ^= self.hand_key(self.hand);
        h ^= square_key(&zobrist::EP, self.ep);
        h ^= square_key(&zobrist::PROMOTION, self.promotion);
        h ^= zobrist::CASTLING[self.castling.mask as usize];
        h ^= zobrist::REQUIRED[self.required as usize];
        h ^= self.option_key();
        if self.king_chain {
            h ^= zobrist::KING_CHAIN;
        }
        h
    }

    #[inline(always)]
    fn hand_key(&self, hand: Hand) -> u64 {
        match hand {
            Hand::Empty => 0,
            Hand::Single { kind, from } => zobrist::HAND_OWN[kind.index() * 64 + from.index()],
            Hand::Pair { kind, partner, from } => {
                zobrist::HAND_OWN[kind.index() * 64 + from.index()] ^ zobrist::HAND_PARTNER[partner.index() * 64 + from.index()]
            }
        }
    }

    fn option_key(&self) -> u64 {
        let mut h = 0;
        for c in 0..2 {
            for f in 0..8 {
                if self.double_steps[c] & (1 << f) != 0 {
                    h ^= zobrist::DOUBLE_STEP[c * 8 + f];
                }
            }
        }
        if let Some((a, b)) = self.last_pair_move {
            h ^= zobrist::LAST_PAIR_FROM[a.index()] ^ zobrist::LAST_PAIR_TO[b.index()];
        }
        h
    }

    // ---- incremental mutation --------------------------------------------

    #[inline(always)]
    pub(crate) fn put(&mut self, color: Color, kind: PieceKind, sq: Square) {
        let c = color.index();
        match kind {
            PieceKind::Pawn => {}
            PieceKind::King => self.king[c] = sq.index() as u8,
            k => self.officers[c][k.index() - 1] |= sq.bb(),
        }
        self.occ[c] |= sq.bb();
        self.hash ^= zobrist::piece(c, kind.index(), sq.index());
    }

    #[inline(always)]
    pub(crate) fn take(&mut self, color: Color, kind: PieceKind, sq: Square) {
        let c = color.index();
        match kind {
            PieceKind::Pawn => {}
            PieceKind::King => self.king[c] = NO_KING,
            k => self.officers[c][k.index() - 1] &= !sq.bb(),
        }
        self.occ[c] &= !sq.bb();
        self.hash ^= zobrist::piece(c, kind.index(), sq.index());
    }

    #[inline(always)]
    pub(crate) fn set_hand(&mut self, hand: Hand) {
        self.hash ^= self.hand_key(self.hand) ^ self.hand_key(hand);
        self.hand = hand;
    }
    #[inline(always)]
    pub(crate) fn set_required(&mut self, r: Required) {
        self.hash ^= zobrist::REQUIRED[self.required as usize] ^ zobrist::REQUIRED[r as usize];
        self.required = r;
    }
    #[inline(always)]
    pub(super) fn set_ep(&mut self, ep: Option<Square>) {
        self.hash ^= square_key(&zobrist::EP, self.ep) ^ square_key(&zobrist::EP, ep);
        self.ep = ep;
    }
    #[inline(always)]
    pub(super) fn set_promotion(&mut self, p: Option<Square>) {
        self.hash ^= square_key(&zobrist::PROMOTION, self.promotion) ^ square_key(&zobrist::PROMOTION, p);
        self.promotion = p;
    }
    #[inline(always)]
    pub(super) fn set_castling_mask(&mut self, mask: u8) {
        self.hash ^= zobrist::CASTLING[self.castling.mask as usize] ^ zobrist::CASTLING[mask as usize];
        self.castling.mask = mask;
    }
    #[inline(always)]
    pub(crate) fn switch_side(&mut self) {
        self.side = self.side.other();
        self.hash ^= zobrist::BLACK_TO_MOVE;
    }
    #[inline(always)]
    pub(super) fn set_king_chain(&mut self, on: bool) {
        if self.king_chain != on {
            self.king_chain = on;
            self.hash ^= zobrist::KING_CHAIN;
        }
    }
    pub(super) fn set_last_pair_move(&mut self, m: Option<(Square, Square)>) {
        if let Some((a, b)) = self.last_pair_move {
            self.hash ^= zobrist::LAST_PAIR_FROM[a.index()] ^ zobrist::LAST_PAIR_TO[b.index()];
        }
        if let Some((a, b)) = m {
            self.hash ^= zobrist::LAST_PAIR_FROM[a.index()] ^ zobrist::LAST_PAIR_TO[b.index()];
        }
        self.last_pair_move = m;
    }

    /// Moves everything on `a` to `b` and vice versa (both colours), as the
    /// en-passant step back and castling do.
    pub(super) fn swap_squares(&mut self, a: Square, b: Square) {
        let at_a = self.at(a);
        let at_b = self.at(b);
        for (color, ka, kb) in [(Color::White, at_a.0, at_b.0), (Color::Black, at_a.1, at_b.1)] {
            if let Some(k) = ka {
                self.take(color, k, a);
            }
            if let Some(k) = kb {
                self.take(color, k, b);
            }
            if let Some(k) = ka {
                self.put(color, k, b);
            }
            if let Some(k) = kb {
                self.put(color, k, a);
            }
        }
    }
}

/// The key of an optional square (0 for none).
#[inline(always)]
pub(super) fn square_key(keys: &[u64; 64], sq: Option<Square>) -> u64 {
    sq.map_or(0, |s| keys[s.index()])
}

#[inline(always)]
pub(crate) fn forward(c: Color) -> i8 {
    match c {
        Color::White => 1,
        Color::Black => -1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equality compares every field but the hash (derived from them): a
    /// position that differs in any one field is another position.
    #[test]
    fn positions_differ_when_any_one_field_does() {
        let start = Position::startpos();
        let mut same = start;
        same.hash ^= 1;
        assert_eq!(same, start);
        type Change = (&'static str, fn(&mut Position));
        let changes: [Change; 15] = [
            ("officers", |p| p.officers[1][3] ^= 1),
            ("king", |p| p.king[0] = NO_KING),
            ("occ", |p| p.occ[1] ^= 1 << 40),
            ("side", |p| p.side = Color::Black),
            ("required", |p| p.required = Required::Place),
            ("hand", |p| p.hand = Hand::Single { kind: PieceKind::Pawn, from: Square::parse("e2").unwrap() }),
            ("ep", |p| p.ep = Square::parse("e3")),
            ("promotion", |p| p.promotion = Square::parse("e8")),
            ("castling", |p| p.castling.mask = 0),
            ("no_progress", |p| p.no_progress = 1),
            ("status", |p| p.status = Status::NoProgressDraw),
            ("rules", |p| p.rules.no_union_undo = !p.rules.no_union_undo),
            ("double_steps", |p| p.double_steps[0] = 1),
            ("last_pair_move", |p| p.last_pair_move = Some((Square::new(28), Square::new(36)))),
            ("king_chain", |p| p.king_chain = true),
        ];
        for (field, change) in changes {
            let mut p = start;
            change(&mut p);
            assert_ne!(p, start, "{field}");
            assert_ne!(start, p, "{field}");
        }
    }

    /// Every hand has a key of its own: the keys index the tables by kind
    /// and square (kind * 64 + square), so no two hands share an entry.
    #[test]
    fn every_hand_has_its_own_key() {
        let p = Position::startpos();
        let mut hands = vec![Hand::Empty];
        for from in (0..64).map(Square::new) {
            for kind in PieceKind::ALL {
                hands.push(Hand::Single { kind, from });
                for partner in PieceKind::ALL {
                    hands.push(Hand::Pair { kind, partner, from });
                }
            }
        }
        let keys: std::collections::HashSet<u64> = hands.iter().map(|&h| p.hand_key(h)).collect();
        assert_eq!(keys.len(), hands.len());
    }

    /// The board's square sets, read from a FEN with one union (`C` on d8)
    /// and a lone king of each colour.
    #[test]
    fn square_sets_count_a_union_for_both_colours() {
        let p = Position::from_fen("3Ck3/8/8/8/8/8/8/4K3 w 0 - - -", crate::paco::Rules::OFFICIAL).unwrap();
        let squares = |b: BitBoard| b.map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(squares(p.unions()), ["d8"]);
        assert_eq!(squares(p.occupied(Color::White)), ["e1", "d8"]);
        assert_eq!(squares(p.occupied(Color::Black)), ["d8", "e8"]);
        assert_eq!(squares(p.pieces(Color::White, PieceKind::King)), ["e1"]);
        assert_eq!(squares(p.pieces(Color::Black, PieceKind::King)), ["e8"]);
    }
}
