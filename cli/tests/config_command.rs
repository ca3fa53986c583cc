//! `pacozero config`: the effective configuration of a loop, self-play or
//! training file. What it prints reads back, with the loader of the command
//! that reads such a file, to the configuration that command uses (every
//! shipped file); `--set` overrides show; a bad file or key fails with one
//! message naming both; `--diff` lists the keys where two files differ.

use pacozero_run::looping::LoopFile;
use pacozero_selfplay::SelfplayConfig;
use pacozero_train::TrainFile;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{bin, manifest_dir, run_ok, s, write_config};

fn configs() -> PathBuf {
    manifest_dir().parent().unwrap().join("configs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// `v` as JSON, through JSON text (an `f32` as the number written).
fn json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::from_str(&serde_json::to_string(v).unwrap()).unwrap()
}

/// The configuration `text` as the command reading a file of `kind` reads
/// it (`pacozero loop`, `selfplay`, `train`), as JSON.
fn load(kind: &str, text: &str, origin: &str) -> Value {
    match kind {
        "loop" => json(&LoopFile::parse(text, origin).unwrap_or_else(|e| panic!("{origin}: {e:#}"))),
        "selfplay" => json(&SelfplayConfig::from_toml_str(text).unwrap_or_else(|e| panic!("{origin}: {e:#}"))),
        "train" => {
            let f = TrainFile::from_toml_str(text, origin).unwrap_or_else(|e| panic!("{origin}: {e:#}"));
            serde_json::json!({ "net": json(&f.net), "train": json(&f.train) })
        }
        _ => unreachable!("{kind}"),
    }
}

/// Every `section.key` with a value (an unset optional key has none).
fn keys(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(map) => map.iter().for_each(|(k, v)| keys(v, &if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") }, out)),
        Value::Null => {}
        _ => {
            out.insert(prefix.to_string());
        }
    }
}

/// The kind of each shipped configuration (the book's has a command of its own).
fn shipped() -> Vec<(PathBuf, &'static str)> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(configs()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let kind = match p.file_name().unwrap().to_str().unwrap() {
                "book.toml" => return None,
                "selfplay.toml" => "selfplay",
                "train.toml" => "train",
                _ => "loop",
            };
            Some((p, kind))
        })
        .collect()
}

/// `pacozero config` of `file` read back: equal to the file as its command
/// reads it, every key there.
fn check_round_trip(dir: &Path, file: &Path, kind: &str, extra: &[&str]) {
    let args: Vec<&str> = [&["config", "--config", s(file)][..], extra].concat();
    let printed = stdout(&run_ok(&args));
    let first = printed.lines().next().unwrap();
    let what = if kind == "selfplay" {
        "self-play"
    } else if kind == "train" {
        "training"
    } else {
        "loop"
    };
    assert!(first.starts_with('#') && first.contains(s(file)) && first.contains(&format!("effective {what} file")), "{args:?}: first line {first:?}");
    let copy = write_config(dir, "printed.toml", &printed);
    let original = load(kind, &std::fs::read_to_string(file).unwrap(), s(file));
    assert_eq!(load(kind, &printed, "printed"), original, "{args:?}: the printed configuration does not read back to the file's:\n{printed}");
    // Every key, defaults filled in: the printed file alone holds them all.
    let table: toml::Table = printed.parse().unwrap();
    let (mut shown, mut all) = (BTreeSet::new(), BTreeSet::new());
    keys(&serde_json::to_value(&table).unwrap(), "", &mut shown);
    keys(&original, "", &mut all);
    match kind {
        "loop" => all.insert("selfplay.encoding".into()),
        "selfplay" => all.insert("encoding".into()),
        _ => false,
    };
    assert_eq!(shown, all, "{args:?}: the keys printed");
    // Printed again from the printed file: the same keys and values.
    let again = stdout(&run_ok(&[&["config", "--config", s(&copy)][..], extra].concat()));
    assert_eq!(again.lines().skip(1).collect::<Vec<_>>(), printed.lines().skip(1).collect::<Vec<_>>(), "{args:?}: printed twice");
}

#[test]
fn the_effective_configuration_of_every_shipped_file_reads_back_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let files = shipped();
    assert!(files.len() >= 6, "{files:?}");
    for (file, kind) in &files {
        check_round_trip(dir.path(), file, kind, &[]);
        // A loop file is a training file too: `pacozero train --config` reads its [net] and [train].
        if *kind == "loop" {
            check_round_trip(dir.path(), file, "train", &["--kind", "train"]);
        }
    }
    // Without a file: the loop's embedded configs/quick.toml, the others' built-in defaults.
    let quick = run_ok(&["config"]);
    let body = |o: &Output| stdout(o).lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&quick), body(&run_ok(&["config", "--config", s(&configs().join("quick.toml"))])));
    let defaults = stdout(&run_ok(&["config", "--kind", "selfplay"]));
    assert_eq!(load("selfplay", &defaults, "defaults"), load("selfplay", "", "empty"));
}

#[test]
fn overrides_show_in_the_effective_configuration_and_its_first_line() {
    let train = configs().join("train.toml");
    let printed = stdout(&run_ok(&["config", "--config", s(&train), "--set", "train.lr=0.005", "--set", "net.blocks=3"]));
    let first = printed.lines().next().unwrap();
    assert!(first.contains("with --set train.lr=0.005 --set net.blocks=3"), "{first}");
    let t: toml::Table = printed.parse().unwrap();
    assert_eq!(t["train"]["lr"].as_float(), Some(0.005));
    assert_eq!(t["net"]["blocks"].as_integer(), Some(3));
    // A top-level key of a self-play file, and its [search].
    let printed = stdout(&run_ok(&["config", "--config", s(&configs().join("selfplay.toml")), "--set", "threads=3", "--set", "search.c_puct=2.5"]));
    let t: toml::Table = printed.parse().unwrap();
    assert_eq!((t["threads"].as_integer(), t["search"]["c_puct"].as_float()), (Some(3), Some(2.5)));
}

#[test]
fn a_run_shows_its_own_config_toml() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    let text = format!(
        "# made by pacozero (test)\n# --set loop.max_minutes=5\n{}",
        std::fs::read_to_string(configs().join("quick.toml")).unwrap().replace("max_minutes = 60", "max_minutes = 5")
    );
    std::fs::write(run.join("config.toml"), &text).unwrap();
    let printed = stdout(&run_ok(&["config", "--run", s(&run)]));
    assert!(printed.lines().next().unwrap().contains(s(&run.join("config.toml"))), "{printed}");
    assert_eq!(load("loop", &printed, "printed"), load("loop", &text, "config.toml"));
    assert!(printed.contains("max_minutes = 5.0\n"), "{printed}");
    // A directory that is no loop's run.
    let out = bin().args(["config", "--run", s(dir.path())]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no config.toml"));
}

#[test]
fn a_bad_file_or_key_fails_with_one_message_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let fails = |args: &[&str], needles: &[&str]| {
        let out = bin().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(1), "pacozero {args:?}: {err}");
        assert!(!err.contains("panicked") && out.stdout.is_empty(), "pacozero {args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
        for n in needles {
            assert!(err.contains(n), "pacozero {args:?}: the message lacks {n:?}:\n{err}");
        }
    };
    let bad = write_config(dir.path(), "bad-train.toml", "[train]\nlr = 0.01\nlearning_rat = 0.1\n");
    fails(&["config", "--config", s(&bad)], &["bad-train.toml", "learning_rat"]);
    let bad = write_config(dir.path(), "bad-loop.toml", "[loop]\ngenerations = 0\n");
    fails(&["config", "--config", s(&bad)], &["bad-loop.toml", "loop.generations"]);
    let train = configs().join("train.toml");
    fails(&["config", "--config", s(&train), "--set", "train.bogus=1"], &["train.toml", "bogus"]);
    fails(&["config", "--config", s(&dir.path().join("none.toml"))], &["none.toml"]);
    fails(&["config", "--config", s(&train), "--diff", s(&bad)], &["bad-loop.toml", "loop.generations"]);
    let empty = write_config(dir.path(), "empty.toml", "");
    fails(&["config", "--config", s(&empty)], &["empty.toml", "--kind"]);
}

#[test]
fn diff_lists_the_keys_that_differ_and_keeps_the_recipe_of_quick_in_train() {
    let (quick, train) = (configs().join("quick.toml"), configs().join("train.toml"));
    let out = stdout(&run_ok(&["config", "--config", s(&quick), "--diff", s(&train)]));
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with('#')).collect();
    for line in &lines {
        let (key, change) = line.split_once(": ").unwrap_or_else(|| panic!("not `section.key: a -> b`: {line:?}"));
        assert!(key.contains('.') && change.contains(" -> "), "not `section.key: a -> b`: {line:?}");
    }
    assert!(lines.contains(&"net.blocks: 2 -> 6"), "{out}");
    assert!(lines.contains(&"train.optimizer: \"adamw\" -> \"sgd\""), "{out}");
    // The learning targets and the augmentation are the same (train/tests
    // keeps configs/train.toml's equal to configs/quick.toml's).
    for key in ["train.value_q_mix", "train.value_horizon", "train.value_horizon_mix", "train.mirror_augment"] {
        assert!(!lines.iter().any(|l| l.starts_with(&format!("{key}:"))), "{key} differs:\n{out}");
    }
    assert!(out.contains("only in") && out.contains("[loop]"), "what was not compared is named:\n{out}");
    // A file against itself; a training file against the built-in defaults.
    let same = stdout(&run_ok(&["config", "--config", s(&train), "--diff", s(&train)]));
    assert!(same.contains("the same effective values") && same.lines().all(|l| l.starts_with('#')), "{same}");
    let dir = tempfile::tempdir().unwrap();
    let defaults = write_config(dir.path(), "defaults.toml", "[train]\n");
    let out = stdout(&run_ok(&["config", "--config", s(&defaults), "--diff", s(&train)]));
    assert!(out.lines().any(|l| l == "train.value_q_mix: 0.0 -> 0.5"), "{out}");
    assert!(out.lines().any(|l| l == "train.mirror_augment: false -> true"), "{out}");
}
