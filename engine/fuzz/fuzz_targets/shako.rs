//! Shako: any text through the FEN and UCI readers; bytes as moves from the start.
//! The checks are `pacozero_engine::shako::invariants::play`, which `cargo test`
//! also runs on every committed corpus file (engine/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pacozero_engine::shako::invariants::play(data));
