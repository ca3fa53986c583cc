//! Opening books, analysis and play with a tiny untrained network: a book is
//! built, probed, exported, extended and used by self-play; `analyze` prints
//! legal principal variations; `play` is driven through scripted input.

use pacozero_data::book::{read_book, BookPosition};
use pacozero_engine::paco::{parse_actions, parse_turn, turn_to_string, GameState, Position, Required, STARTPOS_FEN};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

mod common;
use common::{bin, manifest_dir, tiny_model_of};
use pacozero_engine::prelude::*;

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn ok(args: &[&str]) -> String {
    let o = bin().args(args).output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "pacozero {args:?} failed:\n{out}\n{err}");
    out
}

fn fails(args: &[&str]) -> String {
    let o = bin().args(args).output().unwrap();
    let (out, err) = text(&o);
    assert!(!o.status.success(), "pacozero {args:?} should fail:\n{out}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// An untrained tiny Paco Ŝako network.
fn tiny_model(dir: &Path) -> PathBuf {
    tiny_model_of::<GameState>(dir, "tiny")
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

/// A book test's files in `dir`: the model, `BOOK_CFG` written to `book.toml`, and the book's path.
fn book_fixture(dir: &Path, model: PathBuf, book: &str) -> (PathBuf, PathBuf, PathBuf) {
    let cfg = dir.join("book.toml");
    std::fs::write(&cfg, BOOK_CFG).unwrap();
    (model, cfg, dir.join(book))
}

/// Every row is a consistent turn-start position and every move replays to its child.
fn check_book(rows: &[BookPosition]) {
    let mut hashes = std::collections::HashSet::new();
    for r in rows {
        assert!(hashes.insert(r.hash), "duplicate hash {:016x}", r.hash);
        let pos: Position = r.fen.parse().unwrap();
        assert_eq!(pos.hash(), r.hash, "{}", r.fen);
        assert!(matches!(pos.required(), Required::Lift | Required::PromoteThenLift), "{}", r.fen);
        assert!(!r.moves.is_empty(), "{} has no moves", r.fen);
        let total: u32 = r.moves.iter().map(|m| m.visits).sum();
        assert!(total > 0 && total <= r.simulations, "{}: {total} move visits, {} simulations", r.fen, r.simulations);
        assert!(r.moves.windows(2).all(|w| w[0].visits >= w[1].visits), "{}: moves not sorted", r.fen);
        let wsum: f32 = r.wdl.iter().sum();
        assert!((wsum - 1.0).abs() < 1e-3, "{}: wdl {:?}", r.fen, r.wdl);
        let mut children = std::collections::HashSet::new();
        for m in &r.moves {
            assert!(children.insert(m.child), "{}: two moves lead to one position (not merged)", r.fen);
            let actions = parse_actions(&m.actions).unwrap();
            let mut g = GameState::new(pos);
            for &a in &actions {
                g.play(a).unwrap();
            }
            assert_eq!(g.position().hash(), m.child, "{} {}", r.fen, m.name);
            assert_ne!(g.position().side_to_move(), pos.side_to_move(), "{} {}: not a whole turn", r.fen, m.name);
            assert_eq!(turn_to_string(&pos, &actions), m.name);
            assert_eq!(parse_turn(&pos, &m.name).unwrap(), actions, "{}", m.name);
            assert!(m.prior > 0.0 && m.prior <= 1.0 + 1e-4, "{} prior {}", m.name, m.prior);
        }
    }
    // Every position but the start positions is a child of another book position.
    for r in rows.iter().filter(|r| r.depth > 0) {
        assert!(rows.iter().any(|p| p.moves.iter().any(|m| m.child == r.hash)), "{} is not reached by a book move", r.fen);
        assert!(r.depth <= 4 && r.visits > 0, "{}: depth {} visits {}", r.fen, r.depth, r.visits);
    }
}

#[test]
fn book_build_probe_export_extend_and_selfplay() {
    let dir = tempfile::tempdir().unwrap();
    let (model, cfg, book) = book_fixture(dir.path(), tiny_model(dir.path()), "book.parquet");
    let (m, c, b) = (model.to_str().unwrap(), cfg.to_str().unwrap(), book.to_str().unwrap());

    let out = ok(&["book", "build", "--model", m, "--config", c, "--out", b, "--fischer-random", "1", "--quiet"]);
    assert!(out.contains("12 positions") && out.contains("2 start positions"), "{out}");
    let (info, rows) = read_book(&book).unwrap();
    assert_eq!(info.network, "tiny");
    assert!(info.config.contains("simulations = 24"), "{}", info.config);
    assert_eq!(rows.len(), 12);
    assert_eq!(rows.iter().filter(|r| r.depth == 0).count(), 2, "standard + one Fischer-random start");
    assert!(rows.iter().any(|r| r.fen == STARTPOS_FEN && r.depth == 0));
    assert!(rows.iter().any(|r| r.depth >= 2), "the tree grew beyond the first moves");
    check_book(&rows);
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().ends_with(".tmp")));

    // A second build from scratch is identical (deterministic).
    let again = dir.path().join("again.parquet");
    ok(&["book", "build", "--model", m, "--config", c, "--out", again.to_str().unwrap(), "--fischer-random", "1", "--quiet"]);
    assert_eq!(read_book(&again).unwrap().1, rows);

    // Probe the start position: every book move with its statistics.
    let start = rows.iter().find(|r| r.fen == STARTPOS_FEN).unwrap();
    let probe = ok(&["book", "probe", "--book", b, "--fen", STARTPOS_FEN]);
    println!("{probe}");
    assert!(probe.contains("book: 12 positions"), "{probe}");
    for mv in &start.moves {
        let line = probe.lines().find(|l| l.split_whitespace().next() == Some(mv.name.as_str())).unwrap_or_else(|| panic!("{} missing:\n{probe}", mv.name));
        assert_eq!(line.split_whitespace().nth(1).unwrap(), mv.visits.to_string(), "{line}");
    }
    // Not in the book, in the middle of a turn, not a FEN: clear errors.
    let mut g = GameState::new(Position::startpos());
    for a in parse_actions("La2 Pa3").unwrap() {
        g.play(a).unwrap();
    }
    let outside = g.position().fen();
    if !rows.iter().any(|r| r.fen == outside) {
        let e = fails(&["book", "probe", "--book", b, "--fen", &outside]);
        assert!(e.contains("not in book"), "{e}");
    }
    let mut g = GameState::new(Position::startpos());
    g.play(parse_actions("Le2").unwrap()[0]).unwrap();
    let e = fails(&["book", "probe", "--book", b, "--fen", &g.position().fen()]);
    assert!(e.contains("middle of a turn"), "{e}");
    let e = fails(&["book", "probe", "--book", b, "--fen", "not a fen"]);
    assert!(e.contains("reading FEN"), "{e}");
    let e = fails(&["book", "probe", "--book", dir.path().join("missing.parquet").to_str().unwrap(), "--fen", STARTPOS_FEN]);
    assert!(e.contains("missing.parquet"), "{e}");

    // Export to JSON and read it back.
    let json_path = dir.path().join("book.json");
    ok(&["book", "export", "--book", b, "--format", "json", "--out", json_path.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let obj = v.as_object().unwrap();
    assert_eq!(obj.len(), 12);
    for r in &rows {
        let e = &obj[&r.fen];
        assert!((e["value"].as_f64().unwrap() - r.value() as f64).abs() < 1e-3);
        let moves = e["moves"].as_array().unwrap();
        assert_eq!(moves.len(), r.moves.len());
        for (j, mv) in moves.iter().zip(&r.moves) {
            assert_eq!(j["move"], mv.name.as_str());
            assert_eq!(j["actions"], mv.actions.as_str());
            assert_eq!(j["visits"], mv.visits);
            assert!((j["value"].as_f64().unwrap() - mv.value() as f64).abs() < 1e-3);
            assert_eq!(j["wdl"].as_array().unwrap().len(), 3);
        }
    }
    let stdout_json = ok(&["book", "export", "--book", b]);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&stdout_json).unwrap(), v);

    // Extending keeps what is there and adds positions.
    ok(&["book", "build", "--model", m, "--config", c, "--out", b, "--fischer-random", "1", "--positions", "16", "--quiet"]);
    let (_, more) = read_book(&book).unwrap();
    assert_eq!(more.len(), 16);
    check_book(&more);
    for r in &rows {
        let n = more.iter().find(|x| x.hash == r.hash).expect("kept");
        assert_eq!((&n.fen, &n.moves, n.simulations), (&r.fen, &r.moves, r.simulations));
    }

    // The commented configuration file is valid (two positions with its settings).
    let shipped = manifest_dir().join("../configs/book.toml").display().to_string();
    let small = dir.path().join("shipped.parquet");
    let out = ok(&["book", "build", "--model", m, "--config", &shipped, "--out", small.to_str().unwrap(), "--positions", "2", "--quiet"]);
    assert!(out.contains("2 positions"), "{out}");
    assert_eq!(read_book(&small).unwrap().1.iter().find(|r| r.fen == STARTPOS_FEN).unwrap().simulations, 257, "256 simulations + the root");

    // Configuration errors name the key.
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "simulationz = 3\n").unwrap();
    let e = fails(&["book", "build", "--model", m, "--config", bad.to_str().unwrap(), "--out", dir.path().join("x.parquet").to_str().unwrap()]);
    assert!(e.contains("simulationz"), "{e}");
    std::fs::write(&bad, "max_depth = 0\n").unwrap();
    let e = fails(&["book", "build", "--model", m, "--config", bad.to_str().unwrap(), "--out", dir.path().join("x.parquet").to_str().unwrap()]);
    assert!(e.contains("max_depth"), "{e}");

    // Self-play starts from book positions, weighted by visits.
    let sp = dir.path().join("sp.toml");
    std::fs::write(
        &sp,
        format!(
            "seed = 5\nthreads = 1\ngames_per_thread = 4\nmax_decisions = 6\nstart_positions = \"book\"\nbook_file = {:?}\nbook_temperature = 20.0\n[search]\nfull_simulations = 4\ncheap_simulations = 2\n",
            book.to_str().unwrap()
        ),
    )
    .unwrap();
    let data = dir.path().join("data");
    ok(&["selfplay", "--config", sp.to_str().unwrap(), "--games", "12", "--out", data.to_str().unwrap(), "--model", m, "--quiet"]);
    let fens: std::collections::HashSet<&str> = more.iter().map(|r| r.fen.as_str()).collect();
    let mut starts = std::collections::HashSet::new();
    let mut games = 0;
    for chunk in pacozero_data::list_chunks(&data).unwrap() {
        for gm in pacozero_data::read_games_file(&chunk.games_path).unwrap().1 {
            assert!(fens.contains(gm.start_fen.as_str()), "start {} is not a book position", gm.start_fen);
            starts.insert(gm.start_fen);
            games += 1;
        }
    }
    assert_eq!(games, 12);
    assert!(starts.len() >= 3, "12 games at temperature 20 used only {} book positions", starts.len());
    std::fs::write(&sp, "start_positions = \"book\"\n").unwrap();
    let e = fails(&["selfplay", "--config", sp.to_str().unwrap(), "--games", "1", "--out", data.to_str().unwrap()]);
    assert!(e.contains("book_file"), "{e}");
}

/// Plays the PV tokens of an `analyze` line from `start`: whole turns in chain
/// notation, a bracketed unfinished turn as atomic actions.
fn replay_pv(start: &GameState, pv: &str) -> usize {
    let mut g = start.clone();
    let mut turns = 0;
    let (whole, partial) = match pv.find('[') {
        Some(i) => (&pv[..i], Some(pv[i..].trim().trim_start_matches('[').trim_end_matches(']'))),
        None => (pv, None),
    };
    for (k, tok) in whole.split_whitespace().enumerate() {
        let settled = matches!(g.position().required(), Required::Lift | Required::PromoteThenLift);
        let actions = if k == 0 && !settled { parse_actions(tok).unwrap() } else { parse_turn(g.position(), tok).unwrap_or_else(|e| panic!("pv {pv:?}: {e}")) };
        for a in actions {
            g.play(a).unwrap_or_else(|e| panic!("pv {pv:?}: {e}"));
        }
        turns += 1;
    }
    if let Some(p) = partial {
        for a in parse_actions(p).unwrap() {
            g.play(a).unwrap_or_else(|e| panic!("pv {pv:?}: {e}"));
        }
    }
    turns
}

#[test]
fn analyze_prints_legal_lines() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    let m = model.to_str().unwrap();
    let out = ok(&["analyze", "--model", m, "--sims", "300", "--top", "3"]);
    println!("{out}");
    let start = GameState::new(Position::startpos());
    let rows: Vec<&str> = out.lines().filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit())).collect();
    let pvs: Vec<&str> = out.lines().filter_map(|l| l.trim_start().strip_prefix("pv:")).collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert_eq!(pvs.len(), 3, "{out}");
    let mut last_visits = u32::MAX;
    let mut longest = 0;
    for (row, pv) in rows.iter().zip(&pvs) {
        let f: Vec<&str> = row.split_whitespace().collect();
        let visits: u32 = f[2].parse().unwrap();
        assert!(visits <= last_visits, "not sorted by visits:\n{out}");
        last_visits = visits;
        assert_eq!(pv.split_whitespace().next(), Some(f[1]), "pv starts with its move");
        longest = longest.max(replay_pv(&start, pv));
    }
    assert!(longest >= 2, "300 simulations give a line of at least two turns:\n{out}");

    // In the middle of a turn: the first token is the rest of the turn as actions.
    let mut g = GameState::new(Position::startpos());
    g.play(parse_actions("Lb1").unwrap()[0]).unwrap();
    let out = ok(&["analyze", "--model", m, "--sims", "60", "--top", "2", "--fen", &g.position().fen()]);
    let pvs: Vec<&str> = out.lines().filter_map(|l| l.trim_start().strip_prefix("pv:")).collect();
    assert!(!pvs.is_empty(), "{out}");
    for pv in pvs {
        assert!(pv.trim_start().starts_with('P'), "{pv}");
        replay_pv(&g, pv);
    }
    let e = fails(&["analyze", "--model", m, "--fen", "8/8/8/8 w"]);
    assert!(e.contains("reading FEN"), "{e}");
}

fn play_session(model: &str, extra: &[&str], input: &str) -> String {
    let mut child =
        bin().args(["play", "--model", model, "--sims", "16"]).args(extra).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "play failed:\n{out}\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    out
}

/// The bot's replies, in order.
fn bot_moves(out: &str) -> Vec<String> {
    out.lines().filter_map(|l| l.split("bot plays: ").nth(1)).map(|s| s.split_whitespace().next().unwrap().to_string()).collect()
}

#[test]
fn play_with_scripted_input() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    let m = model.to_str().unwrap();

    // Garbage, an illegal move, then a legal one; the bot answers; undo; quit.
    let out = play_session(m, &["--color", "w"], "hello\ne2-e5\nhelp\ne2-e4\nundo\nd2-d4\nquit\ne2-e4\n");
    println!("{out}");
    assert!(out.contains("cannot read move 'hello'"), "{out}");
    assert!(out.contains("'e2-e5'"), "{out}");
    assert!(out.contains("Commands: help"), "{out}");
    assert!(out.contains("taken back"), "{out}");
    assert!(out.contains("goodbye"), "{out}");
    assert!(out.contains("a    b    c    d"), "the board is drawn:\n{out}");
    let replies = bot_moves(&out);
    assert_eq!(replies.len(), 2, "one reply to e2-e4, one to d2-d4:\n{out}");
    // Both replies are legal in their positions.
    for (human, reply) in [("e2-e4", &replies[0]), ("d2-d4", &replies[1])] {
        let mut g = GameState::new(Position::startpos());
        for a in parse_turn(g.position(), human).unwrap() {
            g.play(a).unwrap();
        }
        let acts = parse_turn(g.position(), reply).unwrap_or_else(|e| panic!("bot reply {reply} after {human}: {e}"));
        for a in acts {
            g.play(a).unwrap();
        }
    }
    // After 'undo' the board is the start position again.
    let after_undo = out.split("taken back").nth(1).unwrap();
    assert!(after_undo.contains(&format!("fen: {STARTPOS_FEN}")), "{out}");

    // Action by action, a turn in chain notation in the middle of a turn is refused; end of input ends the session.
    let out = play_session(m, &[], "Le2\ne2-e4\nPe9\nPe4\n");
    assert!(out.contains("(continue your turn)"), "{out}");
    assert!(out.contains("middle of a turn"), "{out}");
    assert!(out.contains("'Pe9'") || out.contains("Pe9"), "{out}");
    assert_eq!(bot_moves(&out).len(), 1, "{out}");
    assert!(out.contains("end of input"), "{out}");

    // Odd input never crashes the session.
    let junk = [
        "=",
        "=Q",
        "=K",
        "0-0",
        "O-O-O",
        "Lé4",
        "é",
        "L",
        "P",
        "Lz9",
        "e2-e4 e7-e5",
        "e2xe4",
        "Ke1-e2",
        "a1>a2",
        ">",
        "-",
        "x",
        "moves",
        "board",
        &"e2-e4".repeat(200),
    ];
    let out = play_session(m, &[], &(junk.join("\n") + "\nquit\n"));
    assert!(out.contains("20 legal turns"), "{out}");
    assert!(out.contains("goodbye") && bot_moves(&out).is_empty(), "{out}");

    // As Black the bot opens.
    let out = play_session(m, &["--color", "b"], "");
    let first_prompt = out.find("Black to move>").expect("a prompt for Black");
    let first_reply = out.find("bot plays:").expect("the bot opens");
    assert!(first_reply < first_prompt, "{out}");
}

#[test]
fn shako_books_are_built_probed_exported_and_used_by_selfplay() {
    use pacozero_engine::shako;
    let dir = tempfile::tempdir().unwrap();
    let (model, cfg, book) = book_fixture(dir.path(), tiny_model_of::<shako::GameState>(dir.path(), "tiny-shako"), "shako.parquet");
    let (m, c, b) = (model.to_str().unwrap(), cfg.to_str().unwrap(), book.to_str().unwrap());

    let out = ok(&["book", "build", "--game", "shako", "--model", m, "--config", c, "--out", b, "--fischer-random", "2", "--positions", "20", "--quiet"]);
    assert!(out.contains("20 positions") && out.contains("3 start positions"), "{out}");
    let (info, rows) = read_book(&book).unwrap();
    assert_eq!((info.game.as_str(), info.network.as_str()), ("shako", "tiny-shako"));
    assert_eq!(rows.len(), 20);
    assert_eq!(rows.iter().filter(|r| r.depth == 0).count(), 3, "standard + two random starts");
    assert!(rows.iter().any(|r| r.fen == shako::STARTPOS_FEN && r.depth == 0));
    assert!(rows.iter().any(|r| r.depth >= 2), "the tree grew beyond the first moves");
    // Every row is a Shako position with its hash; every move is one legal UCI move to its child.
    for r in &rows {
        let g = shako::GameState::from_fen(&r.fen).unwrap();
        assert_eq!(g.hash(), r.hash, "{}", r.fen);
        assert!(!r.moves.is_empty() && r.moves.windows(2).all(|w| w[0].visits >= w[1].visits), "{}", r.fen);
        let legal: Vec<String> = g.legal_moves().iter().map(|mv| mv.to_string()).collect();
        for mv in &r.moves {
            assert_eq!(mv.name, mv.actions, "a Shako turn is one move");
            assert!(legal.contains(&mv.name), "{} is not legal in {}", mv.name, r.fen);
            let mut next = g.clone();
            next.play_unchecked(g.legal_moves().into_iter().find(|x| x.to_string() == mv.name).unwrap());
            assert_eq!(next.hash(), mv.child, "{} {}", r.fen, mv.name);
        }
    }
    for r in rows.iter().filter(|r| r.depth > 0) {
        assert!(rows.iter().any(|p| p.moves.iter().any(|mv| mv.child == r.hash)), "{} is not reached by a book move", r.fen);
    }
    // Deterministic.
    let again = dir.path().join("again.parquet");
    ok(&[
        "book",
        "build",
        "--game",
        "shako",
        "--model",
        m,
        "--config",
        c,
        "--out",
        again.to_str().unwrap(),
        "--fischer-random",
        "2",
        "--positions",
        "20",
        "--quiet",
    ]);
    assert_eq!(read_book(&again).unwrap().1, rows);

    // Probe and export read the game from the book.
    let start = rows.iter().find(|r| r.fen == shako::STARTPOS_FEN).unwrap();
    let probe = ok(&["book", "probe", "--book", b, "--fen", shako::STARTPOS_FEN]);
    for mv in &start.moves {
        let line = probe.lines().find(|l| l.split_whitespace().next() == Some(mv.name.as_str())).unwrap_or_else(|| panic!("{} missing:\n{probe}", mv.name));
        assert_eq!(line.split_whitespace().nth(1).unwrap(), mv.visits.to_string(), "{line}");
    }
    let e = fails(&["book", "probe", "--book", b, "--fen", "not a fen"]);
    assert!(e.contains("reading FEN"), "{e}");
    let v: serde_json::Value = serde_json::from_str(&ok(&["book", "export", "--book", b])).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 20);

    // A model of the other game is refused by name.
    let paco_model = tiny_model(dir.path());
    let e = fails(&[
        "book",
        "build",
        "--game",
        "shako",
        "--model",
        paco_model.to_str().unwrap(),
        "--config",
        c,
        "--out",
        dir.path().join("x.parquet").to_str().unwrap(),
    ]);
    assert!(e.contains("not a shako network"), "{e}");

    // Shako self-play starts from the book's positions.
    let sp = dir.path().join("sp.toml");
    std::fs::write(&sp, format!("seed = 5\nthreads = 1\ngames_per_thread = 4\nmax_decisions = 6\nstart_positions = \"book\"\nbook_file = {b:?}\nbook_temperature = 20.0\n[search]\nfull_simulations = 4\ncheap_simulations = 2\n")).unwrap();
    let data = dir.path().join("data");
    ok(&["selfplay", "--game", "shako", "--config", sp.to_str().unwrap(), "--games", "8", "--out", data.to_str().unwrap(), "--model", m, "--quiet"]);
    let fens: std::collections::HashSet<&str> = rows.iter().map(|r| r.fen.as_str()).collect();
    let mut games = 0;
    for chunk in pacozero_data::list_chunks(&data).unwrap() {
        for gm in pacozero_data::read_games_file(&chunk.games_path).unwrap().1 {
            assert!(fens.contains(gm.start_fen.as_str()), "start {} is not a book position", gm.start_fen);
            games += 1;
        }
    }
    assert_eq!(games, 8);
}

#[test]
fn a_book_of_an_unknown_game_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chess.parquet");
    let info = pacozero_data::book::BookInfo { game: "chess".into(), network: "n".into(), config: String::new() };
    pacozero_data::book::write_book(&path, &info, &[]).unwrap();
    for args in [vec!["book", "probe", "--book", path.to_str().unwrap(), "--fen", STARTPOS_FEN], vec!["book", "export", "--book", path.to_str().unwrap()]] {
        let e = fails(&args);
        assert!(e.contains("unknown game \"chess\"") && e.contains("chess.parquet"), "{args:?}: {e}");
    }
}
