//! An evaluator for search tests whose values are known in advance.

use pacozero_engine::{Color, Game};
use pacozero_search::{EvalOutput, EvalRequest, Evaluator};

/// Uniform priors and a constant (win, draw, loss) for each mover, in any game.
pub struct Constant {
    pub white: [f32; 3],
    pub black: [f32; 3],
}

impl<G: Game> Evaluator<G> for Constant {
    fn name(&self) -> String {
        "constant".into()
    }
    fn needs_encoding(&self) -> bool {
        false
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> anyhow::Result<()> {
        out.reset(batch);
        for (i, r) in batch.iter().enumerate() {
            out.priors_of_mut(i).fill(1.0 / r.legal.len() as f32);
            out.wdl[i] = if r.state.to_move() == Color::White { self.white } else { self.black };
        }
        Ok(())
    }
}
