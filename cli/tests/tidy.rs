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
    let root =
        "//! the `alpha` module\n#[cfg(test)]\nmod tests;\n#[doc(hidden)]\n/// not an API\npub mod hidden;\npub mod alpha;\nmod beta;\npub(crate) mod gamma;\n";
    assert_eq!(documented_modules(root), ["alpha", "beta", "gamma"]);
    assert_eq!(root_doc(root), " the `alpha` module");
    assert!(names("the `alpha` module", "alpha"));
    assert!(!names("the alphabet", "alpha") && !names("beta_max", "beta") && !names("", "beta"));
}

/// A test module in a file of its own (`#[cfg(test)] mod tests;`, the
/// file `tests.rs`): the checks skip it as they skip a test module inline.
fn is_test_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "tests.rs")
}

/// The library and binary sources the name lint reads: every crate's
/// `src/` but the slow reference generator's (test equipment), as
/// (path from the workspace root, text).
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") && !is_test_file(&p) {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    for krate in crates().into_iter().filter(|k| k != "engine/reference") {
        walk(&workspace().join(&krate).join("src"), &mut files);
    }
    files.into_iter().map(|p| (p.strip_prefix(workspace()).unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())).collect()
}

/// A source file's code: without its test module (from `#[cfg(test)] mod
/// x {` on) and without comments.
fn code_of(text: &str) -> String {
    let test_module = regex::Regex::new(r"(?s)#\[cfg\(test\)\]\s*(#\[[^\]]*\]\s*)*mod \w+ \{.*").unwrap();
    let comment = regex::Regex::new(r"//.*").unwrap();
    comment.replace_all(&test_module.replace(text, ""), "").into_owned()
}

/// Where a game may be named: its own directory, the registry (the macro in
/// `engine/src/registry.rs` and its one line a game, `Kind => module::Type,`,
/// at the end of `engine/src/lib.rs`), and the crate of adapters to one
/// game's platform (`platform/`).
fn game_name_allowed(path: &str, line: &str, games: &[&str]) -> bool {
    if games.iter().any(|g| path.starts_with(&format!("engine/src/{g}/"))) || path == "engine/src/registry.rs" {
        return true;
    }
    if path.starts_with("platform/src/") {
        return true;
    }
    path == "engine/src/lib.rs" && regex::Regex::new(r"^\s*[A-Z]\w* => [a-z]\w*::\w+,\s*$").unwrap().is_match(line)
}

/// The findings of the name lint over `files` (path, text): a run
/// directory's path spelled outside `data/src/run_dir.rs` (issue 35: one
/// module owns the run directory), a game named outside its directory and
/// the registry (games only through `Game` and `GameKind`), and the
/// version-1 auxiliary columns named outside the schema and the games.
fn name_findings(files: &[(String, String)]) -> Vec<String> {
    use pacozero_engine::GameKind;
    let games: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
    let variants: Vec<String> = GameKind::ALL.iter().map(|k| format!("{k:?}")).collect();
    let game_name = regex::Regex::new(&format!(r#"\b({g})::|GameKind::({v})\b|"({g})""#, g = games.join("|"), v = variants.join("|"))).unwrap();
    let run_layout = regex::Regex::new(
        r#"join\("(data|models|plots|checkpoints|store-probe)"\)|"(models/current|state\.json|generations\.jsonl|matches\.jsonl|ratings\.csv|ratings\.md|metrics\.csv|config\.toml|report\.html|latest\.pzckpt)"|"(data|models)/"#,
    )
    .unwrap();
    let old_aux = regex::Regex::new(r"\bmover_(in_sako|can_paco)\b").unwrap();
    let mut findings = Vec::new();
    for (path, text) in files {
        for (n, line) in code_of(text).lines().enumerate() {
            let at = format!("{path}:{}", n + 1);
            if run_layout.is_match(line) && path != "data/src/run_dir.rs" {
                findings.push(format!("{at}: a run-directory path spelled outside data/src/run_dir.rs (use pacozero_data::RunDir): {}", line.trim()));
            }
            if old_aux.is_match(line) && path != "data/src/schema.rs" && !game_name_allowed(path, line, &games) {
                findings.push(format!("{at}: an auxiliary target named outside its game (Encode::AUX_TARGETS) and data/src/schema.rs: {}", line.trim()));
            }
            if game_name.is_match(line) && !game_name_allowed(path, line, &games) {
                findings.push(format!("{at}: a game named outside its directory and the registry (go through Game/GameKind): {}", line.trim()));
            }
        }
    }
    findings
}

#[test]
fn names_that_one_module_owns_are_spelled_only_there() {
    let findings = name_findings(&sources());
    assert!(findings.is_empty(), "{} findings:\n{}", findings.len(), findings.join("\n"));
}

#[test]
fn the_name_lint_finds_what_it_is_for_and_only_that() {
    let file = |path: &str, text: &str| vec![(path.to_string(), text.to_string())];
    let found = |path: &str, text: &str| name_findings(&file(path, text));
    // A game of the registry named outside its directory, three ways.
    assert_eq!(found("run/src/x.rs", "let k = GameKind::Shako;\n").len(), 1);
    assert_eq!(found("run/src/x.rs", "use pacozero_engine::connect4::Board;\n").len(), 1);
    assert_eq!(found("run/src/x.rs", "if name == \"paco\" {}\n").len(), 1);
    // ... but not in its own directory, the registry, a platform module,
    // a comment or a test module.
    assert!(found("engine/src/shako/game.rs", "let k = GameKind::Shako;\n").is_empty());
    assert!(found("engine/src/registry.rs", "\"connect4\" => GameKind::Connect4,\n").is_empty());
    assert!(found("engine/src/lib.rs", "    Shako => shako::GameState,\n").is_empty());
    assert_eq!(found("engine/src/lib.rs", "pub use shako::GameState;\n").len(), 1, "only the registry's lines");
    assert!(found("platform/src/book.rs", "use pacozero_engine::paco::Position;\n").is_empty());
    assert_eq!(found("book/src/platform_book.rs", "use pacozero_engine::paco::Position;\n").len(), 1, "only the platform crate");
    assert!(found("run/src/x.rs", "// GameKind::Paco\n").is_empty());
    assert!(found("run/src/x.rs", "fn f() {}\n#[cfg(test)]\nmod tests {\n    const G: &str = \"shako\";\n}\n").is_empty());
    // A run directory's path outside its owner.
    let f = found("run/src/x.rs", "let p = run.join(\"models\");\n");
    assert!(f.len() == 1 && f[0].starts_with("run/src/x.rs:1: a run-directory path"), "{f:?}");
    assert!(found("data/src/run_dir.rs", "let p = run.join(\"models\");\n").is_empty());
    assert_eq!(found("nn/src/x.rs", "let c = \"mover_in_sako\";\n").len(), 1);
}

/// The cycles among the sibling modules of one module directory (`src/`,
/// or a folder with a `mod.rs`): A -> B when A's code (its test module and
/// comments left out) names B through `super::` or `crate::<path>::`,
/// directly or through a name the parent re-exports from B (`pub use
/// b::X`). Parent and child do not count: a parent re-exporting its
/// children and a child using `super::` are how a module exposes its parts.
/// `files` holds the directory's files as (name, text); a child folder's
/// files are under `<child>/`.
fn sibling_cycles(files: &[(String, String)], modpath: &[&str]) -> Vec<Vec<String>> {
    use std::collections::{BTreeMap, BTreeSet};
    let parent = ["mod.rs", "lib.rs", "main.rs"].iter().find_map(|p| files.iter().find(|(n, _)| n == p)).map(|(_, t)| t.as_str());
    let mut kids: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (name, text) in files {
        match name.split_once('/') {
            Some((dir, _)) if files.iter().any(|(n, _)| *n == format!("{dir}/mod.rs")) => kids.entry(dir.to_string()).or_default().push(text),
            None if !["mod.rs", "lib.rs", "main.rs"].contains(&name.as_str()) => kids.entry(name.trim_end_matches(".rs").to_string()).or_default().push(text),
            _ => {}
        }
    }
    let Some(parent) = parent else { return Vec::new() };
    if kids.len() < 2 {
        return Vec::new();
    }
    let mut exports: BTreeMap<String, String> = BTreeMap::new();
    for c in regex::Regex::new(r"pub use (\w+)::\{?([\w, \n]+)\}?;").unwrap().captures_iter(parent) {
        if kids.contains_key(&c[1]) {
            for n in c[2].split(',') {
                exports.insert(n.trim().to_string(), c[1].to_string());
            }
        }
    }
    let prefix = regex::escape(&["crate"].iter().chain(modpath).copied().collect::<Vec<_>>().join("::"));
    let refs = regex::Regex::new(&format!(r"\b(?:super|{prefix})::(\w+)")).unwrap();
    let groups = regex::Regex::new(&format!(r"use (?:super|{prefix})::\{{([^}}]*)\}}")).unwrap();
    let word = regex::Regex::new(r"\w+").unwrap();
    let mut graph: BTreeMap<String, BTreeSet<String>> = kids.keys().map(|k| (k.clone(), BTreeSet::new())).collect();
    for (kid, texts) in &kids {
        for text in texts {
            let code = code_of(text);
            let mut names: Vec<String> = refs.captures_iter(&code).map(|c| c[1].to_string()).collect();
            for g in groups.captures_iter(&code) {
                names.extend(word.find_iter(&g[1]).map(|m| m.as_str().to_string()));
            }
            for n in names {
                let target = if kids.contains_key(&n) { Some(n) } else { exports.get(&n).cloned() };
                if let Some(t) = target.filter(|t| t != kid) {
                    graph.get_mut(kid).unwrap().insert(t);
                }
            }
        }
    }
    // Depth-first search; a grey node met again closes a cycle.
    fn dfs(u: &str, graph: &BTreeMap<String, BTreeSet<String>>, colour: &mut BTreeMap<String, u8>, stack: &mut Vec<String>, cycles: &mut Vec<Vec<String>>) {
        colour.insert(u.to_string(), 1);
        stack.push(u.to_string());
        for v in &graph[u] {
            match colour.get(v) {
                Some(1) => {
                    let from = stack.iter().position(|s| s == v).unwrap();
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(v.clone());
                    cycles.push(cycle);
                }
                None => dfs(v, graph, colour, stack, cycles),
                _ => {}
            }
        }
        stack.pop();
        colour.insert(u.to_string(), 2);
    }
    let (mut colour, mut stack, mut cycles) = (BTreeMap::new(), Vec::new(), Vec::new());
    for u in graph.keys() {
        if !colour.contains_key(u) {
            dfs(u, &graph, &mut colour, &mut stack, &mut cycles);
        }
    }
    cycles
}

/// Source files as (name or path, text).
type Files = Vec<(String, String)>;

/// Every module directory of a crate's `src/`: (module path, its files as
/// `sibling_cycles` reads them).
fn module_dirs(src: &Path) -> Vec<(Vec<String>, Files)> {
    fn all_files(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let rel_name = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
            if p.is_dir() {
                all_files(&p, &rel_name, out);
            } else if name.ends_with(".rs") && !is_test_file(&p) {
                out.push((rel_name, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    let mut stack = vec![(src.to_path_buf(), Vec::<String>::new())];
    while let Some((dir, modpath)) = stack.pop() {
        let mut files = Vec::new();
        all_files(&dir, "", &mut files);
        files.sort();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                let mut m = modpath.clone();
                m.push(p.file_name().unwrap().to_string_lossy().into_owned());
                stack.push((p, m));
            }
        }
        out.push((modpath, files));
    }
    out
}

#[test]
fn no_module_of_a_crate_imports_one_that_imports_it_back() {
    let mut findings = Vec::new();
    for krate in crates() {
        for (modpath, files) in module_dirs(&workspace().join(&krate).join("src")) {
            let path: Vec<&str> = modpath.iter().map(String::as_str).collect();
            for cycle in sibling_cycles(&files, &path) {
                findings.push(format!(
                    "module cycle in {}: {}",
                    [krate.as_str()].iter().chain(&path).copied().collect::<Vec<_>>().join("::"),
                    cycle.join(" -> ")
                ));
            }
        }
    }
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}

#[test]
fn the_cycle_check_sees_a_cycle_through_a_re_export_and_not_parent_and_child() {
    let files = |v: &[(&str, &str)]| v.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect::<Vec<_>>();
    // a -> b directly, b -> a through the parent's re-export of A.
    let cycle = files(&[("lib.rs", "mod a;\nmod b;\npub use a::A;\n"), ("a.rs", "use crate::b::B;\n"), ("b.rs", "fn f(_: crate::A) {}\n")]);
    assert_eq!(sibling_cycles(&cycle, &[]), [["a", "b", "a"]]);
    // The same one level down, through `super::{...}` in a folder module.
    let nested = files(&[("mod.rs", "mod a;\nmod b;\n"), ("a.rs", "use super::{b};\n"), ("b/mod.rs", "use crate::m::a::X;\n")]);
    assert_eq!(sibling_cycles(&nested, &["m"]), [["a", "b", "a"]]);
    // One way only, a child naming its parent, or a cycle only in tests or comments: none.
    let fine = files(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "use crate::b::B;\nuse super::helper;\n"),
        ("b.rs", "// crate::a\n#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n"),
    ]);
    assert!(sibling_cycles(&fine, &[]).is_empty());
}
