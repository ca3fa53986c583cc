//! Any string as an action list or a chain-notation turn from the start position.
//! The checks are `pacozero_engine::paco::invariants::notation`, which `cargo test`
//! also runs on every committed corpus file (engine/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pacozero_engine::paco::invariants::notation(data));
