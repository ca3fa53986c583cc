//! `pacozero uci` driven as a subprocess through scripted exchanges, for
//! Shako and Paco Ŝako: the handshake, `stop` during `go infinite`
//! (answered within 50 ms), `isready` during a search, illegal moves, bad
//! FENs and unknown commands (an error line, and the engine keeps serving),
//! and a game on a clock with an increment that it never loses on time.

use pacozero_engine::{paco, shako, Game};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod common;
use common::{bin, s, tiny_model_of};

/// A running `pacozero uci`.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<(String, Instant)>,
}

impl Engine {
    fn start(model: &Path, game: &str) -> Engine {
        let mut child =
            bin().args(["uci", "--model", s(model), "--game", game]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                // Each line with the moment it arrived, for the timing checks.
                if tx.send((line.unwrap(), Instant::now())).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        Engine { child, stdin, lines }
    }

    /// Sends a line; returns when it was sent.
    fn send(&mut self, line: &str) -> Instant {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        Instant::now()
    }

    /// The lines up to the first that starts with `prefix` (included), and when that one arrived.
    fn until(&self, prefix: &str) -> (Vec<String>, Instant) {
        let mut seen = Vec::new();
        loop {
            let (line, at) = self.lines.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("no `{prefix}` line within a minute after {seen:?}"));
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return (seen, at);
            }
        }
    }

    /// Nothing arrives for `wait`.
    fn silent_for(&self, wait: Duration) -> Option<String> {
        self.lines.recv_timeout(wait).ok().map(|(l, _)| l)
    }

    /// `isready` is answered `readyok` (the engine is serving).
    fn ready(&mut self) {
        self.send("isready");
        let (lines, _) = self.until("readyok");
        assert!(lines.iter().all(|l| !l.starts_with("bestmove")), "{lines:?}");
    }

    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status:?}");
    }
}

/// The `info string error:` lines of `lines`.
fn errors(lines: &[String]) -> Vec<&str> {
    lines.iter().filter_map(|l| l.strip_prefix("info string error: ")).collect()
}

/// The handshake, then `isready` during `go infinite` and `stop`, answered
/// within 50 ms (the best of three searches: the machine may be busy).
fn stop_and_isready_during_a_search(e: &mut Engine, variant: &str, position: &str) {
    e.send("uci");
    let (lines, _) = e.until("uciok");
    assert!(lines[0].starts_with("id name PacoZero"), "{lines:?}");
    assert!(lines.iter().any(|l| l == &format!("option name UCI_Variant type combo default {variant} var {variant}")), "{lines:?}");
    e.send(&format!("setoption name UCI_Variant value {variant}"));
    e.send("ucinewgame");
    e.ready();
    let mut latencies = Vec::new();
    for _ in 0..3 {
        e.send(position);
        e.send("go infinite");
        // A search that runs until stopped: no bestmove by itself.
        std::thread::sleep(Duration::from_millis(300));
        let asked = e.send("isready");
        let (lines, at) = e.until("readyok");
        assert!(lines.iter().all(|l| !l.starts_with("bestmove")), "go infinite ended by itself: {lines:?}");
        assert!(at - asked < Duration::from_secs(1), "readyok took {:?} during a search", at - asked);
        let stopped = e.send("stop");
        let (lines, at) = e.until("bestmove");
        assert!(lines.iter().any(|l| l.starts_with("info depth")), "no info line before bestmove: {lines:?}");
        latencies.push(at - stopped);
    }
    let best = *latencies.iter().min().unwrap();
    assert!(best <= Duration::from_millis(50), "bestmove came {best:?} after stop ({latencies:?})");
}

/// Bad input: an error line each, and the engine keeps serving.
fn bad_input_is_refused(e: &mut Engine, bad: &[(&str, &str)]) {
    for (line, needle) in bad {
        e.send(line);
        e.send("isready");
        let (lines, _) = e.until("readyok");
        let errs = errors(&lines);
        assert_eq!(errs.len(), 1, "{line}: {lines:?}");
        assert!(errs[0].contains(needle), "{line}: {:?} lacks {needle:?}", errs[0]);
    }
}

/// Plays `turns` turns on a clock of `start_ms` + `increment_ms`, the engine
/// playing both sides; each side's clock loses the time from `go` to
/// `bestmove` and gains the increment, and never runs out. Returns the
/// game's moves, each checked legal.
fn clock_game<G: Game>(e: &mut Engine, turns: usize, start_ms: i64, increment_ms: i64) -> Vec<String> {
    let mut g = G::start();
    let mut moves: Vec<String> = Vec::new();
    let mut clocks = [start_ms, start_ms];
    for _ in 0..turns {
        if g.outcome().is_some() {
            break;
        }
        let side = g.to_move().index();
        let position = if moves.is_empty() { "position startpos".to_string() } else { format!("position startpos moves {}", moves.join(" ")) };
        e.send(&position);
        let asked = e.send(&format!("go wtime {} btime {} winc {increment_ms} binc {increment_ms}", clocks[0], clocks[1]));
        let (lines, at) = e.until("bestmove");
        assert!(errors(&lines).is_empty(), "{lines:?}");
        clocks[side] -= (at - asked).as_millis() as i64;
        assert!(clocks[side] > 0, "the engine lost on time after {} moves: clocks {clocks:?}", moves.len());
        clocks[side] += increment_ms;
        let m = lines.last().unwrap().strip_prefix("bestmove ").unwrap().to_string();
        let turn = g.parse_turn(&m).unwrap_or_else(|err| panic!("bestmove {m} is not legal in {}: {err}", g.notation()));
        for d in turn {
            g.apply(d);
        }
        moves.push(m);
    }
    moves
}

#[test]
fn shako_speaks_uci_as_fairy_stockfish() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model_of::<shako::GameState>(dir.path(), "shako-tiny");
    let mut e = Engine::start(&model, "shako");
    stop_and_isready_during_a_search(&mut e, "shako", "position startpos moves e3e5 e8e6");
    bad_input_is_refused(
        &mut e,
        &[
            ("fly to the moon", "unknown command `fly`"),
            ("position fen c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C x KQkq - 0 1", "bad FEN"),
            ("position fen c8c/ernbqkbnre/pppppppppp/11/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq - 0 1", "bad FEN"),
            ("position startpos moves e3e5 e8e6 e5e6", "move 3 `e5e6` is not legal"),
            ("position startpos moves e3e11", "move 1 `e3e11` is not legal"),
            ("go nodes many", "`go nodes` needs a whole number"),
            ("setoption name UCI_Variant value chess", "plays shako"),
        ],
    );
    // Every refused position left the last good one, e3e5 e8e6 (of the stop checks): White moves.
    e.send("go nodes 50");
    let (lines, _) = e.until("bestmove");
    let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
    let mut g = shako::GameState::startpos();
    for m in ["e3e5", "e8e6", best] {
        g.play_uci(m).unwrap_or_else(|err| panic!("{m}: {err}"));
    }
    // 1 s + 100 ms a move: never out of time.
    e.send("ucinewgame");
    let moves = clock_game::<shako::GameState>(&mut e, 24, 1000, 100);
    assert!(moves.len() >= 10, "{moves:?}");
    // A promotion in UCI notation (a suffix letter) is read and played.
    e.send("position fen 4k5/E9/10/10/10/10/10/10/5K4/10 w - - 0 1 moves a9b10");
    e.ready();
    e.send("position fen 10/4P4k/10/10/10/10/10/10/5K4/10 w - - 0 1 moves e9e10q");
    e.ready();
    e.send("go nodes 20");
    let (lines, _) = e.until("bestmove");
    assert!(errors(&lines).is_empty(), "{lines:?}");
    e.quit();
}

#[test]
fn paco_uses_the_same_commands_with_whole_turns() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model_of::<paco::GameState>(dir.path(), "paco-tiny");
    let mut e = Engine::start(&model, "paco");
    stop_and_isready_during_a_search(&mut e, "paco", "position startpos moves e2-e4 d7-d5");
    bad_input_is_refused(
        &mut e,
        &[
            ("bogus", "unknown command `bogus`"),
            ("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -x", "bad FEN"),
            ("position fen rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -", "bad FEN"),
            ("position startpos moves e2-e4 e7-e5 e4xe5", "move 3 `e4xe5` is not legal"),
            ("position startpos moves Le2", "move 1 `Le2` is not legal"),
        ],
    );
    e.send("ucinewgame");
    let moves = clock_game::<paco::GameState>(&mut e, 16, 1000, 100);
    assert!(moves.len() >= 8, "{moves:?}");
    assert!(moves.iter().all(|m| !m.contains(' ')), "{moves:?}");
    assert_eq!(e.silent_for(Duration::from_millis(100)), None);
    e.quit();
}
