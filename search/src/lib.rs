//! # PacoZero search
//!
//! The search library that self-play, matches, books, the protocols
//! (`pacozero_protocol`) and the Python package share; it knows games only
//! through the engine's [`Game`] trait and networks only through
//! [`Evaluator`].
//!
//! * [`mcts`]: MCTS over atomic decisions (PUCT or Gumbel root search), as a
//!   resumable state machine so that many searches share one evaluator batch.
//! * [`eval`]: the batched [`Evaluator`] trait, [`UniformEvaluator`],
//!   [`RolloutEvaluator`] and [`MixedEvaluator`]; the network's evaluator,
//!   `NetworkEvaluator`, is in `pacozero_nn`, which implements this trait.
//! * [`quiesce`]: [`QuiescentEvaluator`], another evaluator's value taken at
//!   the end of a leaf's capture line (Shako), where the material has settled.
//! * [`config`]: [`SearchConfig`] (the `[search]` table of a configuration).
//! * [`turns`]: a search tree's decisions grouped into whole turns
//!   (analysis, opening books, the Python package).
//! * [`GameLimits`] (module `limits`): how long a game may run and how a cut game ends.
//! * [`seeds`]: the seed mixing every caller derives its random streams with.
//!
//! ## Conventions
//!
//! * A decision is one atomic action (lift, place, promotion); a turn is
//!   several decisions of one player. Tree statistics are kept from White's
//!   point of view and signed by the mover of the *parent* at selection, so
//!   the value flips exactly when `to_move()` changes.
//! * Every expanded node owns its game state (with repetition history), so
//!   repetition draws are seen by search. The tree is never merged by hash.
//! * Running games with no legal action ("stuck") are draws in search.

pub mod config;
pub mod eval;
mod limits;
pub mod mcts;
pub mod quiesce;
pub mod seeds;
pub mod turns;

pub use config::{Algorithm, SearchConfig};
pub use eval::{baseline_evaluator, masked_softmax, EvalOutput, EvalRequest, Evaluator, MixedEvaluator, RolloutEvaluator, UniformEvaluator};
pub use limits::GameLimits;
pub use mcts::{evaluate_pending, search, two_turn_win, ChildStats, Proof, Proven, Search, SearchResult, TwoTurnWin, TWO_TURN_BUDGET};
pub use quiesce::{material_wdl, QuiescentEvaluator, MATERIAL_SCALE};
pub use seeds::{derive_seed, mix64};

pub use pacozero_engine::Game;
