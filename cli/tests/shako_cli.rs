//! The CLI's Shako paths: `perft --game shako` prints the leaf count last,
//! `legal --game shako` answers JSON lines with sorted UCI moves and a status,
//! `show --game shako` draws the 10x10 board after the given moves;
//! `analyze --game shako` and `play --game shako` search with a Shako
//! network, and refuse a network of the other game.

use std::io::Write;
use std::process::Stdio;

mod common;
use common::{bin, s, tiny_model_of};
use pacozero_engine::prelude::*;
use pacozero_engine::shako;

const START: &str = "c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq - 0 1";

fn last_line(out: &std::process::Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap().lines().last().unwrap_or_default().to_string()
}

#[test]
fn perft_counts_from_the_start_and_from_a_fen() {
    let out = bin().args(["perft", "--game", "shako", "--depth", "3"]).output().unwrap();
    assert_eq!(last_line(&out), "185938");
    // Cannon e9 on the king's file: pieces moving onto the file would become screens.
    let fen = "9k/4c5/10/10/10/RB8/2N7/10/4K5/10 w - - 0 1";
    let out = bin().args(["perft", "--game", "shako", "--fen", fen, "--depth", "3"]).output().unwrap();
    assert_eq!(last_line(&out), "17585");
}

#[test]
fn show_draws_the_board_after_the_moves_and_refuses_an_illegal_one() {
    let out = bin().args(["show", "--game", "shako", "--actions", "e3e5 e8e6"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Ranks 10..1, then the files, the FEN and the status.
    assert!(lines[0].starts_with("10 ") && lines[9].starts_with(" 1 "), "{text}");
    assert_eq!(lines[10].trim(), "a b c d e f g h i j");
    assert!(lines[11].contains(" w ") && lines[11].ends_with(" 0 2"), "{text}");
    assert_eq!(lines[5].split_whitespace().nth(5), Some("P"), "the pawn stands on e5: {text}");
    assert_eq!(lines[4].split_whitespace().nth(5), Some("p"), "the pawn stands on e6: {text}");
    assert!(text.contains("White to move; status: Running"), "{text}");
    let out = bin().args(["show", "--game", "shako", "--actions", "e3e5 e3e4"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("move 2 (e3e4)"), "{err}");
}

#[test]
fn perft_divide_lists_first_moves_in_uci_order() {
    let out = bin().args(["perft", "--game", "shako", "--fen", START, "--depth", "2", "--divide"]).output().unwrap();
    assert_eq!(last_line(&out), "3364");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 59);
    assert_eq!(lines[0], "a1b1: 58");
}

#[test]
fn perft_with_a_bad_fen_names_the_field() {
    let bad = START.replace(" w ", " x ");
    let out = bin().args(["perft", "--game", "shako", "--fen", &bad, "--depth", "1"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("side") && stderr.contains("'x'"), "{stderr}");
}

#[test]
fn legal_answers_each_line_and_survives_bad_ones() {
    let mut child = bin().args(["legal", "--game", "shako"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let lines = [
        format!("{{\"fen\": \"{START}\"}}"),
        "not json".to_string(),
        "{\"fen\": \"5n3e/8R1/3kn2b2/P6P2/b8p/2P7/5q4/10/4K2p2/1r8 w - - 1 47\"}".to_string(),
        "{\"fen\": \"10/6R3/5k4/3Q4B1/8P1/10/3N6/10/E9/5K4 b - - 6 65\"}".to_string(),
        "{\"fen\": \"c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq z9 0 1\"}".to_string(),
        format!("{{\"fen\": \"{START}\", \"moves\": \"h2g4 h9g7 g4h2 g7h9 h2g4 h9g7 g4h2 g7h9\"}}"),
        format!("{{\"fen\": \"{START}\", \"moves\": \"e3e6\"}}"),
    ];
    child.stdin.take().unwrap().write_all((lines.join("\n") + "\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let answers: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), lines.len());

    let moves = answers[0]["legal_moves"].as_array().unwrap();
    assert_eq!(moves.len(), 58);
    assert_eq!(moves[0], "a1b1");
    let mut sorted = moves.clone();
    sorted.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    assert_eq!(&sorted, moves);
    assert_eq!(answers[0]["status"], "Running");

    assert!(answers[1]["error"].as_str().unwrap().contains("line 2"), "{}", answers[1]);
    assert_eq!(answers[2]["legal_moves"], serde_json::json!([]));
    assert_eq!(answers[2]["status"], "Checkmate(b)");
    // The games table's and the Python package's words for the same.
    assert_eq!((&answers[2]["end_reason"], &answers[2]["winner"]), (&serde_json::json!("checkmate"), &serde_json::json!("black")));
    assert_eq!(answers[3]["status"], "Stalemate");
    assert_eq!((&answers[3]["end_reason"], &answers[3]["winner"]), (&serde_json::json!("stalemate"), &serde_json::Value::Null));
    let e = answers[4]["error"].as_str().unwrap();
    assert!(e.contains("line 5") && e.contains("en passant"), "{e}");
    assert_eq!(answers[5]["status"], "RepetitionDraw");
    let e = answers[6]["error"].as_str().unwrap();
    assert!(e.contains("line 7") && e.contains("e3e6"), "{e}");
}

/// Plays `moves` (UCI, space-separated) from `g`, failing on an illegal one.
fn replay(g: &shako::GameState, moves: &str) -> shako::GameState {
    let mut g = g.clone();
    for m in moves.split_whitespace() {
        let turn = g.parse_turn(m).unwrap_or_else(|e| panic!("{m} in {}: {e}", g.notation()));
        for d in turn {
            g.apply(d);
        }
    }
    g
}

#[test]
fn analyze_and_play_shako_with_a_shako_network() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model_of::<shako::GameState>(dir.path(), "tiny-shako");
    let out = bin().args(["analyze", "--game", "shako", "--model", s(&model), "--sims", "200", "--top", "3"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let pvs: Vec<&str> = text.lines().filter_map(|l| l.trim_start().strip_prefix("pv:")).collect();
    assert_eq!(pvs.len(), 3, "{text}");
    let start = shako::GameState::start();
    for pv in &pvs {
        let moves: Vec<&str> = pv.split_whitespace().filter(|m| !m.starts_with('[')).collect();
        assert!(!moves.is_empty(), "{text}");
        replay(&start, &moves.join(" "));
    }

    // A game: a legal move, undo, the same move, quit; the bot answers twice with legal moves.
    let mut legal = Vec::new();
    start.playable_actions(&mut legal);
    let first = start.action_name(legal[3]);
    let mut child = bin()
        .args(["play", "--game", "shako", "--model", s(&model), "--sims", "8"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let script = format!("z9z9\nmoves\n{first}\nundo\n{first}\nquit\n");
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("`z9z9` is not a legal decision here") && text.contains(&format!("{} legal turns", legal.len())), "{text}");
    assert!(text.contains("taken back") && text.contains("goodbye"), "{text}");
    assert!(text.contains("a b c d e f g h i j"), "the 10x10 board is drawn:\n{text}");
    let replies: Vec<&str> = text.lines().filter_map(|l| l.split("bot plays: ").nth(1)).map(|r| r.split_whitespace().next().unwrap()).collect();
    assert_eq!(replies.len(), 2, "{text}");
    for r in replies {
        replay(&start, &format!("{first} {r}"));
    }

    // A network of the other game is refused.
    let paco = tiny_model_of::<pacozero_engine::paco::GameState>(dir.path(), "tiny-paco");
    let out = bin().args(["analyze", "--game", "shako", "--model", s(&paco), "--sims", "5"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is not a shako network"), "{err}");
}

/// `tactics solve` works for the network's own game: a Shako network is
/// refused the bundled (Paco Ŝako) suite with a message, and solves a Shako
/// suite (here a position where any decision of its search is scored).
#[test]
fn tactics_solve_goes_by_the_networks_game() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model_of::<shako::GameState>(dir.path(), "tiny-shako");
    let out = bin().args(["tactics", "solve", "--model", s(&model), "--sims", "0"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the bundled suite is of paco") && err.contains("shako network") && err.contains("--suite"), "{err}");
    // A Shako suite: the start position, with a made-up "winning" move.
    let suite = dir.path().join("shako.jsonl");
    let start = shako::GameState::start().notation();
    std::fs::write(
        &suite,
        format!("{{\"fen\": \"{start}\", \"depth\": 1, \"winning_turns\": [\"e3e5\"], \"winning_actions\": [\"e3e5\"], \"source\": \"test\"}}\n"),
    )
    .unwrap();
    let out = bin().args(["tactics", "solve", "--model", s(&model), "--sims", "0", "--suite", s(&suite)]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("on 1 positions") && text.contains("win in 1: ") && text.contains("/1 solved"), "{text}");
}
