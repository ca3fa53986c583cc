//! Moves and their UCI notation (`a3a4`, `e9e10c`; castling as the king's
//! two-square move, `f2h2` / `f2d2`, as Fairy-Stockfish writes it).

use super::geometry::Square10;
use super::piece::Kind;
use std::fmt;

/// What a move does besides moving one piece from `from` to `to` (capturing
/// whatever stands there).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    Normal,
    /// A pawn's two-square step from its third rank.
    DoublePush,
    /// A pawn capturing the pawn that just double-stepped past `to`.
    EnPassant,
    /// The king's two-square move; the rook moves too.
    Castle,
    /// A pawn reaching its last rank becomes this piece.
    Promotion(Kind),
}

/// A move (3 bytes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    from: Square10,
    to: Square10,
    kind: MoveKind,
}

impl Move {
    #[inline(always)]
    pub const fn new(from: Square10, to: Square10, kind: MoveKind) -> Move {
        Move { from, to, kind }
    }

    #[inline(always)]
    pub const fn from(self) -> Square10 {
        self.from
    }

    #[inline(always)]
    pub const fn to(self) -> Square10 {
        self.to
    }

    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        self.kind
    }

    /// The piece a promotion creates.
    pub const fn promotion(self) -> Option<Kind> {
        match self.kind {
            MoveKind::Promotion(k) => Some(k),
            _ => None,
        }
    }
}

impl fmt::Display for Move {
    /// UCI notation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(k) = self.promotion() {
            write!(f, "{}", k.letter().to_ascii_lowercase())?;
        }
        Ok(())
    }
}

/// A UCI move that could not be read or is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UciError {
    pub input: String,
    pub message: String,
}

impl fmt::Display for UciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid move '{}': {}", self.input, self.message)
    }
}

impl std::error::Error for UciError {}

/// The parts of a UCI move string: from, to, promotion piece.
pub fn parse_uci_parts(s: &str) -> Result<(Square10, Square10, Option<Kind>), UciError> {
    let e = |message: &str| UciError { input: s.to_string(), message: message.to_string() };
    if !s.is_ascii() {
        return Err(e("not ASCII"));
    }
    // from = letter + 1-2 digits, to = letter + 1-2 digits, optional promotion letter.
    let b = s.as_bytes();
    let square_end = |start: usize| -> Result<usize, UciError> {
        let mut i = start + 1;
        while i < b.len() && b[i].is_ascii_digit() && i < start + 3 {
            i += 1;
        }
        if i == start + 1 {
            return Err(e("expected a square like e2 or j10"));
        }
        Ok(i)
    };
    if b.is_empty() {
        return Err(e("empty"));
    }
    let mid = square_end(0)?;
    let from = Square10::parse(&s[..mid]).ok_or_else(|| e("bad from-square (files a..j, ranks 1..10)"))?;
    if mid >= b.len() {
        return Err(e("missing to-square"));
    }
    let end = square_end(mid)?;
    let to = Square10::parse(&s[mid..end]).ok_or_else(|| e("bad to-square (files a..j, ranks 1..10)"))?;
    let promo = match &s[end..] {
        "" => None,
        p if p.len() == 1 && p.chars().all(|c| c.is_ascii_lowercase()) => {
            let k = Kind::from_letter(p.chars().next().unwrap()).filter(|k| Kind::PROMOTIONS.contains(k));
            Some(k.ok_or_else(|| e("promotion letter must be one of q r b n e c"))?)
        }
        _ => return Err(e("trailing characters after the to-square")),
    };
    Ok((from, to, promo))
}
