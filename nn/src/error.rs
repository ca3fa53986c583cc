//! Error type of the network crate.

use std::path::PathBuf;

/// Errors of architectures, model files, backends and inference.
#[derive(Debug, thiserror::Error)]
pub enum NnError {
    /// A configuration value (architecture, backend name) is out of range or inconsistent.
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
    /// The data schema refused the network's shape.
    #[error(transparent)]
    Data(#[from] pacozero_data::DataError),
    /// Anything else (serialisation, thread pools...).
    #[error("{0}")]
    Other(String),
}

/// Result alias of this crate.
pub type NnResult<T> = Result<T, NnError>;

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> NnError {
    let path = path.into();
    move |source| NnError::Io { path, source }
}

/// A failed whole-file write is an I/O error of its file.
impl From<pacozero_data::WriteError> for NnError {
    fn from(e: pacozero_data::WriteError) -> Self {
        NnError::Io { path: e.path, source: e.source }
    }
}
