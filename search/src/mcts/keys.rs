//! Hash maps and sets keyed by position hashes.
//!
//! A game's `hash()` is already a uniformly spread 64-bit Zobrist key, so
//! hashing it again (the standard library's SipHash) only costs time: the
//! win searches at the root look up thousands of positions a decision.
//! [`KeyHasher`] passes a `u64` through and mixes a `u16` (a first action)
//! in with one multiplication.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The hasher of [`KeyMap`] and [`KeySet`]; see the module doc.
#[derive(Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

/// An odd constant with well-spread bits (2^64 over the golden ratio).
const MIX: u64 = 0x9E37_79B9_7F4A_7C15;

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(MIX);
        }
    }

    fn write_u16(&mut self, x: u16) {
        self.0 = (self.0 ^ u64::from(x)).wrapping_mul(MIX);
    }

    fn write_u64(&mut self, x: u64) {
        self.0 ^= x;
    }
}

/// A map from position hashes (or keys with them) to `V`.
pub(crate) type KeyMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;
/// A set of position hashes (or keys with them).
pub(crate) type KeySet<K> = HashSet<K, BuildHasherDefault<KeyHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash_of<T: Hash>(t: &T) -> u64 {
        BuildHasherDefault::<KeyHasher>::default().hash_one(t)
    }

    #[test]
    fn a_position_hash_passes_through_and_a_first_action_spreads_it() {
        assert_eq!(hash_of(&0x1234_5678_9abc_def0_u64), 0x1234_5678_9abc_def0);
        // The same position under two first actions lands apart, in the
        // high bits (hashbrown's tag) as in the low (its bucket).
        let (a, b) = (hash_of(&(1_u16, 77_u64)), hash_of(&(2_u16, 77_u64)));
        assert_ne!(a >> 57, b >> 57);
        assert_ne!(a & 0xff, b & 0xff);
        assert_ne!(hash_of(&[1_u8, 2]), hash_of(&[2_u8, 1]));
    }
}
