//! Zobrist keys, generated at compile time from a fixed seed (splitmix64), so
//! hashes are identical across runs and machines.

/// One step of splitmix64: the next state and its output.
pub(super) const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (s, v) = splitmix(state);
        state = s;
        out[i] = v;
        i += 1;
    }
    out
}

/// Pieces on the board: index `(color * 6 + kind) * 64 + square`.
pub const PIECE: [u64; 2 * 6 * 64] = keys(0x5041_434F_0001);
/// The lifted piece of the mover above its square: `kind * 64 + square`.
pub const HAND_OWN: [u64; 6 * 64] = keys(0x5041_434F_0002);
/// The opponent's partner lifted together with it: `kind * 64 + square`.
pub const HAND_PARTNER: [u64; 6 * 64] = keys(0x5041_434F_0003);
/// En passant square.
pub const EP: [u64; 64] = keys(0x5041_434F_0004);
/// Pending promotion square.
pub const PROMOTION: [u64; 64] = keys(0x5041_434F_0005);
/// Castling-rights mask (4 bits).
pub const CASTLING: [u64; 16] = keys(0x5041_434F_0006);
/// Required action (index 0, Lift, hashes to zero).
pub const REQUIRED: [u64; 5] = {
    let mut k: [u64; 5] = keys(0x5041_434F_0007);
    k[0] = 0;
    k
};
/// Optional-rule state: double steps used per colour and file; last union move squares.
pub const DOUBLE_STEP: [u64; 16] = keys(0x5041_434F_0008);
pub const LAST_PAIR_FROM: [u64; 64] = keys(0x5041_434F_0009);
pub const LAST_PAIR_TO: [u64; 64] = keys(0x5041_434F_000A);
pub const BLACK_TO_MOVE: u64 = keys::<1>(0x5041_434F_000B)[0];
pub const KING_CHAIN: u64 = keys::<1>(0x5041_434F_000C)[0];
/// Full-move enumeration's key of a result that ended in a king-chain draw
/// (vchess rule): the same board can also be a win, reached by a chain the
/// king did not start, and the two are different full moves. Not part of
/// any position's hash (the status is not hashed).
pub const KING_CHAIN_DRAW: u64 = keys::<1>(0x5041_434F_000E)[0];
/// Full-move counting's group keys: a result hash without its last placed
/// piece, salted with that piece's kind (not part of any position's hash).
pub const GROUP_SALT: [u64; 6] = keys(0x5041_434F_000D);

#[inline(always)]
pub fn piece(color: usize, kind: usize, sq: usize) -> u64 {
    PIECE[(color * 6 + kind) * 64 + sq]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paco::{Action, Position, Rules, STARTPOS_FEN};
    use crate::Square;

    /// The keys are splitmix64's outputs as published (Vigna's reference
    /// code): from seed 0, its first three.
    #[test]
    fn splitmix_is_the_published_splitmix64() {
        assert_eq!(keys::<3>(0), [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F]);
    }

    /// Books store positions by this hash (`data/src/book.rs`: `hash`,
    /// `move_children`) and look them up by it, so a book written by one
    /// build must hash alike in the next: a change to a key, to the mixer or
    /// to what a position hashes breaks every book on disk. A change that
    /// alters these values must raise the books' `book_version` with them.
    #[test]
    fn position_hashes_stay_what_books_store() {
        let sq = |s: &str| Square::parse(s).unwrap();
        let all = Rules { no_union_undo: true, one_double_step_per_file: true, king_chain_draw: true };
        let start = Position::startpos();
        let mut optional = Position::from_fen(STARTPOS_FEN, all).unwrap();
        let optional_start = optional.hash();
        optional.play(Action::Lift(sq("e2"))).unwrap();
        optional.play(Action::Place(sq("e4"))).unwrap();
        let after_e4 = optional.hash();
        // The optional rules themselves are not hashed; the double step they
        // record is.
        assert_eq!([start.hash(), optional_start, after_e4], [0xA23B_1440_1195_F877, 0xA23B_1440_1195_F877, 0x59F0_F9F8_691A_E9A1]);
    }
}
