//! The scale-out of `docs/scale-out.md` on a real Slurm cluster: the job
//! scripts the docs include (`docs/slurm/selfplay.sbatch` and
//! `docs/slurm/train.sbatch`), submitted unchanged with `sbatch`, against the
//! local S3 server.
//!
//! `scripts/test.sh` runs the tests through `scripts/test-scaleout.sh`, which
//! starts a single-node cluster (munged, slurmctld, slurmd) and exports
//! `PACOZERO_TEST_SLURM=1` and `SLURM_CONF`; the S3 server is the one
//! `scripts/test.sh` starts (`PACOZERO_TEST_S3_ENDPOINT`). Without them the
//! test fails and says so.
//!
//! The flow: a job array of four workers plays with the baseline and uploads
//! its chunks; the trainer job trains on them and moves `models/current`; a
//! second array of the same indices resumes and plays with the new model; a
//! worker task cancelled (`scancel`) in the middle of its games and then
//! requeued (`scontrol requeue`) ends with every game it had recorded and
//! exactly the games an uninterrupted worker plays; every game id of the
//! store is there once.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pacozero_store::RunStore;

mod common;
use common::{bin, output_text, s, tiny_selfplay, write_config, TINY_NET};

const SELFPLAY_SBATCH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/slurm/selfplay.sbatch");
const TRAIN_SBATCH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/slurm/train.sbatch");

/// How long one wait for jobs may take before the test gives up.
const JOB_TIMEOUT: Duration = Duration::from_secs(600);

fn train_config() -> String {
    format!(
        r#"{TINY_NET}
[train]
batch_size = 16
warmup_steps = 1
min_positions = 1
plot_every = 0
threads = 1
progress = false
"#
    )
}

/// The cluster `scripts/test-scaleout.sh` started, or a panic saying how to get one.
fn require_cluster() {
    if std::env::var("PACOZERO_TEST_SLURM").as_deref() != Ok("1") || std::env::var_os("SLURM_CONF").is_none() {
        panic!(
            "PACOZERO_TEST_SLURM / SLURM_CONF are not set: run the tests with scripts/test.sh, which starts a single-node \
             Slurm cluster for this test through scripts/test-scaleout.sh (as root; it installs the Debian packages \
             slurmctld, slurmd, slurm-client and munge if they are missing)"
        );
    }
}

/// The S3 server `scripts/test.sh` started: its endpoint.
fn s3_endpoint() -> String {
    std::env::var("PACOZERO_TEST_S3_ENDPOINT").unwrap_or_else(|_| {
        panic!("PACOZERO_TEST_S3_ENDPOINT is not set: run the tests with scripts/test.sh, which starts a local S3 server (moto) for them")
    })
}

/// `PUT /<bucket>` on the test server (unsigned requests are accepted there).
fn create_bucket(endpoint: &str, bucket: &str) {
    let host = endpoint.strip_prefix("http://").unwrap_or_else(|| panic!("PACOZERO_TEST_S3_ENDPOINT must be http://HOST:PORT, not {endpoint}")).trim_end_matches('/');
    let mut tcp = std::net::TcpStream::connect(host).unwrap_or_else(|e| panic!("cannot reach the S3 server at {endpoint} ({e})"));
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(tcp, "PUT /{bucket} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200"), "creating bucket {bucket} at {endpoint}:\n{answer}");
}

/// A fresh bucket and the store URL of a run in it; the options a client needs.
fn fresh_store(name: &str) -> (String, Vec<(String, String)>) {
    let endpoint = s3_endpoint();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let bucket = format!("pacozero-slurm-{name}-{}-{}", std::process::id(), nanos % 1_000_000_000_000);
    create_bucket(&endpoint, &bucket);
    let vars = [
        ("AWS_ENDPOINT", endpoint.as_str()),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_REGION", "us-east-1"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    (format!("s3://{bucket}/runs/paco-1"), vars)
}

/// Where the jobs of one run are submitted from: the directory (with the
/// `logs/` folder the scripts write to), the credentials file the scripts
/// source, and the environment `sbatch` passes on.
struct Cluster {
    dir: PathBuf,
    env: Vec<(String, String)>,
}

impl Cluster {
    fn new(dir: &Path, url: &str, vars: &[(String, String)]) -> Cluster {
        std::fs::create_dir_all(dir.join("logs")).unwrap();
        // The credentials reach the jobs through the file the docs describe,
        // not through the environment.
        let creds = dir.join("s3.env");
        let text: String = vars.iter().map(|(k, v)| format!("export {k}={v}\n")).collect();
        std::fs::write(&creds, text).unwrap();
        // The workers' default caches ($TMPDIR/pacozero-cache-...) live here.
        let tmp = dir.join("node-tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let env = [
            ("PACOZERO_STORE", url),
            ("PACOZERO", env!("CARGO_BIN_EXE_pacozero")),
            ("PACOZERO_CREDENTIALS", s(&creds)),
            ("TMPDIR", s(&tmp)),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        Cluster { dir: dir.to_path_buf(), env }
    }

    /// `sbatch --parsable ARGS SCRIPT` with the run's environment plus
    /// `extra`; the job id.
    fn sbatch(&self, args: &[&str], script: &str, extra: &[(&str, &str)]) -> String {
        let mut c = Command::new("sbatch");
        c.current_dir(&self.dir).arg("--parsable").args(args).arg(script);
        // Only the credentials file may give the jobs their store options.
        for (k, _) in std::env::vars() {
            if k.starts_with("AWS_") {
                c.env_remove(k);
            }
        }
        c.envs(self.env.iter().map(|(k, v)| (k, v))).envs(extra.iter().copied());
        let out = c.output().unwrap_or_else(|e| panic!("running sbatch: {e}"));
        let text = output_text(&out);
        assert!(out.status.success(), "sbatch {args:?} {script} failed:\n{text}{}", daemon_logs());
        let id = String::from_utf8_lossy(&out.stdout).trim().split(';').next().unwrap().to_string();
        assert!(!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()), "sbatch printed no job id:\n{text}");
        id
    }

    /// The job logs of the run, for failure messages.
    fn logs(&self) -> String {
        let mut names: Vec<PathBuf> = std::fs::read_dir(self.dir.join("logs")).unwrap().map(|e| e.unwrap().path()).collect();
        names.sort();
        names.iter().map(|p| format!("--- {}\n{}", p.display(), std::fs::read_to_string(p).unwrap_or_default())).collect()
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join("logs").join(name)).unwrap_or_else(|e| panic!("job log {name}: {e}\n{}", self.logs()))
    }

    /// The state of every task of job `id` (an array: one entry per task id,
    /// `None` for the pending rest of the array; a plain job: `None`).
    fn states(&self, id: &str) -> Vec<(Option<u32>, Task)> {
        let out = Command::new("scontrol").args(["-o", "show", "job", id]).output().unwrap();
        let text = output_text(&out);
        assert!(out.status.success(), "scontrol show job {id}:\n{text}{}", daemon_logs());
        text.lines()
            .filter(|l| l.starts_with("JobId="))
            .map(|l| {
                let f: HashMap<&str, &str> = l.split(' ').filter_map(|w| w.split_once('=')).collect();
                let task = f.get("ArrayTaskId").and_then(|t| t.parse().ok());
                let t = Task {
                    state: f.get("JobState").unwrap_or(&"?").to_string(),
                    exit: f.get("ExitCode").unwrap_or(&"?").to_string(),
                    restarts: f.get("Restarts").and_then(|r| r.parse().ok()).unwrap_or(0),
                };
                (task, t)
            })
            .collect()
    }

    /// Waits until every task of job `id` has ended (and, with
    /// `restarts`, has been started that many times over); their states.
    fn wait(&self, id: &str, restarts: u32) -> Vec<(Option<u32>, Task)> {
        let t0 = Instant::now();
        loop {
            let states = self.states(id);
            if states.iter().all(|(_, t)| t.ended() && t.restarts >= restarts) {
                return states;
            }
            assert!(t0.elapsed() < JOB_TIMEOUT, "job {id} not done after {JOB_TIMEOUT:?}: {states:?}\n{}{}", self.logs(), daemon_logs());
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Waits for job `id` and asserts that every task completed with exit code 0.
    fn wait_ok(&self, id: &str, restarts: u32) {
        let states = self.wait(id, restarts);
        for (task, t) in &states {
            assert!(t.state == "COMPLETED" && t.exit == "0:0", "job {id} task {task:?}: {t:?}\n{}{}", self.logs(), daemon_logs());
        }
    }
}

#[derive(Debug, Clone)]
struct Task {
    state: String,
    exit: String,
    restarts: u32,
}

impl Task {
    fn ended(&self) -> bool {
        matches!(
            self.state.as_str(),
            "COMPLETED" | "FAILED" | "CANCELLED" | "TIMEOUT" | "OUT_OF_MEMORY" | "NODE_FAIL" | "BOOT_FAIL" | "DEADLINE" | "PREEMPTED"
        )
    }
}

/// The tails of the daemons' logs (`scripts/test-scaleout.sh` names them).
fn daemon_logs() -> String {
    let mut text = String::new();
    for path in std::env::var("PACOZERO_TEST_SLURM_LOGS").unwrap_or_default().split_whitespace() {
        let log = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        text += &format!("\n--- {path} (last 40 lines)\n{}", lines[lines.len().saturating_sub(40)..].join("\n"));
    }
    text
}

fn scancel(id: &str) {
    let out = Command::new("scancel").arg(id).output().unwrap();
    assert!(out.status.success(), "scancel {id}:\n{}", output_text(&out));
}

/// The games of a store: `(worker folder, game id, network id)` of every game.
fn store_games(store: &RunStore, prefix: &str, tmp: &Path) -> Vec<(String, u64, String)> {
    let mut out = Vec::new();
    for key in store.list(prefix).unwrap().iter().filter(|k| k.ends_with(".games.parquet")) {
        let file = tmp.join("probe.games.parquet");
        std::fs::write(&file, store.get(key).unwrap().unwrap()).unwrap();
        let (_, games) = pacozero_data::read_games_file(&file).unwrap_or_else(|e| panic!("{key}: {e}"));
        let folder = key.split('/').nth(1).unwrap().to_string();
        out.extend(games.into_iter().map(|g| (folder.clone(), g.game_id, g.network_id)));
    }
    out
}

fn ids_of(games: &[(String, u64, String)], folder: &str) -> Vec<u64> {
    games.iter().filter(|g| g.0 == folder).map(|g| g.1).collect()
}

fn assert_unique(ids: &[u64]) {
    let set: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(set.len(), ids.len(), "a game id is in the store twice: {ids:?}");
}

fn pointer(store: &RunStore) -> Option<String> {
    store.read_pointer("models/current").unwrap().map(|(t, _)| t.trim().to_string())
}

/// The documented job array and trainer, end to end.
#[test]
fn slurm_job_array_of_workers_and_a_trainer() {
    require_cluster();
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path();
    let (url, vars) = fresh_store("flow");
    let store = RunStore::open_with(&url, vars.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))).unwrap();
    let sp = write_config(tmp, "selfplay.toml", &tiny_selfplay(21));
    let tr = write_config(tmp, "train.toml", &train_config());
    let cluster = Cluster::new(&tmp.join("submit"), &url, &vars);
    let config = [("PACOZERO_SELFPLAY_CONFIG", s(&sp))];
    // A test node is small: one CPU per task (the scripts ask for a real node's share).
    let small = ["--cpus-per-task=1", "--mem=1G", "--time=30:00"];
    let with = |extra: &[&'static str]| small.iter().chain(extra).copied().collect::<Vec<&str>>();

    // 1. The job array: four workers, four games each, no model yet.
    let first = cluster.sbatch(&with(&["--array=0-3"]), SELFPLAY_SBATCH, &[config[0], ("PACOZERO_GAMES", "4")]);
    cluster.wait_ok(&first, 0);
    let games = store_games(&store, "data", tmp);
    for w in 0..4 {
        let folder = format!("w{w:04}");
        assert_eq!(ids_of(&games, &folder).len(), 4, "worker {w}'s games in the store\n{}", cluster.logs());
        let log = cluster.log(&format!("selfplay-{first}_{w}.log"));
        assert!(log.contains(&format!("worker {w} round 1")) && log.contains("no model in the store yet"), "{log}");
    }
    assert_eq!(games.len(), 16);
    assert_unique(&games.iter().map(|g| g.1).collect::<Vec<_>>());

    // 2. The trainer job: trains on the 16 games and moves the pointer; it
    // goes on training until it is cancelled.
    assert_eq!(pointer(&store), None);
    let trainer = cluster.sbatch(
        &small,
        TRAIN_SBATCH,
        &[
            ("PACOZERO_TRAINER_DIR", s(&tmp.join("trainer"))),
            ("PACOZERO_TRAIN_CONFIG", s(&tr)),
            ("PACOZERO_STEPS", "3"),
            ("PACOZERO_RETRY_SECONDS", "1"),
        ],
    );
    let waited = Instant::now();
    while pointer(&store).is_none() {
        let st = cluster.states(&trainer);
        assert!(!st.iter().any(|(_, t)| t.ended()), "the trainer ended before it moved the pointer: {st:?}\n{}", cluster.logs());
        assert!(waited.elapsed() < JOB_TIMEOUT, "no model after {JOB_TIMEOUT:?}\n{}{}", cluster.logs(), daemon_logs());
        std::thread::sleep(Duration::from_millis(200));
    }
    scancel(&trainer);
    cluster.wait(&trainer, 0);
    let model_file = pointer(&store).unwrap();
    let model = model_file.strip_suffix(".pzmodel").unwrap_or_else(|| panic!("pointer {model_file:?}")).to_string();
    assert!(store.exists(&format!("models/{model_file}")).unwrap());
    let log = cluster.log(&format!("train-{trainer}.log"));
    assert!(log.contains("16 new chunks downloaded") && log.contains(&format!("models/current -> {model_file}")), "{log}");

    // 3. A second array of the same workers, started afterwards: each resumes
    // (its earlier games stay, their seeds are not played again) and plays
    // two new games with the trainer's model.
    let second = cluster.sbatch(&with(&["--array=0-3"]), SELFPLAY_SBATCH, &[config[0], ("PACOZERO_GAMES", "2")]);
    cluster.wait_ok(&second, 0);
    let games = store_games(&store, "data", tmp);
    for w in 0..4 {
        let folder = format!("w{w:04}");
        let with_model = games.iter().filter(|g| g.0 == folder && g.2 == model).count();
        assert_eq!((ids_of(&games, &folder).len(), with_model), (6, 2), "worker {w}: games, games with {model}\n{}", cluster.logs());
        let log = cluster.log(&format!("selfplay-{second}_{w}.log"));
        assert!(log.contains(&format!("games with model {model}")), "{log}");
    }
    assert_unique(&games.iter().map(|g| g.1).collect::<Vec<_>>());

    // 4. A worker task cancelled in the middle of its games, then requeued.
    let games_per_start = 30u64;
    let killed = cluster.sbatch(&with(&["--array=6"]), SELFPLAY_SBATCH, &[config[0], ("PACOZERO_GAMES", "30")]);
    let task = format!("{killed}_6");
    let waited = Instant::now();
    while store.list("data/w0006").unwrap().iter().filter(|k| k.ends_with(".games.parquet")).count() < 3 {
        assert!(waited.elapsed() < JOB_TIMEOUT, "worker 6 uploaded nothing in {JOB_TIMEOUT:?}\n{}", cluster.logs());
        std::thread::sleep(Duration::from_millis(50));
    }
    scancel(&task);
    let st = cluster.wait(&task, 0);
    assert_eq!(st[0].1.state, "CANCELLED", "worker 6 must be cancelled while it plays (it finished first: make it play longer)\n{}", cluster.logs());
    // Every game it recorded: uploaded, or in a chunk of its cache (written,
    // not uploaded yet).
    let caches: Vec<PathBuf> = std::fs::read_dir(tmp.join("submit/node-tmp"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().ends_with("-w0006"))
        .collect();
    assert_eq!(caches.len(), 1, "worker 6's cache: {caches:?}");
    let recorded: HashSet<u64> = pacozero_data::game_ids(&caches[0].join("data")).unwrap();
    let uploaded: HashSet<u64> = ids_of(&store_games(&store, "data/w0006", tmp), "w0006").into_iter().collect();
    assert!(uploaded.is_subset(&recorded), "the store has games of worker 6 its cache lacks");
    let before = recorded.len() as u64;
    assert!(before >= 3 && before < games_per_start, "worker 6 had recorded {before} games when it was cancelled");
    eprintln!("worker 6 cancelled after {before} recorded games ({} uploaded), {:.1} s into the test", uploaded.len(), t0.elapsed().as_secs_f64());
    let out = Command::new("scontrol").args(["requeue", &task]).output().unwrap();
    assert!(out.status.success(), "scontrol requeue {task}:\n{}", output_text(&out));
    cluster.wait_ok(&task, 1);
    let games = store_games(&store, "data", tmp);
    let w6: Vec<u64> = ids_of(&games, "w0006");
    assert_unique(&w6);
    let w6: HashSet<u64> = w6.into_iter().collect();
    assert!(recorded.is_subset(&w6), "games worker 6 recorded before it was cancelled are missing from the store");
    assert_eq!(w6.len() as u64, before + games_per_start, "the requeued task plays PACOZERO_GAMES new games");
    // Exactly the games of an uninterrupted worker 6 with as many games (game
    // ids follow from the seeds alone, whatever the evaluator): no seed skipped.
    let reference = tmp.join("reference");
    let out = bin()
        .args(["selfplay", "--store", &format!("file://{}/", reference.join("store").display()), "--worker", "6"])
        .args(["--run", s(&reference.join("cache")), "--config", s(&sp), "--games", &(before + games_per_start).to_string()])
        .args(["--evaluator", "uniform", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", output_text(&out));
    let expected = pacozero_data::game_ids(&reference.join("cache/data")).unwrap();
    assert_eq!(w6, expected, "worker 6 after the requeue against an uninterrupted worker 6");
    let log = cluster.log(&format!("selfplay-{killed}_6.log"));
    assert_eq!(log.matches("worker 6: store").count(), 2, "two starts of worker 6 in its log:\n{log}");

    // Every game id of the store once.
    assert_unique(&games.iter().map(|g| g.1).collect::<Vec<_>>());
    assert_eq!(games.len() as u64, 24 + before + games_per_start);
    eprintln!("slurm flow done in {:.1} s", t0.elapsed().as_secs_f64());
}

/// `docs/scale-out.md` shows the two job scripts in full: its listings are
/// the files the cluster test submits, byte for byte.
#[test]
fn the_docs_show_the_job_scripts_the_test_submits() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/scale-out.md")).unwrap();
    let listings: Vec<&str> = docs.split("```bash\n").skip(1).map(|b| b.split("\n```").next().unwrap()).collect();
    for (file, name) in [(SELFPLAY_SBATCH, "docs/slurm/selfplay.sbatch"), (TRAIN_SBATCH, "docs/slurm/train.sbatch")] {
        let script = std::fs::read_to_string(file).unwrap();
        assert!(
            listings.iter().any(|l| *l == script.trim_end()),
            "docs/scale-out.md must show {name} exactly as it is (copy the file into its ```bash block)"
        );
    }
}

/// The job array's throughput on this machine: games per minute with 1, 2
/// and 4 array tasks of one CPU each, from `sbatch` to the last task's end
/// (scheduling, start-up and uploads included), with the shipped self-play
/// configuration (`configs/selfplay.toml`, one thread of two games per task,
/// two games per chunk) and the baseline evaluator the script's workers use
/// without a model (rollout). Not part of the suite; run it with
///
/// ```sh
/// scripts/test.sh --test slurm -- --ignored --nocapture slurm_array_throughput
/// ```
///
/// `PACOZERO_SLURM_BENCH_GAMES` sets the games per task (default 8).
#[test]
#[ignore]
fn slurm_array_throughput() {
    require_cluster();
    let games: u64 = std::env::var("PACOZERO_SLURM_BENCH_GAMES").ok().map_or(8, |g| g.parse().expect("PACOZERO_SLURM_BENCH_GAMES"));
    let dir = tempfile::tempdir().unwrap();
    let shipped = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/selfplay.toml")).unwrap();
    let config: String = shipped
        .lines()
        .map(|l| match l.split('=').next().unwrap().trim() {
            "threads" => "threads = 1".to_string(),
            "games_per_thread" => "games_per_thread = 2".to_string(),
            "games_per_chunk" => "games_per_chunk = 2".to_string(),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let sp = write_config(dir.path(), "selfplay.toml", &config);
    let mut lines = Vec::new();
    for tasks in [1u32, 2, 4] {
        let (url, vars) = fresh_store(&format!("bench{tasks}"));
        let cluster = Cluster::new(&dir.path().join(format!("bench{tasks}")), &url, &vars);
        let array = format!("--array=0-{}", tasks - 1);
        let t0 = Instant::now();
        let job = cluster.sbatch(
            &["--cpus-per-task=1", "--mem=1G", "--time=60:00", &array],
            SELFPLAY_SBATCH,
            &[("PACOZERO_SELFPLAY_CONFIG", s(&sp)), ("PACOZERO_GAMES", &games.to_string())],
        );
        cluster.wait_ok(&job, 0);
        let secs = t0.elapsed().as_secs_f64();
        let store = RunStore::open_with(&url, vars.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))).unwrap();
        let n = store_games(&store, "data", dir.path()).len() as u64;
        assert_eq!(n, games * tasks as u64);
        let line = format!("{tasks} array task(s) x {games} games: {n} games in {secs:.1} s = {:.1} games/min", n as f64 * 60.0 / secs);
        eprintln!("{line}");
        lines.push(line);
    }
    eprintln!("job array throughput on {} CPUs:\n{}", std::thread::available_parallelism().map_or(0, |n| n.get()), lines.join("\n"));
}
