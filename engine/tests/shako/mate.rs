//! Shako's mate-in-one detection (`GameRules::can_win_this_turn`,
//! `Position::has_mate_in_one`, `mating_moves`, `gives_check`) against the
//! rule as written: the mover can win this turn when some legal move, played,
//! ends the game as a win for the mover (a checkmate). Checked on the
//! Fairy-Stockfish records (their checking and mating moves), on hand-made
//! mates that Fairy-Stockfish also scores `mate 1`, and on every position of
//! the last plies of seeded random games.

use pacozero_engine::shako::{GameState, Move, Status};
use pacozero_engine::{Color, Outcome};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::common::manifest_dir;
use pacozero_engine::prelude::*;

/// The slow reference: every legal move, played on the whole game state, and
/// the game's own result asked.
fn reference_wins(g: &GameState) -> Vec<Move> {
    let mover = g.to_move();
    g.legal_moves()
        .into_iter()
        .filter(|&m| {
            let mut next = g.clone();
            next.play_unchecked(m);
            next.outcome() == Some(Outcome::Win(mover))
        })
        .collect()
}

fn sorted(moves: impl IntoIterator<Item = Move>) -> Vec<String> {
    let mut s: Vec<String> = moves.into_iter().map(|m| m.to_string()).collect();
    s.sort();
    s
}

/// Everything the fast detection says about `g`, against the reference;
/// the number of mating moves.
fn check_position(g: &GameState) -> usize {
    let pos = g.position();
    let fen = pos.fen();
    let wins = reference_wins(g);
    assert_eq!(g.can_win_this_turn(), !wins.is_empty(), "can_win_this_turn in {fen} (reference: {:?})", sorted(wins.iter().copied()));
    if g.status().is_over() {
        assert!(wins.is_empty(), "a finished game {fen} has winning moves");
        return 0;
    }
    assert_eq!(pos.has_mate_in_one(), !wins.is_empty(), "has_mate_in_one in {fen}");
    assert_eq!(sorted(pos.mating_moves()), sorted(wins.iter().copied()), "mating moves in {fen}");
    for m in pos.legal_moves_vec() {
        let mut next = *pos;
        next.play_unchecked(m);
        assert_eq!(pos.gives_check(m), next.in_check(), "gives_check({m}) in {fen}");
        assert_eq!(pos.is_mating_move(m), wins.contains(&m), "is_mating_move({m}) in {fen}");
    }
    wins.len()
}

fn read_jsonl(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/shako/{name}", manifest_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn strings(v: &Value) -> Vec<String> {
    let mut s: Vec<String> = v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
    s.sort();
    s
}

/// The 109 Fairy-Stockfish records list each position's checking and mating
/// moves: five of them, from random games, have a mate in one.
#[test]
fn checks_and_mates_of_the_fairy_stockfish_records() {
    let mut records = read_jsonl("positions.jsonl");
    records.extend(read_jsonl("edge_cases.jsonl"));
    assert_eq!(records.len(), 109);
    let mut with_mate = 0;
    for v in &records {
        let fen = v["fen"].as_str().unwrap();
        let g = GameState::from_fen(fen).unwrap();
        let pos = g.position();
        let checking: Vec<Move> = pos.legal_moves_vec().into_iter().filter(|&m| pos.gives_check(m)).collect();
        assert_eq!(sorted(checking), strings(&v["checking_moves"]), "checking moves of {} ({fen})", v["id"]);
        assert_eq!(sorted(pos.mating_moves()), strings(&v["mating_moves"]), "mating moves of {} ({fen})", v["id"]);
        assert_eq!(g.can_win_this_turn(), !strings(&v["mating_moves"]).is_empty(), "{} ({fen})", v["id"]);
        check_position(&g);
        with_mate += usize::from(g.can_win_this_turn());
    }
    assert_eq!(with_mate, 5);
}

/// Hand-made positions; Fairy-Stockfish 11.1 (`UCI_Variant shako`,
/// `MultiPV 3`, `go depth 5`) scores each mate `mate 1` with exactly these
/// moves, and the last position, a check the king walks out of, in
/// centipawns.
#[test]
fn known_mates_in_one() {
    let cases: [(&str, &[&str]); 5] = [
        // The rook mates on the back rank; the king on f8 takes the 9th rank.
        ("5k4/10/5K4/10/10/10/10/10/10/R9 w - - 0 1", &["a1a10"]),
        // The cannon's quiet move to a10 gives check over the knight on c10, its screen.
        ("2N2k4/10/5K4/10/10/10/10/10/10/C9 w - - 0 1", &["a1a10"]),
        // Promotion to a queen or a rook mates; to a cannon (no screen) it does not.
        ("5k4/9P/5K4/10/10/10/10/10/10/10 w - - 0 1", &["j9j10q", "j9j10r"]),
        // Black mates the same way.
        ("r9/10/10/10/10/10/10/5k4/10/5K4 b - - 0 1", &["a10a1"]),
        // The king on e8 leaves g9 free: Ra10+ Kg9 (a mate in two, not one).
        ("5k4/10/4K5/10/10/10/10/10/10/R9 w - - 0 1", &[]),
    ];
    for (fen, mates) in cases {
        let g = GameState::from_fen(fen).unwrap();
        let mut want: Vec<String> = mates.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(sorted(g.position().mating_moves()), want, "{fen}");
        assert_eq!(g.can_win_this_turn(), !mates.is_empty(), "{fen}");
        check_position(&g);
    }
}

/// A finished game cannot be won, even with a mate on the board; a mate
/// that makes the 100th half-move still wins (checkmate ends the game
/// before the 50-move rule).
#[test]
fn finished_games_and_the_fifty_move_rule() {
    // Checkmated: over.
    let mut g = GameState::from_fen("5k4/10/5K4/10/10/10/10/10/10/R9 w - - 0 1").unwrap();
    g.play_uci("a1a10").unwrap();
    assert!(matches!(g.status(), Status::Checkmate(_)));
    assert!(!g.can_win_this_turn());
    assert!(!g.position().has_mate_in_one(), "the mated side has no move at all");
    // Drawn by the 50-move rule with the back-rank mate on the board.
    let drawn = GameState::from_fen("5k4/10/5K4/10/10/10/10/10/10/R9 w - - 100 80").unwrap();
    assert_eq!(drawn.status(), Status::FiftyMoveDraw);
    assert!(drawn.position().has_mate_in_one(), "the position itself has the mate");
    assert!(!drawn.can_win_this_turn(), "but the game is over");
    check_position(&drawn);
    // One half-move earlier the mate is the 100th half-move, and wins.
    let last = GameState::from_fen("5k4/10/5K4/10/10/10/10/10/10/R9 w - - 99 80").unwrap();
    assert_eq!(last.status(), Status::Running);
    assert!(last.can_win_this_turn());
    assert_eq!(check_position(&last), 1);
    // A stalemate is no win: the queen alone has no mate, two of its moves stalemate.
    let trap = GameState::from_fen("k9/10/10/2Q7/10/10/10/10/10/9K w - - 0 1").unwrap();
    let stalemating: Vec<String> = trap
        .legal_moves()
        .into_iter()
        .filter(|&m| {
            let mut next = trap.clone();
            next.play_unchecked(m);
            next.status() == Status::Stalemate
        })
        .map(|m| m.to_string())
        .collect();
    assert_eq!(stalemating, ["c7b8", "c7c9"]);
    assert!(!trap.can_win_this_turn());
    assert_eq!(check_position(&trap), 0);
}

/// Random games between a side that seeks the king (a check, when there is
/// one, two times in three; else a capture four times in five) and one
/// that plays at random, so that they reach mates: every position of the
/// last 60 plies of each game, and every 8th before them, agrees with the
/// reference.
#[test]
fn random_games_near_their_end_agree_with_the_rule() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5348_414B_4F4D_4154);
    let (mut positions, mut with_mate, mut mating_moves, mut mated_games) = (0u32, 0u32, 0usize, 0u32);
    for game in 0..400u64 {
        let mut g = GameState::random_start(game);
        let hunter = if game % 2 == 0 { Color::White } else { Color::Black };
        let mut line: Vec<GameState> = Vec::new();
        while !g.status().is_over() && line.len() < 500 {
            line.push(g.clone());
            let moves = g.legal_moves();
            let pos = *g.position();
            let (mut checks, mut captures) = (Vec::new(), Vec::new());
            for &m in &moves {
                let mut next = pos;
                next.play_unchecked(m);
                if next.in_check() {
                    checks.push(m);
                } else if pos.piece_at(m.to()).is_some() {
                    captures.push(m);
                }
            }
            let m = if g.to_move() != hunter {
                moves[rng.gen_range(0..moves.len())]
            } else if !checks.is_empty() && rng.gen_bool(2.0 / 3.0) {
                checks[rng.gen_range(0..checks.len())]
            } else if !captures.is_empty() && rng.gen_bool(0.8) {
                captures[rng.gen_range(0..captures.len())]
            } else {
                moves[rng.gen_range(0..moves.len())]
            };
            g.play_unchecked(m);
        }
        if matches!(g.status(), Status::Checkmate(_)) {
            mated_games += 1;
            assert!(line.last().unwrap().can_win_this_turn(), "the move before the mate of game {game} was a mate in one");
        }
        line.push(g);
        let n = line.len();
        for (i, s) in line.iter().enumerate() {
            if i + 60 >= n || i % 8 == 0 {
                let wins = check_position(s);
                positions += 1;
                with_mate += u32::from(wins > 0);
                mating_moves += wins;
            }
        }
    }
    eprintln!("{positions} positions, {with_mate} with a mate in one ({mating_moves} mating moves); {mated_games} games ended in mate");
    assert!(positions > 30_000 && with_mate > 250 && mated_games > 80, "{positions} positions, {with_mate} with mate, {mated_games} mated games");
}
