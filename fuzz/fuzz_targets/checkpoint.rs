//! Any bytes as a trainer's checkpoint, and the same bytes resealed.
//! The checks are `pacozero_train::fuzz_checks::checkpoint`, which `cargo test` also
//! runs on every committed corpus file (run/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pacozero_train::fuzz_checks::checkpoint(data);
});
