//! Scripted exchanges with the engine on a uniform evaluator (no network),
//! for both games. The timing of `stop` and `isready` during a search is
//! tested on the binary (`cli/tests/uci.rs`).

use super::*;
use crate::eval::UniformEvaluator;
use pacozero_engine::{paco, shako};
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

fn exchange_with<G: Game>(script: &str, loader: &Loader<'_, G>) -> Vec<String> {
    let mut out = Vec::new();
    serve::<G, _, _>(std::io::Cursor::new(script.as_bytes().to_vec()), &mut out, Box::new(UniformEvaluator), loader, &config()).unwrap();
    String::from_utf8(out).unwrap().lines().map(str::to_string).collect()
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
    for name in ["Threads", "MultiPV", "Move Overhead", "UCI_ShowWDL", "Model"] {
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

#[test]
fn a_finished_game_has_no_best_move_and_a_win_in_one_is_mate_1() {
    // Black is mated.
    let out = exchange::<shako::GameState>("position fen 9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1 moves a2a10\ngo nodes 10\n");
    assert_eq!(bestmoves(&out), ["(none)"]);
    assert!(errors(&out)[0].contains("the game is over (checkmate)"), "{out:?}");
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
    fn evaluate(&self, batch: &[crate::eval::EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
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
    let info = text.lines().filter(|l| l.starts_with("info depth")).last().expect("an info line");
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
}
