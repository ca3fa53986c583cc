//! The 10x10 board: squares, 100-bit bitboards in a `u128`, and the attack
//! tables, all built at compile time.
//!
//! Square `i = rank * 10 + file` (a1 = 0, j1 = 9, a10 = 90, j10 = 99), the same
//! rank-major order as the network's bit planes. Bits 100..128 are always zero.
//!
//! Sliding attacks use precomputed rays: along a ray the first blocker is the
//! lowest set bit of `ray & occupied` for the four "increasing" directions and
//! the highest for the four others, so no magic numbers are needed. A cannon's
//! capture target is simply the first blocker beyond the first blocker.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// Files and ranks on the board.
pub const SIZE: u8 = 10;
/// Number of squares.
pub const NUM_SQUARES: usize = 100;

/// A square of the 10x10 board: a1 = 0, b1 = 1, ..., j10 = 99.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square10(u8);

impl Square10 {
    /// Builds a square from its index; panics if `i >= 100`.
    #[inline(always)]
    pub const fn new(i: u8) -> Square10 {
        assert!(i < 100);
        Square10(i)
    }

    /// Panics if `file` or `rank` is outside `0..10`.
    #[inline(always)]
    pub const fn from_file_rank(file: u8, rank: u8) -> Square10 {
        assert!(file < SIZE && rank < SIZE);
        Square10(rank * SIZE + file)
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 % SIZE
    }

    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 / SIZE
    }

    #[inline(always)]
    pub const fn bb(self) -> Bb128 {
        Bb128(1u128 << self.0)
    }

    /// The same square seen from the other side (rank mirrored).
    #[inline(always)]
    pub const fn flip_rank(self) -> Square10 {
        Square10((SIZE - 1 - self.rank()) * SIZE + self.file())
    }

    /// Moves by (file, rank) offsets, `None` when leaving the board.
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square10> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f >= 0 && f < SIZE as i8 && r >= 0 && r < SIZE as i8 {
            Some(Square10::from_file_rank(f as u8, r as u8))
        } else {
            None
        }
    }

    /// Parses `a1` ... `j10` (no leading zeros).
    pub fn parse(s: &str) -> Option<Square10> {
        let b = s.as_bytes();
        let file = b.first()?.wrapping_sub(b'a');
        // The file letter first: only then is byte 1 a character boundary
        // (the fuzzer found a field starting with a two-byte character).
        if file >= SIZE {
            return None;
        }
        // Digits only (`u8`'s parser takes a `+` sign too), no leading zero;
        // no digits, or too many, fail the parse or the range below.
        let digits = &s[1..];
        if digits.starts_with('0') || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let rank: u8 = digits.parse().ok()?;
        (1..=SIZE).contains(&rank).then(|| Square10::from_file_rank(file, rank - 1))
    }

    pub fn all() -> impl Iterator<Item = Square10> {
        (0..100).map(Square10)
    }
}

impl fmt::Display for Square10 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

/// A set of squares of the 10x10 board (bit `i` = square `i`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Bb128(pub u128);

impl Bb128 {
    pub const EMPTY: Bb128 = Bb128(0);
    /// All 100 squares.
    pub const ALL: Bb128 = Bb128((1u128 << 100) - 1);

    /// The squares of one rank (0-based).
    pub const fn rank(r: u8) -> Bb128 {
        Bb128(0x3FF << (r as u32 * 10))
    }

    /// The squares of one file (0-based).
    pub const fn file(f: u8) -> Bb128 {
        let mut b = 0u128;
        let mut r = 0;
        while r < SIZE {
            b |= 1u128 << (r * SIZE + f);
            r += 1;
        }
        Bb128(b)
    }

    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn contains(self, sq: Square10) -> bool {
        self.0 & (1u128 << sq.0) != 0
    }

    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The lowest square, if any.
    #[inline(always)]
    pub const fn first(self) -> Option<Square10> {
        if self.0 == 0 {
            None
        } else {
            Some(Square10(self.0.trailing_zeros() as u8))
        }
    }

    /// The square of a set known to hold exactly one square (the lowest one otherwise).
    #[inline(always)]
    pub const fn lowest_unchecked(self) -> Square10 {
        Square10(self.0.trailing_zeros() as u8)
    }

    /// The same set seen from the other side (ranks mirrored).
    pub const fn flip_ranks(self) -> Bb128 {
        let mut out = 0u128;
        let mut r = 0;
        while r < SIZE as u32 {
            out |= ((self.0 >> (r * 10)) & 0x3FF) << ((9 - r) * 10);
            r += 1;
        }
        Bb128(out)
    }

    /// The two 64-bit words of the network's bit-plane layout (low word first).
    pub const fn words(self) -> [u64; 2] {
        [self.0 as u64, (self.0 >> 64) as u64]
    }
}

macro_rules! bb_op {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bb128 {
            type Output = Bb128;
            #[inline(always)]
            fn $f(self, o: Bb128) -> Bb128 {
                Bb128(self.0 $op o.0)
            }
        }
        impl $tra for Bb128 {
            #[inline(always)]
            fn $fa(&mut self, o: Bb128) {
                self.0 = self.0 $op o.0;
            }
        }
    };
}
bb_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bb_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bb_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bb128 {
    type Output = Bb128;
    /// The complement within the 100 squares.
    #[inline(always)]
    fn not(self) -> Bb128 {
        Bb128(!self.0 & Bb128::ALL.0)
    }
}

impl Iterator for Bb128 {
    type Item = Square10;
    #[inline(always)]
    fn next(&mut self) -> Option<Square10> {
        let sq = self.first()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bb128 {}

impl FromIterator<Square10> for Bb128 {
    fn from_iter<I: IntoIterator<Item = Square10>>(iter: I) -> Self {
        iter.into_iter().fold(Bb128::EMPTY, |b, s| b | s.bb())
    }
}

// ---------------------------------------------------------------------------
// Attack tables.

/// Ray directions as (file, rank) steps. The first four increase the square
/// index (first blocker = lowest bit), the last four decrease it (highest bit).
const DIRECTIONS: [(i8, i8); 8] = [(0, 1), (1, 0), (1, 1), (-1, 1), (0, -1), (-1, 0), (-1, -1), (1, -1)];
pub const NORTH: usize = 0;
pub const EAST: usize = 1;
pub const NORTH_EAST: usize = 2;
pub const NORTH_WEST: usize = 3;
pub const SOUTH: usize = 4;
pub const WEST: usize = 5;
pub const SOUTH_WEST: usize = 6;
pub const SOUTH_EAST: usize = 7;
/// Orthogonal and diagonal directions.
pub const ROOK_DIRECTIONS: [usize; 4] = [NORTH, EAST, SOUTH, WEST];
pub const BISHOP_DIRECTIONS: [usize; 4] = [NORTH_EAST, NORTH_WEST, SOUTH_WEST, SOUTH_EAST];

const fn leaper(steps: &[(i8, i8)]) -> [Bb128; NUM_SQUARES] {
    let mut out = [Bb128::EMPTY; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let mut b = 0u128;
        let mut i = 0;
        while i < steps.len() {
            if let Some(t) = Square10(s as u8).offset(steps[i].0, steps[i].1) {
                b |= 1u128 << t.0;
            }
            i += 1;
        }
        out[s] = Bb128(b);
        s += 1;
    }
    out
}

pub static KNIGHT: [Bb128; NUM_SQUARES] = leaper(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]);
pub static KING: [Bb128; NUM_SQUARES] = leaper(&[(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]);
/// The elephant leaps one or two squares diagonally, whatever stands between.
pub static ELEPHANT: [Bb128; NUM_SQUARES] = leaper(&[(1, 1), (1, -1), (-1, -1), (-1, 1), (2, 2), (2, -2), (-2, -2), (-2, 2)]);
/// Squares a pawn of each colour attacks (`[White, Black]`).
pub static PAWN_ATTACKS: [[Bb128; NUM_SQUARES]; 2] = [leaper(&[(-1, 1), (1, 1)]), leaper(&[(-1, -1), (1, -1)])];

const fn rays() -> [[Bb128; NUM_SQUARES]; 8] {
    let mut out = [[Bb128::EMPTY; NUM_SQUARES]; 8];
    let mut d = 0;
    while d < 8 {
        let mut s = 0;
        while s < NUM_SQUARES {
            let mut b = 0u128;
            let mut cur = Square10(s as u8).offset(DIRECTIONS[d].0, DIRECTIONS[d].1);
            while let Some(t) = cur {
                b |= 1u128 << t.0;
                cur = t.offset(DIRECTIONS[d].0, DIRECTIONS[d].1);
            }
            out[d][s] = Bb128(b);
            s += 1;
        }
        d += 1;
    }
    out
}

/// `RAYS[direction][square]`: the squares from `square` (excluded) to the edge.
pub static RAYS: [[Bb128; NUM_SQUARES]; 8] = rays();

/// The first occupied square of `bits` seen from the ray's origin.
#[inline(always)]
const fn nearest<const D: usize>(bits: u128) -> usize {
    if D < 4 {
        bits.trailing_zeros() as usize
    } else {
        127 - bits.leading_zeros() as usize
    }
}

/// Squares a slider on `sq` reaches in direction `D` (the first blocker included).
#[inline(always)]
fn ray_attacks<const D: usize>(sq: usize, occ: u128) -> u128 {
    let ray = RAYS[D][sq].0;
    let blockers = ray & occ;
    if blockers == 0 {
        ray
    } else {
        ray ^ RAYS[D][nearest::<D>(blockers)].0
    }
}

#[inline(always)]
pub fn rook_attacks(sq: Square10, occ: Bb128) -> Bb128 {
    let (s, o) = (sq.index(), occ.0);
    Bb128(ray_attacks::<NORTH>(s, o) | ray_attacks::<EAST>(s, o) | ray_attacks::<SOUTH>(s, o) | ray_attacks::<WEST>(s, o))
}

#[inline(always)]
pub fn bishop_attacks(sq: Square10, occ: Bb128) -> Bb128 {
    let (s, o) = (sq.index(), occ.0);
    Bb128(ray_attacks::<NORTH_EAST>(s, o) | ray_attacks::<NORTH_WEST>(s, o) | ray_attacks::<SOUTH_WEST>(s, o) | ray_attacks::<SOUTH_EAST>(s, o))
}

/// One direction of a cannon: `(quiet squares, hop target)`: the empty
/// squares before the first piece (the screen), and the first piece beyond
/// the screen (bit set, or 0).
#[inline(always)]
fn cannon_ray<const D: usize>(sq: usize, occ: u128) -> (u128, u128) {
    let ray = RAYS[D][sq].0;
    let blockers = ray & occ;
    if blockers == 0 {
        return (ray, 0);
    }
    let screen = nearest::<D>(blockers);
    let beyond = RAYS[D][screen].0;
    let quiet = ray ^ beyond ^ (1u128 << screen);
    let behind = beyond & occ;
    let target = if behind == 0 { 0 } else { 1u128 << nearest::<D>(behind) };
    (quiet, target)
}

/// A cannon's moves from `sq`: `(quiet moves, squares it could capture on)`.
/// The second set holds the first piece beyond each screen, of either colour.
#[inline(always)]
pub fn cannon_moves(sq: Square10, occ: Bb128) -> (Bb128, Bb128) {
    let (s, o) = (sq.index(), occ.0);
    let (q0, t0) = cannon_ray::<NORTH>(s, o);
    let (q1, t1) = cannon_ray::<EAST>(s, o);
    let (q2, t2) = cannon_ray::<SOUTH>(s, o);
    let (q3, t3) = cannon_ray::<WEST>(s, o);
    (Bb128(q0 | q1 | q2 | q3), Bb128(t0 | t1 | t2 | t3))
}

/// The squares from which a cannon would capture on `sq` (jumping is symmetric).
#[inline(always)]
pub fn cannon_hops(sq: Square10, occ: Bb128) -> Bb128 {
    cannon_moves(sq, occ).1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square10 {
        Square10::parse(s).unwrap()
    }

    #[test]
    fn a_square_starting_with_a_multibyte_character_is_refused() {
        // The shako fuzz target's crash: an en passant field "ͱ5n/…" panicked on a byte slice.
        assert_eq!(Square10::parse("ͱ5n"), None);
        assert_eq!(Square10::parse("é1"), None);
        assert_eq!(Square10::parse("a"), None);
        let fen = "1C2n5/5k4/P8p/5p4/6Pp2/10/10/5B4/E2B3K2/6N2N w - ͱ5n/6ϯͱ5/ccck2nh;7 0 45";
        assert!(fen.parse::<crate::shako::Position>().is_err());
    }

    /// Collecting squares joins them: a square given twice is in the set once.
    #[test]
    fn collected_squares_form_their_set() {
        let b: Bb128 = [sq("a1"), sq("j10"), sq("a1")].into_iter().collect();
        assert_eq!(b, sq("a1").bb() | sq("j10").bb());
        assert_eq!(b.count(), 2);
        // As an iterator it knows how many squares are left.
        let mut it = b;
        assert_eq!((it.len(), it.size_hint()), (2, (2, Some(2))));
        assert_eq!(it.next(), Some(sq("a1")));
        assert_eq!((it.len(), it.size_hint()), (1, (1, Some(1))));
        assert_eq!(it.collect::<Vec<_>>(), [sq("j10")]);
    }

    #[test]
    fn squares_parse_and_print() {
        assert_eq!(sq("a1").index(), 0);
        assert_eq!(sq("j1").index(), 9);
        assert_eq!(sq("a10").index(), 90);
        assert_eq!(sq("j10").index(), 99);
        assert!(Square10::all().map(Square10::index).eq(0..100));
        for s in Square10::all() {
            assert_eq!(Square10::parse(&s.to_string()), Some(s));
            assert_eq!(s.flip_rank().flip_rank(), s);
        }
        for bad in ["", "a", "k1", "a0", "a11", "a01", "a1x", "A1", "a+1", "a+10", "a100", "a256", "a1000", "b 1"] {
            assert_eq!(Square10::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn leapers_and_rays() {
        assert_eq!(KNIGHT[sq("a1").index()].count(), 2);
        assert_eq!(KNIGHT[sq("e5").index()].count(), 8);
        assert_eq!(KING[sq("j10").index()].count(), 3);
        assert_eq!(ELEPHANT[sq("a1").index()], sq("b2").bb() | sq("c3").bb());
        assert_eq!(ELEPHANT[sq("e5").index()].count(), 8);
        assert_eq!(RAYS[NORTH][sq("a1").index()].count(), 9);
        assert_eq!(rook_attacks(sq("a1"), Bb128::EMPTY).count(), 18);
        assert_eq!(bishop_attacks(sq("a1"), Bb128::EMPTY).count(), 9);
    }

    #[test]
    fn cannon_screens_and_targets() {
        // Cannon e2, screen e5, target e8; a second screen e9 blocks the rest.
        let occ = sq("e2").bb() | sq("e5").bb() | sq("e8").bb() | sq("e9").bb();
        let (quiet, hops) = cannon_moves(sq("e2"), occ);
        assert!(quiet.contains(sq("e4")) && !quiet.contains(sq("e5")) && !quiet.contains(sq("e6")));
        assert!(quiet.contains(sq("e1")) && quiet.contains(sq("a2")) && quiet.contains(sq("j2")));
        assert_eq!(hops, sq("e8").bb());
        assert_eq!(cannon_hops(sq("e8"), occ), sq("e2").bb());
    }

    #[test]
    fn flips() {
        assert_eq!(sq("c3").bb().flip_ranks(), sq("c8").bb());
        assert_eq!(Bb128::rank(0).flip_ranks(), Bb128::rank(9));
        assert_eq!(Bb128::file(3).flip_ranks(), Bb128::file(3));
    }
}
