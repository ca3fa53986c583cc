//! A tactic suite's line: one position, the turns that win from it, and
//! where it came from. Suites are JSON Lines files of these (the bundled
//! one is `engine/tests/data/tactics.jsonl`); `pacozero_arena::tactics`
//! reads and solves them, `pacozero_platform::tactics` writes them from
//! the platform's games.
//!
//! | field | meaning |
//! |---|---|
//! | `fen` | the position (a turn start), mover to win |
//! | `depth` | 1 or 2: the mover's turns to the win |
//! | `winning_turns` | every first turn that forces it, in the game's turn notation |
//! | `winning_actions` | the same turns as their decisions' names, space-separated (`"Lf3 Pe4"`) |
//! | `source` | where the position comes from |

use serde::{Deserialize, Serialize};

/// One position of a suite (see the module docs).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TacticLine {
    pub fen: String,
    pub depth: u8,
    pub winning_turns: Vec<String>,
    pub winning_actions: Vec<String>,
    pub source: String,
}
