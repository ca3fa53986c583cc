//! Perfect Connect Four play from solvers others wrote, for judging
//! PacoZero's networks (docs/connect4.md):
//!
//! * `connect4-solvers generate N SEED`: draws N positions (JSON lines on
//!   stdout, the format of `pacozero_arena::solved`) and labels every legal
//!   move with its exact score by `connect-four-ai` (Benjamin Rall, MIT).
//!   Half are reached by uniformly random moves, half by a noisy perfect
//!   player (a softmax over the solver's move scores), at 4-13, 14-27 and
//!   28-38 stones (`begin`, `middle`, `end`).
//! * `connect4-solvers check FILE MIN_STONES`: labels the positions of FILE
//!   with at least MIN_STONES stones again by a second solver,
//!   `connect-four-solver` (Markus Klein, AGPL), and reports every move
//!   whose score differs; exit status 1 when one does.
//! * `connect4-solvers uci`: a perfect player speaking UCI, for `pacozero
//!   arena` (`uci:connect4-solvers uci:nodes=1`): its move is the solver's
//!   best (the fastest win, a draw, the slowest loss; ties to the column
//!   nearest the centre).
//!
//! Scores follow Pascal Pons' convention, for the side to move: positive
//! wins (1 with its last stone, 2 with the one before, ...), 0 draws,
//! negative loses.

use connect_four_ai::{Position, Solver};
use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, Write};

const WIDTH: usize = 7;

/// splitmix64: every random choice of `generate` flows from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Each playable column's score for the side to move (connect-four-ai).
fn move_scores(solver: &mut Solver, moves: &str) -> BTreeMap<usize, i32> {
    let pos = Position::from_moves(moves).unwrap_or_else(|e| panic!("{moves}: {e}"));
    solver.get_all_move_scores(&pos).iter().enumerate().filter_map(|(c, s)| s.map(|s| (c, s as i32))).collect()
}

fn phase(stones: usize) -> &'static str {
    match stones {
        0..=13 => "begin",
        14..=27 => "middle",
        _ => "end",
    }
}

/// The JSON line of a position (the fields of `pacozero_arena::solved`).
fn line(moves: &str, scores: &BTreeMap<usize, i32>, source: &str) -> serde_json::Value {
    let best = *scores.values().max().expect("a running position has moves");
    let value = best.signum();
    let names = |keep: &dyn Fn(i32) -> bool| scores.iter().filter(|(_, &s)| keep(s)).map(|(c, _)| (c + 1).to_string()).collect::<Vec<_>>();
    let correct = match value {
        1 => names(&|s| s > 0),
        0 => names(&|s| s == 0),
        _ => names(&|_| true),
    };
    serde_json::json!({
        "position": if moves.is_empty() { "-".to_string() } else { moves.to_string() },
        "value": value,
        "score": best,
        "move_scores": scores.iter().map(|(c, s)| ((c + 1).to_string(), serde_json::json!(s))).collect::<serde_json::Map<_, _>>(),
        "optimal": names(&|s| s == best),
        "correct": correct,
        "phase": phase(moves.len()),
        "source": source,
    })
}

/// Plays from the empty board to `stones` stones, uniformly at random or by
/// a softmax over the solver's scores (`noisy`); `None` when the game ended
/// or a side could win at once on the way (such lines are drawn again).
fn reach(solver: &mut Solver, rng: &mut Rng, stones: usize, noisy: bool) -> Option<String> {
    let mut moves = String::new();
    let mut pos = Position::new();
    while moves.len() < stones {
        let playable: Vec<usize> = (0..WIDTH).filter(|&c| pos.is_playable(c)).collect();
        let c = if noisy {
            let scores = move_scores(solver, &moves);
            let weights: Vec<f64> = playable.iter().map(|c| (scores[c] as f64 / 2.0).exp()).collect();
            let mut x = rng.unit() * weights.iter().sum::<f64>();
            let mut pick = playable[playable.len() - 1];
            for (c, w) in playable.iter().zip(&weights) {
                if x < *w {
                    pick = *c;
                    break;
                }
                x -= w;
            }
            pick
        } else {
            playable[rng.below(playable.len())]
        };
        if pos.is_winning_move(c) {
            return None;
        }
        pos.play(c);
        moves.push(char::from(b'1' + c as u8));
    }
    (pos.get_moves() < 42).then_some(moves)
}

fn generate(n: usize, seed: u64) {
    let mut solver = Solver::new();
    let mut rng = Rng(seed);
    let mut seen = HashSet::new();
    let out = std::io::stdout();
    let mut out = out.lock();
    let ranges = [(4, 13), (14, 27), (28, 38)];
    let mut made = 0;
    while made < n {
        let (lo, hi) = ranges[made % 3];
        let noisy = made % 2 == 1;
        let stones = lo + rng.below(hi - lo + 1);
        let Some(moves) = reach(&mut solver, &mut rng, stones, noisy) else { continue };
        let key = Position::from_moves(&moves).expect("reached").get_key();
        if !seen.insert(key) {
            continue;
        }
        let scores = move_scores(&mut solver, &moves);
        writeln!(out, "{}", line(&moves, &scores, if noisy { "noisy-perfect" } else { "random" })).expect("stdout");
        made += 1;
        if made % 50 == 0 {
            eprintln!("{made}/{n} positions");
        }
    }
}

/// Each playable column's score for the side to move, by the second solver.
fn second_scores(solver: &mut connect_four_solver::Solver, moves: &str) -> BTreeMap<usize, i32> {
    let game = connect_four_solver::ConnectFour::from_move_list(moves);
    let mut out = BTreeMap::new();
    for c in 0..WIDTH as u8 {
        let mut next = game;
        if next.play(connect_four_solver::Column::from_index(c)) {
            out.insert(c as usize, -(solver.score(&next) as i32));
        }
    }
    out
}

fn check(file: &str, min_stones: usize) -> bool {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut solver = connect_four_solver::Solver::new();
    let (mut checked, mut moves_checked, mut disagreements) = (0, 0, Vec::new());
    for (i, l) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{file}, line {}: {e}", i + 1));
        let position = v["position"].as_str().expect("position");
        let moves = if position == "-" { "" } else { position };
        if moves.len() < min_stones {
            continue;
        }
        let second = second_scores(&mut solver, moves);
        for (c, s) in &second {
            let first = v["move_scores"][(c + 1).to_string()].as_i64();
            if first != Some(*s as i64) {
                disagreements.push(format!("line {}: {position}, column {}: connect-four-ai {first:?}, connect-four-solver {s}", i + 1, c + 1));
            }
        }
        if second.len() != v["move_scores"].as_object().map_or(0, |m| m.len()) {
            disagreements.push(format!("line {}: {position}: the solvers list different moves", i + 1));
        }
        checked += 1;
        moves_checked += second.len();
        if checked % 25 == 0 {
            eprintln!("{checked} positions checked");
        }
    }
    println!("{checked} positions with at least {min_stones} stones, {moves_checked} move scores: {} disagreements", disagreements.len());
    for d in &disagreements {
        println!("{d}");
    }
    disagreements.is_empty()
}

/// The perfect player over UCI: `position startpos|fen <columns> [moves ...]`, `go ...`.
fn uci() {
    let mut solver = Solver::new();
    let mut moves = String::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for input in std::io::stdin().lock().lines() {
        let input = input.expect("stdin");
        let words: Vec<&str> = input.split_whitespace().collect();
        match words.first().copied() {
            Some("uci") => writeln!(out, "id name connect4-solvers (connect-four-ai {})\nid author PacoZero\nuciok", "1.0.0").unwrap(),
            Some("isready") => writeln!(out, "readyok").unwrap(),
            Some("position") => {
                moves.clear();
                let mut rest = words[1..].iter();
                match rest.next().copied() {
                    Some("fen") => {
                        let start = rest.next().copied().unwrap_or("-");
                        if start != "-" {
                            moves.push_str(start);
                        }
                    }
                    _ => {}
                }
                if rest.next().copied() == Some("moves") {
                    for m in rest {
                        moves.push_str(m);
                    }
                }
            }
            Some("go") => {
                let scores = move_scores(&mut solver, &moves);
                let best = scores.values().copied().max();
                let pick = Solver::COLUMNS.iter().find(|c| scores.get(c).copied() == best && best.is_some());
                match pick {
                    Some(c) => writeln!(out, "info depth 42 score cp {}\nbestmove {}", 100 * best.unwrap_or(0), c + 1).unwrap(),
                    None => writeln!(out, "bestmove 0000").unwrap(),
                }
            }
            Some("quit") => break,
            _ => {}
        }
        out.flush().unwrap();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, what: &str| args.get(i).unwrap_or_else(|| panic!("missing {what}; usage: generate N SEED | check FILE MIN_STONES | uci")).clone();
    match args.get(1).map(String::as_str) {
        Some("generate") => generate(arg(2, "N").parse().expect("N"), arg(3, "SEED").parse().expect("SEED")),
        Some("check") => {
            if !check(&arg(2, "FILE"), arg(3, "MIN_STONES").parse().expect("MIN_STONES")) {
                std::process::exit(1);
            }
        }
        Some("uci") => uci(),
        _ => {
            eprintln!("usage: connect4-solvers generate N SEED | check FILE MIN_STONES | uci");
            std::process::exit(2);
        }
    }
}
