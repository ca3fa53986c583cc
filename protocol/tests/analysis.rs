//! The JSON-lines analysis engine (`pacozero_search::serve`) driven in
//! process with a constant evaluator: concurrent queries sharing evaluator
//! calls, termination, time limits, bad lines answered one error each, the
//! answer's fields, a won root. `cli/tests/analysis.rs` drives the same
//! engine as `pacozero analysis` with a network.

use std::io::{BufReader, Read, Write};
use std::sync::mpsc;
use std::time::Duration;

use pacozero_engine::paco::GameState;
use pacozero_engine::Outcome;
use pacozero_protocol::analysis::{serve, ServeOptions, ServeStats};
use serde_json::{json, Value};

use pacozero_engine::prelude::*;
use pacozero_testkit::Constant;

/// The engine's input: lines sent from the test as it goes.
struct Input {
    lines: mpsc::Receiver<String>,
    buf: Vec<u8>,
    at: usize,
}

impl Read for Input {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.buf.len() {
            match self.lines.recv() {
                Ok(line) => (self.buf, self.at) = (format!("{line}\n").into_bytes(), 0),
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The engine's output: each answer line handed to the test as written.
struct Output {
    partial: Vec<u8>,
    answers: mpsc::Sender<Value>,
}

impl Write for Output {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(b);
        while let Some(k) = self.partial.iter().position(|&c| c == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=k).collect();
            let v: Value = serde_json::from_slice(&line).unwrap_or_else(|e| panic!("an answer is not JSON ({e}): {}", String::from_utf8_lossy(&line)));
            let _ = self.answers.send(v);
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A running engine.
struct Engine {
    input: Option<mpsc::Sender<String>>,
    answers: mpsc::Receiver<Value>,
    /// The run's figures once `serve` returns.
    done: mpsc::Receiver<ServeStats>,
}

impl Engine {
    fn start(opts: ServeOptions) -> Engine {
        Engine::with_input(opts, &[])
    }

    /// An engine whose input already holds `lines` when it starts (so that
    /// it reads them together, not as they race its first searches).
    fn with_input(opts: ServeOptions, lines: &[String]) -> Engine {
        let (tx, rx) = mpsc::channel();
        for l in lines {
            tx.send(l.clone()).unwrap();
        }
        let (atx, arx) = mpsc::channel();
        let (dtx, done) = mpsc::channel();
        // Detached: a test fails on an engine that never ends instead of
        // waiting for it.
        std::thread::spawn(move || {
            let input = BufReader::new(Input { lines: rx, buf: Vec::new(), at: 0 });
            let mut output = Output { partial: Vec::new(), answers: atx };
            let ev = Constant { white: [0.4, 0.3, 0.3], black: [0.3, 0.3, 0.4] };
            let _ = dtx.send(serve::<GameState, _, _, _>(input, &mut output, &ev, &opts).unwrap());
        });
        Engine { input: Some(tx), answers: arx, done }
    }

    fn send(&self, line: &str) {
        self.input.as_ref().unwrap().send(line.to_string()).unwrap();
    }

    fn next(&self) -> Value {
        self.answers.recv_timeout(Duration::from_secs(10)).expect("an answer within 10 s")
    }

    /// Ends the input; the remaining answers and the run's figures.
    fn finish(mut self) -> (Vec<Value>, ServeStats) {
        drop(self.input.take());
        let stats = self.done.recv_timeout(Duration::from_secs(20)).expect("the engine ends within 20 s of its input");
        (self.answers.try_iter().collect(), stats)
    }
}

fn opts(max_concurrent: usize) -> ServeOptions {
    ServeOptions { max_concurrent, ..ServeOptions::default() }
}

fn answer<'a>(answers: &'a [Value], id: &Value) -> &'a Value {
    answers.iter().find(|a| &a["id"] == id).unwrap_or_else(|| panic!("no answer {id}: {answers:?}"))
}

#[test]
fn concurrent_queries_share_evaluator_calls_and_are_answered_as_they_finish() {
    // Eight equal searches at once: an evaluator call carries several leaves.
    let lines: Vec<String> = (0..8).map(|i| json!({"id": i, "max_visits": 200, "actions": ["Lb1", "Pc3"]}).to_string()).collect();
    let (answers, stats) = Engine::with_input(opts(8), &lines).finish();
    assert_eq!(answers.len(), 8, "{answers:?}");
    for a in &answers {
        assert_eq!((&a["simulations"], &a["terminated"]), (&json!(200), &json!(false)), "{a}");
        let visits: u64 = a["top_moves"].as_array().unwrap().iter().map(|m| m["visits"].as_u64().unwrap()).sum();
        assert!(visits > 0 && visits <= 200, "{a}");
        assert!(a["visits"].as_u64().unwrap() >= 200, "{a}");
    }
    assert_eq!((stats.answered, stats.errors), (8, 0));
    assert_eq!(stats.mean_batch(), stats.evaluated as f64 / stats.batches as f64);
    assert!(stats.mean_batch() > 3.0, "{stats:?}");
    // Searched side by side: a short query ends long before a long one.
    let lines = [r#"{"id": "long", "max_visits": 300000}"#.to_string(), r#"{"id": "short", "max_visits": 10, "moves": ["e2-e4"]}"#.to_string()];
    let (answers, _) = Engine::with_input(opts(8), &lines).finish();
    assert_eq!(answers.iter().map(|a| a["id"].clone()).collect::<Vec<_>>(), [json!("short"), json!("long")]);
    let mut after = GameState::new(pacozero_engine::paco::Position::startpos());
    for d in after.clone().parse_turn("e2-e4").unwrap() {
        after.apply(d);
    }
    assert_eq!(answers[0]["fen"], after.notation(), "the position after the moves");
    // One search at a time: one leaf a call, answers in order.
    let e = Engine::start(opts(1));
    e.send(r#"{"id": 1, "max_visits": 30}"#);
    e.send(r#"{"id": 2, "max_visits": 30}"#);
    let (answers, stats) = e.finish();
    assert_eq!(answers.iter().map(|a| a["id"].clone()).collect::<Vec<_>>(), [json!(1), json!(2)]);
    assert_eq!(stats.mean_batch(), 1.0, "{stats:?}");
    assert_eq!(ServeStats::default().mean_batch(), 0.0, "no call, no mean");
}

#[test]
fn terminate_stops_a_query_with_what_it_has_and_the_engine_goes_on() {
    let e = Engine::start(opts(1));
    e.send(r#"{"id": "deep", "max_visits": 1000000}"#);
    // Queued behind it (one search at a time): answered without a search.
    e.send(r#"{"id": "queued", "max_visits": 50}"#);
    std::thread::sleep(Duration::from_millis(300));
    e.send(r#"{"action": "terminate", "id": "queued"}"#);
    let a = e.next();
    assert_eq!((&a["id"], &a["terminated"], &a["simulations"]), (&json!("queued"), &json!(true), &json!(0)), "{a}");
    e.send(r#"{"action": "terminate", "id": "deep"}"#);
    let a = e.next();
    assert_eq!((&a["id"], &a["terminated"]), (&json!("deep"), &json!(true)), "{a}");
    let sims = a["simulations"].as_u64().unwrap();
    assert!(sims > 0 && sims < 100_000_000, "{a}");
    assert!(!a["top_moves"].as_array().unwrap().is_empty(), "{a}");
    // Still serving.
    e.send(r#"{"id": "next", "max_visits": 20}"#);
    let a = e.next();
    assert_eq!((&a["id"], &a["simulations"], &a["terminated"]), (&json!("next"), &json!(20), &json!(false)), "{a}");
    // A terminate for nothing pending is a warning, not a stop.
    e.send(r#"{"action": "terminate", "id": "deep"}"#);
    let a = e.next();
    assert!(a["warning"].as_str().unwrap().contains("no query with id \"deep\" is pending"), "{a}");
    // terminate_all stops running and queued queries alike.
    e.send(r#"{"id": "x", "max_visits": 1000000}"#);
    e.send(r#"{"id": "y", "max_time_ms": 600000}"#);
    std::thread::sleep(Duration::from_millis(200));
    e.send(r#"{"action": "terminate_all", "id": "all"}"#);
    let mut stopped = [e.next(), e.next()];
    stopped.sort_by_key(|a| a["id"].as_str().unwrap().to_string());
    for (a, id) in stopped.iter().zip(["x", "y"]) {
        assert_eq!((&a["id"], &a["terminated"]), (&json!(id), &json!(true)), "{a}");
    }
    assert_eq!(stopped[1]["simulations"], 0, "y was queued");
    let (rest, stats) = e.finish();
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!((stats.answered, stats.errors), (5, 0));
}

#[test]
fn a_time_limit_ends_the_search() {
    let e = Engine::start(opts(4));
    e.send(r#"{"id": "t", "max_time_ms": 200}"#);
    let (answers, _) = e.finish();
    let a = &answers[0];
    let ms = a["time_ms"].as_f64().unwrap();
    assert!((200.0..950.0).contains(&ms), "the search's own time, in ms: {a}");
    assert!(a["simulations"].as_u64().unwrap() > 0 && a["terminated"] == false, "{a}");
}

#[test]
fn bad_lines_get_one_error_each_naming_the_problem_and_good_ones_are_answered() {
    let e = Engine::start(ServeOptions { visit_cap: 5000, max_concurrent: 1, ..ServeOptions::default() });
    let bad: [(&str, Value, &str); 15] = [
        ("{not json", Value::Null, "line 1: not a JSON object"),
        ("[1, 2]", Value::Null, "expected a JSON object, got an array"),
        (r#"{"max_visits": 10}"#, Value::Null, "missing field `id`"),
        (r#"{"id": [1], "max_visits": 10}"#, Value::Null, "`id` must be a string or a number"),
        (r#"{"id": "u", "max_vists": 10}"#, json!("u"), "unknown field `max_vists`"),
        (r#"{"id": "m", "moves": ["e2-e4", "e7-e4"]}"#, json!("m"), "moves[1] `e7-e4`"),
        (r#"{"id": "a", "actions": ["Le2", "Pe5"]}"#, json!("a"), "actions[1] `Pe5` is not a legal decision"),
        (r#"{"id": "k", "fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w 0 - - -"}"#, json!("k"), "`fen`"),
        (r#"{"id": "b", "fen": "8/8/8/8/8/8/8/8 w 0 - - -", "start_fen": "8/8/8/8/8/8/8/8 w 0 - - -"}"#, json!("b"), "not both"),
        (r#"{"id": "z", "max_visits": 0}"#, json!("z"), "`max_visits` must be at least 1"),
        (r#"{"id": "c", "max_visits": 6000}"#, json!("c"), "above this engine's cap of 5000"),
        (r#"{"id": "g", "game": "shako"}"#, json!("g"), "this engine's network plays paco"),
        (r#"{"id": "r", "rules": {"no_such_rule": false}}"#, json!("r"), "no optional rule `no_such_rule`"),
        (r#"{"id": "w", "action": "ponder"}"#, json!("w"), "unknown action `ponder`"),
        (r#"{"id": "t", "action": "terminate", "max_visits": 3}"#, json!("t"), "`max_visits` has no meaning in a `terminate` line"),
    ];
    let mut expected_good = Vec::new();
    for (i, (line, _, _)) in bad.iter().enumerate() {
        e.send(line);
        let id = format!("good{i}");
        e.send(&json!({"id": id, "max_visits": 8, "rules": {"no_union_undo": i % 2 == 0}}).to_string());
        expected_good.push(id);
        e.send("");
    }
    // The same id twice while the first is pending (a number id this time).
    e.send(r#"{"id": 7, "max_visits": 2000}"#);
    e.send(r#"{"id": 7, "max_visits": 5}"#);
    let (answers, stats) = e.finish();
    let errors: Vec<&Value> = answers.iter().filter(|a| a.get("error").is_some()).collect();
    assert_eq!(errors.len(), bad.len() + 1, "{errors:#?}");
    for (line, id, message) in &bad {
        let hit = errors.iter().find(|a| &a["id"] == id && a["error"].as_str().unwrap().contains(message));
        assert!(hit.is_some(), "no error {message:?} for {line}: {errors:#?}");
    }
    assert!(errors.iter().any(|a| a["id"] == 7 && a["error"] == "a query with id 7 is already pending"), "{errors:#?}");
    let mut good: Vec<String> = answers.iter().filter(|a| a.get("error").is_none()).map(|a| a["id"].to_string()).collect();
    good.sort();
    let mut expected: Vec<String> = expected_good.iter().map(|id| json!(id).to_string()).collect();
    expected.push("7".into());
    expected.sort();
    assert_eq!(good, expected);
    assert_eq!((stats.answered, stats.errors), (bad.len() + 1, bad.len() + 1));
}

#[test]
fn an_answer_holds_the_position_its_moves_and_the_policy_asked_for() {
    let e = Engine::start(opts(2));
    e.send(r#"{"id": "p", "max_visits": 64, "top_moves": 3, "pv_turns": 1, "include_policy": true}"#);
    e.send(r#"{"id": "all", "max_visits": 64, "top_moves": 0, "moves": ["e2-e4"]}"#);
    let (answers, _) = e.finish();
    let a = answer(&answers, &json!("p"));
    let start = GameState::new(pacozero_engine::paco::Position::startpos());
    assert_eq!((&a["game"], &a["fen"], &a["to_move"], &a["network"]), (&json!("paco"), &json!(start.notation()), &json!("white"), &json!("constant")), "{a}");
    let moves = a["top_moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3, "{a}");
    let visits: Vec<u64> = moves.iter().map(|m| m["visits"].as_u64().unwrap()).collect();
    assert!(visits.windows(2).all(|w| w[0] >= w[1]), "most visited first: {visits:?}");
    for m in moves {
        let wdl: Vec<f64> = m["wdl"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        assert!((wdl.iter().sum::<f64>() - 1.0).abs() < 1e-5, "{m}");
        assert!((m["q"].as_f64().unwrap() - (wdl[0] - wdl[2])).abs() < 1e-5, "{m}");
        let pv = m["pv"].as_array().unwrap();
        assert!(!pv.is_empty() && pv.len() <= 2 && pv[0] == m["move"], "{m}");
        let turn = start.parse_turn(m["move"].as_str().unwrap()).unwrap();
        // The decisions' names, and the product of their (uniform) priors.
        let (mut g, mut names, mut prior) = (start.clone(), Vec::new(), 1.0f64);
        for &d in &turn {
            let mut legal = Vec::new();
            g.playable_actions(&mut legal);
            prior /= legal.len() as f64;
            names.push(g.action_name(d));
            g.apply(d);
        }
        assert_eq!(m["actions"], json!(names), "{m}");
        assert!((m["prior"].as_f64().unwrap() - prior).abs() < 2e-6, "{m}: prior {prior}");
    }
    let policy = a["policy"].as_array().unwrap();
    let priors: Vec<f64> = policy.iter().map(|p| p["prior"].as_f64().unwrap()).collect();
    let mut legal = Vec::new();
    start.legal_actions(&mut legal);
    assert_eq!(policy.len(), legal.len(), "{a}");
    assert!((priors.iter().sum::<f64>() - 1.0).abs() < 1e-4 && priors.windows(2).all(|w| w[0] >= w[1]), "{priors:?}");
    let value = a["value"].as_f64().unwrap();
    let wdl: Vec<f64> = a["wdl"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert!((value - (wdl[0] - wdl[2])).abs() < 1e-5, "{a}");
    // Figures are rounded to six decimals.
    assert!(a.to_string().split(|c: char| !(c.is_ascii_digit() || c == '.')).all(|t| t.split('.').nth(1).is_none_or(|d| d.len() <= 6)), "{a}");
    let all = answer(&answers, &json!("all"));
    assert_eq!(all["to_move"], "black");
    assert!(all["top_moves"].as_array().unwrap().len() > 5, "top_moves 0: every searched turn");
    assert!(all.get("policy").is_none());
}

#[test]
fn a_won_position_names_the_winning_turn() {
    // Paco in 1 from the tactics suite: White's Nc5xd7 unites with the king.
    let fen = "rn3b1r/3kppp1/ppp2n2/2Np1E2/2P1F1P1/1P2B2p/P1Q1P2P/R2K1BNR w 8 - - -";
    let e = Engine::start(opts(1));
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
