//! PacoZero's rules engines, one module a game, and the surface search sees.
//!
//! * The games, one module each, declared by the registry at the end of
//!   this file (one line a game):
//!   [`paco`]: Paco Ŝako (8x8, unions and chains), exact to the platform's rules;
//!   [`shako`]: Shako (10x10, cannons and elephants), checked against Fairy-Stockfish;
//!   [`connect4`]: Connect Four (7x6), solved, for judging learning against perfect play.
//! * [`game`]: the traits every game implements, [`Game`] being all of
//!   them (decisions as policy indices, encoding, notation, tools);
//!   [`prelude`]: the traits to import.
//! * `registry`: the `registry!` macro that generates [`GameKind`],
//!   [`AnyState`] and the dispatch ([`with_game!`], [`with_state!`]), the one
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

pub mod game;
/// The game traits, for code that calls them on a concrete game type
/// (`use pacozero_engine::prelude::*`); generic code names its bound.
pub mod prelude {
    pub use crate::game::{Encode, Game, GameRules, Notation, Tools};
}
#[macro_use]
mod registry;
pub mod types;
mod util;

pub use game::{
    encoding_index, ensure_running, parse_decision_names, perft, BadNotation, Encode, Encoding, Fact, Game, GameRules, Notation, Outcome, PolicyPlanes, Tools,
    DEFAULT_ENCODING,
};
pub use registry::UnknownGame;
pub use types::{BitBoard, Color, PieceKind, Square};

// The games: one line each (its `GameKind` variant, module and state type).
registry! { $
    /// Paco Ŝako.
    Paco => paco::GameState,
    /// Shako: 10x10 chess with cannons and elephants.
    Shako => shako::GameState,
    /// Connect Four (7x6), solved: networks are judged by perfect play.
    Connect4 => connect4::GameState,
}
