//! A loop configuration and its `--set` overrides.
//! The checks are `pacozero_run::fuzz_checks::config_with_sets`, which `cargo test` also
//! runs on every committed corpus file (run/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pacozero_run::fuzz_checks::config_with_sets(data);
});
