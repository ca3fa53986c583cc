//! Impossible positions (issue 16): every command that reads a position
//! refuses one with the validation error, naming the field and the square;
//! `legal` answers it in its JSON and goes on with the next line.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn pacozero(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pacozero"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the pacozero binary starts");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

const NO_ROOKS: &str = "4k3/8/8/8/8/8/8/4K3 w 0 AHah - -";
const NO_ROOKS_ERROR: &str = "impossible position: castling: right A: White's rook is missing from a1";
const EIGHT_KINGS: &str = "kkkkkkkk/8/8/8/8/8/8/KKKKKKKK w 0 - - -";
const BAD_EN_PASSANT: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah h6 -";

#[test]
fn legal_answers_the_validation_error_and_goes_on() {
    let input = format!(
        "{}\n{}\n{}\n{}\n",
        serde_json::json!({ "fen": NO_ROOKS }),
        serde_json::json!({ "fen": EIGHT_KINGS }),
        serde_json::json!({ "fen": BAD_EN_PASSANT }),
        serde_json::json!({ "fen": "4k3/8/8/8/8/8/8/4K3 w 0 - - -" }),
    );
    let out = pacozero(&["legal"], &input);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4);
    let error = |i: usize| lines[i]["error"].as_str().unwrap_or_else(|| panic!("line {}: no error in {}", i + 1, lines[i])).to_string();
    assert!(error(0).contains(NO_ROOKS_ERROR), "{}", error(0));
    assert!(error(1).contains("impossible position: board: 8 white kings (a1, b1, c1, d1, e1, f1, g1, h1)"), "{}", error(1));
    assert!(error(2).contains("impossible position: en passant: h6: no black pawn on h5 just skipped it"), "{}", error(2));
    // A study with two lone kings is accepted.
    assert_eq!(lines[3]["status"], "Running", "{}", lines[3]);
}

#[test]
fn legal_for_shako_answers_the_validation_error() {
    let input = format!("{}\n", serde_json::json!({ "fen": "9k/10/10/10/10/10/10/10/P9/K9 w - - 0 1" }));
    let out = pacozero(&["legal", "--game", "shako"], &input);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line: serde_json::Value = serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    let error = line["error"].as_str().unwrap_or_else(|| panic!("no error in {line}"));
    assert!(error.contains("White's pawn on a2 stands behind its third rank"), "{error}");
}

#[test]
fn show_perft_and_analyze_refuse_an_impossible_position() {
    for args in [
        vec!["show", "--fen", NO_ROOKS],
        vec!["perft", "--fen", NO_ROOKS, "--depth", "1"],
        vec!["analyze", "--model", "no-such-model", "--fen", NO_ROOKS, "--sims", "1"],
    ] {
        let out = pacozero(&args, "");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "pacozero {args:?}: {err}");
        assert!(!err.contains("panicked"), "pacozero {args:?} panicked: {err}");
        assert!(err.contains(NO_ROOKS_ERROR), "pacozero {args:?}: {err}");
    }
}
