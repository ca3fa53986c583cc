//! The check that the `platform_book` fuzz target of `fuzz/` runs on each
//! input, kept here so that `cargo test` replays the committed corpus
//! through the same code (`run/tests/fuzz_corpus.rs`). Not an API: it
//! panics when the reader breaks one of its promises (an error names the
//! file; what is read reads back the same after the writer has written
//! it), and returns whether the reader took the input.

use std::path::Path;

use pacozero_data::fuzz_checks::assert_names_input;

use crate::book_json::{parse_platform_book, platform_book_json};

/// Any bytes as the platform's opening-book JSON (invalid UTF-8 as the
/// file reader would refuse it: replaced, so the parser still sees the rest).
pub fn platform_book(data: &[u8]) -> bool {
    let path = Path::new("fuzz-input.json");
    let book = match parse_platform_book(path, &String::from_utf8_lossy(data)) {
        Ok(book) => book,
        Err(e) => {
            assert_names_input(&e.to_string());
            return false;
        }
    };
    let json = platform_book_json(path, &book).unwrap_or_else(|e| panic!("a platform book read cannot be written: {e}"));
    let again = parse_platform_book(path, &json).unwrap_or_else(|e| panic!("a written platform book does not read: {e}\n{json}"));
    assert_eq!(again, book, "a platform book changed through writing and reading");
    true
}
