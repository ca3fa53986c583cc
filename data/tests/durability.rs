//! The data crate's writers at the system-call level: a file written with
//! `write_atomic` and a data chunk (its positions and games files) are
//! written, fsynced, renamed into place, and their directory is fsynced
//! after the rename. Each test runs itself again under `strace` as the
//! writing child (`cli/tests/durability.rs` does the same for the files of a
//! whole loop generation and a book).

use std::path::{Path, PathBuf};

use pacozero_data::{write_atomic, write_chunk};

mod common;
use pacozero_testkit::syscalls::{self, check_durable};

/// Set (to the directory to write in) in the traced child.
const CHILD_ENV: &str = "PACOZERO_DURABILITY_TEST_CHILD";

/// The directory to write in when this process is the traced child.
fn child_dir() -> Option<PathBuf> {
    std::env::var_os(CHILD_ENV).map(PathBuf::from)
}

/// Runs the test `name` of this binary again under strace, writing in
/// `dir/out`, and returns each thread's calls.
fn trace_child(dir: &Path, name: &str) -> Vec<Vec<syscalls::Call>> {
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    let traces = dir.join("traces");
    std::fs::create_dir(&traces).unwrap();
    let exe = std::env::current_exe().unwrap();
    syscalls::traced(&traces, &exe, &[name, "--exact", "--test-threads=1"], &[(CHILD_ENV, out.to_str().unwrap())])
}

#[test]
fn write_atomic_syncs_the_file_before_and_the_directory_after_the_rename() {
    if let Some(dir) = child_dir() {
        write_atomic(&dir.join("state.json"), &[b"{\"generation\":", b"3}"]).unwrap();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let threads = trace_child(dir.path(), "write_atomic_syncs_the_file_before_and_the_directory_after_the_rename");
    assert_eq!(check_durable(&threads, &dir.path().join("out/state.json")), 1);
}

#[test]
fn a_chunk_syncs_both_files_before_and_the_directory_after_their_renames() {
    if let Some(dir) = child_dir() {
        let spec = common::spec();
        let (game, positions) = common::game(1, 4);
        write_chunk(&dir, "chunk-1", &spec, &positions, &[game]).unwrap();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let threads = trace_child(dir.path(), "a_chunk_syncs_both_files_before_and_the_directory_after_their_renames");
    let out = dir.path().join("out");
    let written: Vec<PathBuf> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(written.len(), 2, "{written:?}");
    for file in written {
        assert_eq!(check_durable(&threads, &file), 1, "{}", file.display());
    }
}
