//! Any bytes as lines of UCI input (`pacozero uci`).
//! The checks are `pacozero_run::fuzz_checks::uci_lines`, which `cargo test` also
//! runs on every committed corpus file (run/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pacozero_run::fuzz_checks::uci_lines(data);
});
