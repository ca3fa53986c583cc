//! Replays every committed corpus file of the fuzz targets in `fuzz/`
//! (`fuzz/corpus/<target>/`) through its target's check (the
//! `fuzz_checks` modules of the crates, the same functions the libFuzzer
//! targets call), so the inputs the fuzzers found interesting keep guarding
//! the readers of outside files in every `cargo test`, without cargo-fuzz
//! or a nightly toolchain. (The engine's targets: engine/tests/fuzz_corpus.rs.)

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

fn corpus_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus").join(target)
}

/// Runs `check` on every file of the target's corpus; fails naming every
/// file whose check panicked. Returns how many files were replayed and how
/// many of them the reader took (the seeds are real files: some must read).
fn replay(target: &str, check: fn(&[u8]) -> bool) -> (usize, usize) {
    let dir = corpus_dir(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the corpus {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| !p.is_dir())
        .collect();
    files.sort();
    let mut read = 0;
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            // A fuzzer running on this corpus may remove files as it minimises
            // them; any other file that cannot be read fails the replay.
            let data = match std::fs::read(f) {
                Ok(d) => d,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
                Err(e) => return Some(format!("{}: cannot read it: {e}", f.display())),
            };
            match catch_unwind(AssertUnwindSafe(|| check(&data))) {
                Ok(taken) => {
                    read += usize::from(taken);
                    None
                }
                Err(e) => {
                    let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                    Some(format!("{}: {msg}", f.display()))
                }
            }
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} corpus files of `{target}` break an invariant:\n{}", failures.len(), files.len(), failures.join("\n"));
    (files.len(), read)
}

/// Replays the corpus of `target`: at least `seeds` files, of which the
/// reader takes at least `taken`.
fn replay_at_least(target: &str, check: fn(&[u8]) -> bool, seeds: usize, taken: usize) {
    let (files, read) = replay(target, check);
    assert!(files >= seeds, "the corpus of `{target}` has {files} files, fewer than its {seeds} seeds");
    assert!(read >= taken, "the reader of `{target}` took {read} of its {files} corpus files, fewer than {taken}");
}

#[test]
fn model_corpus() {
    replay_at_least("model", pacozero_nn::fuzz_checks::model_file, 2, 2);
}

#[test]
fn checkpoint_corpus() {
    replay_at_least("checkpoint", pacozero_train::fuzz_checks::checkpoint, 2, 2);
}

#[test]
fn chunk_corpus() {
    replay_at_least("chunk", pacozero_data::fuzz_checks::chunk, 4, 4);
}

#[test]
fn book_corpus() {
    replay_at_least("book", pacozero_data::fuzz_checks::book, 2, 2);
}

#[test]
fn platform_book_corpus() {
    replay_at_least("platform_book", pacozero_platform::fuzz_checks::platform_book, 2, 2);
}

#[test]
fn config_corpus() {
    replay_at_least("config", pacozero_run::fuzz_checks::config_with_sets, 2, 2);
}

#[test]
fn state_corpus() {
    replay_at_least("state", pacozero_run::fuzz_checks::state_file, 2, 2);
}

#[test]
fn matches_corpus() {
    replay_at_least("matches", pacozero_run::fuzz_checks::matches_file, 2, 2);
}

#[test]
fn league_corpus() {
    replay_at_least("league", pacozero_run::fuzz_checks::league_file, 2, 2);
}

#[test]
fn uci_corpus() {
    replay_at_least("uci", pacozero_run::fuzz_checks::uci_lines, 2, 2);
}

#[test]
fn analysis_corpus() {
    replay_at_least("analysis", pacozero_run::fuzz_checks::analysis_lines, 2, 2);
}
