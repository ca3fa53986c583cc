//! # PacoZero trainer
//!
//! burn networks for PacoZero: architecture ([`NetConfig`], [`PacoNet`]),
//! training ([`Trainer`], [`TrainConfig`]), model files ([`export_model`],
//! [`load_model`], the `<run>/models/current` pointer), batched inference for
//! self-play ([`Network`]) and a speed benchmark ([`bench_net`]).
//!
//! ## Backends
//!
//! Chosen in one place, [`backend`]: the default build uses burn's pure-Rust
//! **flex** CPU backend. The cargo feature `tch` adds LibTorch (CPU or CUDA);
//! it needs `LIBTORCH=/path/to/libtorch` at build time (see
//! `scripts/setup-libtorch.sh`). Threads: see [`backend`].
//!
//! ## Network
//!
//! Input `[B, bit_planes + scalars, H, W]` (the decoder of `pacozero_data`) →
//! 3x3 conv + BN + ReLU → `blocks` residual blocks (conv-BN-ReLU-conv-BN,
//! squeeze-excitation with global average pooling giving a per-channel scale
//! and bias, skip, ReLU) → heads:
//! * policy: 1x1 conv (`policy_channels`) + BN + ReLU → linear → `policy_size` logits;
//! * value trunk: 1x1 conv (`value_channels`) + BN + ReLU → linear (`value_hidden`) + ReLU, then
//!   * WDL: 3 logits (win, draw, loss for the mover),
//!   * moves-left: 1 output predicting `ln(1 + moves_left)`,
//!   * sako: 2 logits (`mover_in_sako`, `mover_can_paco`).
//!
//! ## Losses (per batch; `w` = row weight)
//! * policy: cross-entropy between the search policy and the softmax of the
//!   logits with illegal slots masked, on rows with `full_search` only,
//!   weighted by `w` and normalised by the sum of those weights;
//! * value: cross-entropy of the WDL logits against the one-hot game result
//!   (optionally mixed with `root_wdl`, `value_q_mix`);
//! * moves-left: squared error on `ln(1 + moves_left)`;
//! * sako: binary cross-entropy on the two flags (mean of the two).
//!
//! Total = `policy_weight·policy + value_weight·value + moves_left_weight·ml + sako_weight·sako`;
//! weight decay is part of the optimizer.
//!
//! ## Run directory
//! ```text
//! <run>/checkpoints/latest.pzckpt   resumable checkpoint (atomic)
//! <run>/metrics.csv                 one row per step (see train::METRICS_HEADER)
//! <run>/plots/*.png                 losses, accuracy, calibration, lr, speed (see plots::PLOTS)
//! <run>/models/<name>.pzmodel       exported models (atomic)
//! <run>/models/current              name of the current best model (atomic)
//! ```

pub mod backend;
mod bench;
mod config;
mod error;
mod fastnet;
mod infer;
mod model;
mod modelfile;
pub mod plots;
mod train;

pub use backend::{default_device, device_from_name};
pub use bench::{bench_net, BenchLine, BenchOptions, BenchReport};
pub use config::{LrSchedule, OptimizerKind, TrainConfig};
pub use error::{TrainError, TrainResult};
pub use fastnet::{FastNet, FastOutput};
pub use infer::{EvalInput, Evaluation, Network};
pub use model::{NetConfig, NetOutput, PacoNet};
pub use modelfile::{
    current_model, export_model, export_to_run, load_model, model_header_of, model_path, models_dir, read_model_header, set_current_model, ModelInfo,
    MODEL_EXT, MODEL_FORMAT_VERSION,
};
pub use train::{checkpoint_path, permutation, Batch, DataPosition, FreshLoss, StepMetrics, TrainSummary, Trainer, FRESH_LOSS_ROWS};

/// Re-export of burn's device type so callers need not depend on burn.
pub use burn::tensor::Device;
