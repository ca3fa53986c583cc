//! Any string through the FEN reader and validation, under every rule set.
//! The checks are `pacozero_engine::paco::invariants::fen`, which `cargo test`
//! also runs on every committed corpus file (engine/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pacozero_engine::paco::invariants::fen(data));
