//! Any string: the FEN reader never panics, and what it accepts writes back to
//! a FEN that reads to the same position.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pacozero_engine::paco::{position_from_union_fen, Position, Rules};

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    if let Ok(p) = s.parse::<Position>() {
        let fen = p.fen();
        let back: Position = fen.parse().expect("written FEN reads back");
        assert_eq!(back.fen(), fen);
        assert_eq!(back.hash(), p.hash());
        assert_eq!(p.hash(), p.compute_hash());
        // Generating actions on arbitrary (even odd) positions must not panic.
        let _ = p.actions();
    }
    let _ = position_from_union_fen(s, Rules::OFFICIAL);
});
