//! Hand-made rule checks: the diagrams of the rule texts, notation examples,
//! dead ends, Ŝako, and the optional rule set.

use pacozero_engine::paco::{
    board_to_union_fen, in_sako, parse_actions, parse_turn, position_from_union_fen, turn_to_string, Action, FullMoveGen, GameState, Position, Rules, Status,
};
use pacozero_engine::prelude::*;
use pacozero_engine::{Color, Square};

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

#[test]
fn chain_diagram_of_rules_file_001() {
    // Bxe4, Ne4xc3, Qc3xc6 turns 4k3/8/2q5/8/4O3/2w2B2/8/5K2 into 4k3/8/2Y5/8/4s3/2S5/8/5K2.
    let pos = position_from_union_fen("4k3/8/2q5/8/4O3/2w2B2/8/5K2", Rules::OFFICIAL).unwrap();
    let actions = parse_turn(&pos, "Bf3xe4>c3>c6").unwrap();
    assert_eq!(actions, parse_actions("Lf3 Pe4 Pc3 Pc6").unwrap());
    let mut p = pos;
    for a in &actions {
        p.play(*a).unwrap();
    }
    // The diagram writes the queen union as `Y`; the platform writes symmetric unions in lower case.
    let expected = position_from_union_fen("4k3/8/2Y5/8/4s3/2S5/8/5K2", Rules::OFFICIAL).unwrap();
    assert_eq!(board_to_union_fen(&p), board_to_union_fen(&expected));
    assert_eq!(turn_to_string(&pos, &actions), "Bf3xe4>c3>c6");
}

#[test]
fn castling_refused_when_a_chain_threatens_the_path() {
    // File 001: Black cannot castle because of the chain Bxc3, c3xb5, b5xb4, b4xf8.
    let pos: Position = "r1q1k2r/p1Pb1ppp/5n2/1f1p4/AV5P/2dDP3/P2B1PP1/R3K1NR b 0 AHah - -".parse().unwrap();
    let mut p = pos;
    p.play(Action::Lift(sq("e8"))).unwrap();
    let places: Vec<Action> = p.actions().iter().collect();
    assert!(!places.contains(&Action::Place(sq("g8"))), "castling must be refused: {places:?}");
    assert!(places.contains(&Action::Place(sq("f8"))));
    // Without the white bishop on d2 that starts the chain, castling is allowed.
    let free: Position = "r1q1k2r/p1Pb1ppp/5n2/1f1p4/AV5P/2dDP3/P4PP1/R3K1NR b 0 AHah - -".parse().unwrap();
    let mut p = free;
    p.play(Action::Lift(sq("e8"))).unwrap();
    assert!(p.actions().contains(Action::Place(sq("g8"))));
    let turn = parse_turn(&free, "0-0").unwrap();
    let mut done = free;
    for a in turn {
        done.play(a).unwrap();
    }
    let expected: Position = "r1q2rk1/p1Pb1ppp/5n2/1f1p4/AV5P/2dDP3/P4PP1/R3K1NR w 1 AH - -".parse().unwrap();
    assert_eq!(done.fen(), expected.fen());
}

#[test]
fn uniting_with_the_king_at_the_end_of_a_chain_wins() {
    // The bishop on a1 enters the union on c3 (white knight + black pawn), the knight jumps to e4... onto the black king.
    let pos: Position = "8/8/8/8/4k3/2d5/8/B3K3 w 0 - - -".parse().unwrap();
    let turn = parse_turn(&pos, "Ba1xc3>e4").unwrap();
    let mut g = GameState::new(pos);
    for a in turn {
        g.play(a).unwrap();
    }
    assert_eq!(g.status(), Status::PacoVictory(Color::White));
    assert!(g.position().actions().is_empty());
}

#[test]
fn sako_is_seen_through_chains_and_not_filtered() {
    // The black king on e4 is threatened by the chain Ba1xc3>e4.
    let pos: Position = "8/8/8/8/4k3/2d5/8/B3K3 b 0 - - -".parse().unwrap();
    assert!(in_sako(&pos, Color::Black));
    assert!(!in_sako(&pos, Color::White));
    // Black may still leave its king there (moving into or staying in Ŝako is legal).
    assert!(pos.actions().contains(Action::Lift(sq("e4"))));
}

#[test]
fn dead_end_chains_are_listed_but_not_searched() {
    // White bishop b1 can enter the union on c2 (white pawn + black pawn): the
    // released white pawn on c2 is blocked by the pawn on c3 and has nothing to
    // unite with: a dead end. Bishop moves to other squares are fine.
    let pos: Position = "4k3/8/8/8/8/2p5/2a5/1B2K3 w 0 - - -".parse().unwrap();
    let mut p = pos;
    p.play(Action::Lift(sq("b1"))).unwrap();
    assert!(p.actions().contains(Action::Place(sq("c2"))));
    let mut gen = FullMoveGen::new();
    let searchable = gen.completable_actions(&p);
    assert!(!searchable.contains(Action::Place(sq("c2"))));
    assert!(searchable.contains(Action::Place(sq("a2"))));
    let mut dead = p;
    dead.play(Action::Place(sq("c2"))).unwrap();
    assert!(dead.actions().is_empty(), "{}", dead.fen());
    assert!(!gen.completes(&dead));
}

#[test]
fn optional_rule_no_union_undo() {
    // A union of a white rook and a black pawn on d5; White moves it to d7,
    // from where Black's pawn could double-step it straight back to d5: only
    // the official rules allow that. The single step to d6 is always allowed.
    let fen = "4k3/8/8/3c4/8/8/8/4K3 w 0 - - -";
    for (rules, allowed) in [(Rules::OFFICIAL, true), (Rules { no_union_undo: true, ..Rules::OFFICIAL }, false)] {
        let mut p = Position::from_fen(fen, rules).unwrap();
        for a in parse_actions("Ld5 Pd7 Ld7").unwrap() {
            p.play(a).unwrap();
        }
        assert_eq!(p.actions().contains(Action::Place(sq("d5"))), allowed, "rules {rules:?}");
        assert!(p.actions().contains(Action::Place(sq("d6"))), "rules {rules:?}");
    }
    // With a black knight as partner the knight could jump back to d4.
    let fen = "4k3/8/8/8/3O4/8/8/4K3 w 0 - - -";
    for (rules, allowed) in [(Rules::OFFICIAL, true), (Rules { no_union_undo: true, ..Rules::OFFICIAL }, false)] {
        let mut p = Position::from_fen(fen, rules).unwrap();
        for a in parse_actions("Ld4 Pf5 Lf5").unwrap() {
            p.play(a).unwrap();
        }
        assert_eq!(p.actions().contains(Action::Place(sq("d4"))), allowed, "rules {rules:?}");
        assert!(p.actions().contains(Action::Place(sq("d6"))));
    }
}

#[test]
fn optional_rule_one_double_step_per_file() {
    // Pawns on a2 and a1, the latter carried back to its first rank in a union
    // with a black rook (a pawn reaches its first rank only inside a union),
    // from where it may double-step too. After a2-a4, the a1 pawn may
    // double-step its union only under the official rules: the optional rule
    // allows one double step per file.
    let fen = "4k3/8/8/8/8/8/P7/C3K3 w 0 - - -";
    for (rules, allowed) in [(Rules::OFFICIAL, true), (Rules { one_double_step_per_file: true, ..Rules::OFFICIAL }, false)] {
        let mut p = Position::from_fen(fen, rules).unwrap();
        for a in parse_actions("La2 Pa4 Le8 Pd8 La1").unwrap() {
            p.play(a).unwrap();
        }
        assert!(p.actions().contains(Action::Place(sq("a2"))));
        assert_eq!(p.actions().contains(Action::Place(sq("a3"))), allowed, "rules {rules:?}");
        assert_eq!(p.hash(), p.compute_hash());
    }
}

/// Under the vchess rule a chain the king started cannot win: its piece in
/// hand reaching the opponent's king is a draw, so `can_unite_with_king`
/// (which search takes for a won position) says no. Here the white king takes
/// over the union on g4 and releases its queen, which could go straight to d7.
#[test]
fn a_king_chain_cannot_unite_with_the_king() {
    use pacozero_engine::paco::can_unite_with_king;
    let vchess = Rules { king_chain_draw: true, ..Rules::OFFICIAL };
    let mut p = Position::from_fen("8/3k4/8/8/6t1/6K1/8/8 w 0 - - -", vchess).unwrap();
    for a in parse_actions("Lg3 Pg4").unwrap() {
        p.play(a).unwrap();
    }
    assert!(p.actions().contains(Action::Place(sq("d7"))));
    assert!(!can_unite_with_king(&p));
    p.play(Action::Place(sq("d7"))).unwrap();
    assert_eq!(p.status(), Status::KingChainDraw);
}

#[test]
fn optional_rule_king_chain_draw() {
    // The vchess diagram: Kxg4, g4xd7, d7xe8 (king takes over the union of its
    // queen with a black knight; the queen goes on to d7, releasing the bishop,
    // which unites with the black king) is a draw under the optional rules.
    let fen = "r2qk2r/pbpe1pp1/np5p/2b1p3/4P1t1/2N3K1/PPPP1PPP/R1B3NR w 0 - - -";
    let official = Position::from_fen(fen, Rules::OFFICIAL).unwrap();
    let mut p = official;
    p.play(Action::Lift(sq("g3"))).unwrap();
    assert!(!p.actions().contains(Action::Place(sq("g4"))), "official kings never enter unions");
    let rules = Rules { king_chain_draw: true, ..Rules::OFFICIAL };
    let mut g = GameState::new(Position::from_fen(fen, rules).unwrap());
    for a in parse_actions("Lg3 Pg4 Pd7 Pe8").unwrap() {
        g.play(a).unwrap();
    }
    assert_eq!(g.status(), Status::KingChainDraw);
    let expected = position_from_union_fen("r2qX2r/pbpf1pp1/np5p/2b1p3/4P1u1/2N5/PPPP1PPP/R1B3NR", rules).unwrap();
    assert_eq!(board_to_union_fen(g.position()), board_to_union_fen(&expected));
    assert_eq!(g.position().hash(), g.position().compute_hash());
    // The same chain started by the queen instead of the king wins.
    let mut q = GameState::new(Position::from_fen("r2qk2r/pbpe1pp1/np5p/2b1p3/6Q1/2N3K1/PPPP1PPP/R1B3NR w 0 - - -", rules).unwrap());
    for a in parse_actions("Lg4 Pd7 Pe8").unwrap() {
        q.play(a).unwrap();
    }
    assert_eq!(q.status(), Status::PacoVictory(Color::White));
}

#[test]
fn fischer_random_castling_onto_a_rook_standing_in_a_union() {
    // Black king f8, rook h8 in a union with a white bishop: castling king side
    // places the king on h8 (its rook's square); the union moves to f8.
    let pos: Position = "1nrbqk1j/p1pppp1p/8/1p1b1np1/8/1P6/P1PPPPPP/1NRBQKNR b 0 CHch - -".parse().unwrap();
    let turn = parse_turn(&pos, "0-0").unwrap();
    assert_eq!(turn, parse_actions("Lf8 Ph8").unwrap());
    let mut p = pos;
    for a in &turn {
        p.play(*a).unwrap();
    }
    assert_eq!(p.fen(), "1nrbqjk1/p1pppp1p/8/1p1b1np1/8/1P6/P1PPPPPP/1NRBQKNR w 1 CH - -");
    assert_eq!(turn_to_string(&pos, &turn), "0-0");
}

/// Under the vchess king rule a king beside its Fischer-random rook may take
/// over the union standing on the rook's square, which is also its castling
/// target. Where castling is closed (here the white rook on g1 threatens g8),
/// that place is a king chain, written with squares; `0-0` is refused rather
/// than read as the takeover. Where castling is open the same place castles.
#[test]
fn a_vchess_king_taking_over_the_union_on_its_castling_target_is_not_castling() {
    let vchess = Rules { king_chain_draw: true, ..Rules::OFFICIAL };
    let closed = Position::from_fen("5kj1/8/8/8/8/8/8/4K1R1 b 0 g - -", vchess).unwrap();
    let g = GameState::new(closed);
    let takeover = parse_actions("Lf8 Pg8 Pb8").unwrap();
    assert_eq!(turn_to_string(&closed, &takeover), "Kf8xg8>b8");
    assert_eq!(parse_turn(&closed, "Kf8xg8>b8").unwrap(), takeover);
    let e = parse_turn(&closed, "0-0").unwrap_err();
    assert_eq!((e.column, e.message.as_str()), (0, "castling is not open here (the king's path is blocked or threatened)"));
    // Every turn there is written so that it reads back, none as castling.
    for t in g.legal_turns() {
        let text = g.turn_notation(&t);
        assert!(!text.contains("0-0"), "{text}");
        assert_eq!(g.parse_turn(&text).unwrap(), t, "{text}");
    }
    // Without the threat, the king placed on g8 castles: the union goes to f8.
    let open = Position::from_fen("5kj1/8/8/8/8/8/8/4K3 b 0 g - -", vchess).unwrap();
    let castling = parse_turn(&open, "0-0").unwrap();
    assert_eq!(castling, parse_actions("Lf8 Pg8").unwrap());
    assert_eq!(turn_to_string(&open, &castling), "0-0");
    let mut p = open;
    for a in &castling {
        p.play(*a).unwrap();
    }
    assert_eq!(board_to_union_fen(&p), "5jk1/8/8/8/8/8/8/4K3");
}

/// A pending promotion with nothing in hand starts a turn in either colour:
/// a pawn the opponent carried home (`PromoteThenLift`, the promotion opens
/// the turn) or a lone pawn that ended its owner's move on the last rank
/// (`PromoteThenFinish`, the promotion is the whole turn, `=Q`). The first
/// Black position is the platform book entry (a lone pawn on e1).
#[test]
fn a_pending_promotion_with_nothing_in_hand_is_a_turn_start() {
    use pacozero_engine::paco::Required;
    let cases = [
        ("3Pk3/8/8/8/8/8/8/4K3 w 0 - - -", Required::PromoteThenFinish, Color::White),
        ("2h2r2/pp3ppk/5nNp/3d1wBP/3PeF2/P2D4/1P1R1P2/1KE1p3 b 1 - - -", Required::PromoteThenFinish, Color::Black),
        ("3Ck3/8/8/8/8/8/8/4K3 w 0 - - -", Required::PromoteThenLift, Color::White),
        ("4k3/8/8/8/8/8/8/3cK3 b 0 - - -", Required::PromoteThenLift, Color::Black),
    ];
    for (fen, required, mover) in cases {
        let g = GameState::from_notation(fen).unwrap();
        assert_eq!((g.position().required(), g.position().side_to_move()), (required, mover), "{fen}");
        assert!(g.is_turn_start(), "{fen}");
        let turns = g.legal_turns();
        assert!(!turns.is_empty(), "{fen}");
        for t in &turns {
            let text = g.turn_notation(t);
            assert!(text.starts_with('=') && !text.ends_with(' '), "{fen}: {text:?}");
            assert_eq!(&g.parse_turn(&text).unwrap(), t, "{fen}: {text}");
        }
        if required == Required::PromoteThenFinish {
            // The promotion alone ends the turn: one turn per promotion piece.
            assert_eq!(turns.len(), 4, "{fen}");
            let mut after = g.clone();
            for d in g.parse_turn("=Q").unwrap() {
                after.apply(d);
            }
            assert_eq!(after.to_move(), mover.other(), "{fen}: the other side moves next");
        } else {
            assert!(turns.iter().all(|t| t.len() > 1), "{fen}: the promotion opens the turn");
        }
    }
    // In the middle of a turn (a piece in hand) it is not.
    let mid = GameState::from_notation("3Ek3/8/8/8/8/8/8/4K3^d8N w 0 - - -").unwrap();
    assert!(!mid.is_turn_start());
}

/// Each result of `full_moves`, checked against its trace played action by
/// action through the checked `GameState::play` (position, history and
/// status alike); perft's own history bookkeeping is checked against these
/// results below.
fn full_moves_replayed(g: &GameState, gen: &mut FullMoveGen) -> Vec<GameState> {
    let moves = g.full_moves(gen);
    for (result, trace) in &moves {
        let mut replay = g.clone();
        for a in trace {
            replay.play(*a).unwrap();
        }
        assert_eq!(replay.position(), result.position(), "{} then {trace:?}", g.position().fen());
        assert_eq!(replay.history(), result.history(), "{} then {trace:?}", g.position().fen());
        assert_eq!(replay.status(), result.status(), "{} then {trace:?}", g.position().fen());
    }
    moves.into_iter().map(|(result, _)| result).collect()
}

#[test]
fn each_full_move_is_the_game_its_trace_plays_to() {
    let mut gen = FullMoveGen::new();
    // Knights out and back twice: Nf3 once more is the position's third time.
    let mut g = GameState::new(Position::startpos());
    for turn in ["Lg1 Pf3", "Lg8 Pf6", "Lf3 Pg1", "Lf6 Pg8"].iter().cycle().take(8) {
        for a in parse_actions(turn).unwrap() {
            g.play(a).unwrap();
        }
    }
    let results = full_moves_replayed(&g, &mut gen);
    let mut nf3 = Position::startpos();
    for a in parse_actions("Lg1 Pf3").unwrap() {
        nf3.play(a).unwrap();
    }
    let again = results.iter().find(|r| board_to_union_fen(r.position()) == board_to_union_fen(&nf3)).expect("Nf3 is a full move");
    assert_eq!(again.status(), Status::RepetitionDraw);
    assert_eq!(results.iter().filter(|r| r.status() == Status::RepetitionDraw).count(), 1);
    // Walks along full moves, from the start and from a pending promotion.
    for (start, stride) in [(Position::startpos().fen(), 7), (Position::startpos().fen(), 13), ("3Ck3/8/8/8/8/8/8/4K3 w 0 - - -".to_string(), 5)] {
        let mut g = GameState::new(start.parse().unwrap());
        for turn in 0..60 {
            let results = full_moves_replayed(&g, &mut gen);
            if results.is_empty() {
                break;
            }
            g = results[(turn * stride + 3) % results.len()].clone();
        }
    }
}

/// Full-move perft keeps its own repetition history; it must count what
/// walking `full_moves` (each result its trace played out) counts, and it
/// does after a promotion that opens the turn, whose position is recorded
/// too (with draws after two occurrences, the king stepping out and back
/// repeats it within four turns).
#[test]
fn full_move_perft_counts_repetitions_as_played_games_do() {
    fn walk(g: &GameState, depth: u32, gen: &mut FullMoveGen, draws: &mut usize) -> u64 {
        let results = full_moves_replayed(g, gen);
        *draws += results.iter().filter(|r| r.status() == Status::RepetitionDraw).count();
        match depth {
            0 => 1,
            1 => results.len() as u64,
            _ => results.iter().filter(|r| !r.status().is_over()).map(|r| walk(r, depth - 1, gen, draws)).sum(),
        }
    }
    let mut gen = FullMoveGen::new();
    for (fen, depth) in [("3Ck3/8/8/8/8/8/8/4K3 w 0 - - -", 5), ("4k3/8/8/8/8/8/8/3cK3 b 0 - - -", 5), ("4k3/8/8/8/8/8/8/4K3 w 0 - - -", 5)] {
        let g = GameState::new(fen.parse().unwrap()).with_draw_after(2);
        let mut draws = 0;
        assert_eq!(g.perft_full(depth), walk(&g, depth, &mut gen, &mut draws), "{fen}");
        assert!(draws > 0, "{fen}: no repetition within {depth} turns");
    }
}

/// Paco Ŝako has no captures, so no material balance to adjudicate by.
#[test]
fn paco_has_no_material_balance() {
    assert_eq!(GameState::new(Position::startpos()).material_balance(), None);
}
