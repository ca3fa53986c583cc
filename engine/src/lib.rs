//! PacoZero's rules engines, one module a game, and the surface search sees.
//!
//! * [`paco`]: Paco Ŝako (8x8, unions and chains), exact to the platform's rules.
//! * [`shako`]: Shako (10x10, cannons and elephants), checked against Fairy-Stockfish.
//! * [`connect4`]: Connect Four (7x6), solved, for judging learning against perfect play.
//! * [`game`]: the [`Game`] trait every game implements (decisions as policy
//!   indices, encoding, notation, turns); [`registry`]: [`GameKind`], the one
//!   place that maps a game's name to its type.
//! * `paco::invariants`, `shako::invariants`: the checks the fuzz targets and the corpus replay run.
//! * [`types`]: the 8x8 games' small value types (colours, piece kinds,
//!   squares, bitboards); `util`: hash tables keyed by Zobrist keys for the
//!   chain searches.
//!
//! No ML code: positions are encoded as plain bit planes and scalars that the
//! trainer turns into tensors. Its only dependencies are `rand` and
//! `rand_chacha`, for Shako's random starts. A slow reference generator for
//! Paco Ŝako, written from the rule text, lives beside it in
//! `engine/reference/` and judges this one in the differential tests.

pub mod connect4;
pub mod game;
pub mod paco;
pub mod registry;
pub mod shako;
pub mod types;
mod util;

pub use game::{encoding_index, ensure_running, parse_decision_names, perft, BadNotation, Encoding, Fact, Game, Outcome, PolicyPlanes, DEFAULT_ENCODING};
pub use registry::{GameKind, UnknownGame};
pub use types::{BitBoard, Color, PieceKind, Square};
