//! Checks of the source tree that keep the crates' own descriptions true
//! (in the spirit of rust-analyzer's tidy tests): each crate of the
//! workspace, and the Python extension, has a `description` in its
//! Cargo.toml, and its root doc (the `//!` lines of `src/lib.rs` or
//! `src/main.rs`) names every module the root declares, except test-only
//! (`#[cfg(test)]`) and hidden (`#[doc(hidden)]`) ones. A module added
//! without a word in the crate's doc fails here, naming both.

use std::path::{Path, PathBuf};

mod common;
use common::manifest_dir;

fn workspace() -> PathBuf {
    manifest_dir().parent().expect("cli/ sits in the workspace").to_path_buf()
}

/// The workspace's members and the Python extension (outside the workspace).
fn crates() -> Vec<String> {
    let text = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let manifest: toml::Table = text.parse().unwrap();
    let members = manifest["workspace"]["members"].as_array().expect("workspace.members");
    let mut out: Vec<String> = members.iter().map(|m| m.as_str().unwrap().to_string()).collect();
    out.push("python".into());
    out
}

/// The modules a crate root declares (`mod x;` with any visibility) that
/// are neither test-only nor hidden from the docs.
fn documented_modules(root: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut attributes: Vec<&str> = Vec::new();
    for line in root.lines().map(str::trim) {
        if line.starts_with("#[") {
            attributes.push(line);
            continue;
        }
        let declared = line.strip_prefix("pub ").or_else(|| line.strip_prefix("pub(crate) ")).unwrap_or(line);
        if let Some(name) = declared.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
            let skipped = attributes.iter().any(|a| a.starts_with("#[cfg(test)]") || a.starts_with("#[doc(hidden)]"));
            if !skipped {
                out.push(name.trim().to_string());
            }
        }
        if !line.starts_with("///") {
            attributes.clear();
        }
    }
    out
}

/// The crate's root doc: its `//!` lines, joined.
fn root_doc(root: &str) -> String {
    root.lines().filter_map(|l| l.trim_start().strip_prefix("//!")).collect::<Vec<_>>().join("\n")
}

/// Whether `doc` names `module` as a word (not inside a longer name).
fn names(doc: &str, module: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    doc.match_indices(module).any(|(i, _)| {
        let before = doc[..i].chars().next_back().is_none_or(|c| !word(c));
        let after = doc[i + module.len()..].chars().next().is_none_or(|c| !word(c));
        before && after
    })
}

fn root_file(dir: &Path) -> PathBuf {
    let lib = dir.join("src/lib.rs");
    if lib.exists() {
        lib
    } else {
        dir.join("src/main.rs")
    }
}

#[test]
fn every_crate_describes_itself_and_its_doc_names_its_modules() {
    let mut findings = Vec::new();
    for krate in crates() {
        let dir = workspace().join(&krate);
        let manifest: toml::Table = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap().parse().unwrap();
        let description = manifest["package"].get("description").and_then(|d| d.as_str()).unwrap_or("");
        if description.trim().is_empty() {
            findings.push(format!("{krate}/Cargo.toml: no description"));
        }
        let root = root_file(&dir);
        let text = std::fs::read_to_string(&root).unwrap();
        let doc = root_doc(&text);
        for module in documented_modules(&text) {
            if !names(&doc, &module) {
                findings.push(format!("{}: the crate doc does not name module `{module}`", root.strip_prefix(workspace()).unwrap().display()));
            }
        }
    }
    assert!(findings.is_empty(), "{} findings:\n{}", findings.len(), findings.join("\n"));
}

#[test]
fn the_check_reads_declarations_and_words_as_meant() {
    let root = "//! the `alpha` module\n#[cfg(test)]\nmod tests;\n#[doc(hidden)]\n/// not an API\npub mod hidden;\npub mod alpha;\nmod beta;\npub(crate) mod gamma;\n";
    assert_eq!(documented_modules(root), ["alpha", "beta", "gamma"]);
    assert_eq!(root_doc(root), " the `alpha` module");
    assert!(names("the `alpha` module", "alpha"));
    assert!(!names("the alphabet", "alpha") && !names("beta_max", "beta") && !names("", "beta"));
}
