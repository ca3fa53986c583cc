//! Whole-or-nothing file writes for everything the CLI leaves in a run
//! directory or at a user's path ([`pacozero_data::durable`] does the work).

use anyhow::{Context, Result};
use std::path::Path;

/// Writes `bytes` to `<path>.tmp`, syncs it, then renames it over `path`, so a
/// reader sees the old file or the new one, never a part.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    pacozero_data::write_atomic(path, &[bytes]).with_context(|| format!("writing {}", path.display()))
}
