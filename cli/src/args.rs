//! All command-line types of the `pacozero` binary.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(name = "pacozero", version, about = "PacoZero: self-play reinforcement learning for Paco Ŝako")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count leaves of the move tree (full moves, or atomic actions with --atomic).
    Perft(PerftArgs),
    /// Read JSON lines on stdin, answer each with the position's legal actions.
    Legal(LegalArgs),
    /// Draw a position in the terminal.
    Show(ShowArgs),
    /// Measure throughput.
    Bench(BenchArgs),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum GameKind {
    #[default]
    Paco,
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Position in the platform's FEN (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    #[arg(long)]
    pub depth: u32,
    /// Count atomic actions (one action per ply) instead of full moves.
    #[arg(long)]
    pub atomic: bool,
    /// Print the count below each first move.
    #[arg(long)]
    pub divide: bool,
    #[arg(long, value_enum, default_value_t)]
    pub game: GameKind,
}

#[derive(Args, Debug)]
pub struct LegalArgs {
    #[arg(long, value_enum, default_value_t)]
    pub game: GameKind,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    #[arg(long)]
    pub fen: Option<String>,
    /// Actions to play first (e.g. "Le2 Pe4").
    #[arg(long)]
    pub actions: Option<String>,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchWhat,
}

#[derive(Subcommand, Debug)]
pub enum BenchWhat {
    /// Full-move and atomic perft throughput (start position and busy middlegames).
    Perft {
        /// Full-move depth from the start position.
        #[arg(long, default_value_t = 5)]
        depth: u32,
        /// Middlegame positions file (vectors JSON lines); default: the bundled test vectors.
        #[arg(long)]
        positions: Option<PathBuf>,
    },
}
