//! The board state: pieces (bitboards plus a mailbox), side to move,
//! castling rights, en passant, move clocks and an incrementally updated
//! Zobrist hash. Positions are small `Copy` values (copy-make).

use super::geometry::{bishop_attacks, cannon_hops, rook_attacks, Bb128, Square10, ELEPHANT, KING, KNIGHT, PAWN_ATTACKS};
use super::moves::{parse_uci_parts, Move, MoveKind, UciError};
use super::zobrist;
use crate::types::Color;

pub use super::piece::{Kind, Piece};

/// Castling-right bits.
pub const WHITE_KINGSIDE: u8 = 1;
pub const WHITE_QUEENSIDE: u8 = 2;
pub const BLACK_KINGSIDE: u8 = 4;
pub const BLACK_QUEENSIDE: u8 = 8;

/// Where the pieces of one castling stand and go. The king starts on the f-file
/// of its second rank; the rooks on the b- and i-files. O-O: king f→h, rook
/// i→g; O-O-O: king f→d, rook b→e.
#[derive(Copy, Clone, Debug)]
pub(crate) struct CastlingPath {
    pub right: u8,
    pub king_from: Square10,
    pub king_to: Square10,
    pub rook_from: Square10,
    pub rook_to: Square10,
    /// Squares between king and rook, which must be empty.
    pub empty: Bb128,
    /// Squares the king crosses or lands on, which must not be attacked.
    pub safe: Bb128,
}

const fn castling_path(color: Color, kingside: bool) -> CastlingPath {
    let rank = match color {
        Color::White => 1,
        Color::Black => 8,
    };
    // (right, king to, rook from, rook to, files that must be empty, files the king crosses)
    let (right, king_to, rook_from, rook_to, empty, safe): (u8, u8, u8, u8, &[u8], &[u8]) =
        if kingside { (WHITE_KINGSIDE, 7, 8, 6, &[6, 7], &[6, 7]) } else { (WHITE_QUEENSIDE, 3, 1, 4, &[2, 3, 4], &[3, 4]) };
    CastlingPath {
        right: right << (2 * color as u8),
        king_from: Square10::from_file_rank(5, rank),
        king_to: Square10::from_file_rank(king_to, rank),
        rook_from: Square10::from_file_rank(rook_from, rank),
        rook_to: Square10::from_file_rank(rook_to, rank),
        empty: squares_on_rank(empty, rank),
        safe: squares_on_rank(safe, rank),
    }
}

const fn squares_on_rank(files: &[u8], rank: u8) -> Bb128 {
    let mut b = 0u128;
    let mut i = 0;
    while i < files.len() {
        b |= Square10::from_file_rank(files[i], rank).bb().0;
        i += 1;
    }
    Bb128(b)
}

/// `[color][kingside, queenside]`.
pub(crate) static CASTLING_PATHS: [[CastlingPath; 2]; 2] =
    [[castling_path(Color::White, true), castling_path(Color::White, false)], [castling_path(Color::Black, true), castling_path(Color::Black, false)]];

/// Castling rights kept after a move from or to each square.
static CASTLING_KEEP: [u8; 100] = {
    let mut keep = [0b1111u8; 100];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 2 {
            let p = &CASTLING_PATHS[c][s];
            keep[p.king_from.index()] &= !p.right;
            keep[p.rook_from.index()] &= !p.right;
            s += 1;
        }
        c += 1;
    }
    keep
};

const NO_PIECE: u8 = 0xFF;

/// A Shako position.
#[derive(Copy, Clone, PartialEq, Eq)]
pub struct Position {
    /// Piece code (`color * 8 + kind`) per square, or `NO_PIECE`.
    board: [u8; 100],
    by_color: [Bb128; 2],
    by_kind: [Bb128; 8],
    side: Color,
    castling: u8,
    ep: Option<Square10>,
    halfmove: u16,
    fullmove: u16,
    hash: u64,
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

impl Position {
    /// An empty board, White to move, no rights, clocks 0 and 1.
    pub(crate) fn empty() -> Position {
        let mut p = Position {
            board: [NO_PIECE; 100],
            by_color: [Bb128::EMPTY; 2],
            by_kind: [Bb128::EMPTY; 8],
            side: Color::White,
            castling: 0,
            ep: None,
            halfmove: 0,
            fullmove: 1,
            hash: 0,
        };
        p.hash = p.compute_hash();
        p
    }

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Castling-right bits ([`WHITE_KINGSIDE`] ...).
    #[inline(always)]
    pub fn castling_rights(&self) -> u8 {
        self.castling
    }

    /// The square skipped by the last double step, when an enemy pawn stands next to it.
    #[inline(always)]
    pub fn en_passant(&self) -> Option<Square10> {
        self.ep
    }

    /// Half-moves since the last capture or pawn move.
    #[inline(always)]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }

    #[inline(always)]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove
    }

    /// The incrementally updated Zobrist hash.
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    #[inline(always)]
    pub fn piece_at(&self, sq: Square10) -> Option<Piece> {
        let c = self.board[sq.index()];
        (c != NO_PIECE).then(|| Piece::from_code(c))
    }

    #[inline(always)]
    pub fn pieces(&self, color: Color, kind: Kind) -> Bb128 {
        self.by_color[color.index()] & self.by_kind[kind.index()]
    }

    /// Material of `color` in pawns: pawn 1, elephant 2, knight 3, bishop 3,
    /// cannon 4, rook 5, queen 9 (king 0). A rough scale, used only to
    /// adjudicate games that reach their length cap.
    pub fn material(&self, color: Color) -> u32 {
        const VALUES: [(Kind, u32); 7] =
            [(Kind::Pawn, 1), (Kind::Elephant, 2), (Kind::Knight, 3), (Kind::Bishop, 3), (Kind::Cannon, 4), (Kind::Rook, 5), (Kind::Queen, 9)];
        VALUES.iter().map(|&(k, v)| v * self.pieces(color, k).0.count_ones()).sum()
    }

    #[inline(always)]
    pub fn color_bb(&self, color: Color) -> Bb128 {
        self.by_color[color.index()]
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bb128 {
        self.by_color[0] | self.by_color[1]
    }

    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Square10 {
        self.pieces(color, Kind::King).lowest_unchecked()
    }

    // ---- Editing (used by the FEN reader and by moves). ----

    #[inline(always)]
    pub(crate) fn put(&mut self, sq: Square10, p: Piece) {
        debug_assert_eq!(self.board[sq.index()], NO_PIECE);
        self.board[sq.index()] = p.code();
        self.by_color[p.color.index()] |= sq.bb();
        self.by_kind[p.kind.index()] |= sq.bb();
        self.hash ^= zobrist::piece(p.color.index(), p.kind.index(), sq.index());
    }

    #[inline(always)]
    fn remove(&mut self, sq: Square10) -> Piece {
        let p = Piece::from_code(self.board[sq.index()]);
        self.board[sq.index()] = NO_PIECE;
        self.by_color[p.color.index()] ^= sq.bb();
        self.by_kind[p.kind.index()] ^= sq.bb();
        self.hash ^= zobrist::piece(p.color.index(), p.kind.index(), sq.index());
        p
    }

    #[inline(always)]
    fn shift(&mut self, from: Square10, to: Square10) {
        let code = self.board[from.index()];
        let p = Piece::from_code(code);
        self.board[from.index()] = NO_PIECE;
        self.board[to.index()] = code;
        let both = from.bb() | to.bb();
        self.by_color[p.color.index()] ^= both;
        self.by_kind[p.kind.index()] ^= both;
        self.hash ^= zobrist::piece(p.color.index(), p.kind.index(), from.index()) ^ zobrist::piece(p.color.index(), p.kind.index(), to.index());
    }

    pub(crate) fn set_side(&mut self, c: Color) {
        if c != self.side {
            self.hash ^= zobrist::BLACK_TO_MOVE;
        }
        self.side = c;
    }

    pub(crate) fn set_castling(&mut self, rights: u8) {
        self.hash ^= zobrist::CASTLING[self.castling as usize] ^ zobrist::CASTLING[rights as usize];
        self.castling = rights;
    }

    pub(crate) fn set_en_passant(&mut self, ep: Option<Square10>) {
        if let Some(s) = self.ep {
            self.hash ^= zobrist::EP_FILE[s.file() as usize];
        }
        if let Some(s) = ep {
            self.hash ^= zobrist::EP_FILE[s.file() as usize];
        }
        self.ep = ep;
    }

    pub(crate) fn set_clocks(&mut self, halfmove: u16, fullmove: u16) {
        self.halfmove = halfmove;
        self.fullmove = fullmove;
    }

    /// The hash computed from scratch (equals [`Position::hash`]).
    pub fn compute_hash(&self) -> u64 {
        let mut h = zobrist::CASTLING[self.castling as usize];
        for sq in self.occupied() {
            let p = Piece::from_code(self.board[sq.index()]);
            h ^= zobrist::piece(p.color.index(), p.kind.index(), sq.index());
        }
        if let Some(s) = self.ep {
            h ^= zobrist::EP_FILE[s.file() as usize];
        }
        if self.side == Color::Black {
            h ^= zobrist::BLACK_TO_MOVE;
        }
        h
    }

    // ---- Attacks. ----

    /// Whether a piece of `by` (ignoring the squares in `removed`) attacks
    /// `sq` when the board's occupancy is `occ`.
    #[inline(always)]
    pub(crate) fn is_attacked(&self, sq: Square10, by: Color, occ: Bb128, removed: Bb128) -> bool {
        let them = self.by_color[by.index()].0 & !removed.0;
        let k = |kind: Kind| self.by_kind[kind.index()].0 & them;
        let s = sq.index();
        if KNIGHT[s].0 & k(Kind::Knight) != 0
            || ELEPHANT[s].0 & k(Kind::Elephant) != 0
            || PAWN_ATTACKS[by.other().index()][s].0 & k(Kind::Pawn) != 0
            || KING[s].0 & k(Kind::King) != 0
        {
            return true;
        }
        let queens = k(Kind::Queen);
        let rooks = k(Kind::Rook) | queens;
        if rooks != 0 && rook_attacks(sq, occ).0 & rooks != 0 {
            return true;
        }
        let bishops = k(Kind::Bishop) | queens;
        if bishops != 0 && bishop_attacks(sq, occ).0 & bishops != 0 {
            return true;
        }
        let cannons = k(Kind::Cannon);
        cannons != 0 && cannon_hops(sq, occ).0 & cannons != 0
    }

    /// Every piece of `by` attacking `sq` on the current board.
    pub fn attackers(&self, sq: Square10, by: Color) -> Bb128 {
        let occ = self.occupied();
        let s = sq.index();
        let k = |kind: Kind| self.pieces(by, kind);
        (KNIGHT[s] & k(Kind::Knight))
            | (ELEPHANT[s] & k(Kind::Elephant))
            | (PAWN_ATTACKS[by.other().index()][s] & k(Kind::Pawn))
            | (KING[s] & k(Kind::King))
            | (rook_attacks(sq, occ) & (k(Kind::Rook) | k(Kind::Queen)))
            | (bishop_attacks(sq, occ) & (k(Kind::Bishop) | k(Kind::Queen)))
            | (cannon_hops(sq, occ) & k(Kind::Cannon))
    }

    /// The pieces giving check to the side to move.
    pub fn checkers(&self) -> Bb128 {
        self.attackers(self.king_square(self.side), self.side.other())
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.in_check_of(self.side)
    }

    /// Whether `color`'s king is attacked.
    pub fn in_check_of(&self, color: Color) -> bool {
        self.is_attacked(self.king_square(color), color.other(), self.occupied(), Bb128::EMPTY)
    }

    // ---- Making moves. ----

    /// Plays a move known to be legal in this position (see [`Position::legal_moves`]).
    pub fn play_unchecked(&mut self, m: Move) {
        let us = self.side;
        let (from, to) = (m.from(), m.to());
        let moving = Piece::from_code(self.board[from.index()]);
        self.set_en_passant(None);
        self.halfmove += 1;
        match m.kind() {
            MoveKind::Normal => {
                if self.board[to.index()] != NO_PIECE {
                    self.remove(to);
                    self.halfmove = 0;
                }
                self.shift(from, to);
                if moving.kind == Kind::Pawn {
                    self.halfmove = 0;
                }
            }
            MoveKind::DoublePush => {
                self.shift(from, to);
                self.halfmove = 0;
                let skipped = Square10::new((from.index() + to.index()) as u8 / 2);
                if !(PAWN_ATTACKS[us.index()][skipped.index()] & self.pieces(us.other(), Kind::Pawn)).is_empty() {
                    self.set_en_passant(Some(skipped));
                }
            }
            MoveKind::EnPassant => {
                let captured = Square10::from_file_rank(to.file(), from.rank());
                self.remove(captured);
                self.shift(from, to);
                self.halfmove = 0;
            }
            MoveKind::Castle => {
                let path = &CASTLING_PATHS[us.index()][(to.file() < from.file()) as usize];
                self.shift(from, to);
                self.shift(path.rook_from, path.rook_to);
            }
            MoveKind::Promotion(kind) => {
                if self.board[to.index()] != NO_PIECE {
                    self.remove(to);
                }
                self.remove(from);
                self.put(to, Piece::new(us, kind));
                self.halfmove = 0;
            }
        }
        let rights = self.castling & CASTLING_KEEP[from.index()] & CASTLING_KEEP[to.index()];
        if rights != self.castling {
            self.set_castling(rights);
        }
        if us == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = us.other();
        self.hash ^= zobrist::BLACK_TO_MOVE;
    }

    /// Plays a move after checking that it is legal.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        if !self.legal_moves_vec().contains(&m) {
            return Err(IllegalMove { uci: m.to_string(), fen: self.fen() });
        }
        self.play_unchecked(m);
        Ok(())
    }
}

/// A move that is not legal in the position it was played in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    pub uci: String,
    pub fen: String,
}

impl std::fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "illegal move {} in {}", self.uci, self.fen)
    }
}

impl std::error::Error for IllegalMove {}

impl Position {
    /// Reads a UCI move and checks that it is legal here.
    pub fn parse_uci(&self, s: &str) -> Result<Move, UciError> {
        let (from, to, promo) = parse_uci_parts(s)?;
        self.legal_moves_vec()
            .into_iter()
            .find(|m| m.from() == from && m.to() == to && m.promotion() == promo)
            .ok_or_else(|| UciError { input: s.to_string(), message: format!("not legal in {}", self.fen()) })
    }
}
