//! Self-play and search configuration, read from TOML.
//!
//! Every key is optional (missing keys take the [`Default`] values, which are
//! the values in `configs/selfplay.toml`); unknown keys are errors.
//! [`SelfplayConfig::validate`] range-checks every key and names the key in
//! its error message.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// Root search algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// AlphaZero PUCT with Dirichlet noise at the root and visit-count policy targets.
    Puct,
    /// Gumbel root search with sequential halving and completed-Q improved
    /// policy targets (Danihelka et al. 2022); interior nodes use the
    /// deterministic Gumbel MuZero selection rule.
    Gumbel,
}

/// Where games start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartPositions {
    /// The standard setup.
    Standard,
    /// One of the 960 Fischer-random setups, drawn from the game's seed.
    FischerRandom,
    /// A FEN drawn (from the game's seed) from the lines of `fen_file`.
    FenFile,
    /// A position of the opening book `book_file` (written by `pacozero book
    /// build` or `book import`), drawn from the game's seed with probability proportional to
    /// `visits^(1 / book_temperature)`.
    Book,
}

/// Search settings (the `[search]` table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// Root algorithm: `"puct"` or `"gumbel"`.
    pub algorithm: Algorithm,
    /// Simulations (leaf evaluations) of a full search (1..=100000).
    pub full_simulations: u32,
    /// Simulations of a cheap search (playout-cap randomisation) (1..=100000).
    pub cheap_simulations: u32,
    /// PUCT exploration constant (> 0, <= 100).
    pub c_puct: f32,
    /// First-play urgency: an unvisited child's Q is the parent's Q minus this
    /// (interior nodes) (0..=2).
    pub fpu_reduction: f32,
    /// First-play urgency reduction at the root (0..=2).
    pub fpu_reduction_root: f32,
    /// Dirichlet noise concentration at the root, PUCT full searches (> 0, <= 10).
    pub dirichlet_alpha: f32,
    /// Weight of the Dirichlet noise mixed into root priors (0..=1; 0 = off).
    pub dirichlet_epsilon: f32,
    /// Gumbel: actions sampled at the root before sequential halving (1..=65536).
    pub gumbel_max_considered: u32,
    /// Gumbel: `c_visit` of the Q transform sigma (>= 0).
    pub gumbel_c_visit: f32,
    /// Gumbel: `c_scale` of the Q transform sigma (> 0, <= 1000; mctx uses 0.1).
    pub gumbel_c_scale: f32,
    /// Gumbel: add Gumbel noise at the root of full searches (`false` = deterministic play).
    pub gumbel_noise: bool,
    /// Keep the subtree of the played action for the next decision.
    pub tree_reuse: bool,
    /// Treat positions where the mover is sure to win this turn
    /// (`Game::can_win_this_turn`: Paco Ŝako, uniting with the king through
    /// any chain) as won leaves, and at the root play a winning action at
    /// once without searching.
    pub win_detection: bool,
    /// Score a position below the root that repeats an earlier one of the
    /// game since the last progress
    /// ([`pacozero_engine::Game::repeats_earlier_position`]) as a drawn leaf,
    /// instead of only the third occurrence that the rules draw. Stricter than
    /// the two-fold rule of Lc0 and Stockfish, which count only a cycle inside
    /// the search: here a side can reach a "draw" by returning to any position
    /// of the game. Off: in self-play it cut the quick loop's draws from 5-12%
    /// to 1-4% of the games, but the network lost 36% of a match to the
    /// recipe's (-100 +- 62 Elo; docs/ablations.md): the search's root WDL,
    /// half of the value target, then predicted draws the game did not have.
    pub twofold_draws: bool,
    /// What a draw costs the side searching (the root's mover), in units of
    /// win minus loss (Lc0's draw score, negated): its own values count a
    /// node's draw share at `-contempt`, its opponent's at `+contempt`, so
    /// the utility stays zero-sum. Only selection and the move choice see it;
    /// the recorded root WDL is the plain one (0..=1; 0 = off).
    pub contempt: f32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            algorithm: Algorithm::Gumbel,
            full_simulations: 64,
            cheap_simulations: 16,
            c_puct: 1.5,
            fpu_reduction: 0.2,
            fpu_reduction_root: 0.0,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            gumbel_max_considered: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 0.1,
            gumbel_noise: true,
            tree_reuse: true,
            win_detection: true,
            twofold_draws: false,
            contempt: 0.0,
        }
    }
}

/// Self-play settings (top level of the TOML file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfplayConfig {
    /// Master seed: every random choice (start positions, noise, sampling,
    /// playout caps, resignation opt-outs) is derived from it and the game index.
    pub seed: u64,
    /// Worker threads (0 = one per available core) (0..=1024).
    pub threads: usize,
    /// Games played concurrently by each worker; their leaf requests form one
    /// evaluator batch (1..=65536).
    pub games_per_thread: usize,
    /// Games per output chunk (each worker writes a chunk every this many games) (1..=1000000).
    pub games_per_chunk: usize,
    /// Decisions after which a game is adjudicated a draw (1..=100000).
    pub max_decisions: u32,
    /// A game cut at `max_decisions` is won by the side ahead by at least this
    /// much material (pawns: P 1, E 2, N 3, B 3, C 4, R 5, Q 9; Shako only,
    /// Paco Ŝako has no captures) instead of drawn; 0 = always drawn (0..=100).
    pub adjudicate_material: u32,
    /// Start positions: `"standard"`, `"fischer_random"`, `"fen_file"` or `"book"`.
    pub start_positions: StartPositions,
    /// File with one FEN per line (blank lines and `#` comments skipped), for
    /// `start_positions = "fen_file"`.
    pub fen_file: Option<PathBuf>,
    /// Opening book (Parquet, from `pacozero book build` or `book import`), for
    /// `start_positions = "book"`.
    pub book_file: Option<PathBuf>,
    /// Book position weights are `visits^(1 / book_temperature)`: 1 follows
    /// the book's visits, larger values flatten towards uniform, smaller ones
    /// concentrate on the most visited positions (0.01..=100).
    pub book_temperature: f64,
    /// Fraction of decisions given a full search (their policy target is
    /// trained); the rest get `search.cheap_simulations` (0..=1).
    pub full_search_fraction: f64,
    /// Sampling temperature for PUCT move choice during the first
    /// `temperature_decisions` decisions (0..=10; 0 = most visited).
    pub temperature: f32,
    /// Decisions played with `temperature` (0..=100000).
    pub temperature_decisions: u32,
    /// Temperature afterwards (0..=10).
    pub final_temperature: f32,
    /// Gumbel move choice: during the first this many decisions the move is
    /// sampled from the search's improved policy (more varied games), after
    /// them it is the sequential-halving winner (0..=100000; 0 = always the
    /// winner, as Gumbel MuZero plays).
    pub gumbel_sample_decisions: u32,
    /// Resign when the mover's root value stays below this for
    /// `resign_consecutive` of its decisions in a row (-1..=0; -1 = never).
    pub resign_threshold: f32,
    /// Consecutive decisions below the threshold needed to resign (1..=1000).
    pub resign_consecutive: u32,
    /// Fraction of games that never resign (to measure false resignations) (0..=1).
    pub no_resign_fraction: f64,
    /// Sample weight written for each position (finite, >= 0).
    pub weight: f32,
    /// Weight of one random playout mixed into the network's value at every
    /// leaf (AlphaGo's leaf evaluation, `(1 − w)·network + w·playout`); the
    /// priors stay the network's. 0 = the network alone. Playouts see
    /// tactics a young network misses, at a small fraction of a network
    /// call's cost (0..=1; ignored by rollout self-play).
    pub playout_mix: f32,
    /// Search settings.
    pub search: SearchConfig,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            seed: 0,
            threads: 0,
            games_per_thread: 64,
            games_per_chunk: 256,
            max_decisions: 1000,
            adjudicate_material: 0,
            start_positions: StartPositions::Standard,
            fen_file: None,
            book_file: None,
            book_temperature: 1.0,
            full_search_fraction: 0.25,
            temperature: 1.0,
            temperature_decisions: 30,
            final_temperature: 0.0,
            gumbel_sample_decisions: 0,
            resign_threshold: -0.95,
            resign_consecutive: 3,
            no_resign_fraction: 0.1,
            weight: 1.0,
            playout_mix: 0.0,
            search: SearchConfig::default(),
        }
    }
}

fn check<T: PartialOrd + std::fmt::Display>(key: &str, v: T, lo: T, hi: T) -> Result<()> {
    if !(v >= lo && v <= hi) {
        bail!("config key `{key}` = {v} is out of range: must be in {lo}..={hi}");
    }
    Ok(())
}

impl SearchConfig {
    /// Range-checks every key (errors name the key, prefixed `search.`).
    pub fn validate(&self) -> Result<()> {
        check("search.full_simulations", self.full_simulations, 1, 100_000)?;
        check("search.cheap_simulations", self.cheap_simulations, 1, 100_000)?;
        if !(self.c_puct > 0.0 && self.c_puct <= 100.0) {
            bail!("config key `search.c_puct` = {} is out of range: must be > 0 and <= 100", self.c_puct);
        }
        check("search.fpu_reduction", self.fpu_reduction, 0.0, 2.0)?;
        check("search.fpu_reduction_root", self.fpu_reduction_root, 0.0, 2.0)?;
        if !(self.dirichlet_alpha > 0.0 && self.dirichlet_alpha <= 10.0) {
            bail!("config key `search.dirichlet_alpha` = {} is out of range: must be > 0 and <= 10", self.dirichlet_alpha);
        }
        check("search.dirichlet_epsilon", self.dirichlet_epsilon, 0.0, 1.0)?;
        check("search.gumbel_max_considered", self.gumbel_max_considered, 1, 65_536)?;
        check("search.gumbel_c_visit", self.gumbel_c_visit, 0.0, 1e6)?;
        check("search.contempt", self.contempt, 0.0, 1.0)?;
        if !(self.gumbel_c_scale > 0.0 && self.gumbel_c_scale <= 1e3) {
            bail!("config key `search.gumbel_c_scale` = {} is out of range: must be > 0 and <= 1000", self.gumbel_c_scale);
        }
        Ok(())
    }
}

impl SelfplayConfig {
    /// Parses TOML (unknown keys are errors) and validates.
    pub fn from_toml_str(text: &str) -> Result<Self> {
        let cfg: SelfplayConfig = toml::from_str(text).map_err(|e| anyhow::anyhow!("invalid self-play config: {e}"))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads and validates a TOML file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading self-play config {}", path.display()))?;
        Self::from_toml_str(&text).with_context(|| format!("in {}", path.display()))
    }

    /// The file at `path`, or the defaults without one.
    pub fn from_optional_file(path: Option<&Path>) -> Result<Self> {
        path.map_or_else(|| Ok(Self::default()), Self::from_file)
    }

    /// The configuration as TOML.
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).expect("config serialises")
    }

    /// FNV-1a 64 of the TOML serialisation, as 16 hex digits (recorded per game).
    pub fn config_hash(&self) -> String {
        format!("{:016x}", fnv1a64(self.to_toml_string().as_bytes()))
    }

    /// Game length cap and adjudication of cut games.
    pub fn limits(&self) -> crate::GameLimits {
        crate::GameLimits { max_decisions: self.max_decisions, adjudicate_material: self.adjudicate_material }
    }

    /// Range-checks every key; the error names the key.
    pub fn validate(&self) -> Result<()> {
        check("threads", self.threads, 0, 1024)?;
        check("games_per_thread", self.games_per_thread, 1, 65_536)?;
        check("games_per_chunk", self.games_per_chunk, 1, 1_000_000)?;
        check("max_decisions", self.max_decisions, 1, 100_000)?;
        check("adjudicate_material", self.adjudicate_material, 0, 100)?;
        if self.start_positions == StartPositions::FenFile && self.fen_file.is_none() {
            bail!("config key `fen_file` is required when `start_positions` = \"fen_file\"");
        }
        if self.start_positions == StartPositions::Book && self.book_file.is_none() {
            bail!("config key `book_file` is required when `start_positions` = \"book\"");
        }
        check("book_temperature", self.book_temperature, 0.01, 100.0)?;
        check("full_search_fraction", self.full_search_fraction, 0.0, 1.0)?;
        check("temperature", self.temperature, 0.0, 10.0)?;
        check("temperature_decisions", self.temperature_decisions, 0, 100_000)?;
        check("final_temperature", self.final_temperature, 0.0, 10.0)?;
        check("gumbel_sample_decisions", self.gumbel_sample_decisions, 0, 100_000)?;
        check("resign_threshold", self.resign_threshold, -1.0, 0.0)?;
        check("resign_consecutive", self.resign_consecutive, 1, 1000)?;
        check("no_resign_fraction", self.no_resign_fraction, 0.0, 1.0)?;
        check("playout_mix", self.playout_mix, 0.0, 1.0)?;
        if !(self.weight.is_finite() && self.weight >= 0.0) {
            bail!("config key `weight` = {} is out of range: must be finite and >= 0", self.weight);
        }
        self.search.validate()
    }

    /// Worker threads actually used.
    pub fn effective_threads(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
        }
    }
}

pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}
