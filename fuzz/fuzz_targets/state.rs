//! Any bytes as a run's `state.json`.
//! The checks are `pacozero_run::fuzz_checks::state_file`, which `cargo test` also
//! runs on every committed corpus file (run/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pacozero_run::fuzz_checks::state_file(data);
});
