//! What the mover holds above the board in the middle of a turn.

use crate::types::{PieceKind, Square};

/// What the mover holds above the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Hand {
    Empty,
    /// One of the mover's pieces, lifted from (or released on) `from`.
    Single {
        kind: PieceKind,
        from: Square,
    },
    /// A whole union: the mover's piece and the opponent's partner.
    Pair {
        kind: PieceKind,
        partner: PieceKind,
        from: Square,
    },
}

impl Hand {
    pub fn from(self) -> Option<Square> {
        match self {
            Hand::Empty => None,
            Hand::Single { from, .. } | Hand::Pair { from, .. } => Some(from),
        }
    }
}
