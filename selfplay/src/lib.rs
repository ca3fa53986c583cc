//! # PacoZero self-play
//!
//! * [`mcts`]: MCTS over atomic decisions (PUCT or Gumbel root search), as a
//!   resumable state machine so that many games share one evaluator batch.
//! * [`eval`]: the batched [`Evaluator`] trait, [`UniformEvaluator`],
//!   [`RolloutEvaluator`] and (feature `net`) `NetworkEvaluator`.
//! * [`config`]: [`SelfplayConfig`] / [`SearchConfig`] from TOML.
//! * [`selfplay`](mod@selfplay): [`run_selfplay`], which plays games on all
//!   cores and writes `pacozero_data` chunks; [`bench_mcts`].
//!
//! Everything is generic over [`SelfplayGame`], a [`Game`] that also knows
//! its start positions and auxiliary targets.

pub mod config;
pub mod eval;
pub mod mcts;
pub mod selfplay;

pub use config::{Algorithm, SearchConfig, SelfplayConfig, StartPositions};
pub use eval::{masked_softmax, EvalOutput, EvalRequest, Evaluator, RolloutEvaluator, UniformEvaluator};
#[cfg(feature = "net")]
pub use eval::NetworkEvaluator;
pub use mcts::{search, Search, SearchResult};
pub use selfplay::{bench_mcts, play_game, run_selfplay, BenchReport, GameRecord, Summary};

use pacozero_engine::paco::{self, GameState, Position, Rules, Status};
use pacozero_engine::Game;

/// What self-play needs from a game beyond [`Game`].
pub trait SelfplayGame: Game {
    /// The standard start position.
    fn standard_start() -> Self;
    /// Randomised start number `n` (e.g. Fischer-random setup `n % 960`).
    fn random_start(n: u64) -> Self;
    /// Reads a position in the game's notation.
    fn from_notation(s: &str) -> anyhow::Result<Self>;
    /// Auxiliary targets `(mover_in_sako, mover_can_paco)` of a settled
    /// position (start of a turn); `None` in the middle of a turn.
    fn aux_targets(&self) -> Option<(bool, bool)>;
    /// Why a finished game ended (`"paco"`, `"repetition"`, `"no_progress"`, ...).
    fn end_reason(&self) -> &'static str;
}

impl SelfplayGame for GameState {
    fn standard_start() -> Self {
        GameState::new(Position::startpos())
    }
    fn random_start(n: u64) -> Self {
        GameState::new(paco::fischer_random((n % 960) as u16, Rules::OFFICIAL))
    }
    fn from_notation(s: &str) -> anyhow::Result<Self> {
        let pos: Position = s.trim().parse().map_err(|e| anyhow::anyhow!("{e}: {s:?}"))?;
        Ok(GameState::new(pos))
    }
    fn aux_targets(&self) -> Option<(bool, bool)> {
        let pos = self.position();
        if !pos.is_settled() {
            return None;
        }
        let me = pos.side_to_move();
        Some((paco::in_sako(pos, me), paco::in_sako(pos, me.other())))
    }
    fn end_reason(&self) -> &'static str {
        match self.status() {
            Status::Running => "running",
            Status::PacoVictory(_) => "paco",
            Status::RepetitionDraw => "repetition",
            Status::NoProgressDraw => "no_progress",
        }
    }
}
