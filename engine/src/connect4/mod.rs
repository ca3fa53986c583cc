//! Connect Four (7 columns, 6 rows), the standard game: the sides drop
//! stones in turn into columns that have room; a stone lands on the lowest
//! empty cell; four of one side in a line (horizontal, vertical or
//! diagonal) win; a full board without four is a draw.
//!
//! A third game beside Paco Ŝako and Shako with a known answer: it is
//! strongly solved (the first player wins from the empty board), so
//! networks can be judged against perfect play by solvers others wrote.
//!
//! * Notation: a move is its column, a digit `1`–`7` as the solvers write
//!   it (the file letters `a`–`g` read too); a position is the columns
//!   played from the empty board (`4453`), the string the solvers read,
//!   and the empty board is `-`.
//! * Modules: [`board`] (two bitboards in the layout of Pascal Pons'
//!   solver), [`encode`] (the policy and input tables), and the game state
//!   implementing [`crate::Game`]; [`invariants`]: the checks of the fuzz target.

pub mod board;
pub mod encode;
mod game;
pub mod invariants;

pub use board::{Board, CELLS, HEIGHT, WIDTH};
pub use game::{GameState, EMPTY_BOARD};
