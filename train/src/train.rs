//! The training loop: [`Trainer`].
//!
//! Each step takes `batch_size` rows from a shuffled sliding window of the most
//! recent positions on disk, computes the four losses, and applies one
//! optimizer step. Everything needed to continue exactly where a run stopped
//! (weights, optimizer state, step, samples seen, RNG state and the position in
//! the current shuffled window) is in the checkpoint. `metrics.csv` gets one
//! row per step; resuming drops its rows past the checkpoint's step (the
//! steps a killed run did after its last checkpoint are redone), so every
//! step appears at most once, in increasing order.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use burn::grad_clipping::GradientClippingConfig;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer, OptimizerRecord, SgdConfig};
use burn::prelude::*;
use burn::tensor::activation::{log_softmax, relu, softmax};
use burn::tensor::{Bytes, TensorData};
use pacozero_batch::targets::{reply_rows, window_future, Targets};
use pacozero_batch::{permutation, Batch};
use pacozero_data::{list_chunks, read_positions_file, read_positions_window_of, ChunkInfo, GameSpec, PositionRow, RunDir};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::average::fold_average;
use crate::backend::training_device;
use crate::error::{io_err, TrainError, TrainResult};
use crate::metrics::{append_metrics, trim_metrics, StepMetrics};
use crate::plots::write_plots;
use pacozero_batch::{OptimizerKind, TrainConfig};
use pacozero_nn::backend::{cpu_pool, in_pool};
use pacozero_nn::modelfile::{export_to_run, model_from_bytes, read_container, record_bytes, sections_of, write_container, ModelInfo, Section, CKPT_MAGIC};
use pacozero_nn::{NetConfig, PacoNet};

/// Where the trainer is in its data: the current window and the position in
/// its shuffled order. Stored in checkpoints so a resumed run reads the same
/// rows in the same order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataPosition {
    /// Stems of the chunks of the current window, oldest first.
    pub chunks: Vec<String>,
    /// Rows of the window (the newest rows of those chunks).
    pub window_rows: usize,
    /// Seed of the window's permutation.
    pub perm_seed: u64,
    /// Next index into the permutation.
    pub cursor: usize,
    /// Step at which the window was loaded.
    pub loaded_at_step: u64,
    /// Windows loaded so far.
    pub windows_loaded: u64,
}

/// Losses of the network on positions it has not been trained on yet (see
/// [`Trainer::fresh_data_loss`]). The value loss is against the game results
/// alone, whatever `value_q_mix` the training uses.
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

/// Positions measured by [`Trainer::fresh_data_loss`] in the loop and the
/// `train` command: enough for a value loss to two decimals, a few seconds of
/// forward passes on a CPU.
pub const FRESH_LOSS_ROWS: usize = 4096;

/// Summary of a [`Trainer::train_steps`] call.
#[derive(Clone, Debug, Default)]
pub struct TrainSummary {
    pub steps: u64,
    pub first: StepMetrics,
    pub last: StepMetrics,
    /// Mean over the call.
    pub mean_loss: f64,
    pub samples_per_sec: f64,
}

#[derive(Serialize, Deserialize)]
struct CheckpointHeader {
    kind: String,
    net: NetConfig,
    train: TrainConfig,
    step: u64,
    samples_seen: u64,
    rng: ChaCha8Rng,
    data: DataPosition,
    sections: Vec<Section>,
}

struct Window {
    spec: GameSpec,
    rows: Vec<PositionRow>,
    perm: Vec<u32>,
    /// Each row's short-horizon value estimate (empty without one).
    future: Vec<[f32; 3]>,
    /// Each row's reply row (empty without a reply head).
    reply: Vec<Option<u32>>,
}

impl Window {
    fn new(spec: GameSpec, rows: Vec<PositionRow>, perm: Vec<u32>, cfg: &TrainConfig, net: &NetConfig) -> Window {
        let future = window_future(&rows, cfg);
        let reply = if net.reply_policy { reply_rows(&rows) } else { Vec::new() };
        Window { spec, rows, perm, future, reply }
    }
}

/// A training run in `<run>/`: checkpoints in `<run>/checkpoints/`, metrics in
/// `<run>/metrics.csv`, plots in `<run>/plots/`, models in `<run>/models/`.
pub struct Trainer {
    run_dir: PathBuf,
    net: NetConfig,
    cfg: TrainConfig,
    device: Device,
    model: PacoNet,
    optim: ModuleOptimizer,
    step: u64,
    samples_seen: u64,
    rng: ChaCha8Rng,
    pool: Option<Arc<rayon::ThreadPool>>,
    pos: DataPosition,
    window: Option<Window>,
    last_batch: Vec<(u64, u32)>,
    /// Only chunks whose stem sorts at or before this one are read (see
    /// [`Trainer::limit_data`]); `None`: every complete chunk.
    data_upto: Option<String>,
    /// The averaged weights that are exported (`export_average` > 0), folded
    /// at the end of each [`Trainer::train_steps`]; kept in the checkpoint.
    average: Option<PacoNet>,
}

/// Path of the checkpoint of a run.
pub fn checkpoint_path(run_dir: &Path) -> PathBuf {
    RunDir::new(run_dir).checkpoint()
}

fn build_optimizer(cfg: &TrainConfig) -> ModuleOptimizer {
    let clip = (cfg.grad_clip_norm > 0.0).then_some(GradientClippingConfig::Norm(cfg.grad_clip_norm as f32));
    match cfg.optimizer {
        OptimizerKind::Sgd => SgdConfig::new()
            .with_momentum((cfg.momentum > 0.0).then_some(MomentumConfig { momentum: cfg.momentum, dampening: 0.0, nesterov: false }))
            .with_weight_decay((cfg.weight_decay > 0.0).then_some(WeightDecayConfig { penalty: cfg.weight_decay as f32 }))
            .with_gradient_clipping(clip)
            .init(),
        OptimizerKind::Adamw => AdamWConfig::new().with_weight_decay(cfg.weight_decay as f32).with_grad_clipping(clip).init(),
    }
}

impl Trainer {
    /// Start a new run in `run_dir` with freshly initialised weights (seeded by `cfg.seed`).
    /// Refuses to overwrite an existing checkpoint (use [`Trainer::resume`]).
    pub fn new(run_dir: &Path, net: NetConfig, cfg: TrainConfig, device: &Device) -> TrainResult<Self> {
        net.validate()?;
        cfg.validate()?;
        let ckpt = checkpoint_path(run_dir);
        if ckpt.exists() {
            return Err(TrainError::Config(format!("{} already exists: resume the run instead of starting a new one", ckpt.display())));
        }
        fs::create_dir_all(run_dir).map_err(io_err(run_dir))?;
        let device = training_device(device);
        let model = net.init_seeded(&device, cfg.seed)?;
        Ok(Trainer {
            run_dir: run_dir.to_path_buf(),
            optim: build_optimizer(&cfg),
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            pool: cpu_pool(cfg.threads)?,
            net,
            cfg,
            device,
            model,
            step: 0,
            samples_seen: 0,
            pos: DataPosition::default(),
            window: None,
            last_batch: Vec::new(),
            data_upto: None,
            average: None,
        })
    }

    /// Resume the run in `run_dir` from its checkpoint, with the stored config.
    pub fn resume(run_dir: &Path, device: &Device) -> TrainResult<Self> {
        Self::resume_with(run_dir, device, None)
    }

    /// Resume, optionally replacing the training config (e.g. a new lr);
    /// the architecture always comes from the checkpoint.
    pub fn resume_with(run_dir: &Path, device: &Device, cfg: Option<TrainConfig>) -> TrainResult<Self> {
        let path = checkpoint_path(run_dir);
        let (header, mut sections) = read_container(&path, CKPT_MAGIC, "checkpoint")?;
        let bad = |m: String| TrainError::ModelFile { path: path.clone(), message: m };
        let h: CheckpointHeader = serde_json::from_value(header).map_err(|e| bad(format!("corrupt header: {e}")))?;
        trim_metrics(&RunDir::new(run_dir).metrics(), h.step)?;
        let mut take = |name: &str| -> TrainResult<Vec<u8>> {
            let i = sections.iter().position(|(n, _)| n == name).ok_or_else(|| bad(format!("no `{name}` section")))?;
            Ok(sections.swap_remove(i).1)
        };
        let model_bytes = take("model")?;
        let optim_bytes = take("optimizer")?;
        let device = training_device(device);
        let model = model_from_bytes(&path, &h.net, &device, model_bytes)?;
        // Checkpoints of runs without weight averaging have no such section.
        let average = match sections.iter().position(|(n, _)| n == "average") {
            Some(i) => Some(model_from_bytes(&path, &h.net, &device, sections.swap_remove(i).1)?),
            None => None,
        };
        let cfg = cfg.unwrap_or(h.train);
        cfg.validate()?;
        let record = OptimizerRecord::from_bytes(Bytes::from_bytes_vec(optim_bytes)).map_err(|e| bad(format!("corrupt optimizer state: {e}")))?;
        let optim = build_optimizer(&cfg).load_record(record);
        Ok(Trainer {
            run_dir: run_dir.to_path_buf(),
            net: h.net,
            pool: cpu_pool(cfg.threads)?,
            cfg,
            device,
            model,
            optim,
            step: h.step,
            samples_seen: h.samples_seen,
            rng: h.rng,
            pos: h.data,
            window: None,
            last_batch: Vec::new(),
            data_upto: None,
            average,
        })
    }

    /// Resume if `run_dir` has a checkpoint, else start a new run.
    pub fn resume_or_new(run_dir: &Path, net: NetConfig, cfg: TrainConfig, device: &Device) -> TrainResult<Self> {
        if checkpoint_path(run_dir).exists() {
            Self::resume_with(run_dir, device, Some(cfg))
        } else {
            Self::new(run_dir, net, cfg, device)
        }
    }

    /// Steps done so far.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Training samples seen so far.
    pub fn samples_seen(&self) -> u64 {
        self.samples_seen
    }

    /// Current position in the data.
    pub fn data_position(&self) -> &DataPosition {
        &self.pos
    }

    /// `(game_id, ply)` of the rows of the last batch, in batch order.
    pub fn last_batch(&self) -> &[(u64, u32)] {
        &self.last_batch
    }

    /// Architecture.
    pub fn net_config(&self) -> &NetConfig {
        &self.net
    }

    /// Training configuration.
    pub fn train_config(&self) -> &TrainConfig {
        &self.cfg
    }

    /// The model being trained.
    pub fn model(&self) -> &PacoNet {
        &self.model
    }

    /// Run directory.
    pub fn run_dir(&self) -> &Path {
        &self.run_dir
    }

    /// Reads only the chunks of the data directory whose stems sort at or
    /// before `upto` (chunk stems begin with their creation time), from now
    /// on: the loop's overlapped generations train on the chunks that were
    /// complete when the generation began while self-play adds more, so the
    /// trained network does not depend on how far self-play got.
    pub fn limit_data(&mut self, upto: Option<String>) {
        self.data_upto = upto;
    }

    /// The complete chunks of `data_dir` this trainer may read, in stem order.
    fn chunks(&self, data_dir: &Path) -> TrainResult<Vec<ChunkInfo>> {
        let mut all = list_chunks(data_dir)?;
        if let Some(upto) = &self.data_upto {
            all.retain(|c| c.stem.as_str() <= upto.as_str());
        }
        Ok(all)
    }

    fn load_window(&mut self, data_dir: &Path) -> TrainResult<()> {
        let chunks = self.chunks(data_dir)?;
        let mut total = 0u64;
        for c in &chunks {
            total += c.num_positions()?;
        }
        if total < self.cfg.min_positions as u64 || total == 0 {
            return Err(TrainError::NotEnoughData(format!(
                "{}: {total} positions in complete chunks, train.min_positions = {}",
                data_dir.display(),
                self.cfg.min_positions
            )));
        }
        let size = self.cfg.window_size(total);
        let w = read_positions_window_of(data_dir, &chunks, size)?;
        self.net.check_spec(&w.spec)?;
        let perm_seed = self.rng.next_u64();
        self.pos = DataPosition {
            chunks: w.chunks.clone(),
            window_rows: w.rows.len(),
            perm_seed,
            cursor: 0,
            loaded_at_step: self.step,
            windows_loaded: self.pos.windows_loaded + 1,
        };
        let perm = permutation(w.rows.len(), perm_seed);
        self.window = Some(Window::new(w.spec, w.rows, perm, &self.cfg, &self.net));
        Ok(())
    }

    /// Re-read exactly the window described by `self.pos` (after a resume).
    fn reload_exact(&mut self, data_dir: &Path) -> TrainResult<()> {
        let all = list_chunks(data_dir)?;
        let mut rows = Vec::new();
        let mut spec = None;
        for stem in &self.pos.chunks {
            let c = all.iter().find(|c| &c.stem == stem).ok_or_else(|| {
                TrainError::NotEnoughData(format!(
                    "{}: chunk `{stem}` of the checkpointed window is gone; cannot resume at the same data position",
                    data_dir.display()
                ))
            })?;
            let (s, r) = read_positions_file(&c.positions_path)?;
            spec = Some(s);
            rows.extend(r);
        }
        if rows.len() < self.pos.window_rows {
            return Err(TrainError::NotEnoughData(format!(
                "{}: checkpointed window had {} rows, its chunks now hold {}",
                data_dir.display(),
                self.pos.window_rows,
                rows.len()
            )));
        }
        rows.drain(..rows.len() - self.pos.window_rows);
        let spec = spec.ok_or_else(|| TrainError::NotEnoughData("checkpointed window is empty".into()))?;
        self.net.check_spec(&spec)?;
        let perm = permutation(rows.len(), self.pos.perm_seed);
        self.window = Some(Window::new(spec, rows, perm, &self.cfg, &self.net));
        Ok(())
    }

    fn next_batch_indices(&mut self, data_dir: &Path) -> TrainResult<Vec<u32>> {
        if self.window.is_none() {
            if self.pos.windows_loaded > 0 {
                self.reload_exact(data_dir)?;
            } else {
                self.load_window(data_dir)?;
            }
        }
        let len = self.window.as_ref().map(|w| w.rows.len()).unwrap_or(0);
        let bs = self.cfg.batch_size.min(len.max(1));
        let stale = self.cfg.reload_every_steps > 0 && self.step - self.pos.loaded_at_step >= self.cfg.reload_every_steps;
        if self.pos.cursor + bs > len || stale {
            self.load_window(data_dir)?;
        }
        let w = self.window.as_ref().expect("window loaded");
        let bs = self.cfg.batch_size.min(w.rows.len());
        let idx = w.perm[self.pos.cursor..self.pos.cursor + bs].to_vec();
        self.pos.cursor += bs;
        Ok(idx)
    }

    /// Train `steps` steps on the data of `data_dir`, appending metrics to
    /// `<run>/metrics.csv`, redrawing plots and writing checkpoints as configured.
    /// A checkpoint and the plots are always written at the end.
    pub fn train_steps(&mut self, data_dir: &Path, steps: u64) -> TrainResult<TrainSummary> {
        let bar = if self.cfg.progress {
            let b = indicatif::ProgressBar::new(steps);
            b.set_style(
                indicatif::ProgressStyle::with_template("{spinner} train [{bar:30}] {pos}/{len} {msg} ({elapsed}<{eta})")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            b
        } else {
            indicatif::ProgressBar::hidden()
        };
        let mut summary = TrainSummary::default();
        let start = Instant::now();
        let mut loss_sum = 0.0;
        let samples_before = self.samples_seen;
        for i in 0..steps {
            let m = self.one_step(data_dir)?;
            loss_sum += m.loss;
            if i == 0 {
                summary.first = m.clone();
            }
            if self.step.is_multiple_of(self.cfg.metrics_every) || i + 1 == steps {
                append_metrics(&RunDir::new(&self.run_dir).metrics(), &m)?;
            }
            bar.set_message(format!("loss {:.4} pol {:.3} val {:.3} {:.0} samples/s", m.loss, m.policy_loss, m.value_loss, m.samples_per_sec));
            bar.inc(1);
            if self.cfg.checkpoint_every > 0 && self.step.is_multiple_of(self.cfg.checkpoint_every) && i + 1 < steps {
                self.save_checkpoint()?;
            }
            if self.cfg.plot_every > 0 && self.step.is_multiple_of(self.cfg.plot_every) && i + 1 < steps {
                self.plot()?;
            }
            summary.last = m;
        }
        bar.finish_and_clear();
        if steps > 0 {
            self.average = fold_average(self.average.take(), &self.model, self.cfg.export_average as f32, &self.net, &self.device, &self.run_dir)?;
            self.save_checkpoint()?;
            self.plot()?;
        }
        summary.steps = steps;
        summary.mean_loss = if steps > 0 { loss_sum / steps as f64 } else { 0.0 };
        let secs = start.elapsed().as_secs_f64();
        summary.samples_per_sec = (self.samples_seen - samples_before) as f64 / secs.max(1e-9);
        Ok(summary)
    }

    fn one_step(&mut self, data_dir: &Path) -> TrainResult<StepMetrics> {
        let t0 = Instant::now();
        let idx = self.next_batch_indices(data_dir)?;
        let w = self.window.as_ref().expect("window loaded");
        let targets = Targets { q_mix: self.cfg.value_q_mix as f32, horizon_mix: self.cfg.value_horizon_mix as f32, future: &w.future, reply: &w.reply };
        // A coin per (step, row) from the seed: no draw from the trainer's
        // generator, so runs without augmentation are unchanged and a
        // resumed run mirrors the same rows.
        let (seed, step, mirror) = (self.cfg.seed, self.step, self.cfg.mirror_augment);
        let batch = Batch::build_mirrored(&w.spec, &w.rows, &idx, &targets, &|k| mirror && mirror_coin(seed, step, k));
        self.last_batch = idx.iter().map(|&i| (w.rows[i as usize].game_id, w.rows[i as usize].ply)).collect();
        let window_rows = w.rows.len();
        let lr = self.cfg.lr_at(self.step);
        let cfg = self.cfg.clone();
        let device = self.device.clone();
        let model = self.model.clone();
        let pool = self.pool.clone();
        let optim = &mut self.optim;
        let (model, mut m) = in_pool(&pool, || train_step(model, optim, &batch, &cfg, lr, &device));
        self.model = model;
        self.step += 1;
        self.samples_seen += idx.len() as u64;
        m.step = self.step;
        m.samples_seen = self.samples_seen;
        m.lr = lr;
        m.window_rows = window_rows;
        m.samples_per_sec = idx.len() as f64 / t0.elapsed().as_secs_f64().max(1e-9);
        if !m.loss.is_finite() {
            return Err(TrainError::Other(format!("loss is {} at step {}; lower train.lr?", m.loss, self.step)));
        }
        Ok(m)
    }

    /// Losses on the positions of the chunks newer than the current window:
    /// games the network has never trained on, the honest measure of how it
    /// generalises (training losses fall while a network memorises the
    /// results of the few games of a small window). `max_rows` positions at
    /// most, evenly spread over those chunks. `None` before the first window
    /// (no trained network) and when there are no newer chunks.
    pub fn fresh_data_loss(&self, data_dir: &Path, max_rows: usize) -> TrainResult<Option<FreshLoss>> {
        let Some(newest) = self.pos.chunks.last() else { return Ok(None) };
        let all = self.chunks(data_dir)?;
        let Some(at) = all.iter().position(|c| &c.stem == newest) else { return Ok(None) };
        let fresh = &all[at + 1..];
        if fresh.is_empty() || max_rows == 0 {
            return Ok(None);
        }
        let mut rows = Vec::new();
        let mut spec = None;
        for c in fresh {
            let (s, r) = read_positions_file(&c.positions_path)?;
            spec = Some(s);
            rows.extend(r);
        }
        let spec = spec.expect("at least one chunk");
        self.net.check_spec(&spec)?;
        let take = rows.len().min(max_rows);
        if take == 0 {
            return Ok(None);
        }
        // Evenly spread: row i·len/take for i < take.
        let idx: Vec<u32> = (0..take).map(|i| (i * rows.len() / take) as u32).collect();
        let (mut policy, mut value, mut top1) = (0.0, 0.0, 0.0);
        let (mut policy_rows, mut top1_rows, mut total_weight) = (0.0, 0.0, 0.0);
        let mut calib = Calibration::default();
        for part in idx.chunks(self.cfg.batch_size.max(1)) {
            let b = Batch::build(&spec, &rows, part, 0.0);
            let (model, cfg, device) = (self.played(), &self.cfg, &self.device);
            let (l, stats, wdl) = in_pool(&self.pool, || {
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
        Ok(Some(FreshLoss {
            rows: take,
            chunks: fresh.len(),
            policy_loss: div(policy, policy_rows),
            value_loss: div(value, total_weight),
            policy_top1: div(top1, top1_rows),
            result_share,
            mean_wdl,
            value_loss_by_result,
            base_rate_loss,
        }))
    }

    /// Redraw `<run>/plots/*.png` from `<run>/metrics.csv`.
    pub fn plot(&self) -> TrainResult<Vec<PathBuf>> {
        let run = RunDir::new(&self.run_dir);
        if !run.metrics().exists() {
            return Ok(Vec::new());
        }
        write_plots(&run.metrics(), &run.plots())
    }

    /// Write `<run>/checkpoints/latest.pzckpt` atomically.
    pub fn save_checkpoint(&self) -> TrainResult<PathBuf> {
        let path = checkpoint_path(&self.run_dir);
        let model = record_bytes(&self.model)?;
        let optim = self.optim.into_bytes().map_err(|e| TrainError::Other(format!("cannot serialise the optimizer: {e}")))?.to_vec();
        let average = self.average.as_ref().map(record_bytes).transpose()?;
        let mut parts: Vec<(&str, &[u8])> = vec![("model", &model), ("optimizer", &optim)];
        if let Some(a) = &average {
            parts.push(("average", a));
        }
        let header = CheckpointHeader {
            kind: "pacozero-checkpoint".into(),
            net: self.net.clone(),
            train: self.cfg.clone(),
            step: self.step,
            samples_seen: self.samples_seen,
            rng: self.rng.clone(),
            data: self.pos.clone(),
            sections: sections_of(&parts),
        };
        let header = serde_json::to_value(&header).map_err(|e| TrainError::Other(e.to_string()))?;
        write_container(&path, CKPT_MAGIC, &header, &parts)?;
        Ok(path)
    }

    /// Export the current weights as `<run>/models/<name>.pzmodel`, optionally
    /// making it the `current` model.
    pub fn export(&self, name: &str, make_current: bool) -> TrainResult<PathBuf> {
        let info = ModelInfo { name: name.to_string(), step: self.step, samples_seen: self.samples_seen };
        Ok(export_to_run(&self.run_dir, self.played(), &self.net, &info, make_current)?)
    }

    /// The weights that are exported and played: the average with
    /// `export_average` > 0 (once folded), else the trained ones. The fresh
    /// loss measures these, since they are what played the fresh games.
    pub fn played(&self) -> &PacoNet {
        self.average.as_ref().unwrap_or(&self.model)
    }
}

/// Heads or tails for row `k` of the batch of `step` (SplitMix64 of both and the seed).
fn mirror_coin(seed: u64, step: u64, k: usize) -> bool {
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
    pub sako: Tensor<1>,
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

    let d = out.moves_left - t2(&b.moves_left, [n, 1], device); // [B, 1]
    let moves_left = (d.clone() * d * row_w.clone()).sum().div_scalar(sum_w); // [1]

    let z = out.sako; // [B, 2]
    let t = t2(&b.sako, [n, 2], device); // [B, 2]
                                         // Stable BCE with logits: max(z,0) - z*t + ln(1 + e^-|z|).
    let bce = relu(z.clone()) - z.clone() * t + (z.abs().neg().exp() + 1.0).log(); // [B, 2]
    let sako = (bce.sum_dim(1) * row_w).sum().div_scalar(2.0 * sum_w); // [1]

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
        + sako.clone().mul_scalar(cfg.sako_weight); // [1]
    if let Some(r) = &reply {
        total = total + r.clone().mul_scalar(cfg.reply_policy_weight);
    }
    Losses { total, policy, value, moves_left, sako, reply, masked_logits: masked, wdl_prob: softmax(out.wdl, 1) }
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

fn train_step(model: PacoNet, optim: &mut ModuleOptimizer, b: &Batch, cfg: &TrainConfig, lr: f64, device: &Device) -> (PacoNet, StepMetrics) {
    let l = losses(&model, b, cfg, device);
    let grads = l.total.backward();
    let grads = GradientsParams::from_grads(grads, &model);
    let model = optim.step(lr, model, grads);
    let mut m = StepMetrics {
        loss: scalar(l.total),
        policy_loss: scalar(l.policy),
        value_loss: scalar(l.value),
        moves_left_loss: scalar(l.moves_left),
        sako_loss: scalar(l.sako),
        reply_policy_loss: l.reply.map_or(f64::NAN, scalar),
        ..Default::default()
    };
    let logits = l.masked_logits.detach().into_data();
    let wdl = l.wdl_prob.detach().into_data();
    batch_stats(b, logits.as_slice::<f32>().unwrap_or(&[]), wdl.as_slice::<f32>().unwrap_or(&[]), &mut m);
    (model, m)
}
