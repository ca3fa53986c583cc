//! Validation of setups (issue 16, part 1), both ways:
//!
//! * every position reached in random playouts (standard and Fischer-random
//!   starts, every combination of the optional rules, mid-turn states and
//!   pending promotions included) and every position of the reference data
//!   passes validation, and its FEN reads back;
//! * a table of impossible positions fails, each with its own error.

use pacozero_engine::paco::{fischer_random, parse_actions, Action, Hand, Position, Required, Rules, Setup, Status, STARTPOS_FEN};
use pacozero_engine::Square;
use serde_json::Value;

mod common;
use common::{manifest_dir, Rng};

fn rules_of(bits: u8) -> Rules {
    Rules { no_union_undo: bits & 1 != 0, one_double_step_per_file: bits & 2 != 0, king_chain_draw: bits & 4 != 0 }
}

/// The position rebuilt from its setup equals it; its FEN reads back to the
/// same FEN. Returns a description of the first difference.
fn check_reachable(p: &Position) -> Result<(), String> {
    let rules = p.rules();
    let q = Position::from_setup(&p.to_setup(), rules).map_err(|e| format!("setup refused: {e}"))?;
    // A setup shows wins (official rules) and no-progress draws; not repetitions,
    // and not the vchess king rule's results, which the board cannot tell apart.
    let status_ok = q.status() == p.status() || (p.status().is_over() && (rules.king_chain_draw || p.status() == Status::RepetitionDraw));
    if !status_ok {
        return Err(format!("status {} != {}", q.status(), p.status()));
    }
    if q.hash() != p.hash() || q.fen() != p.fen() || q.required() != p.required() || q.hand() != p.hand() || q.promotion_square() != p.promotion_square() {
        return Err(format!(
            "rebuilt position differs: {} {:?}; hash {:x} vs {:x} (recomputed {:x})",
            q.fen(),
            q.required(),
            q.hash(),
            p.hash(),
            p.compute_hash()
        ));
    }
    let fen = p.fen();
    let back = Position::from_fen(&fen, rules).map_err(|e| format!("FEN refused: {e}"))?;
    if back.fen() != fen {
        return Err(format!("FEN reads back as {}", back.fen()));
    }
    // The FEN holds everything but the optional rules' history, and cannot
    // tell a gifted promotion from one the mover's own union move made.
    let ambiguous = p.required() == Required::PromoteThenFinish && back.required() == Required::PromoteThenLift;
    if rules == Rules::OFFICIAL && !ambiguous && (back.hash() != p.hash() || back.required() != p.required()) {
        return Err(format!("FEN reads back as a different state: {:?} {:?}", back.required(), back.promotion_square()));
    }
    Ok(())
}

fn playouts(n: usize, seed: u64) -> usize {
    let mut rng = Rng(seed);
    let mut positions = 0;
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    for game in 0..n {
        let rules = rules_of((game % 8) as u8);
        let mut p = if game % 3 == 0 { Position::from_fen(STARTPOS_FEN, rules).unwrap() } else { fischer_random(rng.below(960) as u16, rules) };
        let mut trace: Vec<Action> = Vec::new();
        for _ in 0..600 {
            positions += 1;
            *kinds.entry(p.required().name()).or_default() += 1;
            if let Err(e) = check_reachable(&p) {
                let actions: Vec<String> = trace.iter().map(|a| a.to_string()).collect();
                panic!("game {game} ({rules:?}), {}: {e}\nfen {}\nactions {}", p.required().name(), p.fen(), actions.join(" "));
            }
            let legal: Vec<Action> = p.actions().iter().collect();
            if legal.is_empty() {
                break;
            }
            let a = legal[rng.below(legal.len())];
            p.play(a).unwrap();
            trace.push(a);
        }
    }
    for (k, n) in &kinds {
        eprintln!("{k}: {n}");
    }
    positions
}

/// A count from the environment variable `name`, or `default`; a value
/// that is not a positive number is an error (a count of 0 would pass
/// without validating anything).
fn count_from_env(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Err(_) => default,
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => panic!("{name}={v:?}: expected a positive number of games to validate"),
        },
    }
}

/// 10,000 random playouts; `VALIDATION_PLAYOUTS` sets another number.
#[test]
fn every_position_of_random_playouts_is_valid() {
    let n = count_from_env("VALIDATION_PLAYOUTS", 10_000);
    let positions = playouts(n, 0x5041_434F_0016);
    eprintln!("{n} playouts, {positions} positions validated");
    assert!(positions > n * 50);
}

fn read_jsonl(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/{name}", manifest_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn every_position_of_the_reference_data_is_valid() {
    let mut checked = 0;
    for v in read_jsonl("vectors.jsonl") {
        let fen = v["fen"].as_str().unwrap();
        let pos = Position::from_fen(fen, Rules::OFFICIAL).unwrap_or_else(|e| panic!("vector {}: {fen}: {e}", v["id"]));
        // FENs of pending promotions read as one.
        assert_eq!(pos.required().is_promote(), v["required_action"].as_str().unwrap().starts_with("Promote"), "vector {}: {fen}", v["id"]);
        let src = &v["source"];
        let mut p: Position = src["start_fen"].as_str().unwrap().parse().unwrap();
        check_reachable(&p).unwrap();
        for a in parse_actions(src["actions_from_start"].as_str().unwrap()).unwrap() {
            p.play(a).unwrap();
            check_reachable(&p).unwrap_or_else(|e| panic!("vector {}: {e}", v["id"]));
            checked += 1;
        }
        assert_eq!(p.fen(), fen);
        assert_eq!(p.required().name(), v["required_action"].as_str().unwrap());
    }
    for f in read_jsonl("full_moves.jsonl") {
        for m in f["full_moves"].as_array().unwrap() {
            let fen = m["result_fen"].as_str().unwrap();
            let pos = Position::from_fen(fen, Rules::OFFICIAL).unwrap_or_else(|e| panic!("full move of {}: {fen}: {e}", f["id"]));
            if m["state"].as_str().unwrap().starts_with("PacoVictory") {
                assert_eq!(pos.status().to_string(), m["state"].as_str().unwrap(), "{fen}");
            }
            checked += 1;
        }
    }
    for g in read_jsonl("games.jsonl") {
        let start = g["setup"]["start_fen"].as_str().or(g["setup"].as_str()).unwrap_or(STARTPOS_FEN);
        let mut p: Position = start.parse().unwrap_or_else(|e| panic!("game start {start}: {e}"));
        for a in parse_actions(g["actions"].as_str().unwrap()).unwrap() {
            if p.status().is_over() {
                break;
            }
            p.play(a).unwrap();
            check_reachable(&p).unwrap_or_else(|e| panic!("game {}: {e}", g["game"]));
            checked += 1;
        }
        let fen = g["final_fen"].as_str().unwrap();
        Position::from_fen(fen, Rules::OFFICIAL).unwrap_or_else(|e| panic!("final FEN {fen}: {e}"));
    }
    assert!(checked > 10_000, "{checked}");
}

/// Impossible positions, each with the error it gets.
const IMPOSSIBLE: &[(&str, &str)] = &[
    ("kkkkkkkk/8/8/8/8/8/8/KKKKKKKK w 0 - - -", "board: 8 white kings (a1, b1, c1, d1, e1, f1, g1, h1)"),
    ("8/8/8/8/8/8/8/8 w 0 - - -", "board: no white king"),
    ("4k3/8/8/8/8/8/8/8 w 0 - - -", "board: no white king"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNZ w 0 AHah - -", "board: 2 black kings (e8, h1 in a union)"),
    ("PPPPPPPP/8/8/8/8/8/8/pppppppp w 0 - - -", "board: no white king"),
    (
        "PPPPPPPP/8/8/3k4/8/8/8/ppppppK1 w 0 - - -",
        "board: White's pawn on a8 stands on its last rank unpromoted: it must promote, but no promotion is pending there",
    ),
    ("4k3/8/8/8/8/8/8/ppppppK1 w 0 - - -", "board: Black's pawn on a1 stands on its last rank unpromoted: Black promotes it before its turn ends"),
    ("4k3/8/8/8/8/8/8/PK6 w 0 - - -", "board: White's lone pawn on a1 stands on its first rank, which a pawn only reaches inside a union"),
    ("p3k3/8/8/8/8/8/8/4K3 w 0 - - -", "board: Black's lone pawn on a8 stands on its first rank, which a pawn only reaches inside a union"),
    ("P3k3/P7/8/8/8/8/8/4K3 b 0 - - -", "board: White's pawn on a8 stands on its last rank unpromoted: White promotes it before its turn ends"),
    ("4k3/8/8/8/8/8/8/4K2p w 0 - - -", "board: Black's pawn on h1 stands on its last rank unpromoted: Black promotes it before its turn ends"),
    ("PP2k3/8/8/8/8/8/8/4K3 w 0 - - -", "board: White's pawn on a8 stands on its last rank unpromoted: it must promote, but no promotion is pending there"),
    ("4k3/8/8/8/8/8/8/4K3 w 0 AHah - -", "castling: right A: White's rook is missing from a1"),
    ("4k3/8/8/8/8/8/8/R3K2R w 0 AHah - -", "castling: right a: Black's rook is missing from a8"),
    ("r3k2r/8/8/8/8/8/4K3/R6R w 0 AHah - -", "castling: right A: White's king is not on e1"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w 0 BHah - -", "castling: right B: White's rook is missing from b1"),
    ("r3k2r/8/8/8/8/8/8/R3K1NR w 0 AGah - -", "castling: right G: White's rook is missing from g1"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah h6 -", "en passant: h6: no black pawn on h5 just skipped it"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah e3 -", "en passant: e3 is not on rank 6, where Black's pawns skip a square"),
    ("rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPPPPPP/RNBQKBNR b 0 AHah d6 -", "en passant: d6 is not on rank 3, where White's pawns skip a square"),
    ("rnbqkb1r/ppppnppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w 0 AHah e6 -", "en passant: e6: e7, where the pawn started its double step, holds a lone piece"),
    ("rnbqkbnr/pppp1ppp/4N3/4p3/8/8/PPPPPPPP/RNBQKB1R w 0 AHah e6 -", "en passant: e6 is occupied, but a pawn just skipped it"),
    ("rnbqkb1r/pppp1ppp/4o3/4p3/8/8/PPPPPPPP/RNBQKB1R w 0 AHah e6 -", "en passant: e6 is occupied, but a pawn just skipped it"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 101 AHah - -", "half-moves: 101 half-moves without progress; the game is drawn at 100"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w 0 AHah - -", "board: no white king"),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/QNBQKBNR w 0 Hah - -",
        "board: White has 2 queens, 1 rook, 2 knights, 2 bishops and 8 pawns: 1 promoted pieces, but only 0 pawns are missing to have promoted",
    ),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w 0 AHah - -", "invalid FEN board field at character 44: more than 8 ranks"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -", ""),
    ("rnbqkbnr/pppppppp/8/8/8/2N5/PPPPPPPP/RNBQKBNR w 0 AHah - -", "board: White has 17 pieces; a side has 16, and nothing is ever captured"),
    ("rnbqkbnr/pppppppp/8/8/8/P7/PPPPPPPP/RNBQKBN1 w 0 Aah - -", "board: White has 9 pawns; a side has at most 8"),
    ("8/8/8/8/4_3/8/8/8 w 0 - - -", "board: the two kings are united on e4; kings never unite under the official rules"),
    (
        "4n3/8/8/8/4Z3/8/8/4K3 w 0 - - -",
        "side: Black's king is united on e4: White won with the last move, so Black is to move (or White promoting the pawn that won)",
    ),
    ("8/8/8/8/4X3/8/8/3x4 w 0 - - -", "board: both kings are in unions (d1 and e4); the first union with a king ends the game"),
    ("4k3/8/8/8/4N3/8/8/4K3^e4N w 0 - - -", "lifted: White's knight in hand above e4, where a lone piece stands"),
    (
        "4k3/8/8/8/4n3/8/8/4K3^e4N w 0 - - -",
        "lifted: White's knight in hand above e4, where a lone piece stands: a piece is lifted from an empty square or released from a union",
    ),
    ("4k3/8/8/8/4o3/8/8/4K3^e4Nb w 0 - - -", "lifted: a union is lifted from e4, which is not empty"),
    ("4k3/8/8/8/4P3/8/8/4K3^e4Nb w 0 - - -", "lifted: a union is lifted from e4, which is not empty"),
    ("4k3/8/8/8/4p3/8/8/4K3^e4Nb w 0 - - -", "lifted: a union is lifted from e4, which is not empty"),
    ("4k3/8/8/8/4o3/8/8/8^e1K w 0 - - -", ""),
    ("4k3/8/8/8/4o3/8/8/3K4^e1K w 0 - - -", "board: 2 white kings (d1, e1 in hand)"),
    ("4k3/8/8/8/8/8/8/8^e4Kn w 0 - - -", "lifted: White's king is lifted in a union from e4; kings never unite (only the vchess king rule lets them)"),
    ("4k3/8/8/8/8/8/8/4K3^e4Nk w 0 - - -", "lifted: White's union lifted from e4 holds the opponent's king: that game is over"),
    ("3k4/8/8/8/8/8/8/4K3^e8Pn w 0 - - -", "lifted: White's pawn is lifted from e8, on its last rank, where it would have promoted"),
    ("4k3/8/8/8/8/8/8/4K3^e4P w 0 - - -", ""),
    (
        "3nk3/8/8/8/8/8/8/4K3^d8P w 0 - - -",
        "lifted: White's pawn in hand above d8, where a lone piece stands: a piece is lifted from an empty square or released from a union",
    ),
    ("3Ek3/8/8/8/8/8/8/4K3^c5N w 0 - - -", "board: White's pawn on d8 stands on its last rank unpromoted: it must promote, but no promotion is pending there"),
    ("3Ek2P/8/8/8/8/8/8/4K3 w 0 - - -", "board: White's pawn on d8 stands on its last rank unpromoted: it must promote, but no promotion is pending there"),
];

#[test]
fn impossible_positions_are_refused_with_their_error() {
    let mut failures = Vec::new();
    for &(fen, expected) in IMPOSSIBLE {
        match (Position::from_fen(fen, Rules::OFFICIAL), expected) {
            (Ok(_), "") => {}
            (Ok(p), _) => failures.push(format!("{fen}: accepted as {} ({}), expected {expected}", p.fen(), p.status())),
            (Err(e), _) => {
                let got = e.to_string();
                let got = got.strip_prefix("impossible position: ").unwrap_or(&got);
                if expected.is_empty() || !got.starts_with(expected) {
                    failures.push(format!("{fen}:\n   got      {got}\n   expected {expected}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_error_names_the_field_and_the_square() {
    let e = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah h6 -", Rules::OFFICIAL).unwrap_err();
    let inner = e.impossible.clone().expect("an impossible position, not a syntax error");
    assert_eq!((inner.field, inner.square), ("en passant", Some(Square::parse("h6").unwrap())));
    assert_eq!(e.field, "en passant");
    assert_eq!(e.to_string(), "impossible position: en passant: h6: no black pawn on h5 just skipped it");
    // The reader alone accepts it: validation is a separate step.
    let setup: Setup = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah h6 -".parse().unwrap();
    assert_eq!(Position::from_setup(&setup, Rules::OFFICIAL).unwrap_err(), inner);
}

#[test]
fn reachable_oddities_are_accepted() {
    let ok = |fen: &str, rules: Rules| Position::from_fen(fen, rules).unwrap_or_else(|e| panic!("{fen}: {e}"));
    // Fewer than 16 pieces a side: studies and puzzles.
    ok("4k3/8/8/8/8/8/8/4K3 w 0 - - -", Rules::OFFICIAL);
    // Pawns in unions on any rank, their own first rank included.
    ok("4k3/8/8/8/8/8/8/C3K3 w 0 - - -", Rules::OFFICIAL);
    ok("c3k3/8/8/8/8/8/8/4K3 b 0 - - -", Rules::OFFICIAL);
    // A gifted promotion waits on the last rank: the FEN reads as one.
    let p = ok("3Ck3/8/8/8/8/8/8/4K3 w 0 - - -", Rules::OFFICIAL);
    assert_eq!((p.required(), p.promotion_square()), (Required::PromoteThenLift, Square::parse("d8")));
    assert_eq!(p.actions().len(), 4);
    // A lone pawn that just reached its last rank promotes before the turn ends.
    let p = ok("3Pk3/8/8/8/8/8/8/4K3 w 0 - - -", Rules::OFFICIAL);
    assert_eq!(p.required(), Required::PromoteThenFinish);
    // A pawn that reached the last rank in a chain, the released piece in hand.
    let p = ok("3Ek3/8/8/8/8/8/8/4K3^d8N w 0 - - -", Rules::OFFICIAL);
    assert_eq!(p.required(), Required::PromoteThenPlace);
    // A won game: the loser to move, the status derived.
    let p = ok("8/8/8/8/4Z3/8/8/4K3 b 0 - - -", Rules::OFFICIAL);
    assert_eq!(p.status(), Status::PacoVictory(pacozero_engine::Color::White));
    // The vchess king may stand in a union.
    ok("4k3/8/8/8/4x3/8/8/8 w 0 - - -", Rules { king_chain_draw: true, ..Rules::OFFICIAL });
    // The rook on its castling square may be in a union.
    ok("r3k2r/8/8/8/8/8/8/R3K2h w 0 AHah - -", Rules::OFFICIAL);
    // A lifted king keeps its castling rights.
    let p = ok("r3k2r/8/8/8/8/8/8/R6R^e1K w 0 AHah - -", Rules::OFFICIAL);
    assert_eq!(p.hand(), Hand::Single { kind: pacozero_engine::PieceKind::King, from: Square::parse("e1").unwrap() });
    // A union with the double-stepped pawn lifted mid-turn keeps en passant.
    ok("4k3/8/8/8/8/8/8/4K3^e5Np w 0 - e6 -", Rules::OFFICIAL);
    // The no-progress draw at 100 half-moves.
    assert_eq!(ok("4k3/8/8/8/8/8/8/4K3 w 100 - - -", Rules::OFFICIAL).status(), Status::NoProgressDraw);
}

/// Shako: every position of random games reads back from its FEN.
#[test]
fn every_position_of_random_shako_games_reads_back() {
    use pacozero_engine::shako;
    let n = count_from_env("VALIDATION_SHAKO_GAMES", 2_000);
    let mut rng = Rng(0x5348_414B_4F16);
    let mut positions = 0;
    for game in 0..n {
        let mut p = shako::Position::startpos();
        for ply in 0..400 {
            let fen = p.fen();
            let back: shako::Position = fen.parse().unwrap_or_else(|e| panic!("game {game}, ply {ply}: {fen}: {e}"));
            assert_eq!((back.fen(), back.hash()), (fen, p.hash()));
            positions += 1;
            let moves = p.legal_moves_vec();
            if moves.is_empty() || p.halfmove_clock() >= 100 {
                break;
            }
            p.play_unchecked(moves[rng.below(moves.len())]);
        }
    }
    eprintln!("{n} Shako games, {positions} positions validated");
}

/// Impossible Shako positions, each with the error it gets.
const IMPOSSIBLE_SHAKO: &[(&str, &str)] = &[
    ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQ1BNRE/C8C w kq - 0 1", "invalid FEN board field: White has 0 kings, expected 1"),
    ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBKKBNRE/C8C w kq - 0 1", "invalid FEN board field: White has 2 kings (e2, f2), expected 1"),
    ("9k/10/10/10/10/10/10/10/P9/K9 w - - 0 1", "invalid FEN board field: White's pawn on a2 stands behind its third rank"),
    ("9k/p9/10/10/10/10/10/10/10/K9 w - - 0 1", "invalid FEN board field: Black's pawn on a9 stands behind its third rank"),
    ("P8k/10/10/10/10/10/10/10/10/K9 w - - 0 1", "invalid FEN board field: White's pawn on a10 stands on its last rank unpromoted"),
    (
        "c8c/ernbqkbnre/pppppppppp/10/10/10/4N5/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq - 0 1",
        "invalid FEN board field: White has 23 pieces, more than the 22 a side starts with",
    ),
    ("c8c/ernbqkbnre/pppppppppp/10/10/10/P9/PPPPPPPPPP/ERNBQKBNRE/C9 w Qkq - 0 1", "invalid FEN board field: White has 11 pawns; a side has at most 10"),
    (
        "c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/QRNBQKBNRQ/C8C w KQkq - 0 1",
        "invalid FEN board field: White has 2 pieces beyond the start's, but only 0 pawns are missing",
    ),
    ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBN1E/C8C w KQkq - 0 1", "invalid FEN castling field: 'K' needs the king on f2 and a rook on i2"),
    ("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq h8 0 1", "invalid FEN en passant field: h8 is not a square a pawn just skipped"),
    ("9k/10/10/10/10/10/10/10/r9/K9 b - - 0 1", "invalid FEN position field: the side not to move (w) is in check"),
];

#[test]
fn impossible_shako_positions_are_refused_with_their_error() {
    let mut failures = Vec::new();
    for &(fen, expected) in IMPOSSIBLE_SHAKO {
        match fen.parse::<pacozero_engine::shako::Position>() {
            Ok(p) => failures.push(format!("{fen}: accepted as {}", p.fen())),
            Err(e) if !e.to_string().starts_with(expected) => failures.push(format!("{fen}:\n   got      {e}\n   expected {expected}")),
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Captures make fewer pieces normal, promotions more of a kind.
    for fen in ["9k/10/10/10/10/10/10/10/10/K9 w - - 0 1", "r1r4r1r/1P6P1/10/10/5k4/10/10/10/10/4K5 w - - 0 1"] {
        fen.parse::<pacozero_engine::shako::Position>().unwrap_or_else(|e| panic!("{fen}: {e}"));
    }
}

/// The fuzz targets' property on mutated FENs: the reader and validation
/// answer an error or a position, never panic; an accepted FEN validates,
/// writes back and reads back; a refused one names its field.
#[test]
fn mutated_fens_are_read_or_refused_never_panic() {
    const ALPHABET: &[u8] = b"pnbrqkPNBRQKacdefghijlmostuvwxyzACDEFGHIJLMOSTUVWXYZ_12345678/ ^-wb";
    let mut rng = Rng(0x4655_5A5A);
    let (mut accepted, mut refused) = (0, 0);
    for game in 0..300 {
        let rules = rules_of((game % 8) as u8);
        let mut p = if game % 2 == 0 { Position::from_fen(STARTPOS_FEN, rules).unwrap() } else { fischer_random(rng.below(960) as u16, rules) };
        for _ in 0..rng.below(200) {
            let legal: Vec<Action> = p.actions().iter().collect();
            if legal.is_empty() {
                break;
            }
            p.play(legal[rng.below(legal.len())]).unwrap();
        }
        for _ in 0..50 {
            let mut bytes = p.fen().into_bytes();
            for _ in 0..1 + rng.below(2) {
                let i = rng.below(bytes.len());
                bytes[i] = ALPHABET[rng.below(ALPHABET.len())];
            }
            let s = String::from_utf8(bytes).unwrap();
            match (Setup::from_fen(&s), Position::from_fen(&s, rules)) {
                (Ok(setup), Ok(q)) => {
                    accepted += 1;
                    assert_eq!(Position::from_setup(&setup, rules).as_ref(), Ok(&q));
                    let back = Position::from_fen(&q.fen(), rules).unwrap_or_else(|e| panic!("{s} -> {}: {e}", q.fen()));
                    assert_eq!((back.fen(), back.hash()), (q.fen(), q.hash()));
                    assert_eq!(q.hash(), q.compute_hash());
                    let _ = q.actions();
                }
                (Ok(setup), Err(e)) => {
                    refused += 1;
                    let inner = e.impossible.clone().unwrap_or_else(|| panic!("{s}: a read setup is refused only by validation: {e}"));
                    assert_eq!(Position::from_setup(&setup, rules).unwrap_err(), inner);
                }
                (Err(e), read) => {
                    refused += 1;
                    assert_eq!(read.unwrap_err(), e);
                }
            }
        }
    }
    assert!(accepted > 200 && refused > 1000, "{accepted} accepted, {refused} refused");
}

/// A setup built by hand, field by field, validates like the FEN it writes.
#[test]
fn a_setup_built_by_hand_validates() {
    use pacozero_engine::paco::Castling;
    use pacozero_engine::{Color, PieceKind};
    let sq = |s: &str| Square::parse(s).unwrap();
    let mut s = Setup::empty();
    s.put(Color::White, PieceKind::King, sq("e1"));
    s.put(Color::White, PieceKind::Rook, sq("h1"));
    s.put(Color::Black, PieceKind::King, sq("e8"));
    s.castling = Castling::new([4, 4], [[None, Some(7)], [None, None]]);
    let p = Position::from_setup(&s, Rules::OFFICIAL).unwrap();
    assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/4K2R w 0 H - -");
    assert_eq!(p.castling().rook_file(Color::White, 1), Some(7));
    assert_eq!(Position::from_fen(&p.fen(), Rules::OFFICIAL).unwrap(), p);
    // The same right without its rook.
    s.pieces[Color::White.index()][PieceKind::Rook.index()] = 0;
    let e = Position::from_setup(&s, Rules::OFFICIAL).unwrap_err();
    assert_eq!((e.field, e.square, e.to_string().as_str()), ("castling", Some(sq("h1")), "castling: right H: White's rook is missing from h1"));
    // Two pieces of a colour on one square.
    s.put(Color::White, PieceKind::Knight, sq("e1"));
    assert_eq!(Position::from_setup(&s, Rules::OFFICIAL).unwrap_err().to_string(), "board: two white pieces on e1 (knight and king)");
    // The unchecked setup still reads as it was written: e1 is White's
    // (twice over), and the kind found there is the first in PieceKind order.
    assert_eq!(s.occupied(Color::White), sq("e1").bb());
    assert_eq!(s.kind_at(Color::White, sq("e1")), Some(PieceKind::Knight));
}

/// The required action fits the hand: a place needs a piece in hand, a lift
/// or a promotion before one needs none, and a promotion inside a chain has
/// the single released piece in hand, not a union. A FEN cannot write these
/// (its reader takes the required action from the hand); a hand-built setup can.
#[test]
fn the_required_action_fits_the_hand() {
    use pacozero_engine::PieceKind;
    let d4 = Square::parse("d4").unwrap();
    let refused = |required: Required, hand: Hand| {
        let mut s: Setup = "4k3/8/8/8/8/8/8/4K3 w 0 - - -".parse().unwrap();
        (s.required, s.hand) = (required, hand);
        let e = Position::from_setup(&s, Rules::OFFICIAL).unwrap_err();
        (e.field, e.square, e.to_string())
    };
    for (required, name) in [(Required::Place, "Place"), (Required::PromoteThenPlace, "PromoteThenPlace")] {
        let message = format!("lifted: the required action is {name}, but no piece is in hand");
        assert_eq!(refused(required, Hand::Empty), ("lifted", None, message));
    }
    let knight = Hand::Single { kind: PieceKind::Knight, from: d4 };
    for (required, name) in [(Required::Lift, "Lift"), (Required::PromoteThenLift, "PromoteThenLift"), (Required::PromoteThenFinish, "PromoteThenFinish")] {
        let message = format!("lifted: a piece is in hand above d4, but the required action is {name}");
        assert_eq!(refused(required, knight), ("lifted", Some(d4), message));
    }
    let union = Hand::Pair { kind: PieceKind::Knight, partner: PieceKind::Bishop, from: d4 };
    let message = "lifted: a union is in hand above d4, but a promotion in a chain leaves a single released piece in hand".to_string();
    assert_eq!(refused(Required::PromoteThenPlace, union), ("lifted", Some(d4), message));
}

/// Castling files and pending promotions of hand-built setups, which a FEN
/// cannot write wrongly (it names squares, and its reader takes a pending
/// promotion from the pawn on its last rank), are checked all the same.
#[test]
fn hand_built_rights_and_promotions_are_checked() {
    use pacozero_engine::paco::Castling;
    use pacozero_engine::PieceKind;
    let sq = |s: &str| Square::parse(s).unwrap();
    let refused = |s: &Setup| {
        let e = Position::from_setup(s, Rules::OFFICIAL).unwrap_err();
        (e.field, e.square, e.to_string())
    };
    let rooks: Setup = "4k3/8/8/8/8/8/8/R3K2R w 0 - - -".parse().unwrap();
    for (king_file, rook_files, message) in [
        (4, [None, Some(9)], "castling: White's right has its king on file 4 and its rook on file 9; files run from 0 (a) to 7 (h)"),
        (8, [None, Some(7)], "castling: White's right has its king on file 8 and its rook on file 7; files run from 0 (a) to 7 (h)"),
        (4, [Some(7), None], "castling: right H: White's rook file must be on the queen side of the king's"),
        (4, [None, Some(0)], "castling: right A: White's rook file must be on the king side of the king's"),
    ] {
        let mut s = rooks;
        s.castling = Castling::new([king_file, 4], [rook_files, [None, None]]);
        assert_eq!(refused(&s), ("castling", None, message.to_string()));
    }
    // File 7 is on the board: a king on h1 keeps its queen-side right (rook g1).
    let mut corner: Setup = "4k3/8/8/8/8/8/8/6RK w 0 - - -".parse().unwrap();
    corner.castling = Castling::new([7, 4], [[Some(6), None], [None, None]]);
    let p = Position::from_setup(&corner, Rules::OFFICIAL).unwrap();
    assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/6RK w 0 G - -");
    // A pending promotion needs the mover's pawn on that square, on its last rank.
    for (fen, at) in [("4k3/8/8/8/3P4/8/8/4K3 w 0 - - -", "d4"), ("3Nk3/8/8/8/8/8/8/4K3 w 0 - - -", "d8")] {
        let mut s: Setup = fen.parse().unwrap();
        (s.promotion, s.required) = (Some(sq(at)), Required::PromoteThenFinish);
        let message = format!("promotion: the promotion pending on {at} needs White's pawn there, on its last rank");
        assert_eq!(refused(&s), ("promotion", Some(sq(at)), message));
    }
    // One in a chain: the piece in hand was released where the pawn promotes.
    let mut s: Setup = "3pk3/8/8/8/8/8/8/4K3 w 0 - - -".parse().unwrap();
    s.put(pacozero_engine::Color::White, PieceKind::Pawn, sq("d8"));
    (s.promotion, s.required, s.hand) = (Some(sq("d8")), Required::PromoteThenPlace, Hand::Single { kind: PieceKind::Knight, from: sq("e4") });
    let message = "promotion: the promotion on d8 happened in a chain, so the piece in hand must be the one released there".to_string();
    assert_eq!(refused(&s), ("promotion", Some(sq("d8")), message));
    s.hand = Hand::Single { kind: PieceKind::Knight, from: sq("d8") };
    assert!(Position::from_setup(&s, Rules::OFFICIAL).is_ok());
}

/// A pending promotion is checked against where the pawn stands: one to be
/// promoted before lifting was carried home in a union, so a lone pawn
/// cannot have one (a FEN cannot write this; a hand-built setup can).
#[test]
fn a_promotion_before_lifting_needs_the_pawn_in_a_union() {
    use pacozero_engine::{Color, PieceKind};
    let sq = |s: &str| Square::parse(s).unwrap();
    // The reader makes the lone pawn's promotion end the turn; it is changed to open it.
    let mut s: Setup = "3Pk3/8/8/8/8/8/8/4K3 w 0 - - -".parse().unwrap();
    assert_eq!((s.required, s.promotion), (Required::PromoteThenFinish, Some(sq("d8"))));
    s.required = Required::PromoteThenLift;
    let e = Position::from_setup(&s, Rules::OFFICIAL).unwrap_err();
    assert_eq!((e.field, e.square), ("promotion", Some(sq("d8"))));
    assert!(e.to_string().contains("it is not in a union"), "{e}");
    // United with a black knight, the same setup is the one the FEN reads.
    s.put(Color::Black, PieceKind::Knight, sq("d8"));
    let p = Position::from_setup(&s, Rules::OFFICIAL).unwrap();
    assert_eq!(p, Position::from_fen(&p.fen(), Rules::OFFICIAL).unwrap());
    assert_eq!(p.required(), Required::PromoteThenLift);
}

/// A colour with the wrong number of kings is told with every square of
/// them, a king in hand included, and only that colour's: here White's king
/// in hand is not Black's.
#[test]
fn too_many_kings_are_listed_with_their_squares() {
    let refused = |fen: &str| Position::from_fen(fen, Rules::OFFICIAL).unwrap_err().to_string();
    assert_eq!(refused("k3k3/8/8/8/8/8/8/8^e1K w 0 - - -"), "impossible position: board: 2 black kings (a8, e8)");
    assert_eq!(refused("k3k3/8/8/8/8/8/8/4K3 b 0 - - -"), "impossible position: board: 2 black kings (a8, e8)");
    assert_eq!(refused("4k3/8/8/8/8/8/8/K7^e1K w 0 - - -"), "impossible position: board: 2 white kings (a1, e1 in hand)");
    // A union in hand that holds the opponent's king (the vchess king rule
    // lets one be lifted): that king is the opponent's, listed in hand.
    let vchess = Rules { king_chain_draw: true, ..Rules::OFFICIAL };
    let refused = |fen: &str| Position::from_fen(fen, vchess).unwrap_err().to_string();
    assert_eq!(refused("k3k3/8/8/8/8/8/8/4K3^d4Nk w 0 - - -"), "impossible position: board: 3 black kings (a8, e8, d4 in hand)");
    assert_eq!(refused("k7/8/8/8/8/8/8/K3K3^d4Nk w 0 - - -"), "impossible position: board: 2 white kings (a1, e1)");
}

/// A board of 8 ranks whose last one is short is refused, not padded.
#[test]
fn a_short_last_rank_is_refused() {
    let e = Position::from_fen("4k3/8/8/8/8/8/8/4K2 w 0 - - -", Rules::OFFICIAL).unwrap_err();
    assert_eq!(e.field, "board");
    assert!(e.to_string().contains("expected 8 ranks of 8 squares (ended on rank 1 after 7 squares)"), "{e}");
    assert!(Position::from_fen("4k3/8/8/8/8/8/8/4K3 w 0 - - -", Rules::OFFICIAL).is_ok());
}

/// A FEN error points at its character in the whole input, the lifted
/// piece's too (here after two leading spaces, so the board does not start
/// at character 0); the last field may be left out; a run of empty squares
/// is 1 to 8.
#[test]
fn fen_errors_point_at_their_character_in_the_whole_input() {
    let refused = |fen: &str| Position::from_fen(fen, Rules::OFFICIAL).unwrap_err();
    for (fen, field, at) in [
        ("  4k3/8/8/8/8/8/8/4K3^e9K w 0 - - -", "lifted", "e9K"),
        ("  4k3/8/8/8/8/8/8/4K3^e1! w 0 - - -", "lifted", "! w"),
        ("  4k3/8/8/8/8/8/8/4K3^e1 w 0 - - -", "lifted", " w 0"),
        ("4k3/8/8/8/8/8/8/4K03 w 0 - - -", "board", "03 w"),
        ("4k3/8/8/8/8/8/8/9 w 0 - - -", "board", "9 w"),
        // Two letters in hand must be one white and one black piece.
        ("  4k3/8/8/8/8/8/8/4K3^d2PN w 0 - - -", "lifted", "PN w"),
        // The piece in hand is the mover's.
        ("  4k3/8/8/8/8/8/8/4K3^d7p w 0 - - -", "lifted", "p w"),
        ("  4k3/8/8/8/8/8/8/4K3 w 0 X - -", "castling", "X -"),
        ("  4k3/8/8/8/8/8/8/R3K2R w 0 AE - -", "castling", "E -"),
    ] {
        let e = refused(fen);
        let column = fen.find(at).unwrap();
        assert_eq!((e.field, e.column), (field, Some(column)), "{fen}: {e}");
        assert!(e.to_string().contains(&format!("at character {}", column + 1)), "{e}");
    }
    assert!(refused("4k3/8/8/8/8/8/8/4K03 w 0 - - -").message.contains("'0' is not a run of 1-8 empty squares"));
    assert!(refused("4k3/8/8/8/8/8/8/R3K2R w 0 AE - -").message.contains("'E' names the king's own file"));
    // KQkq are read as the outermost rooks' files.
    let xfen = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w 0 AHah - -", Rules::OFFICIAL).unwrap();
    for letters in ["KQkq", "QkKq", "AHkq", "KQah"] {
        let fen = format!("r3k2r/8/8/8/8/8/8/R3K2R w 0 {letters} - -");
        assert_eq!(Position::from_fen(&fen, Rules::OFFICIAL).unwrap(), xfen, "{fen}");
    }
    // A side without a king is refused for that, not for a castling right
    // judged against the other side's king in hand (here above d8).
    let kingless = refused("8/8/8/8/8/8/8/8^d8K w 0 d - -");
    assert_ne!(kingless.field, "castling", "{kingless}");
    // The sixth field is optional: five read as six do.
    let five = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w 0 - -", Rules::OFFICIAL).unwrap();
    assert_eq!(five, Position::from_fen("4k3/8/8/8/8/8/8/4K3 w 0 - - -", Rules::OFFICIAL).unwrap());
    let four = refused("4k3/8/8/8/8/8/8/4K3 w 0 -");
    assert_eq!(four.field, "en passant", "{four}");
}
