//! # PacoZero self-play
//!
//! * [`mcts`]: MCTS over atomic decisions (PUCT or Gumbel root search), as a
//!   resumable state machine so that many games share one evaluator batch.
//! * [`eval`]: the batched [`Evaluator`] trait, [`UniformEvaluator`],
//!   [`RolloutEvaluator`] and [`MixedEvaluator`]; the network's evaluator,
//!   `NetworkEvaluator`, is in `pacozero_nn` (self-play links no network code).
//! * [`config`]: [`SelfplayConfig`] / [`SearchConfig`] from TOML.
//! * [`selfplay`](mod@selfplay): [`run_selfplay`], which plays games on all
//!   cores and writes `pacozero_data` chunks; [`bench_mcts`].
//! * [`turns`]: a search tree's decisions grouped into Paco Ŝako turns
//!   (analysis, opening books, the Python package).
//! * [`platform_book`]: the platform's opening books imported (every move
//!   replayed by the engine) and exported.
//! * [`analysis`]: the JSON-lines analysis engine (`pacozero analysis`):
//!   concurrent queries whose leaves share network calls.
//! * [`book_compare`]: a network's (or a book's) turns and values at a
//!   reference book's positions, agreement by game phase.
//!
//! Everything is generic over the engine's [`Game`], whose hooks include
//! start positions and auxiliary targets. Two games implement it: Paco
//! Ŝako (`pacozero_engine::paco::GameState`) and Shako
//! (`pacozero_engine::shako::GameState`).
//!
//! ```no_run
//! use pacozero_engine::paco::GameState;
//! use pacozero_selfplay::{run_selfplay, SelfplayConfig, UniformEvaluator};
//! let cfg = SelfplayConfig::from_file("configs/selfplay.toml".as_ref())?;
//! let summary = run_selfplay::<GameState, _>(&cfg, &UniformEvaluator, "runs/x/data".as_ref(), 1000, true)?;
//! println!("{summary}");
//! # anyhow::Ok(())
//! ```
//!
//! ## Conventions
//!
//! * A decision is one atomic action (lift, place, promotion); a turn is
//!   several decisions of one player. Tree statistics are kept from White's
//!   point of view and signed by the mover of the *parent* at selection, so
//!   the value flips exactly when `to_move()` changes.
//! * Every expanded node owns its game state (with repetition history), so
//!   repetition draws are seen by search. The tree is never merged by hash.
//! * Running games with no legal action ("stuck") are draws, both in search
//!   and in self-play (reason `"stuck"`); games reaching `max_decisions` are
//!   draws (reason `"max_length"`), or, with `adjudicate_material` in a game
//!   with material (Shako), wins of the side that far ahead (reason
//!   `"material"`).
//! * Randomness: game `i` of a run uses `ChaCha8Rng` seeded with
//!   `game_seed(cfg.seed, i)` for its start position, noise, move sampling,
//!   playout caps and resignation opt-out, so a run is reproducible for a
//!   deterministic evaluator regardless of thread scheduling.
//! * Playout-cap randomisation: a decision gets `full_simulations` with
//!   probability `full_search_fraction` (row `full_search = true`), otherwise
//!   `cheap_simulations`. Decisions with a single legal action always get a
//!   cheap search. PUCT: Dirichlet noise only in full searches, moves sampled
//!   with the temperature schedule. Gumbel: Gumbel noise in every search (it
//!   is the move sampler), move = sequential-halving winner.

pub mod analysis;
pub mod book_compare;
pub mod config;
pub mod eval;
pub mod mcts;
pub mod platform_book;
pub mod runs;
pub mod selfplay;
pub mod turns;

pub use config::{Algorithm, SearchConfig, SelfplayConfig, StartPositions};
pub use eval::{masked_softmax, EvalOutput, EvalRequest, Evaluator, MixedEvaluator, RolloutEvaluator, UniformEvaluator};
pub use mcts::{evaluate_pending, search, Search, SearchResult};
pub use runs::{baseline_evaluator, check_data_dir, data_spec, derive_seed, spec_of};
pub use selfplay::{bench_mcts, game_seed, game_spec, mix64, play_game, run_selfplay, BenchReport, BookStarts, GameRecord, Summary};

use pacozero_engine::Game;

/// The games self-play runs: every [`Game`] (its start positions,
/// auxiliary targets, end reasons and material are hooks of `Game`, in each
/// game's own `game.rs` in the engine). Kept as a name for the bounds that
/// still use it.
pub trait SelfplayGame: Game {}
impl<G: Game> SelfplayGame for G {}

/// How long a game may run and how a game cut at that length ends; shared
/// by self-play and the arena so both score cut games alike.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameLimits {
    /// Decisions after which the game is cut.
    pub max_decisions: u32,
    /// A cut game is won by the side ahead by at least this much material
    /// (pawns; games with material only), otherwise drawn; 0 = always drawn.
    pub adjudicate_material: u32,
}

impl GameLimits {
    /// The winner of a game cut in `state` (`None`: a draw).
    pub fn cut_winner<G: SelfplayGame>(&self, state: &G) -> Option<pacozero_engine::Color> {
        let balance = state.material_balance()?;
        if self.adjudicate_material == 0 || balance.unsigned_abs() < self.adjudicate_material {
            return None;
        }
        Some(if balance > 0 { pacozero_engine::Color::White } else { pacozero_engine::Color::Black })
    }
}
