//! Small helpers: a hash set for Zobrist keys (already uniformly random, so
//! hashing them again is wasted work).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01B3);
        }
    }
    #[inline(always)]
    fn write_u64(&mut self, v: u64) {
        self.0 ^= v;
    }
}

/// A set of Zobrist keys.
pub type U64Set = HashSet<u64, BuildHasherDefault<ZobristHasher>>;
