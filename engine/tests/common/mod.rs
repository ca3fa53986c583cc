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

/// The tests' seeded random stream.
#[allow(unused_imports)]
pub use pacozero_testkit::Rng;
