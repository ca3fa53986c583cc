//! The UCI engine driven through scripts of commands, in process.

// Scripted exchanges with the engine on a uniform evaluator (no network),
// for both games. The timing of `stop` and `isready` during a search is
// tested on the binary (`cli/tests/uci.rs`).

use super::*;
use pacozero_engine::prelude::*;
use pacozero_engine::Outcome;
use pacozero_engine::{paco, shako};
use pacozero_search::eval::UniformEvaluator;
use pacozero_search::turns::search_turn;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn config() -> UciConfig {
    UciConfig { name: "PacoZero test".into(), model: "uniform".into(), threads: 1, default_visits: 40, visit_cap: 10_000 }
}

/// The engine's output for `script` (its input, ended).
fn exchange<G: Game>(script: &str) -> Vec<String> {
    let loader = |model: &str, _threads: usize| -> Result<Box<dyn Evaluator<G>>> {
        if model == "uniform" {
            Ok(Box::new(UniformEvaluator))
        } else {
            anyhow::bail!("no such network")
        }
    };
    exchange_with::<G>(script, &loader)
}

use pacozero_testkit::{Watchdog, HANG};

fn exchange_with<G: Game>(script: &str, loader: &Loader<'_, G>) -> Vec<String> {
    let _watchdog = Watchdog::new(HANG);
    let mut out = Vec::new();
    serve::<G, _, _>(std::io::Cursor::new(script.as_bytes().to_vec()), &mut out, Box::new(UniformEvaluator), loader, &config()).unwrap();
    String::from_utf8(out).unwrap().lines().map(str::to_string).collect()
}

/// A reader that is interrupted once, gives a line, fails, then ends.
struct Flaky(usize);

impl std::io::Read for Flaky {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0 += 1;
        match self.0 {
            1 => Err(std::io::Error::from(std::io::ErrorKind::Interrupted)),
            2 => {
                buf[..4].copy_from_slice(b"uci\n");
                Ok(4)
            }
            3 => Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "broken pipe of test")),
            _ => Ok(0),
        }
    }
}

#[test]
fn an_interrupted_read_is_retried_and_a_failed_one_reported() {
    let (tx, rx) = mpsc::sync_channel(INPUT_LINES_AHEAD);
    read_lines(std::io::BufReader::new(Flaky(0)), &tx);
    let got: Vec<String> = rx
        .try_iter()
        .map(|i| match i {
            Input::Line(l) => format!("line {l:?}"),
            Input::Refused(e) => format!("refused {e}"),
            Input::End => "end".into(),
            Input::Failed(e) => format!("failed {e}"),
        })
        .collect();
    assert_eq!(got, ["line \"uci\"", "failed broken pipe of test"]);
}

/// The engine's output for `input`, read as it is made.
fn exchange_reader<R: std::io::Read + Send + 'static>(input: R) -> Vec<String> {
    let _watchdog = Watchdog::new(HANG);
    let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<shako::GameState>>> { anyhow::bail!("no network") };
    let mut out = Vec::new();
    serve::<shako::GameState, _, _>(std::io::BufReader::new(input), &mut out, Box::new(UniformEvaluator), &loader, &config()).unwrap();
    String::from_utf8(out).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn a_hundred_megabyte_line_gets_one_error_and_the_next_command_is_answered() {
    let input = crate::lines::LongLine::new(100_000_000, b'x', b"isready\nposition startpos\ngo nodes 20\n");
    let out = exchange_reader(input);
    assert_eq!(errors(&out), ["input line 1 is 100000000 bytes long, over the limit of 1048576 bytes; the line is ignored"], "{out:?}");
    assert_eq!(out[1], "readyok", "{out:?}");
    assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
    // A line of exactly the limit is read: `isready` padded with spaces.
    let at_the_limit = format!("isready{}\nisready\n", " ".repeat(crate::lines::MAX_LINE_BYTES - "isready".len()));
    let out = exchange_reader(std::io::Cursor::new(at_the_limit.into_bytes()));
    assert_eq!(out, ["readyok", "readyok"]);
}

#[test]
fn a_line_that_is_not_utf8_gets_one_error_and_the_next_command_is_answered() {
    let out = exchange_reader(std::io::Cursor::new(b"isready\ngo nodes \xff5\nisready\n".to_vec()));
    assert_eq!(out, ["readyok", "info string error: input line 2 is not UTF-8 (byte 9 is not); the line is ignored", "readyok"]);
}

#[test]
fn a_position_line_is_read_without_a_search() {
    let read = |line: &str| match parse_command(line) {
        Ok(Some(Command::Position(p))) => position_of::<shako::GameState>(&p),
        other => panic!("{line}: {other:?}"),
    };
    let mut g = shako::GameState::startpos();
    g.play_uci("e3e5").unwrap();
    assert_eq!(read("position startpos moves e3e5").unwrap().notation(), g.notation());
    assert!(read("position startpos moves e3e5 e3e4").unwrap_err().contains("move 2 `e3e4` is not legal"));
}

#[test]
fn a_stop_behind_a_waiting_go_stops_that_go() {
    let e = Live::start();
    e.send("position startpos");
    e.send("go nodes 3000");
    e.send("go infinite");
    e.send("stop");
    let first = e.until("bestmove");
    assert!(first.iter().any(|l| l.contains(" nodes 3000 ")), "{first:?}");
    // The waiting `go infinite` starts, and the `stop` behind it ends it
    // without more input.
    e.until("bestmove");
    e.send("isready");
    e.until("readyok");
    e.end();
}

#[test]
fn commands_waiting_for_a_search_are_bounded_and_stop_and_quit_still_act() {
    let out = stepping(1_000_000, |e| {
        e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
        for _ in 0..MAX_WAITING_COMMANDS {
            assert!(e.receive("position startpos").unwrap());
        }
        assert!(e.receive("go nodes 10").unwrap(), "refused, not the end");
        assert_eq!(e.waiting.commands.len(), MAX_WAITING_COMMANDS);
        // `stop` and `isready` are never refused; a second stop in a row adds nothing.
        assert!(e.receive("stop").unwrap() && e.receive("stop").unwrap() && e.receive("isready").unwrap());
        assert_eq!(e.waiting.commands.len(), MAX_WAITING_COMMANDS + 1);
        assert!(!e.receive("quit").unwrap(), "quit acts at once");
    });
    let refused = format!(
        "info string error: {MAX_WAITING_COMMANDS} commands ({} bytes) already wait for the search to end, the most allowed ({MAX_WAITING_COMMANDS} commands, {MAX_WAITING_BYTES} bytes); this one is refused (send `stop`, or wait for `bestmove`)",
        MAX_WAITING_COMMANDS * "position startpos".len()
    );
    assert_eq!(out, [refused, "readyok".to_string()]);
    // The bytes are bounded too: four lines of a mebibyte, then a fifth is refused.
    let long = format!("position startpos{}", " ".repeat((1 << 20) - "position startpos".len()));
    let out = stepping(1_000_000, |e| {
        e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
        for _ in 0..5 {
            e.receive(&long).unwrap();
        }
        assert_eq!((e.waiting.commands.len(), e.waiting.bytes), (4, MAX_WAITING_BYTES));
    });
    assert_eq!(out.len(), 1);
    assert!(out[0].contains("4 commands (4194304 bytes) already wait"), "{out:?}");
}

#[test]
fn huge_clocks_and_times_are_clamped_not_overflowed() {
    // The command of issue 61, and its neighbours: a search to the visit cap.
    for go in [
        "go wtime 9223372036854775807 winc 9223372036854775807",
        "go btime 9223372036854775807 binc 9223372036854775807 wtime 9223372036854775807 winc 9223372036854775807 movestogo 9223372036854775807",
        "go wtime 9223372036854775807 btime -9223372036854775808 winc -9223372036854775808 binc 9223372036854775807",
        "go movetime 9223372036854775807",
        "go nodes 9223372036854775807 depth 9223372036854775807",
    ] {
        let out = exchange::<shako::GameState>(&format!("setoption name Move Overhead value 0\nposition startpos\n{go}\n"));
        assert!(errors(&out).is_empty(), "{go}: {out:?}");
        assert_eq!(bestmoves(&out).len(), 1, "{go}: {out:?}");
        assert!(out.iter().any(|l| l.contains(" nodes 10000 ")), "{go}: to the visit cap: {out:?}");
    }
    // Black to move, out of time: no time at all is one visit's search, no panic.
    let out = exchange::<shako::GameState>("position startpos moves e3e5\ngo wtime 9223372036854775807 btime -9223372036854775808\n");
    assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
}

/// An engine on a live input: lines sent as the test goes, output
/// lines received as written.
struct Live {
    input: Option<mpsc::Sender<String>>,
    output: mpsc::Receiver<String>,
    done: std::thread::JoinHandle<()>,
}

struct LiveInput {
    lines: mpsc::Receiver<String>,
    buf: Vec<u8>,
    at: usize,
}

impl std::io::Read for LiveInput {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.buf.len() {
            match self.lines.recv() {
                Ok(l) => (self.buf, self.at) = (format!("{l}\n").into_bytes(), 0),
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

struct LiveOutput {
    partial: Vec<u8>,
    lines: mpsc::Sender<String>,
}

impl Write for LiveOutput {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(b);
        while let Some(k) = self.partial.iter().position(|&c| c == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=k).collect();
            let _ = self.lines.send(String::from_utf8_lossy(&line[..k]).into_owned());
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Live {
    fn start() -> Live {
        let (tx, rx) = mpsc::channel();
        let (otx, orx) = mpsc::channel();
        let done = std::thread::spawn(move || {
            let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<paco::GameState>>> { Ok(Box::new(UniformEvaluator)) };
            let input = std::io::BufReader::new(LiveInput { lines: rx, buf: Vec::new(), at: 0 });
            let mut output = LiveOutput { partial: Vec::new(), lines: otx };
            serve::<paco::GameState, _, _>(input, &mut output, Box::new(UniformEvaluator), &loader, &config()).unwrap();
        });
        Live { input: Some(tx), output: orx, done }
    }

    fn send(&self, line: &str) {
        self.input.as_ref().unwrap().send(line.to_string()).unwrap();
    }

    /// The output lines up to the first that starts with `prefix` (that
    /// one included); fails after 20 s without it.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut got = Vec::new();
        loop {
            let l = self.output.recv_timeout(std::time::Duration::from_secs(20)).unwrap_or_else(|_| panic!("no `{prefix}` within 20 s; got {got:?}"));
            let hit = l.starts_with(prefix);
            got.push(l);
            if hit {
                return got;
            }
        }
    }

    fn end(mut self) -> Vec<String> {
        let _watchdog = Watchdog::new(HANG);
        drop(self.input.take());
        self.done.join().unwrap();
        self.output.try_iter().collect()
    }
}

#[test]
fn isready_debug_and_stop_act_during_an_infinite_search() {
    let e = Live::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(std::time::Duration::from_millis(100));
    e.send("isready");
    let before = e.until("readyok");
    assert!(!before.iter().any(|l| l.starts_with("bestmove")), "readyok at once, during the search: {before:?}");
    e.send("debug on");
    e.send("ponderhit");
    e.send("stop");
    e.until("bestmove");
    // Then commands wait for a search: a new position and a go behind one.
    e.send("go nodes 200");
    e.send("position startpos moves e2-e4");
    e.send("go nodes 20");
    let first = e.until("bestmove");
    assert!(first.iter().any(|l| l.contains(" nodes 200 ")), "{first:?}");
    let second = e.until("bestmove");
    assert!(second.iter().any(|l| l.contains(" nodes 20 ")), "the waiting go nodes 20: {second:?}");
    let rest = e.end();
    assert!(rest.iter().all(|l| !l.starts_with("bestmove")), "{rest:?}");
}

#[test]
fn the_end_of_the_input_stops_an_infinite_search_and_finishes_a_limited_one() {
    let out = exchange::<paco::GameState>("position startpos\ngo infinite\n");
    assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
    let nodes: Vec<u64> = out.iter().filter_map(|l| l.split(" nodes ").nth(1)?.split(' ').next()?.parse().ok()).collect();
    assert!(nodes.iter().all(|&n| n < 10_000), "stopped, not run to the visit cap: {out:?}");
    let out = exchange::<paco::GameState>("position startpos\ngo nodes 300\n");
    assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
    assert!(out.iter().any(|l| l.contains(" nodes 300 ")), "run to its limit: {out:?}");
}

#[test]
fn move_overhead_is_an_option_in_its_range() {
    let out = exchange::<paco::GameState>("setoption name Move Overhead value 0\nsetoption name move overhead value 5000\nisready\n");
    assert!(errors(&out).is_empty(), "{out:?}");
    let out = exchange::<paco::GameState>("setoption name Move Overhead value 5001\n");
    assert_eq!(errors(&out), ["option Move Overhead: value `5001` is not a whole number in 0..=5000"]);
}

#[test]
fn the_policy_temperature_is_an_option_that_reaches_the_search() {
    let out = exchange::<paco::GameState>("setoption name PolicyTemperature value 1\nsetoption name policytemperature value 0.1\nisready\n");
    assert!(errors(&out).is_empty(), "{out:?}");
    for bad in ["0.05", "11", "warm", ""] {
        let out = exchange::<paco::GameState>(&format!("setoption name PolicyTemperature value {bad}\n"));
        assert_eq!(errors(&out), [format!("option PolicyTemperature: value `{bad}` is not a number in 0.1..=10")]);
    }
    let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<paco::GameState>>> { anyhow::bail!("no other network") };
    let (mut out, config) = (Vec::new(), config());
    let mut engine = Engine::new(&mut out, Box::new(UniformEvaluator), &loader, &config);
    let line = engine.position.clone();
    assert_eq!(engine.tree_for(&line).config().policy_temperature, SearchConfig::PLAY_POLICY_TEMPERATURE, "play's by default");
    engine.set_option("PolicyTemperature", Some("1.5")).unwrap();
    let tree = engine.tree_for(&line);
    assert_eq!(tree.config().policy_temperature, 1.5);
    // The short search that completes a turn keeps it.
    let completion = answer::completion_config(tree.config());
    assert_eq!((completion.policy_temperature, completion.full_simulations), (1.5, COMPLETION_VISITS));
}

fn bestmoves(out: &[String]) -> Vec<&str> {
    out.iter().filter_map(|l| l.strip_prefix("bestmove ")).collect()
}

fn errors(out: &[String]) -> Vec<&str> {
    out.iter().filter_map(|l| l.strip_prefix("info string error: ")).collect()
}

#[test]
fn uci_names_the_engine_and_its_options_then_uciok() {
    let out = exchange::<shako::GameState>("uci\nisready\n");
    assert!(out[0].starts_with("id name PacoZero test (uniform)"), "{out:?}");
    assert_eq!(out[1], "id author the PacoZero authors");
    let options: Vec<&String> = out.iter().filter(|l| l.starts_with("option name ")).collect();
    assert!(options.iter().any(|l| *l == "option name UCI_Variant type combo default shako var shako"), "{out:?}");
    for name in ["Threads", "MultiPV", "Move Overhead", "UCI_ShowWDL", "Model", "PolicyTemperature"] {
        assert!(options.iter().any(|l| l.starts_with(&format!("option name {name} type "))), "{name}: {out:?}");
    }
    let uciok = out.iter().position(|l| l == "uciok").expect("uciok");
    assert!(out[..uciok].iter().all(|l| !l.starts_with("readyok")));
    assert_eq!(out.last().map(String::as_str), Some("readyok"));
    let paco = exchange::<paco::GameState>("uci\n");
    assert!(paco.iter().any(|l| l == "option name UCI_Variant type combo default paco var paco"), "{paco:?}");
}

#[test]
fn shako_go_plays_a_legal_move_after_the_position_and_reports_info_lines() {
    let out = exchange::<shako::GameState>("position startpos moves e3e5 e8e6\ngo nodes 60\n");
    let best = bestmoves(&out);
    assert_eq!(best.len(), 1, "{out:?}");
    let mut g = shako::GameState::startpos();
    for m in ["e3e5", "e8e6"] {
        g.play_uci(m).unwrap();
    }
    assert!(g.play_uci(best[0]).is_ok(), "bestmove {} is not legal: {out:?}", best[0]);
    let info = out.iter().rev().find(|l| l.starts_with("info depth")).expect("an info line");
    let words: Vec<&str> = info.split_whitespace().collect();
    let after = |key: &str| words[words.iter().position(|w| *w == key).unwrap_or_else(|| panic!("no {key} in {info}")) + 1];
    assert_eq!(after("multipv"), "1");
    assert_eq!(after("nodes"), "60", "{info}");
    assert_eq!(after("pv"), best[0], "the first info line's first move is the best move: {info}");
    assert_eq!(after("score"), "cp");
    after("cp").parse::<i32>().unwrap();
    let wdl: u32 = (1..=3).map(|k| words[words.iter().position(|w| *w == "wdl").unwrap() + k].parse::<u32>().unwrap()).sum();
    assert_eq!(wdl, 1000, "{info}");
}

#[test]
fn paco_moves_are_whole_turns_in_chain_notation() {
    let out = exchange::<paco::GameState>("position startpos moves e2-e4 d7-d5\ngo nodes 50\n");
    let best = bestmoves(&out);
    assert_eq!(best.len(), 1, "{out:?}");
    assert!(errors(&out).is_empty(), "{out:?}");
    let mut g = paco::GameState::start();
    for m in ["e2-e4", "d7-d5"] {
        for d in g.parse_turn(m).unwrap() {
            g.apply(d);
        }
    }
    let turn = g.parse_turn(best[0]).unwrap_or_else(|e| panic!("bestmove {} is not a whole legal turn: {e}", best[0]));
    assert_eq!(move_token(&g, &turn), best[0]);
    // A union formed by e4xd5 is a capture-like move: the notation round-trips.
    let out = exchange::<paco::GameState>("position startpos moves e2-e4 d7-d5 e4xd5\ngo nodes 30\n");
    assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
    assert!(errors(&out).is_empty(), "{out:?}");
}

#[test]
fn bad_input_gets_one_error_line_and_the_engine_keeps_serving() {
    let script = "\
frobnicate
position fen not/a/fen w - - 0 1
position startpos moves e3e5 e3e4
position startpos moves e3e5 e8e6 zz99
go sideways
setoption name Hash value 16
setoption name MultiPV value 0
setoption name UCI_Variant value chess
setoption name Model value nowhere.pzmodel
isready
position startpos moves e3e5
position startpos moves e3e5 e8e6 e5e4
go nodes 20
";
    let out = exchange::<shako::GameState>(script);
    let errs = errors(&out);
    assert_eq!(errs.len(), 10, "{out:?}");
    for (e, needle) in errs.iter().zip([
        "unknown command `frobnicate`",
        "bad FEN",
        "move 2 `e3e4` is not legal",
        "move 3 `zz99` is not legal",
        "unknown parameter `sideways`",
        "unknown option `Hash`",
        "MultiPV: value `0`",
        "plays shako, not `chess`",
        "cannot load `nowhere.pzmodel`",
        "move 3 `e5e4` is not legal",
    ]) {
        assert!(e.contains(needle), "{e:?} lacks {needle:?}");
    }
    assert!(out.iter().any(|l| l == "readyok"));
    // The last good position (after e3e5) is searched: Black moves.
    let best = bestmoves(&out);
    assert_eq!(best.len(), 1, "{out:?}");
    let mut g = shako::GameState::startpos();
    g.play_uci("e3e5").unwrap();
    assert!(g.play_uci(best[0]).is_ok(), "{out:?}");
}

/// The last `info` line of `go nodes N` from `fen`, and the `bestmove`.
fn searched<G: Game>(fen: &str, nodes: u32) -> (String, String) {
    let out = exchange::<G>(&format!("position fen {fen}\ngo nodes {nodes}\n"));
    let info = out.iter().rev().find(|l| l.starts_with("info depth")).unwrap_or_else(|| panic!("{fen}: {out:?}")).clone();
    (info, bestmoves(&out)[0].to_string())
}

#[test]
fn proven_turns_are_reported_as_mate_n_for_both_sides() {
    // Shako mates in 2 that Fairy-Stockfish 11.1 (variant shako) finds
    // at depth 12, with its first move of each.
    for (fen, fairy) in [
        ("9k/10/7K2/10/10/10/10/10/R9/10 w - - 0 1", "h8i8"),
        ("9k/10/7K2/10/10/10/10/10/10/R9 w - - 0 1", "h8i8"),
        ("8k1/10/7K2/10/10/10/10/10/10/R9 w - - 0 1", "a1j1"),
        ("9k/10/6K3/10/10/10/10/10/10/1R8 w - - 0 1", "g8h9"),
    ] {
        let (info, best) = searched::<shako::GameState>(fen, 3000);
        assert!(info.contains("score mate 2 ") && info.contains(" wdl 1000 0 0 "), "{fen}: {info}");
        // A proven win: the engine's move keeps it (the mate follows).
        let mut g = shako::GameState::from_notation(fen).unwrap();
        for d in g.parse_turn(&best).unwrap() {
            g.apply(d);
        }
        let (reply, _) = searched::<shako::GameState>(&g.notation(), 3000);
        assert!(reply.contains("score mate -1 ") && reply.contains(" wdl 0 0 1000 "), "{fen} then {best} (Fairy-Stockfish: {fairy}): {reply}");
    }
    // Paco in 2 from the tactics suite (proved by exhaustive search).
    let fen = "3b2N1/k2P1b2/2t2q1C/p1p3t1/a1a1P3/3j3c/2K1dN1p/1Q1R1v2 b 5 - - -";
    let (info, best) = searched::<paco::GameState>(fen, 3000);
    assert!(info.contains("score mate 2 "), "{info}");
    assert!(["Qf6-c3", "Bf7xc4>d3>c3", "Bf7xc4>d3>d4"].iter().any(|t| t.split_whitespace().collect::<String>() == best), "{best}");
}

#[test]
fn a_finished_game_has_no_best_move_and_a_win_in_one_is_mate_1() {
    // Black is mated.
    let out = exchange::<shako::GameState>("position fen 9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1 moves a2a10\ngo nodes 10\n");
    assert_eq!(bestmoves(&out), ["(none)"]);
    assert!(errors(&out)[0].contains("the game is over (checkmate)"), "{out:?}");
    // Drawn by the fifty-move rule: moves remain, the game is over all the same.
    let out = exchange::<shako::GameState>("position fen 9k/10/8K1/10/10/10/10/10/R9/10 w - - 100 80\ngo nodes 10\n");
    assert_eq!(bestmoves(&out), ["(none)"], "{out:?}");
    assert!(errors(&out)[0].contains("the game is over"), "{out:?}");
    let out = exchange::<shako::GameState>("position fen 9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1\ngo nodes 200\n");
    assert_eq!(bestmoves(&out), ["a2a10"], "{out:?}");
    let info = out.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert!(info.contains("score mate 1") && info.contains("pv a2a10"), "{info}");
    // Paco in 1: the engine's detected win.
    let out = exchange::<paco::GameState>("position fen rn3b1r/3kppp1/ppp2n2/2Np1E2/2P1F1P1/1P2B2p/P1Q1P2P/R2K1BNR w 8 - - -\ngo nodes 10\n");
    let best = bestmoves(&out);
    let g = paco::GameState::from_notation("rn3b1r/3kppp1/ppp2n2/2Np1E2/2P1F1P1/1P2B2p/P1Q1P2P/R2K1BNR w 8 - - -").unwrap();
    let mut after = g.clone();
    for d in g.parse_turn(best[0]).unwrap() {
        after.apply(d);
    }
    assert_eq!(after.outcome(), Some(Outcome::Win(pacozero_engine::Color::White)), "{out:?}");
    assert!(out.iter().any(|l| l.contains("score mate 1")), "{out:?}");
}

#[test]
fn multipv_reports_several_turns_and_options_reload_the_network() {
    let out = exchange::<shako::GameState>("setoption name MultiPV value 3\nsetoption name UCI_ShowWDL value false\nposition startpos\ngo nodes 100\n");
    let last: Vec<&String> = out.iter().filter(|l| l.starts_with("info depth")).collect();
    let tail = &last[last.len() - 3..];
    for (k, l) in tail.iter().enumerate() {
        assert!(l.contains(&format!(" multipv {} ", k + 1)) && !l.contains(" wdl "), "{l}");
    }
    let loads = RefCell::new(Vec::new());
    let loader = |model: &str, threads: usize| -> Result<Box<dyn Evaluator<shako::GameState>>> {
        loads.borrow_mut().push((model.to_string(), threads));
        Ok(Box::new(UniformEvaluator))
    };
    let out =
        exchange_with::<shako::GameState>("setoption name Model value other\nsetoption name Threads value 4\nsetoption name Threads value 4\nuci\n", &loader);
    // Model loads on the current threads; Threads reloads the current model, once per change.
    assert_eq!(*loads.borrow(), [("other".to_string(), 1), ("other".to_string(), 4)]);
    assert!(out.iter().any(|l| l == "option name Model type string default other"), "{out:?}");
    assert!(out.iter().any(|l| l == "option name Threads type spin default 4 min 1 max 512"), "{out:?}");
}

#[test]
fn garbage_never_stops_the_engine() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let words = [
        "position",
        "fen",
        "startpos",
        "moves",
        "go",
        "nodes",
        "setoption",
        "name",
        "value",
        "e3e5",
        "-1",
        "9999999999999",
        "ucinewgame",
        "é",
        "\u{0}",
        "/",
        "10",
    ];
    let mut script = String::new();
    for _ in 0..400 {
        let n = rng.gen_range(0..8);
        let line: Vec<&str> = (0..n).map(|_| words[rng.gen_range(0..words.len())]).collect();
        script.push_str(&line.join(" "));
        script.push('\n');
    }
    script.push_str("isready\n");
    let mut bytes = script.into_bytes();
    bytes.extend_from_slice(b"\xff\xfe go\nisready\n");
    let mut out = Vec::new();
    let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<shako::GameState>>> { anyhow::bail!("no") };
    serve::<shako::GameState, _, _>(std::io::Cursor::new(bytes.clone()), &mut out, Box::new(UniformEvaluator), &loader, &config()).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().filter(|l| *l == "readyok").count(), 2, "{text}");
    let mut out = Vec::new();
    let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<paco::GameState>>> { anyhow::bail!("no") };
    serve::<paco::GameState, _, _>(std::io::Cursor::new(bytes), &mut out, Box::new(UniformEvaluator), &loader, &config()).unwrap();
    assert_eq!(String::from_utf8(out).unwrap().lines().filter(|l| *l == "readyok").count(), 2);
}

/// The uniform evaluator, counting the positions it evaluates.
struct Counting(Arc<AtomicUsize>);

impl<G: Game> Evaluator<G> for Counting {
    fn name(&self) -> String {
        "counting".into()
    }
    fn needs_encoding(&self) -> bool {
        false
    }
    fn evaluate(&self, batch: &[pacozero_search::eval::EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
        self.0.fetch_add(batch.len(), Ordering::Relaxed);
        Evaluator::<G>::evaluate(&UniformEvaluator, batch, out)
    }
}

/// The last `info` line's principal variation of `script`, and the positions evaluated.
fn counted(script: &str) -> (Vec<String>, usize) {
    let count = Arc::new(AtomicUsize::new(0));
    let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<shako::GameState>>> { anyhow::bail!("no") };
    let mut out = Vec::new();
    serve::<shako::GameState, _, _>(std::io::Cursor::new(script.as_bytes().to_vec()), &mut out, Box::new(Counting(count.clone())), &loader, &config()).unwrap();
    let text = String::from_utf8(out).unwrap();
    let info = text.lines().rfind(|l| l.starts_with("info depth")).expect("an info line");
    let pv = info.split(" pv ").nth(1).unwrap().split_whitespace().map(str::to_string).collect();
    (pv, count.load(Ordering::Relaxed))
}

#[test]
fn a_continued_position_reuses_the_tree() {
    let first = "position startpos\ngo nodes 300\n";
    let (pv, before) = counted(first);
    assert!(pv.len() >= 2, "{pv:?}");
    // The position after the principal variation's two moves is in the tree.
    let next = format!("position startpos moves {} {}\ngo nodes 5\n", pv[0], pv[1]);
    let (_, reused) = counted(&format!("{first}{next}"));
    // A kept tree's root is evaluated already: 5 simulations, 5 evaluations;
    // after ucinewgame the new root is evaluated too.
    let (_, fresh) = counted(&format!("{first}ucinewgame\n{next}"));
    assert_eq!((reused - before, fresh - before), (5, 6));
    // Another start (a FEN), even with no moves played: a new tree, whose
    // principal variation starts from that position.
    // (Not a mate in one: that root would be answered without a search.)
    let other = "10/4k5/10/10/10/10/10/10/R9/4K5 w - - 0 1";
    let (pv, other_count) = counted(&format!("{first}position fen {other}\ngo nodes 5\n"));
    assert_eq!(other_count - before, 6, "the new root evaluated too");
    let g = shako::GameState::from_notation(other).unwrap();
    assert!(g.parse_decisions(&pv[0]).is_ok(), "{pv:?} from {other}");
}

#[test]
fn a_move_time_lies_ahead_and_show_wdl_switches_both_ways() {
    // The visit cap (10,000) comes long before two seconds: the deadline
    // lies ahead of the search, not behind it.
    let out = exchange::<paco::GameState>("position startpos\ngo movetime 2000\n");
    assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
    assert!(out.iter().any(|l| l.contains(" nodes 10000 ")), "{out:?}");
    let out = exchange::<paco::GameState>("setoption name UCI_ShowWDL value false\nposition startpos\ngo nodes 30\n");
    assert!(errors(&out).is_empty() && out.iter().any(|l| l.starts_with("info depth")), "{out:?}");
    assert!(out.iter().all(|l| !l.contains(" wdl ")), "{out:?}");
    let out = exchange::<paco::GameState>("setoption name UCI_ShowWDL value false\nsetoption name UCI_ShowWDL value true\ngo nodes 30\n");
    assert!(errors(&out).is_empty() && out.iter().any(|l| l.contains(" wdl ")), "{out:?}");
}

/// Priors favour the first action; the positions after it (White lifts
/// a piece, then places it) are lost for White, every other one is even.
struct Trap {
    lost: std::collections::HashSet<u64>,
}

impl Evaluator<paco::GameState> for Trap {
    fn name(&self) -> String {
        "trap".into()
    }
    fn needs_encoding(&self) -> bool {
        false
    }
    fn evaluate(&self, batch: &[pacozero_search::eval::EvalRequest<'_, paco::GameState>], out: &mut EvalOutput) -> Result<()> {
        out.reset(batch);
        for (i, r) in batch.iter().enumerate() {
            let k = r.legal.len() as f32;
            for (j, p) in out.priors_of_mut(i).iter_mut().enumerate() {
                *p = if j == 0 { 0.5 } else { 0.45 / (k - 1.0) };
            }
            let lost_for = if r.state.to_move() == pacozero_engine::Color::White { [0.0, 0.0, 1.0] } else { [1.0, 0.0, 0.0] };
            out.wdl[i] = if self.lost.contains(&r.state.hash()) { lost_for } else { [0.0, 1.0, 0.0] };
        }
        Ok(())
    }
}

#[test]
fn without_a_visited_turn_bestmove_follows_the_priors() {
    let root = paco::GameState::new(paco::Position::startpos());
    let mut legal = Vec::new();
    root.playable_actions(&mut legal);
    let mut after = root.clone();
    after.apply(legal[0]);
    let mut places = Vec::new();
    after.playable_actions(&mut places);
    let mut lost: std::collections::HashSet<u64> = places
        .iter()
        .map(|&p| {
            let mut g = after.clone();
            g.apply(p);
            g.hash()
        })
        .collect();
    lost.insert(after.hash());
    let trap = Trap { lost };
    // Stopped before any simulation: the root is expanded, no turn visited.
    let mut s = Search::new(analysis_search_config(100), root.clone(), false);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    s.search_until(&trap, 100, Some(Instant::now()), false, &mut rng).unwrap();
    assert!(pacozero_search::turns::root_turns(&s).is_empty());
    // The most likely decision (a lift), then the turn completed by a
    // search from there (the place).
    let mut g = after.clone();
    let rest = search_turn(&mut g, analysis_search_config(COMPLETION_VISITS), &trap, COMPLETION_VISITS).unwrap().decisions;
    assert_eq!(rest.len(), 1);
    assert_eq!(best_turn(&s, &trap).unwrap(), [legal[0], rest[0]]);
    // A search of the whole turn plays another (the lift is lost).
    let mut g = root.clone();
    let searched = search_turn(&mut g, analysis_search_config(COMPLETION_VISITS), &trap, COMPLETION_VISITS).unwrap();
    assert_ne!(searched.decisions[0], legal[0]);
    // One simulation: the lift is expanded, no place visited; the tree's
    // most likely place completes the turn, and there the walk stops.
    let mut s = Search::new(analysis_search_config(100), root.clone(), false);
    s.search_until(&trap, 1, None, false, &mut rng).unwrap();
    assert!(pacozero_search::turns::root_turns(&s).is_empty() && s.children_at(&[legal[0]]).is_some());
    assert_eq!(best_turn(&s, &trap).unwrap(), [legal[0], places[0]]);
}

#[test]
fn info_reports_the_average_depth_and_the_rate_of_the_search_since_go() {
    let root = paco::GameState::new(paco::Position::startpos());
    let mut search = Search::new(analysis_search_config(2000), root.clone(), false);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    search.search_until(&UniformEvaluator, 300, None, false, &mut rng).unwrap();
    let (sims_before, node_visits_before) = (search.total_simulations, search.node_visits);
    search.search_until(&UniformEvaluator, 1500, None, false, &mut rng).unwrap();
    let started = Instant::now() - Duration::from_millis(1500);
    let limits = SearchLimits { visits: 1500, time: None, infinite: false };
    let line = GameLine { start: root.clone(), decisions: Vec::new(), state: root };
    let nodes = search.total_simulations - sims_before;
    let touched = search.node_visits - node_visits_before;
    let r = Running { search, line, limits, started, last_info: started, exhausted: true, sims_before, node_visits_before };
    let info = &info_lines(&r, 1, false)[0];
    let field = |name: &str| -> u64 {
        let mut it = info.split_whitespace();
        it.find(|w| *w == name).and_then(|_| it.next()).unwrap_or_else(|| panic!("{name} in {info}")).parse().unwrap()
    };
    assert_eq!(field("nodes"), nodes);
    let ms = field("time");
    assert!((1500..3000).contains(&ms), "{info}");
    assert_eq!(field("nps"), nodes * 1000 / ms, "{info}");
    // Nodes touched per simulation, the root not counted.
    let depth = (touched as f64 / nodes as f64 - 1.0).round() as u64;
    assert!(depth >= 2, "a deep enough tree to tell: {depth}");
    assert_eq!(field("depth"), depth, "{info}");
}

/// An engine on a uniform evaluator with a cap of `visit_cap` visits, its output.
fn stepping(visit_cap: u32, test: impl FnOnce(&mut Engine<'_, paco::GameState, Vec<u8>>)) -> Vec<String> {
    let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<paco::GameState>>> { anyhow::bail!("no network") };
    let config = UciConfig { visit_cap, ..config() };
    let mut out = Vec::new();
    let mut engine = Engine::new(&mut out, Box::new(UniformEvaluator), &loader, &config);
    let _watchdog = Watchdog::new(HANG);
    test(&mut engine);
    String::from_utf8(out).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn info_lines_come_once_a_second_and_when_an_infinite_search_is_spent() {
    // A step within the second since the last report writes nothing.
    let out = stepping(1_000_000, |e| {
        e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
        e.step().unwrap();
        assert!(!e.running.as_ref().unwrap().exhausted, "a million visits in one slice");
    });
    assert!(out.is_empty(), "{out:?}");
    // One after the second is over.
    let out = stepping(1_000_000, |e| {
        e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
        e.running.as_mut().unwrap().last_info = Instant::now() - INFO_EVERY;
        e.step().unwrap();
    });
    assert_eq!(out.iter().filter(|l| l.starts_with("info depth")).count(), 1, "{out:?}");
    // An infinite search that spends its budget reports at once, then waits for `stop`.
    let out = stepping(50, |e| {
        e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
        while !e.running.as_ref().unwrap().exhausted {
            e.step().unwrap();
        }
        e.step().unwrap();
        assert!(e.running.is_some(), "no bestmove before stop");
    });
    assert_eq!(out.iter().filter(|l| l.starts_with("info depth")).count(), 1, "{out:?}");
    assert!(out.iter().all(|l| !l.starts_with("bestmove")), "{out:?}");
}
