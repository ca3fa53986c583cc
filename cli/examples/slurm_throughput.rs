//! The Slurm job array's throughput on this machine: games per minute with
//! 1, 2 and 4 array tasks of one CPU each, from `sbatch` to the last task's
//! end (scheduling, start-up and uploads included), with the shipped
//! self-play configuration (`configs/selfplay.toml`, one thread of two games
//! per task, two games per chunk) and the baseline evaluator the script's
//! workers use without a model (rollout). A benchmark, not a test: it needs
//! the local S3 server and Slurm cluster, so run it through the wrappers
//! `scripts/bench-scaleout.sh` puts around it. `PACOZERO_SLURM_BENCH_GAMES`
//! sets the games per task (default 8).

use std::time::Instant;

use pacozero_store::RunStore;

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/slurm_support/mod.rs"]
mod slurm_support;
use common::{s, write_config};
use slurm_support::*;

fn main() {
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
            &selfplay_sbatch(),
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
