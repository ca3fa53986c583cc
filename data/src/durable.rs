//! Whole-or-nothing file writes, and the test hook that kills a writer inside
//! its write window.
//!
//! Every file PacoZero leaves in a run directory is written to `<name>.tmp`,
//! synced, then renamed over `<name>`, and the directory is synced: a reader
//! sees the old file or the new one, never a part, and a crash leaves at most
//! a `.tmp` file that no reader takes for data.
//!
//! # Crash points
//!
//! The crash tests must know that a kill landed *inside* a write window, not
//! merely at a random moment. Writers therefore call [`crash_point`] at the
//! places where a crash is most harmful (between a temporary write and its
//! rename, between two uploads, between an upload and a pointer swap). With
//! the environment variable `PACOZERO_CRASH_AT=<point>[:<n>]` set, the process
//! kills itself with SIGKILL the `n`-th time (default 1) it reaches `point`.
//! Without the variable a crash point costs one cached lookup.
//!
//! | point | where |
//! |---|---|
//! | `chunk-renames` | a chunk's two temporary files are written, neither is renamed |
//! | `chunk-between-renames` | the positions file is renamed, the games file is not |
//! | `rename:<file name>` | [`write_atomic`] of `<file name>` (e.g. `rename:current`, `rename:state.json`): written and synced, not renamed |
//! | `store-chunk-upload` | a worker uploaded a chunk's positions file, not its games file |
//! | `store-pointer-swap` | a trainer uploaded its model, the pointer `models/current` is not moved |

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The environment variable that arms a crash point (see the module docs).
pub const CRASH_ENV: &str = "PACOZERO_CRASH_AT";

/// The name a file is written under before it is renamed: `<path>.tmp`. The
/// suffix is appended (not swapped for the extension) so that `a.csv` and
/// `a.md` written side by side never share a temporary name.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(crate::TMP_SUFFIX);
    PathBuf::from(s)
}

/// Writes `parts`, concatenated, to `path` atomically: `<path>.tmp`, sync,
/// rename, sync of the directory. Creates the parent directory if needed.
pub fn write_atomic(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = tmp_path(path);
    {
        let mut f = File::create(&tmp)?;
        for p in parts {
            f.write_all(p)?;
        }
        f.sync_all()?;
    }
    if let (Some(name), Some(_)) = (path.file_name(), armed()) {
        crash_point(&format!("rename:{}", name.to_string_lossy()));
    }
    std::fs::rename(&tmp, path)?;
    sync_dir(dir.unwrap_or(Path::new(".")));
    Ok(())
}

/// Makes the renames in `dir` durable (best effort: not every file system
/// can sync a directory).
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// A place where a test may kill this process (see the module docs): the
/// `n`-th call with the point armed by `PACOZERO_CRASH_AT` sends SIGKILL to
/// the process itself. Does nothing when the variable is not set.
pub fn crash_point(point: &str) {
    static HITS: AtomicU64 = AtomicU64::new(0);
    let Some((name, nth)) = armed() else { return };
    if name == point && HITS.fetch_add(1, Ordering::SeqCst) + 1 == *nth {
        eprintln!("{CRASH_ENV}: killing this process at {point} (hit {nth})");
        kill_self();
    }
}

/// The crash point `PACOZERO_CRASH_AT` arms and its hit count, read once.
fn armed() -> Option<&'static (String, u64)> {
    static ARMED: OnceLock<Option<(String, u64)>> = OnceLock::new();
    ARMED.get_or_init(|| parse_crash_spec(&std::env::var(CRASH_ENV).ok()?)).as_ref()
}

/// `point[:n]` with `n >= 1`; `None` (no crash point armed) for anything else.
fn parse_crash_spec(spec: &str) -> Option<(String, u64)> {
    let (name, nth) = match spec.rsplit_once(':') {
        Some((name, n)) if n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() => (name, n.parse().ok()?),
        _ => (spec, 1),
    };
    (!name.is_empty() && nth >= 1).then(|| (name.to_string(), nth))
}

fn kill_self() -> ! {
    #[cfg(unix)]
    // SAFETY: kill(2) on our own pid with a constant signal has no memory effects.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    std::process::abort()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_specs_parse() {
        assert_eq!(parse_crash_spec("chunk-renames"), Some(("chunk-renames".into(), 1)));
        assert_eq!(parse_crash_spec("chunk-renames:3"), Some(("chunk-renames".into(), 3)));
        // A file name with a colon keeps it; only a trailing count is split off.
        assert_eq!(parse_crash_spec("rename:current"), Some(("rename:current".into(), 1)));
        assert_eq!(parse_crash_spec("rename:current:2"), Some(("rename:current".into(), 2)));
        assert_eq!(parse_crash_spec("x:0"), None);
        assert_eq!(parse_crash_spec(""), None);
    }

    /// Set in the child process the crash tests below start.
    const CHILD_ENV: &str = "PACOZERO_DURABLE_TEST_CHILD";

    /// Runs the test `name` of this binary again as a child process with
    /// `PACOZERO_CRASH_AT=spec` (a crash point is armed once per process)
    /// and returns how it ended and what it printed.
    fn child(name: &str, spec: &str, dir: &Path) -> (std::process::ExitStatus, String) {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(CRASH_ENV, spec)
            .env(CHILD_ENV, dir)
            .output()
            .unwrap();
        (out.status, String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn killed(status: std::process::ExitStatus) -> bool {
        use std::os::unix::process::ExitStatusExt;
        status.signal() == Some(libc::SIGKILL)
    }

    #[test]
    fn an_armed_crash_point_kills_on_its_nth_hit_and_no_other() {
        if std::env::var_os(CHILD_ENV).is_some() {
            for step in ["other", "point", "other", "point", "point"] {
                crash_point(step);
                println!("passed {step}");
            }
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let name = "durable::tests::an_armed_crash_point_kills_on_its_nth_hit_and_no_other";
        let (status, out) = child(name, "point:2", dir.path());
        assert!(killed(status), "{status:?}\n{out}");
        assert!(out.contains("passed other\npassed point\npassed other\n") && !out.contains("passed other\npassed point\npassed other\npassed point"), "{out}");
        // Another point armed: every step passes.
        let (status, out) = child(name, "elsewhere", dir.path());
        assert!(status.success() && out.matches("passed ").count() == 5, "{status:?}\n{out}");
    }

    #[test]
    fn a_crash_before_the_rename_leaves_the_old_file_and_a_whole_tmp() {
        if let Some(dir) = std::env::var_os(CHILD_ENV) {
            write_atomic(&Path::new(&dir).join("a.json"), &[b"new"]).unwrap();
            println!("renamed");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        write_atomic(&p, &[b"old"]).unwrap();
        let name = "durable::tests::a_crash_before_the_rename_leaves_the_old_file_and_a_whole_tmp";
        let (status, out) = child(name, "rename:a.json", dir.path());
        assert!(killed(status) && !out.contains("renamed"), "{status:?}\n{out}");
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert_eq!(std::fs::read(tmp_path(&p)).unwrap(), b"new");
        let (status, _) = child(name, "rename:b.json", dir.path());
        assert!(status.success());
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
    }

    #[test]
    fn write_atomic_replaces_whole_files_and_leaves_no_tmp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/a.json");
        write_atomic(&p, &[b"{\"a\":", b"1}"]).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\"a\":1}");
        write_atomic(&p, &[b"2"]).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "2");
        assert!(!tmp_path(&p).exists());
        assert_eq!(tmp_path(&p).file_name().unwrap(), "a.json.tmp");
    }
}
