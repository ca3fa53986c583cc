//! Arguments of the strength commands: `arena`, `league`, `ladder`,
//! `tactics` and `solved`.

use super::{GameArg, OutputArgs};
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// How the games of a match start and end: the same flags for `arena`,
/// `league` and `ladder` (a ladder plays the same openings at every rung).
#[derive(Args, Debug, Clone, Copy)]
pub struct MatchSettings {
    /// `standard` or `fischer_random` (the game's random starts), spelled as
    /// in the configurations; `fischer-random` is read too.
    #[arg(long, default_value = "fischer_random")]
    pub openings: pacozero_arena::Openings,
    /// Seed of the openings and of the players' random choices (0, as every command's seed).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Decisions after which a game is cut (a draw, unless adjudicated by
    /// material); 600, the loop's evaluation matches' default, where
    /// self-play's `max_decisions` is 1000 (its games are also training data).
    #[arg(long, default_value_t = 600)]
    pub max_decisions: u32,
    /// A cut game is won by the side ahead by at least this much material
    /// (pawns; Shako only, Paco Ŝako has no captures); 0 = cut games are draws.
    #[arg(long, default_value_t = 0)]
    pub adjudicate_material: u32,
}

impl MatchSettings {
    /// The games' limits.
    pub fn limits(&self) -> pacozero_search::GameLimits {
        pacozero_search::GameLimits { max_decisions: self.max_decisions, adjudicate_material: self.adjudicate_material }
    }
}

#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// Two player specs: random, greedy, uniform:<budget>, rollout:<budget>,
    /// net:<model>[:<budget>[:mix=<w>][:playouts=<k>][:precision=<p>][:quiesce=true][:material=<m>][:search.<key>=<value>...]],
    /// ref:<name>[...],
    /// uci:<command>[,<Option>=<value>...]:<nodes=N|depth=N|<ms>ms|tc=<s>[+<s>]>[:timeout=<ms>];
    /// a budget is simulations per decision (64) or milliseconds per decision
    /// (50ms); w is the weight of random playouts in the network's leaf values,
    /// k the playouts per leaf; p the network's arithmetic (fp32, int8, auto);
    /// quiesce=true values each leaf where its captures end (Shako), material=<m>
    /// also mixes that material balance into the value with weight m;
    /// search.<key>=<value> changes a key of the
    /// match's search (e.g. search.root_win_in_two=false); uci: an external engine (a bare name is also
    /// looked up in /usr/games), e.g. uci:fairy-stockfish,UCI_Variant=shako:nodes=1000.
    #[arg(long, num_args = 2, required = true)]
    pub players: Vec<pacozero_arena::Given<pacozero_arena::PlayerSpec>>,
    /// Games (rounded up to an even number: each opening is played with both colours).
    #[arg(long, default_value_t = 20)]
    pub games: u32,
    /// Openings drawn from this opening book instead (Parquet, built or
    /// imported), with probability proportional to visits^(1/book-temperature).
    #[arg(long, conflicts_with = "openings")]
    pub book: Option<PathBuf>,
    /// Temperature T of the book's opening weights visits^(1/T) (1: as
    /// visited; higher: more even).
    #[arg(long, default_value_t = 1.0, requires = "book")]
    pub book_temperature: f64,
    /// A sequential probability ratio test, `elo0,elo1[,alpha,beta]`
    /// (logistic Elo; α and β default to 0.05): pairs are played until the
    /// test accepts H0 (Elo ≤ elo0) or H1 (Elo ≥ elo1), at most `--games`.
    /// The LLR is the normal approximation on the pentanomial counts.
    #[arg(long)]
    pub sprt: Option<pacozero_arena::ratings::Sprt>,
    #[command(flatten)]
    pub matches: MatchSettings,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Also write the result as JSON to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Keep every game in this directory: one chunk of the games table
    /// (Parquet, as self-play's, with the players' specs) per match;
    /// `pacozero games export DIR` writes them as PGN.
    #[arg(long)]
    pub record: Option<PathBuf>,

    #[command(flatten)]
    pub game: GameArg,
}

#[derive(Args, Debug)]
pub struct LeagueArgs {
    /// Player specs, as `arena` takes them (net:, ref:, rollout:, ...), and
    /// `run:DIR[:every=K][:BUDGET]`: every K-th generation of a run
    /// (`DIR/models/gen-NNNN.pzmodel`, named `<DIR's name>/gen-NNNN`; budget
    /// 64 simulations unless given).
    #[arg(long, num_args = 1.., required = true)]
    pub players: Vec<pacozero_arena::Given<pacozero_arena::league::LeagueSpec>>,
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
    #[command(flatten)]
    pub matches: MatchSettings,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub game: GameArg,
}

#[derive(Args, Debug)]
pub struct LadderArgs {
    /// The players laddered, arena player specs (e.g. net:<model>:100ms rollout:100ms).
    #[arg(long, num_args = 1.., required = true)]
    pub players: Vec<pacozero_arena::Given<pacozero_arena::PlayerSpec>>,
    /// The engine without a budget, uci:<command>[,<Option>=<value>...]
    /// (e.g. uci:fairy-stockfish,UCI_Variant=shako); each rung plays it at :nodes=N.
    #[arg(long)]
    pub engine: pacozero_arena::UciEngine,
    /// The engine's node budgets, one rung each (comma-separated, ascending).
    #[arg(long, value_delimiter = ',', default_value = "1,10,100,1000,10000")]
    pub nodes: Vec<u64>,
    /// Games per player and rung (rounded up to an even number: each opening
    /// is played with both colours).
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    #[command(flatten)]
    pub matches: MatchSettings,
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
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub game: GameArg,
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
        #[arg(long = "visits", alias = "sims", default_value_t = pacozero_protocol::analysis::DEFAULT_VISITS)]
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
