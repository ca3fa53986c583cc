//! Property tests over random playouts: the action list is exactly what
//! `play` accepts, notation round-trips, hashes stay consistent, no piece is
//! ever lost, and the action ⇄ index mapping is a bijection.

use pacozero_engine::paco::{
    action_from_index, action_index, in_sako, threatened_squares, threatened_squares_exhaustive, Action, FullMoveGen, GameState, Position, Rules, NUM_ACTIONS,
};
use pacozero_engine::{PieceKind, Square};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

fn every_action() -> Vec<Action> {
    let mut v: Vec<Action> = Square::all().flat_map(|s| [Action::Lift(s), Action::Place(s)]).collect();
    v.extend(PieceKind::PROMOTIONS.iter().map(|&k| Action::Promote(k)));
    v
}

fn start(setup: u16) -> Position {
    start_with(setup, Rules::OFFICIAL)
}

fn start_with(setup: u16, rules: Rules) -> Position {
    if setup >= 960 {
        Position::from_fen(pacozero_engine::paco::STARTPOS_FEN, rules).unwrap()
    } else {
        pacozero_engine::paco::fischer_random(setup, rules)
    }
}

fn rules_of(bits: u8) -> Rules {
    Rules { no_union_undo: bits & 1 != 0, one_double_step_per_file: bits & 2 != 0, king_chain_draw: bits & 4 != 0 }
}

proptest! {
    // A fixed seed keeps CI deterministic; set PROPTEST_CASES / change the seed to explore more.
    #![proptest_config(ProptestConfig { cases: 256, rng_seed: RngSeed::Fixed(0x5041_434F), .. ProptestConfig::default() })]

    #[test]
    fn random_playouts_keep_invariants(setup in 0u16..1100, rule_bits in 0u8..8, choices in proptest::collection::vec(any::<u32>(), 1..250)) {
        let all = every_action();
        let rules = rules_of(rule_bits);
        let mut g = GameState::new(start_with(setup, rules));
        let mut gen = FullMoveGen::new();
        for c in choices {
            let pos = *g.position();
            let legal = pos.actions();
            // Exactly the listed actions are accepted.
            for &a in &all {
                let mut p = pos;
                prop_assert_eq!(p.play(a).is_ok(), legal.contains(a), "action {} in {}", a, pos.fen());
            }
            // The whole-board liftable set equals its piece-by-piece definition, and
            // the threat search's shortcuts change nothing: the full set, and both
            // kings' Ŝako (which stops at the first threat on the king).
            if pos.required() == pacozero_engine::paco::Required::Lift {
                prop_assert_eq!(pos.liftable(), pos.liftable_by_piece(), "liftable in {}", pos.fen());
                let threats = threatened_squares_exhaustive(&pos);
                prop_assert_eq!(threatened_squares(&pos), threats, "threats in {}", pos.fen());
                let their_king = pos.pieces(pos.side_to_move().other(), PieceKind::King).0;
                prop_assert_eq!(in_sako(&pos, pos.side_to_move().other()), threats & their_king != 0, "Ŝako in {}", pos.fen());
            }
            // Hash, piece count, FEN round trip (for FEN-expressible states).
            prop_assert_eq!(pos.hash(), pos.compute_hash());
            prop_assert_eq!(pos.piece_count(), 32);
            // The FEN cannot hold the optional rules' history (files used, last union move).
            if !pos.required().is_promote() && rules == Rules::OFFICIAL {
                let back: Position = pos.fen().parse().unwrap();
                prop_assert_eq!(back.fen(), pos.fen());
                prop_assert_eq!(back.hash(), pos.hash());
            }
            // Action ⇄ index.
            for a in legal.iter() {
                let i = action_index(a, pos.side_to_move());
                prop_assert!(i < NUM_ACTIONS);
                prop_assert_eq!(action_from_index(i, pos.side_to_move()), Some(a));
                prop_assert_eq!(a.to_string().parse::<Action>().unwrap(), a);
            }
            // Search only chooses among actions that can complete the turn.
            let searchable = gen.completable_actions(&pos);
            let choices: Vec<Action> = searchable.iter().collect();
            if choices.is_empty() {
                break;
            }
            let a = choices[c as usize % choices.len()];
            prop_assert!(legal.contains(a));
            g.play(a).unwrap();
            if g.status().is_over() {
                break;
            }
        }
    }
}

#[test]
fn action_index_is_a_bijection_for_both_colours() {
    for mover in [pacozero_engine::Color::White, pacozero_engine::Color::Black] {
        for i in 0..NUM_ACTIONS {
            let a = action_from_index(i, mover).unwrap();
            assert_eq!(action_index(a, mover), i);
        }
        assert_eq!(action_from_index(NUM_ACTIONS, mover), None);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, rng_seed: RngSeed::Fixed(0x5041_434F), .. ProptestConfig::default() })]

    /// Every full move written in chain notation reads back to the same
    /// actions, under every set of the optional rules (the vchess king rule
    /// writes king chains).
    #[test]
    fn chain_notation_round_trips(setup in 0u16..1100, rule_bits in 0u8..8, choices in proptest::collection::vec(any::<u32>(), 1..60)) {
        let mut g = GameState::new(start_with(setup, rules_of(rule_bits)));
        let mut gen = FullMoveGen::new();
        for c in choices {
            let moves = g.full_moves(&mut gen);
            if moves.is_empty() || g.status().is_over() {
                break;
            }
            for (_, trace) in moves.iter().take(40) {
                let text = pacozero_engine::paco::turn_to_string(g.position(), trace);
                let back = pacozero_engine::paco::parse_turn(g.position(), &text);
                prop_assert_eq!(back.as_ref(), Ok(trace), "{} in {}", text, g.position().fen());
            }
            let (next, _) = moves[c as usize % moves.len()].clone();
            g = next;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, rng_seed: RngSeed::Fixed(0x5041_434F), .. ProptestConfig::default() })]

    /// Bulk counting (which counts simple places from their hash) agrees with
    /// enumerating every full move, along random games.
    #[test]
    fn bulk_count_equals_enumeration(setup in 0u16..1100, choices in proptest::collection::vec(any::<u32>(), 1..80)) {
        let mut g = GameState::new(start(setup));
        let mut gen = FullMoveGen::new();
        for c in choices {
            let pos = *g.position();
            let listed = gen.for_each(&pos, |_, _| {}).unwrap() as u64;
            prop_assert_eq!(gen.count(&pos), listed, "{}", pos.fen());
            let moves = g.full_moves(&mut gen);
            if moves.is_empty() || g.status().is_over() {
                break;
            }
            g = moves[c as usize % moves.len()].0.clone();
        }
    }
}
