//! Connect Four: any text through the notation reader; bytes as columns from
//! the empty board. The checks are `pacozero_engine::connect4::invariants::play`,
//! which `cargo test` also runs on every committed corpus file
//! (engine/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pacozero_engine::connect4::invariants::play(data));
