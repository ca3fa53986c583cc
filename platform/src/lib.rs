//! # PacoZero and the game's platform
//!
//! The adapters to the formats of Paco Ŝako's own platform (its bot, its
//! books, its reference games and its engine). They exist for that one game
//! and its platform, so they name it; every other crate above the engine
//! reaches games through the engine's `Game` traits and registry. Only the
//! platform's input encoding stays in the engine (`engine/src/paco/platform_encode.rs`),
//! beside the game's other encodings.
//!
//! | module | what |
//! |---|---|
//! | [`book_json`] | the platform's opening-book JSON, read and written exactly, knowing nothing of the rules |
//! | [`book`] | the platform's books imported into ours (every move replayed by the engine) and ours exported |
//! | [`compare`] | a network's (or a book's) turns and values at the positions of a reference book of the platform, agreement by game phase |
//! | [`onnx`] | the ONNX file the platform runs in place of its bot: one input, one output |
//! | [`tactics`] | the bundled Paco-in-1/in-2 suite made from the platform's reference games, proved by the engine |
//! | [`perft`] | `pacozero bench perft`: the engine's speed against the platform's engine on the same counts |
//! | [`fuzz_checks`] | what the `platform_book` fuzz target checks on each input |

/// The platform's reference vectors (`engine/tests/data/vectors.jsonl`):
/// positions with their move counts and the platform engine's timings.
pub const REFERENCE_VECTORS: &str = include_str!("../../engine/tests/data/vectors.jsonl");

pub mod book;
pub mod book_json;
pub mod compare;
pub mod fuzz_checks;
pub mod onnx;
pub mod perft;
pub mod tactics;
