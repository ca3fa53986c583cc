//! Batched leaf evaluation: the [`Evaluator`] trait and the built-in evaluators.

use anyhow::{bail, Result};
use pacozero_engine::{Color, GameRules, Outcome};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One position to evaluate. `planes`/`scalars` are [`Encode::encode`](pacozero_engine::Encode::encode)'s output
/// (empty if the evaluator said it does not need them); `legal` is
/// [`GameRules::playable_actions`] (never empty).
pub struct EvalRequest<'a, G> {
    pub state: &'a G,
    pub legal: &'a [u16],
    pub planes: &'a [u64],
    pub scalars: &'a [f32],
}

/// Outputs of one batch, in request order.
#[derive(Clone, Debug, Default)]
pub struct EvalOutput {
    /// Concatenated priors, request `i` at `offsets[i]..offsets[i+1]`, aligned
    /// with its `legal`; each slice sums to 1.
    pub priors: Vec<f32>,
    pub offsets: Vec<usize>,
    /// (win, draw, loss) from the perspective of the request's mover.
    pub wdl: Vec<[f32; 3]>,
}

impl EvalOutput {
    /// Empties the output and sizes it for `batch` (priors zeroed).
    pub fn reset<G>(&mut self, batch: &[EvalRequest<'_, G>]) {
        self.priors.clear();
        self.offsets.clear();
        self.wdl.clear();
        self.offsets.push(0);
        for r in batch {
            self.priors.resize(self.priors.len() + r.legal.len(), 0.0);
            self.offsets.push(self.priors.len());
        }
        self.wdl.resize(batch.len(), [0.0, 1.0, 0.0]);
    }

    /// Priors of request `i`.
    pub fn priors_of(&self, i: usize) -> &[f32] {
        &self.priors[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Mutable priors of request `i`.
    pub fn priors_of_mut(&mut self, i: usize) -> &mut [f32] {
        let (a, b) = (self.offsets[i], self.offsets[i + 1]);
        &mut self.priors[a..b]
    }
}

/// Evaluates batches of leaf positions.
pub trait Evaluator<G: GameRules>: Send + Sync {
    /// Model identifier written to data (`network_id`), e.g. `"uniform"` or `"gen-0003"`.
    fn name(&self) -> String;
    /// Whether requests must carry `planes`/`scalars` (skip encoding when not).
    fn needs_encoding(&self) -> bool {
        true
    }
    /// The input encoding a network evaluator reads (a name of
    /// `Encode::ENCODINGS`); `None` for evaluators without a network, which
    /// read no input. Self-play writes its data in this encoding.
    fn encoding(&self) -> Option<String> {
        None
    }
    /// Evaluates every request; `out` must be filled for all of them
    /// (call [`EvalOutput::reset`] first).
    fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()>;
}

impl<G: GameRules, E: Evaluator<G> + ?Sized> Evaluator<G> for std::sync::Arc<E> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn needs_encoding(&self) -> bool {
        (**self).needs_encoding()
    }
    fn encoding(&self) -> Option<String> {
        (**self).encoding()
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
        (**self).evaluate(batch, out)
    }
}

impl<G: GameRules, E: Evaluator<G> + ?Sized> Evaluator<G> for Box<E> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn needs_encoding(&self) -> bool {
        (**self).needs_encoding()
    }
    fn encoding(&self) -> Option<String> {
        (**self).encoding()
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
        (**self).evaluate(batch, out)
    }
}

/// Uniform priors and a certain draw: search driven by terminal results only.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<G: GameRules> Evaluator<G> for UniformEvaluator {
    fn name(&self) -> String {
        "uniform".into()
    }
    fn needs_encoding(&self) -> bool {
        false
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
        out.reset(batch);
        for (i, r) in batch.iter().enumerate() {
            let p = 1.0 / r.legal.len() as f32;
            out.priors_of_mut(i).fill(p);
        }
        Ok(())
    }
}

/// Uniform priors; value from random playouts (uniformly random legal
/// decisions until the game ends or `max_depth` decisions, unfinished = draw).
/// Deterministic: a position's playouts are seeded from `seed` and its hash.
#[derive(Clone, Debug)]
pub struct RolloutEvaluator {
    pub seed: u64,
    /// Playouts per position (>= 1), averaged.
    pub rollouts: u32,
    /// Decisions per playout before it counts as a draw.
    pub max_depth: u32,
}

impl RolloutEvaluator {
    pub fn new(seed: u64, rollouts: u32, max_depth: u32) -> Self {
        RolloutEvaluator { seed, rollouts: rollouts.max(1), max_depth }
    }

    /// WDL of `state` for its mover from random playouts.
    pub fn rollout_wdl<G: GameRules>(&self, state: &G) -> [f32; 3] {
        let mover = state.to_move();
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ state.hash().wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut wdl = [0f32; 3];
        let mut legal = Vec::new();
        for _ in 0..self.rollouts {
            let mut s = state.clone();
            let mut depth = 0;
            let outcome = loop {
                if let Some(o) = s.outcome() {
                    break o;
                }
                if depth >= self.max_depth {
                    break Outcome::Draw;
                }
                s.playable_actions(&mut legal);
                if legal.is_empty() {
                    break Outcome::Draw;
                }
                let a = legal[rng.gen_range(0..legal.len())];
                s.apply(a);
                depth += 1;
            };
            wdl[outcome_index(outcome, mover)] += 1.0;
        }
        let n = self.rollouts as f32;
        [wdl[0] / n, wdl[1] / n, wdl[2] / n]
    }
}

/// 0 = win, 1 = draw, 2 = loss for `me`.
pub(crate) fn outcome_index(o: Outcome, me: Color) -> usize {
    match o {
        Outcome::Draw => 1,
        Outcome::Win(c) if c == me => 0,
        Outcome::Win(_) => 2,
    }
}

impl<G: GameRules> Evaluator<G> for RolloutEvaluator {
    fn name(&self) -> String {
        format!("rollout-{}x{}", self.rollouts, self.max_depth)
    }
    fn needs_encoding(&self) -> bool {
        false
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
        out.reset(batch);
        for (i, r) in batch.iter().enumerate() {
            let p = 1.0 / r.legal.len() as f32;
            out.priors_of_mut(i).fill(p);
            out.wdl[i] = self.rollout_wdl(r.state);
        }
        Ok(())
    }
}

/// Another evaluator's priors, with its value mixed with random playouts'
/// (AlphaGo's leaf evaluation): WDL = `(1 - lambda) * inner + lambda * playouts`.
/// A playout costs a small fraction of a network call, so a timed search
/// keeps nearly all its simulations and gains the playouts' tactics.
pub struct MixedEvaluator<E> {
    pub inner: E,
    pub rollout: RolloutEvaluator,
    /// Weight of the playouts (0..=1).
    pub lambda: f32,
}

impl<G: GameRules, E: Evaluator<G>> Evaluator<G> for MixedEvaluator<E> {
    fn name(&self) -> String {
        format!("{}+rollout{}", self.inner.name(), self.lambda)
    }
    fn needs_encoding(&self) -> bool {
        self.inner.needs_encoding()
    }
    fn encoding(&self) -> Option<String> {
        self.inner.encoding()
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
        self.inner.evaluate(batch, out)?;
        for (i, r) in batch.iter().enumerate() {
            blend(&mut out.wdl[i], self.rollout.rollout_wdl(r.state), self.lambda);
        }
        Ok(())
    }
}

/// `wdl = (1 − weight)·wdl + weight·other`: a second opinion mixed into a value.
pub(crate) fn blend(wdl: &mut [f32; 3], other: [f32; 3], weight: f32) {
    for k in 0..3 {
        wdl[k] = (1.0 - weight) * wdl[k] + weight * other[k];
    }
}

/// Softmax of `logits` restricted to `legal`, written into `out`.
pub fn masked_softmax(logits: &[f32], legal: &[u16], out: &mut [f32]) {
    let mut max = f32::NEG_INFINITY;
    for &a in legal {
        max = max.max(logits[a as usize]);
    }
    let mut sum = 0.0;
    for (o, &a) in out.iter_mut().zip(legal) {
        let e = (logits[a as usize] - max).exp();
        *o = e;
        sum += e;
    }
    // Each term is at most 1 and the maximum's is 1, so the sum lies in
    // [1, n] unless a NaN or an infinite logit made it NaN.
    if sum.is_nan() {
        let p = 1.0 / legal.len() as f32;
        out.iter_mut().for_each(|o| *o = p);
    } else {
        out.iter_mut().for_each(|o| *o /= sum);
    }
}

/// The baseline evaluator named on a command line: `uniform` or `rollout`.
pub fn baseline_evaluator<G: GameRules>(name: &str, seed: u64) -> Result<Box<dyn Evaluator<G>>> {
    Ok(match name {
        "uniform" => Box::new(UniformEvaluator),
        "rollout" => Box::new(RolloutEvaluator::new(seed, 1, 400)),
        other => bail!("unknown evaluator '{other}' (expected 'uniform' or 'rollout')"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_engine::paco::{GameState, Position};
    use pacozero_engine::prelude::*;

    /// An evaluator with its own answers to every question of the trait.
    struct Marked;

    impl Evaluator<GameState> for Marked {
        fn name(&self) -> String {
            "marked".into()
        }
        fn needs_encoding(&self) -> bool {
            false
        }
        fn encoding(&self) -> Option<String> {
            Some("platform".into())
        }
        fn evaluate(&self, batch: &[EvalRequest<'_, GameState>], out: &mut EvalOutput) -> Result<()> {
            out.reset(batch);
            for i in 0..batch.len() {
                out.priors_of_mut(i)[0] = 1.0;
                out.wdl[i] = [0.7, 0.2, 0.1];
            }
            Ok(())
        }
    }

    /// Only what the trait requires.
    struct Plain;

    impl Evaluator<GameState> for Plain {
        fn name(&self) -> String {
            "plain".into()
        }
        fn evaluate(&self, _: &[EvalRequest<'_, GameState>], _: &mut EvalOutput) -> Result<()> {
            bail!("plain evaluates nothing")
        }
    }

    fn start() -> (GameState, Vec<u16>) {
        let g = GameState::new(Position::startpos());
        let mut legal = Vec::new();
        g.playable_actions(&mut legal);
        (g, legal)
    }

    /// Evaluates the start position with `e`.
    fn evaluated(e: &dyn Evaluator<GameState>) -> Result<EvalOutput> {
        let (g, legal) = start();
        let mut out = EvalOutput::default();
        e.evaluate(&[EvalRequest { state: &g, legal: &legal, planes: &[], scalars: &[] }], &mut out)?;
        Ok(out)
    }

    #[test]
    fn the_defaults_and_the_shared_and_boxed_evaluators_answer_as_the_evaluator() {
        assert!(Plain.needs_encoding() && Plain.encoding().is_none(), "a network evaluator by default");
        let shared = std::sync::Arc::new(Marked);
        let boxed: Box<dyn Evaluator<GameState>> = Box::new(Marked);
        for e in [&shared as &dyn Evaluator<GameState>, &boxed] {
            assert_eq!((e.name(), e.needs_encoding(), e.encoding()), ("marked".to_string(), false, Some("platform".to_string())));
            let out = evaluated(e).unwrap();
            assert_eq!(out.wdl, [[0.7, 0.2, 0.1]]);
            assert_eq!(out.priors_of(0)[0], 1.0);
        }
        let shared = std::sync::Arc::new(Plain);
        let boxed: Box<dyn Evaluator<GameState>> = Box::new(Plain);
        for e in [&shared as &dyn Evaluator<GameState>, &boxed] {
            assert!(e.needs_encoding() && e.encoding().is_none());
            assert_eq!(evaluated(e).unwrap_err().to_string(), "plain evaluates nothing");
        }
    }

    #[test]
    fn uniform_rollout_and_mixed_evaluators() {
        let (_, legal) = start();
        let n = legal.len() as f32;
        let u: &dyn Evaluator<GameState> = &UniformEvaluator;
        assert_eq!((u.name(), u.needs_encoding(), u.encoding()), ("uniform".to_string(), false, None));
        let out = evaluated(u).unwrap();
        assert!(out.priors_of(0).iter().all(|&p| p == 1.0 / n), "{:?}", out.priors);
        assert_eq!(out.wdl, [[0.0, 1.0, 0.0]]);

        let r = RolloutEvaluator::new(9, 0, 6);
        assert_eq!(r.rollouts, 1, "at least one playout");
        let r = RolloutEvaluator::new(9, 4, 6);
        let re: &dyn Evaluator<GameState> = &r;
        assert_eq!((re.name(), re.needs_encoding()), ("rollout-4x6".to_string(), false));
        let out = evaluated(re).unwrap();
        assert!(out.priors_of(0).iter().all(|&p| p == 1.0 / n));
        // Six random decisions from the start end no game: four draws.
        assert_eq!(out.wdl, [[0.0, 1.0, 0.0]]);

        // A won position for the mover's opponent: every playout a loss.
        let win = "rn3b1r/3kppp1/ppp2n2/2Np1E2/2P1F1P1/1P2B2p/P1Q1P2P/R2K1BNR w 8 - - -";
        let root = GameState::new(win.parse().unwrap());
        let mut won = root.clone();
        for d in root.parse_turn("Nc5xd7").unwrap() {
            won.apply(d);
        }
        assert!(won.outcome().is_some(), "{}", won.notation());
        assert_eq!(r.rollout_wdl(&won), [0.0, 0.0, 1.0], "Black to move has lost");

        let network = MixedEvaluator { inner: Plain, rollout: RolloutEvaluator::new(1, 2, 6), lambda: 0.5 };
        assert!(Evaluator::<GameState>::needs_encoding(&network), "a network inside reads the planes");
        let m = MixedEvaluator { inner: Marked, rollout: RolloutEvaluator::new(1, 2, 6), lambda: 0.25 };
        assert_eq!((m.name(), m.needs_encoding(), m.encoding()), ("marked+rollout0.25".to_string(), false, Some("platform".to_string())));
        let out = evaluated(&m).unwrap();
        let want = [0.75 * 0.7, 0.75 * 0.2 + 0.25, 0.75 * 0.1];
        for (x, w) in out.wdl[0].iter().zip(want) {
            assert!((x - w).abs() < 1e-6, "{:?} vs {want:?}", out.wdl);
        }
    }

    #[test]
    fn masked_softmax_reads_only_the_legal_logits() {
        let logits = [0.0, 1.0, 100.0, 2.0];
        let mut out = [0.0; 2];
        masked_softmax(&logits, &[1, 3], &mut out);
        let e = 1f32.exp();
        assert!((out[0] - 1.0 / (1.0 + e)).abs() < 1e-6 && (out[1] - e / (1.0 + e)).abs() < 1e-6, "{out:?}");
        // Nothing finite to normalise: uniform.
        masked_softmax(&[f32::NAN, f32::NAN], &[0, 1], &mut out);
        assert_eq!(out, [0.5, 0.5]);
        masked_softmax(&[f32::NEG_INFINITY, f32::NEG_INFINITY], &[0, 1], &mut out);
        assert_eq!(out, [0.5, 0.5]);
        // Large logits: the maximum comes off before the exponent (e^110
        // would overflow an f32).
        masked_softmax(&[50.0, 60.0], &[0, 1], &mut out);
        let e = (-10f32).exp();
        assert!((out[0] - e / (1.0 + e)).abs() < 1e-6 && (out[1] - 1.0 / (1.0 + e)).abs() < 1e-6, "{out:?}");
    }

    #[test]
    fn baseline_evaluators_by_name() {
        assert_eq!(baseline_evaluator::<GameState>("uniform", 1).unwrap().name(), "uniform");
        assert_eq!(baseline_evaluator::<GameState>("rollout", 1).unwrap().name(), "rollout-1x400");
        let e = baseline_evaluator::<GameState>("net", 1).err().unwrap().to_string();
        assert_eq!(e, "unknown evaluator 'net' (expected 'uniform' or 'rollout')");
    }
}
