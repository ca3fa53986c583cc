//! Arguments of the training commands: `selfplay`, `train`, `evaluate`,
//! `loop`, `report`, `config`, `games` and `export`.

use super::GameArg;
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// Self-play configuration (TOML; every key optional, see configs/selfplay.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Override one key of the configuration, `section.key=value` or `key=value`
    /// for a top-level key (e.g. `search.full_simulations=128`); repeatable. Checked like the file.
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
    pub set: Vec<String>,
    /// Number of games to play.
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Output directory for the Parquet chunks (default: <run>/data, or ./selfplay-data).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Network model file; without one, the --evaluator is used.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Run directory: writes to <run>/data and plays with <run>/models/current,
    /// re-reading the pointer between rounds so a newly exported model is picked up
    /// (so it takes no --model).
    #[arg(long, conflicts_with = "model")]
    pub run: Option<PathBuf>,
    /// Evaluator without a network: `uniform` or `rollout`.
    #[arg(long, default_value = "rollout")]
    pub evaluator: String,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub game: GameArg,
    /// Object store of the run (s3://bucket/run, gs://, az://, file:///dir): games are
    /// uploaded to data/w<NNNN>/ there and the model is read from its models/current
    /// (see docs/scale-out.md); --run is then the local cache (default: under the
    /// system temporary directory).
    #[arg(long, requires = "worker", conflicts_with_all = ["out", "model"])]
    pub store: Option<String>,
    /// Index of this worker (with --store): its folder data/w<NNNN>/ and its own game seeds.
    #[arg(long, requires = "store")]
    pub worker: Option<u32>,
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Run directory (reads <run>/data, writes checkpoints, metrics, models).
    #[arg(long)]
    pub run: PathBuf,
    /// No progress bars (the notes and results are still printed).
    #[arg(long)]
    pub quiet: bool,

    /// Training configuration with [net] and [train] tables (see configs/train.toml),
    /// or a loop configuration (its [net] and [train] are read). Default: the
    /// run's own config.toml when it has one (a loop's run), else the built-in settings.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Override one key of the configuration, `section.key=value` or `key=value`
    /// for a top-level key (e.g. `train.lr=0.001`); repeatable. Checked like the file.
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
    pub set: Vec<String>,
    /// Steps to train in this call (training resumes from the checkpoint).
    #[arg(long, default_value_t = 1000)]
    pub steps: u64,
    /// Export the trained model under this name and make it current.
    #[arg(long)]
    pub export: Option<String>,
    /// Object store of the run (see `selfplay --store`): trains on every game there,
    /// uploads the exported model and moves the store's models/current by a
    /// conditional put; --run is the local cache and keeps the checkpoint.
    #[arg(long)]
    pub store: Option<String>,
    /// With --store: upload the model but leave models/current to the
    /// evaluator (`pacozero evaluate --store`), which promotes by the run's rule.
    #[arg(long, requires = "store")]
    pub no_promote: bool,
}

#[derive(Args, Debug)]
pub struct EvaluateArgs {
    /// Object store of the run (as `selfplay --store`): evaluates every model
    /// there without an evaluation, promotes by the rule, and writes the
    /// matches, ratings and report to its eval/ folder.
    #[arg(long)]
    pub store: String,
    /// The evaluator's local run directory (models, matches, ratings, report).
    #[arg(long)]
    pub run: PathBuf,
    /// Loop configuration whose [loop] table sets the matches and the
    /// promotion rule (default: the embedded configs/quick.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Override a configuration value: `--set loop.gating_games=20` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Keep watching: look for new models every this many seconds (0: evaluate what is there, then end).
    #[arg(long, default_value_t = 0)]
    pub watch: u64,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct LoopArgs {
    /// Loop configuration (default: the embedded configs/quick.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Run directory; running the same command again resumes it.
    #[arg(long, default_value = "runs/quick")]
    pub run: PathBuf,
    /// Stop after this many generations (default: the configuration's).
    #[arg(long)]
    pub generations: Option<u32>,
    /// Override one key of the configuration, `section.key=value` (e.g.
    /// `loop.max_minutes=5`, `train.lr=0.001`); repeatable. Checked like
    /// the file and saved in the run's config.toml; a new run only (a
    /// resumed run takes those that repeat its values).
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
    pub set: Vec<String>,
    /// Resume a run whose config.toml names a program (`loop.external`) or
    /// a file (`selfplay.fen_file`, `selfplay.book_file`) without repeating
    /// them in --config or --set: start and read what the run's own file
    /// says. Without it, such a run is refused, naming them.
    #[arg(long)]
    pub trust_run_files: bool,
    /// No progress bars (the notes and results are still printed).
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Run directory of `pacozero loop`.
    #[arg(long, default_value = "runs/quick")]
    pub run: PathBuf,
}

#[derive(Args, Debug)]
pub struct ConfigArgs {
    /// Configuration file (default: the built-in settings of --kind; a loop's
    /// are the embedded configs/quick.toml).
    #[arg(long, conflicts_with = "run")]
    pub config: Option<PathBuf>,
    /// A run directory: show its own config.toml (the loop's copy, what the
    /// run trains with).
    #[arg(long)]
    pub run: Option<PathBuf>,
    /// Override one key of the configuration, `section.key=value` or
    /// `key=value` for a top-level key, as the command reading the file
    /// would (e.g. `train.lr=0.001`); repeatable.
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
    pub set: Vec<String>,
    /// Read the file as this kind (default: from its sections: [loop] or
    /// [selfplay] make a loop file, top-level keys or [search] a self-play
    /// file, [net] and [train] alone a training file).
    #[arg(long, value_enum)]
    pub kind: Option<ConfigKind>,
    /// Print only the keys whose effective values differ from this other
    /// file's, one `section.key: this -> other` line each (the keys both
    /// kinds have).
    #[arg(long)]
    pub diff: Option<PathBuf>,
}

/// The kinds of configuration file, by the command that reads them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConfigKind {
    /// `pacozero loop --config`: [loop], [selfplay], [selfplay.search], [net], [train].
    Loop,
    /// `pacozero selfplay --config`: self-play keys at the top level and [search].
    Selfplay,
    /// `pacozero train --config`: [net] and [train] (of a loop file too).
    Train,
}

#[derive(Args, Debug)]
pub struct GamesArgs {
    #[command(subcommand)]
    pub what: GamesCommand,
}

#[derive(Subcommand, Debug)]
pub enum GamesCommand {
    /// Write the games of chunk directories as PGN: Shako with [Variant "shako"],
    /// [FEN] and SAN moves as Fairy-Stockfish's tools read them; Paco Ŝako with the
    /// platform's FEN and whole turns in chain notation.
    Export {
        /// Directories of chunks: a run's data/ or match-games/, an arena's --record
        /// directory; their games in order, oldest chunk first.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "pgn")]
        format: GamesFormat,
        /// Output file (written atomically); default: standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum GamesFormat {
    /// Portable Game Notation, one game after another.
    Pgn,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// What to write.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Network model file (or a run directory: its current model; `ref:<name>`: a reference network).
    #[arg(long)]
    pub model: PathBuf,
    /// Output file (written to a temporary name, then renamed).
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// ONNX, opset 17: input `planes` [N, C, H, W] in the network's encoding, one output per head, dynamic batch.
    Onnx,
    /// The file the platform's runner loads in place of its bot (Paco Ŝako; a network with net.encoding = "platform"):
    /// input float32 [1, 30, 8, 8], output `OUTPUT` float32 [1, 133] (value, then the 132 action probabilities).
    Platform,
}
