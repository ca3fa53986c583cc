//! Loading trained networks for search.

use anyhow::Result;
use pacozero_nn::NetworkEvaluator;
use std::path::{Path, PathBuf};

/// A model file, or a run directory whose `models/current` pointer names one.
pub fn resolve_model(path: &Path) -> Result<PathBuf> {
    if path.is_dir() {
        Ok(pacozero_nn::current_model(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?)
    } else {
        Ok(path.to_path_buf())
    }
}

/// A network evaluator for a model file (or a run directory's current model).
pub fn load_evaluator(path: &Path, threads: usize) -> Result<NetworkEvaluator> {
    NetworkEvaluator::load(&resolve_model(path)?, threads)
}
