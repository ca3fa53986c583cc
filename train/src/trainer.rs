//! The training loop: [`Trainer`], its state, resume and checkpoints.
//!
//! Each step takes `batch_size` rows from a shuffled sliding window of the most
//! recent positions on disk, computes the four losses, and applies one
//! optimizer step. Everything needed to continue exactly where a run stopped
//! (weights, optimizer state, step, samples seen, RNG state and the position in
//! the current shuffled window) is in the checkpoint. `metrics.csv` gets one
//! row per step; resuming drops its rows past the checkpoint's step (the
//! steps a killed run did after its last checkpoint are redone), so every
//! step appears at most once, in increasing order.
//!
//! This module holds the state and the data it reads; what a step computes
//! (`losses`), the metrics file (`metrics`) and weight averaging (`average`)
//! are sibling modules it uses, none of which uses it.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use burn::grad_clipping::GradientClippingConfig;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamWConfig, ModuleOptimizer, OptimizerRecord, SgdConfig};
use burn::prelude::*;
use burn::tensor::Bytes;
use pacozero_batch::targets::{reply_rows, window_future, Targets};
use pacozero_batch::{permutation, Batch};
use pacozero_data::tfevents::EventWriter;
use pacozero_data::{list_chunks, read_positions_file, read_positions_window_of, total_positions, ChunkInfo, GameSpec, PositionRow, RunDir};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::average::fold_average;
use crate::backend::{training_device, training_pool};
use crate::error::{io_err, TrainError, TrainResult};
use crate::losses::{fresh_loss, mirror_coin, train_step, FreshLoss};
use crate::metrics::{append_metrics, trim_metrics, StepMetrics};
use pacozero_batch::{OptimizerKind, TrainConfig};
use pacozero_nn::backend::{in_pool, inference_device};
use pacozero_nn::modelfile::{
    check_record, export_to_run, model_from_bytes, parse_container, record_bytes, sections_of, write_container, ModelInfo, RecordKind, Section, CKPT_MAGIC,
};
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
pub(crate) struct CheckpointHeader {
    kind: String,
    net: NetConfig,
    pub(crate) train: TrainConfig,
    step: u64,
    samples_seen: u64,
    rng: ChaCha8Rng,
    data: DataPosition,
    sections: Vec<Section>,
}

/// A checkpoint file read and checked, before a trainer is built on it.
pub(crate) struct Checkpoint {
    pub(crate) header: CheckpointHeader,
    pub(crate) model: PacoNet,
    /// The averaged weights (runs with `export_average` only).
    pub(crate) average: Option<PacoNet>,
    pub(crate) optimizer: OptimizerRecord,
}

impl Checkpoint {
    /// Reads the bytes of a checkpoint (`path` names it in errors): the
    /// container, the header, the weights on `device` and the optimizer's
    /// state. The data position must lie inside its window, and the step
    /// its window was loaded at no later than the checkpoint's: the
    /// trainer indexes and subtracts with them.
    pub(crate) fn parse(path: &Path, data: &[u8], device: &Device) -> TrainResult<Checkpoint> {
        let (header, mut sections) = parse_container(path, data, CKPT_MAGIC, "checkpoint")?;
        let bad = |m: String| TrainError::ModelFile { path: path.to_path_buf(), message: m };
        let h: CheckpointHeader = serde_json::from_value(header).map_err(|e| bad(format!("corrupt header: {e}")))?;
        if h.data.cursor > h.data.window_rows {
            return Err(bad(format!("header field `data.cursor` = {} is past the window's {} rows (`data.window_rows`)", h.data.cursor, h.data.window_rows)));
        }
        if h.data.loaded_at_step > h.step {
            return Err(bad(format!("header field `data.loaded_at_step` = {} is after the checkpoint's step {}", h.data.loaded_at_step, h.step)));
        }
        let mut take = |name: &str| -> TrainResult<Vec<u8>> {
            let i = sections.iter().position(|(n, _)| n == name).ok_or_else(|| bad(format!("no `{name}` section")))?;
            Ok(sections.swap_remove(i).1)
        };
        let model_bytes = take("model")?;
        let optim_bytes = take("optimizer")?;
        let model = model_from_bytes(path, &h.net, device, model_bytes)?;
        // Checkpoints of runs without weight averaging have no such section.
        let average = match sections.iter().position(|(n, _)| n == "average") {
            Some(i) => Some(model_from_bytes(path, &h.net, device, sections.swap_remove(i).1)?),
            None => None,
        };
        check_record(&optim_bytes, RecordKind::OptimizerState).map_err(|e| bad(format!("corrupt optimizer state: {e}")))?;
        let optimizer = OptimizerRecord::from_bytes(Bytes::from_bytes_vec(optim_bytes)).map_err(|e| bad(format!("corrupt optimizer state: {e}")))?;
        Ok(Checkpoint { header: h, model, average, optimizer })
    }
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
/// `<run>/metrics.csv` and TensorBoard events in `<run>/tensorboard/train/`, models in `<run>/models/`.
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
    /// Load a new window before the next batch ([`Trainer::refresh_window_loaded_before`]).
    refresh_window: bool,
    /// The averaged weights that are exported (`export_average` > 0), folded
    /// at the end of each [`Trainer::train_steps`]; kept in the checkpoint.
    average: Option<PacoNet>,
    /// TensorBoard scalars of this process (`tensorboard/train/`), opened at
    /// the first step written.
    events: Option<EventWriter>,
}

/// Path of the checkpoint of a run.
pub fn checkpoint_path(run_dir: &Path) -> PathBuf {
    RunDir::new(run_dir).checkpoint()
}

pub(crate) fn build_optimizer(cfg: &TrainConfig) -> ModuleOptimizer {
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
        // Rows of an attempt that stopped before its first checkpoint (a full
        // disk, a kill) would be written again: the run starts from step 0.
        trim_metrics(&RunDir::new(run_dir).metrics(), 0)?;
        let device = training_device(device);
        let model = net.init_seeded(&device, cfg.seed)?;
        Ok(Trainer {
            run_dir: run_dir.to_path_buf(),
            optim: build_optimizer(&cfg),
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            pool: training_pool(cfg.threads)?,
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
            refresh_window: false,
            average: None,
            events: None,
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
        let data = fs::read(&path).map_err(io_err(&path))?;
        let device = training_device(device);
        let Checkpoint { header: h, model, average, optimizer } = Checkpoint::parse(&path, &data, &device)?;
        trim_metrics(&RunDir::new(run_dir).metrics(), h.step)?;
        let cfg = cfg.unwrap_or(h.train);
        cfg.validate()?;
        let optim = build_optimizer(&cfg).load_record(optimizer);
        Ok(Trainer {
            run_dir: run_dir.to_path_buf(),
            net: h.net,
            pool: training_pool(cfg.threads)?,
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
            refresh_window: false,
            average,
            events: None,
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
        let total = total_positions(&chunks)?;
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

    /// Loads a new window (with the newest games) before the next batch
    /// unless the current one was loaded at or after `step`: a stage that
    /// starts at `step` trains on the games played up to it, and one resumed
    /// from a checkpoint inside it keeps the window it loaded.
    pub fn refresh_window_loaded_before(&mut self, step: u64) {
        self.refresh_window = self.pos.windows_loaded > 0 && self.pos.loaded_at_step < step;
    }

    fn next_batch_indices(&mut self, data_dir: &Path) -> TrainResult<Vec<u32>> {
        if std::mem::take(&mut self.refresh_window) {
            self.load_window(data_dir)?;
        } else if self.window.is_none() {
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
    /// `<run>/metrics.csv` (and the TensorBoard events), writing checkpoints as
    /// configured. A checkpoint is always written at the end.
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
                self.events_of_step(&m)?;
            }
            bar.set_message(format!("loss {:.4} pol {:.3} val {:.3} {:.0} samples/s", m.loss, m.policy_loss, m.value_loss, m.samples_per_sec));
            bar.inc(1);
            if self.cfg.checkpoint_every > 0 && self.step.is_multiple_of(self.cfg.checkpoint_every) && i + 1 < steps {
                self.save_checkpoint()?;
            }
            summary.last = m;
        }
        bar.finish_and_clear();
        if steps > 0 {
            self.average = fold_average(self.average.take(), &self.model, self.cfg.export_average as f32, &self.net, &self.device, &self.run_dir)?;
            self.save_checkpoint()?;
        }
        summary.steps = steps;
        summary.mean_loss = if steps > 0 { loss_sum / steps as f64 } else { 0.0 };
        let secs = start.elapsed().as_secs_f64();
        summary.samples_per_sec = (self.samples_seen - samples_before) as f64 / secs.max(1e-9);
        Ok(summary)
    }

    /// A step's scalars in the run's TensorBoard events (as its `metrics.csv` row).
    fn events_of_step(&mut self, m: &StepMetrics) -> TrainResult<()> {
        if self.events.is_none() {
            self.events = Some(EventWriter::create(&RunDir::new(&self.run_dir).tensorboard("train"))?);
        }
        let w = self.events.as_mut().expect("opened above");
        w.scalars(m.step as i64, &m.scalars())?;
        Ok(())
    }

    fn one_step(&mut self, data_dir: &Path) -> TrainResult<StepMetrics> {
        let t0 = Instant::now();
        let idx = self.next_batch_indices(data_dir)?;
        let batch = self.batch_of(&idx);
        let w = self.window.as_ref().expect("window loaded");
        self.last_batch = idx.iter().map(|&i| (w.rows[i as usize].game_id, w.rows[i as usize].ply)).collect();
        let window_rows = w.rows.len();
        let lr = self.cfg.lr_at(self.step);
        let cfg = self.cfg.clone();
        let device = self.device.clone();
        let model = self.model.clone();
        let pool = self.pool.clone();
        let optim = &mut self.optim;
        let (model, mut m) = in_pool(&pool, || train_step(model, optim, &batch, &cfg, lr, &device));
        // burn keeps batch normalisation's running statistics per thread and
        // averages them only on a sync; the pool runs each step on whichever
        // worker is free, so without a sync here a step on another worker
        // would start from stale statistics (and runs would differ by thread
        // schedule). `valid` syncs the shared state; its copy is dropped.
        let _ = model.valid();
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

    /// The batch of the window's rows `idx` at this step: with
    /// `mirror_augment`, each row mirrored when its coin says so.
    fn batch_of(&self, idx: &[u32]) -> Batch {
        let w = self.window.as_ref().expect("window loaded");
        let targets = Targets { q_mix: self.cfg.value_q_mix as f32, horizon_mix: self.cfg.value_horizon_mix as f32, future: &w.future, reply: &w.reply };
        // A coin per (step, row) from the seed: no draw from the trainer's
        // generator, so runs without augmentation are unchanged and a
        // resumed run mirrors the same rows.
        let (seed, step, mirror) = (self.cfg.seed, self.step, self.cfg.mirror_augment);
        Batch::build_mirrored(&w.spec, &w.rows, idx, &targets, &|k| mirror && mirror_coin(seed, step, k))
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
        // Measured as the network plays: on the inference device, where
        // batch normalisation uses its running statistics. On the training
        // device it would normalise by each measuring batch (the figures
        // would depend on the batch size) and update the running statistics.
        let device = inference_device(&self.device);
        let model = self.played().valid().to_device(&device);
        let loss = fresh_loss(&model, &spec, &rows, take, &self.cfg, &device, &self.pool);
        Ok(Some(FreshLoss { chunks: fresh.len(), ..loss }))
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
        let info = ModelInfo { name: name.to_string(), step: self.step, samples_seen: self.samples_seen, provenance: Some(pacozero_nn::provenance()) };
        Ok(export_to_run(&self.run_dir, self.played(), &self.net, &info, make_current)?)
    }

    /// The weights that are exported and played: the average with
    /// `export_average` > 0 (once folded), else the trained ones. The fresh
    /// loss measures these, since they are what played the fresh games.
    pub fn played(&self) -> &PacoNet {
        self.average.as_ref().unwrap_or(&self.model)
    }
}

#[cfg(test)]
mod tests;
