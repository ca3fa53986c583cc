//! The vocabulary of a Shako board: the eight kinds of pieces and a piece
//! (a kind and a colour).

use crate::types::Color;

/// The eight kinds of Shako pieces.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
    /// Leaps one or two squares diagonally (Fairy-Stockfish's fers-alfil).
    Elephant = 6,
    /// Moves like a rook; captures by jumping over exactly one piece.
    Cannon = 7,
}

impl Kind {
    pub const ALL: [Kind; 8] = [Kind::Pawn, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen, Kind::King, Kind::Elephant, Kind::Cannon];
    /// What a pawn may promote to.
    pub const PROMOTIONS: [Kind; 6] = [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight, Kind::Elephant, Kind::Cannon];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub const fn from_index(i: usize) -> Kind {
        Kind::ALL[i]
    }

    /// Upper-case letter: P N B R Q K E C.
    pub const fn letter(self) -> char {
        match self {
            Kind::Pawn => 'P',
            Kind::Knight => 'N',
            Kind::Bishop => 'B',
            Kind::Rook => 'R',
            Kind::Queen => 'Q',
            Kind::King => 'K',
            Kind::Elephant => 'E',
            Kind::Cannon => 'C',
        }
    }

    /// Parses a piece letter in either case.
    pub fn from_letter(c: char) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.letter() == c.to_ascii_uppercase())
    }
}

/// A piece of one colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: Kind,
}

impl Piece {
    pub const fn new(color: Color, kind: Kind) -> Piece {
        Piece { color, kind }
    }

    /// FEN letter: upper case for White.
    pub fn letter(self) -> char {
        match self.color {
            Color::White => self.kind.letter(),
            Color::Black => self.kind.letter().to_ascii_lowercase(),
        }
    }

    pub fn from_letter(c: char) -> Option<Piece> {
        let kind = Kind::from_letter(c)?;
        Some(Piece::new(if c.is_ascii_uppercase() { Color::White } else { Color::Black }, kind))
    }

    #[inline(always)]
    pub(super) const fn code(self) -> u8 {
        self.color as u8 * 8 + self.kind as u8
    }

    #[inline(always)]
    pub(super) const fn from_code(c: u8) -> Piece {
        Piece { color: if c >= 8 { Color::Black } else { Color::White }, kind: Kind::from_index((c & 7) as usize) }
    }
}
