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
//! | 29 | squares the mover could still dance onto this turn, directly or at the end of a chain (its own lone pieces' squares excluded) |
//! | 30 | squares the opponent could dance onto in its next turn if the board stayed as it is (same exclusion) |
//!
//! Planes 29–30 are the engine's threat search ([`super::reach_for_both_sides`]):
//! a Ŝako (the mover's king on plane 30) or a two-turn attack is a chain
//! several pieces deep, which a small network would need many games to learn
//! to see; with the planes it reads them off the board. The search already
//! treats "the mover can unite with the king this turn" as a win, so a
//! network only sees positions where plane 29 misses the opponent's king.
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

use super::{Hand, Position};
use crate::types::{Color, PieceKind, Square};

pub const NUM_BIT_PLANES: usize = 31;
pub const NUM_SCALARS: usize = 10;
pub const BOARD_SIZE: usize = 8;

/// The encoding [`Position::encode`] writes: the tables above, by name.
pub const ENCODING: crate::game::Encoding = crate::game::Encoding {
    name: crate::game::DEFAULT_ENCODING,
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
        "unions",
        "mover_hand_pawn",
        "mover_hand_rook",
        "mover_hand_knight",
        "mover_hand_bishop",
        "mover_hand_queen",
        "mover_hand_king",
        "opponent_hand_pawn",
        "opponent_hand_rook",
        "opponent_hand_knight",
        "opponent_hand_bishop",
        "opponent_hand_queen",
        "opponent_hand_king",
        "en_passant",
        "mover_castling_rooks",
        "opponent_castling_rooks",
        "promotion_square",
        "mover_reach",
        "opponent_reach",
    ],
    scalars: &[
        "required_lift",
        "required_place",
        "required_promote_then_lift",
        "required_promote_then_place",
        "required_promote_then_finish",
        "no_progress_half_moves_per_100",
        "repeated_once",
        "repeated_twice",
        "black_to_move",
        "constant_one",
    ],
};

/// The policy's action indices in words (see the `action` module).
pub const ACTION_LAYOUT: &str = "132 slots in the mover's frame (square a1 = 0, b1 = 1 ... h8 = 63, ranks mirrored when Black is to move): \
     0-63 lift the piece or union on the square, 64-127 place the piece in hand on square (index - 64), \
     128-131 promote to rook, knight, bishop, queen";

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
            planes[k] = orient(self.bb(me.index(), PieceKind::from_index(k)), me);
            planes[6 + k] = orient(self.bb(them.index(), PieceKind::from_index(k)), me);
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
        let (mine, theirs) = super::reach_for_both_sides(self);
        planes[29] = orient(mine, me);
        planes[30] = orient(theirs, me);
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

#[cfg(test)]
mod tests {
    use super::super::{in_sako, parse_actions};
    use super::*;

    /// The planes and scalars of `p` after `repetitions` earlier occurrences.
    fn encoded_with(p: &Position, repetitions: usize) -> (Vec<u64>, Vec<f32>) {
        let mut planes = vec![0u64; NUM_BIT_PLANES];
        let mut scalars = vec![0f32; NUM_SCALARS];
        p.encode(repetitions, &mut planes, &mut scalars);
        (planes, scalars)
    }

    fn encoded(p: &Position) -> Vec<u64> {
        encoded_with(p, 0).0
    }

    fn after(actions: &str) -> Position {
        let mut p = Position::startpos();
        for a in parse_actions(actions).unwrap() {
            p.play(a).unwrap();
        }
        p
    }

    const RANK_3: u64 = 0xff << 16;
    const RANK_4: u64 = 0xff << 24;

    #[test]
    fn threat_planes_of_the_symmetric_start() {
        let planes = encoded(&Position::startpos());
        // Pawn diagonals and knight jumps cover the third rank; nothing reaches the fourth.
        assert_eq!(planes[29] & RANK_3, RANK_3);
        assert_eq!(planes[29] & RANK_4, 0);
        // The opponent's threats are the mirror image (the board is symmetric; the planes are in the mover's frame).
        assert_eq!(planes[30], planes[29].swap_bytes());
        // Nobody dances onto its own piece.
        let own: u64 = planes[..6].iter().fold(0, |a, b| a | b);
        let theirs: u64 = planes[6..12].iter().fold(0, |a, b| a | b);
        assert_eq!(planes[29] & own, 0);
        assert_eq!(planes[30] & theirs, 0);
    }

    #[test]
    fn a_threatened_king_lies_on_the_opponents_threat_plane() {
        // 1. e4 f6 2. Qh5: the queen reaches e8 through g6 and f7.
        let p = after("Le2 Pe4 Lf7 Pf6 Ld1 Ph5");
        assert!(in_sako(&p, Color::Black));
        let planes = encoded(&p);
        // Black to move: its king (plane 5) is on plane 30, and not on its own plane 29.
        assert_ne!(planes[5] & planes[30], 0);
        assert_eq!(planes[5] & planes[29], 0);
        // Before 2. Qh5 the black king was safe.
        let before = after("Le2 Pe4 Lf7 Pf6");
        assert!(!in_sako(&before, Color::Black));
        let planes = encoded(&before);
        assert_eq!(planes[5] & planes[30], 0);
    }

    #[test]
    fn a_lifted_union_puts_each_partner_on_its_kinds_hand_plane() {
        // 1. Nc3 d5 2. Nxd5: a union of the white knight and the black pawn on d5.
        let union = "Lb1 Pc3 Ld7 Pd5 Lc3 Pd5";
        let hand_planes = |p: &Position| encoded(p)[13..25].to_vec();
        let on = |planes: &[(usize, u64)]| {
            let mut want = vec![0u64; 12];
            for &(plane, bb) in planes {
                want[plane - 13] = bb;
            }
            want
        };
        // White lifts it (after 2... a6): the knight is the mover's piece in hand, the pawn the opponent's.
        let d5 = 1u64 << 35;
        assert_eq!(hand_planes(&after(&format!("{union} La7 Pa6 Ld5"))), on(&[(13 + 2, d5), (19, d5)]));
        // Black lifts it at once: its pawn in hand, the knight the partner; in Black's frame d5 is d4.
        let d4 = 1u64 << 27;
        assert_eq!(hand_planes(&after(&format!("{union} Ld5"))), on(&[(13, d4), (19 + 2, d4)]));
        // A lone piece in hand: only its kind's plane.
        assert_eq!(hand_planes(&after("Lb1")), on(&[(13 + 2, 1 << 1)]));
    }

    /// The union plane, and the scalars of the no-progress count, the
    /// repetitions and the mover's colour.
    #[test]
    fn unions_repetitions_and_the_movers_colour_are_encoded() {
        // 1. Nc3 d5 2. Nxd5 Nf6 3. Nf3: a union on d5, Black to move, no pawn moved since the union.
        let p = after("Lb1 Pc3 Ld7 Pd5 Lc3 Pd5 Lg8 Pf6 Lg1 Pf3");
        assert!(p.no_progress > 0);
        for repetitions in 0..3 {
            let (planes, scalars) = encoded_with(&p, repetitions);
            // d5 in Black's frame is d4; no other square holds two pieces.
            assert_eq!(planes[12], 1 << 27);
            assert_eq!(scalars[5], p.no_progress as f32 / 100.0);
            assert_eq!((scalars[6], scalars[7]), ((repetitions >= 1) as u8 as f32, (repetitions >= 2) as u8 as f32));
            assert_eq!(scalars[8], 1.0, "Black to move");
        }
        assert_eq!(encoded_with(&Position::startpos(), 0).1[8], 0.0, "White to move");
    }

    #[test]
    fn dense_planes_hold_each_bit_on_its_square_and_each_scalar_everywhere() {
        let planes = [1u64 << 5 | 1 << 63, 1 << 8];
        let scalars = [0.25f32];
        let mut out = vec![-1f32; 3 * 64];
        decode_dense(&planes, &scalars, &mut out);
        let ones: Vec<usize> = (0..128).filter(|&i| out[i] == 1.0).collect();
        assert_eq!(ones, [5, 63, 64 + 8]);
        assert!((0..128).all(|i| out[i] == 0.0 || out[i] == 1.0));
        assert!(out[128..].iter().all(|&v| v == 0.25));
        // More scalars than planes.
        let mut out = vec![-1f32; 3 * 64];
        decode_dense(&planes[..1], &[0.5, 0.75], &mut out);
        assert!(out[64..128].iter().all(|&v| v == 0.5) && out[128..].iter().all(|&v| v == 0.75));
        // A buffer of exactly planes + scalars channels is enough (2 + 3 = 5, where the size check's + as * asked for 6).
        let mut out = vec![-1f32; 5 * 64];
        decode_dense(&planes, &[0.5, 0.75, 1.0], &mut out);
        assert_eq!(out[64 + 8], 1.0);
        assert!(out[128..192].iter().all(|&v| v == 0.5) && out[256..].iter().all(|&v| v == 1.0));
    }

    #[test]
    fn mid_turn_the_movers_plane_is_the_piece_in_hand() {
        // White lifts its queen after 1. e4 f6: it alone threatens, through the opened diagonal to h5.
        let p = after("Le2 Pe4 Lf7 Pf6 Ld1");
        let planes = encoded(&p);
        let h5 = 1u64 << 39;
        assert_ne!(planes[29] & h5, 0);
        // No other white piece may move this turn: the third rank's pawn diagonals are gone.
        let a3 = 1u64 << 16;
        assert_eq!(planes[29] & a3, 0);
    }
}
