//! Shared by the self-play integration tests (each uses a part of it).
#![allow(dead_code)]

use pacozero_engine::paco::GameState;
use pacozero_engine::{Color, Game};
use pacozero_selfplay::{EvalOutput, EvalRequest, Evaluator};

/// Uniform priors and a constant (win, draw, loss) for each mover.
pub struct Constant {
    pub white: [f32; 3],
    pub black: [f32; 3],
}

impl Evaluator<GameState> for Constant {
    fn name(&self) -> String {
        "constant".into()
    }
    fn needs_encoding(&self) -> bool {
        false
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, GameState>], out: &mut EvalOutput) -> anyhow::Result<()> {
        out.reset(batch);
        for (i, r) in batch.iter().enumerate() {
            out.priors_of_mut(i).fill(1.0 / r.legal.len() as f32);
            out.wdl[i] = if r.state.to_move() == Color::White { self.white } else { self.black };
        }
        Ok(())
    }
}

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
