//! Colours, piece kinds, squares and the board: plain values, no bit tricks.

use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White,
    Black,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
    pub fn index(self) -> usize {
        match self {
            Color::White => 0,
            Color::Black => 1,
        }
    }
    /// The rank step of this colour's pawns.
    pub fn forward(self) -> i8 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }
    /// The rank the colour's pieces start on (rank 1 or 8, as 0 or 7).
    pub fn home_rank(self) -> i8 {
        match self {
            Color::White => 0,
            Color::Black => 7,
        }
    }
    /// The rank its pawns promote on: the opponent's home rank.
    pub fn last_rank(self) -> i8 {
        self.other().home_rank()
    }
    pub fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Pawn,
    Rook,
    Knight,
    Bishop,
    Queen,
    King,
}

impl Kind {
    pub const ALL: [Kind; 6] = [Kind::Pawn, Kind::Rook, Kind::Knight, Kind::Bishop, Kind::Queen, Kind::King];
    /// What a pawn may promote to, in the platform's order of actions.
    pub const PROMOTIONS: [Kind; 4] = [Kind::Rook, Kind::Knight, Kind::Bishop, Kind::Queen];

    /// Upper-case letter (`P R N B Q K`).
    pub fn letter(self) -> char {
        match self {
            Kind::Pawn => 'P',
            Kind::Rook => 'R',
            Kind::Knight => 'N',
            Kind::Bishop => 'B',
            Kind::Queen => 'Q',
            Kind::King => 'K',
        }
    }
    pub fn from_letter(c: char) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.letter() == c.to_ascii_uppercase())
    }
    /// The steps of a piece that jumps or steps once (knight, king).
    pub fn steps(self) -> &'static [(i8, i8)] {
        match self {
            Kind::Knight => &[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)],
            Kind::King => &[(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)],
            _ => &[],
        }
    }
    /// The directions a slider moves along (rook, bishop, queen).
    pub fn rays(self) -> &'static [(i8, i8)] {
        match self {
            Kind::Rook => &[(0, 1), (1, 0), (0, -1), (-1, 0)],
            Kind::Bishop => &[(1, 1), (1, -1), (-1, -1), (-1, 1)],
            Kind::Queen => &[(0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, -1), (-1, 1)],
            _ => &[],
        }
    }
}

/// A square: file 0..8 (a..h), rank 0..8 (1..8).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    pub file: i8,
    pub rank: i8,
}

impl Square {
    pub fn new(file: i8, rank: i8) -> Option<Square> {
        ((0..8).contains(&file) && (0..8).contains(&rank)).then_some(Square { file, rank })
    }
    /// Squares in the platform's order of actions: a1, b1, …, h1, a2, …, h8.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..8).flat_map(|rank| (0..8).map(move |file| Square { file, rank }))
    }
    pub fn offset(self, df: i8, dr: i8) -> Option<Square> {
        Square::new(self.file + df, self.rank + dr)
    }
    pub fn index(self) -> usize {
        (self.rank * 8 + self.file) as usize
    }
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        Square::new(b[0] as i8 - b'a' as i8, b[1] as i8 - b'1' as i8)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file as u8) as char, self.rank + 1)
    }
}

/// What stands on each square: at most one white and one black piece (two
/// of them make a union).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    cells: [[Option<Kind>; 2]; 64],
}

impl Default for Board {
    fn default() -> Self {
        Board { cells: [[None; 2]; 64] }
    }
}

impl Board {
    pub fn get(&self, sq: Square, c: Color) -> Option<Kind> {
        self.cells[sq.index()][c.index()]
    }
    pub fn set(&mut self, sq: Square, c: Color, k: Option<Kind>) {
        self.cells[sq.index()][c.index()] = k;
    }
    pub fn is_empty(&self, sq: Square) -> bool {
        self.cells[sq.index()] == [None, None]
    }
    pub fn is_union(&self, sq: Square) -> bool {
        self.cells[sq.index()][0].is_some() && self.cells[sq.index()][1].is_some()
    }
    /// A piece of `c` stands there alone.
    pub fn is_lone(&self, sq: Square, c: Color) -> bool {
        self.get(sq, c).is_some() && self.get(sq, c.other()).is_none()
    }
    /// Exchanges everything on two squares (en passant, castling's rook).
    pub fn swap(&mut self, a: Square, b: Square) {
        self.cells.swap(a.index(), b.index());
    }
    /// The square of `c`'s king on the board, if it is on the board.
    pub fn king(&self, c: Color) -> Option<Square> {
        Square::all().find(|&s| self.get(s, c) == Some(Kind::King))
    }
}
