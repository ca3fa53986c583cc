//! Network input encoding: plain bit planes and scalars, from the mover's
//! perspective (ranks mirrored when Black is to move). The engine has no ML
//! dependency; the trainer expands bit planes to `f32` 8x8 planes and
//! broadcasts each scalar to a constant plane.
//!
//! Bit planes (one `u64` each, bit `i` = square `i` in the mover's frame, a1 = 0):
//!
//! | plane | content |
//! |---|---|
//! | 0–5 | mover's pieces on the board, by kind P R N B Q K (unions included) |
//! | 6–11 | opponent's pieces on the board, by kind |
//! | 12 | unions |
//! | 13–18 | mover's piece in hand, by kind, on the square it hovers over |
//! | 19–24 | opponent's piece in hand (partner of a lifted union), by kind |
//! | 25 | en-passant square |
//! | 26 | mover's rooks' squares with castling rights |
//! | 27 | opponent's rooks' squares with castling rights |
//! | 28 | pending promotion square |
//!
//! Scalars:
//!
//! | index | content |
//! |---|---|
//! | 0–4 | required action one-hot: Lift, Place, PromoteThenLift, PromoteThenPlace, PromoteThenFinish |
//! | 5 | half-moves without progress / 100 |
//! | 6 | the settled position occurred once before |
//! | 7 | the settled position occurred twice before (one more is a draw) |
//! | 8 | 1 when Black is to move (the setup is not symmetric under rank mirroring) |
//! | 9 | constant 1 (lets convolutions see the board edge) |

use super::position::{Hand, Position};
use crate::types::{Color, Square};

pub const NUM_BIT_PLANES: usize = 29;
pub const NUM_SCALARS: usize = 10;
pub const BOARD_SIZE: usize = 8;

#[inline(always)]
fn orient(bb: u64, mover: Color) -> u64 {
    match mover {
        Color::White => bb,
        Color::Black => bb.swap_bytes(),
    }
}

impl Position {
    /// Writes the encoding into `planes` (`NUM_BIT_PLANES` words) and `scalars`
    /// (`NUM_SCALARS` values). `repetitions` is how often the current settled
    /// position occurred before (from [`super::GameState::repetitions`]).
    pub fn encode(&self, repetitions: usize, planes: &mut [u64], scalars: &mut [f32]) {
        assert!(planes.len() >= NUM_BIT_PLANES && scalars.len() >= NUM_SCALARS);
        let me = self.side;
        let them = me.other();
        for k in 0..6 {
            planes[k] = orient(self.pieces[me.index()][k], me);
            planes[6 + k] = orient(self.pieces[them.index()][k], me);
        }
        planes[12] = orient(self.occ[0] & self.occ[1], me);
        planes[13..25].fill(0);
        let sq_bb = |s: Square| orient(s.bb(), me);
        match self.hand {
            Hand::Empty => {}
            Hand::Single { kind, from } => planes[13 + kind.index()] = sq_bb(from),
            Hand::Pair { kind, partner, from } => {
                planes[13 + kind.index()] = sq_bb(from);
                planes[19 + partner.index()] = sq_bb(from);
            }
        }
        planes[25] = self.ep.map_or(0, sq_bb);
        for (plane, color) in [(26, me), (27, them)] {
            let mut b = 0u64;
            for side in 0..2 {
                if self.castling.has(color, side) {
                    b |= self.castling.rook_square(color, side).bb();
                }
            }
            planes[plane] = orient(b, me);
        }
        planes[28] = self.promotion.map_or(0, sq_bb);
        scalars[..NUM_SCALARS].fill(0.0);
        scalars[self.required as usize] = 1.0;
        scalars[5] = self.no_progress as f32 / 100.0;
        scalars[6] = (repetitions >= 1) as u8 as f32;
        scalars[7] = (repetitions >= 2) as u8 as f32;
        scalars[8] = (me == Color::Black) as u8 as f32;
        scalars[9] = 1.0;
    }
}

/// Expands bit planes and scalars into a dense `[planes + scalars, 8, 8]` tensor.
pub fn decode_dense(planes: &[u64], scalars: &[f32], out: &mut [f32]) {
    let c = planes.len() + scalars.len();
    assert!(out.len() >= c * 64);
    for (p, &bb) in planes.iter().enumerate() {
        for i in 0..64 {
            out[p * 64 + i] = ((bb >> i) & 1) as f32;
        }
    }
    for (s, &v) in scalars.iter().enumerate() {
        out[(planes.len() + s) * 64..(planes.len() + s + 1) * 64].fill(v);
    }
}
