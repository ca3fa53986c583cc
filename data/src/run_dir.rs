//! The run directory: every path of a run, named once.
//!
//! A run directory is where the loop, `pacozero selfplay --run`,
//! `pacozero train --run` and the object-store workers meet. Nothing else
//! spells these names: callers ask a [`RunDir`] for a path.
//!
//! | path | written by | content, and where its format is documented |
//! |---|---|---|
//! | `config.toml` | the loop, on the first start | the run's own configuration (with `# --set` comments); a restart reads it, never the original file (`pacozero_run::looping`) |
//! | `state.json` | the loop, after each stage | game, generation, last completed stage and whether its evaluation promoted, the overlap's data stem (`pacozero_run::files::LoopState`) |
//! | `generations.jsonl` | the loop | one line per stage: `{"generation", "stage", figures…}` (`pacozero_run::files::StageLine`) |
//! | `matches.jsonl` | the loop | one line per evaluation match: players, W/D/L, pentanomial, SPRT (`pacozero_run::files::MatchLine`) |
//! | `ratings.csv`, `ratings.md` | the loop | Elo of every player over all matches, anchored at `gen-0001` (`pacozero_run::files::write_ratings`) |
//! | `report.html`, `plots/*.svg` | `pacozero report`, the loop | the run's report and its plots (`pacozero_run::report`) |
//! | `data/` | self-play | chunks `<stem>.positions.parquet` + `<stem>.games.parquet` (crate docs of `pacozero_data`, `docs/DATA.md`) |
//! | `match-games/` | the loop's evaluation | one chunk per match, `gen-NNNN-<match>` (`baseline`, `anchor`, `previous`, `external`, `gating`): its games in the games table, with the players' specs, no positions (`pacozero_arena::records`); a repeated evaluation rewrites its chunks |
//! | `ladder.json`, `ladder.md`, `ladder-games/` | `pacozero ladder --run` | the yardstick: the run's players against an external engine at rising node budgets, as the command's JSON and Markdown, and every game in the games table (`pacozero_arena::ladder`, `docs/yardstick.md`) |
//! | `solved.jsonl`, `solved-peer.jsonl` | `pacozero solved --run` | the learning curve against perfect play: the run's networks at points of its wall time judged on a solved suite, and a peer's checkpoints judged on the same suite (`pacozero_run::solved_curve`, `docs/connect4.md`) |
//! | `models/<name>.pzmodel` | the trainer's export | a model file (`pacozero_nn::modelfile`) |
//! | `models/current` | the loop's promotion, `train --export` | the file name of the best model and a newline: the one record of which model is best |
//! | `checkpoints/latest.pzckpt` | the trainer | the resumable training state (`pacozero_train`) |
//! | `metrics.csv` | the trainer | one row per training step (`pacozero_train::metrics::METRICS_HEADER`, `docs/DATA.md`) |
//! | `tensorboard/train/`, `tensorboard/loop/` | the trainer, the loop | TensorBoard event files: the trainer's scalars by step, the loop's stage figures and Elo by generation (`pacozero_data::tfevents`) |
//! | `store-probe/` | an object-store worker | the newest chunk of the store, fetched to check its game (`pacozero_run::store_sync`) |
//!
//! Every file is written whole to `<name>.tmp` and renamed into place
//! ([`crate::write_atomic`]), or appended a line at a time and synced; a
//! stage is recorded in `state.json` only once its files are complete.

use std::path::{Path, PathBuf};

/// The extension of a model file (`<name>.pzmodel`).
pub const MODEL_EXT: &str = "pzmodel";

/// A run directory's paths (see the [module docs](self) for the layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    /// `data/`, relative to the run (also the object store's key prefix of the chunks).
    pub const DATA: &'static str = "data";
    /// `models/`, relative to the run (also the object store's key prefix of the models).
    pub const MODELS: &'static str = "models";
    /// `models/current`, relative to the run (also the object store's pointer key).
    pub const CURRENT: &'static str = "models/current";

    /// The file name of model `name`: `<name>.pzmodel`.
    pub fn model_file(name: &str) -> String {
        format!("{name}.{MODEL_EXT}")
    }

    /// The most bytes a pointer (`models/current`) may hold, in a run
    /// directory or a store: a model's file name needs far less.
    pub const POINTER_MAX_BYTES: u64 = 4 << 10;

    /// Whether `name` can name a model of a run: not empty, no path
    /// separator, no leading dot (so neither `.` nor `..`), no control
    /// character. Every model name read from a pointer, a store or a file is
    /// checked with it before it is joined into a path.
    pub fn is_model_name(name: &str) -> bool {
        !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\']) && !name.chars().any(char::is_control)
    }

    /// The model a pointer's `text` names (`"gen-0003.pzmodel\n"`:
    /// `gen-0003`), if it is the file name of a model ([`RunDir::is_model_name`]).
    pub fn pointer_model(text: &str) -> Option<&str> {
        text.trim().strip_suffix(&format!(".{MODEL_EXT}")).filter(|n| Self::is_model_name(n))
    }

    /// The run directory at `root` (nothing is created).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        RunDir { root: root.into() }
    }

    /// The directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `config.toml`: the run's own copy of its configuration.
    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// `state.json`: the loop's progress.
    pub fn state(&self) -> PathBuf {
        self.root.join("state.json")
    }

    /// `generations.jsonl`: per-stage figures.
    pub fn generations(&self) -> PathBuf {
        self.root.join("generations.jsonl")
    }

    /// `matches.jsonl`: the evaluation matches.
    pub fn matches(&self) -> PathBuf {
        self.root.join("matches.jsonl")
    }

    /// `match-games/`: every evaluation game, a chunk per match.
    pub fn match_games(&self) -> PathBuf {
        self.root.join("match-games")
    }

    /// `ratings.csv`: the rating list as CSV.
    pub fn ratings_csv(&self) -> PathBuf {
        self.root.join("ratings.csv")
    }

    /// `ratings.md`: the rating list as a Markdown table.
    pub fn ratings_md(&self) -> PathBuf {
        self.root.join("ratings.md")
    }

    /// `ladder.json`: the run's yardstick ladder, as `pacozero ladder --json` prints it.
    pub fn ladder_json(&self) -> PathBuf {
        self.root.join("ladder.json")
    }

    /// `ladder.md`: the run's yardstick ladder as Markdown tables.
    pub fn ladder_md(&self) -> PathBuf {
        self.root.join("ladder.md")
    }

    /// `ladder-games/`: every game of the run's ladder (the games table).
    pub fn ladder_games(&self) -> PathBuf {
        self.root.join("ladder-games")
    }

    /// `solved.jsonl`: the run's networks judged on a solved suite at points of its wall time.
    pub fn solved_curve(&self) -> PathBuf {
        self.root.join("solved.jsonl")
    }

    /// `solved-peer.jsonl`: a peer's checkpoints judged on the same suite.
    pub fn solved_peer(&self) -> PathBuf {
        self.root.join("solved-peer.jsonl")
    }

    /// `report.html`: the run's report.
    pub fn report(&self) -> PathBuf {
        self.root.join("report.html")
    }

    /// `plots/`: the report's SVG plots.
    pub fn plots(&self) -> PathBuf {
        self.root.join("plots")
    }

    /// `data/`: the self-play chunks.
    pub fn data(&self) -> PathBuf {
        self.root.join(Self::DATA)
    }

    /// `models/`: the exported models and the `current` pointer.
    pub fn models(&self) -> PathBuf {
        self.root.join(Self::MODELS)
    }

    /// `models/<name>.pzmodel`.
    pub fn model(&self, name: &str) -> PathBuf {
        self.models().join(Self::model_file(name))
    }

    /// `models/current`: the pointer to the best model.
    pub fn current_pointer(&self) -> PathBuf {
        self.root.join(Self::CURRENT)
    }

    /// `checkpoints/latest.pzckpt`: the trainer's resumable state.
    pub fn checkpoint(&self) -> PathBuf {
        self.root.join("checkpoints").join("latest.pzckpt")
    }

    /// `metrics.csv`: one row per training step.
    pub fn metrics(&self) -> PathBuf {
        self.root.join("metrics.csv")
    }

    /// `tensorboard/<part>/`: TensorBoard event files of the trainer
    /// (`train`) or the loop (`loop`), one TensorBoard run each
    /// ([`crate::tfevents`]).
    pub fn tensorboard(&self, part: &str) -> PathBuf {
        self.root.join("tensorboard").join(part)
    }

    /// `store-probe/`: an object-store worker's copy of the store's newest chunk.
    pub fn store_probe(&self) -> PathBuf {
        self.root.join("store-probe")
    }

    /// The data directory of `path`: `path/data` when `path` is a run
    /// directory that has one, else `path` itself (a bare chunk directory).
    pub fn data_of(path: &Path) -> PathBuf {
        let d = RunDir::new(path).data();
        if d.is_dir() {
            d
        } else {
            path.to_path_buf()
        }
    }
}

/// The name of generation `g`'s network in a run (`gen-0003`): written
/// here, and read back only by [`generation_of`] beside it.
pub fn model_name(g: u32) -> String {
    format!("gen-{g:04}")
}

/// The generation a run's model name stands for (`gen-0003` → 3); `None`
/// for any other name.
pub fn generation_of(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("gen-")?;
    // Only what model_name writes: digits, no sign.
    digits.bytes().all(|b| b.is_ascii_digit()).then(|| digits.parse().ok())?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_are_written_and_read_back_in_one_place() {
        for g in [1, 7, 123, 9999, 10_000] {
            assert_eq!(generation_of(&model_name(g)), Some(g));
        }
        assert_eq!(model_name(7), "gen-0007");
        assert_eq!(generation_of("gen-12"), Some(12));
        for other in ["rollout-200", "gen-x", "xgen-0003", "gen-", "gen-+5", "gen-0003.pzmodel", "current"] {
            assert_eq!(generation_of(other), None, "{other}");
        }
    }

    #[test]
    fn model_names_are_file_names_never_paths() {
        for good in ["gen-0003", "model-1700000000000", "a.b", "quick"] {
            assert!(RunDir::is_model_name(good), "{good:?}");
        }
        for bad in ["", ".", "..", ".hidden", "a/b", "../x", "a\\b", "a\nb", "a\0b"] {
            assert!(!RunDir::is_model_name(bad), "{bad:?}");
        }
        assert_eq!(RunDir::pointer_model("gen-0003.pzmodel\n"), Some("gen-0003"));
        for bad in ["../../x.pzmodel", "a/b.pzmodel", ".pzmodel", "...pzmodel", "m1.bin", "", "\n"] {
            assert_eq!(RunDir::pointer_model(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn every_path_is_under_the_root_and_distinct() {
        let r = RunDir::new("/runs/x");
        let paths = [
            r.config(),
            r.state(),
            r.generations(),
            r.matches(),
            r.match_games(),
            r.ratings_csv(),
            r.ratings_md(),
            r.report(),
            r.plots(),
            r.data(),
            r.models(),
            r.model("gen-0001"),
            r.current_pointer(),
            r.checkpoint(),
            r.metrics(),
            r.store_probe(),
            r.tensorboard("train"),
            r.tensorboard("loop"),
            r.ladder_json(),
            r.ladder_md(),
            r.ladder_games(),
        ];
        let distinct: std::collections::HashSet<_> = paths.iter().collect();
        assert_eq!(distinct.len(), paths.len());
        assert!(paths.iter().all(|p| p.starts_with("/runs/x")));
        assert_eq!(r.model("gen-0001"), Path::new("/runs/x/models/gen-0001.pzmodel"));
        assert_eq!(r.current_pointer(), Path::new("/runs/x/models/current"));
        assert_eq!(r.ladder_json(), Path::new("/runs/x/ladder.json"));
        assert_eq!(r.ladder_md(), Path::new("/runs/x/ladder.md"));
    }

    #[test]
    fn data_of_falls_back_to_the_directory_itself() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(RunDir::data_of(dir.path()), dir.path());
        std::fs::create_dir(dir.path().join("data")).unwrap();
        assert_eq!(RunDir::data_of(dir.path()), dir.path().join("data"));
    }
}
