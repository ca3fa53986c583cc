use super::*;
use pacozero_nn::NetConfig;

const P: usize = 6;
const NEG: f32 = -1e9;

/// The device training runs on (autodiff tracked).
fn device() -> Device {
    crate::backend::training_device(&pacozero_nn::default_device())
}

fn spec() -> GameSpec {
    GameSpec::new("test", 4, 4, 2, 1, P as u32, &["first", "second"]).unwrap()
}

fn model(reply: bool) -> PacoNet {
    let net = NetConfig { reply_policy: reply, ..NetConfig::tiny_for(&spec()) };
    net.init_seeded(&device(), 3).unwrap()
}

fn host(t: Tensor<2>) -> Vec<f64> {
    t.into_data().as_slice::<f32>().unwrap().iter().map(|&x| x as f64).collect()
}

/// A mask with 0 on the legal slots and -1e9 elsewhere.
fn mask(legal: &[usize]) -> Vec<f32> {
    (0..P).map(|a| if legal.contains(&a) { 0.0 } else { NEG }).collect()
}

/// Three rows by hand: the second is no full search (no policy weight),
/// the weights differ, only the first has a reply target.
fn batch() -> Batch {
    let s = spec();
    let len = s.input_len();
    Batch {
        n: 3,
        c: s.input_channels(),
        h: 4,
        w: 4,
        p: P,
        x: (0..3 * len).map(|i| ((i * 7919) % 13) as f32 / 13.0).collect(),
        mask: [mask(&[0, 2, 5]), mask(&[1, 2]), mask(&[0, 1, 2, 3, 4, 5])].concat(),
        policy: [[0.5, 0.0, 0.25, 0.0, 0.0, 0.25], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0 / 6.0; 6]].concat(),
        policy_w: vec![1.0, 0.0, 2.0],
        wdl: vec![1.0, 0.0, 0.0, 0.2, 0.5, 0.3, 0.0, 0.0, 1.0],
        row_w: vec![1.0, 0.5, 2.0],
        moves_left: vec![0.3, 1.2, 2.0],
        moves_left_w: vec![1.0, 0.5, 2.0],
        naux: 2,
        aux: vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0],
        result: vec![1, 0, -1],
        reply: [[0.0, 1.0, 0.0, 0.0, 0.0, 0.0], [0.0; 6], [0.0; 6]].concat(),
        reply_mask: [mask(&[1, 3]), mask(&[]), mask(&[])].concat(),
        reply_w: vec![1.0, 0.0, 0.0],
    }
}

fn weights() -> TrainConfig {
    TrainConfig { policy_weight: 1.5, value_weight: 0.7, moves_left_weight: 0.3, sako_weight: 0.2, reply_policy_weight: 0.4, ..TrainConfig::default() }
}

fn log_softmax_row(z: &[f64]) -> Vec<f64> {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let lse = m + z.iter().map(|x| (x - m).exp()).sum::<f64>().ln();
    z.iter().map(|x| x - lse).collect()
}

/// Weighted mean over rows of the cross-entropy of `targets` under the
/// softmax of `logits` (`width` columns a row).
fn cross_entropy(logits: &[f64], targets: &[f32], weights: &[f32], width: usize) -> f64 {
    let (mut sum, mut w) = (0.0, 0.0);
    for k in 0..weights.len() {
        let lp = log_softmax_row(&logits[k * width..(k + 1) * width]);
        let ce: f64 = -(0..width).map(|a| targets[k * width + a] as f64 * lp[a]).sum::<f64>();
        sum += weights[k] as f64 * ce;
        w += weights[k] as f64;
    }
    sum / w
}

fn close(what: &str, got: f64, want: f64) {
    assert!((got - want).abs() <= 1e-4 * want.abs().max(1.0), "{what}: {got} vs {want}");
}

/// The losses against the crate doc's formulas computed on the host in
/// f64 from the network's raw outputs: masked policy cross-entropy by
/// the policy weights, WDL cross-entropy, squared moves-left error and
/// mean binary cross-entropy of the auxiliary targets by the row
/// weights, the reply cross-entropy by the reply weights, and the total
/// with each term's weight (all different, so no two can be swapped).
#[test]
fn the_losses_follow_their_formulas() {
    let (b, cfg, device) = (batch(), weights(), device());
    let m = model(true);
    let x = Tensor::<4>::from_data(TensorData::new(b.x.clone(), [b.n, b.c, b.h, b.w]), &device);
    let out = m.forward(x);
    let logits = host(out.policy);
    let masked: Vec<f64> = logits.iter().zip(&b.mask).map(|(z, &m)| z + m as f64).collect();
    let wdl_logits = host(out.wdl);
    let ml = host(out.moves_left);
    let aux = host(out.aux);
    let reply_logits: Vec<f64> = host(out.reply.unwrap()).iter().zip(&b.reply_mask).map(|(z, &m)| z + m as f64).collect();

    let policy = cross_entropy(&masked, &b.policy, &b.policy_w, P);
    let value = cross_entropy(&wdl_logits, &b.wdl, &b.row_w, 3);
    let sum_w: f64 = b.row_w.iter().map(|&w| w as f64).sum();
    let moves_left = (0..3).map(|k| b.row_w[k] as f64 * (ml[k] - b.moves_left[k] as f64).powi(2)).sum::<f64>() / sum_w;
    let bce = |z: f64, t: f64| -(t * (1.0 / (1.0 + (-z).exp())).ln() + (1.0 - t) * (1.0 / (1.0 + z.exp())).ln());
    let aux_loss = (0..3).map(|k| b.row_w[k] as f64 * (0..2).map(|a| bce(aux[k * 2 + a], b.aux[k * 2 + a] as f64)).sum::<f64>()).sum::<f64>() / (2.0 * sum_w);
    let reply = cross_entropy(&reply_logits[..P], &b.reply[..P], &b.reply_w[..1], P);

    let l = losses(&m, &b, &cfg, &device);
    close("policy", scalar(l.policy.clone()), policy);
    close("value", scalar(l.value.clone()), value);
    close("moves left", scalar(l.moves_left.clone()), moves_left);
    close("auxiliary", scalar(l.aux.clone()), aux_loss);
    close("reply", scalar(l.reply.clone().unwrap()), reply);
    close("total", scalar(l.total.clone()), 1.5 * policy + 0.7 * value + 0.3 * moves_left + 0.2 * aux_loss + 0.4 * reply);
    for (got, want) in host(l.masked_logits).iter().zip(&masked) {
        close("masked logit", *got, *want);
    }
    for (k, row) in host(l.wdl_prob).chunks(3).enumerate() {
        let lp = log_softmax_row(&wdl_logits[k * 3..k * 3 + 3]);
        for j in 0..3 {
            close("wdl probability", row[j], lp[j].exp());
        }
    }
    // One training step on them moves the network and reports them.
    let mut optim = crate::trainer::build_optimizer(&cfg);
    let (after, metrics) = train_step(m.clone(), &mut optim, &b, &cfg, 0.05, &device);
    close("reported total", metrics.loss, 1.5 * policy + 0.7 * value + 0.3 * moves_left + 0.2 * aux_loss + 0.4 * reply);
    close("reported policy", metrics.policy_loss, policy);
    close("reported value", metrics.value_loss, value);
    close("reported moves left", metrics.moves_left_loss, moves_left);
    close("reported auxiliary", metrics.sako_loss, aux_loss);
    close("reported reply", metrics.reply_policy_loss, reply);
    let moved = scalar(losses(&after, &b, &cfg, &device).total);
    assert!(moved < metrics.loss, "a step lowers the loss it stepped on: {moved} vs {}", metrics.loss);
}

/// A truncated game's row (moves-left weight 0) is out of the
/// moves-left loss: the loss is the weighted mean over the other rows,
/// whatever that row's target, and the other losses keep it.
#[test]
fn a_truncated_row_has_no_moves_left_loss() {
    let (cfg, device) = (weights(), device());
    let m = model(true);
    let x = Tensor::<4>::from_data(TensorData::new(batch().x.clone(), [3, batch().c, 4, 4]), &device);
    let ml = host(m.forward(x).moves_left);
    let cut = |target: f32| Batch { moves_left_w: vec![1.0, 0.0, 2.0], moves_left: vec![0.3, target, 2.0], ..batch() };
    let want = ((ml[0] - 0.3).powi(2) + 2.0 * (ml[2] - 2.0).powi(2)) / 3.0;
    let (a, b) = (losses(&m, &cut(1.2), &cfg, &device), losses(&m, &cut(40.0), &cfg, &device));
    close("masked moves left", scalar(a.moves_left.clone()), want);
    close("whatever the cut row's target", scalar(b.moves_left), want);
    let full = losses(&m, &batch(), &cfg, &device);
    close("the value loss keeps the row", scalar(a.value), scalar(full.value));
    assert!((scalar(full.moves_left) - want).abs() > 1e-6, "the row counts when not truncated");
    // Every row truncated: no moves-left loss at all.
    let none = Batch { moves_left_w: vec![0.0; 3], ..batch() };
    assert_eq!(scalar(losses(&m, &none, &cfg, &device).moves_left), 0.0);
}

/// No reply term without a reply head, without reply weight or without
/// reply targets; no auxiliary term without auxiliary targets.
#[test]
fn absent_heads_and_targets_add_nothing() {
    let (cfg, device) = (weights(), device());
    let with_head = model(true);
    let full = losses(&with_head, &batch(), &cfg, &device);
    let no_head = losses(&model(false), &batch(), &cfg, &device);
    assert!(no_head.reply.is_none());
    let unweighted = Batch { reply_w: vec![0.0; 3], ..batch() };
    assert!(losses(&with_head, &unweighted, &cfg, &device).reply.is_none());
    let untargeted = Batch { reply: Vec::new(), reply_mask: Vec::new(), ..batch() };
    let l = losses(&with_head, &untargeted, &cfg, &device);
    assert!(l.reply.is_none());
    // The total is then the other four terms.
    let four = 1.5 * scalar(l.policy) + 0.7 * scalar(l.value) + 0.3 * scalar(l.moves_left) + 0.2 * scalar(l.aux);
    close("total without a reply", scalar(l.total), four);
    assert!(scalar(full.total) > four, "the reply term adds to the total");
    let mut optim = crate::trainer::build_optimizer(&cfg);
    let (_, metrics) = train_step(with_head, &mut optim, &untargeted, &cfg, 0.01, &device);
    assert!(metrics.reply_policy_loss.is_nan() && metrics.loss.is_finite());
}

/// Top-1 over the full-search rows (the first of equal maxima), the
/// mean predictions and the actual results, on figures by hand.
#[test]
fn batch_stats_count_top_moves_and_mean_predictions() {
    let b = batch();
    // Row 0: top logit 0, top target 0 (0.5): a hit. Row 1: no policy
    // weight, left out. Row 2: first top logit 3 (5 twice), first top
    // target 0 (all equal): a miss.
    let logits = [[3.0, 0.0, 1.0, 0.0, 0.0, 2.0], [0.0, 9.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 5.0, 0.0, 5.0]].concat();
    let wdl = [0.6, 0.3, 0.1, 0.2, 0.5, 0.3, 0.1, 0.1, 0.8];
    let mut m = StepMetrics::default();
    batch_stats(&b, &logits, &wdl, &mut m);
    assert_eq!(m.policy_top1, 0.5);
    close("predicted win", m.pred_win, 0.3);
    close("predicted draw", m.pred_draw, 0.3);
    close("predicted score", m.pred_score, 0.3 - 0.4);
    assert_eq!((m.actual_win, m.actual_draw, m.actual_score), (1.0 / 3.0, 1.0 / 3.0, 0.0));
    let none = Batch { policy_w: vec![0.0; 3], result: vec![1, 1, 0], ..batch() };
    batch_stats(&none, &logits, &wdl, &mut m);
    assert!(m.policy_top1.is_nan());
    assert_eq!((m.actual_win, m.actual_draw), (2.0 / 3.0, 1.0 / 3.0));
    close("actual score", m.actual_score, 2.0 / 3.0);
}

/// Calibration by result on figures by hand: weights 1, 0.5 and 2 for
/// a won, a drawn and a lost row.
#[test]
fn calibration_splits_by_result() {
    let b = batch();
    let wdl = [0.6, 0.3, 0.1, 0.2, 0.5, 0.3, 0.1, 0.1, 0.8];
    let mut c = Calibration::default();
    c.add(&b, &wdl);
    let (share, mean, by_result, base) = c.finish();
    let t = 3.5;
    for (got, want) in share.iter().zip([1.0 / t, 0.5 / t, 2.0 / t]) {
        close("share", *got, want);
    }
    // Σ w·p: win 0.6 + 0.1 + 0.2, draw 0.3 + 0.25 + 0.2, loss 0.1 + 0.15 + 1.6.
    for (got, want) in mean.iter().zip([0.9 / t, 0.75 / t, 1.85 / t]) {
        close("mean prediction", *got, want);
    }
    for (got, want) in by_result.iter().zip([-(0.6f64.ln()), -(0.5f64.ln()), -(0.8f64.ln())]) {
        close("loss by result", *got, want);
    }
    close("base rate", base, -[1.0 / t, 0.5 / t, 2.0 / t].iter().map(|s: &f64| s * s.ln()).sum::<f64>());
    // Only the rows with predictions count; a result without rows is NaN and out of the base rate.
    let mut first = Calibration::default();
    first.add(&b, &wdl[..3]);
    let (share, _, by_result, base) = first.finish();
    assert_eq!(share, [1.0, 0.0, 0.0]);
    assert!(by_result[1].is_nan() && by_result[2].is_nan());
    assert_eq!(base, 0.0);
    let (share, mean, _, base) = Calibration::default().finish();
    assert!(share[0].is_nan() && mean[0].is_nan() && base.is_nan());
}

/// The fresh loss is the losses of its rows (sums weighted back up),
/// measured on rows evenly spread. One batch: the network's batch
/// normalisation on the training device normalises by the batch, so
/// other batch sizes give slightly other figures.
#[test]
fn fresh_loss_is_the_weighted_loss_of_evenly_spread_rows() {
    let m = model(false);
    let net = NetConfig::tiny_for(&spec());
    let (spec, mut rows) = crate::bench::synthetic_rows(&net, 20, 5);
    for (i, r) in rows.iter_mut().enumerate() {
        r.full_search = i % 3 != 1;
        r.weight = 0.5 + (i % 4) as f32 * 0.5;
    }
    let device = device();
    let cfg = TrainConfig { batch_size: 10, ..TrainConfig::default() };
    // Half the measured rows get the network's own top move as their
    // target, so that the top-1 figure is not 0 (it weighs the batches).
    let even: Vec<u32> = (0..10).map(|i| 2 * i).collect();
    let first = losses(&m, &Batch::build(&spec, &rows, &even, 0.0), &cfg, &device);
    let logits = host(first.masked_logits);
    let width = spec.policy_size as usize;
    for k in (0..10).step_by(2) {
        let row = &logits[k * width..(k + 1) * width];
        let top = (0..width).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap() as u16;
        let r = &mut rows[even[k] as usize];
        r.policy = r.legal_actions.iter().map(|&a| if a == top { 1.0 } else { 0.0 }).collect();
    }
    let f = fresh_loss(&m, &spec, &rows, 10, &cfg, &device, &None);
    assert_eq!((f.rows, f.chunks), (10, 0));
    assert!(f.policy_top1 > 0.0, "{f:?}");
    // Rows 0, 2, ..., 18 as one batch.
    let b = Batch::build(&spec, &rows, &even, 0.0);
    let l = losses(&m, &b, &cfg, &device);
    close("policy loss", f.policy_loss, scalar(l.policy));
    close("value loss", f.value_loss, scalar(l.value));
    let mut stats = StepMetrics::default();
    let logits = l.masked_logits.into_data();
    let wdl = l.wdl_prob.into_data().as_slice::<f32>().unwrap().to_vec();
    batch_stats(&b, logits.as_slice::<f32>().unwrap(), &wdl, &mut stats);
    close("policy top-1", f.policy_top1, stats.policy_top1);
    let mut calib = Calibration::default();
    calib.add(&b, &wdl);
    let (share, mean, by_result, base) = calib.finish();
    for j in 0..3 {
        close("result share", f.result_share[j], share[j]);
        close("mean prediction", f.mean_wdl[j], mean[j]);
        close("loss by result", f.value_loss_by_result[j], by_result[j]);
    }
    close("base rate", f.base_rate_loss, base);
    // The same rows given alone and all taken: the same figures.
    let alone: Vec<PositionRow> = even.iter().map(|&i| rows[i as usize].clone()).collect();
    let g = fresh_loss(&m, &spec, &alone, 10, &cfg, &device, &None);
    close("policy loss, rows alone", g.policy_loss, f.policy_loss);
    close("value loss, rows alone", g.value_loss, f.value_loss);
    // On the inference device (batch normalisation by its running
    // statistics) the batch size changes nothing: batches of 3 (3, 3,
    // 3, 1 rows of other weights) add up to the figures of one batch.
    let plain = pacozero_nn::default_device();
    let inference = net.init_seeded(&plain, 3).unwrap();
    let one = fresh_loss(&inference, &spec, &rows, 10, &cfg, &plain, &None);
    let threes = fresh_loss(&inference, &spec, &rows, 10, &TrainConfig { batch_size: 3, ..cfg.clone() }, &plain, &None);
    assert!(one.policy_top1 > 0.0, "{one:?}");
    close("policy loss by batches", threes.policy_loss, one.policy_loss);
    close("value loss by batches", threes.value_loss, one.value_loss);
    close("policy top-1 by batches", threes.policy_top1, one.policy_top1);
    close("base rate by batches", threes.base_rate_loss, one.base_rate_loss);
    // Without full-search rows there is no policy figure.
    let no_search: Vec<PositionRow> = alone.iter().map(|r| PositionRow { full_search: false, ..r.clone() }).collect();
    let h = fresh_loss(&m, &spec, &no_search, 10, &cfg, &device, &None);
    assert!(h.policy_loss.is_nan() && h.policy_top1.is_nan() && h.value_loss.is_finite(), "{h:?}");
}

#[test]
fn fresh_loss_reads_for_people() {
    let f = FreshLoss {
        rows: 4096,
        chunks: 3,
        policy_loss: 2.345_67,
        value_loss: 0.912_34,
        policy_top1: 0.4321,
        result_share: [0.3, 0.25, 0.45],
        mean_wdl: [0.3, 0.1234, 0.5],
        value_loss_by_result: [1.0; 3],
        base_rate_loss: 1.0701,
    };
    assert_eq!(
            f.to_string(),
            "on 4096 new positions (never trained on): policy loss 2.3457, value loss 0.9123 (constant base rate 1.0701; draws 25.0% predicted 12.3%), policy top-1 43.2%"
        );
}

/// The mirror coin against SplitMix64 computed by hand (Python), and
/// about half heads.
#[test]
fn the_mirror_coin_is_splitmix_of_seed_step_and_row() {
    let coins: Vec<bool> = (0..3).flat_map(|s| (0..4).map(move |k| mirror_coin(7, s, k))).collect();
    assert_eq!(coins, [false, true, true, false, true, true, true, false, true, false, false, true]);
    assert_eq!((0..8).map(|k| mirror_coin(8, 0, k)).collect::<Vec<_>>(), [false, true, true, false, false, false, false, false]);
    let heads = (0..100).flat_map(|s| (0..100).map(move |k| mirror_coin(1, s, k))).filter(|&c| c).count();
    assert_eq!(heads, 4983);
}
