//! # PacoZero networks
//!
//! Everything a self-play worker needs to run a network, without the
//! trainer: architecture ([`NetConfig`], [`PacoNet`]), model files
//! ([`export_model`], [`load_model`], the `<run>/models/current` pointer),
//! the backend choice ([`backend`]), batched inference ([`Network`], on the
//! CPU through [`FastNet`]) and the search's leaf evaluator
//! ([`NetworkEvaluator`], implementing `pacozero_search::Evaluator`);
//! finding a network by file, run directory or reference name, and the game
//! it plays ([`load`]).
//! Training, checkpoints and metrics are in `pacozero_train`, which builds
//! on this crate; a run's plots are its report's (`pacozero_run`).
//!
//! burn is linked without `autodiff` and `optim`: inference needs neither
//! (the trainer turns them on for its own build).
//!
//! ## Modules
//!
//! | module | what |
//! |---|---|
//! | `model` | the burn network [`PacoNet`] and its [`NetConfig`] |
//! | `infer` | [`Network`]: batched inference for the search |
//! | `evaluator` | [`NetworkEvaluator`]: the search's `Evaluator` on a network |
//! | `fastnet`, `weights`, `stem`, `conv3x3`, `winograd`, `conv3x3_i8`, `sparse_fc` | [`FastNet`], the plain-Rust CPU forward pass: weights read by name (batch norms folded), the stem from the input's nonzero values, the direct 3x3 convolution in fp32 and in int8, Winograd's for wide fp32 layers, the heads' fully connected layers from their nonzero inputs |
//! | [`precision`] | [`NetPrecision`]: fp32, int8 or auto, and the process's choice |
//! | [`modelfile`], [`load`] | model files; finding a network by file, run or reference name |
//! | [`onnx`] | ONNX export, and the graph builder the platform's file (`pacozero_platform::onnx`) extends |
//! | [`backend`] | the burn backend and threads |
//! | `error` | [`NnError`] |
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
//! * policy: 1x1 conv (`policy_channels`) + BN + ReLU → linear → `policy_size` logits
//!   (with `reply_policy`, a second linear layer on the same features: the
//!   opponent's reply, an auxiliary target search does not use); or with
//!   `policy_head = "conv"`: 3x3 conv (`policy_channels`) + BN + ReLU → 1x1
//!   conv (with bias) to the game's policy planes (`Encode::policy_planes`)
//!   → each slot's logit gathered from its plane and square (or a plane's
//!   mean), and the reply head a second 1x1 conv;
//! * value trunk: 1x1 conv (`value_channels`) + BN + ReLU → (with
//!   `value_pool`: each channel's mean and maximum over the board, KataGo's
//!   global pooling) → linear (`value_hidden`) + ReLU, then
//!   * WDL: 3 logits (win, draw, loss for the mover),
//!   * moves-left: 1 output predicting `ln(1 + moves_left)`,
//!   * aux: one logit per auxiliary target of the game
//!     (`NetConfig::aux_targets`, the data spec's `aux_targets`).
//!
//! ## Model files
//!
//! Layout and checks in [`modelfile`]; the trainer's checkpoints use the same
//! container.
//! ```text
//! <run>/models/<name>.pzmodel       exported models (atomic)
//! <run>/models/current              name of the current best model (atomic)
//! ```

pub mod backend;
mod conv3x3;
mod conv3x3_i8;
mod error;
mod evaluator;
mod fastnet;
/// The checks of the fuzz targets in `fuzz/` (not an API).
#[doc(hidden)]
pub mod fuzz_checks;
mod infer;
pub mod load;
mod model;
pub mod modelfile;
pub mod onnx;
pub mod precision;
mod sparse_fc;
mod stem;
mod weights;
mod winograd;

pub use backend::{backend_name, check_backend, default_device, device_from_name, provenance};
pub use conv3x3_i8::Int8Kernel;
pub use error::{NnError, NnResult};
pub use evaluator::NetworkEvaluator;
pub use fastnet::{FastNet, FastOutput};
pub use infer::{EvalInput, Evaluation, HeadOutputs, Network};
pub use load::{
    config_game, load_evaluator, load_evaluator_spec, load_network, model_of_spec, network_game, network_with_playouts, reference_dir, reference_model,
    resolve_model,
};
pub use model::{NetConfig, NetOutput, PacoNet, PolicyHead};
pub use modelfile::{
    current_model, export_model, export_to_run, export_untrained, load_model, model_header_of, model_path, models_dir, read_model_header, set_current_model,
    ModelInfo, MODEL_EXT, MODEL_FORMAT_VERSION,
};
pub use precision::NetPrecision;

/// Re-export of burn's device type so callers need not depend on burn.
pub use burn::tensor::Device;
