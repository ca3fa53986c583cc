//! # PacoZero opening books
//!
//! Everything about opening books except their file formats (ours in
//! Parquet is `pacozero_data::book`, the platform's JSON
//! `pacozero_platform::book_json`) and the platform's books
//! (`pacozero_platform`):
//!
//! | module | what |
//! |---|---|
//! | [`entries`] | which rows lookups use: `pacozero_data::book_lookup`, re-exported |
//! | [`read`] | the one reader of every book format ([`read_any_book`]), told apart by content |
//! | [`build`](mod@build) | books built by search (best-first over uncertain lines), held in memory ([`Book`]), probed, resumed |
//! | [`starts`] | start positions drawn from a book: self-play's `start_positions = "book"` and match openings |
//!
//! Everything here is generic over the engine's `Game`.

pub mod build;
pub use pacozero_data::book_lookup as entries;
pub mod read;
pub mod starts;

pub use build::{build, Book, BookConfig, BookGame, Progress, RootMove};
pub use read::{book_game, read_any_book};
pub use starts::BookStarts;
