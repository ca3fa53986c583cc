//! Fixtures shared by the train crate's integration tests.

use pacozero_data::GameRow;

/// The games-file row of game `game_id` (won by White, `decisions` long);
/// training reads positions only, so every test's chunk takes this one.
pub fn game_row(game_id: u64, decisions: u32) -> GameRow {
    GameRow {
        game_id,
        start_fen: "-".into(),
        actions: String::new(),
        num_decisions: decisions,
        result: "1-0".into(),
        reason: "test".into(),
        network_id: "uniform".into(),
        config_hash: "-".into(),
        seed: 0,
        white: String::new(),
        black: String::new(),
    }
}
