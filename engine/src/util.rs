//! Tables keyed by Zobrist keys for the chain searches: open addressing with
//! linear probing on the key's own bits (the keys are uniformly random
//! already), and O(1) clearing through an epoch stamp, so a table that once
//! grew large costs nothing to reuse for a small search.
//!
//! [`U64Set`] is the set of keys; [`U64MaskMap`] gives each key a 64-bit mask.

/// A table from keys to values of `V` (`()` for a set).
#[derive(Clone)]
pub struct KeyTable<V> {
    keys: Vec<u64>,
    values: Vec<V>,
    stamps: Vec<u32>,
    epoch: u32,
    len: usize,
    mask: usize,
}

/// A set of keys.
pub type U64Set = KeyTable<()>;
/// A map from keys to bit masks (absent keys read as 0).
pub type U64MaskMap = KeyTable<u64>;

impl<V: Copy + Default> Default for KeyTable<V> {
    fn default() -> Self {
        // Nothing until the first insert: a fresh generator should cost next to
        // nothing (perft makes one per depth for every call).
        KeyTable { keys: Vec::new(), values: Vec::new(), stamps: Vec::new(), epoch: 1, len: 0, mask: 0 }
    }
}

impl<V: Copy + Default> KeyTable<V> {
    fn with_capacity_pow2(cap: usize) -> Self {
        KeyTable { keys: vec![0; cap], values: vec![V::default(); cap], stamps: vec![0; cap], epoch: 1, len: 0, mask: cap - 1 }
    }

    /// Removes every key in O(1).
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Stamps wrapped around: really reset them once every 2^32 clears.
            self.stamps.fill(0);
            self.epoch = 1;
        }
    }

    #[allow(dead_code)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[allow(dead_code)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot of `key`, and whether it was just inserted (with `V::default()`).
    #[inline]
    fn slot(&mut self, key: u64) -> (usize, bool) {
        if (self.len + 1) * 2 > self.keys.len() {
            self.grow();
        }
        let mut i = (key as usize) & self.mask;
        loop {
            if self.stamps[i] != self.epoch {
                self.stamps[i] = self.epoch;
                self.keys[i] = key;
                self.values[i] = V::default();
                self.len += 1;
                return (i, true);
            }
            if self.keys[i] == key {
                return (i, false);
            }
            i = (i + 1) & self.mask;
        }
    }

    fn find(&self, key: u64) -> Option<usize> {
        if self.keys.is_empty() {
            return None;
        }
        let mut i = (key as usize) & self.mask;
        while self.stamps[i] == self.epoch {
            if self.keys[i] == key {
                return Some(i);
            }
            i = (i + 1) & self.mask;
        }
        None
    }

    fn grow(&mut self) {
        let old = std::mem::take(self);
        *self = Self::with_capacity_pow2((old.keys.len() * 2).max(1 << 10));
        for i in 0..old.keys.len() {
            if old.stamps[i] == old.epoch {
                let (j, _) = self.slot(old.keys[i]);
                self.values[j] = old.values[i];
            }
        }
    }
}

impl KeyTable<()> {
    /// Inserts `key`; returns false if it was already present.
    #[inline]
    pub fn insert(&mut self, key: u64) -> bool {
        self.slot(key).1
    }

    #[allow(dead_code)]
    pub fn contains(&self, key: u64) -> bool {
        self.find(key).is_some()
    }
}

impl KeyTable<u64> {
    /// The mask of `key` (inserted as 0 if absent), to read and update.
    #[inline]
    pub fn mask_mut(&mut self, key: u64) -> &mut u64 {
        let (i, _) = self.slot(key);
        &mut self.values[i]
    }

    /// The mask of `key`, 0 if absent.
    pub fn mask_of(&self, key: u64) -> u64 {
        self.find(key).map_or(0, |i| self.values[i])
    }
}

#[cfg(test)]
mod tests {
    use super::{U64MaskMap, U64Set};

    #[test]
    fn masks_accumulate_per_key_and_clear() {
        let mut m = U64MaskMap::default();
        assert_eq!(m.mask_of(5), 0);
        for i in 0..3000u64 {
            *m.mask_mut(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)) |= 1 << (i % 64);
            *m.mask_mut(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)) |= 2;
        }
        assert_eq!(m.len(), 3000);
        assert_eq!(m.mask_of(7u64.wrapping_mul(0x9E37_79B9_7F4A_7C15)), (1 << 7) | 2);
        m.clear();
        assert_eq!(m.mask_of(7u64.wrapping_mul(0x9E37_79B9_7F4A_7C15)), 0);
    }

    #[test]
    fn insert_contains_clear_and_grow() {
        let mut s = U64Set::default();
        assert!(!s.contains(7) && s.is_empty());
        assert!(s.insert(7) && s.len() == 1 && !s.is_empty());
        s.clear();
        for round in 0..3u64 {
            for i in 0..5000u64 {
                let k = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ round;
                assert!(s.insert(k));
                assert!(!s.insert(k));
            }
            assert_eq!(s.len(), 5000);
            assert!(s.contains(round));
            s.clear();
            assert!(s.is_empty());
            assert!(!s.contains(round));
        }
    }

    /// Keys with the same low bits share a home slot: each probes on to the
    /// next free one, past the table's last slot to its first. (The other
    /// tests' keys, multiples of an odd constant, never collide in a small
    /// table, so a probe that stands still or jumps went unnoticed there.)
    #[test]
    fn keys_sharing_a_slot_probe_on_past_the_end_of_the_table() {
        let mut s = U64Set::default();
        // Home slot 1023, the last of the first 1,024-slot table.
        let keys: Vec<u64> = (0..4u64).map(|k| 1023 + (k << 10)).collect();
        for &k in &keys {
            assert!(s.insert(k), "{k} is new");
        }
        for &k in &keys {
            assert!(s.contains(k) && !s.insert(k), "{k} is found");
        }
        assert!(!s.contains(1023 + (9 << 10)) && !s.contains(0) && !s.contains(1022));
        assert_eq!(s.len(), 4);
        let mut m = U64MaskMap::default();
        for (bit, &k) in keys.iter().enumerate() {
            *m.mask_mut(k) |= 1 << bit;
        }
        assert_eq!(keys.iter().map(|&k| m.mask_of(k)).collect::<Vec<_>>(), [1, 2, 4, 8]);
    }

    /// The epoch stamp wraps around after 2^32 clears: the stamps are reset
    /// then, or every empty slot (stamp 0) would read as holding key 0.
    #[test]
    fn a_clear_that_wraps_the_epoch_around_empties_the_table() {
        let mut s = U64Set::default();
        assert!(s.insert(5));
        // The same table 2^32 - 2 clears later.
        s.stamps.iter_mut().filter(|st| **st == s.epoch).for_each(|st| *st = u32::MAX);
        s.epoch = u32::MAX;
        assert!(s.contains(5) && !s.contains(0));
        s.clear();
        assert!(s.is_empty() && !s.contains(0) && !s.contains(5));
        assert!(s.insert(5) && !s.insert(5) && s.contains(5) && s.len() == 1);
    }
}
