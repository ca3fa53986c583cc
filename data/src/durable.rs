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
//!
//! # A full disk
//!
//! Every file a run writes goes through [`write_atomic`], [`DiskFile`] or
//! [`append_whole`], and none leaves a part behind when the disk is full: a
//! temporary file that could not be written whole is removed, and an append
//! that could not be written whole is cut off again, so the file ends on the
//! last whole line and a later append starts a line of its own.
//!
//! The full-disk tests need a disk that fills up at a chosen write. With
//! `PACOZERO_ENOSPC_AT=<name>[:<n>]` the `n`-th write (default 1) of a file
//! named `<name>` finds the disk full: it writes half its first buffer, then
//! fails with the operating system's `ENOSPC` error ("No space left on
//! device"), and so does every write of any file after it in this process (a
//! full disk stays full). A write is one whole-file write (a temporary file
//! and its rename) or one append. `<name>` is a file name without its `.tmp`
//! (`state.json`, `latest.pzckpt`, `league.jsonl`); one `*` in it stands for
//! any text (`*.pzmodel`, `*.games.parquet`, `events.out.tfevents.*`), and
//! `*` alone for every file.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

pub use crate::error::WriteError;

/// The environment variable that arms a crash point (see the module docs).
pub const CRASH_ENV: &str = "PACOZERO_CRASH_AT";

/// The environment variable that makes the disk full at a chosen write
/// (see the module docs).
pub const ENOSPC_ENV: &str = "PACOZERO_ENOSPC_AT";

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
/// The one atomic write of the workspace: every crate calls it, none wraps
/// it; its error names the file ([`WriteError`]).
pub fn write_atomic(path: &Path, parts: &[&[u8]]) -> Result<(), WriteError> {
    write_whole(path, parts).map_err(|source| WriteError { path: path.to_path_buf(), source })
}

fn write_whole(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = tmp_path(path);
    let written = DiskFile::create(&tmp).and_then(|mut f| {
        for p in parts {
            f.write_all(p)?;
        }
        f.sync_all()
    });
    if let Err(e) = written {
        // A full disk leaves no part of the file behind.
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    if let (Some(name), Some(_)) = (path.file_name(), armed()) {
        crash_point(&format!("rename:{}", name.to_string_lossy()));
    }
    std::fs::rename(&tmp, path)?;
    sync_dir(dir.unwrap_or(Path::new(".")));
    Ok(())
}

/// A file being written, through which [`ENOSPC_ENV`] can fill the disk.
/// Writers that cannot hand their bytes to [`write_atomic`] at once (a
/// Parquet writer, an event log kept open) write through it.
pub struct DiskFile {
    file: File,
    path: PathBuf,
    /// This write is the one that fills the disk: its first buffer is
    /// written half, and the disk is full from then on.
    fills_disk: bool,
    /// The first error a write met (see [`DiskFile::take_error`]).
    error: Option<std::io::Error>,
}

impl DiskFile {
    /// Creates (or truncates) `path` for one whole-file write.
    pub fn create(path: &Path) -> std::io::Result<DiskFile> {
        let file = File::create(path)?;
        Ok(DiskFile { file, path: path.to_path_buf(), fills_disk: write_fills_disk(path), error: None })
    }

    /// Opens `path` (created if missing) to append to it with [`DiskFile::append_whole`].
    pub fn open_append(path: &Path) -> std::io::Result<DiskFile> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(DiskFile { file, path: path.to_path_buf(), fills_disk: false, error: None })
    }

    /// Appends `bytes` whole or not at all: when a write fails (a full
    /// disk), the file is cut back to its length before, so it still ends
    /// where the last whole append ended. `sync` syncs the file after.
    pub fn append_whole(&mut self, bytes: &[u8], sync: bool) -> std::io::Result<()> {
        let before = self.file.metadata()?.len();
        self.fills_disk = write_fills_disk(&self.path);
        let written = self.write_all(bytes).and_then(|()| self.flush()).and_then(|()| if sync { self.file.sync_all() } else { Ok(()) });
        if let Err(e) = written {
            // Shrinking a file needs no space.
            let _ = self.file.set_len(before);
            return Err(e);
        }
        Ok(())
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The first error a write of this file met, for a caller whose writer
    /// (a Parquet writer) hands on only its text: the caller can name the
    /// I/O error as it is ("No space left on device").
    pub fn take_error(&mut self) -> Option<std::io::Error> {
        self.error.take()
    }

    /// Syncs the file's data and metadata to disk.
    pub fn sync_all(&self) -> std::io::Result<()> {
        self.file.sync_all()
    }
}

impl Write for DiskFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if std::mem::take(&mut self.fills_disk) && buf.len() > 1 {
            // The disk fills up in the middle of this buffer.
            return self.file.write(&buf[..buf.len() / 2]);
        }
        let written = if DISK_FULL.load(Ordering::SeqCst) { Err(std::io::Error::from_raw_os_error(libc::ENOSPC)) } else { self.file.write(buf) };
        if let (Err(e), None) = (&written, &self.error) {
            self.error = Some(match e.raw_os_error() {
                Some(code) => std::io::Error::from_raw_os_error(code),
                None => std::io::Error::new(e.kind(), e.to_string()),
            });
        }
        written
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Appends `bytes` to `path` (created if missing) whole or not at all (see
/// [`DiskFile::append_whole`]).
pub fn append_whole(path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    DiskFile::open_append(path)?.append_whole(bytes, sync)
}

/// Set once the write [`ENOSPC_ENV`] names has started: every write after fails.
static DISK_FULL: AtomicBool = AtomicBool::new(false);

/// Whether the write of `path` now starting is the one [`ENOSPC_ENV`] names
/// (which then makes the disk full). Costs one cached lookup without the variable.
fn write_fills_disk(path: &Path) -> bool {
    static ARMED: OnceLock<Option<(String, u64)>> = OnceLock::new();
    static WRITES: AtomicU64 = AtomicU64::new(0);
    static HITS: AtomicU64 = AtomicU64::new(0);
    let Some((pattern, nth)) = ARMED.get_or_init(|| parse_crash_spec(&std::env::var(ENOSPC_ENV).ok()?)).as_ref() else { return false };
    let writes = WRITES.fetch_add(1, Ordering::SeqCst) + 1;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let name = name.strip_suffix(crate::TMP_SUFFIX).unwrap_or(&name);
    let matches = match pattern.split_once('*') {
        Some((prefix, suffix)) => name.len() >= prefix.len() + suffix.len() && name.starts_with(prefix) && name.ends_with(suffix),
        None => name == pattern,
    };
    if !matches || DISK_FULL.load(Ordering::SeqCst) || HITS.fetch_add(1, Ordering::SeqCst) + 1 != *nth {
        return false;
    }
    DISK_FULL.store(true, Ordering::SeqCst);
    eprintln!("{ENOSPC_ENV}: the disk is full from write {writes} of this process on, the write of {}", path.display());
    true
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

    /// Runs the test `name` of this binary again as a child process with
    /// `PACOZERO_ENOSPC_AT=spec`; returns whether it succeeded and what it printed.
    fn child_on_a_full_disk(name: &str, spec: &str, dir: &Path) -> (bool, String) {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(ENOSPC_ENV, spec)
            .env(CHILD_ENV, dir)
            .output()
            .unwrap();
        (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }

    fn is_enospc(r: std::io::Result<()>) -> bool {
        r.is_err_and(|e| e.raw_os_error() == Some(libc::ENOSPC) && e.to_string().starts_with("No space left on device"))
    }

    /// [`is_enospc`] of a whole-file write, whose error also names the file.
    fn write_is_enospc(r: Result<(), WriteError>, path: &Path) -> bool {
        r.is_err_and(|e| e.path == path && e.to_string() == format!("writing {}", path.display()) && is_enospc(Err(e.source)))
    }

    #[test]
    fn a_full_disk_fails_the_armed_write_and_every_later_one_leaving_no_part() {
        let name = "durable::tests::a_full_disk_fails_the_armed_write_and_every_later_one_leaving_no_part";
        if let Some(dir) = std::env::var_os(CHILD_ENV) {
            let dir = Path::new(&dir);
            let (a, b, log) = (dir.join("a.json"), dir.join("b.json"), dir.join("log.jsonl"));
            write_atomic(&b, &[b"old b"]).unwrap();
            append_whole(&log, b"{\"line\":1}\n", true).unwrap();
            let armed = std::env::var(ENOSPC_ENV).unwrap();
            if armed == "b.json:2" {
                // The second write of b.json fills the disk: the old file stays, whole, and no temporary is left.
                assert!(write_is_enospc(write_atomic(&b, &[b"new b, ", b"longer than the old"]), &b));
                assert_eq!(std::fs::read(&b).unwrap(), b"old b");
                assert!(!tmp_path(&b).exists());
            } else {
                // The second append fills the disk in its middle: the half line is cut off again.
                assert_eq!(armed, "*.jsonl:2");
                assert!(is_enospc(append_whole(&log, b"{\"line\":2}\n", true)));
            }
            assert_eq!(std::fs::read(&log).unwrap(), b"{\"line\":1}\n");
            // The disk stays full, for every file.
            assert!(is_enospc(append_whole(&log, b"{\"line\":3}\n", false)));
            assert!(write_is_enospc(write_atomic(&a, &[b"a"]), &a));
            assert!(!a.exists() && !tmp_path(&a).exists());
            assert_eq!(std::fs::read(&log).unwrap(), b"{\"line\":1}\n");
            println!("all checked");
            return;
        }
        for spec in ["b.json:2", "*.jsonl:2"] {
            let dir = tempfile::tempdir().unwrap();
            let (ok, out) = child_on_a_full_disk(name, spec, dir.path());
            assert!(ok && out.contains("all checked"), "{spec}:\n{out}");
            assert!(out.contains("PACOZERO_ENOSPC_AT: the disk is full from write 3 of this process on"), "{spec}:\n{out}");
        }
        // Unarmed, every write succeeds.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("b.json");
        write_atomic(&p, &[b"x"]).unwrap();
        append_whole(&dir.path().join("log"), b"1\n", false).unwrap();
        append_whole(&dir.path().join("log"), b"2\n", false).unwrap();
        assert_eq!(std::fs::read(dir.path().join("log")).unwrap(), b"1\n2\n");
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
