//! Losses and calibration of the network on a batch: the differentiable
//! losses ([`losses`], the formulas of the crate doc), one optimizer step on
//! them ([`train_step`]), the host-side accuracy and calibration figures
//! ([`batch_stats`], [`Calibration`]) and the losses on positions never
//! trained on ([`FreshLoss`], [`fresh_loss`]). Batches and their targets come
//! from `pacozero_batch`, which has no autodiff; this module is where they
//! meet the network.

use std::sync::Arc;

use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use burn::tensor::activation::{log_softmax, relu, softmax};
use burn::tensor::TensorData;
use pacozero_batch::{Batch, TrainConfig};
use pacozero_data::{GameSpec, PositionRow};
use pacozero_nn::backend::in_pool;
use pacozero_nn::PacoNet;
use serde::{Deserialize, Serialize};

use crate::metrics::StepMetrics;

/// Losses of the network on positions it has not been trained on yet (see
/// [`Trainer::fresh_data_loss`](crate::Trainer::fresh_data_loss)). The value
/// loss is against the game results alone, whatever `value_q_mix` the
/// training uses.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FreshLoss {
    /// Positions measured.
    pub rows: usize,
    /// Chunks they came from.
    pub chunks: usize,
    /// Policy cross-entropy over the full-search rows among them.
    pub policy_loss: f64,
    /// WDL cross-entropy against the game results.
    pub value_loss: f64,
    /// Fraction of full-search rows whose top (masked) logit is the top target move.
    pub policy_top1: f64,
    /// Share of the rows (by weight) from won, drawn and lost games, mover's view.
    #[serde(default)]
    pub result_share: [f64; 3],
    /// Mean predicted (win, draw, loss) probabilities over the rows.
    #[serde(default)]
    pub mean_wdl: [f64; 3],
    /// The value loss of the rows from won, drawn and lost games (NaN where none).
    #[serde(default)]
    pub value_loss_by_result: [f64; 3],
    /// The value loss of the best constant prediction, the rows' own result
    /// shares (their entropy): a head that scores above it is overconfident.
    #[serde(default)]
    pub base_rate_loss: f64,
}

impl std::fmt::Display for FreshLoss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "on {} new positions (never trained on): policy loss {:.4}, value loss {:.4} (constant base rate {:.4}; draws {:.1}% predicted {:.1}%), policy top-1 {:.1}%",
            self.rows,
            self.policy_loss,
            self.value_loss,
            self.base_rate_loss,
            100.0 * self.result_share[1],
            100.0 * self.mean_wdl[1],
            100.0 * self.policy_top1
        )
    }
}

/// Positions measured by
/// [`Trainer::fresh_data_loss`](crate::Trainer::fresh_data_loss) in the loop
/// and the `train` command: enough for a value loss to two decimals, a few
/// seconds of forward passes on a CPU.
pub const FRESH_LOSS_ROWS: usize = 4096;

/// The [`FreshLoss`] of `model` on `take` of `rows` (0 < `take` <= their
/// number), evenly spread, measured in batches of `cfg.batch_size`; the
/// caller fills in `chunks`. `model` should be in inference mode (on an
/// inference device): on a training device its batch normalisation would
/// normalise by each measuring batch.
pub(crate) fn fresh_loss(
    model: &PacoNet,
    spec: &GameSpec,
    rows: &[PositionRow],
    take: usize,
    cfg: &TrainConfig,
    device: &Device,
    pool: &Option<Arc<rayon::ThreadPool>>,
) -> FreshLoss {
    // Evenly spread: row i·len/take for i < take.
    let idx: Vec<u32> = (0..take).map(|i| (i * rows.len() / take) as u32).collect();
    let (mut policy, mut value, mut top1) = (0.0, 0.0, 0.0);
    let (mut policy_rows, mut top1_rows, mut total_weight) = (0.0, 0.0, 0.0);
    let mut calib = Calibration::default();
    for part in idx.chunks(cfg.batch_size.max(1)) {
        let b = Batch::build(spec, rows, part, 0.0);
        let (l, stats, wdl) = in_pool(pool, || {
            let l = losses(model, &b, cfg, device);
            let mut m = StepMetrics::default();
            let logits = l.masked_logits.clone().into_data();
            let wdl = l.wdl_prob.clone().into_data().as_slice::<f32>().map(<[f32]>::to_vec).unwrap_or_default();
            batch_stats(&b, logits.as_slice::<f32>().unwrap_or(&[]), &wdl, &mut m);
            ((scalar(l.policy), scalar(l.value)), m, wdl)
        });
        calib.add(&b, &wdl);
        // Batch losses are weighted means: add them back up by their weights.
        let policy_weight: f64 = b.policy_w.iter().map(|&w| w as f64).sum();
        let weight: f64 = b.row_w.iter().map(|&w| w as f64).sum();
        policy += l.0 * policy_weight;
        policy_rows += policy_weight;
        value += l.1 * weight;
        total_weight += weight;
        let with_policy = b.policy_w.iter().filter(|&&w| w > 0.0).count() as f64;
        if stats.policy_top1.is_finite() {
            top1 += stats.policy_top1 * with_policy;
            top1_rows += with_policy;
        }
    }
    let div = |x: f64, n: f64| if n > 0.0 { x / n } else { f64::NAN };
    let (result_share, mean_wdl, value_loss_by_result, base_rate_loss) = calib.finish();
    FreshLoss {
        rows: take,
        chunks: 0,
        policy_loss: div(policy, policy_rows),
        value_loss: div(value, total_weight),
        policy_top1: div(top1, top1_rows),
        result_share,
        mean_wdl,
        value_loss_by_result,
        base_rate_loss,
    }
}

/// Heads or tails for row `k` of the batch of `step` (SplitMix64 of both and the seed).
pub(crate) fn mirror_coin(seed: u64, step: u64, k: usize) -> bool {
    pacozero_search::mix64(seed ^ step.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (k as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)) & 1 == 1
}

fn t2(v: &[f32], shape: [usize; 2], device: &Device) -> Tensor<2> {
    Tensor::<2>::from_data(TensorData::new(v.to_vec(), shape), device)
}

fn scalar(t: Tensor<1>) -> f64 {
    let d = t.into_data();
    d.as_slice::<f32>().map(|s| s[0] as f64).unwrap_or(f64::NAN)
}

/// Losses of a batch; the returned total is differentiable.
pub(crate) struct Losses {
    pub total: Tensor<1>,
    pub policy: Tensor<1>,
    pub value: Tensor<1>,
    pub moves_left: Tensor<1>,
    /// The auxiliary targets' loss (`sako_loss`, named for Paco Ŝako's).
    pub aux: Tensor<1>,
    /// `None` without a reply head or reply targets in the batch.
    pub reply: Option<Tensor<1>>,
    pub masked_logits: Tensor<2>,
    pub wdl_prob: Tensor<2>,
}

pub(crate) fn losses(model: &PacoNet, b: &Batch, cfg: &TrainConfig, device: &Device) -> Losses {
    let (n, p) = (b.n, b.p);
    let x = Tensor::<4>::from_data(TensorData::new(b.x.clone(), [n, b.c, b.h, b.w]), device); // [B, Ci, H, W]
    let out = model.forward(x);
    let row_w = t2(&b.row_w, [n, 1], device); // [B, 1]
    let pol_w = t2(&b.policy_w, [n, 1], device); // [B, 1]
    let sum_w = b.row_w.iter().sum::<f32>().max(1e-6);
    let sum_pw = b.policy_w.iter().sum::<f32>().max(1e-6);

    let masked = out.policy + t2(&b.mask, [n, p], device); // [B, P]
    let logp = log_softmax(masked.clone(), 1); // [B, P]
    let ce_p = (logp * t2(&b.policy, [n, p], device)).sum_dim(1).neg(); // [B, 1]
    let policy = (ce_p * pol_w).sum().div_scalar(sum_pw); // [1]

    let logv = log_softmax(out.wdl.clone(), 1); // [B, 3]
    let ce_v = (logv * t2(&b.wdl, [n, 3], device)).sum_dim(1).neg(); // [B, 1]
    let value = (ce_v * row_w.clone()).sum().div_scalar(sum_w); // [1]

    // Masked for a truncated game's rows (their weight 0): the mean over the rest.
    let sum_mw = b.moves_left_w.iter().sum::<f32>().max(1e-6);
    let d = out.moves_left - t2(&b.moves_left, [n, 1], device); // [B, 1]
    let moves_left = (d.clone() * d * t2(&b.moves_left_w, [n, 1], device)).sum().div_scalar(sum_mw); // [1]

    // The mean binary cross-entropy over the game's A auxiliary targets.
    let na = b.naux;
    let aux = if na == 0 {
        Tensor::<1>::zeros([1], device)
    } else {
        let z = out.aux; // [B, A]
        let t = t2(&b.aux, [n, na], device); // [B, A]
                                             // Stable BCE with logits: max(z,0) - z*t + ln(1 + e^-|z|).
        let bce = relu(z.clone()) - z.clone() * t + (z.abs().neg().exp() + 1.0).log(); // [B, A]
        (bce.sum_dim(1) * row_w).sum().div_scalar(na as f32 * sum_w) // [1]
    };

    let sum_rw = b.reply_w.iter().sum::<f32>();
    let reply = match out.reply {
        Some(logits) if sum_rw > 0.0 && !b.reply.is_empty() => {
            let logp = log_softmax(logits + t2(&b.reply_mask, [n, p], device), 1); // [B, P]
            let ce = (logp * t2(&b.reply, [n, p], device)).sum_dim(1).neg(); // [B, 1]
            let reply = (ce * t2(&b.reply_w, [n, 1], device)).sum().div_scalar(sum_rw); // [1]
            Some(reply)
        }
        _ => None,
    };

    let mut total = policy.clone().mul_scalar(cfg.policy_weight)
        + value.clone().mul_scalar(cfg.value_weight)
        + moves_left.clone().mul_scalar(cfg.moves_left_weight)
        + aux.clone().mul_scalar(cfg.sako_weight); // [1]
    if let Some(r) = &reply {
        total = total + r.clone().mul_scalar(cfg.reply_policy_weight);
    }
    Losses { total, policy, value, moves_left, aux, reply, masked_logits: masked, wdl_prob: softmax(out.wdl, 1) }
}

/// Weighted sums behind [`FreshLoss`]'s calibration figures: the value
/// loss split by the game's result, the mean prediction and the loss of
/// the best constant prediction.
#[derive(Default)]
struct Calibration {
    /// Weight of the rows of each result (win, draw, loss).
    weight: [f64; 3],
    /// Weighted cross-entropy of the rows of each result.
    loss: [f64; 3],
    /// Weighted sum of the predicted WDL.
    pred: [f64; 3],
}

impl Calibration {
    fn add(&mut self, b: &Batch, wdl_prob: &[f32]) {
        for k in 0..b.n.min(wdl_prob.len() / 3) {
            let w = b.row_w[k] as f64;
            let j = match b.result[k] {
                1 => 0,
                0 => 1,
                _ => 2,
            };
            let p = &wdl_prob[k * 3..k * 3 + 3];
            self.weight[j] += w;
            self.loss[j] += w * -(p[j].max(1e-12) as f64).ln();
            for (sum, &q) in self.pred.iter_mut().zip(p) {
                *sum += w * q as f64;
            }
        }
    }

    /// (result shares, mean prediction, loss by result, base-rate loss).
    fn finish(&self) -> ([f64; 3], [f64; 3], [f64; 3], f64) {
        let total: f64 = self.weight.iter().sum();
        let nan_div = |x: f64, n: f64| if n > 0.0 { x / n } else { f64::NAN };
        let share: [f64; 3] = std::array::from_fn(|j| nan_div(self.weight[j], total));
        let mean: [f64; 3] = std::array::from_fn(|j| nan_div(self.pred[j], total));
        let by_result: [f64; 3] = std::array::from_fn(|j| nan_div(self.loss[j], self.weight[j]));
        let base = share.iter().filter(|&&s| s > 0.0).map(|&s| -s * s.ln()).sum();
        (share, mean, by_result, if total > 0.0 { base } else { f64::NAN })
    }
}

/// Host-side accuracy and calibration figures.
pub(crate) fn batch_stats(b: &Batch, masked_logits: &[f32], wdl_prob: &[f32], m: &mut StepMetrics) {
    let (n, p) = (b.n, b.p);
    let (mut hits, mut rows) = (0usize, 0usize);
    for k in 0..n {
        if b.policy_w[k] <= 0.0 {
            continue;
        }
        let row = &masked_logits[k * p..(k + 1) * p];
        let tgt = &b.policy[k * p..(k + 1) * p];
        let am = |v: &[f32]| v.iter().enumerate().fold((0, f32::NEG_INFINITY), |acc, (i, &x)| if x > acc.1 { (i, x) } else { acc }).0;
        rows += 1;
        hits += (am(row) == am(tgt)) as usize;
    }
    m.policy_top1 = if rows > 0 { hits as f64 / rows as f64 } else { f64::NAN };
    let nf = n.max(1) as f64;
    let mean = |j: usize| (0..n).map(|k| wdl_prob[k * 3 + j] as f64).sum::<f64>() / nf;
    m.pred_win = mean(0);
    m.pred_draw = mean(1);
    m.pred_score = mean(0) - mean(2);
    m.actual_win = b.result.iter().filter(|&&r| r == 1).count() as f64 / nf;
    m.actual_draw = b.result.iter().filter(|&&r| r == 0).count() as f64 / nf;
    m.actual_score = b.result.iter().map(|&r| r as f64).sum::<f64>() / nf;
}

pub(crate) fn train_step(model: PacoNet, optim: &mut ModuleOptimizer, b: &Batch, cfg: &TrainConfig, lr: f64, device: &Device) -> (PacoNet, StepMetrics) {
    let l = losses(&model, b, cfg, device);
    let grads = l.total.backward();
    let grads = GradientsParams::from_grads(grads, &model);
    let model = optim.step(lr, model, grads);
    let mut m = StepMetrics {
        loss: scalar(l.total),
        policy_loss: scalar(l.policy),
        value_loss: scalar(l.value),
        moves_left_loss: scalar(l.moves_left),
        sako_loss: scalar(l.aux),
        reply_policy_loss: l.reply.map_or(f64::NAN, scalar),
        ..Default::default()
    };
    let logits = l.masked_logits.detach().into_data();
    let wdl = l.wdl_prob.detach().into_data();
    batch_stats(b, logits.as_slice::<f32>().unwrap_or(&[]), wdl.as_slice::<f32>().unwrap_or(&[]), &mut m);
    (model, m)
}

#[cfg(test)]
mod tests;
