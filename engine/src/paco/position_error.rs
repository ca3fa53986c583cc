//! Why a [`super::Setup`] is not a position any game can reach.

use crate::types::{PieceKind, Square};
use std::fmt;

/// An impossible setup: the field at fault, the square where there is one, and
/// what is wrong. Displayed as `<field>: <message>`, e.g.
/// `castling: White's rook is missing from h1 for right H`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError {
    /// The part of the setup at fault, named as the FEN fields are: `board`,
    /// `lifted` (the piece in hand), `side`, `half-moves`, `castling`,
    /// `en passant`, plus `promotion` (a pending promotion) and `rules` (the
    /// optional rules' state).
    pub field: &'static str,
    /// The square at fault, where there is one.
    pub square: Option<Square>,
    pub message: String,
}

impl PositionError {
    pub(crate) fn new(field: &'static str, square: Option<Square>, message: impl Into<String>) -> PositionError {
        PositionError { field, square, message: message.into() }
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for PositionError {}

/// `pawn`, `rook`, ... (singular) or `pawns`, `rooks`, ... (plural).
pub(crate) fn kind_name(k: PieceKind, plural: bool) -> &'static str {
    match (k, plural) {
        (PieceKind::Pawn, false) => "pawn",
        (PieceKind::Rook, false) => "rook",
        (PieceKind::Knight, false) => "knight",
        (PieceKind::Bishop, false) => "bishop",
        (PieceKind::Queen, false) => "queen",
        (PieceKind::King, false) => "king",
        (PieceKind::Pawn, true) => "pawns",
        (PieceKind::Rook, true) => "rooks",
        (PieceKind::Knight, true) => "knights",
        (PieceKind::Bishop, true) => "bishops",
        (PieceKind::Queen, true) => "queens",
        (PieceKind::King, true) => "kings",
    }
}
