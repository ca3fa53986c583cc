//! Error type of the data crate. Every variant names the file it concerns.

use std::path::PathBuf;

/// Anything that can go wrong while writing or reading training data.
///
/// Each variant carries the path of the file concerned so that a message is
/// actionable on its own ("which chunk is broken?").
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// An operating-system I/O error (open, write, fsync, rename, list).
    #[error("{path}: I/O error: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The Parquet layer refused the file (bad footer, truncated file, corrupt page...).
    #[error("{path}: cannot read Parquet data (truncated or corrupt file?): {source}")]
    Parquet {
        path: PathBuf,
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// The Arrow layer refused to assemble or decode a batch.
    #[error("{path}: Arrow error: {source}")]
    Arrow {
        path: PathBuf,
        #[source]
        source: arrow::error::ArrowError,
    },
    /// A required column is absent.
    #[error("{path}: missing column `{column}`")]
    MissingColumn { path: PathBuf, column: String },
    /// A column exists but has an unexpected Arrow type.
    #[error("{path}: column `{column}` has type {found}, expected {expected}")]
    WrongType { path: PathBuf, column: String, expected: String, found: String },
    /// The file (metadata or a row) declares a schema version this code does not read.
    /// `oldest..=expected` are the versions this build reads.
    #[error("{path}: schema_version {found} is not supported (this build reads {})", versions(*oldest, *expected))]
    SchemaVersion { path: PathBuf, found: String, oldest: u16, expected: u16 },
    /// The file's key-value metadata is missing or malformed.
    #[error("{path}: bad file metadata: {message}")]
    Metadata { path: PathBuf, message: String },
    /// The file would decode to more than a reader's bound
    /// (`pacozero_data::MAX_DECODED_BYTES_PER_ROW_GROUP`, `MAX_ROWS_PER_FILE`).
    #[error("{path}: too large to read: {message}")]
    TooLarge { path: PathBuf, message: String },
    /// A row violates the schema's invariants (wrong list length, null value...).
    #[error("{path}: column `{column}`, row {row}: {message}")]
    BadValue { path: PathBuf, column: String, row: usize, message: String },
    /// Rows handed to the writer do not fit the game specification.
    #[error("invalid row for chunk `{stem}`: {message}")]
    InvalidRow { stem: String, message: String },
    /// Chunks of one directory disagree on the game specification.
    #[error("{path}: game spec {found} differs from {expected} of earlier chunks")]
    SpecMismatch { path: PathBuf, expected: String, found: String },
    /// A data directory holds another game's data than the one asked for.
    #[error("{dir} holds {have_game} data ({have}), not {want_game} ({want}); pass the matching --game (and net.encoding)")]
    WrongGame { dir: PathBuf, have_game: String, have: String, want_game: String, want: String },
    /// A game specification is out of range.
    #[error("invalid game spec: {0}")]
    InvalidSpec(String),
}

fn versions(oldest: u16, newest: u16) -> String {
    if oldest == newest {
        format!("version {newest}")
    } else {
        format!("versions {oldest} to {newest}")
    }
}

/// Result alias of this crate.
pub type Result<T, E = DataError> = std::result::Result<T, E>;

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> DataError {
    let path = path.into();
    move |source| DataError::Io { path, source }
}

pub(crate) fn pq_err(path: impl Into<PathBuf>) -> impl FnOnce(parquet::errors::ParquetError) -> DataError {
    let path = path.into();
    move |source| DataError::Parquet { path, source }
}

pub(crate) fn arrow_err(path: impl Into<PathBuf>) -> impl FnOnce(arrow::error::ArrowError) -> DataError {
    let path = path.into();
    move |source| DataError::Arrow { path, source }
}

/// A whole-file write ([`crate::write_atomic`]) that failed: the file it was
/// writing, and the system's error (its [`source`](std::error::Error::source)).
#[derive(Debug)]
pub struct WriteError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "writing {}", self.path.display())
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// A failed whole-file write is an I/O error of its file.
impl From<WriteError> for DataError {
    fn from(e: WriteError) -> Self {
        DataError::Io { path: e.path, source: e.source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_error_names_the_versions_this_build_reads() {
        let e = |oldest, expected| DataError::SchemaVersion { path: "c.parquet".into(), found: "9".into(), oldest, expected }.to_string();
        assert_eq!(e(2, 2), "c.parquet: schema_version 9 is not supported (this build reads version 2)");
        assert_eq!(e(1, 3), "c.parquet: schema_version 9 is not supported (this build reads versions 1 to 3)");
    }
}
