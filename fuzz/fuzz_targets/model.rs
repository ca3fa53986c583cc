//! Any bytes as a model file (`.pzmodel`), and the same bytes resealed.
//! The checks are `pacozero_nn::fuzz_checks::model_file`, which `cargo test` also
//! runs on every committed corpus file (run/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pacozero_nn::fuzz_checks::model_file(data);
});
