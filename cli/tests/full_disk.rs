//! Full-disk tests: `pacozero loop`, `selfplay`, `train`, `book build` and
//! `league` run on a disk that fills up at a chosen write
//! (`PACOZERO_ENOSPC_AT`, see `pacozero_data::durable`: the write gets the
//! operating system's `ENOSPC` after writing half its first buffer, and so
//! does every later write of the process). Each command is started again
//! and again in one directory, each time with the disk filling up at
//! another kind of file (a chunk, a metrics row, a checkpoint, a model, the
//! `current` pointer, the loop's state, a JSON-lines log, a report), and
//! freed at the end. After every stop:
//!
//! * the process ended with status 1 and one `error:` line, which names the
//!   file and says "No space left on device" once (no panic);
//! * no file of the directory is partial: no `*.tmp` is left, every chunk,
//!   model, checkpoint, book, JSON and CSV file reads whole, and every
//!   appended log ends on a whole line.
//!
//! At the end the directory holds what an uninterrupted run writes: the same
//! games (every row of every position), the same training metrics and
//! weights, the same book, the same league pairs and ratings.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use pacozero_data::durable::ENOSPC_ENV;
use pacozero_data::{GameRow, PositionRow};
use pacozero_nn::modelfile::{read_container, CKPT_MAGIC, MODEL_MAGIC};

mod common;
use common::{bin, s, tiny_model_of, tiny_selfplay, tiny_train, write_config, TINY_NET};

/// `pacozero`, on one thread of rayon's: a league plays its pairs in rounds
/// of two a thread, and the tests fill the disk at a chosen round on any machine.
fn pacozero() -> Command {
    let mut c = bin();
    c.env("RAYON_NUM_THREADS", "1");
    c
}

/// Runs `pacozero args` to its end and asserts that it succeeded.
fn ok(args: &[&str]) -> Output {
    let out = pacozero().args(args).output().unwrap();
    assert!(out.status.success(), "pacozero {args:?} failed:\n{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    out
}

/// What one stop on a full disk showed.
struct Stop {
    /// Writes this process made before the one that found the disk full.
    writes_before: u64,
    /// The `error:` line.
    error: String,
}

/// Runs `pacozero args` with the disk full from the write `at` on (a
/// `PACOZERO_ENOSPC_AT` spec), and asserts that it stopped with one error
/// line that names `file` and says "No space left on device" once.
fn stops_on_a_full_disk(args: &[&str], at: &str, file: &str) -> Stop {
    let out = pacozero().args(args).env(ENOSPC_ENV, at).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let shown = format!("pacozero {args:?} with {ENOSPC_ENV}={at}:\n{}\n{err}", String::from_utf8_lossy(&out.stdout));
    let hook = err.lines().find_map(|l| l.strip_prefix(&format!("{ENOSPC_ENV}: the disk is full from write ")));
    let Some(hook) = hook else { panic!("the disk never filled up (no write of {at}): {shown}") };
    let writes_before = hook.split(' ').next().unwrap().parse::<u64>().unwrap() - 1;
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(!err.contains("panicked"), "{shown}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "one error line: {shown}");
    let error = errors[0].to_string();
    assert_eq!(error.matches("No space left on device").count(), 1, "says it once: {error}");
    assert!(error.contains(file), "names {file}: {error}");
    Stop { writes_before, error }
}

/// Runs `pacozero args` to its end on a disk with room; asserts that it
/// found no cut line to skip.
fn resumes(args: &[&str]) -> Output {
    let out = ok(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("incomplete last line") && !err.contains("cut"), "a stop left a cut line: {err}");
    out
}

/// Asserts that no file under `dir` is partial (see the module docs).
fn assert_whole(dir: &Path) {
    for entry in walk(dir) {
        let name = entry.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&entry).unwrap();
        let what = entry.display();
        assert!(!name.ends_with(".tmp"), "a temporary file is left: {what}");
        if name.ends_with(".games.parquet") {
            let folder = entry.parent().unwrap();
            let chunk =
                pacozero_data::list_chunks(folder).unwrap().into_iter().find(|c| c.games_path == entry).unwrap_or_else(|| panic!("{what} is not listed"));
            pacozero_data::read_chunk(&chunk).unwrap_or_else(|e| panic!("{what}: {e}"));
        } else if name.ends_with(".positions.parquet") {
            let games = entry.to_string_lossy().replace(".positions.parquet", ".games.parquet");
            assert!(Path::new(&games).exists(), "a positions file without its games file: {what}");
        } else if name.ends_with(".pzmodel") {
            read_container(&entry, MODEL_MAGIC, "model").unwrap_or_else(|e| panic!("{e}"));
        } else if name.ends_with(".pzckpt") {
            read_container(&entry, CKPT_MAGIC, "checkpoint").unwrap_or_else(|e| panic!("{e}"));
        } else if name == "current" {
            pacozero_nn::read_model_header(&pacozero_nn::current_model(entry.parent().unwrap().parent().unwrap()).unwrap()).unwrap();
        } else if name.ends_with(".json") {
            serde_json::from_slice::<serde_json::Value>(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        } else if name.ends_with(".jsonl") {
            assert!(bytes.is_empty() || bytes.ends_with(b"\n"), "{what} ends in a cut line");
            for l in String::from_utf8(bytes).unwrap().lines() {
                serde_json::from_str::<serde_json::Value>(l).unwrap_or_else(|e| panic!("{what}: {e}: {l}"));
            }
        } else if name.ends_with(".csv") {
            let text = String::from_utf8(bytes).unwrap();
            assert!(text.ends_with('\n'), "{what} ends in a cut line");
            let columns = text.lines().next().unwrap().split(',').count();
            assert!(text.lines().all(|l| l.split(',').count() == columns), "{what}: a row with another number of columns");
        } else if name.starts_with("events.out.tfevents.") {
            assert_whole_records(&bytes, &entry);
        } else if name.ends_with(".book.parquet") {
            pacozero_data::book::read_book(&entry).unwrap_or_else(|e| panic!("{what}: {e}"));
        }
    }
}

/// TensorBoard records (u64 length, its CRC, the data, its CRC) that end
/// exactly at the end of the file.
fn assert_whole_records(bytes: &[u8], path: &Path) {
    let mut at = 0usize;
    while at < bytes.len() {
        assert!(at + 12 <= bytes.len(), "{}: a cut record head at byte {at}", path.display());
        let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
        at += 12 + len + 4;
        assert!(at <= bytes.len(), "{}: a cut record", path.display());
    }
}

/// Every file under `dir`, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every game and position of the chunks in `data`, in game-id order (chunk
/// names carry the time they were written; their rows do not).
fn games_of(data: &Path) -> (Vec<GameRow>, Vec<PositionRow>) {
    let (mut games, mut positions) = (Vec::new(), Vec::new());
    for c in pacozero_data::list_chunks(data).unwrap() {
        let (_, p, g) = pacozero_data::read_chunk(&c).unwrap();
        games.extend(g);
        positions.extend(p);
    }
    games.sort_by(|a, b| (a.game_id, &a.white, &a.black, a.seed).cmp(&(b.game_id, &b.white, &b.black, b.seed)));
    positions.sort_by_key(|p| (p.game_id, p.ply));
    (games, positions)
}

/// Asserts that the chunks in `got` hold the games and positions of those
/// in `expected`.
fn assert_same_games(got: &Path, expected: &Path) {
    let (g1, p1) = games_of(got);
    let (g2, p2) = games_of(expected);
    assert!(!g2.is_empty());
    assert!(
        g1 == g2,
        "the games of an uninterrupted run: {} and {} games; first differing: {:?}",
        g1.len(),
        g2.len(),
        g1.iter().zip(&g2).find(|(a, b)| a != b)
    );
    assert!(p1 == p2, "the positions of an uninterrupted run ({} and {} rows)", p1.len(), p2.len());
}

/// Asserts that the match records in `got` are the games in `expected`;
/// a match game's id is the time it was recorded, so they are compared
/// by their players and seeds.
fn assert_same_match_games(got: &Path, expected: &Path) {
    let games = |dir: &Path| {
        let mut g: Vec<GameRow> = games_of(dir).0.into_iter().map(|g| GameRow { game_id: 0, ..g }).collect();
        g.sort_by(|a, b| (a.seed, &a.white, &a.black).cmp(&(b.seed, &b.white, &b.black)));
        g
    };
    let (g1, g2) = (games(got), games(expected));
    assert!(!g2.is_empty());
    assert!(
        g1 == g2,
        "the games of an uninterrupted league: {} and {} games; first differing: {:?}",
        g1.len(),
        g2.len(),
        g1.iter().zip(&g2).find(|(a, b)| a != b)
    );
}

/// `metrics.csv` without the columns that measure time.
fn metrics_of(run: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let timed = header.iter().position(|c| *c == "samples_per_sec").unwrap();
    text.lines().map(|l| l.split(',').enumerate().filter(|(i, _)| *i != timed).map(|(_, v)| v).collect::<Vec<_>>().join(",")).collect()
}

/// Asserts that models `a` and `b` have the same weights: they play the same
/// games, every position's search values and policy alike. (Their bytes
/// differ: a model's file records its parameters' ids, which are drawn
/// anew when a checkpoint is loaded.)
fn assert_same_weights(a: &Path, b: &Path, scratch: &Path) {
    let cfg = write_config(scratch, "same-weights.toml", &tiny_selfplay(9));
    let play = |model: &Path, out: &str| {
        let out = scratch.join(out);
        ok(&["selfplay", "--config", s(&cfg), "--model", s(model), "--out", s(&out), "--games", "2", "--quiet"]);
        out
    };
    let (ga, gb) = (play(a, "games-a"), play(b, "games-b"));
    assert_same_games(&ga, &gb);
}

/// Runs `args` through `stops` (each a `PACOZERO_ENOSPC_AT` spec and the
/// file its error must name), starting again after each stop with
/// `args_after(stop index)`, then once more on a disk with room; checks the
/// directory `dir` after every stop. Prints the figures of each stop.
fn stop_and_resume(what: &str, dir: &Path, stops: &[(&str, &str)], mut args_after: impl FnMut(usize) -> Vec<String>) {
    for (i, (at, file)) in stops.iter().enumerate() {
        let args = args_after(i);
        let t0 = Instant::now();
        let stop = stops_on_a_full_disk(&args.iter().map(String::as_str).collect::<Vec<_>>(), at, file);
        assert_whole(dir);
        eprintln!("{what}: full at {at}: stopped after {} writes, {:.1} s: {}", stop.writes_before, t0.elapsed().as_secs_f64(), stop.error);
    }
    let args = args_after(stops.len());
    let t0 = Instant::now();
    resumes(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_whole(dir);
    eprintln!("{what}: resumed to the end in {:.1} s", t0.elapsed().as_secs_f64());
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

#[test]
fn selfplay_on_a_full_disk_stops_cleanly_and_resumes_to_the_same_games() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "selfplay.toml", &tiny_selfplay(5));
    let args = |out: &Path| strings(&["selfplay", "--config", s(&cfg), "--out", s(out), "--games", "8", "--evaluator", "uniform", "--quiet"]);
    let clean = dir.path().join("clean");
    ok(&args(&clean).iter().map(String::as_str).collect::<Vec<_>>());

    let data = dir.path().join("run");
    // A games file, then a positions file, each in the middle of a run.
    let stops = [("*.games.parquet:3", ".games.parquet"), ("*.positions.parquet:2", ".positions.parquet")];
    stop_and_resume("selfplay", &data, &stops, |_| args(&data));
    assert_same_games(&data, &clean);
}

#[test]
fn train_on_a_full_disk_stops_cleanly_and_resumes_to_the_same_metrics_and_weights() {
    let dir = tempfile::tempdir().unwrap();
    let sp = write_config(dir.path(), "selfplay.toml", &tiny_selfplay(5));
    let cfg = write_config(dir.path(), "train.toml", &tiny_train("metrics_every = 1\ncheckpoint_every = 3\n"));
    let games = dir.path().join("games");
    ok(&["selfplay", "--config", s(&sp), "--out", s(&games), "--games", "6", "--evaluator", "uniform", "--quiet"]);
    let steps = 12u64;
    // The same games in each run directory.
    let new_run = |name: &str| {
        let run = dir.path().join(name);
        std::fs::create_dir_all(run.join("data")).unwrap();
        for f in walk(&games) {
            std::fs::copy(&f, run.join("data").join(f.file_name().unwrap())).unwrap();
        }
        run
    };
    let clean = new_run("clean");
    let args = |run: &Path, steps: u64| strings(&["train", "--run", s(run), "--config", s(&cfg), "--steps", &steps.to_string(), "--export", "m", "--quiet"]);
    ok(&args(&clean, steps).iter().map(String::as_str).collect::<Vec<_>>());

    let run = new_run("run");
    // Each start trains what its checkpoint lacks of the 12 steps.
    let remaining = |run: &Path| {
        let ckpt = pacozero_train::checkpoint_path(run);
        let done = if ckpt.exists() { read_container(&ckpt, CKPT_MAGIC, "checkpoint").unwrap().0["step"].as_u64().unwrap() } else { 0 };
        steps - done
    };
    let stops = [
        // The first checkpoint: the metrics rows before it are written again
        // by a run that starts over from step 0.
        ("latest.pzckpt", "latest.pzckpt"),
        ("latest.pzckpt:2", "latest.pzckpt"),
        ("metrics.csv:2", "metrics.csv"),
        ("events.out.tfevents.*:3", "events.out.tfevents."),
        ("m.pzmodel", "m.pzmodel"),
        ("current", "current"),
    ];
    stop_and_resume("train", &run, &stops, |_| args(&run, remaining(&run)));
    assert_eq!(metrics_of(&run), metrics_of(&clean), "the metrics of an uninterrupted run");
    let model = |run: &Path| pacozero_nn::models_dir(run).join("m.pzmodel");
    assert_same_weights(&model(&run), &model(&clean), dir.path());
    assert!(pacozero_nn::current_model(&run).unwrap().ends_with("m.pzmodel"));
}

/// A loop of two generations of four games and six training steps.
fn loop_config() -> String {
    format!(
        r#"
[loop]
generations = 2
games_per_generation = 4
train_steps_per_generation = 6
gating_games = 2
eval_simulations = 4
promotion = "always"
baseline_games = 2
baseline_simulations = 4
max_decisions = 40
seed = 3

[selfplay]
threads = 1
games_per_thread = 2
games_per_chunk = 1
max_decisions = 40
start_positions = "fischer_random"

[selfplay.search]
full_simulations = 8
cheap_simulations = 4
{TINY_NET}
[train]
batch_size = 16
warmup_steps = 1
min_positions = 1
checkpoint_every = 2
plot_every = 0
threads = 1
progress = false
"#
    )
}

#[test]
fn loop_on_a_full_disk_stops_cleanly_and_resumes_to_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "loop.toml", &loop_config());
    let args = |run: &Path| strings(&["loop", "--config", s(&cfg), "--run", s(run)]);
    let clean = dir.path().join("clean");
    let t0 = Instant::now();
    ok(&args(&clean).iter().map(String::as_str).collect::<Vec<_>>());
    eprintln!("loop: an uninterrupted run in {:.1} s", t0.elapsed().as_secs_f64());

    let run = dir.path().join("run");
    // Every kind of file the loop writes, in the order the run reaches them.
    let stops = [
        ("config.toml", "config.toml"),
        ("*.games.parquet:3", ".games.parquet"),
        ("state.json", "state.json"),
        ("metrics.csv:3", "metrics.csv"),
        ("latest.pzckpt:2", "latest.pzckpt"),
        ("events.out.tfevents.*:2", "events.out.tfevents."),
        ("gen-0001.pzmodel", "gen-0001.pzmodel"),
        ("generations.jsonl", "generations.jsonl"),
        ("matches.jsonl", "matches.jsonl"),
        ("ratings.csv", "ratings.csv"),
        ("current", "current"),
        ("report.html", "report.html"),
        ("*.positions.parquet:2", ".positions.parquet"),
        ("*.svg", ".svg"),
    ];
    stop_and_resume("loop", &run, &stops, |_| args(&run));
    assert_same_games(&run.join("data"), &clean.join("data"));
    assert_eq!(metrics_of(&run), metrics_of(&clean), "the metrics of an uninterrupted run");
    for f in ["ratings.csv", "state.json"] {
        let text = |r: &Path| std::fs::read_to_string(r.join(f)).unwrap();
        let (a, b) = (text(&run), text(&clean));
        // state.json records where the run is, not when: the same but for the paths.
        assert_eq!(a.replace(s(&run), "RUN"), b.replace(s(&clean), "RUN"), "{f} of an uninterrupted run");
    }
    let last = |r: &Path| pacozero_nn::models_dir(r).join("gen-0002.pzmodel");
    assert_same_weights(&last(&run), &last(&clean), dir.path());
}

const BOOK_CFG: &str = r#"
seed = 3
positions = 12
simulations = 24
batch_positions = 4
max_depth = 4
max_moves_per_position = 4
min_move_visits = 1
save_every = 5
"#;

#[test]
fn book_build_on_a_full_disk_stops_cleanly_and_resumes_to_the_same_book() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model_of::<pacozero_engine::paco::GameState>(dir.path(), "tiny");
    let cfg = write_config(dir.path(), "book.toml", BOOK_CFG);
    let args = |out: &Path| strings(&["book", "build", "--model", s(&model), "--config", s(&cfg), "--out", s(out), "--fischer-random", "1", "--quiet"]);
    let clean = dir.path().join("clean.book.parquet");
    ok(&args(&clean).iter().map(String::as_str).collect::<Vec<_>>());

    let out_dir = dir.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let book = out_dir.join("b.book.parquet");
    // The first save (8 positions), then the last (12) over the first.
    let stops = [("b.book.parquet", "b.book.parquet"), ("b.book.parquet:2", "b.book.parquet")];
    stop_and_resume("book build", &out_dir, &stops, |_| args(&book));
    let read = |p: &Path| pacozero_data::book::read_book(p).unwrap();
    assert_eq!(read(&book), read(&clean), "the book of an uninterrupted build");
}

#[test]
fn league_on_a_full_disk_stops_cleanly_and_resumes_to_the_same_pairs_and_ratings() {
    let dir = tempfile::tempdir().unwrap();
    let args = |out: &Path| {
        strings(&[
            "league",
            "--players",
            "random",
            "greedy",
            "rollout:4",
            "--out",
            s(out),
            "--pairs",
            "4",
            "--max-decisions",
            "30",
            "--anchor",
            "random",
            "--quiet",
        ])
    };
    let clean = dir.path().join("clean");
    ok(&args(&clean).iter().map(String::as_str).collect::<Vec<_>>());

    let league = dir.path().join("league");
    let stops = [
        ("*.games.parquet:2", ".games.parquet"),
        ("league.jsonl:2", "league.jsonl"),
        // The second append of a start: a round's lines go in one append,
        // so no round is cut in two (its games would stay in its chunk,
        // and be played again in another).
        ("league.jsonl:3", "league.jsonl"),
        ("ratings.csv", "ratings.csv"),
        ("ratings.svg", "ratings.svg"),
        ("report.html", "report.html"),
    ];
    stop_and_resume("league", &league, &stops, |_| args(&league));
    let pairs = |l: &Path| {
        let mut v: Vec<String> = std::fs::read_to_string(l.join("league.jsonl")).unwrap().lines().map(str::to_string).collect();
        v.sort();
        v
    };
    assert_eq!(pairs(&league), pairs(&clean), "the pairs of an uninterrupted league");
    for f in ["ratings.csv", "ratings.json", "ratings.md"] {
        let text = |l: &Path| std::fs::read_to_string(l.join(f)).unwrap();
        assert_eq!(text(&league), text(&clean), "{f} of an uninterrupted league");
    }
    assert_same_match_games(&league.join("games"), &clean.join("games"));
}
