//! Durability at the system-call level, for the tests that trace a writer
//! (`data/tests/durability.rs`, `cli/tests/durability.rs`): runs a
//! program under `strace` and checks the order a crash-safe write needs, the
//! temporary file written, fsynced, renamed over the final name, and then
//! its directory fsynced. Debian's `strace` (installed by scripts/test.sh);
//! `STRACE` names another binary.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// One traced system call that matters here.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
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

/// Runs `program args` under `strace -f -ff` (one trace file per thread,
/// written under `dir`) with the extra environment `envs`, and returns each
/// thread's calls.
pub fn traced(dir: &Path, program: &Path, args: &[&str], envs: &[(&str, &str)]) -> Vec<Vec<Call>> {
    let prefix = dir.join("trace");
    let out = Command::new(strace())
        .args(["-f", "-ff", "-qq", "-e", "trace=open,openat,write,pwrite64,writev,pwritev,pwritev2,fsync,fdatasync,close,rename,renameat,renameat2", "-o"])
        .arg(&prefix)
        .arg(program)
        .args(args)
        .envs(envs.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} (scripts/test.sh installs Debian's strace; STRACE names another): {e}", strace()));
    assert!(
        out.status.success(),
        "{} {args:?} under strace failed:\n{}{}",
        program.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
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
pub fn check_durable(threads: &[Vec<Call>], target: &Path) -> usize {
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
