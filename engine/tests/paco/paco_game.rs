//! Paco Ŝako's `GameState` and its `Game` implementation: the answers the
//! generic conformance test (`conformance.rs`, which names no game) cannot
//! check, because only this game knows them: the repetition history, the end
//! reasons, which notations are complete, the numbered starts, the second
//! encoding's mirror and the facts the analysis engine prints.

use pacozero_engine::paco::{fischer_random, mirror_platform_planes, parse_actions, Action, GameState, Position, Rules, Status, PLATFORM_BIT_PLANES};
use pacozero_engine::prelude::*;
use pacozero_engine::{Fact, Square};

fn play(g: &mut GameState, turns: &str) {
    for a in parse_actions(turns).unwrap() {
        g.play(a).unwrap();
    }
}

/// The knights out and back, both sides: the start position again.
const KNIGHTS_OUT_AND_BACK: &str = "Lg1 Pf3 Lg8 Pf6 Lf3 Pg1 Lf6 Pg8";

#[test]
fn the_history_records_each_turns_position_and_counts_repetitions() {
    let mut g = GameState::new(Position::startpos());
    assert_eq!(g.repetitions(), 0);
    play(&mut g, KNIGHTS_OUT_AND_BACK);
    // Four turns recorded; the start itself was not (a new game has no history).
    assert_eq!(g.history().len(), 4);
    assert_eq!(g.history().last(), Some(&g.position().hash()));
    assert_eq!(g.repetitions(), 0);
    assert_eq!(GameRules::repetitions(&g), 0);
    play(&mut g, KNIGHTS_OUT_AND_BACK);
    assert_eq!(g.history().len(), 8);
    assert_eq!((g.repetitions(), GameRules::repetitions(&g)), (1, 1));
    assert!(g.repeats_earlier_position());
    // In the middle of a turn nothing repeats: the position is not settled.
    g.play(Action::Lift(Square::parse("g1").unwrap())).unwrap();
    assert_eq!(g.repetitions(), 0);
    // Progress (a new union) clears the history: the union's position is its first.
    let mut g = GameState::new(Position::startpos());
    play(&mut g, "Le2 Pe4 Ld7 Pd5 Le4 Pd5");
    assert_eq!(g.history(), [g.position().hash()]);
}

#[test]
fn repetition_draws_can_be_switched_off() {
    let mut on = GameState::new(Position::startpos());
    let mut off = GameState::new(Position::startpos()).with_draw_after(0);
    for _ in 0..2 {
        play(&mut on, KNIGHTS_OUT_AND_BACK);
        play(&mut off, KNIGHTS_OUT_AND_BACK);
    }
    // White's knight on f3 for the third time (turns 1, 5 and 9) draws.
    play(&mut on, "Lg1 Pf3");
    assert_eq!(on.status(), Status::RepetitionDraw);
    play(&mut off, KNIGHTS_OUT_AND_BACK);
    assert_eq!(off.status(), Status::Running);
    // Without draws no history is kept.
    assert!(off.history().is_empty());
    // Full-move perft sees the same draw: after two rounds, white's knight
    // to f3 would be that position's third time, a leaf without replies.
    let mut g = GameState::new(Position::startpos());
    play(&mut g, KNIGHTS_OUT_AND_BACK);
    play(&mut g, KNIGHTS_OUT_AND_BACK);
    assert_eq!(g.perft_full(2), 20 * 20 - 20);
    assert_eq!(g.clone().with_draw_after(0).perft_full(2), 20 * 20);
    assert_eq!(GameState::new(Position::startpos()).perft_full(2), 20 * 20);
}

#[test]
fn end_reasons_name_each_way_a_game_ends() {
    let at = |fen: &str, rules: Rules| GameState::new(Position::from_fen(fen, rules).unwrap());
    assert_eq!(GameState::new(Position::startpos()).end_reason(), "running");
    // The loser to move after a union with the king.
    assert_eq!(at("8/8/8/8/4Z3/8/8/4K3 b 0 - - -", Rules::OFFICIAL).end_reason(), "paco");
    assert_eq!(at("4k3/8/8/8/8/8/8/4K3 w 100 - - -", Rules::OFFICIAL).end_reason(), "no_progress");
    let mut g = GameState::new(Position::startpos());
    play(&mut g, KNIGHTS_OUT_AND_BACK);
    play(&mut g, KNIGHTS_OUT_AND_BACK);
    play(&mut g, "Lg1 Pf3");
    assert_eq!(g.end_reason(), "repetition");
    // The vchess king chain onto the other king (rules.rs has the diagram).
    let rules = Rules { king_chain_draw: true, ..Rules::OFFICIAL };
    let mut g = at("r2qk2r/pbpe1pp1/np5p/2b1p3/4P1t1/2N3K1/PPPP1PPP/R1B3NR w 0 - - -", rules);
    play(&mut g, "Lg3 Pg4 Pd7 Pe8");
    assert_eq!(g.status(), Status::KingChainDraw);
    assert_eq!(g.end_reason(), "draw");
}

#[test]
fn a_fen_is_complete_under_the_official_rules_without_a_pending_promotion() {
    let at = |fen: &str, rules: Rules| GameState::new(Position::from_fen(fen, rules).unwrap());
    assert!(GameState::new(Position::startpos()).notation_is_complete());
    // A pawn on its last rank, alone: its promotion is pending, which a FEN cannot say.
    let promoting = at("3Pk3/8/8/8/8/8/8/4K3 w 0 - - -", Rules::OFFICIAL);
    assert!(promoting.position().required().is_promote());
    assert!(!promoting.notation_is_complete());
    // The optional rules are not written either.
    let vchess = at("4k3/8/8/8/8/8/8/4K3 w 0 - - -", Rules { king_chain_draw: true, ..Rules::OFFICIAL });
    assert!(!vchess.notation_is_complete());
}

#[test]
fn numbered_starts_are_the_fischer_random_setups_modulo_960() {
    for n in [0u64, 5, 518, 959, 965, 960 * 7 + 300] {
        let g = <GameState as GameRules>::random_start(n);
        assert_eq!(*g.position(), fischer_random((n % 960) as u16, Rules::OFFICIAL), "start {n}");
    }
}

#[test]
fn the_platform_encoding_mirrors_as_its_own_function_does() {
    // No castling rights (a position with them has no mirror image), a
    // pawn on the e-file.
    let g = GameState::new(Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 w 0 - - -", Rules::OFFICIAL).unwrap());
    let mut planes = vec![0u64; PLATFORM_BIT_PLANES];
    let mut scalars = vec![0f32; 64];
    g.encode_as(1, &mut planes, &mut scalars[..<GameState as Encode>::ENCODINGS[1].num_scalars()]);
    let mut expected = planes.clone();
    assert!(mirror_platform_planes(&mut expected));
    assert_ne!(expected, planes);
    let mut mirrored = planes.clone();
    assert!(<GameState as Encode>::mirror_planes_as(1, &mut mirrored));
    assert_eq!(mirrored, expected);
    // An encoding the game does not have is refused, its planes kept.
    let mut other = planes.clone();
    assert!(!<GameState as Encode>::mirror_planes_as(2, &mut other));
    assert_eq!(other, planes);
}

#[test]
fn the_facts_name_the_required_decision_and_count_the_full_moves() {
    let facts = GameState::new(Position::startpos()).facts();
    assert_eq!(facts, vec![("required", Fact::Text("Lift".into())), ("num_full_moves", Fact::Count(20))]);
    let mut g = GameState::new(Position::startpos());
    play(&mut g, "Le2");
    assert_eq!(g.facts(), vec![("required", Fact::Text("Place".into())), ("num_full_moves", Fact::Count(2))]);
}
