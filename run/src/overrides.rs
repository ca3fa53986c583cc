//! Command-line overrides of a TOML configuration: `--set section.key=value`,
//! applied to the file's text before it is read, so that an override goes
//! through the same validation as the file (an unknown key is an error
//! naming it) and is recorded wherever the configuration is saved.
//!
//! The value is read as a TOML value (`5`, `0.001`, `true`, `"x"`,
//! `[1, 2]`); anything that does not read as one is a string (`--set
//! selfplay.start_positions=fischer_random`).

use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use toml::{Table, Value};

/// The configuration used without a file.
#[derive(Clone, Copy, Debug)]
pub struct Fallback<'a> {
    pub text: &'a str,
    /// Its name in errors.
    pub name: &'a str,
}

impl Fallback<'_> {
    /// An empty text: every key takes its default.
    pub const DEFAULTS: Fallback<'static> = Fallback { text: "", name: "the built-in defaults" };
}

/// The text of the configuration file `path` (without one, `fallback`) with
/// the overrides `sets` applied, and the name errors give it
/// (`configs/x.toml with --set a.b=1`).
pub fn config_text(path: Option<&Path>, fallback: Fallback<'_>, sets: &[String]) -> Result<(String, String)> {
    let (text, origin) = match path {
        Some(p) => (std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?, p.display().to_string()),
        None => (fallback.text.to_string(), fallback.name.to_string()),
    };
    let text = apply(&text, sets).with_context(|| format!("overriding {origin}"))?;
    let origin = if sets.is_empty() { origin } else { format!("{origin} with --set {}", sets.join(" --set ")) };
    Ok((text, origin))
}

/// `text` with every `section.key=value` of `sets` applied in order; the
/// overrides are listed in a comment at the top (`# --set ...`). Without
/// overrides the text is returned as it is, comments and all.
pub fn apply(text: &str, sets: &[String]) -> Result<String> {
    if sets.is_empty() {
        return Ok(text.to_string());
    }
    let mut table: Table = text.parse().map_err(|e| anyhow!("the configuration does not read as TOML: {e}"))?;
    for set in sets {
        let (path, raw) = set.split_once('=').ok_or_else(|| anyhow!("--set {set:?}: expected section.key=value"))?;
        let keys: Vec<&str> = path.trim().split('.').map(str::trim).collect();
        if keys.iter().any(|k| k.is_empty()) {
            bail!("--set {set:?}: {path:?} is not a key path like loop.max_minutes");
        }
        let value = parse_value(raw.trim());
        let (last, tables) = keys.split_last().expect("at least one key");
        let mut here = &mut table;
        for (i, k) in tables.iter().enumerate() {
            let entry = here.entry(k.to_string()).or_insert_with(|| Value::Table(Table::new()));
            here = entry.as_table_mut().ok_or_else(|| anyhow!("--set {set:?}: {} is a value, not a section", keys[..=i].join(".")))?;
        }
        if here.get(*last).is_some_and(Value::is_table) {
            bail!("--set {set:?}: {path} is a section; set one of its keys");
        }
        here.insert(last.to_string(), value);
    }
    let mut out: String = sets.iter().map(|s| format!("# --set {s}\n")).collect();
    out.push_str(&toml::to_string(&table).map_err(|e| anyhow!("writing the configuration: {e}"))?);
    Ok(out)
}

/// A TOML value, or the text as a string.
fn parse_value(raw: &str) -> Value {
    format!("v = {raw}").parse::<Table>().ok().and_then(|mut t| t.remove("v")).unwrap_or_else(|| Value::String(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_set_nested_keys_with_typed_values() {
        let text = "# a comment\n[loop]\nmax_minutes = 60\n\n[train]\nlr = 0.01\n";
        assert_eq!(apply(text, &[]).unwrap(), text, "no override: the text as it is");
        let out = apply(
            text,
            &["loop.max_minutes=5".into(), "train.lr = 0.001".into(), "selfplay.start_positions=fischer_random".into(), "selfplay.search.gumbel=true".into()],
        )
        .unwrap();
        assert!(out.starts_with("# --set loop.max_minutes=5\n# --set train.lr = 0.001\n"), "{out}");
        let t: Table = out.parse().unwrap();
        assert_eq!(t["loop"]["max_minutes"].as_integer(), Some(5));
        assert_eq!(t["train"]["lr"].as_float(), Some(0.001));
        assert_eq!(t["selfplay"]["start_positions"].as_str(), Some("fischer_random"));
        assert_eq!(t["selfplay"]["search"]["gumbel"].as_bool(), Some(true));
    }

    #[test]
    fn malformed_overrides_name_what_is_wrong() {
        let e = |s: &str| apply("[loop]\nseed = 1\n", &[s.to_string()]).unwrap_err().to_string();
        assert!(e("loop.seed").contains("expected section.key=value"));
        assert!(e("loop..seed=2").contains("is not a key path"));
        assert!(e("loop.seed.x=2").contains("loop.seed is a value, not a section"));
        assert!(e("loop=2").contains("loop is a section"));
    }

    #[test]
    fn the_configuration_text_is_the_file_or_the_fallback_with_the_overrides_named_in_its_origin() {
        let dir = crate::test_support::TempDir::new("overrides");
        let path = dir.join("x.toml");
        std::fs::write(&path, "[loop]\nseed = 1\n").unwrap();
        let fallback = Fallback { text: "[loop]\nseed = 2\n", name: "the fallback" };
        // No overrides: the text as it is, named by its file.
        assert_eq!(config_text(Some(&path), fallback, &[]).unwrap(), ("[loop]\nseed = 1\n".to_string(), path.display().to_string()));
        assert_eq!(config_text(None, fallback, &[]).unwrap(), ("[loop]\nseed = 2\n".to_string(), "the fallback".to_string()));
        let sets = ["loop.seed=3".to_string(), "loop.generations=4".to_string()];
        let (text, origin) = config_text(Some(&path), fallback, &sets).unwrap();
        // Written back with the keys in order.
        assert_eq!(text, "# --set loop.seed=3\n# --set loop.generations=4\n[loop]\ngenerations = 4\nseed = 3\n");
        assert_eq!(origin, format!("{} with --set loop.seed=3 --set loop.generations=4", path.display()));
        let (text, origin) = config_text(None, Fallback::DEFAULTS, &sets[..1]).unwrap();
        assert_eq!((text.as_str(), origin.as_str()), ("# --set loop.seed=3\n[loop]\nseed = 3\n", "the built-in defaults with --set loop.seed=3"));
        // Errors name the file.
        let e = format!("{:#}", config_text(Some(&dir.join("none.toml")), fallback, &[]).unwrap_err());
        assert!(e.starts_with(&format!("reading {}", dir.join("none.toml").display())), "{e}");
        let e = format!("{:#}", config_text(Some(&path), fallback, &["loop".to_string()]).unwrap_err());
        assert!(e.starts_with(&format!("overriding {}: --set \"loop\": expected section.key=value", path.display())), "{e}");
    }

    #[test]
    fn a_value_that_is_not_toml_is_a_string() {
        assert_eq!(parse_value("5"), Value::Integer(5));
        assert_eq!(parse_value("[1, 2]"), Value::Array(vec![Value::Integer(1), Value::Integer(2)]));
        assert_eq!(parse_value("\"x\""), Value::String("x".into()));
        assert_eq!(parse_value("uci:/bin/engine:nodes=5"), Value::String("uci:/bin/engine:nodes=5".into()));
    }
}
