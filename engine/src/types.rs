//! Small value types shared by the 8x8 game: colours, piece kinds, squares and bitboards.

use std::fmt;

/// A player colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    #[inline(always)]
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    /// `white` or `black`: the spelling of JSON answers and data.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// `White` or `Black`: the spelling at the start of a sentence.
    pub fn title(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }

    /// `w` or `b`, as in FEN.
    pub fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// The rank (0-based) on which this colour's pieces start.
    #[inline(always)]
    pub fn home_rank(self) -> u8 {
        match self {
            Color::White => 0,
            Color::Black => 7,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// The six kinds of pieces. The order is the reference engine's (pawn, rook,
/// knight, bishop, queen, king); promotion actions are listed in this order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    Pawn = 0,
    Rook = 1,
    Knight = 2,
    Bishop = 3,
    Queen = 4,
    King = 5,
}

impl PieceKind {
    pub const ALL: [PieceKind; 6] = [PieceKind::Pawn, PieceKind::Rook, PieceKind::Knight, PieceKind::Bishop, PieceKind::Queen, PieceKind::King];
    /// The kinds a pawn may promote to, in the order actions are listed.
    pub const PROMOTIONS: [PieceKind; 4] = [PieceKind::Rook, PieceKind::Knight, PieceKind::Bishop, PieceKind::Queen];

    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub fn from_index(i: usize) -> PieceKind {
        PieceKind::ALL[i]
    }

    /// Upper-case letter (P, R, N, B, Q, K).
    pub fn letter(self) -> char {
        match self {
            PieceKind::Pawn => 'P',
            PieceKind::Rook => 'R',
            PieceKind::Knight => 'N',
            PieceKind::Bishop => 'B',
            PieceKind::Queen => 'Q',
            PieceKind::King => 'K',
        }
    }

    /// Parses a piece letter in either case.
    pub fn from_letter(c: char) -> Option<PieceKind> {
        Some(match c.to_ascii_uppercase() {
            'P' => PieceKind::Pawn,
            'R' => PieceKind::Rook,
            'N' => PieceKind::Knight,
            'B' => PieceKind::Bishop,
            'Q' => PieceKind::Queen,
            'K' => PieceKind::King,
            _ => return None,
        })
    }

    /// Index of a promotion kind among [`PieceKind::PROMOTIONS`].
    pub fn promotion_index(self) -> Option<usize> {
        PieceKind::PROMOTIONS.iter().position(|&k| k == self)
    }
}

/// A square of the 8x8 board: a1 = 0, b1 = 1, ..., h8 = 63.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Builds a square from its index; panics if `i >= 64`.
    #[inline(always)]
    pub const fn new(i: u8) -> Square {
        assert!(i < 64);
        Square(i)
    }

    #[inline(always)]
    pub(crate) const fn new_unchecked(i: u8) -> Square {
        Square(i)
    }

    pub fn try_new(i: u8) -> Option<Square> {
        (i < 64).then_some(Square(i))
    }

    #[inline(always)]
    pub const fn from_file_rank(file: u8, rank: u8) -> Square {
        Square::new(rank * 8 + file)
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    #[inline(always)]
    pub const fn bb(self) -> u64 {
        1u64 << self.0
    }

    /// The same square seen from the other side (rank mirrored).
    #[inline(always)]
    pub const fn flip_rank(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// The square in the mirrored file (a ↔ h, b ↔ g, ...), same rank.
    #[inline(always)]
    pub const fn flip_file(self) -> Square {
        Square(self.0 ^ 7)
    }

    /// Moves by (file, rank) offsets, `None` when leaving the board.
    pub fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        ((0..8).contains(&f) && (0..8).contains(&r)).then(|| Square::from_file_rank(f as u8, r as u8))
    }

    /// Parses `e4`-style names.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let f = b[0].wrapping_sub(b'a');
        let r = b[1].wrapping_sub(b'1');
        (f < 8 && r < 8).then(|| Square::from_file_rank(f, r))
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, (b'1' + self.rank()) as char)
    }
}

/// A set of squares.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct BitBoard(pub u64);

impl BitBoard {
    pub const EMPTY: BitBoard = BitBoard(0);

    #[inline(always)]
    pub fn contains(self, sq: Square) -> bool {
        self.0 & sq.bb() != 0
    }
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[inline(always)]
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }
    #[inline(always)]
    pub fn insert(&mut self, sq: Square) {
        self.0 |= sq.bb();
    }
    #[inline(always)]
    pub fn remove(&mut self, sq: Square) {
        self.0 &= !sq.bb();
    }
    /// The lowest square, if any.
    #[inline(always)]
    pub fn first(self) -> Option<Square> {
        (self.0 != 0).then(|| Square::new_unchecked(self.0.trailing_zeros() as u8))
    }
}

impl Iterator for BitBoard {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = Square::new_unchecked(self.0.trailing_zeros() as u8);
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitBoard {}

impl FromIterator<Square> for BitBoard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        let mut b = BitBoard::EMPTY;
        for s in iter {
            b.insert(s);
        }
        b
    }
}
