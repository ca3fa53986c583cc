//! Any string as an action list or a chain-notation turn from the start
//! position: errors, never panics; an accepted turn is legal and complete.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pacozero_engine::paco::{parse_actions, parse_turn, turn_to_string, Position};

fuzz_target!(|data: &[u8]| {
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
});
