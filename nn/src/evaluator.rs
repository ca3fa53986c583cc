//! [`NetworkEvaluator`]: a [`Network`] as the search's leaf evaluator
//! (`pacozero_search::Evaluator`).

use std::path::Path;

use anyhow::Result;
use pacozero_engine::{encoding_index, Game};
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

    /// The index in `G::ENCODINGS` of the encoding the network reads.
    fn encoding_of<G: Game>(&self) -> Result<usize> {
        encoding_index::<G>(&self.net.config().encoding).map_err(|e| anyhow::anyhow!("network {}: {e}", self.id))
    }
}

impl<G: Game> Evaluator<G> for NetworkEvaluator {
    fn name(&self) -> String {
        self.id.clone()
    }
    /// The search encodes leaves in the game's own encoding
    /// ([`Encode::encode`](pacozero_engine::Encode::encode)); a network reading another encodes them itself.
    fn needs_encoding(&self) -> bool {
        matches!(self.encoding_of::<G>(), Ok(0))
    }
    fn encoding(&self) -> Option<String> {
        Some(self.net.config().encoding.clone())
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
        out.reset(batch);
        let encoding = self.encoding_of::<G>()?;
        let own: Vec<(Vec<u64>, Vec<f32>)> = if encoding == 0 {
            Vec::new()
        } else {
            let e = &G::ENCODINGS[encoding];
            let words = G::WORDS_PER_PLANE;
            batch
                .iter()
                .map(|r| {
                    let (mut planes, mut scalars) = (vec![0u64; e.num_bit_planes() * words], vec![0f32; e.num_scalars()]);
                    r.state.encode_as(encoding, &mut planes, &mut scalars);
                    (planes, scalars)
                })
                .collect()
        };
        let inputs: Vec<EvalInput<'_>> = if encoding == 0 {
            batch.iter().map(|r| EvalInput { planes: r.planes, scalars: r.scalars }).collect()
        } else {
            own.iter().map(|(planes, scalars)| EvalInput { planes, scalars }).collect()
        };
        self.net
            .evaluate_each(&inputs, |i, logits, wdl, _| {
                masked_softmax(logits, batch[i].legal, out.priors_of_mut(i));
                out.wdl[i] = wdl;
            })
            .map_err(|e| anyhow::anyhow!("network evaluation: {e}"))
    }
}
