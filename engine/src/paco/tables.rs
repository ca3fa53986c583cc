//! Precomputed attack tables for the 8x8 board (built at compile time).

const fn step_table(steps: &[(i8, i8)]) -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let f = (sq % 8) as i8;
        let r = (sq / 8) as i8;
        let mut i = 0;
        while i < steps.len() {
            let (df, dr) = steps[i];
            let nf = f + df;
            let nr = r + dr;
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                t[sq] |= 1u64 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    t
}

pub const KNIGHT: [u64; 64] = step_table(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]);
pub const KING: [u64; 64] = step_table(&[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]);
/// The squares next to a square along a rank or a file (a rook's first steps).
pub const ORTHOGONAL_STEP: [u64; 64] = step_table(&[(1, 0), (-1, 0), (0, 1), (0, -1)]);
/// The squares diagonally next to a square (a bishop's first steps).
pub const DIAGONAL_STEP: [u64; 64] = step_table(&[(1, 1), (-1, 1), (1, -1), (-1, -1)]);
/// Squares a white pawn on a square could unite with diagonally.
pub const PAWN_DIAG_WHITE: [u64; 64] = step_table(&[(-1, 1), (1, 1)]);
pub const PAWN_DIAG_BLACK: [u64; 64] = step_table(&[(-1, -1), (1, -1)]);

/// Ray directions; the first four increase the square index, the last four decrease it.
const DIRS: [(i8, i8); 8] = [(0, 1), (1, 1), (1, 0), (-1, 1), (0, -1), (-1, -1), (-1, 0), (1, -1)];

const fn ray_table() -> [[u64; 64]; 8] {
    let mut t = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let (df, dr) = DIRS[d];
        let mut sq = 0;
        while sq < 64 {
            let mut f = (sq % 8) as i8 + df;
            let mut r = (sq / 8) as i8 + dr;
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                t[d][sq] |= 1u64 << (r * 8 + f);
                f += df;
                r += dr;
            }
            sq += 1;
        }
        d += 1;
    }
    t
}

/// RAYS[dir][sq]: the squares from `sq` (exclusive) to the edge in direction `dir`.
pub const RAYS: [[u64; 64]; 8] = ray_table();

// Direction indices: N=0 NE=1 E=2 NW=3 (index increases) and S=4 SW=5 W=6 SE=7 (index decreases).
#[inline(always)]
fn ray_pos(dir: usize, sq: usize, occ: u64) -> u64 {
    let ray = RAYS[dir][sq];
    let blockers = ray & occ;
    if blockers == 0 {
        ray
    } else {
        let b = blockers.trailing_zeros() as usize;
        ray ^ RAYS[dir][b]
    }
}

#[inline(always)]
fn ray_neg(dir: usize, sq: usize, occ: u64) -> u64 {
    let ray = RAYS[dir][sq];
    let blockers = ray & occ;
    if blockers == 0 {
        ray
    } else {
        let b = 63 - blockers.leading_zeros() as usize;
        ray ^ RAYS[dir][b]
    }
}

pub const FILE_A: u64 = 0x0101_0101_0101_0101;
pub const FILE_H: u64 = FILE_A << 7;

// Whole-board neighbour sets: which squares have a neighbour (in the given
// directions) inside `m`. They answer "does any slider of this set have a
// square to go to" for all sliders at once, without a per-piece
// attack lookup; the file masks drop the squares a shift wrapped around the
// board's edge.

/// Squares with an orthogonally adjacent square in `m`.
#[inline(always)]
pub fn next_to_orthogonally(m: u64) -> u64 {
    (m >> 8) | (m << 8) | ((m >> 1) & !FILE_H) | ((m << 1) & !FILE_A)
}

/// Squares with a diagonally adjacent square in `m`.
#[inline(always)]
pub fn next_to_diagonally(m: u64) -> u64 {
    ((m >> 9) & !FILE_H) | ((m >> 7) & !FILE_A) | ((m << 7) & !FILE_H) | ((m << 9) & !FILE_A)
}

/// Rook moves from `sq` with `occ` blocking: every empty square up to and
/// including the first occupied square in each direction.
#[inline(always)]
pub fn rook_attacks(sq: usize, occ: u64) -> u64 {
    ray_pos(0, sq, occ) | ray_pos(2, sq, occ) | ray_neg(4, sq, occ) | ray_neg(6, sq, occ)
}

#[inline(always)]
pub fn bishop_attacks(sq: usize, occ: u64) -> u64 {
    ray_pos(1, sq, occ) | ray_pos(3, sq, occ) | ray_neg(5, sq, occ) | ray_neg(7, sq, occ)
}

#[inline(always)]
pub fn queen_attacks(sq: usize, occ: u64) -> u64 {
    rook_attacks(sq, occ) | bishop_attacks(sq, occ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knight_and_king_counts() {
        assert_eq!(KNIGHT[0].count_ones(), 2);
        assert_eq!(KNIGHT[27].count_ones(), 8);
        assert_eq!(KING[0].count_ones(), 3);
        assert_eq!(KING[27].count_ones(), 8);
    }

    #[test]
    fn sliders_stop_at_first_blocker() {
        // Rook on a1, blocker on a3 and c1.
        let occ = (1u64 << 16) | (1u64 << 2);
        let a = rook_attacks(0, occ);
        assert_eq!(a, (1 << 8) | (1 << 16) | (1 << 1) | (1 << 2));
        // Empty board: a bishop on d4 sees 13 squares, a queen 27.
        assert_eq!(bishop_attacks(27, 0).count_ones(), 13);
        assert_eq!(queen_attacks(27, 0).count_ones(), 27);
    }

    #[test]
    fn neighbour_sets_agree_with_the_step_tables() {
        // For every square and every set of one or two squares: s is next to
        // m exactly when m holds a square the step table reaches from s. (Two
        // squares: s can be next to both, from two directions, which a union
        // of the shifts counts once and a symmetric difference would drop.)
        let (ortho, diag) = (ORTHOGONAL_STEP, DIAGONAL_STEP);
        for s in 0..64 {
            let bit = |set: u64| set & (1u64 << s) != 0;
            for t in 0..64 {
                for u in t..64 {
                    let m = (1u64 << t) | (1u64 << u);
                    assert_eq!(bit(next_to_orthogonally(m)), ortho[s] & m != 0, "orthogonal {s} {t} {u}");
                    assert_eq!(bit(next_to_diagonally(m)), diag[s] & m != 0, "diagonal {s} {t} {u}");
                }
            }
        }
    }
}
