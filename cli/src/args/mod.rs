//! All command-line types of the `pacozero` binary, one module per group
//! of commands: `rules`, `training`, `strength`, `books`, `engines`,
//! `bench`. The top level holds [`Cli`] and [`Command`].
// The doc comments of this module are the command line's help text (clap
// prints them verbatim in --help): `<run>` and `[net]` there are words for
// the user, not HTML or links for rustdoc.
#![allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]

use clap::{Parser, Subcommand};

mod bench;
mod books;
mod common;
mod engines;
mod rules;
mod strength;
mod training;

pub use bench::*;
pub use books::*;
pub use common::*;
pub use engines::*;
pub use rules::*;
pub use strength::*;
pub use training::*;

#[derive(Parser, Debug)]
#[command(name = "pacozero", version, about = "PacoZero: self-play reinforcement learning for Paco Ŝako")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// The arithmetic of the networks' tower on the CPU, for every command that runs a network: fp32 (the default), int8, or auto (int8 where the CPU has AVX-512 VNNI, else fp32). Wins over PACOZERO_PRECISION and a loop's [net] precision.
    #[arg(long, global = true, value_name = "PRECISION", value_parser = parse_precision)]
    pub precision: Option<pacozero_nn::NetPrecision>,
}

fn parse_precision(s: &str) -> Result<pacozero_nn::NetPrecision, String> {
    s.parse().map_err(|e: pacozero_nn::NnError| e.to_string())
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count leaves of the move tree (full moves, or atomic actions with --atomic).
    Perft(PerftArgs),
    /// Read JSON lines on stdin, answer each with the position's legal actions.
    Legal(LegalArgs),
    /// Draw a position in the terminal.
    Show(ShowArgs),
    /// Play self-play games and write them to Parquet.
    Selfplay(SelfplayArgs),
    /// Train a network on a run directory's games.
    Train(TrainArgs),
    /// Play a match between two players and rate it.
    Arena(ArenaArgs),
    /// Evaluate the models of a run in an object store: matches, ratings, report, promotion by the run's rule.
    Evaluate(EvaluateArgs),
    /// A league of many players (round robin or gauntlet, paired openings, resumable) and one rating list with intervals.
    League(LeagueArgs),
    /// Players against an external UCI engine at rising node budgets (Fairy-Stockfish for Shako): W/D/L and Elo per rung, and the budget where each player scores 50%.
    Ladder(LadderArgs),
    /// The closed loop: self-play, training, evaluation and promotion, generation after generation.
    Loop(LoopArgs),
    /// Opening books: build one by search, probe a position, export (JSON, the platform's format), import the platform's, compare with a network.
    Book(BookArgs),
    /// Search a position with a network and print the top turns and their lines.
    Analyze(AnalyzeArgs),
    /// A JSON-lines analysis engine: queries on stdin, answers on stdout (see the book's chapter "The analysis engine").
    Analysis(AnalysisArgs),
    /// A UCI engine on the network's search, on stdin and stdout (Shako as Fairy-Stockfish speaks it; see the book's chapter "The UCI engine").
    Uci(UciArgs),
    /// Play against the bot in the terminal.
    Play(PlayArgs),
    /// Measure throughput.
    Bench(BenchArgs),
    /// Write a run directory's plots and HTML report (report.html).
    Report(ReportArgs),
    /// The games tables of chunk directories (self-play data, match games): export them.
    Games(GamesArgs),
    /// Paco-in-1 and Paco-in-2 positions proved by exhaustive search: build the suite, or measure a network on it.
    Tactics(TacticsArgs),
    /// Judge a network against perfect play: on a suite of positions a solver labelled (Connect Four's is bundled), how often its move is optimal, and its value's accuracy.
    Solved(SolvedArgs),
    /// Write a network for other tools: ONNX, or the platform's bot file (see the book's chapter "ONNX export").
    Export(ExportArgs),
    /// Print the effective configuration of a loop, self-play or training file as TOML: every key, defaults filled in, as the command that reads the file uses it (or, with --diff, the keys where two files differ).
    Config(ConfigArgs),
}
