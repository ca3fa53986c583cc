//! # PacoZero self-play
//!
//! The self-play workers and their runner; the search they run is
//! `pacozero_search`.
//!
//! * [`config`]: [`SelfplayConfig`] from TOML (its `[search]` table is
//!   [`pacozero_search::SearchConfig`]).
//! * [`selfplay`](mod@selfplay): [`run_selfplay`], which plays games on all
//!   cores and writes `pacozero_data` chunks.
//! * [`game`]: one game as a resumable state machine, its rows and its end;
//!   [`play_game`] plays one on the calling thread.
//! * [`summary`]: [`Summary`], a run's totals and rates.
//! * [`bench`](mod@bench): [`bench_mcts`], the search throughput of self-play.
//!
//! Everything is generic over the engine's [`Game`], whose hooks include
//! start positions and auxiliary targets. Two games implement it: Paco
//! Ŝako (`pacozero_engine::paco::GameState`) and Shako
//! (`pacozero_engine::shako::GameState`).
//!
//! ```no_run
//! use pacozero_engine::paco::GameState;
//! use pacozero_search::UniformEvaluator;
//! use pacozero_selfplay::{run_selfplay, SelfplayConfig};
//! let cfg = SelfplayConfig::from_file("configs/selfplay.toml".as_ref())?;
//! let summary = run_selfplay::<GameState, _>(&cfg, &UniformEvaluator, "runs/x/data".as_ref(), 1000, true)?;
//! println!("{summary}");
//! # anyhow::Ok(())
//! ```
//!
//! ## Conventions
//!
//! * Running games with no legal action ("stuck") are draws, both in search
//!   and in self-play (reason `"stuck"`); games reaching `max_decisions` are
//!   draws (reason `"max_length"`), or, with `adjudicate_material` in a game
//!   with material (Shako), wins of the side that far ahead (reason
//!   `"material"`). Both cuts are *truncated* games, not decided ones: their
//!   rows are written with `truncated = true`, and neither the recorded
//!   result nor the length to the cut is a training target (the value
//!   target takes the search's root WDL, the moves-left target is masked;
//!   `pacozero_batch::targets`). `max_decisions` is a safety bound, meant
//!   to lie well above the games' normal lengths.
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

pub mod bench;
pub mod config;
pub mod game;
pub mod selfplay;
pub mod summary;

pub use bench::{bench_mcts, BenchReport};
pub use config::{SelfplayConfig, StartPositions};
pub use game::{game_id_of, game_seed, play_game, GameRecord};
pub use selfplay::run_selfplay;
pub use summary::Summary;

use pacozero_engine::Game;

/// The games self-play runs: every [`Game`] (its start positions,
/// auxiliary targets, end reasons and material are hooks of `Game`, in each
/// game's own `game.rs` in the engine). Kept as a name for the bounds that
/// still use it.
pub trait SelfplayGame: Game {}
impl<G: Game> SelfplayGame for G {}
