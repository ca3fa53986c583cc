//! Bytes choose actions from the start position or a Fischer-random setup.
//! The checks are `pacozero_engine::invariants::play`, which `cargo test`
//! also runs on every committed corpus file (engine/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pacozero_engine::invariants::play(data));
