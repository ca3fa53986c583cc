//! Crash tests: `pacozero selfplay`, `train` and `loop` are killed with
//! SIGKILL at random moments (seeded), restarted, and the run directory is
//! checked while the killer runs and at the end:
//!
//! * every chunk listed by the reader is whole (both files open and decode),
//!   no `*.tmp` name is ever taken as a chunk, and every completed game is
//!   present exactly once (game ids unique across chunks, each with all its
//!   positions);
//! * the checkpoint step never goes back, a resumed `train --steps N` ends
//!   exactly N steps after the checkpoint it started from, and `metrics.csv`
//!   holds every step once, in order (the trainer drops the rows past the
//!   checkpoint when it resumes);
//! * `models/current`, whenever it exists, names a whole model (header and
//!   checksums verified) — polled while the processes run;
//! * the loop's `state.json` always parses and never goes back, a generation
//!   holds exactly `games_per_generation` games, and a match replayed after a
//!   crash counts once in the ratings.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod common;
use common::{bin, s, tiny_selfplay, tiny_train, write_config, TINY_NET};

/// The training configuration: a checkpoint every three steps.
fn train_config() -> String {
    tiny_train("metrics_every = 1\ncheckpoint_every = 3\n")
}

/// A loop of three generations of six games and eight training steps.
fn loop_config() -> String {
    format!(
        r#"
[loop]
generations = 3
games_per_generation = 6
train_steps_per_generation = 8
gating_games = 2
eval_simulations = 4
promotion = "always"
baseline_games = 2
baseline_simulations = 4
max_decisions = 60
seed = 3

[selfplay]
threads = 1
games_per_thread = 2
games_per_chunk = 1
max_decisions = 60
start_positions = "fischer_random"

[selfplay.search]
full_simulations = 8
cheap_simulations = 4
{TINY_NET}
[train]
batch_size = 16
warmup_steps = 1
min_positions = 1
checkpoint_every = 2
plot_every = 0
threads = 1
progress = false
"#
    )
}

/// Kills per kind of process.
const KILLS: usize = 12;

/// Checks a run directory while processes write into it.
struct Watch {
    run: PathBuf,
    /// Chunks already read whole (they never change once complete).
    chunks: HashSet<String>,
    checkpoint_step: u64,
    /// (generation, index of the last completed stage) of `state.json`.
    state: (u64, usize),
    pointer_reads: u32,
}

impl Watch {
    fn new(run: &Path) -> Watch {
        Watch { run: run.to_path_buf(), chunks: HashSet::new(), checkpoint_step: 0, state: (0, 0), pointer_reads: 0 }
    }

    fn poll(&mut self) {
        let data = self.run.join("data");
        if data.is_dir() {
            for c in pacozero_data::list_chunks(&data).unwrap() {
                assert!(!c.games_path.to_string_lossy().ends_with(".tmp") && !c.positions_path.to_string_lossy().ends_with(".tmp"), "{c:?}");
                if self.chunks.insert(c.stem.clone()) {
                    pacozero_data::read_chunk(&c).unwrap_or_else(|e| panic!("a listed chunk must be whole: {e}"));
                }
            }
        }
        if pacozero_nn::models_dir(&self.run).join("current").exists() {
            // The pointer exists: it must be readable and name a whole model
            // (a torn pointer write is exactly what this catches).
            let model = pacozero_nn::current_model(&self.run).unwrap_or_else(|e| panic!("models/current exists but cannot be read: {e}"));
            pacozero_nn::read_model_header(&model).unwrap_or_else(|e| panic!("models/current names a broken model: {e}"));
            self.pointer_reads += 1;
        }
        if let Some(step) = checkpoint_step(&self.run) {
            assert!(step >= self.checkpoint_step, "checkpoint went back from step {} to {step}", self.checkpoint_step);
            self.checkpoint_step = step;
        }
        let state = self.run.join("state.json");
        if state.exists() {
            let text = std::fs::read_to_string(&state).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("state.json is not whole ({e}): {text:?}"));
            let stage = ["", "selfplay", "train", "eval"].iter().position(|d| v["done"] == *d).expect("known stage");
            let now = (v["generation"].as_u64().unwrap(), stage);
            assert!(now >= self.state, "state.json went back from {:?} to {now:?}", self.state);
            self.state = now;
        }
    }
}

/// The step of `<run>/checkpoints/latest.pzckpt`, read from its header
/// (magic, u32 version, u64 header length, JSON header).
fn checkpoint_step(run: &Path) -> Option<u64> {
    let bytes = std::fs::read(pacozero_train::checkpoint_path(run)).ok()?;
    assert!(bytes.len() > 20 && &bytes[..8] == b"PZCKPT\n\0", "checkpoint is not whole");
    let hlen = u64::from_le_bytes(bytes[12..20].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[20..20 + hlen]).expect("checkpoint header");
    Some(header["step"].as_u64().expect("step in the checkpoint header"))
}

fn spawn(args: &[&str], log: &Path) -> Child {
    bin().args(args).stdout(Stdio::null()).stderr(File::create(log).unwrap()).spawn().unwrap()
}

fn check_exit(status: ExitStatus, args: &[&str], log: &Path) {
    assert!(status.success(), "pacozero {args:?} failed:\n{}", std::fs::read_to_string(log).unwrap_or_default());
}

/// Runs `args` to completion, polling `watch` meanwhile; returns the wall time.
fn run_to_end(args: &[&str], log: &Path, watch: &mut Watch) -> Duration {
    let t0 = Instant::now();
    let mut child = spawn(args, log);
    loop {
        watch.poll();
        if let Some(st) = child.try_wait().unwrap() {
            check_exit(st, args, log);
            watch.poll();
            return t0.elapsed();
        }
        std::thread::sleep(Duration::from_millis(15));
    }
}

/// What it means when a started process ends before its kill.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Job {
    /// It did all the work its directory asked for (`selfplay --out
    /// --games N`, `loop`): a later start has nothing left to do and a kill
    /// would land in a process that only exits, so the round ends there and
    /// the test goes on in a fresh directory.
    Finite,
    /// Each start brings new work (`train --steps`, `selfplay --run --games`).
    Repeating,
}

/// SIGKILLs processes at random moments (seeded), counting across rounds.
struct Killer {
    rng: ChaCha8Rng,
    /// The delays (ms) are drawn from `shortest..longest`.
    shortest: u64,
    longest: u64,
    /// Processes killed while running, and processes that ended by themselves.
    killed: usize,
    finished: usize,
}

impl Killer {
    fn new(seed: u64, delays: Range<u64>) -> Killer {
        Killer { rng: ChaCha8Rng::seed_from_u64(seed), shortest: delays.start, longest: delays.end, killed: 0, finished: 0 }
    }

    /// Whether `KILLS` processes were killed while running.
    fn done(&self) -> bool {
        self.killed >= KILLS
    }

    /// Starts `args` until `KILLS` processes in all were SIGKILLed while
    /// running (or, for a [`Job::Finite`], until one ends by itself), each
    /// after a random delay, polling `watch` meanwhile; `before` runs before
    /// each start. A process that ends before its kill must have succeeded,
    /// and halves the longest delay, so the kills land however fast the
    /// machine is (the tests run in parallel).
    fn run(&mut self, args: &[&str], job: Job, log: &Path, watch: &mut Watch, mut before: impl FnMut(&mut Watch)) {
        while !self.done() {
            assert!(self.finished < 4 * KILLS, "pacozero {}: {} processes ended before their kill, only {} killed", args[0], self.finished, self.killed);
            before(watch);
            let delay = Duration::from_millis(self.rng.gen_range(self.shortest..self.longest.max(self.shortest + 1)));
            let t0 = Instant::now();
            let mut child = spawn(args, log);
            let ended = loop {
                watch.poll();
                if let Some(st) = child.try_wait().unwrap() {
                    check_exit(st, args, log);
                    self.finished += 1;
                    self.longest = (self.longest / 2).max(self.shortest + 5);
                    break true;
                }
                if t0.elapsed() >= delay {
                    child.kill().unwrap(); // SIGKILL
                    child.wait().unwrap();
                    self.killed += 1;
                    break false;
                }
                std::thread::sleep(Duration::from_millis(5));
            };
            if ended && job == Job::Finite {
                break;
            }
        }
        watch.poll();
        eprintln!("pacozero {}: {} processes killed while running, {} ended before their kill", args[0], self.killed, self.finished);
    }
}

/// Runs `args` with the crash point `point` armed (`PACOZERO_CRASH_AT`, see
/// `pacozero_data::durable`), polling `watch`, and asserts that the process
/// killed itself there (SIGKILL), i.e. that the kill landed inside the write
/// window the point marks.
fn crash_at(args: &[&str], point: &str, log: &Path, watch: &mut Watch) {
    let mut child = bin().args(args).env(pacozero_data::durable::CRASH_ENV, point).stdout(Stdio::null()).stderr(File::create(log).unwrap()).spawn().unwrap();
    let status = loop {
        watch.poll();
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    watch.poll();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        status.signal(),
        Some(libc::SIGKILL),
        "pacozero {args:?} with {point} armed did not die there ({status}):\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

/// The names of the files in `dir` (a run's folder, or a `file://` store's)
/// that end with `suffix`, sorted; none for a missing folder.
fn files_ending(dir: &Path, suffix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().file_name().to_string_lossy().to_string()).filter(|n| n.ends_with(suffix)).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Positions files of `dir` without their games file: chunks whose writer
/// died between its two renames.
fn orphan_positions(dir: &Path) -> usize {
    let positions = files_ending(dir, ".positions.parquet");
    positions.iter().filter_map(|n| n.strip_suffix(".positions.parquet")).filter(|stem| !dir.join(format!("{stem}.games.parquet")).exists()).count()
}

/// Kills per kind of process inside a write window (crash points).
const WINDOW_KILLS: usize = 6;

/// Every chunk of `data` read whole; returns the game ids. Asserts each game
/// is in one chunk only and has exactly its `num_decisions` positions.
fn games_of(data: &Path) -> Vec<u64> {
    let mut ids = Vec::new();
    let mut positions: BTreeMap<u64, u32> = BTreeMap::new();
    let mut decisions: BTreeMap<u64, u32> = BTreeMap::new();
    for c in pacozero_data::list_chunks(data).unwrap() {
        let (_, pos, games) = pacozero_data::read_chunk(&c).unwrap();
        for p in &pos {
            *positions.entry(p.game_id).or_default() += 1;
        }
        for g in &games {
            ids.push(g.game_id);
            assert!(decisions.insert(g.game_id, g.num_decisions).is_none(), "game {} is written twice (again in chunk {})", g.game_id, c.stem);
        }
    }
    assert_eq!(positions, decisions, "positions per game differ from the games' num_decisions");
    ids
}

/// Files that a reader must not take for chunks: leftovers of a writer
/// killed before its rename, and a games file whose positions file is gone.
fn plant_leftovers(data: &Path) {
    std::fs::create_dir_all(data).unwrap();
    std::fs::write(data.join("9999999999999-w009-000000.positions.parquet.tmp"), b"PAR1 half a file").unwrap();
    std::fs::write(data.join("9999999999999-w009-000000.games.parquet.tmp"), b"PAR1").unwrap();
    std::fs::write(data.join("9999999999998-w009-000000.games.parquet"), b"PAR1 no positions file").unwrap();
}

#[test]
fn selfplay_killed_at_random_writes_every_game_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "selfplay.toml", &tiny_selfplay(5));
    let log = dir.path().join("selfplay.log");

    // The reference: an uninterrupted run of 24 games.
    let clean = dir.path().join("clean");
    let clean_args = ["selfplay", "--config", s(&cfg), "--out", s(&clean), "--games", "24", "--evaluator", "uniform", "--quiet"];
    let mut watch = Watch::new(dir.path());
    let wall = run_to_end(&clean_args, &log, &mut watch).as_millis() as u64;
    let mut expected = games_of(&clean);
    expected.sort();
    assert_eq!(expected.len(), 24);

    // The same games, killed at random moments and restarted: each is
    // written once, and a final run completes the set. A round whose
    // processes finish the games before all the kills landed is checked, and
    // the kills go on in a fresh directory.
    let mut killer = Killer::new(11, 1..wall / 8 + 10);
    for round in 0.. {
        let run = dir.path().join(format!("run-{round}"));
        let data = run.join("data");
        plant_leftovers(&data);
        let args = ["selfplay", "--config", s(&cfg), "--out", s(&data), "--games", "24", "--evaluator", "uniform", "--quiet"];
        let mut watch = Watch::new(&run);
        if round == 0 {
            // Kills inside the write window: each process writes its first
            // chunk, and dies writing its second, after the temporary files or
            // between the renames. The leftovers prove where each kill landed.
            for (i, point) in ["chunk-renames:2", "chunk-between-renames:2"].iter().cycle().take(WINDOW_KILLS).enumerate() {
                let (tmps, orphans) = (files_ending(&data, ".games.parquet.tmp").len(), orphan_positions(&data));
                crash_at(&args, point, &log, &mut watch);
                assert_eq!(files_ending(&data, ".games.parquet.tmp").len(), tmps + 1, "kill {i} at {point}: a games file left unrenamed");
                let orphans_now = orphan_positions(&data);
                assert_eq!(
                    orphans_now,
                    orphans + usize::from(point.starts_with("chunk-between")),
                    "kill {i} at {point}: positions renamed only between the renames"
                );
            }
            assert_eq!(games_of(&data).len(), WINDOW_KILLS, "each process kept the one chunk it finished");
        }
        // Then at random moments, early enough that the processes rarely finish the games.
        killer.run(&args, Job::Finite, &log, &mut watch, |_| {});
        let partial = games_of(&data).len();
        run_to_end(&args, &log, &mut watch);
        let mut ids = games_of(&data);
        ids.sort();
        assert_eq!(
            ids, expected,
            "round {round}: after {} kills in all and {} finished runs ({partial} games before the final run)",
            killer.killed, killer.finished
        );
        if killer.done() {
            break;
        }
    }

    // With --run, rounds of new games: a restarted worker never writes a game id again.
    let run2 = dir.path().join("run2");
    let args = ["selfplay", "--config", s(&cfg), "--run", s(&run2), "--games", "4", "--evaluator", "uniform", "--quiet"];
    let mut watch = Watch::new(&run2);
    Killer::new(21, 1..wall / 4 + 10).run(&args, Job::Repeating, &log, &mut watch, |_| {});
    let before = games_of(&run2.join("data")).len();
    run_to_end(&args, &log, &mut watch);
    let ids = games_of(&run2.join("data"));
    assert_eq!(ids.len(), before + 4, "the final run adds its 4 games");
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
}

#[test]
fn train_killed_at_random_resumes_at_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let sp = write_config(dir.path(), "selfplay.toml", &tiny_selfplay(5));
    let cfg = write_config(dir.path(), "train.toml", &train_config());
    let log = dir.path().join("train.log");
    let mut watch = Watch::new(&run);
    run_to_end(&["selfplay", "--config", s(&sp), "--run", s(&run), "--games", "6", "--evaluator", "uniform", "--quiet"], &log, &mut watch);
    plant_leftovers(&run.join("data"));

    let steps = 12u64;
    let args = ["train", "--run", s(&run), "--config", s(&cfg), "--steps", "12", "--export", "m"];
    // A first run measures the time of one call and makes `current` exist.
    let wall = run_to_end(&args, &log, &mut watch).as_millis() as u64;
    assert_eq!(checkpoint_step(&run), Some(steps));
    // Each call starts from the checkpoint and may end at most `steps` later.
    let mut start = steps;
    let mut check_checkpoint = |w: &mut Watch| {
        let now = checkpoint_step(&w.run).unwrap();
        assert!(start <= now && now <= start + steps, "checkpoint at {now}, the last call started at {start}");
        start = now;
    };
    // Kills inside the write windows of the checkpoint (the second of the
    // call's four), the exported model and the models/current pointer: each
    // leaves its written, unrenamed temporary file.
    let models = pacozero_nn::models_dir(&run);
    let ckpt_tmp = pacozero_data::durable::tmp_path(&pacozero_train::checkpoint_path(&run));
    for (point, tmp) in [
        ("rename:latest.pzckpt:2", ckpt_tmp.clone()),
        ("rename:m.pzmodel", models.join("m.pzmodel.tmp")),
        ("rename:current", models.join("current.tmp")),
        ("rename:latest.pzckpt", ckpt_tmp),
    ] {
        check_checkpoint(&mut watch);
        let _ = std::fs::remove_file(&tmp);
        crash_at(&args, point, &log, &mut watch);
        assert!(tmp.is_file(), "the kill at {point} left {}", tmp.display());
    }
    check_checkpoint(&mut watch);
    let mut killer = Killer::new(12, 1..wall + 20);
    killer.run(&args, Job::Repeating, &log, &mut watch, check_checkpoint);
    let (killed, finished) = (4 + killer.killed, killer.finished);
    let from = checkpoint_step(&run).unwrap();
    run_to_end(&args, &log, &mut watch);
    let end = checkpoint_step(&run).unwrap();
    assert_eq!(end, from + steps, "a resumed call trains exactly --steps from its checkpoint");
    assert!(watch.pointer_reads > 0, "models/current was never seen");

    // metrics.csv: the header once, then every step once, in order.
    let metrics = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
    let mut lines = metrics.lines();
    assert!(lines.next().unwrap().starts_with("step,"));
    let got: Vec<u64> = lines.map(|l| l.split(',').next().unwrap().parse().unwrap_or_else(|_| panic!("bad metrics row {l:?}"))).collect();
    assert_eq!(got, (1..=end).collect::<Vec<_>>(), "steps of metrics.csv after {killed} kills and {finished} finished calls");
    // The exported model is whole and current.
    let m = pacozero_nn::current_model(&run).unwrap();
    assert!(m.ends_with("m.pzmodel"));
    let (_, info) = pacozero_nn::read_model_header(&m).unwrap();
    assert_eq!(info.step, end);
}

#[test]
fn loop_killed_at_random_keeps_its_run_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "loop.toml", &loop_config());
    let log = dir.path().join("loop.log");
    // The reference: an uninterrupted loop, which also times one.
    let clean = dir.path().join("clean");
    let mut watch = Watch::new(&clean);
    let wall = run_to_end(&["loop", "--config", s(&cfg), "--run", s(&clean)], &log, &mut watch).as_millis() as u64;
    let mut expected = games_of(&clean.join("data"));
    expected.sort();

    // Kills inside write windows: each loop records one stage in state.json
    // and dies recording the next, or dies in a chunk's write window. Then
    // kills at random moments, early enough that the loops rarely finish the
    // run; a round whose loop finished it before all the kills landed is
    // checked, and the kills go on in a fresh run.
    let mut killer = Killer::new(13, 1..wall / 10 + 10);
    for round in 0.. {
        let run = dir.path().join(format!("run-{round}"));
        let args = ["loop", "--config", s(&cfg), "--run", s(&run)];
        let mut watch = Watch::new(&run);
        if round == 0 {
            let state_tmp = run.join("state.json.tmp");
            for point in ["rename:state.json:2", "chunk-renames:2", "rename:state.json:2", "rename:current"] {
                let _ = std::fs::remove_file(&state_tmp);
                crash_at(&args, point, &log, &mut watch);
                if point.starts_with("rename:state.json") {
                    assert!(state_tmp.is_file(), "the kill at {point} left state.json.tmp");
                }
            }
        }
        killer.run(&args, Job::Finite, &log, &mut watch, |_| {});
        run_to_end(&args, &log, &mut watch);
        let what = format!("round {round}, after {} random kills in all ({} loops finished)", killer.killed, killer.finished);
        check_loop_run(&run, &watch, &expected, &what);
        if killer.done() {
            break;
        }
    }
}

/// The checks of a finished loop run that processes were killed in: the
/// games of the uninterrupted run (`expected`, sorted), every training step
/// once, each baseline match counted once, the last generation current.
fn check_loop_run(run: &Path, watch: &Watch, expected: &[u64], what: &str) {
    assert_eq!(watch.state.0, 4, "three generations done ({what})");
    // Exactly games_per_generation games per generation, each once.
    let mut ids = games_of(&run.join("data"));
    assert_eq!(ids.len(), 3 * 6, "games ({what})");
    ids.sort();
    assert_eq!(ids, expected, "the games of an uninterrupted run ({what})");
    // Training: every step once, ending at generations x steps.
    let metrics = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
    let steps: Vec<u64> = metrics.lines().skip(1).map(|l| l.split(',').next().unwrap().parse().unwrap()).collect();
    assert_eq!(steps, (1..=24).collect::<Vec<_>>(), "{what}");
    assert_eq!(checkpoint_step(run), Some(24), "{what}");
    // Each baseline match counts once in the ratings, however often it was replayed.
    let ratings = std::fs::read_to_string(run.join("ratings.csv")).unwrap();
    let base = ratings.lines().find(|l| l.starts_with("rollout-4,")).unwrap_or_else(|| panic!("{ratings}"));
    assert_eq!(base.rsplit(',').next(), Some("6"), "3 generations x 2 baseline games ({what}):\n{ratings}");
    assert!(pacozero_nn::current_model(run).unwrap().ends_with("gen-0003.pzmodel"), "{what}");
}

#[test]
fn store_worker_and_trainer_killed_between_uploads_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bucket");
    std::fs::create_dir_all(&store).unwrap();
    let url = format!("file://{}", store.display());
    let sp = write_config(dir.path(), "selfplay.toml", &tiny_selfplay(7));
    let tr = write_config(dir.path(), "train.toml", &train_config());
    let cache = dir.path().join("cache");
    let trainer = dir.path().join("trainer");
    let log = dir.path().join("store.log");
    let folder = store.join("data/w0001");
    let worker = ["selfplay", "--store", &url, "--worker", "1", "--run", s(&cache), "--config", s(&sp), "--games", "2", "--evaluator", "uniform", "--quiet"];
    let mut watch = Watch::new(&cache);

    // A worker killed between a chunk's two uploads leaves a positions file
    // without its games file in the store; its restart completes that chunk
    // first (the first crash-point hit), then dies at the next one.
    for i in 0..WINDOW_KILLS / 2 {
        crash_at(&worker, "store-chunk-upload:2", &log, &mut watch);
        assert_eq!(orphan_positions(&folder), 1, "kill {i}: one chunk half uploaded");
    }
    run_to_end(&worker, &log, &mut watch);
    assert_eq!(orphan_positions(&folder), 0, "the restarted worker completed every chunk");
    let uploaded = games_of(&folder);
    let mut local = games_of(&cache.join("data"));
    local.sort();
    let mut ids = uploaded.clone();
    ids.sort();
    assert_eq!(ids, local, "every game played is in the store, once");

    // A trainer killed after uploading its model, before moving the pointer:
    // the model is whole in the store and the pointer is untouched.
    let train = ["train", "--store", &url, "--run", s(&trainer), "--config", s(&tr), "--steps", "2"];
    let mut twatch = Watch::new(&trainer);
    crash_at(&train, "store-pointer-swap", &log, &mut twatch);
    let models = store.join("models");
    let orphan = files_ending(&models, ".pzmodel");
    assert_eq!(orphan.len(), 1, "the model was uploaded: {orphan:?}");
    pacozero_nn::read_model_header(&models.join(&orphan[0])).expect("the uploaded model is whole");
    assert!(!models.join("current").exists(), "the pointer was not moved");
    // The restarted trainer moves the pointer to its own (whole) model.
    run_to_end(&train, &log, &mut twatch);
    let pointer = std::fs::read_to_string(models.join("current")).unwrap();
    let current = pointer.trim();
    assert_ne!(current, orphan[0], "the restart exported a model of its own");
    pacozero_nn::read_model_header(&models.join(current)).expect("the current model is whole");
    // Workers pick it up at their next round and lose no game either.
    crash_at(&worker, "store-chunk-upload:2", &log, &mut watch);
    run_to_end(&worker, &log, &mut watch);
    let mut ids = games_of(&folder);
    ids.sort();
    let mut local = games_of(&cache.join("data"));
    local.sort();
    assert_eq!(ids, local);
    assert!(ids.len() > uploaded.len());
    assert_eq!(pacozero_nn::current_model(&cache).unwrap().file_name().unwrap().to_string_lossy(), current, "the worker plays with the new model");
}
