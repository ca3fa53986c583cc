//! Whole-or-nothing file writes for everything the CLI leaves in a run
//! directory or at a user's path.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `<path>.tmp`, syncs it, then renames it over `path`, so a
/// reader sees the old file or the new one, never a part. The temporary name
/// appends `.tmp` (rather than replacing the extension) so that `a.csv` and
/// `a.md` written side by side never share one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    {
        let mut f = std::fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        f.write_all(bytes).with_context(|| format!("writing {}", tmp.display()))?;
        f.sync_all().with_context(|| format!("syncing {}", tmp.display()))?;
    }
    std::fs::rename(&tmp, path).with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))
}
