//! The checks that the fuzz targets of `fuzz/` run on each input (`chunk`,
//! `book`), kept here so that `cargo test` replays the
//! committed corpora through the same code (`run/tests/fuzz_corpus.rs`).
//! Not an API: each function panics when a reader breaks one of its
//! promises: an error names the file; what is read passes the reader's own
//! checks and reads back the same after the writer has written it. Each
//! returns whether the reader took the input.

use std::path::{Path, PathBuf};

use crate::book::{read_book, write_book};
use crate::{read_games_file, read_positions_file, write_chunk};

/// The stem every input file is written under: every error must name it.
const INPUT: &str = "fuzz-input";

/// Wraps the panic hook (libFuzzer's aborts the process) so that a panic of
/// the Parquet crate inside the readers' guard (`bounded.rs`, `guarded`)
/// unwinds to the guard, which turns it into an error naming the file, as
/// it does for users; every other panic still reaches the hook. The `chunk`
/// and `book` targets call it once, in their `init`.
pub fn let_guarded_panics_unwind() {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !crate::decoding_guarded() {
            hook(info)
        }
    }));
}

/// A directory of this thread's own for the files a check writes (the
/// readers take paths), on a RAM disk where there is one: the writers sync
/// every file, which costs nothing there. Removed when the thread ends (a
/// fuzzer's main thread never ends: its directory stays, a few kB).
pub fn scratch_dir() -> PathBuf {
    struct Scratch(PathBuf);
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    thread_local! {
        static DIR: Scratch = {
            static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let shm = Path::new("/dev/shm");
            let base = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
            let dir = base.join(format!("pacozero-fuzz-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create the scratch directory {}: {e}", dir.display()));
            Scratch(dir)
        };
    }
    DIR.with(|d| d.0.clone())
}

/// Writes `data` as the file `name` of [`scratch_dir`] and returns its path.
pub fn scratch_file(name: &str, data: &[u8]) -> PathBuf {
    let path = scratch_dir().join(name);
    std::fs::write(&path, data).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    path
}

/// Panics unless an error message names the input file.
pub fn assert_names_input(message: &str) {
    assert!(message.contains(INPUT), "an error that does not name the file: {message}");
}

/// Any bytes as a chunk's positions file and as its games file.
pub fn chunk(data: &[u8]) -> bool {
    let path = scratch_file(&format!("{INPUT}.parquet"), data);
    let positions = match read_positions_file(&path) {
        Err(e) => {
            assert_names_input(&e.to_string());
            false
        }
        Ok((spec, rows)) => {
            spec.validate().unwrap_or_else(|e| panic!("a positions file read with a spec that fails its own check: {e}"));
            for (i, row) in rows.iter().enumerate() {
                row.check(&spec).unwrap_or_else(|e| panic!("row {i} read from a positions file fails its own check: {e}"));
            }
            let written = write_chunk(&scratch_dir(), "round-trip", &spec, &rows, &[]).unwrap_or_else(|e| panic!("rows read cannot be written: {e}"));
            let (spec_again, rows_again) = read_positions_file(&written.positions).unwrap_or_else(|e| panic!("written rows do not read: {e}"));
            assert_eq!(spec_again, spec, "a positions file's spec changed through writing and reading");
            assert!(rows_again == rows, "a positions file's rows changed through writing and reading");
            true
        }
    };
    let games = match read_games_file(&path) {
        Err(e) => {
            assert_names_input(&e.to_string());
            false
        }
        Ok((spec, games)) => {
            let written = write_chunk(&scratch_dir(), "round-trip", &spec, &[], &games).unwrap_or_else(|e| panic!("games read cannot be written: {e}"));
            let (spec_again, games_again) = read_games_file(&written.games).unwrap_or_else(|e| panic!("written games do not read: {e}"));
            assert_eq!((spec_again, games_again), (spec, games), "a games file changed through writing and reading");
            true
        }
    };
    positions || games
}

/// Any bytes as an opening book (`pacozero book build`'s Parquet file).
pub fn book(data: &[u8]) -> bool {
    let path = scratch_file(&format!("{INPUT}.book.parquet"), data);
    let (info, positions) = match read_book(&path) {
        Ok(book) => book,
        Err(e) => {
            assert_names_input(&e.to_string());
            return false;
        }
    };
    let again = scratch_dir().join("round-trip.book.parquet");
    write_book(&again, &info, &positions).unwrap_or_else(|e| panic!("a book read cannot be written: {e}"));
    let read_again = read_book(&again).unwrap_or_else(|e| panic!("a written book does not read: {e}"));
    assert!(read_again == (info, positions), "a book changed through writing and reading");
    true
}
