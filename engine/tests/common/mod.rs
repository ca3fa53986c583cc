//! Shared by the engine's integration tests; not every test file uses
//! every item.
#![allow(dead_code)]

/// The package directory of this checkout: cargo sets it when it runs the
/// test. The compile-time value is only a fallback, because a test binary
/// built from another checkout sharing the target directory keeps that
/// checkout's path.
pub fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
}

/// A small deterministic generator (SplitMix64): seeded playouts are the same
/// on every run, and the engine's tests need no dependency for it.
pub struct Rng(pub u64);

impl Rng {
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
}
