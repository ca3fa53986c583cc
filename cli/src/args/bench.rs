//! Arguments of `bench`: what it measures.

use super::GameArg;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchWhat,
}

#[derive(Subcommand, Debug)]
pub enum BenchWhat {
    /// Perft throughput: the start position (full-move and atomic), then the
    /// reference vectors' rule-heavy positions by tag, next to the platform's
    /// own timing of the same counts (their perft2_ms).
    Perft {
        /// Full-move depth from the start position.
        #[arg(long, default_value_t = 5)]
        depth: u32,
        /// Atomic depth from the start position.
        #[arg(long, default_value_t = 11)]
        atomic_depth: u32,
        /// Each rule-heavy position is timed this many times; the fastest counts.
        #[arg(long, default_value_t = 5)]
        repeat: u32,
        /// Positions file (the vectors' JSON lines, with perft2_full and perft2_ms); default: the bundled test vectors.
        #[arg(long)]
        positions: Option<PathBuf>,
    },
    /// MCTS simulations and node visits per second; with --model, the share of time in the network.
    Mcts {
        #[command(flatten)]
        game: GameArg,
        /// Seconds each measurement runs.
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        /// A network to measure besides the uniform evaluator.
        #[arg(long)]
        model: Option<PathBuf>,
        /// Worker threads (0 = all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Games searched at once per worker (their leaves form one batch).
        #[arg(long, default_value_t = 64)]
        games_per_thread: usize,
    },
    /// Peak memory of self-play with many concurrent games per worker (resident
    /// set size from /proc/self/status; games are written to a temporary directory).
    Memory {
        #[command(flatten)]
        game: GameArg,
        /// Concurrent games per worker thread.
        #[arg(long, default_value_t = 1000)]
        games_per_thread: usize,
        /// Worker threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Games to finish (default: threads x games per thread).
        #[arg(long)]
        games: Option<u64>,
        /// Decisions after which a game is a draw (200, shorter than self-play's
        /// 1000, to keep the measurement short).
        #[arg(long, default_value_t = 200)]
        max_decisions: u32,
        /// Simulations of a full search (cheap searches get a quarter).
        #[arg(long, default_value_t = 64)]
        sims: u32,
        /// `uniform` or `rollout`.
        #[arg(long, default_value = "uniform")]
        evaluator: String,
        /// Finished games buffered per chunk before it is written (their rows stay in memory until then).
        #[arg(long, default_value_t = 16)]
        games_per_chunk: usize,
        /// Keep the subtree of the played action between decisions (`search.tree_reuse`).
        #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
        tree_reuse: bool,
    },
    /// The analysis engine: queries per second and the network's batch fill
    /// with 1, 8 and 64 queries searched at once.
    Analysis {
        /// Network model file (default: the reference network `ref:quick-199eb03-gen28`).
        #[arg(long, default_value = "ref:quick-199eb03-gen28")]
        model: String,
        /// Queries per measurement (positions from seeded random games).
        #[arg(long, default_value_t = 128)]
        queries: usize,
        /// Simulations per query.
        #[arg(long, default_value_t = 200)]
        visits: u32,
        /// Concurrent queries measured (comma-separated).
        #[arg(long, default_value = "1,8,64", value_delimiter = ',')]
        concurrency: Vec<usize>,
        /// Threads of the network (0: all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
    },
    /// Network inference (batch 1, 32, 256) and training speed, against plain matrix multiplications.
    Net {
        #[command(flatten)]
        game: GameArg,
        /// Residual blocks.
        #[arg(long, default_value_t = 6)]
        blocks: u32,
        /// Channels of each block.
        #[arg(long, default_value_t = 64)]
        channels: u32,
        /// Seconds measured per figure.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
    },
}
