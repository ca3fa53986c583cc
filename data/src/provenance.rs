//! What made a file: the build (version, git commit, a dirty flag), the
//! backend, the machine's CPU count. Written into a run's `config.toml`
//! and `state.json`, into every model file's header, and printed by
//! `pacozero --version`.
//!
//! The build is known to the binary (its build script reads git and the
//! binary calls [`set_build`] first thing); a library used on its own
//! records `unknown` for the commit.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The build of the running program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    /// The package version (`0.1.0`).
    pub version: String,
    /// The git commit it was built from (`unknown` outside a git checkout).
    pub commit: String,
    /// Whether the checkout had uncommitted changes to tracked files.
    pub dirty: bool,
}

static BUILD: OnceLock<Build> = OnceLock::new();

/// Records the running program's build (once; later calls are ignored).
pub fn set_build(build: Build) {
    let _ = BUILD.set(build);
}

/// The running program's build ([`set_build`]; `unknown` when never set).
pub fn build() -> Build {
    BUILD.get().cloned().unwrap_or_else(|| Build { version: env!("CARGO_PKG_VERSION").to_string(), commit: "unknown".to_string(), dirty: false })
}

impl std::fmt::Display for Build {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (commit {}{})", self.version, self.commit, if self.dirty { ", dirty" } else { "" })
    }
}

/// What made a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    #[serde(flatten)]
    pub build: Build,
    /// The compute backend (`flex`, `tch-cuda:0`, ...).
    pub backend: String,
    /// CPUs available to the process.
    pub cpus: usize,
}

impl Provenance {
    /// This process, computing on `backend`.
    pub fn here(backend: &str) -> Provenance {
        Provenance { build: build(), backend: backend.to_string(), cpus: std::thread::available_parallelism().map_or(1, |n| n.get()) }
    }
}

impl std::fmt::Display for Provenance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, backend {}, {} CPUs", self.build, self.backend, self.cpus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_build_is_the_one_shown() {
        // The only test of this binary that records a build (it is global).
        let b = Build { version: "9.9.9".into(), commit: "abc1234".into(), dirty: true };
        set_build(b.clone());
        set_build(Build { version: "0".into(), commit: "later".into(), dirty: false });
        assert_eq!(build(), b, "the first record stays");
        assert_eq!(b.to_string(), "9.9.9 (commit abc1234, dirty)");
        assert_eq!(Build { dirty: false, ..b.clone() }.to_string(), "9.9.9 (commit abc1234)");
        let p = Provenance::here("flex");
        assert_eq!((p.build.clone(), p.backend.as_str()), (b, "flex"));
        assert!(p.cpus >= 1);
        assert_eq!(p.to_string(), format!("9.9.9 (commit abc1234, dirty), backend flex, {} CPUs", p.cpus));
    }
}
