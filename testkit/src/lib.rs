//! # PacoZero test support
//!
//! What the tests of several crates share, in one place instead of copies
//! and `#[path]` includes (a dev-dependency only; nothing ships it).
//!
//! * [`rng`]: [`Rng`], one small seeded random stream (SplitMix64).
//! * [`nim`]: a toy game with two-decision turns and a known theory.
//! * [`constant`]: [`Constant`], an evaluator with uniform priors and a fixed
//!   (win, draw, loss) for each mover.
//! * [`watchdog`]: [`Watchdog`], which aborts a test that hangs.
//! * [`engines`]: a UCI engine script that marks that it was started.
//! * [`syscalls`]: a program traced under `strace`, and the order a
//!   crash-safe write needs.

pub mod constant;
pub mod engines;
pub mod nim;
pub mod rng;
pub mod syscalls;
pub mod watchdog;

pub use constant::Constant;
pub use rng::Rng;
pub use watchdog::{Watchdog, HANG};
