//! Any bytes as a run's `matches.jsonl`.
//! The checks are `pacozero_run::fuzz_checks::matches_file`, which `cargo test` also
//! runs on every committed corpus file (run/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pacozero_run::fuzz_checks::matches_file(data);
});
