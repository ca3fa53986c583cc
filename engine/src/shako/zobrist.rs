//! Zobrist keys, generated at compile time from fixed seeds, so hashes are
//! identical across runs and machines.

/// A 64-bit mixer (the finaliser of a counter-based generator): distinct
/// inputs give well-spread, distinct outputs.
const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    z = (z ^ (z >> 33)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    z ^ (z >> 33)
}

const fn keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut i = 0;
    while i < N {
        out[i] = mix(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add((i as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03)));
        i += 1;
    }
    out
}

/// Pieces: index `(color * 8 + kind) * 100 + square`.
pub static PIECE: [u64; 2 * 8 * 100] = keys(0x5348_414B_4F01);
/// Castling-rights mask (4 bits).
pub static CASTLING: [u64; 16] = keys(0x5348_414B_4F02);
/// En-passant file.
pub static EP_FILE: [u64; 10] = keys(0x5348_414B_4F03);
pub const BLACK_TO_MOVE: u64 = keys::<1>(0x5348_414B_4F04)[0];

#[inline(always)]
pub fn piece(color: usize, kind: usize, sq: usize) -> u64 {
    PIECE[(color * 8 + kind) * 100 + sq]
}
