//! Replays every committed fuzz corpus file (`fuzz/corpus/<target>/`) through
//! its target's invariant checks ([`pacozero_engine::paco::invariants`], `shako::invariants` and
//! `connect4::invariants`, the same
//! functions the libFuzzer targets call), so the inputs the fuzzers found
//! interesting keep guarding the engine in every `cargo test`, without
//! cargo-fuzz or a nightly toolchain.

use pacozero_engine::connect4::invariants as connect4_invariants;
use pacozero_engine::paco::invariants;
use pacozero_engine::shako::invariants as shako_invariants;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

fn corpus_dir(target: &str) -> PathBuf {
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    PathBuf::from(root).join("fuzz/corpus").join(target)
}

/// Runs `check` on every file of the target's corpus; fails naming every file
/// whose check panicked. Returns how many files were replayed.
fn replay(target: &str, check: fn(&[u8])) -> usize {
    let dir = corpus_dir(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the corpus {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| !p.is_dir())
        .collect();
    files.sort();
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
            catch_unwind(AssertUnwindSafe(|| check(&data))).err().map(|e| {
                let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                format!("{}: {msg}", f.display())
            })
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} corpus files of `{target}` break an invariant:\n{}", failures.len(), files.len(), failures.join("\n"));
    files.len()
}

#[test]
fn fen_corpus() {
    assert!(replay("fen", invariants::fen) > 100);
}

#[test]
fn notation_corpus() {
    assert!(replay("notation", invariants::notation) > 100);
}

#[test]
fn play_corpus() {
    assert!(replay("play", invariants::play) > 100);
}

#[test]
fn shako_corpus() {
    assert!(replay("shako", shako_invariants::play) > 100);
}

#[test]
fn connect4_corpus() {
    assert!(replay("connect4", connect4_invariants::play) > 90);
}
