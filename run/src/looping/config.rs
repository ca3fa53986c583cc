//! The loop's configuration: the loop file and its checks, and the run's
//! configuration when it starts or resumes (the command line's `--config`
//! and `--set`, the run's own `config.toml`).

use super::*;

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

/// `loop.external`, an external UCI engine as written (`""`: none). It is
/// checked as it is read, naming the file, line and key.
mod external_engine {
    use pacozero_arena::{Given, UciSpec};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(engine: &Option<Given<UciSpec>>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(engine.as_ref().map_or("", |e| e.text()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Given<UciSpec>>, D::Error> {
        let text = String::deserialize(d)?;
        if text.is_empty() {
            return Ok(None);
        }
        text.parse().map(Some).map_err(|e: anyhow::Error| {
            serde::de::Error::custom(format!("loop.external must be a uci:<command>[,<Option>=<value>...]:<budget> player spec, or \"\" for none: {e:#}"))
        })
    }
}

/// The embedded default loop configuration (`configs/quick.toml`).
pub const QUICK_TOML: &str = include_str!("../../../configs/quick.toml");

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
    #[serde(with = "external_engine")]
    pub external: Option<Given<UciSpec>>,
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
    /// A learning-rate drop late in the time budget (0 = none): a
    /// generation whose training starts after this fraction of
    /// `max_minutes` is spent trains at `lr_drop_factor` times `[train]
    /// lr`, so the run's last networks are trained at a low rate, as a
    /// schedule of steps would do where the run's length in steps is not
    /// known in advance. Needs `max_minutes`; in 0..1.
    pub lr_drop_at: f64,
    /// The factor of `lr_drop_at` (in (0, 1]).
    pub lr_drop_factor: f64,
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
            external: None,
            external_games: 10,
            openings: Openings::FischerRandom,
            max_decisions: 600,
            adjudicate_material: 0,
            eval_every: 1,
            max_minutes: 0.0,
            lr_drop_at: 0.0,
            lr_drop_factor: 0.1,
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

pub(super) fn check(name: &str, ok: bool, want: &str) -> Result<()> {
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
            if let Some(engine) = &l.external {
                // The program is there when the run starts, not at its first evaluation.
                pacozero_arena::uci_player::find_program(&engine.value().program.to_string_lossy()).map_err(|e| anyhow::anyhow!("loop.external: {e}"))?;
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
            check("lr_drop_at", (0.0..1.0).contains(&l.lr_drop_at), "in 0..1 (0 = no drop)")?;
            check("lr_drop_at", l.lr_drop_at == 0.0 || l.max_minutes > 0.0, "0 without a time budget (max_minutes = 0)")?;
            check("lr_drop_factor", l.lr_drop_factor > 0.0 && l.lr_drop_factor <= 1.0, "in (0, 1]")?;
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

/// Creates or reopens the run directory and reads its configuration.
///
/// A resumed run keeps its `config.toml`, so that it cannot silently
/// change its settings; `--set` overrides that change it are refused. But
/// the file is the run's, and a run directory may come from anyone: a
/// program or a file it names ([`named_outside`]) is used only when the
/// command line repeats it (in `--config` or `--set`), or with
/// `--trust-run-files`. Otherwise the run is refused, naming them.
pub(super) fn open_run(run: &Path, args: ConfigArgs<'_>, obs: &dyn LoopObserver) -> Result<LoopFile> {
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
    pacozero_data::write_atomic(&copy, &[text.as_bytes()])?;
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
    if let Some(engine) = &f.looping.external {
        named.push(("loop.external", engine.text().to_string(), "a program"));
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
pub(super) fn check_repeated(origin: &str, saved: &LoopFile, args: ConfigArgs<'_>) -> Result<()> {
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
