//! Any bytes as the platform's opening-book JSON.
//! The checks are `pacozero_platform::fuzz_checks::platform_book`, which `cargo test` also
//! runs on every committed corpus file (run/tests/fuzz_corpus.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pacozero_platform::fuzz_checks::platform_book(data);
});
