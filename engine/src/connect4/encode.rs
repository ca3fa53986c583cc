//! The network's view of Connect Four: the policy index of each move and
//! the input planes. The rules treat both sides alike, so both are in the
//! mover's frame without any mirroring: "mover" and "opponent" replace the
//! colours, and one scalar says whether the mover is the first player
//! (which decides whose threats count on odd and on even rows).
//!
//! # Policy: 7 slots
//!
//! Slot `c` drops a stone in column `c` (a = 0 … g = 6). A convolutional
//! policy head ([`policy_planes`]) writes one plane and reads slot `c` at
//! the bottom cell of column `c`.
//!
//! # Input: 5 bit planes, 3 scalars
//!
//! Each plane is 42 bits in one `u64` word: cell `i = row * 7 + column`
//! (a1 = 0, g6 = 41) is bit `i`.
//!
//! | plane | content |
//! |---|---|
//! | 0 | the mover's stones |
//! | 1 | the opponent's stones |
//! | 2 | the cells a stone dropped now lands on (one a column with room) |
//! | 3 | empty cells where a mover's stone would complete four (playable now or not) |
//! | 4 | the same for the opponent |
//!
//! | scalar | content |
//! |---|---|
//! | 0 | stones on the board / 42 |
//! | 1 | 1 when the mover is the first player |
//! | 2 | constant 1 (lets convolutions see the board edge) |

use super::board::{cell, Board, CELLS, HEIGHT, WIDTH};
use crate::game::{Encoding, PolicyPlanes, DEFAULT_ENCODING};

/// Policy slots: one a column.
pub const NUM_ACTIONS: usize = WIDTH;
/// Bit planes of the encoding.
pub const NUM_BIT_PLANES: usize = 5;
/// Scalars of the encoding.
pub const NUM_SCALARS: usize = 3;

/// The encoding, named as the table above.
pub const ENCODING: Encoding = Encoding {
    name: DEFAULT_ENCODING,
    version: 1,
    bit_planes: &["mover_stones", "opponent_stones", "landing_cells", "mover_wins_at", "opponent_wins_at"],
    scalars: &["stones_played", "mover_moved_first", "constant_one"],
};

/// What each policy slot is, for files that describe their network.
pub const ACTION_LAYOUT: &str = "slot c drops a stone in column c (a = 0 ... g = 6); the same for both sides";

/// The cells of a board bitboard as an encoding plane (`row * 7 + column`).
fn plane_of(bits: u64) -> u64 {
    let mut out = 0;
    for c in 0..WIDTH {
        for r in 0..HEIGHT {
            if bits & cell(c, r) != 0 {
                out |= 1 << (r * WIDTH + c);
            }
        }
    }
    out
}

/// Writes the input of `board` (see the tables above).
pub fn encode(board: &Board, planes: &mut [u64], scalars: &mut [f32]) {
    planes[0] = plane_of(board.mover);
    planes[1] = plane_of(board.opponent());
    planes[2] = plane_of(board.landing_cells());
    planes[3] = plane_of(board.winning_cells_of(board.mover));
    planes[4] = plane_of(board.winning_cells_of(board.opponent()));
    let stones = board.stones();
    scalars[0] = stones as f32 / CELLS as f32;
    scalars[1] = if stones.is_multiple_of(2) { 1.0 } else { 0.0 };
    scalars[2] = 1.0;
}

/// Mirrors encoded planes left to right (a ↔ g) in place.
pub fn mirror_planes(planes: &mut [u64]) {
    for p in planes.iter_mut() {
        let mut out = 0;
        for i in 0..CELLS {
            if *p >> i & 1 == 1 {
                let (r, c) = (i / WIDTH, i % WIDTH);
                out |= 1 << (r * WIDTH + WIDTH - 1 - c);
            }
        }
        *p = out;
    }
}

/// One plane; slot `c` at the bottom cell of column `c`.
pub fn policy_planes() -> PolicyPlanes {
    PolicyPlanes { planes: 1, slots: (0..WIDTH as u16).map(|c| (0, Some(c))).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_hold_the_stones_by_side_and_the_cells_that_matter() {
        let mut b = Board::default();
        for c in [3, 3, 4, 4, 5] {
            b.play(c);
        }
        // Second player to move; the first has d1 e1 f1, the second d2 e2.
        let (mut planes, mut scalars) = ([0u64; NUM_BIT_PLANES], [0f32; NUM_SCALARS]);
        encode(&b, &mut planes, &mut scalars);
        let sq = |c: usize, r: usize| 1u64 << (r * WIDTH + c);
        assert_eq!(planes[0], sq(3, 1) | sq(4, 1));
        assert_eq!(planes[1], sq(3, 0) | sq(4, 0) | sq(5, 0));
        assert_eq!(planes[2], sq(0, 0) | sq(1, 0) | sq(2, 0) | sq(3, 2) | sq(4, 2) | sq(5, 1) | sq(6, 0));
        assert_eq!(planes[3], 0, "two in a row threaten nothing");
        assert_eq!(planes[4], sq(2, 0) | sq(6, 0), "c1 and g1 complete d1-e1-f1");
        assert_eq!(scalars, [5.0 / 42.0, 0.0, 1.0]);
        let before = planes;
        mirror_planes(&mut planes);
        assert_eq!(planes[4], sq(4, 0) | sq(0, 0));
        mirror_planes(&mut planes);
        assert_eq!(planes, before);
    }
}
