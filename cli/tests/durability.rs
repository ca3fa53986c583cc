//! Durability at the system-call level. A killed process's writes survive in
//! the page cache, so the kill tests (crash.rs) cannot tell a missing fsync;
//! this test traces the writers with `strace` and checks, for a data chunk, a
//! model export, a checkpoint, `state.json`, the model pointer and a book,
//! the order every crash-safe write needs: the temporary file is written,
//! fsynced, renamed over the final name, and then its directory is fsynced.
//! Removing any one of those syncs (`data/src/durable.rs`,
//! `data/src/writer.rs`) fails it. `scripts/test.sh` installs Debian's
//! `strace`; `STRACE` names another binary.

use std::path::{Path, PathBuf};

mod common;
use common::{bin_path, s, tiny_selfplay, write_config, TINY_NET};
use pacozero_testkit::syscalls::{self, check_durable};

/// `pacozero args` under strace: each thread's calls.
fn traced(dir: &Path, args: &[&str]) -> Vec<Vec<syscalls::Call>> {
    syscalls::traced(dir, &bin_path(), args, &[])
}

fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.to_string_lossy().ends_with(suffix)).collect();
    v.sort();
    v
}

/// One generation of a tiny loop: its data chunks, the exported models and
/// the pointer to the current one, the checkpoint and `state.json`.
#[test]
fn a_loop_generation_writes_every_file_durably() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let cfg = format!(
        "[loop]\ngenerations = 1\ngames_per_generation = 2\ntrain_steps_per_generation = 2\ngating_games = 2\neval_simulations = 4\nbaseline_games = 2\nbaseline_simulations = 4\npromotion = \"always\"\nmax_decisions = 30\nseed = 5\n\n[selfplay]{}\n{TINY_NET}\n[train]\nbatch_size = 16\nwarmup_steps = 1\nmin_positions = 1\nplot_every = 0\nthreads = 1\nprogress = false\n",
        tiny_selfplay(5).replace("\n[search]", "\n[selfplay.search]")
    );
    let cfg = write_config(dir.path(), "loop.toml", &cfg);
    let traces = dir.path().join("traces");
    std::fs::create_dir(&traces).unwrap();
    let threads = traced(&traces, &["loop", "--config", s(&cfg), "--run", s(&run)]);
    let chunks = files(&run.join("data"), ".parquet");
    let models = files(&run.join("models"), ".pzmodel");
    assert!(chunks.len() >= 2 && !models.is_empty(), "chunks {chunks:?}, models {models:?}");
    let mut targets: Vec<PathBuf> = chunks;
    targets.extend(models);
    targets.push(run.join("models").join("current"));
    targets.push(run.join("checkpoints").join("latest.pzckpt"));
    targets.push(run.join("state.json"));
    for t in &targets {
        assert!(check_durable(&threads, t) >= 1, "{} was never renamed into place", t.display());
    }
}

/// A book, written by `book import`.
#[test]
fn a_book_is_written_durably() {
    let dir = tempfile::tempdir().unwrap();
    let book = common::manifest_dir().join("tests/data/platform_book.json");
    let out = dir.path().join("book.parquet");
    let traces = dir.path().join("traces");
    std::fs::create_dir(&traces).unwrap();
    let threads = traced(&traces, &["book", "import", "--format", "platform", s(&book), "--out", s(&out)]);
    assert_eq!(check_durable(&threads, &out), 1);
}
