//! Helpers and fixtures shared by the integration tests of the `pacozero`
//! binary; each test file includes them with `mod common;`. Not every test
//! file uses every item, hence the `#[allow(dead_code)]`s.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `pacozero` binary under test.
#[allow(dead_code)]
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pacozero"))
}

/// A path as a command-line argument (the tests' paths are UTF-8).
#[allow(dead_code)]
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The standard output and then the standard error of a finished command.
#[allow(dead_code)]
pub fn output_text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Runs `pacozero ARGS` to its end and asserts that it succeeded (showing its
/// standard output and error if not).
#[allow(dead_code)]
pub fn run_ok(args: &[&str]) -> Output {
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "pacozero {args:?} failed:\n{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    out
}

/// Writes `text` to the file `name` in `dir`; returns its path.
#[allow(dead_code)]
pub fn write_config(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The `[net]` table of a tiny network (one residual block of 8 channels),
/// quick to train and to evaluate.
#[allow(dead_code)]
pub const TINY_NET: &str = r#"
[net]
blocks = 1
channels = 8
policy_channels = 4
value_channels = 2
value_hidden = 16
"#;

/// A tiny self-play configuration: one thread of two games at a time, one
/// game per chunk, at most 40 decisions from Fischer-random starts, 8 full
/// and 4 cheap simulations.
#[allow(dead_code)]
pub fn tiny_selfplay(seed: u64) -> String {
    format!(
        r#"
seed = {seed}
threads = 1
games_per_thread = 2
games_per_chunk = 1
max_decisions = 40
start_positions = "fischer_random"

[search]
full_simulations = 8
cheap_simulations = 4
"#
    )
}
