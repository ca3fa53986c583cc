//! The platform's opening-book format through the binary: a hand-written
//! platform book (tests/data/platform_book.json: a Black mover, chains, and
//! promotions, positions with several moves) imported, exported back
//! (positions, action lists and values kept), used for self-play and arena
//! openings; bad books refused with the FEN and the index at fault and
//! nothing written; a built book exported with logits that reproduce its
//! visits; the three kinds of entry the platform's own books hold
//! (tests/data/platform_book_kinds.json) imported, exported back value for
//! value, probed and compared; twelve entries of the platform's own book
//! (tests/data/platform_book_hedwig_excerpt.json) imported and replayed.

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
    let out = run_ok(&["arena", "--players", "greedy", "greedy", "--games", "4", "--book", s(&win_book), "--out", s(&json)]);
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
    // Moves that cannot be replayed do not make a book malformed (see the kinds test).
    let cases: [(&str, String, &[&str]); 4] = [
        ("range.json", format!(r#"{{"{fen}": [0.1, [[0.5, [3, 140]]]]}}"#), &[fen, "move 1, action 2: index 140"]),
        ("position.json", r#"{"4k3/8/8/8/8/8/8/4K2R w 0 AHah - -": [0, []]}"#.into(), &["4k3/8/8/8/8/8/8/4K2R w 0 AHah - -", "FEN: ", "castling"]),
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

/// tests/data/platform_book_kinds.json: the three kinds of entry the
/// platform's own books hold (issue 34) and a pending promotion in each
/// colour: the issue's pair differing only in the half-move count, the
/// issue's Black position whose turn is a promotion (a lone pawn on e1, and
/// White's counterpart), a pawn the opponent carried home in each colour
/// (the promotion opens the turn), and the issue's finished game (White's
/// bishop united with Black's king on e8) that still lists a Black move.
fn kinds_book() -> PathBuf {
    manifest_dir().join("tests/data/platform_book_kinds.json")
}

const KIND1_3: &str = "rnbqkbnr/ppppp1pp/8/8/5a2/8/PPPP1PPP/RNBQKBNR w 3 AHah - -";
const KIND1_1: &str = "rnbqkbnr/ppppp1pp/8/8/5a2/8/PPPP1PPP/RNBQKBNR w 1 AHah - -";
const KIND3: &str = "rnbqXbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQK1NR b 0 AHah - -";

/// A platform book's entries as parsed JSON values, by FEN.
fn entries(path: &Path) -> BTreeMap<String, Value> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v.as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

#[test]
fn the_platforms_three_kinds_of_entry_import_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let input = kinds_book();
    let book = dir.path().join("kinds.parquet");
    let out = run_ok(&["book", "import", "--format", "platform", s(&input), "--out", s(&book)]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with(&format!("6 positions, 9 moves, 6 start positions, imported from {}", s(&input))), "{text}");
    assert_eq!(lines[1], "2 of 8 entries kept for export only, left out of lookups and comparisons:", "{text}");
    assert_eq!(lines[2], "  game over: 1", "{text}");
    assert!(lines[3].contains(KIND3) && lines[3].contains("the game is over (PacoVictory(w)), yet the entry lists 1 moves"), "{text}");
    assert_eq!(lines[4], "  same position, other half-move count: 1", "{text}");
    assert_eq!(lines[5], format!("    e.g. \"{KIND1_3}\" (looked up as \"{KIND1_1}\")"), "{text}");
    assert_eq!(lines.len(), 6, "{text}");

    // Every entry is a row, its FEN as written; the promotions replay.
    let (_, rows) = read_book(&book).unwrap();
    assert_eq!(rows.len(), 8);
    for r in rows.iter().filter(|r| r.skipped.is_none()) {
        replays(r);
    }
    let names: HashSet<&str> = rows.iter().flat_map(|r| r.moves.iter().map(|m| m.name.as_str())).collect();
    for turn in ["=Q", "=N", "=Q Ke1-d1", "=Q Ke8-d8", "Ng1-f3"] {
        assert!(names.contains(turn), "{turn} missing from {names:?}");
    }

    // Export gives back every key with the same JSON value (after parsing),
    // and imported again the same rows.
    let back = dir.path().join("back.json");
    run_ok(&["book", "export", "--book", s(&book), "--format", "platform", "--out", s(&back)]);
    assert_eq!(entries(&back), entries(&input));
    let again = dir.path().join("again.parquet");
    let out2 = run_ok(&["book", "import", s(&back), "--out", s(&again)]);
    assert_eq!(String::from_utf8_lossy(&out2.stdout).lines().skip(1).collect::<Vec<_>>(), lines[1..]);
    assert_eq!(read_book(&again).unwrap().1, rows);
    // Straight from the JSON file, export gives the same.
    let direct = run_ok(&["book", "export", "--book", s(&input), "--format", "platform"]);
    assert_eq!(String::from_utf8_lossy(&direct.stdout), std::fs::read_to_string(&back).unwrap());
}

#[test]
fn probe_and_compare_on_the_three_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let input = kinds_book();
    let book = dir.path().join("kinds.parquet");
    run_ok(&["book", "import", s(&input), "--out", s(&book)]);
    let probe = |fen: &str| String::from_utf8_lossy(&run_ok(&["book", "probe", "--book", s(&book), "--fen", fen]).stdout).into_owned();

    // Kind 1: the exact FEN's entry; another half-move count finds the smallest's.
    let p = probe(KIND1_3);
    assert!(p.contains(&format!("position: {KIND1_3}")) && p.contains(&format!("also in the book as: {KIND1_1}")), "{p}");
    assert!(p.contains("Nb1-c3") && !p.contains("Ng1-f3"), "{p}");
    let p = probe(&KIND1_3.replace(" 3 ", " 9 "));
    assert!(p.contains(&format!("position: {KIND1_1}")) && p.contains("Ng1-f3"), "{p}");
    // Kind 2 and the pending promotions: turns that start with a promotion.
    let p = probe("2h2r2/pp3ppk/5nNp/3d1wBP/3PeF2/P2D4/1P1R1P2/1KE1p3 b 1 - - -");
    assert!(p.contains("=Q ") && p.contains("=N "), "{p}");
    let p = probe("4k3/8/8/8/8/8/8/3cK3 b 0 - - -");
    assert!(p.contains("=Q Ke8-d8"), "{p}");
    // Kind 3 is kept for export only.
    let e = fails(&["book", "probe", "--book", s(&book), "--fen", KIND3]);
    assert!(e.contains("kept for export only: game over"), "{e}");

    // The imported book against its source: the left-out entries counted by
    // reason on both sides, every other position in full agreement.
    let out = run_ok(&["book", "compare", "--reference", s(&input), "--book", s(&book), "--json"]);
    let v: Value = serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
    let left_out = serde_json::json!({"game over": 1, "same position, other half-move count": 1});
    assert_eq!((&v["left_out"], &v["candidate_left_out"]), (&left_out, &left_out), "{v}");
    assert_eq!((v["reference_positions"].as_u64(), v["overall"]["positions"].as_u64()), (Some(8), Some(6)), "{v}");
    for key in ["top1", "any_listed", "first_action"] {
        assert_eq!(v["overall"][key], 1.0, "{key}: {v}");
    }
    let out = run_ok(&["book", "compare", "--reference", s(&input), "--book", s(&book)]);
    let table = String::from_utf8_lossy(&out.stdout);
    let left = "2 left out: 1 game over, 1 same position, other half-move count";
    assert!(table.lines().next().unwrap().contains(&format!("(8 entries, {left})")), "{table}");
    assert!(table.lines().nth(1).unwrap().ends_with(&format!("({left})")), "{table}");
    // A network plays every position's turn, the left-out entries counted too.
    let model = tiny_model(dir.path());
    let out = run_ok(&["book", "compare", "--reference", s(&book), "--model", s(&model), "--sims", "4", "--json", "--quiet"]);
    let v: Value = serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
    assert_eq!((&v["left_out"], v["overall"]["positions"].as_u64()), (&left_out, Some(6)), "{v}");
}

/// Twelve entries taken as written from the platform's own book
/// (`2024-05-12-book-hedwig0.8-1000-1.0.json`, see tests/data/README.md):
/// the standard start, Fischer-random starts, a chain that passes d6 and e5
/// three times, and a union with the king that ends the game.
fn hedwig_excerpt() -> PathBuf {
    manifest_dir().join("tests/data/platform_book_hedwig_excerpt.json")
}

#[test]
fn entries_of_the_platforms_own_book_import_replay_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let input = hedwig_excerpt();
    let book = dir.path().join("hedwig.parquet");
    let out = run_ok(&["book", "import", "--format", "platform", s(&input), "--out", s(&book)]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // Every entry is a position the engine replays; none is left out.
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("12 positions, 12 moves, 12 start positions, imported from"), "{text}");
    let (_, rows) = read_book(&book).unwrap();
    assert_eq!(rows.len(), 12);
    for r in &rows {
        assert!(r.skipped.is_none(), "{}", r.fen);
        replays(r);
    }
    let back = dir.path().join("back.json");
    run_ok(&["book", "export", "--book", s(&book), "--format", "platform", "--out", s(&back)]);
    assert_eq!(entries(&back), entries(&input));

    let probe = |fen: &str| String::from_utf8_lossy(&run_ok(&["book", "probe", "--book", s(&book), "--fen", fen]).stdout).into_owned();
    let p = probe("2kr1b2/ppp2p2/Q2Tpr1n/3pEB2/6a1/3oP1c1/PPPB1PP1/2KR4 b 4 - - -");
    assert!(p.contains("Bf8xd6>e5>d6>e5>d6>e5>g3>f2") && p.contains("+0.644"), "{p}");
    let p = probe("rn3b1r/4k3/b4n2/aaa1epep/P3P2P/2c5/2Q2PP1/RN1q1KN1 b 3 - - -");
    assert!(p.contains("Qd1xf1") && p.contains("+1.000"), "{p}");
    let p = probe("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -");
    assert!(p.contains("d2-d4"), "{p}");
}
