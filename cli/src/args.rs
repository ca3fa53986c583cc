//! All command-line types of the `pacozero` binary.
// The doc comments of this module are the command line's help text (clap
// prints them verbatim in --help): `<run>` and `[net]` there are words for
// the user, not HTML or links for rustdoc.
#![allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]

use clap::{Args, Parser, Subcommand, ValueEnum};
use pacozero_engine::GameKind;
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

#[derive(Args, Debug)]
pub struct TacticsArgs {
    #[command(subcommand)]
    pub what: TacticsCommand,
}

#[derive(Subcommand, Debug)]
pub enum TacticsCommand {
    /// Prove every turn start of the bundled reference games and positions, and write those with a forced Paco in 1 or 2 turns.
    Generate {
        /// Output file (JSON lines: fen, depth, winning turns, source).
        #[arg(long)]
        out: PathBuf,
        /// Deepest Paco proved: 1 or 2 turns of the mover.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2))]
        max_depth: u8,
        /// No progress lines.
        #[arg(long)]
        quiet: bool,
    },
    /// Solve the suite with a network: the turn its search plays must be one of the winning turns.
    Solve {
        /// Network model file (or a run directory: its current model; `ref:<name>`: a reference network).
        #[arg(long)]
        model: PathBuf,
        /// Visits of each decision's search, the search budget every analysing
        /// command names so (0: the network's policy alone, the most likely
        /// decision each time; `--sims` is read too).
        #[arg(long = "visits", alias = "sims", default_value_t = pacozero_search::analysis::DEFAULT_VISITS)]
        sims: u32,
        /// The suite (default: the bundled engine/tests/data/tactics.jsonl).
        #[arg(long)]
        suite: Option<PathBuf>,
        /// The network alone: search without the engine's win detection and
        /// without proven results (by default the search plays as in
        /// self-play and matches).
        #[arg(long)]
        network_only: bool,
    },
}

#[derive(Args, Debug)]
pub struct SolvedArgs {
    /// Network model file (or a run directory: its current model; `ref:<name>`: a reference network).
    #[arg(long, required_unless_present = "run", conflicts_with = "run")]
    pub model: Option<PathBuf>,
    /// Judge the run's networks at steps of its wall time instead (the
    /// learning curve): each new point is appended to <run>/solved.jsonl, so
    /// an interrupted curve resumes; the report plots it.
    #[arg(long)]
    pub run: Option<PathBuf>,
    /// With --run: minutes between the curve's points (the first network,
    /// the newest at each step, and the last one).
    #[arg(long, default_value_t = 5.0, requires = "run")]
    pub every_minutes: f64,
    /// With --run: a peer's curve (JSON lines as scripts/peer-openspiel.py
    /// judge writes them), checked and copied into <run>/solved-peer.jsonl
    /// for the report, beside the run's own.
    #[arg(long, requires = "run")]
    pub peer: Option<PathBuf>,
    /// Visits of each decision's search, one judged line each, comma-separated
    /// (0: the network's policy alone, its most likely move).
    #[arg(long, value_delimiter = ',', default_values_t = [0u32, 64, 800])]
    pub visits: Vec<u32>,
    /// The suite (JSON lines; default: the bundled Connect Four suite,
    /// engine/tests/data/connect4-solved.jsonl, for a Connect Four network).
    #[arg(long)]
    pub suite: Option<PathBuf>,
    /// Also write the figures as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

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
    /// The game to play.
    #[arg(long, default_value_t)]
    pub game: GameKind,
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
pub struct ReportArgs {
    /// Run directory of `pacozero loop`.
    #[arg(long, default_value = "runs/quick")]
    pub run: PathBuf,
}

#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// Two player specs: random, greedy, uniform:<budget>, rollout:<budget>,
    /// net:<model>[:<budget>[:mix=<w>][:playouts=<k>][:search.<key>=<value>...]],
    /// ref:<name>[...],
    /// uci:<command>[,<Option>=<value>...]:<nodes=N|depth=N|<ms>ms|tc=<s>[+<s>]>[:timeout=<ms>];
    /// a budget is simulations per decision (64) or milliseconds per decision
    /// (50ms); w is the weight of random playouts in the network's leaf values,
    /// k the playouts per leaf; search.<key>=<value> changes a key of the
    /// match's search (e.g. search.root_win_in_two=false); uci: an external engine (a bare name is also
    /// looked up in /usr/games), e.g. uci:fairy-stockfish,UCI_Variant=shako:nodes=1000.
    #[arg(long, num_args = 2, required = true)]
    pub players: Vec<String>,
    /// Games (rounded up to an even number: each opening is played with both colours).
    #[arg(long, default_value_t = 20)]
    pub games: u32,
    /// `standard` or `fischer_random` (the game's random starts), spelled as
    /// in the configurations; `fischer-random` is read too.
    #[arg(long, default_value = "fischer_random")]
    pub openings: pacozero_arena::Openings,
    /// Openings drawn from this opening book instead (Parquet, built or
    /// imported), with probability proportional to visits^(1/book-temperature).
    #[arg(long, conflicts_with = "openings")]
    pub book: Option<PathBuf>,
    /// Temperature T of the book's opening weights visits^(1/T) (1: as
    /// visited; higher: more even).
    #[arg(long, default_value_t = 1.0, requires = "book")]
    pub book_temperature: f64,
    /// Seed of the openings and of the players' random choices (0, as every command's seed).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// A sequential probability ratio test, `elo0,elo1[,alpha,beta]`
    /// (logistic Elo; α and β default to 0.05): pairs are played until the
    /// test accepts H0 (Elo ≤ elo0) or H1 (Elo ≥ elo1), at most `--games`.
    /// The LLR is the normal approximation on the pentanomial counts.
    #[arg(long)]
    pub sprt: Option<pacozero_arena::ratings::Sprt>,
    /// Decisions after which a game is cut (a draw, unless adjudicated by
    /// material); 600, the loop's evaluation matches' default, where
    /// self-play's `max_decisions` is 1000 (its games are also training data).
    #[arg(long, default_value_t = 600)]
    pub max_decisions: u32,
    /// A cut game is won by the side ahead by at least this much material
    /// (pawns; Shako only, Paco Ŝako has no captures); 0 = cut games are draws.
    #[arg(long, default_value_t = 0)]
    pub adjudicate_material: u32,
    /// Print the result as JSON on standard output instead of the text (as
    /// every command's `--json` does).
    #[arg(long)]
    pub json: bool,
    /// Also write the result as JSON to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Keep every game in this directory: one chunk of the games table
    /// (Parquet, as self-play's, with the players' specs) per match;
    /// `pacozero games export DIR` writes them as PGN.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// No progress bars (the notes and results are still printed).
    #[arg(long)]
    pub quiet: bool,

    /// The game to play (`fischer_random` openings of Shako are a few random plies from the start).
    #[arg(long, default_value_t)]
    pub game: GameKind,
}

#[derive(Args, Debug)]
pub struct LeagueArgs {
    /// Player specs, as `arena` takes them (net:, ref:, rollout:, ...), and
    /// `run:DIR[:every=K][:BUDGET]`: every K-th generation of a run
    /// (`DIR/models/gen-NNNN.pzmodel`, named `<DIR's name>/gen-NNNN`; budget
    /// 64 simulations unless given).
    #[arg(long, num_args = 1.., required = true)]
    pub players: Vec<String>,
    /// The league's directory: `league.jsonl` (every pair played; a restart
    /// with the same settings plays only what is missing), the rating list
    /// (`ratings.csv`, `.json`, `.md`, `.svg`) and `report.html`.
    #[arg(long)]
    pub out: PathBuf,
    /// Opening pairs per matchup (each opening played with both colours).
    #[arg(long, default_value_t = 10)]
    pub pairs: u32,
    /// A gauntlet: this player (a spec as given, or a player's name) against
    /// every other, instead of a round robin.
    #[arg(long)]
    pub gauntlet: Option<String>,
    /// The player whose rating is fixed (default: the players' mean).
    #[arg(long)]
    pub anchor: Option<String>,
    /// The anchor's rating, or the players' mean rating without `--anchor`.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub anchor_elo: f64,
    /// `standard` or `fischer_random` (the game's random starts).
    #[arg(long, default_value = "fischer_random")]
    pub openings: pacozero_arena::Openings,
    /// Seed of the openings and of the players' random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Decisions after which a game is cut (a draw, unless adjudicated by material).
    #[arg(long, default_value_t = 600)]
    pub max_decisions: u32,
    /// A cut game is won by the side ahead by at least this much material (pawns; Shako only).
    #[arg(long, default_value_t = 0)]
    pub adjudicate_material: u32,
    /// Print the rating list as JSON on standard output instead of the table.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// The game to play.
    #[arg(long, default_value_t)]
    pub game: GameKind,
}

#[derive(Args, Debug)]
pub struct LadderArgs {
    /// The players laddered, arena player specs (e.g. net:<model>:100ms rollout:100ms).
    #[arg(long, num_args = 1.., required = true)]
    pub players: Vec<String>,
    /// The engine without a budget, uci:<command>[,<Option>=<value>...]
    /// (e.g. uci:fairy-stockfish,UCI_Variant=shako); each rung plays it at :nodes=N.
    #[arg(long)]
    pub engine: String,
    /// The engine's node budgets, one rung each (comma-separated, ascending).
    #[arg(long, value_delimiter = ',', default_value = "1,10,100,1000,10000")]
    pub nodes: Vec<u64>,
    /// Games per player and rung (rounded up to an even number: each opening
    /// is played with both colours).
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    /// `standard` or `fischer_random` (the game's random starts).
    #[arg(long, default_value = "fischer_random")]
    pub openings: pacozero_arena::Openings,
    /// Seed of the openings (the same openings at every rung) and of the players' random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Decisions after which a game is cut (a draw, unless adjudicated by material).
    #[arg(long, default_value_t = 600)]
    pub max_decisions: u32,
    /// A cut game is won by the side ahead by at least this much material (pawns; Shako only); 0 = cut games are draws.
    #[arg(long, default_value_t = 0)]
    pub adjudicate_material: u32,
    /// Keep every game in this directory (the games table, as `arena --record`).
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Also write the ladder as a markdown table to this file (written atomically).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The run the ladder measures: its JSON and Markdown go to <run>/ladder.json
    /// and <run>/ladder.md, its games to <run>/ladder-games (unless --record),
    /// and the run's report (report.html) shows the table.
    #[arg(long)]
    pub run: Option<PathBuf>,
    /// Print the ladder as JSON on standard output instead of the markdown.
    #[arg(long)]
    pub json: bool,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
    /// The game to play.
    #[arg(long, default_value_t)]
    pub game: GameKind,
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Position in the platform's FEN (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Depth of the count: full moves, or atomic actions with --atomic.
    #[arg(long)]
    pub depth: u32,
    /// Count atomic actions (one action per ply) instead of full moves.
    #[arg(long)]
    pub atomic: bool,
    /// Print the count below each first move.
    #[arg(long)]
    pub divide: bool,
    /// The game of the position.
    #[arg(long, default_value_t)]
    pub game: GameKind,
}

#[derive(Args, Debug)]
pub struct LegalArgs {
    /// The game of the positions.
    #[arg(long, default_value_t)]
    pub game: GameKind,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The game of the position.
    #[arg(long, default_value_t)]
    pub game: GameKind,
    /// Position in the game's FEN (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Decisions to play first: atomic actions ("Le2 Pe4"), Shako UCI moves ("e3e5 f8f6").
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
        /// The game searched (the model must be one of its networks).
        #[arg(long, default_value_t)]
        game: GameKind,
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
        /// The game played.
        #[arg(long, default_value_t)]
        game: GameKind,
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
        /// The game whose input and policy sizes the network has.
        #[arg(long, default_value_t)]
        game: GameKind,
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
        /// The game of the book (the model must be a network of that game; probe
        /// and export read the game from the book).
        #[arg(long, default_value_t)]
        game: GameKind,
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
        #[arg(long = "visits", alias = "sims", default_value_t = pacozero_search::analysis::DEFAULT_VISITS)]
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

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// Network model file (or a run directory: its current model; `ref:<name>`: a reference network).
    #[arg(long)]
    pub model: PathBuf,
    /// Position in the game's FEN (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Visits of the search (`--sims` is read too).
    #[arg(long = "visits", alias = "sims", default_value_t = pacozero_search::analysis::DEFAULT_VISITS)]
    pub sims: u32,
    /// Turns shown.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Longest principal variation, in turns after the first (the analysis
    /// engine's and the Python package's default too).
    #[arg(long, default_value_t = pacozero_search::analysis::DEFAULT_PV_TURNS)]
    pub pv_turns: usize,
    /// The game of the position and the network.
    #[arg(long, default_value_t)]
    pub game: GameKind,
}

#[derive(Args, Debug)]
pub struct AnalysisArgs {
    /// Network model file (or a run directory: its current model; `ref:<name>`: a reference network). Its game (Paco Ŝako or Shako) is the engine's.
    #[arg(long)]
    pub model: String,
    /// Visits of a query that gives neither `max_visits` nor `max_time_ms`.
    #[arg(long, default_value_t = pacozero_search::analysis::DEFAULT_VISITS)]
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
    #[arg(long, default_value_t = pacozero_search::analysis::DEFAULT_VISITS)]
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
    /// The game (the network must be one of this game's).
    #[arg(long, default_value_t)]
    pub game: GameKind,
}
