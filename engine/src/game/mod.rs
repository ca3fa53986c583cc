//! The surface shared by every game of the engine, as four traits:
//!
//! | trait | file | what it holds | who needs it |
//! |---|---|---|---|
//! | [`GameRules`] | `rules.rs` | who moves, playable decisions, their effect, the end | search, self-play |
//! | [`Encode`] | `encode.rs` | input encodings, policy layout, auxiliary targets, mirror symmetry | networks, training data |
//! | [`Notation`] | `notation.rs` | positions, decisions and turns as text; checked decisions from outside | protocols, files, Python |
//! | [`Tools`] | `tools.rs` | perft, numbered setups, solved suites, diagrams, facts | the tools and the viewer |
//!
//! [`Game`] is all four, implemented for every type that has them: the
//! bound of the pipeline's commands, which use every part. Search itself
//! asks only for what it reads.
//!
//! Actions are policy indices in the mover's frame (`0..NUM_ACTIONS`), so
//! search never sees a game's own action type.
//!
//! Each game implements the four in its own `game.rs`. The registry of the
//! games (which depends on them) is the `registry` module.

mod encode;
mod notation;
mod rules;
mod tools;

pub use encode::{encoding_index, Encode, Encoding, PolicyPlanes, DEFAULT_ENCODING};
pub use notation::{ensure_running, parse_decision_names, BadNotation, Notation};
pub use rules::{GameRules, Outcome};
pub use tools::{perft, Fact, Tools};

/// A whole game: its [`GameRules`], how a network sees it ([`Encode`]), its
/// text ([`Notation`]) and its tool hooks ([`Tools`]).
pub trait Game: GameRules + Encode + Notation + Tools {}

impl<G: GameRules + Encode + Notation + Tools> Game for G {}
