//! The shortcuts of full-move enumeration against what they shortcut:
//! `FullMoveGen::count`, the bulk count perft uses, against `for_each`
//! (every result played out), and its own promise that only the lifts that
//! can start a chain are played out; `completable_actions`, which checks
//! only the places that may continue a chain, on an en-passant place into a
//! union that dead-ends. And the enumeration's state limit, to the state.

use pacozero_engine::paco::{Action, FullMoveGen, FullMoveLimits, Position, Rules};
use pacozero_engine::Square;

fn at(fen: &str) -> Position {
    Position::from_fen(fen, Rules::OFFICIAL).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Black's pawn-led union (black pawn, white knight) double-stepped d7-d5;
/// White's pawn on e5 takes it en passant: the union steps back to d6, the
/// pawn joins it, and the white knight released there moves on.
const EP_INTO_UNION: &str = "4k3/8/8/3dP3/8/8/8/4K3 w 0 - d6 -";
/// The same with a white pawn on a2, which no chain concerns.
const EP_INTO_UNION_AND_A2: &str = "4k3/8/8/3dP3/8/8/P7/4K3 w 0 - d6 -";
/// A plain double step: black's lone pawn d7-d5 beside White's e5.
const EP_PLAIN: &str = "4k3/8/8/3pP3/8/8/P7/4K3 w 0 - d6 -";

fn enumerated(pos: &Position) -> u64 {
    FullMoveGen::new().for_each(pos, |_, _| {}).unwrap() as u64
}

#[test]
fn the_bulk_count_equals_the_enumeration() {
    for fen in [EP_INTO_UNION, EP_INTO_UNION_AND_A2, EP_PLAIN, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -"] {
        let pos = at(fen);
        assert_eq!(FullMoveGen::new().count(&pos), enumerated(&pos), "{fen}");
    }
    // The en-passant chain is there to count: more results than the pawn's
    // two squares and the kings' moves.
    let chain = at(EP_INTO_UNION);
    let mut pawn = chain;
    pawn.play(Action::Lift(Square::parse("e5").unwrap())).unwrap();
    assert!(enumerated(&pawn) > 2, "{}", enumerated(&pawn));
}

#[test]
fn only_lifts_that_can_start_a_chain_are_played_out() {
    let mut gen = FullMoveGen::new();
    // No union, so no chain: everything is counted in bulk.
    for fen in ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -", EP_PLAIN] {
        gen.count(&at(fen));
        assert_eq!(gen.states_visited, 0, "{fen}");
    }
    // Only the e5 pawn can chain (en passant into the union): the a2 pawn
    // adds no chain state.
    gen.count(&at(EP_INTO_UNION));
    let chain_states = gen.states_visited;
    assert!(chain_states > 0);
    gen.count(&at(EP_INTO_UNION_AND_A2));
    assert_eq!(gen.states_visited, chain_states);
}

#[test]
fn the_state_limit_stops_the_enumeration_past_its_last_state() {
    let pos = at(EP_INTO_UNION);
    let mut free = FullMoveGen::new();
    let results = free.for_each(&pos, |_, _| {}).unwrap();
    let states = free.states_visited;
    assert!(states > results, "chain states beyond the results: {states}");
    let mut exact = FullMoveGen::with_limits(FullMoveLimits { max_states: states });
    assert_eq!(exact.for_each(&pos, |_, _| {}), Ok(results));
    let mut short = FullMoveGen::with_limits(FullMoveLimits { max_states: states - 1 });
    let e = short.for_each(&pos, |_, _| {}).unwrap_err();
    assert_eq!(e.max_states, states - 1);
    assert_eq!(e.to_string(), format!("full-move enumeration visited more than {} chain states", states - 1));
}

#[test]
fn an_en_passant_place_into_a_union_that_dead_ends_is_not_completable() {
    // As EP_INTO_UNION, but every square the released knight could go to
    // from d6 holds a white piece (b5 b7 c4 c8 e4 e8 f5 f7): the chain the
    // en-passant place starts cannot be finished.
    let mut p = at("2B1R2k/1P3P2/8/1P1dPP2/2P1P3/8/8/K7 w 0 - d6 -");
    p.play(Action::Lift(Square::parse("e5").unwrap())).unwrap();
    let (d6, e6) = (Action::Place(Square::parse("d6").unwrap()), Action::Place(Square::parse("e6").unwrap()));
    assert!(p.actions().contains(d6) && p.actions().contains(e6));
    let kept = FullMoveGen::new().completable_actions(&p);
    assert!(!kept.contains(d6), "the dead-end en passant is kept");
    assert!(kept.contains(e6));
}

#[test]
fn promotions_whose_chain_dead_ends_are_not_completable() {
    // A white pawn reached d8 in a chain (its union with a black bishop),
    // the released knight in hand above it; whatever the pawn becomes, the
    // knight has nowhere to go (b7 c6 e6 f7 hold white pawns).
    let p = at("3Ek3/1P3P2/2P1P3/8/8/8/8/4K3^d8N w 0 - - -");
    assert!(p.required().is_promote() && !p.actions().is_empty());
    assert!(FullMoveGen::new().completable_actions(&p).is_empty());
    // With f7 free the knight can go there, after any promotion.
    let free = at("3Ek3/1P6/2P1P3/8/8/8/8/4K3^d8N w 0 - - -");
    assert_eq!(FullMoveGen::new().completable_actions(&free), free.actions());
}
