//! # PacoZero opening books
//!
//! Everything about opening books except their file formats (those are
//! `pacozero_data::book`, ours in Parquet, and
//! `pacozero_data::platform_book`, the platform's JSON):
//!
//! | module | what |
//! |---|---|
//! | [`entries`] | which rows lookups use (the first usable row of a position) and which they leave out, by reason |
//! | [`read`] | the one reader of every book format ([`read_any_book`]), told apart by content |
//! | [`build`](mod@build) | books built by search (best-first over uncertain lines), held in memory ([`Book`]), probed, resumed |
//! | [`platform_book`] | the platform's books imported (every move replayed by the engine) and exported |
//! | [`platform_compare`] | a network's (or a book's) turns and values at the positions of a reference book of the platform's game, agreement by game phase (ply, unions) |
//! | [`starts`] | start positions drawn from a book: self-play's `start_positions = "book"` and match openings |
//!
//! Everything but the platform's modules (`platform_*`: its book format and
//! the comparison with its books) is generic over the engine's `Game`.

pub mod build;
pub mod entries;
pub mod platform_book;
pub mod platform_compare;
pub mod read;
pub mod starts;

pub use build::{build, Book, BookConfig, BookGame, Progress, RootMove};
pub use read::{book_game, read_any_book};
pub use starts::BookStarts;
