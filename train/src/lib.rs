//! # PacoZero trainer
//!
//! Training of the burn networks of `pacozero_nn` (architecture, model
//! files, backends and inference live there): the training loop
//! ([`Trainer`], [`TrainConfig`]), checkpoints, metrics, and a speed
//! benchmark of inference and training ([`bench_net`]). burn is linked with
//! `autodiff` and `optim` here only; autodiff devices come from
//! [`backend::training_device`]. The cargo feature `tch` forwards to
//! `pacozero-nn/tch`.
//!
//! ## Modules
//! * `trainer`: [`Trainer`] (state, data window, steps, resume, checkpoints,
//!   export);
//! * `losses`: the losses below and one optimizer step on a batch, accuracy
//!   and calibration figures, [`FreshLoss`];
//! * `metrics`: `metrics.csv` ([`StepMetrics`]);
//! * `average`: weight averaging (`export_average`);
//! * `bench`: [`bench_net`]; `files`: the training file ([`TrainFile`]);
//!   `error`: the trainer's errors; [`backend`]: the autodiff devices.
//!
//! ## Losses (per batch; `w` = row weight)
//! * policy: cross-entropy between the search policy and the softmax of the
//!   logits with illegal slots masked, on rows with `full_search` only,
//!   weighted by `w` and normalised by the sum of those weights;
//! * value: cross-entropy of the WDL logits against the one-hot game result,
//!   optionally mixed with `root_wdl` (`value_q_mix`) and with the root's
//!   WDL some decisions later (`value_horizon`, `value_horizon_mix`; see
//!   [`targets`]); a truncated game's rows (cut at their length cap) take
//!   their `root_wdl` in the result's place;
//! * moves-left: squared error on `ln(1 + moves_left)`, weighted by `w` and
//!   normalised by the sum of those weights, without a truncated game's
//!   rows (`Batch::moves_left_w`);
//! * sako: binary cross-entropy on the game's auxiliary targets
//!   (`Encode::AUX_TARGETS`, the data's `aux_targets` column), the mean over
//!   them (the name, the `sako_weight` key and `metrics.csv`'s `sako_loss`
//!   column are from Paco Ŝako's two, kept so configurations and earlier
//!   runs' metrics read on).
//!
//! Total = `policy_weight·policy + value_weight·value + moves_left_weight·ml + sako_weight·sako`;
//! weight decay is part of the optimizer.
//!
//! ## Run directory
//! The trainer writes `checkpoints/latest.pzckpt`, `metrics.csv` and, on export, `models/<name>.pzmodel` and `models/current` of a run
//! directory; `pacozero_data::run_dir` names every path of a run and
//! documents them in one table. The plots of a run are the report's
//! (`pacozero_run::report`), drawn from `metrics.csv`.

mod average;
pub mod backend;
mod bench;
mod error;
mod files;
/// The check of the fuzz target `checkpoint` in `fuzz/` (not an API).
#[doc(hidden)]
pub mod fuzz_checks;
mod losses;
mod metrics;
mod trainer;

pub use bench::{bench_net, BenchLine, BenchOptions, BenchReport};
pub use error::{TrainError, TrainResult};
pub use files::{load_train_file, train_run, train_run_with, train_stage, Export, NetTable, Steps, TrainFile, TrainRun, TrainStage};
pub use losses::{FreshLoss, FRESH_LOSS_ROWS};
pub use metrics::StepMetrics;
pub use pacozero_batch::{permutation, targets, Batch, LrSchedule, OptimizerKind, Targets, TrainConfig};
pub use trainer::{checkpoint_path, DataPosition, TrainSummary, Trainer};
