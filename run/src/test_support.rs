//! Fixtures shared by the crate's unit tests: fresh directories, untrained
//! tiny networks, a loop observer that keeps what it hears, a miniature
//! loop configuration, and a local object store.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use pacozero_engine::Game;

use crate::looping::LoopObserver;

/// A fresh directory for one test, removed when it goes.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("pacozero-run-test-{}-{n}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn join(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    /// Write `text` as the file `file` of this directory.
    pub fn write(&self, file: &str, text: &str) {
        std::fs::write(self.0.join(file), text).unwrap();
    }

    /// A `file://` store in the folder `name` of this directory.
    pub fn store_url(&self, name: &str) -> String {
        format!("file://{}/", self.0.join(name).display())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An untrained tiny network of game `G` in `encoding`, written as
/// `<dir>/<name>.pzmodel`.
pub fn tiny_model_in<G: Game>(dir: &Path, name: &str, encoding: usize) -> PathBuf {
    let spec = pacozero_data::game_spec_as::<G>(encoding);
    let path = dir.join(format!("{name}.pzmodel"));
    pacozero_nn::export_untrained(&pacozero_nn::NetConfig::tiny_for(&spec), name, &path).unwrap();
    path
}

/// An untrained tiny network of game `G` as the model `name` of the run `run`.
pub fn tiny_model<G: Game>(run: &Path, name: &str) -> PathBuf {
    tiny_model_in::<G>(&pacozero_data::RunDir::new(run).models(), name, 0)
}

/// A loop observer that keeps every note. It panics at the note
/// `== generation` number `max_generations + 1`, so a loop that never ends
/// fails its test instead of hanging it, and at a `== generation g/n` note
/// with more than `max_generations` generations left to run (g to n): a
/// loop that ran with another configuration than the test's (the default
/// one is 20 generations of 64 games: hours) fails at its first generation.
pub struct Notes {
    lines: Mutex<Vec<String>>,
    max_generations: usize,
}

impl Notes {
    /// At most the miniature loop's two generations.
    pub fn new() -> Notes {
        Notes::at_most(2)
    }

    pub fn at_most(max_generations: usize) -> Notes {
        Notes { lines: Mutex::new(Vec::new()), max_generations }
    }

    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// The notes that start with `prefix`.
    pub fn starting(&self, prefix: &str) -> Vec<String> {
        self.lines().into_iter().filter(|l| l.starts_with(prefix)).collect()
    }

    pub fn all(&self) -> String {
        self.lines().join("\n")
    }
}

/// `g` and `n` of a note `== generation g/n (...)`.
fn generation_of(note: &str) -> Option<(u64, u64)> {
    let (g, rest) = note.strip_prefix("== generation ")?.split_once('/')?;
    let n = rest.split(' ').next()?;
    Some((g.parse().ok()?, n.parse().ok()?))
}

impl LoopObserver for Notes {
    fn note(&self, text: &str) {
        let mut lines = self.lines.lock().unwrap();
        lines.push(text.to_string());
        let generations = lines.iter().filter(|l| l.starts_with("== generation")).count();
        assert!(generations <= self.max_generations, "more generations than the {} expected:\n{}", self.max_generations, lines.join("\n"));
        if let Some((g, n)) = generation_of(text) {
            assert!(n + 1 - g <= self.max_generations as u64, "{text}: generations {g} to {n} to run, more than the {} expected", self.max_generations);
        }
    }

    fn match_progress(&self, _done: u64, _total: u64) {}

    fn progress(&self) -> bool {
        false
    }
}

/// A miniature loop (a tiny network, two games of at most 20 decisions a
/// generation, two training steps, evaluation at 2 simulations) with the
/// `--set`s `sets` applied.
pub fn tiny_loop(sets: &[&str]) -> String {
    let base = r#"
[loop]
generations = 2
games_per_generation = 2
train_steps_per_generation = 2
gating_games = 2
eval_simulations = 2
promotion = "always"
baseline_games = 0
baseline_simulations = 2
anchor_games = 0
max_decisions = 20
openings = "fischer_random"
seed = 7

[selfplay]
threads = 1
games_per_thread = 2
games_per_chunk = 2
max_decisions = 20
start_positions = "fischer_random"

[selfplay.search]
full_simulations = 4
cheap_simulations = 2

[net]
blocks = 1
channels = 8
policy_channels = 4
value_channels = 2
value_hidden = 16

[train]
batch_size = 8
warmup_steps = 1
min_positions = 1
progress = false
plot_every = 0
threads = 1
"#;
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let text = crate::overrides::apply(base, &sets).unwrap();
    // Still the miniature: a test given a loop of another size (the
    // default's is hours long) fails here, not after its matches.
    let t: toml::Table = text.parse().unwrap();
    assert_eq!((t["loop"]["generations"].as_integer(), t["net"]["channels"].as_integer()), (Some(2), Some(8)), "not the miniature loop:\n{text}");
    text
}

/// A UCI "engine" (a shell script in `dir`) that answers every `go` with a
/// move that is never legal, so it forfeits each game at its first turn.
pub fn forfeiting_engine(dir: &Path) -> PathBuf {
    let path = dir.join("forfeiting-engine");
    let script = "#!/bin/sh\nwhile read line; do\n  case \"$line\" in\n    uci) echo 'id name forfeiter'; echo uciok;;\n    isready) echo readyok;;\n    go*) echo 'bestmove zz99';;\n    quit) exit 0;;\n  esac\ndone\n";
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `e`'s message with its causes.
pub fn err_text<T>(r: anyhow::Result<T>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => format!("{e:#}"),
    }
}

/// The JSON lines of `path`.
pub fn json_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A `matches.jsonl` line of generation `generation`: `a` against `b`,
/// `a`'s wins, draws and losses (no pairs, timings or end reasons).
pub fn match_line(generation: u32, a: &str, b: &str, wins: u32, draws: u32, losses: u32) -> crate::files::MatchLine {
    crate::files::MatchLine {
        generation,
        a: a.into(),
        b: b.into(),
        wins,
        draws,
        losses,
        pentanomial: [0; 5],
        avg_decisions: 0.0,
        seconds_per_decision: None,
        simulations_per_decision: None,
        end_reasons: Default::default(),
        sprt: None,
    }
}
