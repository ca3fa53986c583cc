//! Invariant checks on arbitrary input: each function takes any bytes and
//! panics when the engine breaks one of its promises on them. The libFuzzer
//! targets (`engine/fuzz/fuzz_targets/`) are one call each, and
//! `tests/fuzz_corpus.rs` replays every committed corpus file through the same
//! functions in every `cargo test`.

use super::{fischer_random, parse_actions, parse_turn, position_from_union_fen, turn_to_string, Action, GameState, Position, Rules, Setup};
use crate::{PieceKind, Square};

/// Any string: the FEN reader never panics; what it reads is a setup, which
/// validation either turns into a position or refuses with an error (never a
/// panic), under every rule set. An accepted FEN is exactly a read setup that
/// validates; its position writes back to a FEN that reads to the same
/// position, and gives back its own setup.
pub fn fen(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else { return };
    let setup = Setup::from_fen(s);
    for bits in 0..8u8 {
        let rules = Rules { no_union_undo: bits & 1 != 0, one_double_step_per_file: bits & 2 != 0, king_chain_draw: bits & 4 != 0 };
        let read = Position::from_fen(s, rules);
        match &setup {
            // Refused by the reader: refused the same way.
            Err(e) => assert_eq!(read.as_ref().err(), Some(e)),
            Ok(setup) => match Position::from_setup(setup, rules) {
                Err(e) => {
                    // Refused by validation: the error names its field and reads as one.
                    let err = read.expect_err("an invalid setup is refused");
                    assert_eq!(err.impossible.as_ref(), Some(&e));
                    assert!(!e.message.is_empty());
                }
                Ok(p) => {
                    assert_eq!(read.as_ref().ok(), Some(&p));
                    let fen = p.fen();
                    let back = Position::from_fen(&fen, rules).expect("written FEN reads back");
                    assert_eq!(back.fen(), fen);
                    assert_eq!(back.hash(), p.hash());
                    assert_eq!(p.hash(), p.compute_hash());
                    assert_eq!(Position::from_setup(&p.to_setup(), rules).as_ref(), Ok(&p));
                    // Generating actions on any accepted position must not panic.
                    let _ = p.actions();
                }
            },
        }
    }
    let _ = position_from_union_fen(s, Rules::OFFICIAL);
}

/// Any string as an action list or a chain-notation turn from the start
/// position: errors, never panics; an accepted turn is legal and complete,
/// and writes back to the same actions.
pub fn notation(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else { return };
    let _ = parse_actions(s);
    let start = Position::startpos();
    if let Ok(actions) = parse_turn(&start, s) {
        let mut p = start;
        for a in &actions {
            p.play(*a).expect("parsed actions are legal");
        }
        assert_ne!(p.side_to_move(), start.side_to_move());
        assert_eq!(parse_turn(&start, &turn_to_string(&start, &actions)).unwrap(), actions);
    }
}

/// The action byte `b` stands for (lifts, places, promotions).
fn action_of(b: u8) -> Action {
    match b % 132 {
        i @ 0..=63 => Action::Lift(Square::new(i)),
        i @ 64..=127 => Action::Place(Square::new(i - 64)),
        i => Action::Promote(PieceKind::PROMOTIONS[(i - 128) as usize]),
    }
}

/// Bytes choose actions from the start position (or a Fischer-random setup):
/// every listed action is accepted, unlisted ones are rejected without
/// changing the position, the incremental hash always equals the recomputed
/// one, no piece is ever lost, and the whole-board liftable set and the
/// threat search with its shortcuts equal their definitions.
pub fn play(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else { return };
    let start = if first < 200 { Position::startpos() } else { fischer_random(first as u16 * 17 % 960, Rules::OFFICIAL) };
    let mut g = GameState::new(start);
    for &b in rest {
        if g.position().is_settled() {
            let p = g.position();
            assert_eq!(p.liftable(), p.liftable_by_piece(), "liftable in {}", p.fen());
            // The exhaustive search takes up to a second where many unions let
            // chains permute (the shortcuts exist for those); comparing below
            // that keeps the fuzzer and the corpus replay fast.
            if p.unions().len() <= 6 {
                assert_eq!(crate::paco::threatened_squares(p), crate::paco::threatened_squares_exhaustive(p), "threats in {}", p.fen());
            }
        }
        let legal = g.position().actions();
        if legal.is_empty() {
            break;
        }
        let wanted = action_of(b);
        let before = *g.position();
        if legal.contains(wanted) {
            g.play(wanted).expect("listed action is accepted");
        } else {
            assert!(g.play(wanted).is_err(), "unlisted action {wanted} accepted in {}", before.fen());
            assert_eq!(*g.position(), before);
            let pick = legal.iter().nth(b as usize % legal.len()).unwrap();
            g.play(pick).unwrap();
        }
        let p = g.position();
        assert_eq!(p.hash(), p.compute_hash());
        assert_eq!(p.piece_count(), 32);
    }
}
