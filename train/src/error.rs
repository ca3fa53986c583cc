//! Error type of the trainer.

use std::path::PathBuf;

impl From<pacozero_batch::ConfigError> for TrainError {
    fn from(e: pacozero_batch::ConfigError) -> Self {
        TrainError::Config(e.0)
    }
}

/// Errors of configuration, model files, checkpoints and training.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A configuration value is out of range or inconsistent.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A file could not be read or written.
    #[error("{path}: I/O error: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A model or checkpoint file is corrupt, of another format or of another architecture.
    #[error("{path}: {message}")]
    ModelFile { path: PathBuf, message: String },
    /// Reading training data failed.
    #[error(transparent)]
    Data(#[from] pacozero_data::DataError),
    /// Not enough data to train.
    #[error("{0}")]
    NotEnoughData(String),
    /// Anything else (plotting, metrics...).
    #[error("{0}")]
    Other(String),
}

/// Result alias of this crate.
pub type TrainResult<T> = Result<T, TrainError>;

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> TrainError {
    let path = path.into();
    move |source| TrainError::Io { path, source }
}

/// Errors of the network crate keep their kind: a model file that cannot be
/// read is [`TrainError::ModelFile`] whether the trainer or `pacozero_nn`
/// read it, so callers see the same variants as when both were one crate.
impl From<pacozero_nn::NnError> for TrainError {
    fn from(e: pacozero_nn::NnError) -> Self {
        use pacozero_nn::NnError;
        match e {
            NnError::Config(m) => TrainError::Config(m),
            NnError::Io { path, source } => TrainError::Io { path, source },
            NnError::ModelFile { path, message } => TrainError::ModelFile { path, message },
            NnError::Data(e) => TrainError::Data(e),
            NnError::Other(m) => TrainError::Other(m),
        }
    }
}

/// A failed whole-file write is an I/O error of its file.
impl From<pacozero_data::WriteError> for TrainError {
    fn from(e: pacozero_data::WriteError) -> Self {
        TrainError::Io { path: e.path, source: e.source }
    }
}
