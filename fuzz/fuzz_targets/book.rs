//! Any bytes as an opening book (Parquet).
//! The checks are `pacozero_data::fuzz_checks::book`, which `cargo test` also
//! runs on every committed corpus file (run/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(init: pacozero_data::fuzz_checks::let_guarded_panics_unwind(), |data: &[u8]| {
    pacozero_data::fuzz_checks::book(data);
});
