//! [`QuiescentEvaluator`]: another evaluator's priors at a leaf, and its
//! value at the end of the leaf's capture line.
//!
//! A small network judges a position where a piece hangs, or an exchange is
//! half played, badly: the material is about to change hands and it sees one
//! position. Chess engines evaluate at quiet positions only, after a
//! quiescence search of captures. This evaluator does the same with the
//! game's [`GameRules::capture_line`] (Shako's is a material-only
//! quiescence search): the leaf keeps the network's priors for its own
//! decisions, and its value is the network's value of the position where
//! the line ends, seen from the leaf's mover. A line that ends the game
//! (mate, stalemate) gives the game's result. A quiet leaf, and every leaf
//! of a game without captures, costs nothing more; a leaf with a line costs
//! a second network input in the same batch.
//!
//! With a `material` weight above 0, the line's material balance is mixed
//! into the value as well, `(1 − m)·network + m·material`, the material's
//! WDL being `((1 + t)/2, 0, (1 − t)/2)` with `t = tanh(pawns /`
//! [`MATERIAL_SCALE`]`)` (a mate is ±1). A young network hardly knows what
//! a piece is worth; the balance says it, as the playouts of
//! [`crate::MixedEvaluator`] say how random games end.

use anyhow::{bail, Result};
use pacozero_engine::{Encode, GameRules};

use crate::eval::{blend, outcome_index, EvalOutput, EvalRequest, Evaluator};

/// Pawns of material that make the material's value `tanh(1)` ≈ 0.76.
pub const MATERIAL_SCALE: f32 = 3.0;

/// Wraps `inner`: priors of the leaf, value at the end of its capture line.
pub struct QuiescentEvaluator<E> {
    pub inner: E,
    /// Weight of the line's material balance in the value (0..=1; 0: the
    /// network's value alone).
    pub material: f32,
}

/// The WDL, for the mover, that a material balance of `pawns` says.
pub fn material_wdl(pawns: i32) -> [f32; 3] {
    let t = (pawns as f32 / MATERIAL_SCALE).tanh();
    [(1.0 + t) / 2.0, 0.0, (1.0 - t) / 2.0]
}

/// The position at a leaf's line's end, with what a request needs.
struct LineEnd<G> {
    /// The request it answers.
    leaf: usize,
    state: G,
    legal: Vec<u16>,
    planes: Vec<u64>,
    scalars: Vec<f32>,
}

impl<G: GameRules + Encode, E: Evaluator<G>> Evaluator<G> for QuiescentEvaluator<E> {
    fn name(&self) -> String {
        if self.material > 0.0 {
            format!("{}+quiescence+material{}", self.inner.name(), self.material)
        } else {
            format!("{}+quiescence", self.inner.name())
        }
    }
    fn needs_encoding(&self) -> bool {
        self.inner.needs_encoding()
    }
    fn encoding(&self) -> Option<String> {
        self.inner.encoding()
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
        let mut line = Vec::new();
        let mut ends: Vec<LineEnd<G>> = Vec::new();
        // Lines that end the game: (leaf, its WDL).
        let mut decided = Vec::new();
        // The material of each leaf's line's end, where the game has material.
        let mut balances = vec![None; batch.len()];
        for (leaf, r) in batch.iter().enumerate() {
            balances[leaf] = r.state.capture_line(&mut line);
            if line.is_empty() {
                continue;
            }
            let mut state = r.state.clone();
            for &a in &line {
                state.apply(a);
            }
            if let Some(outcome) = state.outcome() {
                let mut wdl = [0.0; 3];
                wdl[outcome_index(outcome, r.state.to_move())] = 1.0;
                decided.push((leaf, wdl));
                continue;
            }
            let mut legal = Vec::new();
            state.playable_actions(&mut legal);
            if legal.is_empty() {
                continue; // stuck: the leaf keeps its own value
            }
            let (mut planes, mut scalars) = (Vec::new(), Vec::new());
            if self.inner.needs_encoding() {
                planes = vec![0; G::NUM_BIT_PLANES * G::WORDS_PER_PLANE];
                scalars = vec![0.0; G::NUM_SCALARS];
                state.encode(&mut planes, &mut scalars);
            }
            ends.push(LineEnd { leaf, state, legal, planes, scalars });
        }
        if ends.is_empty() {
            self.inner.evaluate(batch, out)?;
        } else {
            let mut all: Vec<EvalRequest<'_, G>> =
                batch.iter().map(|r| EvalRequest { state: r.state, legal: r.legal, planes: r.planes, scalars: r.scalars }).collect();
            all.extend(ends.iter().map(|e| EvalRequest { state: &e.state, legal: &e.legal, planes: &e.planes, scalars: &e.scalars }));
            let mut both = EvalOutput::default();
            self.inner.evaluate(&all, &mut both)?;
            if both.wdl.len() != all.len() {
                bail!("evaluator returned {} results for {} requests", both.wdl.len(), all.len());
            }
            out.reset(batch);
            for i in 0..batch.len() {
                out.priors_of_mut(i).copy_from_slice(both.priors_of(i));
                out.wdl[i] = both.wdl[i];
            }
            for (k, e) in ends.iter().enumerate() {
                let [w, d, l] = both.wdl[batch.len() + k];
                out.wdl[e.leaf] = if e.state.to_move() == batch[e.leaf].state.to_move() { [w, d, l] } else { [l, d, w] };
            }
        }
        // With no weight the blend leaves the value as it is.
        for (wdl, pawns) in out.wdl.iter_mut().zip(&balances) {
            if let Some(pawns) = *pawns {
                blend(wdl, material_wdl(pawns), self.material);
            }
        }
        // A line that ends the game gives its result, whatever the weights.
        for (leaf, wdl) in decided {
            out.wdl[leaf] = wdl;
        }
        Ok(())
    }
}
