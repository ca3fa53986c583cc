//! Bytes choose actions from the start position (or a Fischer-random setup):
//! every listed action is accepted, unlisted ones are rejected without changing
//! the position, and the incremental hash always equals the recomputed one.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pacozero_engine::paco::{fischer_random, Action, GameState, Position, Rules};
use pacozero_engine::{PieceKind, Square};

fn action_of(b: u8) -> Action {
    match b % 132 {
        i @ 0..=63 => Action::Lift(Square::new(i)),
        i @ 64..=127 => Action::Place(Square::new(i - 64)),
        i => Action::Promote(PieceKind::PROMOTIONS[(i - 128) as usize]),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    let start = if first < 200 { Position::startpos() } else { fischer_random(first as u16 * 17 % 960, Rules::OFFICIAL) };
    let mut g = GameState::new(start);
    for &b in rest {
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
});
