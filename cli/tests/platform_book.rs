//! The platform's opening-book format through the binary: a hand-written
//! platform book (tests/data/platform_book.json: a Black mover, chains, and
//! promotions, positions with several moves) imported, exported back
//! (positions, action lists and values kept), used for self-play and arena
//! openings; bad books refused with the FEN and the index at fault and
//! nothing written; a built book exported with logits that reproduce its
//! visits.

use pacozero_data::book::{read_book, BookPosition};
use pacozero_engine::paco::{parse_actions, GameState, Position};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

mod common;
use common::{bin, manifest_dir, output_text, run_ok, s, tiny_model_of};

fn test_book() -> PathBuf {
    manifest_dir().join("tests/data/platform_book.json")
}

/// A platform book as FEN -> (position value, {actions -> move value}).
type Platform = BTreeMap<String, (f64, BTreeMap<Vec<u64>, f64>)>;

fn platform(text: &str) -> Platform {
    let v: Value = serde_json::from_str(text).unwrap();
    v.as_object()
        .unwrap()
        .iter()
        .map(|(fen, e)| {
            let moves = e[1]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| (m[1].as_array().unwrap().iter().map(|a| a.as_u64().unwrap()).collect(), m[0].as_f64().unwrap()))
                .collect::<BTreeMap<_, _>>();
            assert_eq!(moves.len(), e[1].as_array().unwrap().len(), "{fen}: an action list twice");
            (fen.clone(), (e[0].as_f64().unwrap(), moves))
        })
        .collect()
}

/// Every move of a book row replays from its FEN to its child, ending the turn.
fn replays(r: &BookPosition) {
    let pos: Position = r.fen.parse().unwrap();
    for m in &r.moves {
        let mut g = GameState::new(pos);
        for a in parse_actions(&m.actions).unwrap() {
            g.play(a).unwrap();
        }
        assert_eq!(g.position().hash(), m.child, "{} {}", r.fen, m.name);
        assert!(g.position().side_to_move() != pos.side_to_move() || g.status().is_over(), "{} {}", r.fen, m.name);
    }
}

fn fails(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    let text = output_text(&out);
    assert_eq!(out.status.code(), Some(1), "pacozero {args:?} should fail with status 1:\n{text}");
    assert!(!text.contains("panicked"), "{text}");
    text
}

#[test]
fn import_export_round_trip_of_the_hand_written_book() {
    let dir = tempfile::tempdir().unwrap();
    let input = test_book();
    let book = dir.path().join("imported.parquet");
    let out = run_ok(&["book", "import", "--format", "platform", s(&input), "--out", s(&book)]);
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(out.contains("6 positions, 11 moves, 5 start positions"), "{out}");

    // What the hand-written book covers, as the engine names it.
    let (info, rows) = read_book(&book).unwrap();
    assert_eq!((info.game.as_str(), info.network.as_str()), ("paco", "platform:platform_book.json"));
    let names: HashSet<&str> = rows.iter().flat_map(|r| r.moves.iter().map(|m| m.name.as_str())).collect();
    for turn in ["e2-e4", "e7-e5", "Nb8-c6", "Nc3xe4>e5", "Nc6xe5>e4", "e7-e8=Q", "e7-e8=N", "d2-d1=R"] {
        assert!(names.contains(turn), "{turn} missing from {names:?}");
    }
    assert!(rows.iter().any(|r| r.fen.contains(" b ") && r.moves.len() > 1), "a Black mover with several moves");
    for r in &rows {
        replays(r);
        assert!(r.moves.windows(2).all(|w| w[0].logit >= w[1].logit), "{}: highest logit first", r.fen);
    }
    let after_e4 = rows.iter().find(|r| r.fen.starts_with("rnbqkbnr/pppppppp/8/8/4P3")).unwrap();
    assert_eq!(after_e4.depth, 1, "reached from the start position by e2-e4");

    // Import, then export: the same positions, action lists and values.
    let back = dir.path().join("back.json");
    run_ok(&["book", "export", "--book", s(&book), "--format", "platform", "--out", s(&back)]);
    let (a, b) = (platform(&std::fs::read_to_string(&input).unwrap()), platform(&std::fs::read_to_string(&back).unwrap()));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>(), "the same FENs");
    for (fen, (value, moves)) in &a {
        let (value2, moves2) = &b[fen];
        assert!((value - value2).abs() < 1e-6, "{fen}: position value {value} -> {value2}");
        assert_eq!(moves.keys().collect::<Vec<_>>(), moves2.keys().collect::<Vec<_>>(), "{fen}: the same action lists");
        for (actions, v) in moves {
            assert!((v - moves2[actions]).abs() < 1e-6, "{fen} {actions:?}: move value {v} -> {}", moves2[actions]);
        }
    }
    // To standard output, the same text; and imported again, the same book.
    let stdout = run_ok(&["book", "export", "--book", s(&book), "--format", "platform"]);
    assert_eq!(String::from_utf8_lossy(&stdout.stdout), std::fs::read_to_string(&back).unwrap());
    let again = dir.path().join("again.parquet");
    run_ok(&["book", "import", s(&back), "--out", s(&again)]);
    assert_eq!(read_book(&again).unwrap().1, rows);

    // Probe sees the imported moves; the book's own JSON export works too.
    let probe = run_ok(&["book", "probe", "--book", s(&book), "--fen", "4k3/8/8/8/4a3/2N5/8/4K3 w 0 - - -"]);
    let probe = String::from_utf8_lossy(&probe.stdout);
    assert!(probe.contains("Nc3xe4>e5") && probe.contains("Ke1-d1"), "{probe}");
    run_ok(&["book", "export", "--book", s(&book), "--format", "json", "--out", s(&dir.path().join("ours.json"))]);
}

#[test]
fn selfplay_and_arena_start_from_an_imported_book() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("imported.parquet");
    run_ok(&["book", "import", s(&test_book()), "--out", s(&book)]);
    let fens: HashSet<String> = read_book(&book).unwrap().1.into_iter().map(|r| r.fen).collect();

    let cfg = common::write_config(
        dir.path(),
        "sp.toml",
        &format!(
            "seed = 5\nthreads = 1\ngames_per_thread = 2\ngames_per_chunk = 4\nmax_decisions = 12\nstart_positions = \"book\"\nbook_file = \"{}\"\nbook_temperature = 3.0\n\n[search]\nfull_simulations = 4\ncheap_simulations = 2\n",
            s(&book)
        ),
    );
    let data = dir.path().join("data");
    run_ok(&["selfplay", "--config", s(&cfg), "--games", "8", "--out", s(&data), "--evaluator", "uniform"]);
    let mut starts = HashSet::new();
    for c in pacozero_data::list_chunks(&data).unwrap() {
        for g in pacozero_data::read_games_file(&c.games_path).unwrap().1 {
            assert!(fens.contains(&g.start_fen), "self-play started from {}, not a book position", g.start_fen);
            starts.insert(g.start_fen);
        }
    }
    assert!(starts.len() >= 2, "8 games drew {starts:?}");

    // A one-position book where White's queen unites with the king at once:
    // every arena game is that opening, won by White in two decisions.
    let win = dir.path().join("win.json");
    std::fs::write(&win, r#"{"4k3/8/8/8/8/8/8/K3Q3 w 0 - - -": [1, [[0, [5, 125]]]]}"#).unwrap();
    let win_book = dir.path().join("win.parquet");
    run_ok(&["book", "import", s(&win), "--out", s(&win_book)]);
    let json = dir.path().join("arena.json");
    let out = run_ok(&["arena", "--players", "greedy", "greedy", "--games", "4", "--book", s(&win_book), "--json", s(&json)]);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!((v["wins"].as_u64(), v["losses"].as_u64(), v["draws"].as_u64()), (Some(2), Some(2), Some(0)), "{}", output_text(&out));
    assert_eq!(v["end_reasons"]["paco"], 4, "{v}");
    let text = output_text(&out);
    assert!(text.contains("; 8 decisions"), "{text}");
    let both = bin().args(["arena", "--players", "greedy", "greedy", "--book", s(&win_book), "--openings", "standard"]).output().unwrap();
    assert!(!both.status.success() && output_text(&both).contains("--openings"), "{}", output_text(&both));
}

#[test]
fn bad_platform_books_are_refused_by_name_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.parquet");
    let fen = "r1bqkb1r/ppp1pppp/2n2n2/3p4/3P1B2/2N2N2/PPP1PPPP/R2QKB1R b 7 AHah - -";
    let cases: [(&str, String, &[&str]); 6] = [
        // Bc8 to h4 (index 104): not on the bishop's diagonal.
        ("illegal.json", format!(r#"{{"{fen}": [0.1, [[0.5, [3, 103]], [0.2, [3, 104]]]]}}"#), &[fen, "move 2 [3, 104]", "index 104 (Ph4)"]),
        ("unfinished.json", format!(r#"{{"{fen}": [0.1, [[0.5, [3]]]]}}"#), &[fen, "move 1 [3]", "does not end the turn"]),
        ("range.json", format!(r#"{{"{fen}": [0.1, [[0.5, [3, 140]]]]}}"#), &[fen, "move 1, action 2: index 140"]),
        ("position.json", r#"{"4k3/8/8/8/8/8/8/4K2R w 0 AHah - -": [0, []]}"#.into(), &["4k3/8/8/8/8/8/8/4K2R w 0 AHah - -", "castling"]),
        ("syntax.json", format!(r#"{{"{fen}": [0.1, [[0.5, [3, 103]]]]"#), &["syntax.json: not a platform book", "line 1"]),
        ("value.json", format!(r#"{{"{fen}": [-3, []]}}"#), &[fen, "position_value -3 is outside [-1, 1]"]),
    ];
    for (name, text, wanted) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let e = fails(&["book", "import", "--format", "platform", s(&path), "--out", s(&out)]);
        assert!(e.contains(name), "{name}: the message names the file: {e}");
        for w in wanted {
            assert!(e.contains(w), "{name}: {w:?} missing from: {e}");
        }
        assert_eq!(e.lines().count(), 1, "one line: {e}");
        assert!(!out.exists() && std::fs::read_dir(dir.path()).unwrap().all(|f| !f.unwrap().file_name().to_string_lossy().ends_with(".tmp")));
    }
    let e = fails(&["book", "import", s(&dir.path().join("none.json")), "--out", s(&out)]);
    assert!(e.contains("none.json: I/O error"), "{e}");
}

#[test]
fn a_built_book_exports_logits_that_reproduce_its_visits() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    let cfg = common::write_config(dir.path(), "book.toml", "positions = 3\nsimulations = 24\nbatch_positions = 3\nmin_move_visits = 1\n");
    let book = dir.path().join("built.parquet");
    run_ok(&["book", "build", "--model", s(&model), "--config", s(&cfg), "--out", s(&book), "--quiet"]);
    let (_, rows) = read_book(&book).unwrap();
    let out = run_ok(&["book", "export", "--book", s(&book), "--format", "platform"]);
    let exported = platform(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(exported.len(), rows.len());
    for r in &rows {
        let (value, moves) = &exported[&r.fen];
        assert!((value - r.value() as f64).abs() < 1e-6, "{}", r.fen);
        let total: f64 = r.moves.iter().map(|m| m.visits as f64).sum();
        let z: f64 = moves.values().map(|v| v.exp()).sum();
        let pos: Position = r.fen.parse().unwrap();
        for m in &r.moves {
            let indices: Vec<u64> =
                parse_actions(&m.actions).unwrap().into_iter().map(|a| pacozero_engine::paco::action_index(a, pos.side_to_move()) as u64 + 1).collect();
            let v = moves.get(&indices).unwrap_or_else(|| panic!("{}: {} ({indices:?}) not exported", r.fen, m.name));
            assert!(
                (v.exp() / z - m.visits as f64 / total).abs() < 1e-5,
                "{} {}: softmax {} vs visit share {}",
                r.fen,
                m.name,
                v.exp() / z,
                m.visits as f64 / total
            );
        }
    }
}

/// An untrained tiny Paco Ŝako network as a model file.
fn tiny_model(dir: &Path) -> PathBuf {
    tiny_model_of::<GameState>(dir, "tiny")
}

#[test]
fn book_compare_against_the_platform_book() {
    let dir = tempfile::tempdir().unwrap();
    let reference = test_book();
    let book = dir.path().join("imported.parquet");
    run_ok(&["book", "import", s(&reference), "--out", s(&book)]);

    // The imported book against its own source: full agreement, no value difference.
    let out = run_ok(&["book", "compare", "--reference", s(&reference), "--book", s(&book), "--json"]);
    let v: Value = serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
    let all = &v["overall"];
    assert_eq!(all["positions"], 6, "{v}");
    for key in ["top1", "any_listed", "first_action", "value_sign"] {
        assert_eq!(all[key], 1.0, "{key}: {v}");
    }
    assert!(all["mean_abs_value_diff"].as_f64().unwrap() < 1e-6, "{v}");
    assert_eq!(all["value_sign_positions"], 2, "|value| > 0.2: the two promotion positions (the Black chain's is 0.2)");
    let groups: Vec<&str> = v["by_unions"].as_array().unwrap().iter().map(|g| g["group"].as_str().unwrap()).collect();
    assert_eq!(groups, ["unions 0", "unions 1"]);
    let plies: u64 = v["by_ply"].as_array().unwrap().iter().map(|g| g["positions"].as_u64().unwrap()).sum();
    assert_eq!(plies, 6);

    // A network plays every position's whole turn; the table has a row per group.
    let model = tiny_model(dir.path());
    let out = run_ok(&["book", "compare", "--reference", s(&reference), "--model", s(&model), "--sims", "8", "--batch", "4", "--quiet"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("tiny at 8 simulations per decision"), "{table}");
    let row = table.lines().find(|l| l.starts_with("all ")).unwrap_or_else(|| panic!("{table}"));
    assert_eq!(row.split_whitespace().nth(1), Some("6"), "{table}");
    assert!(table.lines().any(|l| l.starts_with("unions 1 ")), "{table}");
    let json = run_ok(&["book", "compare", "--reference", s(&book), "--model", s(&model), "--sims", "8", "--json", "--quiet"]);
    let v: Value = serde_json::from_str(&String::from_utf8_lossy(&json.stdout)).unwrap();
    assert_eq!(v["overall"]["positions"], 6);
    let any = v["overall"]["any_listed"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&any), "{v}");

    let e = fails(&["book", "compare", "--reference", s(&dir.path().join("none.json")), "--book", s(&book)]);
    assert!(e.contains("none.json"), "{e}");
}
