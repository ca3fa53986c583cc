//! The file mirror (a ↔ h) of a position, for data augmentation: the rules
//! are symmetric under it except castling (the king's and rooks' squares and
//! the sides), so only positions without castling rights are mirrored.
//! Decisions map square by square ([`mirror_action`]); a promotion stays.

use super::{Action, Hand, Position, Setup};
use crate::types::{Color, Square};

/// A bitboard with every square moved to its mirrored file.
pub(crate) fn flip_files(bb: u64) -> u64 {
    // Reverse the bits of each byte (rank).
    let mut x = bb;
    x = ((x >> 1) & 0x5555_5555_5555_5555) | ((x & 0x5555_5555_5555_5555) << 1);
    x = ((x >> 2) & 0x3333_3333_3333_3333) | ((x & 0x3333_3333_3333_3333) << 2);
    ((x >> 4) & 0x0F0F_0F0F_0F0F_0F0F) | ((x & 0x0F0F_0F0F_0F0F_0F0F) << 4)
}

/// Bit planes of the castling rights in the encoding ([`super::NUM_BIT_PLANES`] table).
const CASTLING_PLANES: [usize; 2] = [26, 27];

/// The encoding of the mirrored position made from a position's encoding
/// (what training augments with): every bit plane file-mirrored in place,
/// the scalars unchanged. Returns `false`, leaving `planes` as they were,
/// when a castling plane is set (such positions are not mirrored).
pub fn mirror_encoded_planes(planes: &mut [u64]) -> bool {
    if CASTLING_PLANES.iter().any(|&p| planes[p] != 0) {
        return false;
    }
    for p in planes.iter_mut().take(super::NUM_BIT_PLANES) {
        *p = flip_files(*p);
    }
    true
}

/// The policy index of the mirrored decision (lifts and places move to the
/// mirrored square, promotions stay); the same in either mover's frame.
pub fn mirror_action_index(i: usize) -> usize {
    if i < 128 {
        i ^ 7
    } else {
        i
    }
}

/// A decision with its squares mirrored (a promotion is unchanged).
pub fn mirror_action(a: Action) -> Action {
    match a {
        Action::Lift(s) => Action::Lift(s.flip_file()),
        Action::Place(s) => Action::Place(s.flip_file()),
        Action::Promote(k) => Action::Promote(k),
    }
}

impl Position {
    /// The file mirror of this position (a ↔ h), or `None` when a castling
    /// right makes the mirror unsound (castling is not symmetric).
    pub fn mirrored_files(&self) -> Option<Position> {
        let s = self.to_setup();
        let any_right = [Color::White, Color::Black].into_iter().any(|c| (0..2).any(|side| s.castling.has(c, side)));
        if any_right {
            return None;
        }
        let flip = |q: Square| q.flip_file();
        let m = Setup {
            pieces: s.pieces.map(|side| side.map(flip_files)),
            hand: match s.hand {
                Hand::Empty => Hand::Empty,
                Hand::Single { kind, from } => Hand::Single { kind, from: flip(from) },
                Hand::Pair { kind, partner, from } => Hand::Pair { kind, partner, from: flip(from) },
            },
            promotion: s.promotion.map(flip),
            en_passant: s.en_passant.map(flip),
            double_steps: s.double_steps.map(u8::reverse_bits),
            last_pair_move: s.last_pair_move.map(|(a, b)| (flip(a), flip(b))),
            ..s
        };
        Some(Position::from_setup(&m, self.rules()).expect("the mirror of a valid position without castling rights is valid"))
    }
}
