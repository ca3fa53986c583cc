//! Self-play configuration, read from TOML (its `[search]` table is
//! [`pacozero_search::SearchConfig`]).
//!
//! Every key is optional (missing keys take the [`Default`] values, which are
//! the values in `configs/selfplay.toml`); unknown keys are errors.
//! [`SelfplayConfig::validate`] range-checks every key and names the key in
//! its error message.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use pacozero_engine::DEFAULT_ENCODING;
use pacozero_search::config::check_range as check;
use pacozero_search::{GameLimits, SearchConfig};
use serde::{Deserialize, Serialize};

/// Where games start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartPositions {
    /// The standard setup.
    Standard,
    /// One of the 960 Fischer-random setups, drawn from the game's seed
    /// (`fischer_random`; `fischer-random` is read too).
    #[serde(alias = "fischer-random")]
    FischerRandom,
    /// A FEN drawn (from the game's seed) from the lines of `fen_file`.
    FenFile,
    /// A position of the opening book `book_file` (written by `pacozero book
    /// build` or `book import`), drawn from the game's seed with probability proportional to
    /// `visits^(1 / book_temperature)`.
    Book,
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
    /// Decisions after which a game is cut (1..=100000): a safety bound, to
    /// be set well above the games' normal lengths. A cut game is recorded
    /// as a draw (reason `max_length`) and its rows as truncated: it trains
    /// no result and no moves left.
    pub max_decisions: u32,
    /// A game cut at `max_decisions` is recorded as won by the side ahead by
    /// at least this much material (pawns: P 1, E 2, N 3, B 3, C 4, R 5, Q 9;
    /// Shako only, Paco Ŝako has no captures; reason `material`) instead of
    /// drawn; 0 = always drawn (0..=100). Only the record: the rows are
    /// truncated either way, so the adjudicated win is never a training
    /// target.
    pub adjudicate_material: u32,
    /// Start positions: `"standard"`, `"fischer_random"`, `"fen_file"` or `"book"`.
    pub start_positions: StartPositions,
    /// With `start_positions = "fischer_random"`, this share of the games
    /// starts from the standard setup instead, where the platform's players
    /// and its bot's book start (0..=1). Their Gumbel noise makes them differ.
    pub standard_fraction: f64,
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
    /// The network input encoding written to the data (one of the game's
    /// `Encode::ENCODINGS`: `"pacozero"`, or for Paco Ŝako `"platform"`, the
    /// platform's own input); a network self-play runs with must read it. A
    /// loop sets it from its `[net] encoding`; `pacozero selfplay` with a
    /// model, from the model. Default `"pacozero"` (left out of the TOML,
    /// so that the configuration hash of earlier runs stays the same).
    #[serde(skip_serializing_if = "is_default_encoding")]
    pub encoding: String,
    /// Search settings: the `[search]` table of a self-play file,
    /// `[selfplay.search]` of a loop file.
    pub search: SearchConfig,
}

fn is_default_encoding(name: &str) -> bool {
    name == DEFAULT_ENCODING
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
            standard_fraction: 0.0,
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
            encoding: DEFAULT_ENCODING.to_string(),
            search: SearchConfig::default(),
        }
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

    /// The configuration as TOML.
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).expect("config serialises")
    }

    /// FNV-1a 64 of the TOML serialisation, as 16 hex digits (recorded per game).
    pub fn config_hash(&self) -> String {
        format!("{:016x}", fnv1a64(self.to_toml_string().as_bytes()))
    }

    /// Game length cap and adjudication of cut games.
    pub fn limits(&self) -> GameLimits {
        GameLimits { max_decisions: self.max_decisions, adjudicate_material: self.adjudicate_material }
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
        check("standard_fraction", self.standard_fraction, 0.0, 1.0)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_toml_round_trips_and_leaves_the_default_encoding_out() {
        let cfg = SelfplayConfig { seed: 7, threads: 3, max_decisions: 321, ..SelfplayConfig::default() };
        let text = cfg.to_toml_string();
        assert!(text.contains("seed = 7") && text.contains("max_decisions = 321"), "{text}");
        // Runs from before the key existed keep their configuration hash.
        assert!(!text.contains("encoding"), "{text}");
        let back = SelfplayConfig::from_toml_str(&text).unwrap();
        assert_eq!(back.to_toml_string(), text);
        let platform = SelfplayConfig { encoding: "platform".into(), ..cfg.clone() };
        assert!(platform.to_toml_string().contains("encoding = \"platform\""));
        assert_eq!(SelfplayConfig::from_toml_str(&platform.to_toml_string()).unwrap().encoding, "platform");
    }

    #[test]
    fn the_hash_is_fnv1a_of_the_toml() {
        // FNV-1a 64's published test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        let cfg = SelfplayConfig::default();
        let h = cfg.config_hash();
        assert_eq!(h, format!("{:016x}", fnv1a64(cfg.to_toml_string().as_bytes())));
        assert_eq!(h.len(), 16);
        assert_ne!(h, SelfplayConfig { seed: 1, ..cfg }.config_hash(), "any key changes it");
    }

    #[test]
    fn files_are_read_and_their_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sp.toml");
        std::fs::write(&path, "seed = 11\ngames_per_thread = 5\n").unwrap();
        let cfg = SelfplayConfig::from_file(&path).unwrap();
        assert_eq!((cfg.seed, cfg.games_per_thread), (11, 5));
        std::fs::write(&path, "games_per_thread = 0\n").unwrap();
        let e = format!("{:#}", SelfplayConfig::from_file(&path).unwrap_err());
        assert!(e.contains("sp.toml") && e.contains("games_per_thread"), "{e}");
        let e = format!("{:#}", SelfplayConfig::from_file(&dir.path().join("none.toml")).unwrap_err());
        assert!(e.contains("none.toml"), "{e}");
    }

    #[test]
    fn start_positions_from_files_need_their_file() {
        let base = SelfplayConfig::default();
        assert!(base.validate().is_ok());
        let e = SelfplayConfig { start_positions: StartPositions::FenFile, ..base.clone() }.validate().unwrap_err().to_string();
        assert!(e.contains("fen_file"), "{e}");
        let e = SelfplayConfig { start_positions: StartPositions::Book, ..base.clone() }.validate().unwrap_err().to_string();
        assert!(e.contains("book_file"), "{e}");
        // A file given where the start positions do not read it is no error.
        assert!(SelfplayConfig { book_file: Some("b.book".into()), fen_file: Some("f.fen".into()), ..base.clone() }.validate().is_ok());
        assert!(SelfplayConfig { start_positions: StartPositions::Book, book_file: Some("b.book".into()), ..base }.validate().is_ok());
    }

    #[test]
    fn the_weight_must_be_finite_and_not_negative() {
        for w in [0.0, 0.5, 3.0] {
            assert!(SelfplayConfig { weight: w, ..SelfplayConfig::default() }.validate().is_ok(), "{w}");
        }
        for w in [-1.0, f32::INFINITY, f32::NAN] {
            let e = SelfplayConfig { weight: w, ..SelfplayConfig::default() }.validate().unwrap_err().to_string();
            assert!(e.contains("`weight`"), "{w}: {e}");
        }
    }

    #[test]
    fn zero_threads_means_every_core() {
        assert_eq!(SelfplayConfig { threads: 3, ..SelfplayConfig::default() }.effective_threads(), 3);
        assert_eq!(SelfplayConfig { threads: 1, ..SelfplayConfig::default() }.effective_threads(), 1);
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        assert_eq!(SelfplayConfig { threads: 0, ..SelfplayConfig::default() }.effective_threads(), cores);
    }
}
