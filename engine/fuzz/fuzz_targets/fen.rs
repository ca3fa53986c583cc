//! Any string: the FEN reader never panics; what it reads is a setup, which
//! validation either turns into a position or refuses with an error (never a
//! panic), under every rule set. An accepted FEN is exactly a read setup that
//! validates; its position writes back to a FEN that reads to the same
//! position, and gives back its own setup.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pacozero_engine::paco::{position_from_union_fen, Position, Rules, Setup};

fuzz_target!(|data: &[u8]| {
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
});
