//! Seed mixing: every random stream of a run (a game, a round, a
//! generation, a training step) derives from one base seed through these.

/// SplitMix64's output mix (Steele et al.): a well-spread 64-bit hash of `z`.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64's step: the next state's mix.
pub fn splitmix64(x: u64) -> u64 {
    mix64(x.wrapping_add(0x9E37_79B9_7F4A_7C15))
}

/// A seed derived from a base seed and an index (round, generation), kept to
/// 63 bits so configurations holding it still serialise to TOML.
pub fn derive_seed(base: u64, index: u64) -> u64 {
    let mut z = base ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (z ^ (z >> 29)) & (i64::MAX as u64)
}
