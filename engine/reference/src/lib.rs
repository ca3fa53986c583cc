//! A second Paco Ŝako rules generator, slow and plain, written from the rule
//! text (`../shared/rules/`, and the details the platform's engine decides,
//! listed in `engine/tests/data/README.md`) to check the fast engine against.
//!
//! It shares no code with `pacozero-engine`'s rules: no bitboards, no
//! tables, no shifts, no early stops, no caches. A board is 64 squares of
//! `(white piece, black piece)`; each rule is a loop over squares and
//! directions. The only thing it has in common with the engine is the
//! notation it reads and writes (the platform's FEN and `Le2`/`Pe4`/`=Q`
//! actions), because that is how the two are compared.
//!
//! | module | concern |
//! |---|---|
//! | `board` | colours, piece kinds, squares, the 64-square board |
//! | `state` | the state of a game (piece in hand, promotion, castling, …), FEN in and out |
//! | `moves` | where a piece may go, the legal actions, applying them |
//! | `turn` | whole turns: every result of a turn, threats (castling), repetition |
//! | `differential` | the fast engine against this one, state by state |
//!
//! It is for tests and fuzzing: thousands of positions a second, where the
//! engine does millions.

pub mod board;
pub mod differential;
pub mod moves;
pub mod state;
pub mod turn;

pub use board::{Color, Kind, Square};
pub use moves::Action;
pub use state::{Hand, Required, Rules, State, Status};
pub use turn::RefGame;
