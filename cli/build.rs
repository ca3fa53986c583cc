//! Embeds the git commit the binary is built from, and whether the checkout
//! had uncommitted changes to tracked files (`pacozero --version`, and the
//! provenance recorded in runs and model files: `pacozero_data::provenance`).
//! Outside a git checkout the commit is `unknown`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_string());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    println!("cargo:rustc-env=PACOZERO_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=PACOZERO_GIT_DIRTY={dirty}");
    // A new commit or a change to the index reruns this (and relinks the
    // binary only: the libraries do not depend on it).
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]) {
        for f in ["HEAD", "index"] {
            println!("cargo:rerun-if-changed={git_dir}/{f}");
        }
        if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={git_dir}/{head_ref}");
        }
    }
    // An edit of any source makes the flag stale: scan the workspace's sources
    // (an edited library rebuilds the binary anyway).
    for dir in [
        "src",
        "../engine/src",
        "../data/src",
        "../search/src",
        "../book/src",
        "../batch/src",
        "../selfplay/src",
        "../nn/src",
        "../train/src",
        "../arena/src",
        "../store/src",
        "../run/src",
        "../configs",
    ] {
        println!("cargo:rerun-if-changed={dir}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
