//! Bad input of every kind a user can give — positions, notation,
//! configuration files, data and model files of another version, truncated or
//! corrupt files, run directories with missing or broken pieces — ends the
//! command with a non-zero status and one message naming the file (or field)
//! and the problem, never a panic.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::OnceLock;

mod common;
use common::{bin, output_text, s, write_config, TINY_NET};

const TINY_SELFPLAY: &str =
    "seed = 3\nthreads = 1\ngames_per_thread = 2\ngames_per_chunk = 2\nmax_decisions = 30\n\n[search]\nfull_simulations = 4\ncheap_simulations = 2\n";

/// The fixture's training configuration: batches of 8 positions.
fn tiny_train() -> String {
    format!("{TINY_NET}\n[train]\nbatch_size = 8\nwarmup_steps = 1\nmin_positions = 1\nprogress = false\nplot_every = 0\n")
}

fn run(args: &[&str]) -> Output {
    bin().args(args).stdin(Stdio::null()).output().unwrap()
}

fn ok(args: &[&str]) -> Output {
    let out = run(args);
    assert!(out.status.success(), "pacozero {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    out
}

/// The command fails with exit status 1 (an error it reports, not a signal,
/// not a usage error), without a panic, and its message contains every `needle`.
#[track_caller]
fn fails_with(args: &[&str], needles: &[&str]) -> String {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "pacozero {args:?} should fail with exit status 1, not {}; stderr:\n{err}", out.status);
    assert!(!err.contains("panicked"), "pacozero {args:?} panicked:\n{err}");
    for n in needles {
        assert!(err.contains(n), "pacozero {args:?}: the message lacks {n:?}:\n{err}");
    }
    err
}

/// `pacozero args` is refused by the argument parser (exit status 2, a
/// usage error) with a message holding every needle.
fn usage_error(args: &[&str], needles: &[&str]) {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "pacozero {args:?} should be a usage error (exit status 2), not {}; stderr:\n{err}", out.status);
    for n in needles {
        assert!(err.contains(n), "pacozero {args:?}: the message lacks {n:?}:\n{err}");
    }
}

/// A run directory with data (two chunks), a checkpoint and a current model
/// `m`, made once; tests copy what they break.
struct Fixture {
    _dir: tempfile::TempDir,
    run: PathBuf,
    selfplay_cfg: PathBuf,
    train_cfg: PathBuf,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let selfplay_cfg = write_config(dir.path(), "selfplay.toml", TINY_SELFPLAY);
        let train_cfg = write_config(dir.path(), "train.toml", &tiny_train());
        ok(&["selfplay", "--config", s(&selfplay_cfg), "--run", s(&run), "--games", "4", "--evaluator", "uniform", "--quiet"]);
        ok(&["train", "--run", s(&run), "--config", s(&train_cfg), "--steps", "2", "--export", "m"]);
        Fixture { _dir: dir, run, selfplay_cfg, train_cfg }
    })
}

/// A copy of the fixture's run directory.
fn copy_run(to: &Path) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let run = to.join("run");
    copy(&fixture().run, &run);
    run
}

fn newest_chunk(run: &Path) -> pacozero_data::ChunkInfo {
    pacozero_data::list_chunks(&run.join("data")).unwrap().pop().unwrap()
}

/// Rewrites the `schema_version` value of a Parquet file's key-value
/// metadata from this build's version to the next (Thrift compact: key
/// string, then the value string of length 1), as a file of a later build
/// would have it.
fn bump_schema_version(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let (now, next) = (pacozero_data::SCHEMA_VERSION.to_string(), (pacozero_data::SCHEMA_VERSION + 1).to_string());
    assert_eq!((now.len(), next.len()), (1, 1), "one-digit versions");
    let mut pat = b"schema_version\x18\x01".to_vec();
    pat.extend_from_slice(now.as_bytes());
    let mut n = 0;
    for i in 0..bytes.len() - pat.len() {
        if bytes[i..i + pat.len()] == pat[..] {
            bytes[i + pat.len() - 1] = next.as_bytes()[0];
            n += 1;
        }
    }
    assert!(n > 0, "no schema_version metadata found in {}", path.display());
    std::fs::write(path, bytes).unwrap();
}

fn truncate(path: &Path, keep: f64) {
    let bytes = std::fs::read(path).unwrap();
    std::fs::write(path, &bytes[..(bytes.len() as f64 * keep) as usize]).unwrap();
}

// ---- positions and notation ----

#[test]
fn bad_fens_name_the_problem() {
    // Nine pawns on a rank.
    fails_with(
        &["perft", "--fen", "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -", "--depth", "1"],
        &["board field", "rank 7 has more than 8 squares"],
    );
    // A missing field.
    fails_with(&["show", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"], &["FEN side field", "expected at least 5 space-separated fields, found 1"]);
    // An unknown piece letter.
    fails_with(
        &["show", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN9 w 0 AHah - -"],
        &["FEN board field at character 43", "'9' is not a run of 1-8 empty squares"],
    );
    fails_with(&["perft", "--game", "shako", "--fen", "not a fen", "--depth", "1"], &["FEN \"not a fen\"", "en passant field: missing"]);
}

#[test]
fn bad_actions_name_the_action() {
    fails_with(&["show", "--actions", "Le2 Pe9"], &["'Le2 Pe9' at character 6", "expected a square a1..h8"]);
    fails_with(&["show", "--actions", "Le2 Pe5"], &["action 2 (Pe5)", "is not legal here"]);
}

#[test]
fn bad_chain_notation_in_play_gets_a_message_not_a_crash() {
    let model = fixture().run.join("models/m.pzmodel");
    let mut child = bin()
        .args(["play", "--model", s(&model), "--sims", "2", "--color", "w"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"Bz9-c3\ne2-e5\nquit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = output_text(&out);
    assert!(out.status.success() && !text.contains("panicked"), "{text}");
    assert!(text.contains("Bz9-c3") && text.contains("e2-e5"), "each bad turn is answered:\n{text}");
}

// ---- configuration files ----

#[test]
fn bad_selfplay_configs_name_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("sp.toml");
    let out = dir.path().join("out");
    for (text, key) in [
        ("bogus_key = 1\n", "bogus_key"),
        ("games_per_thread = 0\n", "games_per_thread"),
        ("seed = \"seven\"\n", "seed"),
        ("[search]\nfull_simulations = -3\n", "full_simulations"),
        ("threads = 1\nthreads = 2\n", "threads"),
        ("playout_mix = 1.5\n", "playout_mix"),
    ] {
        std::fs::write(&cfg, text).unwrap();
        fails_with(&["selfplay", "--config", s(&cfg), "--out", s(&out), "--games", "1", "--quiet"], &["sp.toml", key]);
    }
    fails_with(&["selfplay", "--config", s(&dir.path().join("missing.toml")), "--games", "1"], &["missing.toml", "No such file or directory"]);
}

#[test]
fn bad_train_configs_name_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_run(dir.path());
    let cfg = dir.path().join("tr.toml");
    for (text, key) in [
        ("[train]\nbogus_key = 1\n", "bogus_key"),
        ("[train]\nbatch_size = 0\n", "batch_size"),
        ("[train]\nlr = \"fast\"\n", "lr"),
        ("[net]\nblocks = 0\n", "blocks"),
        ("[net]\nchannels = \"many\"\n", "channels"),
        ("[nett]\nblocks = 1\n", "nett"),
    ] {
        std::fs::write(&cfg, text).unwrap();
        fails_with(&["train", "--run", s(&run), "--config", s(&cfg), "--steps", "1"], &["tr.toml", key]);
    }
}

#[test]
fn bad_loop_configs_name_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("lp.toml");
    for (i, (text, key)) in [
        ("[loop]\nbogus_key = 1\n", "bogus_key"),
        ("[loop]\ngating_games = 3\n", "gating_games"),
        ("[loop]\nanchor_games = 5\n", "anchor_games"),
        ("[selfplay]\nplayout_mix = -0.1\n", "playout_mix"),
        ("[loop]\ngenerations = \"two\"\n", "generations"),
        ("[selfplay]\nmax_decisions = 0\n", "max_decisions"),
        ("[net]\nblocks = 0\n", "blocks"),
        ("[train]\nbatch_size = 0\n", "batch_size"),
    ]
    .into_iter()
    .enumerate()
    {
        std::fs::write(&cfg, text).unwrap();
        let run = dir.path().join(format!("run{i}"));
        fails_with(&["loop", "--config", s(&cfg), "--run", s(&run)], &["lp.toml", key]);
        assert!(!run.join("config.toml").exists(), "a refused configuration is not copied into the run");
    }
}

// ---- data files ----

#[test]
fn data_of_another_schema_version_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_run(dir.path());
    let chunk = newest_chunk(&run);
    bump_schema_version(&chunk.positions_path);
    bump_schema_version(&chunk.games_path);
    let name = chunk.positions_path.file_name().unwrap().to_str().unwrap().to_string();
    let f = fixture();
    // Training refuses to read it...
    let later = format!("schema_version {}", pacozero_data::SCHEMA_VERSION + 1);
    fails_with(&["train", "--run", s(&run), "--config", s(&f.train_cfg), "--steps", "1"], &[&name, &later]);
    // ... and a worker refuses to add games to that run, whatever its output flag.
    fails_with(&["selfplay", "--config", s(&f.selfplay_cfg), "--run", s(&run), "--games", "1", "--quiet"], &[&name, &later]);
    fails_with(&["selfplay", "--config", s(&f.selfplay_cfg), "--out", s(&run.join("data")), "--games", "1", "--quiet"], &[&name, &later, "is not supported"]);
    let before = pacozero_data::list_chunks(&run.join("data")).unwrap().len();
    assert_eq!(before, 2, "nothing was written");
}

#[test]
fn data_of_another_game_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_run(dir.path());
    fails_with(
        &["selfplay", "--game", "shako", "--config", s(&fixture().selfplay_cfg), "--run", s(&run), "--games", "1", "--quiet"],
        &["data holds paco data", "not shako", "--game"],
    );
}

#[test]
fn truncated_or_corrupt_data_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture();
    let run = copy_run(dir.path());
    // The checkpoint's window is reloaded from the chunks: start training afresh.
    std::fs::remove_dir_all(run.join("checkpoints")).unwrap();
    let chunk = newest_chunk(&run);
    truncate(&chunk.positions_path, 0.5);
    let name = chunk.positions_path.file_name().unwrap().to_str().unwrap().to_string();
    fails_with(&["train", "--run", s(&run), "--config", s(&f.train_cfg), "--steps", "1"], &[&name, "truncated or corrupt"]);
    // Garbage with a Parquet name.
    std::fs::write(&chunk.positions_path, b"PAR1 this is not parquet PAR1").unwrap();
    fails_with(&["train", "--run", s(&run), "--config", s(&f.train_cfg), "--steps", "1"], &[&name, "truncated or corrupt"]);
    fails_with(&["selfplay", "--config", s(&f.selfplay_cfg), "--run", s(&run), "--games", "1", "--quiet"], &[&name, "truncated or corrupt"]);
    // A truncated games file: a worker adding games to the run names it.
    let run = copy_run(&dir.path().join("b"));
    let chunk = newest_chunk(&run);
    truncate(&chunk.games_path, 0.3);
    let gname = chunk.games_path.file_name().unwrap().to_str().unwrap().to_string();
    fails_with(&["selfplay", "--config", s(&f.selfplay_cfg), "--run", s(&run), "--games", "1", "--quiet"], &[&gname, "truncated or corrupt"]);
}

// ---- model files ----

#[test]
fn broken_model_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let good = fixture().run.join("models/m.pzmodel");
    let bytes = std::fs::read(&good).unwrap();
    let m = dir.path().join("broken.pzmodel");
    let player = format!("net:{}:2", m.display());
    let arena = ["arena", "--players", &player, "random", "--games", "2", "--max-decisions", "10"];

    std::fs::write(&m, &bytes[..bytes.len() / 2]).unwrap();
    fails_with(&arena, &["broken.pzmodel", "truncated model file"]);
    let mut bad = bytes.clone();
    let last = bad.len() - 10;
    bad[last] ^= 0xFF;
    std::fs::write(&m, &bad).unwrap();
    fails_with(&arena, &["broken.pzmodel", "checksum mismatch in section `model`"]);
    let mut v2 = bytes.clone();
    v2[8] = 2;
    std::fs::write(&m, &v2).unwrap();
    fails_with(&arena, &["broken.pzmodel", "model format version 2 is not supported"]);
    std::fs::write(&m, b"not a model").unwrap();
    fails_with(&arena, &["broken.pzmodel", "not a PacoZero model"]);
    // A checkpoint is not a model.
    std::fs::copy(fixture().run.join("checkpoints/latest.pzckpt"), &m).unwrap();
    fails_with(&arena, &["broken.pzmodel", "bad magic bytes (it is a checkpoint file)"]);
    fails_with(
        &["arena", "--players", "net:/nonexistent/x.pzmodel", "random", "--games", "2"],
        &["player 'net:/nonexistent/x.pzmodel'", "/nonexistent/x.pzmodel does not exist"],
    );
}

/// A model whose header declares a 1.1 TB policy layer, read by every
/// kind of loader under 2 GiB of address space: one message naming the
/// file and the field, not an abort (before the check:
/// `memory allocation of 1099511627776 bytes failed`).
#[test]
fn a_model_header_that_declares_more_than_the_file_holds_allocates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = std::fs::read(common::manifest_dir().join("../models/reference/quick-edd488c-gen71.pzmodel")).unwrap();
    let huge = pacozero_nn::fuzz_checks::with_net(&data, |net| {
        for (k, v) in [("policy_channels", 1024), ("height", 64), ("width", 64), ("policy_size", 65536)] {
            net[k] = v.into();
        }
    });
    let m = dir.path().join("huge.pzmodel");
    std::fs::write(&m, &huge).unwrap();
    let onnx = dir.path().join("huge.onnx");
    let player = format!("net:{}:4", m.display());
    let run_limited = |args: &[&str]| {
        let mut c = common::bin();
        c.args(args).stdin(Stdio::null());
        common::limit_address_space(&mut c, 2 << 30);
        c.output().unwrap()
    };
    for args in [
        vec!["analyze", "--model", m.to_str().unwrap()],
        vec!["export", "--format", "onnx", "--model", m.to_str().unwrap(), "--out", onnx.to_str().unwrap()],
        vec!["arena", "--players", &player, "random", "--games", "2", "--quiet"],
        vec!["tactics", "solve", "--model", m.to_str().unwrap(), "--visits", "4"],
    ] {
        let out = run_limited(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", output_text(&out));
        assert!(err.contains(&format!("{}: header field `net` declares ", m.display())) && !err.contains("memory allocation"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one message: {err}");
    }
    assert!(!onnx.exists(), "nothing exported");
    // The file as it was loads under the same limit.
    std::fs::write(&m, &data).unwrap();
    let out = run_limited(&["export", "--format", "onnx", "--model", m.to_str().unwrap(), "--out", onnx.to_str().unwrap()]);
    assert!(out.status.success() && onnx.exists(), "{}", output_text(&out));
}

/// A script `x.sh` in `dir` that leaves `dir/started` when it starts, then
/// answers as a UCI engine that forfeits every game at its first move.
fn marking_engine(dir: &Path) -> PathBuf {
    let script = "#!/bin/sh\ntouch started\nwhile read line; do\n  case \"$line\" in\n    uci) echo 'id name x'; echo uciok;;\n    isready) echo readyok;;\n    go*) echo 'bestmove zz99';;\n    quit) exit 0;;\n  esac\ndone\n";
    let path = dir.join("x.sh");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir.join("started")
}

/// `pacozero` with `args`, run in `dir`.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin().args(args).current_dir(dir).stdin(Stdio::null()).output().unwrap()
}

/// A shared run directory whose `config.toml` names a program
/// (`loop.external = "uci:./x.sh:nodes=1"`) is not resumed on its word: the
/// program starts only when the command line repeats it or trusts the run.
#[test]
fn a_resumed_run_whose_config_names_a_program_starts_nothing_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marking_engine(dir.path());
    let config = format!(
        "[loop]\ngenerations = 1\ngames_per_generation = 2\ntrain_steps_per_generation = 1\ngating_games = 2\neval_simulations = 2\n\
         promotion = \"always\"\nbaseline_games = 0\nmax_decisions = 10\nexternal = \"uci:./x.sh:nodes=1\"\nexternal_games = 2\n\n\
         [selfplay]\nthreads = 1\n{TINY_NET}\n[train]\nbatch_size = 8\nprogress = false\n"
    );
    // A run whose generation 1 is trained: its evaluation, with the external match, is next.
    let shared_run = |name: &str| {
        let run = dir.path().join(name);
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(run.join("config.toml"), &config).unwrap();
        std::fs::write(run.join("state.json"), r#"{"game":"paco","generation":1,"done":"train"}"#).unwrap();
        common::tiny_model_of::<pacozero_engine::paco::GameState>(&run.join("models"), "gen-0001");
    };
    shared_run("run");
    let out = run_in(dir.path(), &["loop", "--run", "run", "--quiet"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    assert!(err.contains("run/config.toml names loop.external = \"uci:./x.sh:nodes=1\" (a program)") && err.contains("--trust-run-files"), "{err}");
    assert!(!marker.exists(), "the program was started: {err}");
    // A --config with the same program repeats it; --trust-run-files takes the run's word.
    let cfg = write_config(dir.path(), "mine.toml", &config);
    let out = run_in(dir.path(), &["loop", "--run", "run", "--quiet", "--config", s(&cfg)]);
    assert!(out.status.success() && marker.exists(), "{}", output_text(&out));
    std::fs::remove_file(&marker).unwrap();
    shared_run("trusted");
    let out = run_in(dir.path(), &["loop", "--run", "trusted", "--quiet", "--trust-run-files"]);
    assert!(out.status.success() && marker.exists(), "{}", output_text(&out));
}

/// A league file whose player is a program the command line does not give
/// is refused, naming it; the program is not started.
#[test]
fn a_resumed_league_whose_file_names_a_program_starts_nothing_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let marker = marking_engine(dir.path());
    let league = ["league", "--players", "random", "greedy", "--out", "l", "--pairs", "1", "--max-decisions", "10", "--quiet"];
    let out = run_in(dir.path(), &league);
    assert!(out.status.success(), "{}", output_text(&out));
    // The header only (no pair played), its second player made a program.
    let path = dir.path().join("l/league.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    header["players"][1]["spec"] = "uci:./x.sh:nodes=1".into();
    std::fs::write(&path, format!("{header}\n")).unwrap();
    let out = run_in(dir.path(), &league);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    assert!(err.contains("names players that the command line does not give: greedy (the program uci:./x.sh:nodes=1)"), "{err}");
    assert!(!marker.exists(), "the program was started: {err}");
}

#[test]
fn a_model_of_another_game_is_refused_by_name() {
    let good = fixture().run.join("models/m.pzmodel");
    fails_with(
        &["selfplay", "--game", "shako", "--model", s(&good), "--out", "/nonexistent-never-written", "--games", "1", "--quiet"],
        &["m.pzmodel is not a shako network", "bit_planes"],
    );
    let player = format!("net:{}:2", good.display());
    fails_with(&["arena", "--game", "shako", "--players", &player, "random", "--games", "2"], &["m.pzmodel is not a shako network"]);
}

// ---- run directories ----

#[test]
fn broken_run_directories_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture();
    let sp = ["selfplay", "--config", s(&f.selfplay_cfg), "--games", "1", "--quiet", "--run"];

    // models/current names a model that is gone.
    let run = copy_run(&dir.path().join("a"));
    std::fs::remove_file(run.join("models/m.pzmodel")).unwrap();
    fails_with(&[&sp[..], &[s(&run)]].concat(), &["m.pzmodel", "No such file or directory"]);
    // models/current is empty.
    std::fs::write(run.join("models/current"), "").unwrap();
    fails_with(&[&sp[..], &[s(&run)]].concat(), &["models/current", "bad pointer contents"]);

    // A corrupt checkpoint.
    let run = copy_run(&dir.path().join("b"));
    truncate(&run.join("checkpoints/latest.pzckpt"), 0.7);
    fails_with(&["train", "--run", s(&run), "--config", s(&f.train_cfg), "--steps", "1"], &["latest.pzckpt", "truncated checkpoint file"]);
    std::fs::write(run.join("checkpoints/latest.pzckpt"), b"garbage").unwrap();
    fails_with(&["train", "--run", s(&run), "--config", s(&f.train_cfg), "--steps", "1"], &["latest.pzckpt", "not a PacoZero checkpoint file"]);

    // No data directory.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    fails_with(&["train", "--run", s(&empty), "--config", s(&f.train_cfg), "--steps", "1"], &["empty/data", "No such file or directory"]);
    // A data directory without chunks.
    std::fs::create_dir_all(empty.join("data")).unwrap();
    fails_with(&["train", "--run", s(&empty), "--config", s(&f.train_cfg), "--steps", "1"], &["empty/data", "0 positions in complete chunks"]);

    // A loop run with a corrupt state.json or config.toml.
    let lp = dir.path().join("loop");
    std::fs::create_dir_all(&lp).unwrap();
    std::fs::write(lp.join("config.toml"), "[loop]\ngenerations = 1\n").unwrap();
    std::fs::write(lp.join("state.json"), "{\"generation\": ").unwrap();
    fails_with(&["loop", "--run", s(&lp)], &["state.json", "not a loop state file"]);
    std::fs::write(lp.join("config.toml"), "[loop\n").unwrap();
    fails_with(&["loop", "--run", s(&lp)], &["config.toml", "TOML parse error at line 1"]);
    // A report of a directory that is not a run.
    fails_with(&["report", "--run", s(&dir.path().join("nothing-here"))], &["run directory", "nothing-here does not exist"]);
}

/// `--set` on every command that reads a configuration (issue 38): checked
/// like the file (a bad key or value is named), and applied.
#[test]
fn set_overrides_every_configuration_and_names_a_bad_key() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let sp = ["selfplay", "--config", s(&f.selfplay_cfg), "--out", s(&out), "--games", "1", "--quiet", "--evaluator", "uniform"];
    fails_with(&[&sp[..], &["--set", "bogus_key=1"]].concat(), &["selfplay.toml", "--set bogus_key=1", "bogus_key"]);
    fails_with(&[&sp[..], &["--set", "search.full_simulations=0"]].concat(), &["search.full_simulations"]);
    // Applied: a cap of 3 decisions cuts the game at 3.
    ok(&[&sp[..], &["--set", "max_decisions=3", "--set", "search.full_simulations=4"]].concat());
    let (_, games) = pacozero_data::read_games_file(&pacozero_data::list_chunks(&out).unwrap()[0].games_path).unwrap();
    assert_eq!(games[0].num_decisions, 3, "{:?}", games[0]);

    let rd = copy_run(dir.path());
    let tr = ["train", "--run", s(&rd), "--config", s(&f.train_cfg), "--steps", "1"];
    fails_with(&[&tr[..], &["--set", "train.bogus=1"]].concat(), &["train.toml", "bogus"]);
    fails_with(&[&tr[..], &["--set", "train.batch_size=0"]].concat(), &["batch_size"]);
    ok(&[&tr[..], &["--set", "train.lr=0.0005"]].concat());

    fails_with(&["book", "build", "--model", s(&rd), "--out", s(&dir.path().join("b.parquet")), "--set", "simulatons=3"], &["simulatons"]);
}

/// `train --run` of a loop's run reads the run's own config.toml (its
/// `[net]` and `[train]` tables), not the trainer's defaults, and
/// `selfplay --run` refuses a `--model` it would not use.
#[test]
fn train_reads_a_loop_runs_own_config_and_selfplay_run_refuses_a_model() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let rd = copy_run(dir.path());
    let own = rd.join("config.toml");
    // The run's own config: a loop configuration with a [train] key out of range.
    std::fs::write(&own, "[loop]\ngenerations = 1\n[train]\nbatch_size = 0\n").unwrap();
    fails_with(&["train", "--run", s(&rd), "--steps", "1"], &["config.toml", "batch_size"]);
    // A loop configuration given with --config is read the same way.
    std::fs::write(&own, format!("[loop]\ngenerations = 1\n{}", std::fs::read_to_string(&f.train_cfg).unwrap())).unwrap();
    ok(&["train", "--run", s(&rd), "--steps", "1"]);
    ok(&["train", "--run", s(&rd), "--config", s(&own), "--steps", "1"]);
    usage_error(&["selfplay", "--run", s(&rd), "--model", s(&rd), "--games", "1"], &["--model"]);
}
