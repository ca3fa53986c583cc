//! How long a game may run, shared by self-play and matches so that both
//! score a cut game alike.

use pacozero_engine::{Color, Game};

/// How long a game may run and how a game cut at that length ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameLimits {
    /// Decisions after which the game is cut.
    pub max_decisions: u32,
    /// A cut game is won by the side ahead by at least this much material
    /// (pawns; games with material only), otherwise drawn; 0 = always drawn.
    pub adjudicate_material: u32,
}

impl GameLimits {
    /// The winner of a game cut in `state` (`None`: a draw).
    pub fn cut_winner<G: Game>(&self, state: &G) -> Option<Color> {
        let balance = state.material_balance()?;
        if self.adjudicate_material == 0 || balance.unsigned_abs() < self.adjudicate_material {
            return None;
        }
        Some(if balance > 0 { Color::White } else { Color::Black })
    }
}
