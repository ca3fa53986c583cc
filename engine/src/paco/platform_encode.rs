//! The platform's network input (encoding `platform`): exactly the 30
//! planes the game's platform feeds its own bot, so that a network trained
//! on it runs on the platform in place of that bot. Everything is seen from
//! the mover: for Black the board is flipped vertically (rank `r` → `7 - r`,
//! the file kept), as in the `pacozero` encoding and the action indices.
//!
//! | plane | content |
//! |---|---|
//! | 0–5 | the mover's settled pieces (on the board, unions included): pawn, rook, knight, bishop, queen, king |
//! | 6–11 | the opponent's settled pieces, same order |
//! | 12–17 | the mover's lifted piece, on the square it was lifted from |
//! | 18–23 | the opponent's lifted piece (the partner of a lifted union) |
//! | 24 | the en-passant square |
//! | 25–28 | castling rights, each plane all ones or all zeros: the mover's queen side, the mover's king side, the opponent's queen side, the opponent's king side |
//! | 29 | half-moves without progress / 100, on every square (the one scalar) |
//!
//! Planes 0–28 are bit planes (bit `i` = square `i` of the mover's frame,
//! a1 = 0), plane 29 is the scalar broadcast: decoded as the networks read
//! their input (bit planes, then scalars) the tensor is the platform's
//! `[30, 8, 8]`, planes × rank × file. The platform's input has nothing
//! more: not the required action, a pending promotion, repetitions nor
//! the side to move.

use super::{Hand, Position};
use crate::game::Encoding;
use crate::types::{Color, PieceKind, Square};

/// Bit planes of the platform encoding (planes 0–28).
pub const PLATFORM_BIT_PLANES: usize = 29;
/// Scalars of the platform encoding (plane 29).
pub const PLATFORM_SCALARS: usize = 1;
/// The castling planes (all ones or all zeros).
const CASTLING_PLANES: std::ops::Range<usize> = 25..29;

/// The platform encoding, by name.
pub const PLATFORM_ENCODING: Encoding = Encoding {
    name: "platform",
    version: 1,
    bit_planes: &[
        "mover_pawns",
        "mover_rooks",
        "mover_knights",
        "mover_bishops",
        "mover_queens",
        "mover_king",
        "opponent_pawns",
        "opponent_rooks",
        "opponent_knights",
        "opponent_bishops",
        "opponent_queens",
        "opponent_king",
        "mover_lifted_pawn",
        "mover_lifted_rook",
        "mover_lifted_knight",
        "mover_lifted_bishop",
        "mover_lifted_queen",
        "mover_lifted_king",
        "opponent_lifted_pawn",
        "opponent_lifted_rook",
        "opponent_lifted_knight",
        "opponent_lifted_bishop",
        "opponent_lifted_queen",
        "opponent_lifted_king",
        "en_passant",
        "mover_queen_side_castling",
        "mover_king_side_castling",
        "opponent_queen_side_castling",
        "opponent_king_side_castling",
    ],
    scalars: &["no_progress_half_moves_per_100"],
};

/// A bitboard in the mover's frame.
fn oriented(bb: u64, mover: Color) -> u64 {
    match mover {
        Color::White => bb,
        Color::Black => bb.swap_bytes(),
    }
}

impl Position {
    /// Writes the platform encoding (module docs) into `planes`
    /// ([`PLATFORM_BIT_PLANES`] words) and `scalars` ([`PLATFORM_SCALARS`]).
    pub fn encode_platform(&self, planes: &mut [u64], scalars: &mut [f32]) {
        assert!(planes.len() >= PLATFORM_BIT_PLANES && scalars.len() >= PLATFORM_SCALARS);
        let me = self.side;
        let them = me.other();
        for k in 0..6 {
            planes[k] = oriented(self.bb(me.index(), PieceKind::from_index(k)), me);
            planes[6 + k] = oriented(self.bb(them.index(), PieceKind::from_index(k)), me);
        }
        planes[12..24].fill(0);
        let square = |s: Square| oriented(s.bb(), me);
        match self.hand {
            Hand::Empty => {}
            Hand::Single { kind, from } => planes[12 + kind.index()] = square(from),
            Hand::Pair { kind, partner, from } => {
                planes[12 + kind.index()] = square(from);
                planes[18 + partner.index()] = square(from);
            }
        }
        planes[24] = self.ep.map_or(0, square);
        // Side 0 is the queen side (the rook on a lower file than the king).
        for (i, (color, side)) in [(me, 0), (me, 1), (them, 0), (them, 1)].into_iter().enumerate() {
            planes[CASTLING_PLANES.start + i] = if self.castling.has(color, side) { u64::MAX } else { 0 };
        }
        scalars[0] = self.no_progress as f32 / 100.0;
    }
}

/// The file mirror (a ↔ h) of platform planes, as
/// [`super::mirror_encoded_planes`] for the `pacozero` encoding: every bit
/// plane file-mirrored in place, `false` (planes untouched) when a castling
/// right is held.
pub fn mirror_platform_planes(planes: &mut [u64]) -> bool {
    if planes[CASTLING_PLANES].iter().any(|&p| p != 0) {
        return false;
    }
    for p in planes.iter_mut().take(PLATFORM_BIT_PLANES) {
        *p = super::mirror::flip_files(*p);
    }
    true
}
