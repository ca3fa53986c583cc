//! Invariant checks on arbitrary input, as `shako::invariants`: each
//! function takes any bytes and panics when the engine breaks one of its
//! promises on them. The libFuzzer target (`engine/fuzz/fuzz_targets/connect4.rs`)
//! is one call, and `tests/fuzz_corpus.rs` replays its committed corpus.

use super::board::{HEIGHT, WIDTH};
use super::GameState;
use crate::game::Outcome;
use crate::prelude::*;
use crate::types::Color;

/// The winner by the rule text, read off the cells: some side has four in
/// a line, horizontally, vertically or diagonally.
fn four_by_scan(g: &GameState, side: Color) -> bool {
    let mine = g.to_move() == side;
    let at = |c: i32, r: i32| (0..WIDTH as i32).contains(&c) && (0..HEIGHT as i32).contains(&r) && g.board().at(c as usize, r as usize) == Some(mine);
    (0..WIDTH as i32).any(|c| (0..HEIGHT as i32).any(|r| [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dc, dr)| (0..4).all(|k| at(c + k * dc, r + k * dr)))))
}

/// Connect Four: any text through the notation reader never panics (an
/// accepted one writes back to itself with the same hash); bytes as
/// columns played from the empty board: a column is accepted exactly when
/// it is listed, a refused one leaves the state unchanged, the incremental
/// hash equals the recomputed one, and the result agrees with a scan of
/// the cells for four in a line.
pub fn play(data: &[u8]) {
    if let Ok(s) = std::str::from_utf8(data) {
        match GameState::from_notation(s) {
            Ok(g) => {
                let back = GameState::from_notation(&g.notation()).expect("written notation reads back");
                assert_eq!((back.notation(), back.hash()), (g.notation(), g.hash()));
                assert_eq!(g.hash(), g.recomputed_hash());
            }
            Err(e) => assert!(!e.message.is_empty(), "{e}"),
        }
        let _ = GameState::start().read_action(s);
    }
    let mut g = GameState::start();
    let mut legal = Vec::new();
    for &byte in data {
        if g.outcome().is_some() {
            break;
        }
        g.playable_actions(&mut legal);
        let column = (byte % 8) as u16;
        let before = g;
        match g.try_apply(column) {
            Ok(()) => assert!(legal.contains(&column), "accepted column {} in {}", column + 1, before.notation()),
            Err(_) => {
                assert!(!legal.contains(&column), "refused listed column {} in {}", column + 1, before.notation());
                assert_eq!((g.notation(), g.hash()), (before.notation(), before.hash()));
                g.apply(legal[byte as usize % legal.len()]);
            }
        }
        assert_eq!(g.hash(), g.recomputed_hash());
        let (white, black) = (four_by_scan(&g, Color::White), four_by_scan(&g, Color::Black));
        let expected = match (white, black) {
            (true, false) => Some(Outcome::Win(Color::White)),
            (false, true) => Some(Outcome::Win(Color::Black)),
            (false, false) if g.stones() == 42 => Some(Outcome::Draw),
            (false, false) => None,
            (true, true) => panic!("both sides have four in {}", g.notation()),
        };
        assert_eq!(g.outcome(), expected, "{}", g.notation());
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn random_bytes_keep_the_invariants() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..3000 {
            let bytes: Vec<u8> = (0..64)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 32) as u8
                })
                .collect();
            super::play(&bytes);
        }
    }
}
