//! Arguments of the commands that play or analyse with a network:
//! `analyze`, `analysis`, `uci`, `play`.

use super::GameArg;
use clap::{Args, ValueEnum};
use pacozero_engine::GameKind;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// Network model file (or a run directory: its current model; `ref:<name>`: a reference network).
    #[arg(long)]
    pub model: PathBuf,
    /// Position in the game's FEN (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Visits of the search (`--sims` is read too).
    #[arg(long = "visits", alias = "sims", default_value_t = pacozero_protocol::analysis::DEFAULT_VISITS)]
    pub sims: u32,
    /// Turns shown.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Longest principal variation, in turns after the first (the analysis
    /// engine's and the Python package's default too).
    #[arg(long, default_value_t = pacozero_protocol::analysis::DEFAULT_PV_TURNS)]
    pub pv_turns: usize,
    #[command(flatten)]
    pub game: GameArg,
}

#[derive(Args, Debug)]
pub struct AnalysisArgs {
    /// Network model file (or a run directory: its current model; `ref:<name>`: a reference network). Its game (Paco Ŝako or Shako) is the engine's.
    #[arg(long)]
    pub model: String,
    /// Visits of a query that gives neither `max_visits` nor `max_time_ms`.
    #[arg(long, default_value_t = pacozero_protocol::analysis::DEFAULT_VISITS)]
    pub visits: u32,
    /// The most simulations a query may ask for (and the budget of a query limited by time only).
    #[arg(long, default_value_t = 1_000_000)]
    pub visit_cap: u32,
    /// Turns reported when a query does not say (`top_moves`).
    #[arg(long, default_value_t = 5)]
    pub top_moves: usize,
    /// Queries searched at once; their leaves share each network call.
    #[arg(long, default_value_t = 64)]
    pub max_concurrent: usize,
    /// Threads of the network (0: all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

#[derive(Args, Debug)]
pub struct UciArgs {
    /// Network model file (or a run directory: its current model; `ref:<name>`: a reference network); the UCI option `Model` changes it.
    #[arg(long)]
    pub model: String,
    /// The game (default: the network's); a network of another game is refused.
    #[arg(long)]
    pub game: Option<GameKind>,
    /// Threads of the network's inference at the start (the UCI option `Threads`).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Simulations of a `go` without a limit.
    #[arg(long, default_value_t = pacozero_protocol::analysis::DEFAULT_VISITS)]
    pub visits: u32,
    /// The most simulations of one search (`go infinite` waits there for `stop`).
    #[arg(long, default_value_t = 1_000_000)]
    pub visit_cap: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Side {
    /// White (also `white`).
    #[value(name = "w", alias = "white")]
    White,
    /// Black (also `black`).
    #[value(name = "b", alias = "black")]
    Black,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Network model file (or a run directory: its current model; `ref:<name>`: a reference network).
    #[arg(long)]
    pub model: PathBuf,
    /// Visits of each of the bot's decisions (200, a quarter of the analysing
    /// commands' 800, so that it answers at once; `--sims` is read too).
    #[arg(long = "visits", alias = "sims", default_value_t = 200)]
    pub sims: u32,
    /// Your colour.
    #[arg(long, value_enum, default_value = "w")]
    pub color: Side,
    /// Start position in the platform's FEN (default: the standard one).
    #[arg(long)]
    pub fen: Option<String>,
    #[command(flatten)]
    pub game: GameArg,
}
