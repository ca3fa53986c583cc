//! Shared by the self-play integration tests (each uses a part of it).
#![allow(dead_code)]

#[allow(unused_imports)]
pub use pacozero_testkit::Constant;

/// A position row's expected `result`: the game's result (`"1-0"`, `"0-1"`,
/// `"1/2-1/2"`) from the view of the side to move (0 = White): 1, 0 or -1.
pub fn result_for_mover(game_result: &str, side_to_move: u8) -> i8 {
    match (game_result, side_to_move) {
        ("1/2-1/2", _) => 0,
        ("1-0", 0) | ("0-1", 1) => 1,
        ("1-0", _) | ("0-1", _) => -1,
        (r, _) => panic!("result {r}"),
    }
}
