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
//! * [`book_compare`]: a network's (or a book's) turns and values at a
//!   reference book's positions, agreement by game phase.
//!
//! Everything is generic over [`SelfplayGame`], a [`Game`] that also knows
//! its start positions and auxiliary targets. Two games implement it: Paco
//! Ŝako (`pacozero_engine::paco::GameState`) and Shako
//! (`pacozero_engine::shako::GameState`).
//!
//! ```no_run
//! use pacozero_engine::paco::GameState;
//! use pacozero_selfplay::{run_selfplay, SelfplayConfig, UniformEvaluator};
//! let cfg = SelfplayConfig::from_file("selfplay/configs/selfplay.toml".as_ref())?;
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

pub mod book_compare;
pub mod config;
pub mod eval;
pub mod mcts;
pub mod platform_book;
pub mod selfplay;
pub mod turns;

pub use config::{Algorithm, SearchConfig, SelfplayConfig, StartPositions};
pub use eval::{masked_softmax, EvalOutput, EvalRequest, Evaluator, MixedEvaluator, RolloutEvaluator, UniformEvaluator};
pub use mcts::{evaluate_pending, search, Search, SearchResult};
pub use selfplay::{bench_mcts, game_seed, game_spec, play_game, run_selfplay, BenchReport, BookStarts, GameRecord, Summary};

use pacozero_engine::paco::{self, GameState, Rules, Status};
use pacozero_engine::{shako, Game};
use rand::{Rng, SeedableRng};

/// What self-play needs from a game beyond [`Game`] (its start and its
/// notation are there).
pub trait SelfplayGame: Game {
    /// Randomised start number `n`, deterministic from `n` (Paco: the
    /// Fischer-random setup `n % 960`; Shako: a few random plies from the
    /// standard start). `start_positions = "fischer_random"` uses it.
    fn random_start(n: u64) -> Self;
    /// The two auxiliary targets of a settled position (start of a turn),
    /// written to the data columns `mover_in_sako` and `mover_can_paco`;
    /// `None` in the middle of a turn. Paco: (the opponent threatens to unite
    /// with the mover's king, the mover threatens the opponent's king);
    /// Shako: (the mover is in check, the mover has a checking move).
    fn aux_targets(&self) -> Option<(bool, bool)>;
    /// Why a finished game ended (Paco: `"paco"`, `"repetition"`,
    /// `"no_progress"`; Shako: `"checkmate"`, `"stalemate"`, `"repetition"`,
    /// `"fifty_moves"`); `"running"` while it runs.
    fn end_reason(&self) -> &'static str;
    /// Material balance, White minus Black, in pawns, for games where
    /// material changes hands (Shako); `None` where it never does (Paco Ŝako
    /// has no captures). Games cut at their length cap can be adjudicated
    /// with it ([`GameLimits::adjudicate_material`]).
    fn material_balance(&self) -> Option<i32> {
        None
    }
}

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

impl SelfplayGame for GameState {
    fn random_start(n: u64) -> Self {
        GameState::new(paco::fischer_random((n % 960) as u16, Rules::OFFICIAL))
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
            // Other (optional-rule) draws, e.g. a king chain ending on the other king.
            #[allow(unreachable_patterns)]
            _ => "draw",
        }
    }
}

/// Random plies of a Shako random start: 2, 4 or 6, so White is to move.
fn shako_random_plies(n: u64) -> u64 {
    2 * (1 + n % 3)
}

impl SelfplayGame for shako::GameState {
    /// The standard start after 2, 4 or 6 (`2 * (1 + n % 3)`) uniformly random
    /// legal plies drawn from a generator seeded with `n`. A line that ends
    /// the game (none is known this short) is redrawn; after 16 such lines the
    /// standard start is used.
    fn random_start(n: u64) -> Self {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n ^ 0x5348_414B_4F5F_5354);
        for _ in 0..16 {
            let mut g = shako::GameState::startpos();
            for _ in 0..shako_random_plies(n) {
                let moves = g.legal_moves();
                if moves.is_empty() {
                    break;
                }
                g.play_unchecked(moves[rng.gen_range(0..moves.len())]);
            }
            if !g.status().is_over() {
                return g;
            }
        }
        shako::GameState::startpos()
    }

    /// Every Shako position is settled (a turn is one decision).
    fn aux_targets(&self) -> Option<(bool, bool)> {
        let pos = self.position();
        let gives_check = self.legal_moves().into_iter().any(|m| {
            let mut next = *pos;
            next.play_unchecked(m);
            next.in_check()
        });
        Some((pos.in_check(), gives_check))
    }

    fn end_reason(&self) -> &'static str {
        match self.status() {
            shako::Status::Running => "running",
            shako::Status::Checkmate(_) => "checkmate",
            shako::Status::Stalemate => "stalemate",
            shako::Status::RepetitionDraw => "repetition",
            shako::Status::FiftyMoveDraw => "fifty_moves",
        }
    }

    fn material_balance(&self) -> Option<i32> {
        let pos = self.position();
        Some(pos.material(pacozero_engine::Color::White) as i32 - pos.material(pacozero_engine::Color::Black) as i32)
    }
}
