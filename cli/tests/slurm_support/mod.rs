//! What the Slurm scale-out test (`cli/tests/slurm.rs`) and the job array's
//! throughput measurement (`cli/examples/slurm_throughput.rs`) share: the
//! cluster that `scripts/test-scaleout.sh` started, stores on the local S3
//! server, job submission and waiting, and reading games back from a store.
//! Each includes it as a module beside `common`.
#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pacozero_store::{ObjectKind, RunStore};

use crate::common::{bin_path, fresh_s3_store, manifest_dir, output_text, s};

/// The job scripts the cluster tests submit (those `docs/scale-out.md` shows).
pub fn selfplay_sbatch() -> String {
    manifest_dir().join("../docs/slurm/selfplay.sbatch").display().to_string()
}
pub fn train_sbatch() -> String {
    manifest_dir().join("../docs/slurm/train.sbatch").display().to_string()
}
pub fn evaluate_sbatch() -> String {
    manifest_dir().join("../docs/slurm/evaluate.sbatch").display().to_string()
}

/// How long one wait for jobs may take before the test gives up.
pub const JOB_TIMEOUT: Duration = Duration::from_secs(600);

/// The cluster `scripts/test-scaleout.sh` started, or a panic saying how to get one.
pub fn require_cluster() {
    if std::env::var("PACOZERO_TEST_SLURM").as_deref() != Ok("1") || std::env::var_os("SLURM_CONF").is_none() {
        panic!(
            "PACOZERO_TEST_SLURM / SLURM_CONF are not set: run the tests with scripts/test.sh, which starts a single-node \
             Slurm cluster for this test through scripts/test-scaleout.sh (as root; it installs the Debian packages \
             slurmctld, slurmd, slurm-client and munge if they are missing)"
        );
    }
}

/// A fresh bucket and the store URL of a run in it; the options a client needs.
pub fn fresh_store(name: &str) -> (String, Vec<(String, String)>) {
    fresh_s3_store(&format!("pacozero-slurm-{name}"), "runs/paco-1")
}

/// Where the jobs of one run are submitted from: the directory (with the
/// `logs/` folder the scripts write to), the credentials file the scripts
/// source, and the environment `sbatch` passes on.
pub struct Cluster {
    pub dir: PathBuf,
    pub env: Vec<(String, String)>,
}

impl Cluster {
    pub fn new(dir: &Path, url: &str, vars: &[(String, String)]) -> Cluster {
        std::fs::create_dir_all(dir.join("logs")).unwrap();
        // The credentials reach the jobs through the file the docs describe,
        // not through the environment.
        let creds = dir.join("s3.env");
        let text: String = vars.iter().map(|(k, v)| format!("export {k}={v}\n")).collect();
        std::fs::write(&creds, text).unwrap();
        // The workers' default caches ($TMPDIR/pacozero-cache-...) live here.
        let tmp = dir.join("node-tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let env = [("PACOZERO_STORE", url), ("PACOZERO", s(&bin_path())), ("PACOZERO_CREDENTIALS", s(&creds)), ("TMPDIR", s(&tmp))]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Cluster { dir: dir.to_path_buf(), env }
    }

    /// `sbatch --parsable ARGS SCRIPT` with the run's environment plus
    /// `extra`; the job id.
    pub fn sbatch(&self, args: &[&str], script: &str, extra: &[(&str, &str)]) -> String {
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
    pub fn logs(&self) -> String {
        let mut names: Vec<PathBuf> = std::fs::read_dir(self.dir.join("logs")).unwrap().map(|e| e.unwrap().path()).collect();
        names.sort();
        names.iter().map(|p| format!("--- {}\n{}", p.display(), std::fs::read_to_string(p).unwrap_or_default())).collect()
    }

    pub fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join("logs").join(name)).unwrap_or_else(|e| panic!("job log {name}: {e}\n{}", self.logs()))
    }

    /// The state of every task of job `id` (an array: one entry per task id,
    /// `None` for the pending rest of the array; a plain job: `None`).
    pub fn states(&self, id: &str) -> Vec<(Option<u32>, Task)> {
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
    pub fn wait(&self, id: &str, restarts: u32) -> Vec<(Option<u32>, Task)> {
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
    pub fn wait_ok(&self, id: &str, restarts: u32) {
        let states = self.wait(id, restarts);
        for (task, t) in &states {
            assert!(t.state == "COMPLETED" && t.exit == "0:0", "job {id} task {task:?}: {t:?}\n{}{}", self.logs(), daemon_logs());
        }
    }
}

#[derive(Debug, Clone)]
pub struct Task {
    pub state: String,
    pub exit: String,
    pub restarts: u32,
}

impl Task {
    pub fn ended(&self) -> bool {
        matches!(self.state.as_str(), "COMPLETED" | "FAILED" | "CANCELLED" | "TIMEOUT" | "OUT_OF_MEMORY" | "NODE_FAIL" | "BOOT_FAIL" | "DEADLINE" | "PREEMPTED")
    }
}

/// The tails of the daemons' logs (`scripts/test-scaleout.sh` names them).
pub fn daemon_logs() -> String {
    let mut text = String::new();
    for path in std::env::var("PACOZERO_TEST_SLURM_LOGS").unwrap_or_default().split_whitespace() {
        let log = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        text += &format!("\n--- {path} (last 40 lines)\n{}", lines[lines.len().saturating_sub(40)..].join("\n"));
    }
    text
}

pub fn scancel(id: &str) {
    let out = Command::new("scancel").arg(id).output().unwrap();
    assert!(out.status.success(), "scancel {id}:\n{}", output_text(&out));
}

/// The games of a store: `(worker folder, game id, network id)` of every game.
pub fn store_games(store: &RunStore, prefix: &str, tmp: &Path) -> Vec<(String, u64, String)> {
    let mut out = Vec::new();
    for key in store.list(prefix).unwrap().iter().filter(|k| k.ends_with(".games.parquet")) {
        let file = tmp.join("probe.games.parquet");
        std::fs::write(&file, store.get(key, ObjectKind::Chunk).unwrap().unwrap()).unwrap();
        let (_, games) = pacozero_data::read_games_file(&file).unwrap_or_else(|e| panic!("{key}: {e}"));
        let folder = key.split('/').nth(1).unwrap().to_string();
        out.extend(games.into_iter().map(|g| (folder.clone(), g.game_id, g.network_id)));
    }
    out
}

pub fn ids_of(games: &[(String, u64, String)], folder: &str) -> Vec<u64> {
    games.iter().filter(|g| g.0 == folder).map(|g| g.1).collect()
}

pub fn assert_unique(ids: &[u64]) {
    let set: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(set.len(), ids.len(), "a game id is in the store twice: {ids:?}");
}

pub fn pointer(store: &RunStore) -> Option<String> {
    store.read_pointer("models/current").unwrap().map(|(t, _)| t.trim().to_string())
}
