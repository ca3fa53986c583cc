//! A 100 MB line on the standard input of `pacozero uci` and of
//! `pacozero analysis`, each run under a 2 GiB address-space limit: one
//! error line names the line and the limit, the next command is answered,
//! and the engine's resident memory never holds the line.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

mod common;
use common::{bin, limit_address_space, s, tiny_model_of};

/// Address space each engine gets: 2 GiB.
const ENGINE_MEMORY: u64 = 2 << 30;
/// The long line: 100 MB, written in pieces of 1 MiB.
const LONG_LINE: u64 = 100_000_000;
/// The most resident memory an engine may reach: the line itself would
/// take more.
const MOST_RESIDENT: u64 = 64 << 20;

/// `pacozero ARGS` with piped input and output, under [`ENGINE_MEMORY`].
fn start(args: &[&str]) -> Child {
    let mut c = bin();
    c.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    limit_address_space(&mut c, ENGINE_MEMORY);
    c.spawn().unwrap()
}

/// Writes the long line of `x`s, then `after`, to the engine's input;
/// keeps the input open.
fn send_long_line(child: &mut Child, after: &str) {
    let stdin = child.stdin.as_mut().unwrap();
    let piece = vec![b'x'; 1 << 20];
    let mut left = LONG_LINE;
    while left > 0 {
        let n = left.min(piece.len() as u64) as usize;
        stdin.write_all(&piece[..n]).unwrap();
        left -= n as u64;
    }
    writeln!(stdin, "\n{after}").unwrap();
    stdin.flush().unwrap();
}

/// The engine's output lines, as they come.
fn output_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    rx
}

fn next(lines: &mpsc::Receiver<String>) -> String {
    lines.recv_timeout(Duration::from_secs(120)).expect("an output line within two minutes")
}

/// The process's peak resident memory so far (`VmHWM`), in bytes.
fn peak_resident(child: &Child) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc/PID/status");
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

#[test]
fn a_100_mb_line_is_one_error_within_2_gib_and_both_engines_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model_of::<pacozero_engine::paco::GameState>(dir.path(), "tiny");
    let refused = "input line 1 is 100000000 bytes long, over the limit of 1048576 bytes; the line is ignored";

    let mut uci = start(&["uci", "--model", s(&model)]);
    let lines = output_lines(&mut uci);
    send_long_line(&mut uci, "isready");
    assert_eq!(next(&lines), format!("info string error: {refused}"));
    assert_eq!(next(&lines), "readyok");
    let peak = peak_resident(&uci);
    eprintln!("uci: peak resident memory {} MiB", peak >> 20);
    assert!(peak < MOST_RESIDENT, "uci held {peak} bytes");
    writeln!(uci.stdin.as_mut().unwrap(), "quit").unwrap();
    let out = uci.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));

    let mut analysis = start(&["analysis", "--model", s(&model), "--threads", "1"]);
    let lines = output_lines(&mut analysis);
    send_long_line(&mut analysis, r#"{"id": "next", "max_visits": 5}"#);
    let error: serde_json::Value = serde_json::from_str(&next(&lines)).unwrap();
    assert_eq!(error, serde_json::json!({"id": null, "error": refused}));
    let answer: serde_json::Value = serde_json::from_str(&next(&lines)).unwrap();
    assert_eq!((&answer["id"], &answer["simulations"]), (&serde_json::json!("next"), &serde_json::json!(5)), "{answer}");
    let peak = peak_resident(&analysis);
    eprintln!("analysis: peak resident memory {} MiB", peak >> 20);
    assert!(peak < MOST_RESIDENT, "analysis held {peak} bytes");
    drop(analysis.stdin.take());
    let out = analysis.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
}
