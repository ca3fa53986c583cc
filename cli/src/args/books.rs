//! Arguments of `book`: build, probe, export, import, compare.

use super::GameArg;
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct BookArgs {
    #[command(subcommand)]
    pub what: BookCommand,
}

#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Build (or extend) an opening book by search from the start position(s).
    Build {
        /// Network model file (or a run directory: its current model; `ref:<name>`: a reference network).
        #[arg(long)]
        model: PathBuf,
        /// Book configuration (TOML, see configs/book.toml; default: the built-in defaults).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Override one key of the book configuration, `key=value` (e.g.
        /// `simulations=512`); repeatable. Checked like the file and saved in the book.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Book file (Parquet); an existing book is loaded and extended.
        #[arg(long)]
        out: PathBuf,
        /// Searched positions the book should hold (overrides the config's `positions`).
        #[arg(long)]
        positions: Option<u32>,
        /// Fischer-random start positions besides the standard one (overrides
        /// `fischer_random`; for Shako: starts a few random plies from the standard one).
        #[arg(long)]
        fischer_random: Option<u32>,
        /// No progress lines.
        #[arg(long)]
        quiet: bool,
        #[command(flatten)]
        game: GameArg,
    },
    /// Print the book moves of a position.
    Probe {
        /// Book file (Parquet).
        #[arg(long)]
        book: PathBuf,
        /// Position in the platform's FEN (the start of a turn).
        #[arg(long)]
        fen: String,
    },
    /// Export a book: `json`: FEN -> {value, wdl, visits, depth, moves: [{move, actions, visits, value, wdl, prior}]};
    /// `platform`: the platform's book format, FEN -> [position_value, [[move_value, [action, ...]], ...]].
    Export {
        /// Book file (Parquet).
        #[arg(long)]
        book: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "json")]
        format: BookFormat,
        /// Output file (written atomically); default: standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Measure a network's turns and values (or another book's) against a
    /// reference book, overall, by ply bucket and by union count.
    Compare {
        /// Reference book: the platform's JSON or one of ours (Parquet), told apart by content.
        #[arg(long)]
        reference: PathBuf,
        /// Network model file (or a run directory: its current model; `ref:<name>`: a reference network); it plays
        /// each reference position's whole turn by search.
        #[arg(long, required_unless_present = "book", conflicts_with = "book")]
        model: Option<PathBuf>,
        /// Visits of each decision of the network's search (the tree is kept through
        /// the turn); `--sims` is read too.
        #[arg(long = "visits", alias = "sims", default_value_t = pacozero_protocol::analysis::DEFAULT_VISITS)]
        sims: u32,
        /// A book to compare instead of a network (either format): its preferred move at each position.
        #[arg(long)]
        book: Option<PathBuf>,
        /// Positions searched together (their leaves form one network batch).
        #[arg(long, default_value_t = 64)]
        batch: usize,
        /// Seed of the network's searches (each position's search is seeded with it and the position's hash).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print the report as JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Also write the report as JSON to this file.
        #[arg(long)]
        out: Option<PathBuf>,
        /// No progress lines.
        #[arg(long)]
        quiet: bool,
    },
    /// Import a book of the platform's format as a book file: every position
    /// is checked and every move replayed by the engine.
    Import {
        /// Format of the input.
        #[arg(long, value_enum, default_value = "platform")]
        format: ImportFormat,
        /// The book to read (JSON).
        input: PathBuf,
        /// Book file to write (Parquet, written atomically).
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum BookFormat {
    /// Our JSON: every statistic of the book.
    Json,
    /// The platform's opening-book JSON (Paco Ŝako).
    Platform,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ImportFormat {
    /// The platform's opening-book JSON (Paco Ŝako).
    Platform,
}
