//! `pacozero analysis`, the JSON-lines analysis engine, driven as a
//! subprocess: concurrent queries sharing network calls, termination, bad
//! queries mixed with good ones, and every returned principal variation
//! replayed by the engine, for Paco Ŝako and Shako.

use pacozero_engine::paco::GameState;
use pacozero_engine::{shako, Game, Outcome};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

mod common;
use common::{bin, s, tiny_model_of};
use pacozero_engine::prelude::*;

/// A running analysis engine.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: mpsc::Receiver<Value>,
}

impl Engine {
    fn start(model: &Path, extra: &[&str]) -> Engine {
        let mut child = bin()
            .args(["analysis", "--model", s(model), "--threads", "1"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.unwrap();
                let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("an answer is not JSON ({e}): {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine { child, stdin, answers }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("input open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    fn next(&self) -> Value {
        self.answers.recv_timeout(Duration::from_secs(120)).expect("an answer within two minutes")
    }

    /// Closes the input, collects the remaining answers and checks that the
    /// engine exits with status 0; returns them and its standard error.
    fn finish(mut self) -> (Vec<Value>, String) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        while let Ok(v) = self.answers.recv_timeout(Duration::from_secs(120)) {
            rest.push(v);
        }
        let out = self.child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "analysis exited with {:?}: {err}", out.status);
        (rest, err)
    }
}

/// Leaves per network call, from the engine's closing line on stderr.
fn leaves_per_call(stderr: &str) -> f64 {
    let line = stderr.lines().find(|l| l.contains("leaves per call")).unwrap_or_else(|| panic!("no statistics line: {stderr}"));
    let before = line.split(" leaves per call").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

fn paco_model(dir: &Path) -> std::path::PathBuf {
    tiny_model_of::<GameState>(dir, "tiny")
}

#[test]
fn concurrent_queries_share_network_calls_and_are_answered_as_they_finish() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = Engine::start(&paco_model(dir.path()), &["--max-concurrent", "8"]);
    e.send(r#"{"id": "long", "max_visits": 500}"#);
    e.send(r#"{"id": "short", "max_visits": 20, "moves": ["e2-e4"]}"#);
    for i in 0..6 {
        e.send(&json!({"id": i, "max_visits": 400, "actions": ["Lb1", "Pc3"]}).to_string());
    }
    let (answers, err) = e.finish();
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(answers.len(), 8, "{answers:?}");
    for a in &answers {
        assert!(a.get("error").is_none(), "{a}");
    }
    // Searched at once: the short query ends long before the long one.
    assert_eq!(ids[0], "short", "{ids:?}");
    for (id, sims) in [(json!("long"), 500), (json!("short"), 20), (json!(3), 400)] {
        let a = answers.iter().find(|a| a["id"] == id).unwrap();
        assert_eq!(a["simulations"], sims, "{a}");
        assert_eq!(a["terminated"], false);
        let visits: u64 = a["top_moves"].as_array().unwrap().iter().map(|m| m["visits"].as_u64().unwrap()).sum();
        assert!(visits > 0 && visits <= sims, "{a}");
    }
    // Eight searches at once: a network call carries several leaves.
    let per_call = leaves_per_call(&err);
    assert!(per_call > 3.0, "{per_call} leaves per call: {err}");

    // One at a time: one leaf per call.
    let mut e = Engine::start(&paco_model(dir.path()), &["--max-concurrent", "1"]);
    e.send(r#"{"id": 1, "max_visits": 50}"#);
    e.send(r#"{"id": 2, "max_visits": 50}"#);
    let (answers, err) = e.finish();
    assert_eq!(answers.iter().map(|a| a["id"].clone()).collect::<Vec<_>>(), [json!(1), json!(2)]);
    assert_eq!(leaves_per_call(&err), 1.0, "{err}");
}

#[test]
fn terminate_stops_a_query_with_what_it_has_and_the_engine_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = Engine::start(&paco_model(dir.path()), &[]);
    e.send(r#"{"id": "deep", "max_visits": 1000000}"#);
    std::thread::sleep(Duration::from_millis(500));
    e.send(r#"{"action": "terminate", "id": "deep"}"#);
    let a = e.next();
    assert_eq!((&a["id"], &a["terminated"]), (&json!("deep"), &json!(true)), "{a}");
    let sims = a["simulations"].as_u64().unwrap();
    assert!(sims > 0 && sims < 1_000_000, "{a}");
    assert!(!a["top_moves"].as_array().unwrap().is_empty(), "{a}");

    // Still serving.
    e.send(r#"{"id": "next", "max_visits": 30}"#);
    let a = e.next();
    assert_eq!((&a["id"], &a["simulations"], &a["terminated"]), (&json!("next"), &json!(30), &json!(false)), "{a}");

    // A terminate for nothing pending is a warning, not a stop.
    e.send(r#"{"action": "terminate", "id": "deep"}"#);
    let a = e.next();
    assert!(a["warning"].as_str().unwrap().contains("no query with id \"deep\" is pending"), "{a}");

    // terminate_all stops running and queued queries alike.
    e.send(r#"{"id": "x", "max_visits": 1000000}"#);
    e.send(r#"{"id": "y", "max_time_ms": 600000}"#);
    std::thread::sleep(Duration::from_millis(300));
    e.send(r#"{"action": "terminate_all", "id": "all"}"#);
    let mut stopped = [e.next(), e.next()];
    stopped.sort_by_key(|a| a["id"].as_str().unwrap().to_string());
    for (a, id) in stopped.iter().zip(["x", "y"]) {
        assert_eq!((&a["id"], &a["terminated"]), (&json!(id), &json!(true)), "{a}");
    }
    let (rest, _) = e.finish();
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn a_time_limit_ends_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = Engine::start(&paco_model(dir.path()), &[]);
    e.send(r#"{"id": "t", "max_time_ms": 300}"#);
    let (answers, _) = e.finish();
    let a = &answers[0];
    let ms = a["time_ms"].as_f64().unwrap();
    assert!((300.0..5000.0).contains(&ms), "{a}");
    assert!(a["simulations"].as_u64().unwrap() > 0 && a["terminated"] == false, "{a}");
}

#[test]
fn bad_lines_get_one_error_each_naming_the_problem_and_good_ones_are_answered() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = Engine::start(&paco_model(dir.path()), &["--visit-cap", "5000", "--max-concurrent", "1"]);
    // Every kind of bad line is tested in process (protocol/tests/analysis.rs);
    // here, that the binary answers them and counts them.
    let bad: [(&str, Value, &str); 3] = [
        ("{not json", Value::Null, "line 1: not a JSON object"),
        (r#"{"id": "c", "max_visits": 6000}"#, json!("c"), "above this engine's cap of 5000"),
        (r#"{"id": "g", "game": "shako"}"#, json!("g"), "this engine's network plays paco"),
    ];
    let mut expected_good = Vec::new();
    for (i, (line, _, _)) in bad.iter().enumerate() {
        e.send(line);
        // A good query after each bad line.
        let id = format!("good{i}");
        e.send(&json!({"id": id, "max_visits": 8, "rules": {"no_union_undo": i % 2 == 0}}).to_string());
        expected_good.push(id);
        e.send("");
    }
    // The same id twice while the first is pending.
    e.send(r#"{"id": "dup", "max_visits": 2000}"#);
    e.send(r#"{"id": "dup", "max_visits": 5}"#);
    let (answers, err) = e.finish();
    let errors: Vec<&Value> = answers.iter().filter(|a| a.get("error").is_some()).collect();
    assert_eq!(errors.len(), bad.len() + 1, "{errors:#?}");
    for (line, id, message) in &bad {
        let hit = errors.iter().find(|a| &a["id"] == id && a["error"].as_str().unwrap().contains(message));
        assert!(hit.is_some(), "no error {message:?} for {line}: {errors:#?}");
    }
    assert!(errors.iter().any(|a| a["id"] == "dup" && a["error"].as_str().unwrap().contains("already pending")), "{errors:#?}");
    let mut good: Vec<String> = answers.iter().filter(|a| a.get("error").is_none()).map(|a| a["id"].as_str().unwrap().to_string()).collect();
    good.sort();
    expected_good.push("dup".into());
    expected_good.sort();
    assert_eq!(good, expected_good);
    assert!(err.contains(&format!("{} lines refused", bad.len() + 1)), "{err}");
}

/// Replays an answer's turns and principal variations from `root` (the
/// position the query named), failing on anything illegal.
fn replay_answer<G: Game>(root: &G, a: &Value) -> usize {
    assert_eq!(a["fen"], root.notation(), "{a}");
    let mut checked = 0;
    for m in a["top_moves"].as_array().unwrap() {
        let name = m["move"].as_str().unwrap();
        let decisions = root.parse_turn(name).unwrap_or_else(|e| panic!("top move {name} does not read in {}: {e}", root.notation()));
        let names: Vec<String> = {
            let mut g = root.clone();
            decisions
                .iter()
                .map(|&d| {
                    let n = g.action_name(d);
                    g.apply(d);
                    n
                })
                .collect()
        };
        assert_eq!(m["actions"], json!(names), "{m}");
        let pv = m["pv"].as_array().unwrap();
        assert_eq!(pv[0], m["move"], "{m}");
        let mut g = root.clone();
        for (k, turn) in pv.iter().enumerate() {
            let turn = turn.as_str().unwrap();
            assert!(g.outcome().is_none(), "pv goes on after the game ended: {m}");
            match turn.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
                Some(partial) => {
                    assert_eq!(k, pv.len() - 1, "an unfinished turn ends the pv: {m}");
                    for d in partial.split_whitespace() {
                        let a = g.parse_action(d).unwrap_or_else(|| panic!("pv decision {d} illegal in {}: {m}", g.notation()));
                        g.apply(a);
                    }
                }
                None => {
                    let ds = g.parse_turn(turn).unwrap_or_else(|e| panic!("pv turn {turn} illegal in {}: {e}: {m}", g.notation()));
                    for d in ds {
                        g.apply(d);
                    }
                }
            }
            checked += 1;
        }
    }
    checked
}

/// The game of query `q` (`fen`, or `start_fen` plus `actions` or `moves`; `rules`).
fn root_of<G: Game>(q: &Value) -> G {
    let fen = q.get("fen").or(q.get("start_fen")).and_then(Value::as_str);
    let rules: Vec<&str> =
        q.get("rules").and_then(Value::as_object).into_iter().flatten().filter(|(_, on)| on.as_bool() == Some(true)).map(|(r, _)| r.as_str()).collect();
    let start = G::start().notation();
    let mut g = G::from_notation_with_rules(fen.unwrap_or(&start), &rules).unwrap();
    for name in q.get("actions").and_then(Value::as_array).into_iter().flatten() {
        let a = g.parse_action(name.as_str().unwrap()).unwrap();
        g.apply(a);
    }
    for turn in q.get("moves").and_then(Value::as_array).into_iter().flatten() {
        for a in g.parse_turn(turn.as_str().unwrap()).unwrap() {
            g.apply(a);
        }
    }
    g
}

fn check_pvs<G: Game>(model: &Path, queries: &[Value]) {
    let mut e = Engine::start(model, &[]);
    for q in queries {
        e.send(&q.to_string());
    }
    let (answers, _) = e.finish();
    assert_eq!(answers.len(), queries.len());
    let mut pv_turns = 0;
    for q in queries {
        let a = answers.iter().find(|a| a["id"] == q["id"]).unwrap();
        assert!(a.get("error").is_none(), "{q} -> {a}");
        assert_eq!(a["game"], G::NAME);
        pv_turns += replay_answer(&root_of::<G>(q), a);
    }
    assert!(pv_turns > 10 * queries.len(), "only {pv_turns} pv turns checked");
}

#[test]
fn every_paco_pv_replays_as_legal() {
    let dir = tempfile::tempdir().unwrap();
    // Unions, chains, promotions, a Black mover, the middle of a turn.
    let queries = [
        json!({"id": "start", "max_visits": 400, "top_moves": 0}),
        json!({"id": "moves", "moves": ["e2-e4", "d7-d5", "e4xd5"], "max_visits": 300, "top_moves": 0, "pv_turns": 20}),
        json!({"id": "mid-turn", "actions": ["Lg1", "Pf3", "Lb8"], "max_visits": 300, "top_moves": 0}),
        json!({"id": "chains", "fen": "2jT1s1B/5k2/8/1b3oCa/a3fb2/Nac1e3/5K1c/6C1 w 3 - - -", "max_visits": 400, "top_moves": 0}),
        json!({"id": "rules", "fen": "2jT1s1B/5k2/8/1b3oCa/a3fb2/Nac1e3/5K1c/6C1 w 3 - - -", "rules": {"no_union_undo": true, "king_chain_draw": true}, "max_visits": 200, "top_moves": 0}),
        json!({"id": "promotion", "fen": "8/1P2k3/8/8/8/8/4K3/8 w 0 - - -", "max_visits": 200, "top_moves": 0}),
    ];
    check_pvs::<GameState>(&paco_model(dir.path()), &queries);
}

#[test]
fn every_shako_pv_replays_as_legal() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model_of::<shako::GameState>(dir.path(), "tiny-shako");
    // Three opening moves the engine itself calls legal.
    let mut g = shako::GameState::start();
    let mut legal = Vec::new();
    let mut moves = Vec::new();
    for k in [0, 5, 9] {
        g.playable_actions(&mut legal);
        let a = legal[k % legal.len()];
        moves.push(g.turn_notation(&[a]));
        g.apply(a);
    }
    // A middle game position by notation: twenty more such decisions.
    let mut mid = g.clone();
    for k in 0..20 {
        mid.playable_actions(&mut legal);
        mid.apply(legal[(7 * k + 3) % legal.len()]);
    }
    assert!(mid.outcome().is_none());
    let queries = [
        json!({"id": "start", "game": "shako", "max_visits": 300, "top_moves": 0}),
        json!({"id": "moves", "moves": moves, "max_visits": 300, "top_moves": 0}),
        json!({"id": "fen", "fen": mid.notation(), "max_visits": 300, "top_moves": 0}),
    ];
    check_pvs::<shako::GameState>(&model, &queries);

    let mut e = Engine::start(&model, &[]);
    e.send(r#"{"id": 1, "game": "paco"}"#);
    e.send(r#"{"id": 2, "rules": {"no_union_undo": true}}"#);
    let (answers, _) = e.finish();
    assert!(answers[0]["error"].as_str().unwrap().contains("network plays shako"), "{answers:?}");
    assert!(answers[1]["error"].as_str().unwrap().contains("shako has no optional rule `no_union_undo` (it has: none)"), "{answers:?}");
}

#[test]
fn a_won_position_names_the_winning_turn() {
    let dir = tempfile::tempdir().unwrap();
    // Paco in 1 from the tactics suite: White's Nc5xd7 unites with the king.
    let fen = "rn3b1r/3kppp1/ppp2n2/2Np1E2/2P1F1P1/1P2B2p/P1Q1P2P/R2K1BNR w 8 - - -";
    let mut e = Engine::start(&paco_model(dir.path()), &[]);
    e.send(&json!({"id": "win", "fen": fen}).to_string());
    let (answers, _) = e.finish();
    let a = &answers[0];
    assert_eq!((&a["forced_win"], &a["value"]), (&json!(true), &json!(1.0)), "{a}");
    let root = GameState::from_notation(fen).unwrap();
    let turn = a["top_moves"][0]["move"].as_str().unwrap();
    let mut g = root.clone();
    for d in root.parse_turn(turn).unwrap() {
        g.apply(d);
    }
    assert_eq!(g.outcome(), Some(Outcome::Win(root.to_move())), "{a}");
}

/// A pending promotion with nothing in hand opens the mover's turn (issue
/// 34, kind 2): the platform's book entry with a lone Black pawn on e1 (the
/// promotion is the whole turn) and a White pawn Black carried home in a
/// union (the promotion opens a longer turn). Every top move is a whole turn
/// that starts with the promotion and replays as legal.
#[test]
fn a_pending_promotion_opens_the_turn_in_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let queries = [("lone", "2h2r2/pp3ppk/5nNp/3d1wBP/3PeF2/P2D4/1P1R1P2/1KE1p3 b 1 - - -"), ("carried", "3Ck3/8/8/8/8/8/8/4K3 w 0 - - -")];
    let mut e = Engine::start(&paco_model(dir.path()), &[]);
    for (id, fen) in queries {
        e.send(&json!({"id": id, "fen": fen, "max_visits": 100, "top_moves": 0}).to_string());
    }
    let (answers, _) = e.finish();
    for (id, fen) in queries {
        let a = answers.iter().find(|a| a["id"] == id).unwrap_or_else(|| panic!("no answer {id}: {answers:?}"));
        let root = GameState::from_notation(fen).unwrap();
        let moves: Vec<&str> = a["top_moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap()).collect();
        assert!(!moves.is_empty() && moves.iter().all(|m| m.starts_with('=')), "{id}: {moves:?}");
        if id == "lone" {
            let mut sorted = moves.clone();
            sorted.sort();
            assert_eq!(sorted, ["=B", "=N", "=Q", "=R"], "{id}: the promotion is the whole turn");
        } else {
            assert!(moves.iter().all(|m| m.len() > 2), "{id}: the promotion opens the turn: {moves:?}");
        }
        assert!(replay_answer(&root, a) > 0, "{id}: {a}");
    }
}
