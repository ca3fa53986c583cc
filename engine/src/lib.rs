//! PacoZero's rules engine.
//!
//! * [`paco`]: Paco Ŝako (8x8, unions and chains), exact to the platform's rules.
//!
//! The engine has no dependencies and no ML code: it encodes positions as
//! plain bit planes and scalars that the trainer turns into tensors.

pub mod game;
pub mod invariants;
pub mod paco;
pub mod registry;
pub mod shako;
pub mod types;
mod util;

pub use game::{parse_decision_names, perft, BadNotation, Fact, Game, Outcome};
pub use registry::{GameKind, GameVisitor, UnknownGame};
pub use types::{BitBoard, Color, PieceKind, Square};
