//! Shako against the Fairy-Stockfish reference data (`tests/data/shako/`):
//! every record must be reproduced exactly. Plus the engine's own
//! invariants: FEN round trips, incremental hashes, the policy encoding.

use pacozero_engine::shako::{
    action_index, move_from_action, parse_uci_parts, GameState, Kind, Move, Position, Square10, Status, NUM_ACTIONS, NUM_BIT_PLANES, NUM_SCALARS, STARTPOS_FEN,
};
use pacozero_engine::{Color, Fact, Outcome};
use serde_json::Value;
use std::collections::BTreeMap;

use crate::common::manifest_dir;
use pacozero_engine::prelude::*;

fn read_jsonl(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/shako/{name}", manifest_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}:{}: {e}", i + 1)))
        .collect()
}

/// Every record of both files: 100 positions from random games, 9 hand-made edge cases.
fn records() -> Vec<Value> {
    let mut all = read_jsonl("positions.jsonl");
    assert_eq!(all.len(), 100);
    let edge = read_jsonl("edge_cases.jsonl");
    assert_eq!(edge.len(), 9);
    all.extend(edge);
    all
}

fn position_of(v: &Value) -> Position {
    let fen = v["fen"].as_str().unwrap();
    fen.parse().unwrap_or_else(|e| panic!("{}: {e}", v["id"]))
}

fn strings(v: &Value) -> Vec<String> {
    let mut s: Vec<String> = v.as_array().unwrap_or_else(|| panic!("not an array: {v}")).iter().map(|x| x.as_str().unwrap().to_string()).collect();
    s.sort();
    s
}

fn sorted_uci(moves: impl IntoIterator<Item = Move>) -> Vec<String> {
    let mut s: Vec<String> = moves.into_iter().map(|m| m.to_string()).collect();
    s.sort();
    s
}

fn divide_map(pos: &Position, depth: u32) -> BTreeMap<String, u64> {
    pos.divide(depth).into_iter().map(|(m, n)| (m.to_string(), n)).collect()
}

fn expected_divide(v: &Value) -> BTreeMap<String, u64> {
    v.as_object().unwrap().iter().map(|(k, n)| (k.clone(), n.as_u64().unwrap())).collect()
}

/// Collects failures and reports them all at once.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    fn check<T: PartialEq + std::fmt::Debug>(&mut self, v: &Value, what: &str, got: T, want: T) {
        if got != want {
            self.0.push(format!("{} ({}): {what}: got {got:?}, expected {want:?}", v["id"], v["fen"].as_str().unwrap()));
        }
    }

    fn assert_none(self, checked: usize) {
        assert!(self.0.is_empty(), "{} failures in {checked} records:\n{}", self.0.len(), self.0.join("\n"));
    }
}

#[test]
fn legal_moves_checks_and_results_of_every_record() {
    let recs = records();
    let mut f = Failures::default();
    for v in &recs {
        let pos = position_of(v);
        f.check(v, "FEN round trip", pos.fen(), v["fen"].as_str().unwrap().to_string());
        f.check(v, "side to move", pos.side_to_move().letter().to_string(), v["side_to_move"].as_str().unwrap().to_string());
        f.check(v, "in check", pos.in_check(), v["in_check"].as_bool().unwrap());
        f.check(v, "checkers", sorted_squares(pos.checkers()), strings(&v["checkers"]));
        let moves = pos.legal_moves_vec();
        f.check(v, "legal moves", sorted_uci(moves.iter().copied()), strings(&v["moves"]));
        f.check(v, "perft1", pos.count_legal_moves(), v["perft1"].as_u64().unwrap());
        f.check(v, "perft1 (list)", moves.len() as u64, v["perft1"].as_u64().unwrap());
        let (mut checking, mut mating, mut stalemating) = (Vec::new(), Vec::new(), Vec::new());
        for &m in &moves {
            let mut c = pos;
            c.play_unchecked(m);
            let check = c.in_check();
            let stuck = c.count_legal_moves() == 0;
            if check {
                checking.push(m);
            }
            if check && stuck {
                mating.push(m);
            }
            if !check && stuck {
                stalemating.push(m);
            }
        }
        f.check(v, "checking moves", sorted_uci(checking), strings(&v["checking_moves"]));
        f.check(v, "mating moves", sorted_uci(mating), strings(&v["mating_moves"]));
        f.check(v, "stalemating moves", sorted_uci(stalemating), strings(&v["stalemating_moves"]));
        // The game result of a position without moves.
        let status = GameState::new(pos).status();
        let tags: Vec<&str> = v["tags"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
        if tags.contains(&"checkmate") {
            f.check(v, "status", status, Status::Checkmate(pos.side_to_move().other()));
        } else if tags.contains(&"stalemate") {
            f.check(v, "status", status, Status::Stalemate);
        } else if moves.is_empty() {
            f.check(v, "untagged position without moves", true, false);
        }
    }
    f.assert_none(recs.len());
}

fn sorted_squares(b: pacozero_engine::shako::Bb128) -> Vec<String> {
    let mut s: Vec<String> = b.map(|sq| sq.to_string()).collect();
    s.sort();
    s
}

#[test]
fn perft_2_and_3_with_divides_of_every_record() {
    let recs = records();
    let mut f = Failures::default();
    for v in &recs {
        let pos = position_of(v);
        let d2 = divide_map(&pos, 2);
        f.check(v, "divide2", &d2, &expected_divide(&v["divide2"]));
        f.check(v, "perft2", d2.values().sum::<u64>(), v["perft2"].as_u64().unwrap());
        f.check(v, "perft2 (direct)", pos.perft(2), v["perft2"].as_u64().unwrap());
        let d3 = divide_map(&pos, 3);
        f.check(v, "divide3", &d3, &expected_divide(&v["divide3"]));
        f.check(v, "perft3", d3.values().sum::<u64>(), v["perft3"].as_u64().unwrap());
    }
    f.assert_none(recs.len());
}

/// Depth 4 everywhere (472 M leaves) and depth 5 where given (57 M): a few seconds.
#[test]
fn perft_4_and_5_of_every_record() {
    let recs = records();
    let mut f = Failures::default();
    let mut checked = 0;
    for v in &recs {
        let pos = position_of(v);
        for depth in [4u32, 5] {
            if let Some(n) = v[format!("perft{depth}")].as_u64() {
                f.check(v, &format!("perft{depth}"), pos.perft(depth), n);
                checked += 1;
            }
        }
    }
    assert!(checked >= 109 + 35, "only {checked} deep counts");
    f.assert_none(recs.len());
}

#[test]
fn start_position_perft_to_depth_4_with_divides() {
    let path = format!("{}/tests/data/shako/startpos_perft.json", manifest_dir());
    let data: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(data["startfen"].as_str().unwrap(), STARTPOS_FEN);
    let pos = Position::startpos();
    assert_eq!(pos.fen(), STARTPOS_FEN);
    let mut depths = 0;
    for d in data["depths"].as_array().unwrap() {
        let depth = d["depth"].as_u64().unwrap() as u32;
        if depth > 4 {
            continue;
        }
        let got = divide_map(&pos, depth);
        assert_eq!(got, expected_divide(&d["divide"]), "divide at depth {depth}");
        assert_eq!(got.values().sum::<u64>(), d["nodes"].as_u64().unwrap(), "perft {depth}");
        depths += 1;
    }
    assert_eq!(depths, 4);
    assert_eq!(pos.perft(4), 10_273_158);
}

#[test]
fn random_games_replay_to_their_positions() {
    let mut replayed = 0;
    for v in read_jsonl("positions.jsonl") {
        let Some(moves) = v["startpos_moves"].as_array() else { continue };
        let mut g = GameState::startpos();
        for m in moves {
            let m = m.as_str().unwrap();
            g.play_uci(m).unwrap_or_else(|e| panic!("{}: {e}", v["id"]));
            assert_eq!(g.position().hash(), g.position().compute_hash(), "{}: hash after {m}", v["id"]);
        }
        assert_eq!(g.position().fen(), v["fen"].as_str().unwrap(), "{}", v["id"]);
        replayed += 1;
    }
    assert_eq!(replayed, 100);
}

/// Incremental hashes equal hashes computed from scratch over two plies of every record.
#[test]
fn incremental_hash_matches_recomputed() {
    let mut checked = 0u64;
    for v in records() {
        let pos = position_of(&v);
        assert_eq!(pos.hash(), pos.compute_hash());
        for m in pos.legal_moves_vec() {
            let mut c = pos;
            c.play_unchecked(m);
            assert_eq!(c.hash(), c.compute_hash(), "{} after {m}", v["id"]);
            // The hash decides repetitions: it must be the FEN's (without clocks).
            let reread: Position = c.fen().parse().unwrap();
            assert_eq!(c.hash(), reread.hash(), "{} after {m}: {}", v["id"], c.fen());
            for m2 in c.legal_moves_vec() {
                let mut c2 = c;
                c2.play_unchecked(m2);
                assert_eq!(c2.hash(), c2.compute_hash(), "{} after {m} {m2}", v["id"]);
                checked += 1;
            }
        }
    }
    assert!(checked > 100_000, "{checked}");
}

/// Policy indices are distinct, in range, ascending from `legal_actions`, and
/// decode back to their moves, for every legal move of every record and of
/// every position one ply later.
#[test]
fn action_indices_are_a_bijection_on_legal_moves() {
    let mut checked = 0;
    let check = |pos: &Position, checked: &mut usize| {
        let moves = pos.legal_moves_vec();
        let mover = pos.side_to_move();
        let mut seen = std::collections::HashSet::new();
        for &m in &moves {
            let i = action_index(m, mover);
            assert!(i < NUM_ACTIONS);
            assert!(seen.insert(i), "{m}: index {i} twice in {}", pos.fen());
            assert_eq!(move_from_action(pos, i), Some(m), "index {i} of {m} in {}", pos.fen());
            *checked += 1;
        }
        let g = GameState::new(*pos);
        let mut actions = Vec::new();
        g.playable_actions(&mut actions);
        assert!(actions.windows(2).all(|w| w[0] < w[1]));
        let mut expected: Vec<u16> = seen.iter().map(|&i| i as u16).collect();
        expected.sort();
        if !g.status().is_over() {
            assert_eq!(actions, expected);
        }
        for &a in &actions {
            assert_eq!(g.action_name(a), move_from_action(pos, a as usize).unwrap().to_string());
        }
    };
    for v in records() {
        let pos = position_of(&v);
        check(&pos, &mut checked);
        for m in pos.legal_moves_vec() {
            let mut c = pos;
            c.play_unchecked(m);
            check(&c, &mut checked);
        }
    }
    assert!(checked > 100_000, "{checked}");
}

#[test]
fn every_promotion_has_its_own_slot_for_both_colours() {
    // White pawns on b9 and i9 (capture on a10/c10/h10/j10); Black mirrored.
    for fen in ["r1r4r1r/1P6P1/10/10/5k4/10/10/10/10/4K5 w - - 0 1", "4k5/10/10/10/10/5K4/10/10/1p6p1/R1R4R1R b - - 0 1"] {
        let pos: Position = fen.parse().unwrap();
        let moves = pos.legal_moves_vec();
        let promotions = moves.iter().filter(|m| m.promotion().is_some()).count();
        assert_eq!(promotions, 6 * 6, "{fen}");
        let indices: std::collections::HashSet<usize> = moves.iter().map(|&m| action_index(m, pos.side_to_move())).collect();
        assert_eq!(indices.len(), moves.len());
        for &m in &moves {
            assert_eq!(move_from_action(&pos, action_index(m, pos.side_to_move())), Some(m));
        }
    }
}

/// A position prints as a diagram, rank 10 first, then its FEN.
#[test]
fn a_position_prints_as_a_diagram_and_its_fen() {
    let fen = "9k/10/10/10/10/10/10/10/10/K9 w - - 0 1";
    let shown = fen.parse::<Position>().unwrap().to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 12, "{shown}");
    assert_eq!(lines[0], "10  . . . . . . . . . k");
    assert_eq!(lines[1], " 9  . . . . . . . . . .");
    assert_eq!(lines[9], " 1  K . . . . . . . . .");
    assert_eq!(lines[10], "    a b c d e f g h i j");
    assert_eq!(lines[11], fen);
    // Debug output (assertion messages) is the FEN on one line.
    assert_eq!(format!("{:?}", fen.parse::<Position>().unwrap()), format!("Position({fen})"));
}

/// An under-promotion index names a move only from a pawn of the side to
/// move: White's rook on a9 and Black's knight on c9 stand where such moves
/// start, but only White's pawn on e9 has them (three steps, five pieces);
/// the same for Black on its second rank. (No side's pawn can stand on the
/// other's promotion rank.)
#[test]
fn under_promotion_indices_need_a_pawn_of_the_mover() {
    for (fen, pawn) in [("9k/R1n1P5/10/10/10/10/10/10/10/9K w - - 0 1", "e9"), ("9k/10/10/10/10/10/10/10/r1N1p5/9K b - - 0 1", "e2")] {
        let pos: Position = fen.parse().unwrap();
        let promotions: Vec<String> =
            (0..NUM_ACTIONS).filter_map(|i| move_from_action(&pos, i)).filter(|m| m.promotion().is_some()).map(|m| m.to_string()).collect();
        let under: Vec<&String> = promotions.iter().filter(|m| !m.ends_with('q')).collect();
        assert_eq!(under.len(), 15, "{fen}: {under:?}");
        assert!(promotions.iter().all(|m| m.starts_with(pawn)), "{fen}: {promotions:?}");
    }
}

#[test]
fn fen_errors_name_the_field() {
    let cases = [
        ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE w KQkq - 0 1", "board"),
        ("c8c/ernbqkbnre/pppppppppp/11/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq - 0 1", "board"),
        ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8X w KQkq - 0 1", "board"),
        ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C x KQkq - 0 1", "side"),
        ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkx - 0 1", "castling"),
        ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQ1BNRE/C8C w KQkq - 0 1", "board"),
        ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBN1E/C8C w KQkq - 0 1", "castling"),
        ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNNE/C8C w KQkq - 0 1", "castling"),
        ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq e4 0 1", "en passant"),
        ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq - x 1", "half-moves"),
        ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq - 0 0", "full moves"),
        ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w", "castling"),
        ("9k/10/10/10/10/10/10/10/r9/K9 b - - 0 1", "position"),
        // An en-passant square wrong in one way only (after e8-e6 it is e7):
        // on another rank (e6, behind the pawn on e5), holding a piece,
        // with no pawn in front of it, or with a piece where the pawn came from.
        ("c8c/ernbqkbnre/pppp1ppppp/10/10/4p5/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq e6 0 1", "en passant"),
        ("c8c/er1bqkbnre/pppp1ppppp/4n5/4p5/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq e7 0 1", "en passant"),
        ("c8c/ernbqkbnre/pppp1ppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq e7 0 1", "en passant"),
        ("c8c/er1bqkbnre/ppppnppppp/10/4p5/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq e7 0 1", "en passant"),
    ];
    for (fen, field) in cases {
        let e = fen.parse::<Position>().expect_err(fen);
        assert_eq!(e.field, field, "{fen}: {e}");
        assert!(e.to_string().contains(field), "{e}");
    }
    let after_e8e6 = "c8c/ernbqkbnre/pppp1ppppp/10/4p5/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq e7 0 1";
    assert_eq!(after_e8e6.parse::<Position>().unwrap().fen(), after_e8e6);
    // A run of empty squares is read as written, two digits too.
    let e = "c8c/ernbqkbnre/pppppppppp/11/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq - 0 1".parse::<Position>().unwrap_err();
    assert!(e.to_string().contains("rank 7: bad run of empty squares 11"), "{e}");
    // Clocks are optional.
    let p: Position = "c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq -".parse().unwrap();
    assert_eq!(p.fen(), STARTPOS_FEN);
}

#[test]
fn uci_parsing() {
    let pos = Position::startpos();
    assert_eq!(pos.parse_uci("a3a5").unwrap().to_string(), "a3a5");
    assert_eq!(pos.parse_uci("j1b1").unwrap().to_string(), "j1b1");
    for bad in ["", "a3", "a3a6", "a3a5q", "k3k4", "a3a4x", "a0a1", "a3a4 "] {
        assert!(pos.parse_uci(bad).is_err(), "{bad}");
    }
    // The error quotes the input and says why.
    let e = pos.parse_uci("a3a6").unwrap_err();
    assert_eq!(e.to_string(), format!("invalid move 'a3a6': {}", e.message));
    assert!(e.message.starts_with("not legal in "), "{e}");
    let promo: Position = "9k/4P5/10/10/10/10/10/10/10/K9 w - - 0 1".parse().unwrap();
    assert_eq!(promo.parse_uci("e9e10c").unwrap().to_string(), "e9e10c");
    assert!(promo.parse_uci("e9e10").is_err(), "a promotion needs its piece");
    assert!(promo.parse_uci("e9e10k").is_err());
    // A move of another position: `play` refuses it, naming the move and
    // the position, and plays nothing.
    let elsewhere = promo.parse_uci("e9e10c").unwrap();
    let mut start = Position::startpos();
    let e = start.play(elsewhere).unwrap_err();
    assert_eq!(e.to_string(), format!("illegal move e9e10c in {STARTPOS_FEN}"));
    assert_eq!(start.fen(), STARTPOS_FEN);
    // Malformed input is named by its first wrong part: a square is a
    // letter and one or two digits, a promotion one lowercase letter.
    for (bad, why) in [
        ("ab1", "expected a square like e2 or j10"),
        ("a100b1", "expected a square like e2 or j10"),
        ("a11b1", "bad from-square (files a..j, ranks 1..10)"),
        ("a1b100", "trailing characters after the to-square"),
        ("a1", "missing to-square"),
        ("a1a2qq", "trailing characters after the to-square"),
        ("a1a2Q", "trailing characters after the to-square"),
        ("a1a2k", "promotion letter must be one of q r b n e c"),
    ] {
        assert_eq!(parse_uci_parts(bad).unwrap_err().message, why, "{bad}");
    }
    assert_eq!(parse_uci_parts("j9j10q").unwrap(), (Square10::parse("j9").unwrap(), Square10::parse("j10").unwrap(), Some(Kind::Queen)));
}

/// The network input of `g`: its bit planes (two words a plane) and its scalars.
fn encoded(g: &GameState) -> (Vec<u64>, Vec<f32>) {
    let mut planes = vec![0u64; NUM_BIT_PLANES * 2];
    let mut scalars = vec![0f32; NUM_SCALARS];
    g.encode(&mut planes, &mut scalars);
    (planes, scalars)
}

/// Plane `p` of `planes` as one 100-square set (low word first).
fn plane(planes: &[u64], p: usize) -> u128 {
    (planes[2 * p] as u128) | ((planes[2 * p + 1] as u128) << 64)
}

#[test]
fn threefold_repetition_and_fifty_moves_draw() {
    let repeated_scalar = |g: &GameState| encoded(g).1[2];
    let mut g = GameState::startpos();
    assert_eq!(repeated_scalar(&g), 0.0);
    for round in 0..2 {
        for m in ["h2g4", "h9g7", "g4h2", "g7h9"] {
            assert_eq!(g.status(), Status::Running);
            g.play_uci(m).unwrap();
        }
        assert_eq!(g.repetitions(), round + 1);
        // The encoding's third scalar says the position was seen before.
        assert_eq!(repeated_scalar(&g), 1.0, "after round {round}");
    }
    assert_eq!(g.status(), Status::RepetitionDraw);
    assert_eq!(g.end_reason(), "repetition");
    assert_eq!(g.outcome(), Some(Outcome::Draw));
    let mut actions = Vec::new();
    g.playable_actions(&mut actions);
    assert!(actions.is_empty());
    // A game over counts no line below it, though its position has moves
    // (the start position's 58); the position itself still counts one.
    assert_eq!((g.fast_perft(1, false), g.fast_perft(2, true)), (0, 0));
    assert_eq!(g.fast_perft(0, false), 1);
    assert_eq!((GameState::startpos().fast_perft(0, false), GameState::startpos().fast_perft(1, false)), (1, 58));

    let mut g = GameState::from_fen("9k/10/10/10/10/10/10/10/R9/K9 w - - 99 80").unwrap();
    assert_eq!(g.status(), Status::Running);
    assert_eq!(g.end_reason(), "running");
    g.play_uci("a2b2").unwrap();
    assert_eq!(g.status(), Status::FiftyMoveDraw);
    assert_eq!(g.end_reason(), "fifty_moves");
    // Mate on the hundredth half-move is a mate.
    let mut g = GameState::from_fen("9k/10/8K1/10/10/10/10/10/R9/10 w - - 99 80").unwrap();
    g.play_uci("a2a10").unwrap();
    assert_eq!(g.status(), Status::Checkmate(Color::White));
    assert_eq!(g.outcome(), Some(Outcome::Win(Color::White)));
    assert_eq!(g.end_reason(), "checkmate");
    // Black's king on a10, every square around it covered by the queen on
    // b8, itself not in check.
    let g = GameState::from_fen("k9/10/1Q8/10/10/10/10/10/10/9K b - - 0 1").unwrap();
    assert_eq!(g.status(), Status::Stalemate);
    assert_eq!(g.end_reason(), "stalemate");
}

#[test]
fn game_trait_surface() {
    assert_eq!(<GameState as GameRules>::NAME, "shako");
    assert_eq!(<GameState as GameRules>::NUM_ACTIONS, 3656);
    // The viewer's board, from a10 on: White's letter or `.`, then Black's.
    let cells = GameState::startpos().board_cells();
    assert_eq!(&cells[..4], ".c..", "Black's cannon on a10, b10 empty");
    assert_eq!(&cells[180..184], "C...", "White's cannon on a1, b1 empty");
    let mut g = GameState::startpos();
    let mut actions = Vec::new();
    g.playable_actions(&mut actions);
    assert_eq!(actions.len(), 58);
    let names: Vec<String> = actions.iter().map(|&a| g.action_name(a)).collect();
    assert!(names.contains(&"a3a5".to_string()) && !names.contains(&"f2h2".to_string()));
    // The facts: not in check, and the legal moves by name, sorted.
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(g.facts(), [("in_check", Fact::Flag(false)), ("legal_moves", Fact::List(sorted))]);
    let checked = GameState::from_fen("9k/10/10/10/10/10/10/10/10/K8R b - - 0 1").unwrap();
    assert_eq!(checked.facts()[0], ("in_check", Fact::Flag(true)), "the rook on j1 checks the king on j10");
    let a = actions[names.iter().position(|n| n == "e3e5").unwrap()];
    // A PGN move of one decision is the move in SAN.
    let knight = actions[names.iter().position(|n| n == "h2g4").unwrap()];
    assert_eq!((g.pgn_move(&[a]), g.pgn_move(&[knight])), ("e5".to_string(), "Ng4".to_string()));
    g.apply(a);
    assert_eq!(g.notation(), "c8c/ernbqkbnre/pppppppppp/10/10/4P5/10/PPPP1PPPPP/ERNBQKBNRE/C8C b KQkq - 0 1");
    // Black's mirrored e8e6 has White's e3e5 index.
    let mut b_actions = Vec::new();
    g.playable_actions(&mut b_actions);
    let b = b_actions.iter().copied().find(|&x| g.action_name(x) == "e8e6").unwrap();
    assert_eq!(a, b);

    let (planes, scalars) = encoded(&g);
    // Black to move: its pawns (plane 0) on rank 3 of the mirrored frame, ours with e5 in it mirrored to e6.
    let bits = |p: usize| plane(&planes, p);
    assert_eq!(bits(0), 0x3FF << 20);
    assert_eq!(bits(8), (0x3FF << 70) & !(1 << 74) | (1 << 54));
    assert_eq!(bits(5), 1 << 15, "own king on f2 of the mirrored frame");
    assert_eq!(bits(17), (1 << 11) | (1 << 18), "own castling rooks");
    assert_eq!(scalars, vec![1.0, 0.0, 0.0, 1.0]);
    // No training-data mirror: the planes stay as they are, and so do the decisions.
    let mut mirrored = planes.clone();
    assert!(!GameState::mirror_planes(&mut mirrored) && mirrored == planes);
    assert_eq!(GameState::mirror_action_index(a as usize), a as usize);
}

/// Planes 17 and 18 hold only the rooks whose castling right is kept (here
/// White's king side, i2, and Black's queen side, b9), and scalar 1 the
/// half-moves since a capture or a pawn move over 100.
#[test]
fn encoding_shows_each_kept_castling_right_and_the_fifty_move_count() {
    let g = GameState::from_fen("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w Kq - 37 20").unwrap();
    let (planes, scalars) = encoded(&g);
    let bits = |p: usize| plane(&planes, p);
    assert_eq!(bits(17), 1 << 18, "White's rook on i2");
    assert_eq!(bits(18), 1 << 81, "Black's rook on b9");
    assert_eq!(scalars, vec![0.0, 0.37, 0.0, 1.0]);
}

/// Material in pawns, each kind at its value times its count: White has
/// two pawns and a queen, Black one piece of each kind.
#[test]
fn material_counts_each_piece_at_its_value() {
    let pos: Position = "k9/enbcrq4/p9/10/10/10/10/PP8/10/Q8K w - - 0 1".parse().unwrap();
    assert_eq!(pos.material(Color::White), 2 + 9);
    assert_eq!(pos.material(Color::Black), 1 + 2 + 3 + 3 + 4 + 5 + 9);
    assert_eq!(GameState::from_fen(&pos.fen()).unwrap().material_balance(), Some(11 - 27));
}

/// A random start plays 2, 4 or 6 plies by its seed (so White is to move),
/// then stops: move 2, 3 or 4 in turn; a number always gives the same start.
#[test]
fn random_starts_play_two_four_or_six_plies() {
    for n in 0..9u64 {
        let fen = GameState::random_start(n).position().fen();
        let fields: Vec<&str> = fen.split(' ').collect();
        assert_eq!(fields[1], "w", "{n}: {fen}");
        assert_eq!(fields[5], (2 + n % 3).to_string(), "{n}: {fen}");
    }
    // The starts a number gives are fixed, so that a match naming its
    // openings by number plays the same ones in every version: these were
    // written by the generator (ChaCha8 seeded with the number, salted) at
    // the commit that added them. 0 and 84 tell the salt's `^` from `|`
    // (84's bits are all in the salt).
    for (n, fen) in [
        (0u64, "c3b4c/ern1qkbnre/pppppppppp/10/10/P9/10/1PPPPPPPPP/ERNBQKBNRE/C8C w KQkq - 1 2"),
        (1, "cr7c/e1nbqkbnre/ppp1pppppp/3p6/10/2P7/10/PP1PPPPPPP/ERNBQKBNRE/C4C4 w KQk - 0 3"),
        (2, "cc7n/ernbqkb1re/ppppppppp1/9p/10/7P2/10/PPPPPPP1PP/ERNBQ1BNRE/1C4K2C w kq - 0 4"),
        (84, "c3n4c/er1bqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQ1BNRE/C3K4C w kq - 2 2"),
    ] {
        assert_eq!(GameState::random_start(n).position().fen(), fen, "start {n}");
    }
}
