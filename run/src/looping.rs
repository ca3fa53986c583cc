//! The closed loop: generations of self-play → training → evaluation →
//! promotion, in one run directory, resumable at any point (`pacozero loop`).
//!
//! Run directory:
//!
//! | path | written by | content |
//! |---|---|---|
//! | `config.toml` | start | copy of the loop configuration (later runs use it) |
//! | `state.json` | each stage | game, generation, the last completed stage, and in an overlapped generation the last chunk its training reads (atomic) |
//! | `data/` | self-play | Parquet chunks (atomic; see docs/DATA.md) |
//! | `checkpoints/`, `metrics.csv` | training | resumable trainer state, per-step metrics |
//! | `models/gen-NNNN.pzmodel`, `models/current` | training, promotion | exported networks; `current` names the best (atomic; the only record of it) |
//! | `matches.jsonl` | evaluation | one line per match: players, W/D/L, pentanomial |
//! | `ratings.csv`, `ratings.md` | evaluation | Elo of every player (max. likelihood over all matches) with 95% intervals |
//! | `generations.jsonl` | each stage | one line per stage: `{"generation", "stage", figures...}` (self-play draw rate and length, losses, the losses on the generation's new games before training on them (stage `fresh`), promotion, and the wall time of each stage (stage `time`: `selfplay_seconds`, `train_seconds`, `eval_seconds`, `other_seconds`; an overlapped generation has `overlap_seconds`, self-play and training at once, instead of the first two, and stage `overlap` gives each one's own time)) |
//! | `report.html`, `plots/*.svg` | evaluation | the run report (see [`crate::report`]) |
//!
//! A stage is recorded in `state.json` only once its files are complete, so a
//! crash or Ctrl-C repeats at most the stage in progress: games already
//! written stay (they are whole chunks), training resumes from its checkpoint.
//!
//! The game (`[loop] game = "paco"` or `"shako"`) is fixed for the life of a
//! run: it is in the run's `config.toml` and `state.json`, and a resumed run
//! whose configuration names another game is refused. The stages are generic
//! over the game ([`Game`]); [`run_loop`] dispatches once. Progress goes to a
//! [`LoopObserver`] (the command line prints it).

use anyhow::{bail, Context, Result};
use pacozero_arena::ratings::{Sprt, SprtDecision};
use pacozero_arena::{run_match, Budget, EvalKind, MatchResult, Openings, Player, PlayerSpec, PlayoutMix};
use pacozero_arena::{run_match_from, run_match_sprt};
use pacozero_data::{check_data_dir_as, game_spec_as, spec_of_encoding, RunDir};
use pacozero_engine::{encoding_index, Game, GameKind, GameVisitor, DEFAULT_ENCODING};
use pacozero_search::derive_seed;
use pacozero_selfplay::{SelfplayConfig, Summary};
use pacozero_train::{Export, NetTable, Steps, TrainConfig, TrainStage};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

use crate::files::{
    append_match, append_stage, best_model, load_state, model_name, read_generations, read_matches, save_state, write_atomic, write_ratings, LoopState,
    MatchLine, Stage,
};
use crate::overrides::Fallback;
use crate::rounds::{selfplay_round, SelfplayPlayer};

/// Where the loop reports what it does (the command line prints it).
pub trait LoopObserver: Sync {
    /// A line about the run: a stage's summary, a match result, the ratings.
    fn note(&self, text: &str);
    /// `done` of `total` games of the match in progress have ended.
    fn match_progress(&self, done: u64, total: u64);
    /// Whether self-play and training draw their progress bars (`false`:
    /// `pacozero loop --quiet`).
    fn progress(&self) -> bool {
        true
    }
}

/// The game of a loop file, by name (`"paco"`, `"shako"`).
mod game_name {
    use pacozero_engine::GameKind;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(kind: &GameKind, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(kind.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<GameKind, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// The embedded default loop configuration (`configs/quick.toml`).
pub const QUICK_TOML: &str = include_str!("../../configs/quick.toml");

/// The `[loop]` table.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoopConfig {
    /// The game: `"paco"` (Paco Ŝako) or `"shako"`; fixed for the life of a run.
    #[serde(with = "game_name")]
    pub game: GameKind,
    /// Generations to run (1..=100000).
    pub generations: u32,
    /// Self-play games per generation (1..=10000000).
    pub games_per_generation: u64,
    /// Training steps per generation (1..=100000000).
    pub train_steps_per_generation: u64,
    /// Games of the candidate against the current best (even, 2..=100000).
    pub gating_games: u32,
    /// Simulations per decision of network players in evaluation matches (1..=100000).
    pub eval_simulations: u32,
    /// `"always"` (every candidate becomes the best), `"score"` (score >= promotion_score) or `"sprt"`.
    pub promotion: Promotion,
    /// Minimum score against the best for `promotion = "score"` (0..=1).
    pub promotion_score: f64,
    /// `promotion = "sprt"`: the Elo of the null hypothesis (the candidate
    /// is no better). The gating match plays pairs until the test decides,
    /// at most `gating_games`; undecided at the cap is recorded as such in
    /// `matches.jsonl` and is not a promotion.
    pub sprt_elo0: f64,
    /// `promotion = "sprt"`: the Elo of the alternative hypothesis, the gain
    /// a promotion needs (greater than `sprt_elo0`).
    pub sprt_elo1: f64,
    /// `promotion = "sprt"`: the false-positive rate, promoting a candidate
    /// no better than `sprt_elo0` (0 < α < 0.5).
    pub sprt_alpha: f64,
    /// `promotion = "sprt"`: the false-negative rate, keeping a candidate
    /// `sprt_elo1` better (0 < β < 0.5).
    pub sprt_beta: f64,
    /// Games of each candidate from generation 2 on against the first
    /// network, gen-0001, at `eval_simulations` (even, 0 = none): a direct
    /// measure of progress that does not add up the noise of a gating chain.
    pub anchor_games: u32,
    /// Games of each evaluated candidate against the network evaluated
    /// before it (even, 0 = none; left out: as many as `anchor_games`),
    /// unless that network is the anchor or the best, which it plays
    /// anyway. These matches chain the evaluated networks in the rating
    /// list, which would otherwise hang on anchor matches that every later
    /// network wins. Read as a number once parsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_games: Option<u32>,
    /// Games of each candidate against the rollout-MCTS baseline (even, 0 = none).
    pub baseline_games: u32,
    /// Simulations per decision of the rollout baseline (1..=100000).
    pub baseline_simulations: u32,
    /// If > 0: baseline matches are played at equal time, this many
    /// milliseconds per decision for both sides (0..=600000); the simulation
    /// counts above are then ignored there.
    pub baseline_movetime_ms: u32,
    /// An external UCI engine that each evaluated candidate also plays, at
    /// `eval_simulations`: a `uci:` player spec (e.g.
    /// `"uci:fairy-stockfish,UCI_Variant=shako:nodes=100"`, see
    /// `pacozero_arena::uci_player`); `""` = none. Its matches go to
    /// `matches.jsonl` and the ratings like the others.
    pub external: String,
    /// Games of each evaluated candidate against `external` (even, 2..=100000 when `external` is set).
    pub external_games: u32,
    /// Evaluation openings: `"standard"` or `"fischer_random"`.
    pub openings: Openings,
    /// Decisions after which an evaluation game is cut (1..=100000).
    pub max_decisions: u32,
    /// A cut evaluation game is won by the side ahead by at least this much
    /// material (pawns; Shako only) instead of drawn; 0 = drawn (0..=100).
    /// Self-play has its own key, `[selfplay] adjudicate_material`.
    pub adjudicate_material: u32,
    /// Evaluation matches (baseline, anchor, gating) every this many
    /// generations and at the last one (1..=1000); the generations between
    /// play none, so more of the wall time goes to self-play and training.
    /// Needs `promotion = "always"` above 1 (nothing else could promote).
    pub eval_every: u32,
    /// Wall-time budget of the run in minutes (0 = none; at most 100000),
    /// for comparisons at equal time: the run's time is the sum of its
    /// generations' recorded stage times (`generations.jsonl`), so a resumed
    /// run counts what it already spent. A generation whose self-play plus
    /// training, repeated, would cross the budget is the last one (it plays
    /// the final evaluation); no generation starts once the budget is spent.
    /// `generations` still caps the run.
    pub max_minutes: f64,
    /// From generation 2 on, self-play and training run at the same time:
    /// generation g's self-play (with the best network so far) beside the
    /// training of gen-g on the chunks complete when g began (so on data up
    /// to generation g-1; its own games are first trained on in g+1). The
    /// network that plays is one generation older, as in KataGo's
    /// asynchronous loop, and each stage has a core of its own: give
    /// `[selfplay] threads` plus `[train] threads` the cores there are.
    pub overlap: bool,
    /// Each generation's training starts on a new window holding the newest
    /// games (else the window is replaced only after a full pass over it,
    /// 2.5 to 10 generations late in the quick hour).
    pub fresh_window: bool,
    /// Seed of the run (self-play seeds and openings derive from it and the generation).
    pub seed: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Promotion {
    Always,
    Score,
    Sprt,
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            game: GameKind::default(),
            generations: 20,
            games_per_generation: 64,
            train_steps_per_generation: 200,
            gating_games: 20,
            eval_simulations: 32,
            promotion: Promotion::Score,
            promotion_score: 0.5,
            sprt_elo0: 0.0,
            sprt_elo1: 50.0,
            sprt_alpha: 0.1,
            sprt_beta: 0.1,
            anchor_games: 0,
            previous_games: None,
            baseline_games: 20,
            baseline_simulations: 32,
            baseline_movetime_ms: 0,
            external: String::new(),
            external_games: 10,
            openings: Openings::FischerRandom,
            max_decisions: 600,
            adjudicate_material: 0,
            eval_every: 1,
            max_minutes: 0.0,
            overlap: false,
            fresh_window: true,
            seed: 1,
        }
    }
}

/// The whole loop file: `[loop]`, `[selfplay]` (with `[selfplay.search]`), `[net]`, `[train]`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopFile {
    #[serde(default, rename = "loop")]
    pub looping: LoopConfig,
    #[serde(default)]
    pub selfplay: SelfplayConfig,
    #[serde(default)]
    pub net: NetTable,
    #[serde(default)]
    pub train: TrainConfig,
}

fn check(name: &str, ok: bool, want: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        bail!("loop.{name} must be {want}")
    }
}

impl LoopFile {
    pub fn parse(text: &str, origin: &str) -> Result<LoopFile> {
        let f: LoopFile = toml::from_str(text).with_context(|| format!("{origin}: invalid loop configuration"))?;
        let l = &f.looping;
        let r = (|| {
            check("generations", (1..=100_000).contains(&l.generations), "in 1..=100000")?;
            check("games_per_generation", (1..=10_000_000).contains(&l.games_per_generation), "in 1..=10000000")?;
            check("train_steps_per_generation", (1..=100_000_000).contains(&l.train_steps_per_generation), "in 1..=100000000")?;
            check("gating_games", (2..=100_000).contains(&l.gating_games) && l.gating_games.is_multiple_of(2), "even, in 2..=100000")?;
            check("eval_simulations", (1..=100_000).contains(&l.eval_simulations), "in 1..=100000")?;
            check("promotion_score", (0.0..=1.0).contains(&l.promotion_score), "in 0..=1")?;
            check("sprt_elo1", l.sprt_elo1 > l.sprt_elo0, "greater than sprt_elo0")?;
            check("sprt_alpha", l.sprt_alpha > 0.0 && l.sprt_alpha < 0.5, "in (0, 0.5)")?;
            check("sprt_beta", l.sprt_beta > 0.0 && l.sprt_beta < 0.5, "in (0, 0.5)")?;
            check("anchor_games", l.anchor_games <= 100_000 && l.anchor_games.is_multiple_of(2), "even, at most 100000")?;
            check("previous_games", l.previous_games.is_none_or(|n| n <= 100_000 && n.is_multiple_of(2)), "even, at most 100000")?;
            check("baseline_games", l.baseline_games <= 100_000 && l.baseline_games.is_multiple_of(2), "even, at most 100000")?;
            check("baseline_simulations", (1..=100_000).contains(&l.baseline_simulations), "in 1..=100000")?;
            check("baseline_movetime_ms", l.baseline_movetime_ms <= 600_000, "at most 600000")?;
            if !l.external.is_empty() {
                check("external", l.external.starts_with("uci:"), "a uci:<command>[,<Option>=<value>...]:<budget> player spec, or \"\" for none")?;
                pacozero_arena::UciSpec::parse(&l.external).context("loop.external")?;
                check(
                    "external_games",
                    (2..=100_000).contains(&l.external_games) && l.external_games.is_multiple_of(2),
                    "even, in 2..=100000 (with external)",
                )?;
            }
            check("max_decisions", (1..=100_000).contains(&l.max_decisions), "in 1..=100000")?;
            check("adjudicate_material", l.adjudicate_material <= 100, "in 0..=100")?;
            check("eval_every", (1..=1000).contains(&l.eval_every), "in 1..=1000")?;
            check("eval_every", l.eval_every == 1 || l.promotion == Promotion::Always, "1 unless promotion = \"always\" (a skipped evaluation cannot gate)")?;
            check("max_minutes", (0.0..=100_000.0).contains(&l.max_minutes), "in 0..=100000")?;
            f.selfplay.validate()?;
            f.train.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
            check("selfplay.encoding", f.selfplay.encoding == DEFAULT_ENCODING || f.selfplay.encoding == f.net.encoding, "left out (net.encoding sets it)")?;
            f.net.to_config(&spec_of_encoding(l.game, &f.net.encoding).map_err(|e| anyhow::anyhow!("net.encoding: {e}"))?)?;
            Ok::<(), anyhow::Error>(())
        })();
        r.with_context(|| format!("{origin}: invalid loop configuration"))?;
        // Self-play writes the data in the network's input encoding.
        let mut f = f;
        f.selfplay.encoding = f.net.encoding.clone();
        // Left out (as in runs of earlier builds): as many as the anchor's.
        f.looping.previous_games.get_or_insert(f.looping.anchor_games);
        Ok(f)
    }
}

/// What the command line says about a run's configuration.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConfigArgs<'a> {
    /// `--config`: the loop file of a new run (default: the embedded
    /// configs/quick.toml). A resumed run keeps its own; there, this file
    /// may repeat the programs and files that its own names.
    pub config: Option<&'a Path>,
    /// `--set` overrides: a new run's; a resumed run takes those that
    /// repeat its values and refuses the others.
    pub sets: &'a [String],
    /// `--trust-run-files`: a resumed run starts the program and reads the
    /// files that its own `config.toml` names, as they are.
    pub trust_run_files: bool,
}

impl<'a> ConfigArgs<'a> {
    /// The loop file `config`, no overrides.
    pub fn file(config: &'a Path) -> ConfigArgs<'a> {
        ConfigArgs { config: Some(config), ..ConfigArgs::default() }
    }
}

/// Runs (or resumes) the loop in `run` up to `generations` (default: the
/// configuration's). A new run reads `args.config` (default: the embedded
/// configs/quick.toml) with the `--set` overrides applied
/// ([`crate::overrides`]) and saves the result as its `config.toml`; a
/// resumed run uses its saved configuration (see `open_run`).
pub fn run_loop(run: &Path, args: ConfigArgs<'_>, generations: Option<u32>, obs: &dyn LoopObserver) -> Result<()> {
    struct Loop<'a> {
        run: &'a Path,
        cfg: &'a LoopFile,
        generations: Option<u32>,
        obs: &'a dyn LoopObserver,
    }
    impl GameVisitor for Loop<'_> {
        type Output = Result<()>;
        fn visit<G: Game>(self) -> Result<()> {
            run_game::<G>(self.run, self.cfg, self.generations, self.obs)
        }
    }
    let cfg = open_run(run, args, obs)?;
    cfg.looping.game.visit(Loop { run, cfg: &cfg, generations, obs })
}

/// Creates or reopens the run directory and reads its configuration.
///
/// A resumed run keeps its `config.toml`, so that it cannot silently
/// change its settings; `--set` overrides that change it are refused. But
/// the file is the run's, and a run directory may come from anyone: a
/// program or a file it names ([`named_outside`]) is used only when the
/// command line repeats it (in `--config` or `--set`), or with
/// `--trust-run-files`. Otherwise the run is refused, naming them.
fn open_run(run: &Path, args: ConfigArgs<'_>, obs: &dyn LoopObserver) -> Result<LoopFile> {
    std::fs::create_dir_all(run).with_context(|| format!("creating run directory {}", run.display()))?;
    let copy = RunDir::new(run).config();
    let origin = copy.display().to_string();
    if copy.exists() {
        let text = std::fs::read_to_string(&copy).with_context(|| format!("reading {}", copy.display()))?;
        let saved = LoopFile::parse(&text, &origin)?;
        if !args.sets.is_empty() {
            let same = crate::overrides::apply(&text, args.sets)
                .ok()
                .and_then(|t| LoopFile::parse(&t, &origin).ok())
                .is_some_and(|f| serde_json::to_value(&f).ok() == serde_json::to_value(&saved).ok());
            if !same {
                bail!(
                    "{} is a run already: it keeps its config.toml, so --set {} cannot change it (start a new run directory, or edit its config.toml)",
                    run.display(),
                    args.sets.join(" --set ")
                );
            }
        }
        if args.config.is_some() {
            obs.note(&format!("note: resuming {}; using its config.toml, not --config", run.display()));
        }
        if !args.trust_run_files {
            check_repeated(&origin, &saved, args)?;
        }
        return Ok(saved);
    }
    let (text, origin) = new_run_text(args.config, args.sets)?;
    LoopFile::parse(&text, &origin)?;
    let text = format!("# made by pacozero {}\n{text}", pacozero_nn::provenance());
    write_atomic(&copy, text.as_bytes())?;
    LoopFile::parse(&text, &copy.display().to_string())
}

/// The loop file a new run reads, as text with the `--set` overrides
/// applied ([`crate::overrides::config_text`]), and its name in errors:
/// `config` (default: the embedded configs/quick.toml). [`LoopFile::parse`]
/// reads it; `pacozero config` shows what it holds.
pub fn new_run_text(config: Option<&Path>, sets: &[String]) -> Result<(String, String)> {
    crate::overrides::config_text(config, Fallback { text: QUICK_TOML, name: "configs/quick.toml (embedded)" }, sets)
}

/// The programs and the files outside the run that a loop configuration
/// names, by key (`loop.external`, `selfplay.fen_file`,
/// `selfplay.book_file`), with what each is.
pub fn named_outside(f: &LoopFile) -> Vec<(&'static str, String, &'static str)> {
    let mut named = Vec::new();
    if !f.looping.external.is_empty() {
        named.push(("loop.external", f.looping.external.clone(), "a program"));
    }
    for (key, path) in [("selfplay.fen_file", &f.selfplay.fen_file), ("selfplay.book_file", &f.selfplay.book_file)] {
        if let Some(p) = path {
            named.push((key, p.display().to_string(), "a file"));
        }
    }
    named
}

/// Refuses a resumed run whose `config.toml` (named `origin`) names a
/// program or a file that the command line (`--config` and `--set`
/// together) does not repeat.
fn check_repeated(origin: &str, saved: &LoopFile, args: ConfigArgs<'_>) -> Result<()> {
    let named = named_outside(saved);
    if named.is_empty() {
        return Ok(());
    }
    let text = match args.config {
        Some(p) => std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?,
        None => String::new(),
    };
    let given: toml::Table = crate::overrides::apply(&text, args.sets)?.parse().map_err(|e| anyhow::anyhow!("the --config file does not read as TOML: {e}"))?;
    let on_command_line = |key: &str| {
        let (section, name) = key.split_once('.').expect("section.key");
        given.get(section).and_then(|t| t.get(name)).and_then(|v| v.as_str()).map(str::to_string)
    };
    let missing: Vec<_> = named.into_iter().filter(|(key, value, _)| on_command_line(key).as_deref() != Some(value.as_str())).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = missing.iter().map(|(key, value, what)| format!("{key} = {value:?} ({what})")).collect();
    let sets: Vec<String> = missing.iter().map(|(key, value, _)| format!("--set '{key}={value}'")).collect();
    bail!(
        "{origin} names {}; a resumed run starts no program and reads no file because its own files say so. \
         Repeat {} on the command line (a --config that has {}, or {}), or pass --trust-run-files to use the run's config.toml as it is",
        list.join(", "),
        if missing.len() == 1 { "it" } else { "them" },
        if missing.len() == 1 { "it" } else { "them" },
        sets.join(" ")
    )
}

fn run_game<G: Game>(run: &Path, cfg: &LoopFile, generations: Option<u32>, obs: &dyn LoopObserver) -> Result<()> {
    let mut state = load_state(run)?;
    // Runs from before the game was recorded are of the default game.
    let recorded = if state.game.is_empty() && RunDir::new(run).state().exists() { GameKind::default().name() } else { state.game.as_str() };
    if !recorded.is_empty() && recorded != G::NAME {
        bail!("{} is a {recorded} run; its config.toml now says game = \"{}\" (a run cannot switch games)", run.display(), G::NAME);
    }
    state.game = G::NAME.to_string();
    state.provenance = Some(pacozero_nn::provenance());
    state.config = Some(serde_json::to_value(cfg)?);
    save_state(run, &state)?;
    let mut generations = generations.unwrap_or(cfg.looping.generations);
    let budget = TimeBudget::of(&cfg.looping);
    let data = RunDir::new(run).data();
    std::fs::create_dir_all(&data)?;
    while state.generation <= generations {
        let g = state.generation;
        if let Some(b) = budget {
            if state.done == Stage::None && b.spent(run)? >= b.seconds {
                obs.note(&format!("done: the time budget ({} min) is spent before generation {g}", cfg.looping.max_minutes));
                return Ok(());
            }
        }
        if state.done == Stage::Eval && state.promoted {
            // Saved as promoted, then stopped before the pointer moved.
            pacozero_nn::set_current_model(run, &model_name(g)).map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        let best = best_model(run)?;
        obs.note(&format!("== generation {g}/{generations} (best: {})", if best.is_empty() { "none, rollout self-play" } else { &best }));
        let mut clock = StageClock::start();
        if state.done == Stage::None && cfg.looping.overlap && g > 1 {
            if state.train_upto.is_empty() {
                state.train_upto = newest_chunk(&data)?;
                save_state(run, &state)?;
            }
            overlapped_stage::<G>(run, cfg, &state, obs)?;
            clock.lap(run, g, "overlap")?;
            state.done = Stage::Train;
            state.train_upto.clear();
            save_state(run, &state)?;
        }
        if state.done == Stage::None {
            selfplay_stage::<G>(run, cfg, &state, 0, obs)?;
            clock.lap(run, g, "selfplay")?;
            state.done = Stage::Selfplay;
            save_state(run, &state)?;
        }
        if state.done == Stage::Selfplay {
            train_stage::<G>(run, cfg, g, None, obs)?;
            clock.lap(run, g, "train")?;
            state.done = Stage::Train;
            save_state(run, &state)?;
        }
        if state.done == Stage::Train {
            if let Some(b) = budget {
                if b.ends_with(run, g)? {
                    obs.note(&format!("generation {g} is the last within the time budget ({} min)", cfg.looping.max_minutes));
                    generations = g;
                }
            }
            let promote = eval_stage::<G>(run, cfg, &best, g, generations, obs)?;
            clock.lap(run, g, "eval")?;
            let (table, ratings) = write_ratings(run, &model_name(1))?;
            obs.note(&table);
            // The candidate's Elo against gen-0001 (NaN, left out, when it played no rated match).
            let elo = ratings.as_ref().and_then(|l| l.get(&model_name(g))).map_or(f64::NAN, |r| r.elo);
            append_stage(run, g, "eval", &[("promoted", if promote { 1.0 } else { 0.0 }), ("elo", elo)])?;
            clock.finish(run, g)?;
            let page = crate::report::write_report(run)?;
            obs.note(&format!("report: {}", page.display()));
            state.done = Stage::Eval;
            state.promoted = promote;
            save_state(run, &state)?;
            if promote {
                pacozero_nn::set_current_model(run, &model_name(g)).map_err(|e| anyhow::anyhow!("{e}"))?;
            }
        }
        state.generation += 1;
        state.done = Stage::None;
        state.promoted = false;
        save_state(run, &state)?;
    }
    obs.note(&format!("done: {} generations in {}", generations, run.display()));
    Ok(())
}

/// The run's wall-time budget (`loop.max_minutes`), judged from the stage
/// times in `generations.jsonl`.
#[derive(Clone, Copy, Debug)]
struct TimeBudget {
    seconds: f64,
}

impl TimeBudget {
    fn of(l: &LoopConfig) -> Option<TimeBudget> {
        (l.max_minutes > 0.0).then_some(TimeBudget { seconds: l.max_minutes * 60.0 })
    }

    /// Seconds the run has spent: every recorded stage time.
    fn spent(&self, run: &Path) -> Result<f64> {
        Ok(spent_seconds(&read_generations(run)?))
    }

    /// After generation `g`'s training: would another generation like this
    /// one (self-play plus training) cross the budget?
    fn ends_with(&self, run: &Path, g: u32) -> Result<bool> {
        let generations = read_generations(run)?;
        let this = generations.get(&g);
        let figure = |k: &str| this.and_then(|f| f.get(k)).copied().unwrap_or(0.0);
        let next = figure("time.selfplay_seconds") + figure("time.train_seconds") + figure("time.overlap_seconds");
        Ok(budget_ends(spent_seconds(&generations), next, self.seconds))
    }
}

/// Every stage time recorded in `generations`, in seconds.
fn spent_seconds(generations: &crate::files::Generations) -> f64 {
    generations.values().flat_map(|figures| figures.iter()).filter(|(k, _)| k.starts_with("time.")).map(|(_, v)| v).sum()
}

/// Whether a run that has spent `spent` seconds cannot fit another
/// generation of `next` seconds in a budget of `budget` seconds.
fn budget_ends(spent: f64, next: f64, budget: f64) -> bool {
    spent + next > budget
}

/// Wall time of a generation by stage, written to `generations.jsonl` as
/// stage `time`: `selfplay_seconds`, `train_seconds`, `eval_seconds` as each
/// stage ends, and `other_seconds` (the rest of the generation in this
/// process: state files, ratings, the report) when it ends. A generation
/// resumed after a crash keeps the times of the stages that finished before;
/// the bookkeeping of the crashed process is not counted.
struct StageClock {
    generation: Instant,
    lap: Instant,
    staged: f64,
}

impl StageClock {
    fn start() -> StageClock {
        StageClock { generation: Instant::now(), lap: Instant::now(), staged: 0.0 }
    }

    fn lap(&mut self, run: &Path, g: u32, stage: &str) -> Result<()> {
        let secs = self.lap.elapsed().as_secs_f64();
        self.staged += secs;
        append_stage(run, g, "time", &[(&format!("{stage}_seconds"), secs)])?;
        self.lap = Instant::now();
        Ok(())
    }

    fn finish(&self, run: &Path, g: u32) -> Result<()> {
        let other = (self.generation.elapsed().as_secs_f64() - self.staged).max(0.0);
        append_stage(run, g, "time", &[("other_seconds", other)])
    }
}

/// The stem of the newest complete chunk of `data` (empty: none).
fn newest_chunk(data: &Path) -> Result<String> {
    let chunks = pacozero_data::list_chunks(data).with_context(|| format!("listing {}", data.display()))?;
    Ok(chunks.last().map(|c| c.stem.clone()).unwrap_or_default())
}

/// Generation g's self-play beside gen-g's training on the chunks up to
/// `state.train_upto` (`loop.overlap`). Each stage's own wall time goes to
/// `generations.jsonl` as stage `overlap`; the loop's clock records the
/// time of the two together (`time.overlap_seconds`).
fn overlapped_stage<G: Game>(run: &Path, cfg: &LoopFile, state: &LoopState, obs: &dyn LoopObserver) -> Result<()> {
    let g = state.generation;
    obs.note(&format!("self-play and training at once: gen-{g:04} trains on the chunks up to {}", state.train_upto));
    let timed = |f: &dyn Fn() -> Result<()>| -> Result<f64> {
        let t = Instant::now();
        f()?;
        Ok(t.elapsed().as_secs_f64())
    };
    let (played, trained) = std::thread::scope(|s| {
        let selfplay = s.spawn(|| timed(&|| selfplay_stage::<G>(run, cfg, state, cfg.selfplay.threads.max(1), obs)));
        let trained = timed(&|| train_stage::<G>(run, cfg, g, Some(&state.train_upto), obs));
        let played = selfplay.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (played, trained)
    });
    append_stage(run, g, "overlap", &[("selfplay_seconds", played?), ("train_seconds", trained?)])
}

/// The index in `G::ENCODINGS` of the loop's `net.encoding`.
fn net_encoding<G: Game>(cfg: &LoopFile) -> Result<usize> {
    encoding_index::<G>(&cfg.net.encoding).map_err(|e| anyhow::anyhow!("net.encoding: {e}"))
}

/// Self-play of the generation: with rollouts before the first network,
/// else with the best network, on `net_threads` threads of its own (0: the
/// global pool).
fn selfplay_stage<G: Game>(run: &Path, cfg: &LoopFile, state: &LoopState, net_threads: usize, obs: &dyn LoopObserver) -> Result<()> {
    check_data_dir_as::<G>(&RunDir::new(run).data(), net_encoding::<G>(cfg)?)?;
    let best = best_model(run)?;
    let player = if best.is_empty() {
        SelfplayPlayer::Baseline("rollout".into())
    } else {
        SelfplayPlayer::Network { model: pacozero_nn::model_path(run, &best), threads: net_threads }
    };
    let seed = derive_seed(cfg.looping.seed, state.generation as u64);
    let announce = |name: &str| obs.note(&format!("self-play with {name}"));
    let summary = selfplay_round::<G>(&cfg.selfplay, seed, &player, &RunDir::new(run).data(), cfg.looping.games_per_generation, obs.progress(), &announce)?;
    obs.note(&format!("self-play: {summary}"));
    append_stage(run, state.generation, "selfplay", &selfplay_figures(&summary))?;
    append_stage(run, state.generation, "ends", &end_figures(&summary))
}

/// The figures of a self-play stage in `generations.jsonl`. The false
/// resignation rate (of the no-resign games where a side would have
/// resigned, the share it did not lose) is left out without such a game.
fn selfplay_figures(summary: &Summary) -> [(&'static str, f64); 10] {
    let games = summary.games.max(1) as f64;
    let false_resignations = if summary.would_resign_games > 0 { summary.false_resignation_rate() } else { f64::NAN };
    [
        ("games", summary.games as f64),
        ("positions", summary.positions as f64),
        ("draw_rate", summary.draws as f64 / games),
        ("white_win_rate", summary.white_wins as f64 / games),
        ("avg_length", summary.avg_length()),
        ("sims_per_sec", summary.simulations_per_sec()),
        ("avg_batch", summary.requests as f64 / summary.batches.max(1) as f64),
        ("seconds", summary.wall_secs),
        ("would_resign_games", summary.would_resign_games as f64),
        ("false_resignation_rate", false_resignations),
    ]
}

/// How a self-play stage's games ended (stage `ends` of
/// `generations.jsonl`): each end reason's share of the games (the game's
/// `end_reason`, `resign`, `max_length` for a cut, `material`, `stuck`).
fn end_figures(summary: &Summary) -> Vec<(&str, f64)> {
    let games = summary.games.max(1) as f64;
    summary.reasons.iter().map(|(reason, n)| (reason.as_str(), *n as f64 / games)).collect()
}

/// Training up to generation `g`'s steps, on the chunks up to `upto` (all
/// when `None`; an overlapped generation's training shows no progress bar,
/// self-play's has the terminal).
fn train_stage<G: Game>(run: &Path, cfg: &LoopFile, g: u32, upto: Option<&str>, obs: &dyn LoopObserver) -> Result<()> {
    let mut train = cfg.train.clone();
    train.progress = train_progress(train.progress, upto, obs.progress());
    let name = model_name(g);
    let stage = TrainStage {
        net: cfg.net.to_config(&game_spec_as::<G>(net_encoding::<G>(cfg)?))?,
        train,
        steps: Steps::UpTo(g as u64 * cfg.looping.train_steps_per_generation),
        data_upto: upto.map(String::from),
        fresh_window_from: cfg.looping.fresh_window.then_some((g as u64 - 1) * cfg.looping.train_steps_per_generation),
        export: Some(Export { name: &name, make_current: false }),
    };
    let r = pacozero_train::train_stage(run, stage)?;
    // Before training on them: the network's losses on this generation's new games.
    if let Some(f) = &r.fresh {
        obs.note(&f.to_string());
        append_stage(
            run,
            g,
            "fresh",
            &[
                ("rows", f.rows as f64),
                ("policy_loss", f.policy_loss),
                ("value_loss", f.value_loss),
                ("policy_top1", f.policy_top1),
                // Calibration: the loss of the constant prediction of these
                // rows' result shares, the draw share and its prediction,
                // and the loss split by result (NaN, left out, where none).
                ("base_rate_loss", f.base_rate_loss),
                ("draw_share", f.result_share[1]),
                ("pred_draw", f.mean_wdl[1]),
                ("value_loss_win", f.value_loss_by_result[0]),
                ("value_loss_draw", f.value_loss_by_result[1]),
                ("value_loss_loss", f.value_loss_by_result[2]),
            ],
        )?;
    }
    if r.summary.steps > 0 {
        let summary = &r.summary;
        obs.note(&format!(
            "training: {} steps, loss {:.4} -> {:.4}, {:.0} samples/s",
            summary.steps, summary.first.loss, summary.last.loss, summary.samples_per_sec
        ));
        let last = &summary.last;
        append_stage(
            run,
            g,
            "train",
            &[
                ("steps", r.step as f64),
                ("loss", last.loss),
                ("policy_loss", last.policy_loss),
                ("value_loss", last.value_loss),
                ("policy_top1", last.policy_top1),
                ("samples_per_sec", summary.samples_per_sec),
                // NaN (left out) without a reply head.
                ("reply_policy_loss", last.reply_policy_loss),
            ],
        )?;
    }
    Ok(())
}

/// Whether a training stage draws its progress bar: when the `[train]`
/// configuration asks for one, in a generation that is not overlapped
/// (`upto` is `None`; there self-play's bar has the terminal), and with an
/// observer that shows progress.
fn train_progress(configured: bool, upto: Option<&str>, observer: bool) -> bool {
    configured && upto.is_none() && observer
}

fn player_for<G: Game>(run: &Path, cfg: &LoopFile, name: &str, sims: u32, seed: u64) -> Result<Player<G>> {
    player_with_budget(run, cfg, name, Budget::Simulations(sims), seed)
}

/// A run's model as an arena player with a budget (`64` or `50ms`), named
/// after the model. It evaluates leaves as self-play does: with
/// `[selfplay] playout_mix` of a random playout mixed in when that is set.
fn player_with_budget<G: Game>(run: &Path, cfg: &LoopFile, name: &str, budget: Budget, seed: u64) -> Result<Player<G>> {
    Player::from_spec(name.to_string(), model_spec(run, cfg, name, budget), seed, 0)
}

/// The spec of a run's model `name` as an evaluation player with `budget`.
fn model_spec(run: &Path, cfg: &LoopFile, name: &str, budget: Budget) -> PlayerSpec {
    let mix = PlayoutMix { weight: cfg.selfplay.playout_mix, ..PlayoutMix::NONE };
    PlayerSpec::Mcts { kind: EvalKind::Net(pacozero_nn::model_path(run, name), mix), budget, search: Default::default() }
}

/// Does generation `g` of `last` play its evaluation matches?
fn evaluates(l: &LoopConfig, g: u32, last: u32) -> bool {
    g.is_multiple_of(l.eval_every) || g >= last || g == 1
}

/// Plays the evaluation matches of generation `g`; returns whether the candidate is promoted.
fn eval_stage<G: Game>(run: &Path, cfg: &LoopFile, best: &str, g: u32, last: u32, obs: &dyn LoopObserver) -> Result<bool> {
    let l = &cfg.looping;
    if !evaluates(l, g, last) {
        obs.note(&format!("evaluation: skipped in generation {g} (eval_every = {}); gen-{g:04} becomes the best", l.eval_every));
        return Ok(true);
    }
    let first = model_name(1);
    let previous = last_evaluated(run, g)?;
    // Generation 1 is the first network: eval_matches skips an anchor that is the candidate.
    let round = EvalRound { candidate: &model_name(g), anchor: Some(first.as_str()), previous: previous.as_deref(), best, index: g };
    eval_matches::<G>(run, cfg, &round, obs)
}

/// The network evaluated last before generation `g`: the candidate of the
/// newest generation below `g` that played a match (`matches.jsonl`), so
/// whatever `eval_every` was when it played; `None` before the first.
fn last_evaluated(run: &Path, g: u32) -> Result<Option<String>> {
    let matches = read_matches(run)?;
    Ok(matches.into_iter().filter(|m| m.generation < g && m.a == model_name(m.generation)).max_by_key(|m| m.generation).map(|m| m.a))
}

/// One candidate's evaluation: which models of the run directory play.
pub struct EvalRound<'a> {
    /// The model under test (a name in the run's `models/`).
    pub candidate: &'a str,
    /// The first network, for the anchor match (`None`: no anchor match).
    pub anchor: Option<&'a str>,
    /// The network evaluated before the candidate, for the match that
    /// chains the rating list (`None`: none; skipped where it is the anchor
    /// or the best, which the candidate plays anyway).
    pub previous: Option<&'a str>,
    /// The current best ("" = none yet: the candidate is promoted).
    pub best: &'a str,
    /// The candidate's generation (or its place in a store's models): the
    /// matches' `generation` and the seed of their openings.
    pub index: u32,
}

/// The seeds of a generation's evaluation: each player's and each match's
/// its own (no two share a random stream), all from every bit of the loop's
/// seed and the generation. (The gating match's openings share its seed.)
#[derive(Clone, Copy, Debug)]
struct EvalSeeds {
    candidate: u64,
    best: u64,
    anchor: u64,
    baseline: u64,
    baseline_match: u64,
    gating: u64,
    anchor_match: u64,
    external: u64,
    external_match: u64,
    previous: u64,
    previous_match: u64,
}

impl EvalSeeds {
    fn of(loop_seed: u64, generation: u32) -> EvalSeeds {
        let s = derive_seed(loop_seed ^ 0x5EED, generation as u64);
        EvalSeeds {
            candidate: s,
            best: s ^ 3,
            anchor: s ^ 5,
            baseline: s ^ 7,
            baseline_match: s ^ 11,
            gating: s ^ 13,
            anchor_match: s ^ 17,
            external: s ^ 19,
            external_match: s ^ 23,
            previous: s ^ 29,
            previous_match: s ^ 31,
        }
    }

    #[cfg(test)]
    fn all(&self) -> [u64; 11] {
        [
            self.candidate,
            self.best,
            self.anchor,
            self.baseline,
            self.baseline_match,
            self.gating,
            self.anchor_match,
            self.external,
            self.external_match,
            self.previous,
            self.previous_match,
        ]
    }
}

/// Plays a candidate's evaluation matches as `[loop]` sets them (baseline,
/// anchor, the network evaluated before, external, gating against the
/// best), records each in `matches.jsonl`, and returns whether the
/// promotion rule promotes it.
pub fn eval_matches<G: Game>(run: &Path, cfg: &LoopFile, round: &EvalRound, obs: &dyn LoopObserver) -> Result<bool> {
    let l = &cfg.looping;
    let (g, best) = (round.index, round.best);
    let seed = EvalSeeds::of(l.seed, g);
    let cand = player_for::<G>(run, cfg, round.candidate, l.eval_simulations, seed.candidate)?;
    // `which` names the match in the generation: its games' chunk in
    // match-games/, which a repeated evaluation stage rewrites.
    let record = |a: &Player<G>, b: &Player<G>, m: &MatchResult, sprt: Option<&str>, which: &str| -> Result<()> {
        append_match(run, &match_line(g, &a.name, &b.name, m, sprt))?;
        // Every evaluation game, kept in the games table with the players' specs.
        pacozero_arena::records::record_games_as::<G>(&RunDir::new(run).match_games(), Some(&format!("{}-{which}", round.candidate)), &m.played)?;
        Ok(())
    };
    let limits = pacozero_search::GameLimits { max_decisions: l.max_decisions, adjudicate_material: l.adjudicate_material };
    if l.baseline_games > 0 {
        // At equal time when configured: both sides get the same milliseconds per decision.
        let (budget, base_name) = match l.baseline_movetime_ms {
            0 => (Budget::Simulations(l.baseline_simulations), format!("rollout-{}", l.baseline_simulations)),
            ms => (Budget::Millis(ms), format!("rollout-{ms}ms")),
        };
        let timed_cand;
        let cand_here = if l.baseline_movetime_ms > 0 {
            timed_cand = player_with_budget(run, cfg, round.candidate, Budget::Millis(l.baseline_movetime_ms), seed.candidate)?;
            &timed_cand
        } else {
            &cand
        };
        let base = Player::<G>::from_spec(base_name, PlayerSpec::Mcts { kind: EvalKind::Rollout, budget, search: Default::default() }, seed.baseline, 0)?;
        let m = run_match(cand_here, &base, l.baseline_games / 2, l.openings, limits, seed.baseline_match, &|d, t| obs.match_progress(d, t))?;
        let ((ta, sa), (tb, sb)) = (m.per_decision(0), m.per_decision(1));
        obs.note(&format!(
            "{} vs {}: +{} ={} -{} (per decision: {ta:.1} ms, {sa:.0} sims vs {tb:.1} ms, {sb:.0} sims; end reasons {})",
            cand.name,
            base.name,
            m.wdl.wins,
            m.wdl.draws,
            m.wdl.losses,
            serde_json::to_string(&m.end_reasons)?
        ));
        record(cand_here, &base, &m, None, "baseline")?;
    }
    if let Some(anchor) = round.anchor.filter(|a| l.anchor_games > 0 && *a != round.candidate) {
        let first = player_for(run, cfg, anchor, l.eval_simulations, seed.anchor)?;
        let m = run_match(&cand, &first, l.anchor_games / 2, l.openings, limits, seed.anchor_match, &|d, t| obs.match_progress(d, t))?;
        obs.note(&format!("{} vs {} (anchor): +{} ={} -{}", cand.name, first.name, m.wdl.wins, m.wdl.draws, m.wdl.losses));
        record(&cand, &first, &m, None, "anchor")?;
    }
    // The network evaluated before, unless the anchor or the gating match plays it.
    let previous_games = l.previous_games.unwrap_or(l.anchor_games);
    let anchor_plays = |p: &str| l.anchor_games > 0 && round.anchor == Some(p);
    if let Some(previous) = round.previous.filter(|p| previous_games > 0 && *p != round.candidate && *p != best && !anchor_plays(p)) {
        let before = player_for(run, cfg, previous, l.eval_simulations, seed.previous)?;
        let m = run_match(&cand, &before, previous_games / 2, l.openings, limits, seed.previous_match, &|d, t| obs.match_progress(d, t))?;
        obs.note(&format!("{} vs {} (previous): +{} ={} -{}", cand.name, before.name, m.wdl.wins, m.wdl.draws, m.wdl.losses));
        record(&cand, &before, &m, None, "previous")?;
    }
    if !l.external.is_empty() {
        // The external engine: one process per game, each move checked; a forfeit loses the game.
        let ext = Player::<G>::new(&l.external, seed.external, 0)?;
        let m = run_match(&cand, &ext, l.external_games / 2, l.openings, limits, seed.external_match, &|d, t| obs.match_progress(d, t))?;
        obs.note(&format!(
            "{} vs {} (external): +{} ={} -{} (end reasons {})",
            cand.name,
            ext.name,
            m.wdl.wins,
            m.wdl.draws,
            m.wdl.losses,
            serde_json::to_string(&m.end_reasons)?
        ));
        for f in &m.forfeits {
            obs.note(&format!("forfeit: {f}"));
        }
        record(&cand, &ext, &m, None, "external")?;
    }
    if best.is_empty() {
        return Ok(true);
    }
    let best = player_for(run, cfg, best, l.eval_simulations, seed.best)?;
    let pairs = l.gating_games / 2;
    let start = |i| pacozero_arena::opening(l.openings, seed.gating, i);
    let progress = |d, t| obs.match_progress(d, t);
    let (m, sprt) = if l.promotion == Promotion::Sprt {
        // Sequential: pairs in rounds of 8 until the test decides, at most
        // `gating_games`; the games are the first ones of the full match.
        let test = Sprt { elo0: l.sprt_elo0, elo1: l.sprt_elo1, alpha: l.sprt_alpha, beta: l.sprt_beta };
        let (m, decision) = run_match_sprt(&cand, &best, pairs, &start, limits, seed.gating, &progress, 8, &test)?;
        (m, Some(decision))
    } else {
        (run_match_from(&cand, &best, pairs, &start, limits, seed.gating, &progress)?, None)
    };
    let sprt_note = sprt.map_or_else(String::new, |d| format!(", SPRT {} after {} games", d.name(), m.games));
    obs.note(&format!("{} vs {}: +{} ={} -{}{sprt_note}", cand.name, best.name, m.wdl.wins, m.wdl.draws, m.wdl.losses));
    record(&cand, &best, &m, sprt.map(SprtDecision::name), "gating")?;
    Ok(promotes(l, m.wdl.score(), sprt))
}

/// The line of `matches.jsonl` of match `m` of generation `g` between `a` and `b`.
fn match_line(g: u32, a: &str, b: &str, m: &MatchResult, sprt: Option<&str>) -> MatchLine {
    MatchLine {
        generation: g,
        a: a.to_string(),
        b: b.to_string(),
        wins: m.wdl.wins,
        draws: m.wdl.draws,
        losses: m.wdl.losses,
        pentanomial: m.pentanomial.0,
        avg_decisions: m.decisions as f64 / m.games.max(1) as f64,
        seconds_per_decision: Some([m.per_decision(0).0 / 1000.0, m.per_decision(1).0 / 1000.0]),
        simulations_per_decision: Some([m.per_decision(0).1, m.per_decision(1).1]),
        end_reasons: m.end_reasons.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        sprt: sprt.map(str::to_string),
    }
}

/// Whether the rule of `l` promotes a candidate that scored `score` in the
/// gating match, whose sequential test (`promotion = "sprt"`) ended `sprt`.
fn promotes(l: &LoopConfig, score: f64, sprt: Option<SprtDecision>) -> bool {
    match l.promotion {
        Promotion::Always => true,
        Promotion::Score => score >= l.promotion_score,
        // Undecided at the cap is not a promotion.
        Promotion::Sprt => sprt == Some(SprtDecision::AcceptH1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{err_text, forfeiting_engine, json_lines, tiny_loop, tiny_model, Notes, TempDir};
    use pacozero_arena::ratings::{Pentanomial, Wdl};
    use pacozero_data::spec_of;
    use pacozero_engine::paco::GameState as Paco;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    #[test]
    fn an_evaluations_players_and_matches_each_have_their_own_seed_from_every_bit_of_the_loops() {
        for loop_seed in [0, 99, u64::MAX] {
            for generation in 0..64 {
                let seeds = EvalSeeds::of(loop_seed, generation).all();
                let distinct: std::collections::HashSet<u64> = seeds.iter().copied().collect();
                assert_eq!(distinct.len(), seeds.len(), "loop seed {loop_seed}, generation {generation}: {seeds:?}");
            }
        }
        let here = EvalSeeds::of(99, 5).all();
        for bit in 0..64 {
            let there = EvalSeeds::of(99 ^ (1 << bit), 5).all();
            assert!(here.iter().zip(there).all(|(a, b)| *a != b), "bit {bit}");
        }
        assert!(EvalSeeds::of(99, 6).all().iter().zip(here).all(|(a, b)| *a != b));
    }

    #[test]
    fn bundled_loop_configs_parse_with_their_game() {
        let paco = LoopFile::parse(QUICK_TOML, "configs/quick.toml").unwrap();
        assert_eq!(paco.looping.game, GameKind::Paco);
        let text = include_str!("../../configs/quick-shako.toml");
        let shako = LoopFile::parse(text, "configs/quick-shako.toml").unwrap();
        assert_eq!(shako.looping.game, GameKind::Shako);
        let net = shako.net.to_config(&spec_of_encoding(GameKind::Shako, &shako.net.encoding).unwrap()).unwrap();
        assert_eq!((net.height, net.width, net.policy_size), (10, 10, 3656));
        // Without the key a run plays Paco.
        assert_eq!(LoopFile::parse("", "empty").unwrap().looping.game, GameKind::Paco);
        // The GPU loop: a 10x128 network, evaluation every 4th generation.
        let gpu = LoopFile::parse(include_str!("../../configs/gpu.toml"), "configs/gpu.toml").unwrap();
        let net = gpu.net.to_config(&spec_of(GameKind::Paco)).unwrap();
        assert_eq!((net.blocks, net.channels, gpu.looping.eval_every, gpu.train.batch_size), (10, 128, 4, 1024));
    }

    #[test]
    fn eval_every_skips_the_generations_between_and_needs_always_promotion() {
        let f = LoopFile::parse("[loop]\npromotion = \"always\"\neval_every = 3\n", "t").unwrap();
        let played: Vec<u32> = (1..=10).filter(|&g| evaluates(&f.looping, g, 10)).collect();
        assert_eq!(played, vec![1, 3, 6, 9, 10], "the first, every third and the last");
        let one = LoopFile::parse("", "t").unwrap();
        assert!((1..=5).all(|g| evaluates(&one.looping, g, 5)));
        let e = format!("{:#}", LoopFile::parse("[loop]\npromotion = \"score\"\neval_every = 2\n", "t").unwrap_err());
        assert!(e.contains("eval_every") && e.contains("always"), "{e}");
        let e = format!("{:#}", LoopFile::parse("[loop]\npromotion = \"always\"\neval_every = 0\n", "t").unwrap_err());
        assert!(e.contains("eval_every must be in 1..=1000"), "{e}");
    }

    #[test]
    fn the_time_budget_ends_the_run_before_a_generation_would_cross_it() {
        assert!(!budget_ends(100.0, 50.0, 200.0), "another generation fits");
        assert!(!budget_ends(150.0, 50.0, 200.0), "it fits exactly");
        assert!(budget_ends(151.0, 50.0, 200.0), "it would cross the budget");
        assert!(TimeBudget::of(&LoopConfig::default()).is_none(), "0 = no budget");
        let f = LoopFile::parse("[loop]\nmax_minutes = 30\n", "t").unwrap();
        assert_eq!(TimeBudget::of(&f.looping).unwrap().seconds, 1800.0);
        let e = format!("{:#}", LoopFile::parse("[loop]\nmax_minutes = -1\n", "t").unwrap_err());
        assert!(e.contains("max_minutes must be in 0..=100000"), "{e}");
    }

    #[test]
    fn an_unknown_game_is_refused_by_name() {
        let e = format!("{:#}", LoopFile::parse("[loop]\ngame = \"chess\"\n", "bad.toml").unwrap_err());
        assert!(e.contains("game") && e.contains("chess") && e.contains("shako"), "{e}");
    }
    /// The loop file of the built-in defaults with the `--set`s `sets`.
    fn parse_with(sets: &[&str]) -> Result<LoopFile> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        LoopFile::parse(&crate::overrides::apply("", &sets)?, "t")
    }

    #[test]
    fn an_observer_shows_progress_unless_it_says_otherwise() {
        struct Plain;
        impl LoopObserver for Plain {
            fn note(&self, _: &str) {}
            fn match_progress(&self, _: u64, _: u64) {}
        }
        assert!(Plain.progress());
        assert!(!Notes::new().progress());
    }

    /// The tests' observer stops a loop that would run longer than the test
    /// expects at its first generation (so a loop that lost the test's
    /// configuration fails at once instead of running for hours).
    #[test]
    fn the_tests_observer_refuses_more_generations_than_expected() {
        let refused = |max: usize, notes: &[&str]| {
            let n = Notes::at_most(max);
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| notes.iter().for_each(|t| n.note(t)))).is_err()
        };
        assert!(!refused(2, &["== generation 1/2 (best: none, rollout self-play)", "== generation 2/2 (best: gen-0001)"]));
        assert!(!refused(1, &["== generation 2/2 (best: gen-0001)"]));
        assert!(refused(2, &["== generation 1/20 (best: none, rollout self-play)"]));
        assert!(refused(1, &["== generation 1/2 (best: none, rollout self-play)"]));
        assert!(refused(1, &["== generation 2/2 (best: gen-0001)", "== generation 2/2 (best: gen-0001)"]));
        assert!(!refused(0, &["done: 2 generations in run"]));
    }

    #[test]
    fn the_game_is_written_and_read_by_its_name() {
        let f = LoopFile::parse("[loop]\ngame = \"shako\"\n", "t").unwrap();
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(v["loop"]["game"], "shako", "{v}");
        let back: LoopConfig = serde_json::from_value(v["loop"].clone()).unwrap();
        assert_eq!(back.game, GameKind::Shako);
    }

    #[test]
    fn each_loop_range_refuses_the_first_value_outside_it_and_names_the_key() {
        let refused = |sets: &[&str], want: &str| {
            let e = err_text(parse_with(sets));
            assert!(e.contains(want), "{sets:?}: {e}");
        };
        refused(&["loop.gating_games=3"], "loop.gating_games must be even, in 2..=100000");
        refused(&["loop.gating_games=100002"], "loop.gating_games must be even, in 2..=100000");
        // sprt_elo1 is 50 by default.
        refused(&["loop.sprt_elo0=50.0"], "loop.sprt_elo1 must be greater than sprt_elo0");
        for k in ["alpha", "beta"] {
            for v in ["0.0", "0.5"] {
                refused(&[&format!("loop.sprt_{k}={v}")], &format!("loop.sprt_{k} must be in (0, 0.5)"));
            }
        }
        for k in ["anchor_games", "previous_games", "baseline_games"] {
            for v in ["3", "100002"] {
                refused(&[&format!("loop.{k}={v}")], &format!("loop.{k} must be even, at most 100000"));
            }
        }
        refused(&["loop.external=rollout:10"], "loop.external must be a uci:<command>");
        refused(&["loop.external=uci:/bin/sh:nodes=1", "loop.external_games=3"], "loop.external_games must be even, in 2..=100000 (with external)");
        // The last values inside.
        let f = parse_with(&[
            "loop.gating_games=100000",
            "loop.sprt_elo0=49.5",
            "loop.sprt_alpha=0.49",
            "loop.sprt_beta=0.01",
            "loop.anchor_games=100000",
            "loop.baseline_games=100000",
            "loop.external=uci:/bin/sh:nodes=1",
            "loop.external_games=2",
        ])
        .unwrap();
        let l = &f.looping;
        assert_eq!((l.gating_games, l.anchor_games, l.baseline_games, l.external_games), (100000, 100000, 100000, 2));
        assert_eq!((l.sprt_elo0, l.sprt_alpha, l.sprt_beta), (49.5, 0.49, 0.01));
        let f = parse_with(&["loop.gating_games=2", "loop.anchor_games=0", "loop.baseline_games=0"]).unwrap();
        assert_eq!((f.looping.gating_games, f.looping.anchor_games, f.looping.baseline_games), (2, 0, 0));
    }

    /// `previous_games` left out (as in every run of earlier builds) is
    /// `anchor_games`, and the configuration saved in `state.json` says so.
    #[test]
    fn previous_games_default_to_the_anchor_games() {
        let quick = LoopFile::parse(QUICK_TOML, "configs/quick.toml").unwrap();
        assert_eq!(quick.looping.previous_games, Some(quick.looping.anchor_games));
        let f = parse_with(&["loop.anchor_games=6"]).unwrap();
        assert_eq!(f.looping.previous_games, Some(6));
        assert_eq!(serde_json::to_value(&f).unwrap()["loop"]["previous_games"], 6);
        assert_eq!(parse_with(&["loop.anchor_games=6", "loop.previous_games=0"]).unwrap().looping.previous_games, Some(0));
        assert_eq!(parse_with(&["loop.previous_games=100000"]).unwrap().looping.previous_games, Some(100_000));
        assert_eq!(LoopFile::parse("", "empty").unwrap().looping.previous_games, Some(0));
        assert_eq!(LoopConfig::default().previous_games, None, "unset until parsed");
    }

    /// The network evaluated last is read from the matches: whatever
    /// `eval_every` said, and never the generation itself or a later one.
    #[test]
    fn the_last_evaluated_network_is_the_newest_candidate_with_a_match() {
        let dir = TempDir::new("last-evaluated");
        assert_eq!(last_evaluated(dir.path(), 5).unwrap(), None);
        for m in [
            crate::test_support::match_line(1, "gen-0001", "rollout-2", 1, 0, 1),
            crate::test_support::match_line(16, "gen-0016", "gen-0001", 1, 0, 1),
            crate::test_support::match_line(16, "gen-0016", "gen-0015", 1, 0, 1),
            crate::test_support::match_line(21, "gen-0021", "gen-0016", 1, 0, 1),
            crate::test_support::match_line(32, "gen-0032", "gen-0021", 1, 0, 1),
        ] {
            append_match(dir.path(), &m).unwrap();
        }
        let at = |g| last_evaluated(dir.path(), g).unwrap();
        assert_eq!(
            (at(1), at(2), at(16), at(17), at(21), at(32), at(40)),
            (
                None,
                Some("gen-0001".to_string()),
                Some("gen-0001".to_string()),
                Some("gen-0016".to_string()),
                Some("gen-0016".to_string()),
                Some("gen-0021".to_string()),
                Some("gen-0032".to_string())
            )
        );
    }

    /// A candidate plays the network evaluated before it, after the anchor
    /// and before the gating match, unless that network is the anchor (with
    /// anchor games) or the best.
    #[test]
    fn a_candidate_plays_the_network_evaluated_before_it_unless_it_plays_it_anyway() {
        let rows_of = |sets: &[&str], previous: &str, best: &str| {
            let dir = TempDir::new("previous");
            let run = dir.join("run");
            for g in 1..=4 {
                tiny_model::<Paco>(&run, &model_name(g));
            }
            let cfg = LoopFile::parse(&tiny_loop(sets), "tiny").unwrap();
            let round = EvalRound { candidate: "gen-0004", anchor: Some("gen-0001"), previous: Some(previous), best, index: 4 };
            let notes = Notes::new();
            eval_matches::<Paco>(&run, &cfg, &round, &notes).unwrap();
            (match_rows(&run), notes.starting("gen-0004 vs gen-0002 (previous)").len())
        };
        let anchor = ["loop.anchor_games=2"];
        assert_eq!(
            rows_of(&anchor, "gen-0002", "gen-0003"),
            (vec![row(4, "gen-0004", "gen-0001", 2), row(4, "gen-0004", "gen-0002", 2), row(4, "gen-0004", "gen-0003", 2)], 1)
        );
        assert_eq!(rows_of(&["loop.anchor_games=2", "loop.previous_games=4"], "gen-0002", "gen-0003").0[1], row(4, "gen-0004", "gen-0002", 4));
        // The best: the gating match plays it.
        assert_eq!(rows_of(&anchor, "gen-0003", "gen-0003").0, [row(4, "gen-0004", "gen-0001", 2), row(4, "gen-0004", "gen-0003", 2)]);
        // The anchor: its match plays it; without anchor games the previous match does.
        assert_eq!(rows_of(&anchor, "gen-0001", "gen-0003").0, [row(4, "gen-0004", "gen-0001", 2), row(4, "gen-0004", "gen-0003", 2)]);
        assert_eq!(rows_of(&["loop.previous_games=2"], "gen-0001", "gen-0003").0, [row(4, "gen-0004", "gen-0001", 2), row(4, "gen-0004", "gen-0003", 2)]);
        // None asked for.
        assert_eq!(rows_of(&["loop.anchor_games=2", "loop.previous_games=0"], "gen-0002", "gen-0003").0.len(), 2);
    }

    #[test]
    fn selfplay_writes_the_networks_encoding_and_may_only_repeat_it() {
        let f = parse_with(&["net.encoding=platform"]).unwrap();
        assert_eq!(f.selfplay.encoding, "platform", "self-play takes the network's encoding");
        let f = parse_with(&["net.encoding=platform", "selfplay.encoding=platform"]).unwrap();
        assert_eq!(f.selfplay.encoding, "platform");
        let e = err_text(parse_with(&["selfplay.encoding=platform"]));
        assert!(e.contains("loop.selfplay.encoding must be left out (net.encoding sets it)"), "{e}");
    }

    #[test]
    fn the_time_spent_is_every_recorded_stage_time_and_the_next_generation_is_judged_by_the_last() {
        let dir = TempDir::new("budget");
        let run = dir.path();
        append_stage(run, 1, "time", &[("selfplay_seconds", 100.0), ("train_seconds", 50.0)]).unwrap();
        append_stage(run, 1, "selfplay", &[("seconds", 99.0), ("games", 64.0)]).unwrap();
        append_stage(run, 2, "time", &[("overlap_seconds", 30.0), ("eval_seconds", 7.0)]).unwrap();
        append_stage(run, 2, "time", &[("selfplay_seconds", 4.0), ("train_seconds", 6.0)]).unwrap();
        // Only the `time` stage counts: 100 + 50 + 30 + 7 + 4 + 6 = 197 s.
        assert_eq!(spent_seconds(&read_generations(run).unwrap()), 197.0);
        assert_eq!(TimeBudget { seconds: 1.0 }.spent(run).unwrap(), 197.0);
        // After generation 2 another like it takes self-play + training +
        // overlap = 4 + 6 + 30 = 40 s (its evaluation is not repeated): 237 s in all.
        assert!(!TimeBudget { seconds: 237.0 }.ends_with(run, 2).unwrap(), "237 s fit a budget of 237 s");
        assert!(TimeBudget { seconds: 236.5 }.ends_with(run, 2).unwrap(), "237 s cross 236.5 s");
        // After generation 1: 100 + 50 = 150 s more, 347 s.
        assert!(!TimeBudget { seconds: 347.0 }.ends_with(run, 1).unwrap());
        assert!(TimeBudget { seconds: 346.5 }.ends_with(run, 1).unwrap());
        // A generation without recorded times adds nothing.
        assert!(!TimeBudget { seconds: 197.0 }.ends_with(run, 3).unwrap());
        assert!(TimeBudget { seconds: 196.5 }.ends_with(run, 3).unwrap());
    }

    #[test]
    fn a_candidate_is_promoted_when_the_sprt_accepts_h1() {
        let l = LoopConfig { promotion: Promotion::Sprt, ..LoopConfig::default() };
        assert!(promotes(&l, 0.0, Some(SprtDecision::AcceptH1)), "the test decides, not the score");
        assert!(!promotes(&l, 1.0, Some(SprtDecision::AcceptH0)));
        assert!(!promotes(&l, 1.0, Some(SprtDecision::Continue)), "undecided at the cap is no promotion");
    }

    #[test]
    fn a_candidate_is_promoted_by_score_from_promotion_score_on_and_always_by_always() {
        let l = LoopConfig { promotion: Promotion::Score, promotion_score: 0.55, ..LoopConfig::default() };
        assert!(promotes(&l, 0.55, None));
        assert!(promotes(&l, 0.6, None));
        assert!(!promotes(&l, 0.54, None));
        assert!(!promotes(&l, 0.5, Some(SprtDecision::AcceptH1)), "the score rule reads no test");
        let always = LoopConfig { promotion: Promotion::Always, ..LoopConfig::default() };
        assert!(promotes(&always, 0.0, Some(SprtDecision::AcceptH0)));
    }

    #[test]
    fn a_match_line_has_the_means_per_game_and_per_decision_of_each_side() {
        let m = MatchResult {
            wdl: Wdl { wins: 3, draws: 1, losses: 0 },
            pentanomial: Pentanomial([0, 0, 0, 1, 1]),
            decisions: 100,
            games: 4,
            seconds: [0.2, 0.6],
            decisions_by: [50, 50],
            simulations: [100, 300],
            end_reasons: [("max_length", 1), ("paco", 3)].into_iter().collect(),
            ..MatchResult::default()
        };
        let l = match_line(3, "gen-0003", "rollout-8", &m, Some("H1 accepted"));
        assert_eq!((l.generation, l.a.as_str(), l.b.as_str(), l.wins, l.draws, l.losses), (3, "gen-0003", "rollout-8", 3, 1, 0));
        assert_eq!(l.pentanomial, [0, 0, 0, 1, 1]);
        // 100 decisions in 4 games.
        assert_eq!(l.avg_decisions, 25.0);
        // A: 0.2 s over 50 decisions = 0.004 s, 100 / 50 = 2 simulations; B: 0.6 / 50 = 0.012 s, 300 / 50 = 6.
        let s = l.seconds_per_decision.unwrap();
        assert!((s[0] - 0.004).abs() < 1e-12 && (s[1] - 0.012).abs() < 1e-12, "{s:?}");
        assert_eq!(l.simulations_per_decision, Some([2.0, 6.0]));
        assert_eq!(l.end_reasons, BTreeMap::from([("max_length".to_string(), 1), ("paco".to_string(), 3)]));
        assert_eq!(l.sprt.as_deref(), Some("H1 accepted"));
        // No games: no division by zero, and no test.
        let none = match_line(1, "a", "b", &MatchResult::default(), None);
        assert_eq!((none.avg_decisions, none.seconds_per_decision, none.sprt), (0.0, Some([0.0, 0.0]), None));
    }

    #[test]
    fn the_selfplay_figures_are_rates_per_game_and_per_batch() {
        let s = Summary {
            games: 4,
            positions: 100,
            draws: 1,
            white_wins: 2,
            black_wins: 1,
            simulations: 1000,
            requests: 30,
            batches: 10,
            wall_secs: 2.0,
            ..Summary::default()
        };
        // 1 draw and 2 White wins in 4 games, 100 positions / 4 games, 1000
        // simulations / 2 s, 30 requests / 10 batches.
        let want = [
            ("games", 4.0),
            ("positions", 100.0),
            ("draw_rate", 0.25),
            ("white_win_rate", 0.5),
            ("avg_length", 25.0),
            ("sims_per_sec", 500.0),
            ("avg_batch", 3.0),
            ("seconds", 2.0),
            ("would_resign_games", 0.0),
        ];
        let got = selfplay_figures(&s);
        assert_eq!(got[..9], want);
        // No game would have resigned: no rate.
        assert!(got[9].0 == "false_resignation_rate" && got[9].1.is_nan());
        // 4 no-resign games would have resigned, 1 of their resigners did not lose.
        let s = Summary { would_resign_games: 4, false_resignations: 1, ..s };
        assert_eq!(selfplay_figures(&s)[8..], [("would_resign_games", 4.0), ("false_resignation_rate", 0.25)]);
    }

    #[test]
    fn the_end_figures_are_each_reasons_share_of_the_games() {
        let reasons = [("checkmate", 5), ("resign", 3), ("max_length", 2)].map(|(r, n)| (r.to_string(), n)).into_iter().collect();
        let s = Summary { games: 10, reasons, ..Summary::default() };
        assert_eq!(end_figures(&s), [("checkmate", 0.5), ("max_length", 0.2), ("resign", 0.3)]);
    }

    #[test]
    fn evaluation_players_are_the_runs_models_with_the_selfplay_playout_mix() {
        let f = parse_with(&["selfplay.playout_mix=0.25"]).unwrap();
        let spec = model_spec(Path::new("/runs/r"), &f, "gen-0003", Budget::Millis(50));
        let PlayerSpec::Mcts { kind: EvalKind::Net(path, mix), budget, .. } = spec else { panic!("{spec:?}") };
        assert_eq!(path, Path::new("/runs/r/models/gen-0003.pzmodel"));
        assert_eq!(mix, PlayoutMix { weight: 0.25, playouts: 1 });
        assert_eq!(budget, Budget::Millis(50));
    }

    #[test]
    fn training_draws_its_bar_only_when_asked_not_overlapped_and_not_quiet() {
        assert!(train_progress(true, None, true));
        assert!(!train_progress(false, None, true));
        assert!(!train_progress(true, Some("1700000000000-w0001"), true));
        assert!(!train_progress(true, None, false));
    }

    #[test]
    fn a_new_run_saves_its_configuration_with_the_overrides_and_a_resumed_one_keeps_it() {
        let dir = TempDir::new("open-run");
        let cfg = dir.join("tiny.toml");
        std::fs::write(&cfg, tiny_loop(&[])).unwrap();
        let run = dir.join("run");
        let notes = Notes::new();
        let f = open_run(&run, ConfigArgs { config: Some(&cfg), sets: &["loop.seed=99".into()], ..ConfigArgs::default() }, &notes).unwrap();
        assert_eq!((f.looping.seed, f.looping.games_per_generation), (99, 2));
        let saved = std::fs::read_to_string(RunDir::new(&run).config()).unwrap();
        assert!(saved.starts_with("# made by pacozero ") && saved.contains("# --set loop.seed=99\n"), "{saved}");
        // Resumed: its saved configuration, whatever --config says now.
        std::fs::write(&cfg, tiny_loop(&["loop.seed=5"])).unwrap();
        assert_eq!(open_run(&run, ConfigArgs::file(&cfg), &notes).unwrap().looping.seed, 99);
        assert_eq!(notes.lines(), [format!("note: resuming {}; using its config.toml, not --config", run.display())]);
        assert_eq!(open_run(&run, ConfigArgs::default(), &notes).unwrap().looping.seed, 99);
        assert_eq!(notes.lines().len(), 1, "no note without --config");
        let e = err_text(open_run(&run, ConfigArgs { sets: &["loop.seed=3".into(), "loop.generations=4".into()], ..ConfigArgs::default() }, &notes));
        assert!(e.contains("is a run already") && e.contains("--set loop.seed=3 --set loop.generations=4 cannot change it"), "{e}");
        // An override that repeats the run's value changes nothing.
        assert_eq!(open_run(&run, ConfigArgs { sets: &["loop.seed=99".into()], ..ConfigArgs::default() }, &notes).unwrap().looping.seed, 99);
        // A new run with a bad configuration saves none.
        let bad = dir.join("bad");
        let e = err_text(open_run(&bad, ConfigArgs { config: Some(&cfg), sets: &["loop.gating_games=3".into()], ..ConfigArgs::default() }, &notes));
        assert!(e.contains("with --set loop.gating_games=3: invalid loop configuration") && e.contains("gating_games must be even"), "{e}");
        assert!(!RunDir::new(&bad).config().exists());
        // Without --config: the embedded quick configuration.
        assert_eq!(open_run(&dir.join("quick"), ConfigArgs::default(), &notes).unwrap().looping.games_per_generation, 320);
    }

    /// A run directory with the miniature loop's configuration (with `sets`) and `state`.
    fn run_with_state(dir: &TempDir, sets: &[&str], state: &LoopState) -> PathBuf {
        let run = dir.join("run");
        std::fs::create_dir_all(&run).unwrap();
        write_atomic(&RunDir::new(&run).config(), tiny_loop(sets).as_bytes()).unwrap();
        save_state(&run, state).unwrap();
        run
    }

    #[test]
    fn a_run_cannot_switch_games() {
        let dir = TempDir::new("switch");
        let run = run_with_state(&dir, &[], &LoopState { game: "shako".into(), generation: 1, ..LoopState::default() });
        let e = err_text(run_loop(&run, ConfigArgs::default(), None, &Notes::new()));
        assert!(e.contains("is a shako run; its config.toml now says game = \"paco\""), "{e}");
        // A run of an earlier build, with no game recorded, is a Paco run.
        let dir = TempDir::new("switch-old");
        let run = run_with_state(&dir, &["loop.game=shako"], &LoopState { generation: 1, ..LoopState::default() });
        let e = err_text(run_loop(&run, ConfigArgs::default(), None, &Notes::new()));
        assert!(e.contains("is a paco run; its config.toml now says game = \"shako\""), "{e}");
    }

    /// A UCI engine that leaves the file `marker` when it starts, then
    /// forfeits every game at its first move.
    fn marking_engine(dir: &TempDir, marker: &Path) -> PathBuf {
        let path = dir.join("x.sh");
        let script = format!(
            "#!/bin/sh\ntouch '{}'\nwhile read line; do\n  case \"$line\" in\n    uci) echo 'id name x'; echo uciok;;\n    isready) echo readyok;;\n    go*) echo 'bestmove zz99';;\n    quit) exit 0;;\n  esac\ndone\n",
            marker.display()
        );
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn a_resumed_run_starts_no_program_its_config_names_unless_the_command_line_repeats_it() {
        let dir = TempDir::new("external-resume");
        let marker = dir.join("started");
        let external = format!("uci:{}:nodes=1", marking_engine(&dir, &marker).display());
        let set = format!("loop.external={external}");
        // Generation 1 trained: its evaluation, with the external match, is next.
        let state = LoopState { game: "paco".into(), generation: 1, done: Stage::Train, ..LoopState::default() };
        let run = run_with_state(&dir, &[&set, "loop.external_games=2"], &state);
        tiny_model::<Paco>(&run, "gen-0001");
        let config = RunDir::new(&run).config();
        let refused = |args: ConfigArgs<'_>| {
            let e = err_text(run_loop(&run, args, Some(1), &Notes::new()));
            assert!(!marker.exists(), "the program was started: {e}");
            e
        };
        let e = refused(ConfigArgs::default());
        assert!(e.starts_with(&format!("{} names loop.external = {external:?} (a program); a resumed run starts no program", config.display())), "{e}");
        assert!(e.contains(&format!("--set '{set}'")) && e.ends_with("or pass --trust-run-files to use the run's config.toml as it is"), "{e}");
        // A --config with another program, or none, does not repeat it; nor does an override of something else.
        let other = dir.join("other.toml");
        std::fs::write(&other, tiny_loop(&["loop.external=uci:/bin/false:nodes=1", "loop.external_games=2"])).unwrap();
        refused(ConfigArgs::file(&other));
        std::fs::write(&other, tiny_loop(&[])).unwrap();
        refused(ConfigArgs::file(&other));
        refused(ConfigArgs { sets: &["loop.seed=7".into()], ..ConfigArgs::default() });
        // A --config that names it, or --trust-run-files, takes the run's file.
        std::fs::write(&other, tiny_loop(&[&set])).unwrap();
        assert_eq!(open_run(&run, ConfigArgs::file(&other), &Notes::new()).unwrap().looping.external, external);
        assert_eq!(open_run(&run, ConfigArgs { trust_run_files: true, ..ConfigArgs::default() }, &Notes::new()).unwrap().looping.external, external);
        assert!(!marker.exists());
        // Repeated with --set, it plays.
        run_loop(&run, ConfigArgs { sets: std::slice::from_ref(&set), ..ConfigArgs::default() }, Some(1), &Notes::new()).unwrap();
        assert!(marker.exists(), "the program the command line repeats is started");
        assert_eq!(match_rows(&run), [row(1, "gen-0001", &external, 2)]);
    }

    #[test]
    fn a_resumed_run_reads_no_file_its_config_names_unless_the_command_line_repeats_it() {
        let dir = TempDir::new("book-resume");
        let run = run_with_state(&dir, &["selfplay.start_positions=fen_file", "selfplay.fen_file=/etc/passwd"], &LoopState::default());
        let e = err_text(run_loop(&run, ConfigArgs::default(), None, &Notes::new()));
        assert!(e.contains(r#"names selfplay.fen_file = "/etc/passwd" (a file); a resumed run starts no program and reads no file"#), "{e}");
        assert!(e.contains("--set 'selfplay.fen_file=/etc/passwd'"), "{e}");
        let sets = ["selfplay.fen_file=/etc/passwd".to_string()];
        assert_eq!(open_run(&run, ConfigArgs { sets: &sets, ..ConfigArgs::default() }, &Notes::new()).unwrap().selfplay.fen_file, Some("/etc/passwd".into()));
    }

    #[test]
    fn no_generation_starts_once_the_time_budget_is_spent() {
        let dir = TempDir::new("spent");
        let run = run_with_state(&dir, &["loop.max_minutes=1"], &LoopState { game: "paco".into(), generation: 2, ..LoopState::default() });
        // 50 + 20 = 70 s spent of a budget of 60 s.
        append_stage(&run, 1, "time", &[("selfplay_seconds", 50.0), ("train_seconds", 20.0)]).unwrap();
        let notes = Notes::new();
        run_loop(&run, ConfigArgs::default(), None, &notes).unwrap();
        assert_eq!(notes.lines(), ["done: the time budget (1 min) is spent before generation 2"]);
        assert_eq!(load_state(&run).unwrap().generation, 2);
    }

    #[test]
    fn an_evaluated_generation_moves_on_and_a_promotion_cut_short_moves_the_pointer() {
        for promoted in [false, true] {
            let dir = TempDir::new("evaluated");
            let state = LoopState { game: "paco".into(), generation: 2, done: Stage::Eval, promoted, ..LoopState::default() };
            // The budget is spent (70 s of 60), which stops only a generation not begun.
            let run = run_with_state(&dir, &["loop.max_minutes=1"], &state);
            append_stage(&run, 1, "time", &[("selfplay_seconds", 50.0), ("train_seconds", 20.0)]).unwrap();
            tiny_model::<Paco>(&run, "gen-0001");
            tiny_model::<Paco>(&run, "gen-0002");
            pacozero_nn::set_current_model(&run, "gen-0001").unwrap();
            let notes = Notes::new();
            run_loop(&run, ConfigArgs::default(), None, &notes).unwrap();
            // Saved as promoted, stopped before the pointer moved: it moves on resume.
            let best = if promoted { "gen-0002" } else { "gen-0001" };
            assert_eq!(notes.lines(), [format!("== generation 2/2 (best: {best})"), format!("done: 2 generations in {}", run.display())]);
            assert_eq!(best_model(&run).unwrap(), best);
            let s = load_state(&run).unwrap();
            assert_eq!((s.generation, s.done, s.promoted), (3, Stage::None, false));
        }
    }

    /// The stages of generation `g` in `generations.jsonl`, in order.
    fn stages(lines: &[serde_json::Value], g: u64) -> Vec<String> {
        lines.iter().filter(|l| l["generation"] == g).map(|l| l["stage"].as_str().unwrap().to_string()).collect()
    }

    /// Figure `key` of the lines of generation `g` and stage `stage`.
    fn figures(lines: &[serde_json::Value], g: u64, stage: &str, key: &str) -> Vec<f64> {
        lines.iter().filter(|l| l["generation"] == g && l["stage"] == stage).filter_map(|l| l[key].as_f64()).collect()
    }

    /// Generation, players and games of each line of `matches.jsonl`, in order.
    fn match_rows(run: &Path) -> Vec<(u64, String, String, u64)> {
        json_lines(&RunDir::new(run).matches())
            .iter()
            .map(|m| {
                let games = ["wins", "draws", "losses"].iter().map(|k| m[k].as_u64().unwrap()).sum();
                (m["generation"].as_u64().unwrap(), m["a"].as_str().unwrap().to_string(), m["b"].as_str().unwrap().to_string(), games)
            })
            .collect()
    }

    fn row(g: u64, a: &str, b: &str, games: u64) -> (u64, String, String, u64) {
        (g, a.to_string(), b.to_string(), games)
    }

    #[test]
    fn a_miniature_loop_plays_every_stage_and_every_match_in_order() {
        let dir = TempDir::new("loop-plain");
        let external = format!("uci:{}:nodes=1", forfeiting_engine(dir.path()).display());
        let cfg = dir.join("tiny.toml");
        std::fs::write(&cfg, tiny_loop(&["loop.baseline_games=2", "loop.anchor_games=4", &format!("loop.external={external}"), "loop.external_games=2"]))
            .unwrap();
        let run = dir.join("run");
        let notes = Notes::at_most(2);
        let t0 = Instant::now();
        run_loop(&run, ConfigArgs::file(&cfg), None, &notes).unwrap();
        let wall = t0.elapsed().as_secs_f64();

        let gens = json_lines(&RunDir::new(&run).generations());
        assert_eq!(stages(&gens, 1), ["selfplay", "ends", "time", "train", "time", "time", "eval", "time"]);
        // From generation 2 on, the best network's losses on the new games first.
        assert_eq!(stages(&gens, 2), ["selfplay", "ends", "time", "fresh", "train", "time", "time", "eval", "time"]);
        for g in [1, 2] {
            assert_eq!(figures(&gens, g, "selfplay", "games"), [2.0]);
            // Training up to g x 2 steps.
            assert_eq!(figures(&gens, g, "train", "steps"), [2.0 * g as f64]);
            assert_eq!(figures(&gens, g, "eval", "promoted"), [1.0]);
            for k in ["selfplay_seconds", "train_seconds", "eval_seconds", "other_seconds"] {
                assert_eq!(figures(&gens, g, "time", k).len(), 1, "{k} of generation {g}");
            }
        }
        // The stage times and the rest of each generation add up to no more than the run's wall time.
        let timed: f64 = gens
            .iter()
            .filter(|l| l["stage"] == "time")
            .flat_map(|l| l.as_object().unwrap().iter().filter(|(k, _)| k.ends_with("_seconds")).map(|(_, v)| v.as_f64().unwrap()))
            .sum();
        assert!(timed <= wall, "{timed} s timed in {wall} s:\n{gens:?}");

        // Baseline, anchor (not gen-0001 against itself), external, gating (not without a best).
        assert_eq!(
            match_rows(&run),
            [
                row(1, "gen-0001", "rollout-2", 2),
                row(1, "gen-0001", &external, 2),
                row(2, "gen-0002", "rollout-2", 2),
                row(2, "gen-0002", "gen-0001", 4),
                row(2, "gen-0002", &external, 2),
                row(2, "gen-0002", "gen-0001", 2),
            ]
        );
        for m in json_lines(&RunDir::new(&run).matches()) {
            if m["b"] == external.as_str() {
                // The engine forfeits every game at its first move.
                assert_eq!((m["wins"].as_u64(), m["end_reasons"]["illegal_move"].as_u64()), (Some(2), Some(2)), "{m}");
            } else {
                // Two a decision, but none where the root is a forced win
                // (a detected win, or a win in two turns).
                let sims: Vec<f64> = m["simulations_per_decision"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
                assert!(sims.len() == 2 && sims.iter().all(|x| (1.5..=2.0).contains(x)), "{m}");
                let d = m["avg_decisions"].as_f64().unwrap();
                assert!((1.0..=20.0).contains(&d), "{m}");
                assert!(m.get("sprt").is_none(), "{m}");
            }
        }
        assert_eq!(notes.starting("forfeit: ").len(), 4, "{}", notes.all());
        assert_eq!(notes.starting("self-play with ").len(), 2);
        assert!(notes.starting("self-play with ")[1].contains("gen-0001"), "{}", notes.all());
        let state = load_state(&run).unwrap();
        assert_eq!((state.game.as_str(), state.generation, state.done), ("paco", 3, Stage::None));
        assert_eq!(state.config.as_ref().unwrap()["loop"]["anchor_games"], 4);
        assert!(state.provenance.is_some());
        assert_eq!(best_model(&run).unwrap(), "gen-0002");
        assert!(RunDir::new(&run).report().is_file() && RunDir::new(&run).ratings_csv().is_file());

        // Resumed when done: nothing more to do. The run's config.toml names a
        // program, so the command line repeats it (the same --config).
        let again = Notes::at_most(0);
        run_loop(&run, ConfigArgs::file(&cfg), None, &again).unwrap();
        let resuming = format!("note: resuming {}; using its config.toml, not --config", run.display());
        assert_eq!(again.lines(), [resuming, format!("done: 2 generations in {}", run.display())]);
        assert_eq!(json_lines(&RunDir::new(&run).generations()).len(), gens.len());
    }

    #[test]
    fn an_overlapped_loop_trains_beside_selfplay_from_generation_two_and_gates_by_sprt() {
        let dir = TempDir::new("loop-overlap");
        let cfg = dir.join("tiny.toml");
        let sets = [
            "loop.overlap=true",
            "loop.promotion=sprt",
            "loop.baseline_games=2",
            "loop.baseline_movetime_ms=5",
            "loop.max_minutes=1000",
            "net.encoding=platform",
        ];
        std::fs::write(&cfg, tiny_loop(&sets)).unwrap();
        let run = dir.join("run");
        let notes = Notes::at_most(2);
        run_loop(&run, ConfigArgs::file(&cfg), None, &notes).unwrap();

        let gens = json_lines(&RunDir::new(&run).generations());
        assert_eq!(
            stages(&gens, 1),
            ["selfplay", "ends", "time", "train", "time", "time", "eval", "time"],
            "generation 1 has no network to play beside training"
        );
        let mut second = stages(&gens, 2);
        second.sort();
        assert_eq!(second, ["ends", "eval", "overlap", "selfplay", "time", "time", "time", "train"], "no new games to measure: training reads generation 1's");
        assert_eq!(figures(&gens, 2, "selfplay", "games"), [2.0]);
        assert_eq!(figures(&gens, 2, "train", "steps"), [4.0]);
        assert_eq!(figures(&gens, 2, "overlap", "selfplay_seconds").len(), 1);
        assert_eq!(figures(&gens, 2, "overlap", "train_seconds").len(), 1);
        assert_eq!(figures(&gens, 2, "time", "overlap_seconds").len(), 1);
        assert!(figures(&gens, 2, "time", "selfplay_seconds").is_empty() && figures(&gens, 2, "time", "train_seconds").is_empty());
        // gen-0002 trains on the chunks complete when generation 2 began: generation 1's one chunk.
        let data = RunDir::new(&run).data();
        let chunks = pacozero_data::list_chunks(&data).unwrap();
        assert_eq!(chunks.len(), 2);
        assert_eq!(
            notes.starting("self-play and training at once"),
            [format!("self-play and training at once: gen-0002 trains on the chunks up to {}", chunks[0].stem)]
        );
        // The games are in the network's encoding, platform (index 1).
        check_data_dir_as::<Paco>(&data, 1).unwrap();
        assert!(check_data_dir_as::<Paco>(&data, 0).is_err());

        // The baseline at equal time (5 ms a decision for both sides), then the gating match.
        assert_eq!(match_rows(&run), [row(1, "gen-0001", "rollout-5ms", 2), row(2, "gen-0002", "rollout-5ms", 2), row(2, "gen-0002", "gen-0001", 2)]);
        let lines = json_lines(&RunDir::new(&run).matches());
        for m in &lines[..2] {
            let s = m["seconds_per_decision"].as_array().unwrap();
            assert!(s.iter().all(|s| (0.0025..0.5).contains(&s.as_f64().unwrap())), "about 0.005 s a decision: {m}");
            assert!(m.get("sprt").is_none(), "{m}");
        }
        // One pair cannot accept H1: the test is recorded, and gen-0002 is not promoted.
        let sprt = lines[2]["sprt"].as_str().unwrap();
        assert!(sprt == "undecided" || sprt == "H0 accepted", "{}", lines[2]);
        assert_eq!(figures(&gens, 1, "eval", "promoted"), [1.0], "the first network has no best to beat");
        assert_eq!(figures(&gens, 2, "eval", "promoted"), [0.0]);
        assert_eq!(best_model(&run).unwrap(), "gen-0001");
        assert_eq!(load_state(&run).unwrap().generation, 3);
    }

    #[test]
    fn a_loop_gated_by_score_plays_only_the_gating_match_and_a_repeated_stage_adds_no_steps() {
        let dir = TempDir::new("loop-score");
        let cfg = dir.join("tiny.toml");
        std::fs::write(&cfg, tiny_loop(&["loop.promotion=score", "loop.promotion_score=0.6"])).unwrap();
        let run = dir.join("run");
        run_loop(&run, ConfigArgs::file(&cfg), None, &Notes::at_most(2)).unwrap();
        // No baseline, no anchor games, and no best to gate generation 1 against.
        assert_eq!(match_rows(&run), [row(2, "gen-0002", "gen-0001", 2)]);
        let gating = &json_lines(&RunDir::new(&run).matches())[0];
        let score = (gating["wins"].as_f64().unwrap() + 0.5 * gating["draws"].as_f64().unwrap()) / 2.0;
        assert!(score < 0.6, "these games are drawn at 20 decisions: {gating}");
        let gens = json_lines(&RunDir::new(&run).generations());
        assert_eq!(figures(&gens, 2, "eval", "promoted"), [0.0]);
        assert_eq!(best_model(&run).unwrap(), "gen-0001");

        // Generation 2 again from its training, whose steps are all done: no training line.
        let state = LoopState { generation: 2, done: Stage::Selfplay, ..load_state(&run).unwrap() };
        save_state(&run, &state).unwrap();
        let notes = Notes::at_most(1);
        run_loop(&run, ConfigArgs::default(), None, &notes).unwrap();
        assert!(notes.starting("training:").is_empty(), "{}", notes.all());
        let gens = json_lines(&RunDir::new(&run).generations());
        assert_eq!(figures(&gens, 2, "train", "steps"), [4.0]);
        assert_eq!(figures(&gens, 2, "eval", "promoted"), [0.0, 0.0]);
        assert_eq!(load_state(&run).unwrap().generation, 3);
    }
}
