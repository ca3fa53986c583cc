//! # PacoZero training batches
//!
//! What a network is trained on, built from `pacozero_data` rows with no
//! network code and no autodiff, so that the trainer (`pacozero_train`) and
//! the Python package's data iterator build the same batches while the
//! Python package links only inference and data:
//!
//! | module | what |
//! |---|---|
//! | [`config`] | [`TrainConfig`], the `[train]` table: optimiser, schedule, window, loss weights, targets |
//! | [`targets`] | value and reply-policy targets that come from other rows of the same game |
//! | [`batch`](mod@batch) | [`Batch`]: rows decoded into one step's host tensors, mirrored by the game's symmetry; [`permutation`], the order of a window's rows |

pub mod batch;
pub mod config;
pub mod targets;

pub use batch::{permutation, Batch};
pub use config::{ConfigError, LrSchedule, OptimizerKind, TrainConfig, MAX_WINDOW};
pub use targets::Targets;
