//! Any bytes as lines of the analysis engine's input (`pacozero analysis`).
//! The checks are `pacozero_run::fuzz_checks::analysis_lines`, which `cargo test` also
//! runs on every committed corpus file (run/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pacozero_run::fuzz_checks::analysis_lines(data);
});
