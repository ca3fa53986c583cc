//! One small seeded random stream for tests (SplitMix64): seeded tests are
//! the same on every run, and need no random-number crate.

/// SplitMix64; `Rng(seed)` or [`Rng::new`] starts it.
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in [0, 1), 24 bits.
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_seeded_and_stays_in_its_ranges() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        let first: Vec<u64> = (0..4).map(|_| a.next()).collect();
        assert_eq!(first, (0..4).map(|_| b.next()).collect::<Vec<_>>());
        assert_ne!(first[0], Rng::new(8).next());
        let mut r = Rng::new(1);
        let units: Vec<f32> = (0..1000).map(|_| r.unit()).collect();
        assert!(units.iter().all(|u| (0.0..1.0).contains(u)));
        let mean = units.iter().sum::<f32>() / 1000.0;
        assert!((0.45..0.55).contains(&mean), "mean {mean}");
        assert!((0..1000).all(|_| r.below(3) < 3));
        assert!((0..1000).map(|_| r.range(-2.0, -1.0)).all(|x| (-2.0..-1.0).contains(&x)));
    }
}
