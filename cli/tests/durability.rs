//! Durability at the system-call level. A killed process's writes survive in
//! the page cache, so the kill tests (crash.rs) cannot tell a missing fsync;
//! this test traces the writers with `strace` and checks, for a data chunk, a
//! model export, a checkpoint, `state.json`, the model pointer and a book,
//! the order every crash-safe write needs: the temporary file is written,
//! fsynced, renamed over the final name, and then its directory is fsynced.
//! Removing any one of those syncs (`data/src/durable.rs`,
//! `data/src/writer.rs`) fails it. `scripts/test.sh` installs Debian's
//! `strace`; `STRACE` names another binary.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{bin_path, s, tiny_selfplay, write_config, TINY_NET};

/// One traced system call that matters here.
#[derive(Clone, Debug, PartialEq)]
enum Call {
    Open { path: String, fd: i64 },
    Write { fd: i64 },
    Sync { fd: i64 },
    Close { fd: i64 },
    Rename { from: String, to: String },
}

/// The first quoted string of `s` from `start` on, and where it ends.
fn quoted(s: &str, start: usize) -> Option<(String, usize)> {
    let a = start + s[start..].find('"')? + 1;
    let b = a + s[a..].find('"')?;
    Some((s[a..b].to_string(), b + 1))
}

fn result(line: &str) -> Option<i64> {
    line.rsplit_once(" = ")?.1.split_whitespace().next()?.parse().ok()
}

/// Parses a line of `strace -ff` output (one thread, so no interleaving).
fn parse(line: &str) -> Option<Call> {
    let name = line.split('(').next()?;
    let args = &line[name.len() + 1..];
    let first_number = || args.split([',', ')']).next()?.trim().parse::<i64>().ok();
    match name {
        "openat" | "open" => {
            let (path, _) = quoted(line, 0)?;
            let fd = result(line).filter(|&fd| fd >= 0)?;
            Some(Call::Open { path, fd })
        }
        "write" | "pwrite64" | "writev" | "pwritev" | "pwritev2" => Some(Call::Write { fd: first_number()? }),
        "fsync" | "fdatasync" => (result(line)? == 0).then(|| Call::Sync { fd: first_number().unwrap_or(-1) }),
        "close" => Some(Call::Close { fd: first_number()? }),
        "rename" | "renameat" | "renameat2" => {
            let (from, end) = quoted(line, 0)?;
            let (to, _) = quoted(line, end)?;
            (result(line)? == 0).then_some(Call::Rename { from, to })
        }
        _ => None,
    }
}

fn strace() -> String {
    std::env::var("STRACE").unwrap_or_else(|_| "strace".into())
}

/// Runs `pacozero args` under `strace -f -ff` (one trace file per thread)
/// and returns each thread's calls.
fn traced(dir: &Path, args: &[&str]) -> Vec<Vec<Call>> {
    let prefix = dir.join("trace");
    let out = Command::new(strace())
        .args(["-f", "-ff", "-qq", "-e", "trace=open,openat,write,pwrite64,writev,pwritev,pwritev2,fsync,fdatasync,close,rename,renameat,renameat2", "-o"])
        .arg(&prefix)
        .arg(bin_path())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} (scripts/test.sh installs Debian's strace; STRACE names another): {e}", strace()));
    assert!(out.status.success(), "pacozero {args:?} under strace failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let mut threads = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_string_lossy().starts_with("trace.") {
            threads.push(std::fs::read_to_string(&p).unwrap().lines().filter_map(parse).collect());
        }
    }
    assert!(!threads.is_empty(), "no trace files under {}", dir.display());
    threads
}

/// Checks every rename onto `target` in the traces: the temporary file was
/// opened, written and fsynced (after its last write) before the rename, and
/// its directory was opened and fsynced after it. Returns how many renames
/// were checked.
fn check_durable(threads: &[Vec<Call>], target: &Path) -> usize {
    let to = target.to_str().unwrap();
    let tmp = format!("{to}.tmp");
    let dir = target.parent().unwrap().to_str().unwrap();
    let mut checked = 0;
    for calls in threads {
        for (i, c) in calls.iter().enumerate() {
            if *c != (Call::Rename { from: tmp.clone(), to: to.to_string() }) {
                continue;
            }
            let before = &calls[..i];
            let open = before
                .iter()
                .rposition(|c| matches!(c, Call::Open { path, .. } if *path == tmp))
                .unwrap_or_else(|| panic!("{tmp} renamed but never opened in this thread"));
            let Call::Open { fd, .. } = before[open] else { unreachable!() };
            // The file's calls until its descriptor is closed.
            let mut wrote_at = None;
            let mut synced_at = None;
            for (k, c) in before.iter().enumerate().skip(open + 1) {
                match c {
                    Call::Write { fd: f } if *f == fd => wrote_at = Some(k),
                    Call::Sync { fd: f } if *f == fd => synced_at = Some(k),
                    Call::Close { fd: f } if *f == fd => break,
                    _ => {}
                }
            }
            let wrote = wrote_at.unwrap_or_else(|| panic!("{tmp}: nothing written before its rename"));
            assert!(synced_at.is_some_and(|s| s > wrote), "{tmp}: not fsynced after its last write, before the rename onto {to}");
            // The directory, synced after the rename.
            let mut dir_fds: HashMap<i64, bool> = HashMap::new();
            let synced_dir = calls[i + 1..].iter().any(|c| match c {
                Call::Open { path, fd } => {
                    dir_fds.insert(*fd, path == dir);
                    false
                }
                Call::Sync { fd } => dir_fds.get(fd).copied().unwrap_or(false),
                _ => false,
            });
            assert!(synced_dir, "{to}: its directory {dir} is not fsynced after the rename");
            checked += 1;
        }
    }
    checked
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
