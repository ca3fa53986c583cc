//! [`NetworkEvaluator`]: a [`Network`] as the search's leaf evaluator
//! (`pacozero_search::Evaluator`).

use std::path::Path;

use anyhow::Result;
use pacozero_engine::Game;
use pacozero_search::{masked_softmax, EvalOutput, EvalRequest, Evaluator};

use crate::infer::{EvalInput, Network};

/// Evaluator wrapping a trained [`Network`].
pub struct NetworkEvaluator {
    pub net: Network,
    pub id: String,
}

impl NetworkEvaluator {
    /// Loads a `.pzmodel` file (`threads` CPU threads, 0 = rayon's global pool).
    pub fn load(path: &Path, threads: usize) -> Result<Self> {
        let net = Network::load(path, threads).map_err(|e| anyhow::anyhow!("loading network {}: {e}", path.display()))?;
        let id = net.info().name.clone();
        Ok(NetworkEvaluator { net, id })
    }
}

impl<G: Game> Evaluator<G> for NetworkEvaluator {
    fn name(&self) -> String {
        self.id.clone()
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
        out.reset(batch);
        let inputs: Vec<EvalInput<'_>> = batch.iter().map(|r| EvalInput { planes: r.planes, scalars: r.scalars }).collect();
        let evals = self.net.evaluate_batch(&inputs).map_err(|e| anyhow::anyhow!("network evaluation: {e}"))?;
        for (i, (r, e)) in batch.iter().zip(evals).enumerate() {
            masked_softmax(&e.policy_logits, r.legal, out.priors_of_mut(i));
            out.wdl[i] = e.wdl;
        }
        Ok(())
    }
}
