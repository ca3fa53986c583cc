//! A set of Zobrist keys for the chain searches: open addressing with linear
//! probing on the key's own bits (the keys are uniformly random already), and
//! O(1) clearing through an epoch stamp, so a set that once grew large costs
//! nothing to reuse for a small search.

#[derive(Clone)]
pub struct U64Set {
    keys: Vec<u64>,
    stamps: Vec<u32>,
    epoch: u32,
    len: usize,
    mask: usize,
}

impl Default for U64Set {
    fn default() -> Self {
        // Small: most searches visit few states, and a fresh generator should cost
        // next to nothing (perft makes one per depth for every call).
        Self::with_capacity_pow2(1 << 6)
    }
}

impl U64Set {
    fn with_capacity_pow2(cap: usize) -> Self {
        U64Set { keys: vec![0; cap], stamps: vec![0; cap], epoch: 1, len: 0, mask: cap - 1 }
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

    /// Inserts `key`; returns false if it was already present.
    #[inline]
    pub fn insert(&mut self, key: u64) -> bool {
        if (self.len + 1) * 2 > self.keys.len() {
            self.grow();
        }
        let mut i = (key as usize) & self.mask;
        loop {
            if self.stamps[i] != self.epoch {
                self.stamps[i] = self.epoch;
                self.keys[i] = key;
                self.len += 1;
                return true;
            }
            if self.keys[i] == key {
                return false;
            }
            i = (i + 1) & self.mask;
        }
    }

    #[allow(dead_code)]
    pub fn contains(&self, key: u64) -> bool {
        let mut i = (key as usize) & self.mask;
        while self.stamps[i] == self.epoch {
            if self.keys[i] == key {
                return true;
            }
            i = (i + 1) & self.mask;
        }
        false
    }

    fn grow(&mut self) {
        let old_keys = std::mem::take(&mut self.keys);
        let old_stamps = std::mem::take(&mut self.stamps);
        let epoch = self.epoch;
        *self = Self::with_capacity_pow2(old_keys.len() * 2);
        for (k, s) in old_keys.into_iter().zip(old_stamps) {
            if s == epoch {
                self.insert(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::U64Set;

    #[test]
    fn insert_contains_clear_and_grow() {
        let mut s = U64Set::default();
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
}
