//! How long a game may run, shared by self-play and matches so that both
//! score a cut game alike.

use pacozero_engine::{Color, GameRules};

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
    pub fn cut_winner<G: GameRules>(&self, state: &G) -> Option<Color> {
        let balance = state.material_balance()?;
        if self.adjudicate_material == 0 || balance.unsigned_abs() < self.adjudicate_material {
            return None;
        }
        Some(if balance > 0 { Color::White } else { Color::Black })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_engine::prelude::*;
    use pacozero_engine::shako;

    fn shako(fen: &str) -> shako::GameState {
        shako::GameState::from_notation(fen).unwrap()
    }

    #[test]
    fn a_cut_game_goes_to_the_side_ahead_by_the_threshold() {
        // White has a rook more; a Black rook more; equal material.
        let white_ahead = shako("9k/10/8K1/10/10/10/10/10/R9/10 b - - 0 1");
        let black_ahead = shako("r8k/10/8K1/10/10/10/10/10/10/10 w - - 0 1");
        let even = shako("9k/10/8K1/10/10/10/10/10/10/10 w - - 0 1");
        let balance = white_ahead.material_balance().unwrap();
        assert!(balance > 1, "{balance}");
        assert_eq!(black_ahead.material_balance(), Some(-balance));
        let at = |threshold| GameLimits { max_decisions: 10, adjudicate_material: threshold };
        let b = balance as u32;
        assert_eq!(at(b).cut_winner(&white_ahead), Some(Color::White), "ahead by exactly the threshold");
        assert_eq!(at(b).cut_winner(&black_ahead), Some(Color::Black));
        assert_eq!(at(1).cut_winner(&white_ahead), Some(Color::White));
        assert_eq!(at(b + 1).cut_winner(&white_ahead), None, "ahead by less");
        assert_eq!(at(b + 1).cut_winner(&black_ahead), None);
        assert_eq!(at(0).cut_winner(&white_ahead), None, "0: every cut game is drawn");
        assert_eq!(at(1).cut_winner(&even), None);
        // A game without material (Paco Ŝako): drawn.
        let paco = pacozero_engine::paco::GameState::new(pacozero_engine::paco::Position::startpos());
        assert_eq!(at(1).cut_winner(&paco), None);
    }
}
