//! Any bytes as a chunk's positions file and games file (Parquet).
//! The checks are `pacozero_data::fuzz_checks::chunk`, which `cargo test` also
//! runs on every committed corpus file (run/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(init: pacozero_data::fuzz_checks::let_guarded_panics_unwind(), |data: &[u8]| {
    pacozero_data::fuzz_checks::chunk(data);
});
