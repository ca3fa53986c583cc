//! Invariant checks on arbitrary input: each function takes any bytes and
//! panics when the engine breaks one of its promises on them. The libFuzzer
//! targets (`engine/fuzz/fuzz_targets/`) are one call each, and
//! `tests/fuzz_corpus.rs` replays every committed corpus file through the same
//! functions in every `cargo test`.

use super::{GameState, Position, Square10};

/// Shako: any text never panics the FEN or UCI readers (an impossible
/// position is an error naming its field, not a panic), and an accepted FEN
/// writes back to itself with the same hash, and reads back; bytes as (from, to) pairs played
/// from the start: a move is accepted exactly when it is listed, a refused one
/// leaves the position unchanged, and the incremental hash always equals the
/// recomputed one.
pub fn play(data: &[u8]) {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(p) = s.parse::<Position>() {
            let fen = p.fen();
            let back: Position = fen.parse().expect("written FEN reads back (it passes validation)");
            assert_eq!(back.fen(), fen);
            assert_eq!(back.hash(), p.hash());
            assert_eq!(p.hash(), p.compute_hash());
            // Generating moves on any accepted position must not panic.
            let _ = p.legal_moves_vec();
        } else if let Err(e) = s.parse::<Position>() {
            assert!(!e.field.is_empty() && !e.message.is_empty(), "{e}");
        }
        let _ = Position::startpos().parse_uci(s);
    }
    let mut g = GameState::startpos();
    for pair in data.chunks(2) {
        if g.status().is_over() {
            break;
        }
        let legal = g.legal_moves();
        let from = Square10::new(pair[0] % 100);
        let to = Square10::new(pair.get(1).copied().unwrap_or(0) % 100);
        let listed = legal.iter().copied().find(|m| m.from() == from && m.to() == to && m.promotion().is_none());
        let before = *g.position();
        match g.play_uci(&format!("{from}{to}")) {
            Ok(m) => assert_eq!(Some(m), listed, "accepted {from}{to} in {}", before.fen()),
            Err(_) => {
                assert!(listed.is_none(), "refused listed {from}{to} in {}", before.fen());
                assert!(*g.position() == before);
                let pick = legal[pair[0] as usize % legal.len()];
                g.play(pick).expect("listed move is accepted");
            }
        }
        let p = g.position();
        assert_eq!(p.hash(), p.compute_hash());
    }
}
