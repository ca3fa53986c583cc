//! `pacozero config`: the effective configuration of a loop, self-play or
//! training file (the file, its `--set` overrides and every default) as
//! TOML, read by the same functions as the commands that read the file; or,
//! with `--diff`, the keys where two files differ.

use crate::args::{ConfigArgs, ConfigKind};
use anyhow::{bail, Context, Result};
use pacozero_data::RunDir;
use pacozero_run::looping::{new_run_text, LoopFile};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

pub fn run(a: ConfigArgs) -> Result<()> {
    let own = a.run.as_ref().map(|r| RunDir::new(r).config());
    if let Some(own) = &own {
        if !own.exists() {
            bail!("{} has no config.toml (not a loop's run directory)", a.run.as_ref().expect("--run").display());
        }
    }
    let path = a.config.as_deref().or(own.as_deref());
    let (kind, values, origin) = effective(path, &a.set, a.kind)?;
    match &a.diff {
        None => print!("{}", render(kind, &values, &origin)?),
        Some(other) => {
            let (other_kind, other_values, other_origin) = effective(Some(other), &[], a.kind)?;
            print!("{}", diff((kind, &values, &origin), (other_kind, &other_values, &other_origin)));
        }
    }
    Ok(())
}

fn kind_name(kind: ConfigKind) -> &'static str {
    match kind {
        ConfigKind::Loop => "loop",
        ConfigKind::Selfplay => "self-play",
        ConfigKind::Train => "training",
    }
}

/// The kind of a configuration text, from its sections: `[loop]` or
/// `[selfplay]` make a loop file, a top-level key or `[search]` a self-play
/// file, `[net]` and `[train]` alone a training file. `None` for an empty
/// text or one that does not read as TOML (its loader then says why).
fn detect(text: &str) -> Option<ConfigKind> {
    let table: toml::Table = text.parse().ok()?;
    if table.contains_key("loop") || table.contains_key("selfplay") {
        Some(ConfigKind::Loop)
    } else if table.contains_key("search") || table.values().any(|v| !v.is_table()) {
        Some(ConfigKind::Selfplay)
    } else if table.contains_key("net") || table.contains_key("train") {
        Some(ConfigKind::Train)
    } else {
        None
    }
}

/// The effective configuration of the file at `path` (without one, the
/// built-in settings of `kind`, a loop's being the embedded
/// configs/quick.toml) with the overrides `sets`, read as the command that
/// reads such a file reads it: its kind, its keys as JSON (an `f32` as the
/// number written, an unset optional key as `null`) and its name.
fn effective(path: Option<&Path>, sets: &[String], kind: Option<ConfigKind>) -> Result<(ConfigKind, Value, String)> {
    let kind = match (kind, path) {
        (Some(k), _) => k,
        (None, None) => ConfigKind::Loop,
        (None, Some(p)) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            let text = pacozero_run::overrides::apply(&text, sets).with_context(|| format!("overriding {}", p.display()))?;
            match detect(&text) {
                Some(k) => k,
                None if text.parse::<toml::Table>().is_err() => ConfigKind::Loop,
                None => bail!("{}: no section tells its kind (loop, self-play or training file); give --kind", p.display()),
            }
        }
    };
    let (value, origin) = match kind {
        ConfigKind::Loop => {
            let (text, origin) = new_run_text(path, sets)?;
            (json(&LoopFile::parse(&text, &origin)?)?, origin)
        }
        ConfigKind::Selfplay => {
            let (cfg, origin) = super::selfplay_config_at(path, sets)?;
            (json(&cfg)?, origin)
        }
        ConfigKind::Train => {
            let (file, origin) = super::train_file_at(path, sets)?;
            let mut both = Map::new();
            both.insert("net".into(), json(&file.net)?);
            both.insert("train".into(), json(&file.train)?);
            (Value::Object(both), origin)
        }
    };
    Ok((kind, with_left_out_keys(kind, value), origin))
}

/// `value` through JSON text: serde_json writes an `f32` as its shortest
/// form (`0.95`, not the `f64` it widens to).
fn json<T: serde::Serialize>(value: &T) -> Result<Value> {
    Ok(serde_json::from_str(&serde_json::to_string(value)?)?)
}

/// The keys that serialization leaves out when they hold their default
/// (`skip_serializing_if`), put back: the self-play `encoding`.
fn with_left_out_keys(kind: ConfigKind, mut value: Value) -> Value {
    let selfplay = match kind {
        ConfigKind::Loop => value.get_mut("selfplay"),
        ConfigKind::Selfplay => Some(&mut value),
        ConfigKind::Train => None,
    };
    if let Some(Value::Object(t)) = selfplay {
        t.entry("encoding").or_insert_with(|| Value::String(pacozero_engine::DEFAULT_ENCODING.to_string()));
    }
    value
}

/// A JSON value as TOML (`None` for `null`, an unset optional key).
fn to_toml(v: &Value) -> Result<Option<toml::Value>> {
    Ok(Some(match v {
        Value::Null => return Ok(None),
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => toml::Value::Integer(i),
            (None, Some(u), _) => bail!("{u} does not fit a TOML integer"),
            (_, _, f) => toml::Value::Float(f.expect("a JSON number")),
        },
        Value::String(s) => toml::Value::String(s.clone()),
        Value::Array(items) => toml::Value::Array(items.iter().map(to_toml).collect::<Result<Vec<_>>>()?.into_iter().flatten().collect()),
        Value::Object(map) => {
            let mut t = toml::Table::new();
            for (k, v) in map {
                if let Some(v) = to_toml(v)? {
                    t.insert(k.clone(), v);
                }
            }
            toml::Value::Table(t)
        }
    }))
}

/// Every `section.key` of `value` and its value, tables flattened (a
/// self-play file's keys named as a loop file's `[selfplay]` names them).
fn flatten(kind: ConfigKind, value: &Value) -> BTreeMap<String, Value> {
    flatten_under(if kind == ConfigKind::Selfplay { "selfplay" } else { "" }, value)
}

/// Every key of `value` under `prefix` (`""`: none) and its value.
fn flatten_under(prefix: &str, value: &Value) -> BTreeMap<String, Value> {
    fn walk(prefix: &str, v: &Value, out: &mut BTreeMap<String, Value>) {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    walk(&if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") }, v, out);
                }
            }
            other => {
                out.insert(prefix.to_string(), other.clone());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(prefix, value, &mut out);
    out
}

/// The page `pacozero config` prints: a comment naming the file, its
/// overrides and its unset optional keys, then every key as TOML (sections
/// and keys in alphabetical order).
fn render(kind: ConfigKind, value: &Value, origin: &str) -> Result<String> {
    let mut out = format!("# the effective {} file of {origin}: every key, defaults filled in\n", kind_name(kind));
    let unset: Vec<String> = flatten_under("", value).into_iter().filter(|(_, v)| v.is_null()).map(|(k, _)| k).collect();
    if !unset.is_empty() {
        out.push_str(&format!("# not set (optional keys): {}\n", unset.join(", ")));
    }
    let table = to_toml(value)?.expect("a configuration is a table");
    out.push_str(&toml::to_string(&table).context("writing the configuration as TOML")?);
    Ok(out)
}

/// A value as the file would write it (`"gumbel"`, `0.25`, `true`; `not
/// set` for an unset optional key).
fn literal(v: &Value) -> String {
    match to_toml(v) {
        Ok(Some(t)) => t.to_string(),
        Ok(None) => "not set".to_string(),
        Err(e) => e.to_string(),
    }
}

/// The keys both files have whose values differ, one `section.key: a -> b`
/// line each, then a comment on what was not compared.
fn diff(a: (ConfigKind, &Value, &str), b: (ConfigKind, &Value, &str)) -> String {
    let (ka, kb) = (flatten(a.0, a.1), flatten(b.0, b.1));
    let mut out = String::new();
    for (key, va) in &ka {
        if let Some(vb) = kb.get(key) {
            if va != vb {
                out.push_str(&format!("{key}: {} -> {}\n", literal(va), literal(vb)));
            }
        }
    }
    if out.is_empty() {
        out.push_str(&format!("# {} and {} have the same effective values\n", a.2, b.2));
    }
    let sections = |keys: &BTreeMap<String, Value>, other: &BTreeMap<String, Value>| {
        keys.keys().filter(|k| !other.contains_key(*k)).map(|k| k.rsplit_once('.').map_or("(top level)", |(s, _)| s).to_string()).collect::<BTreeSet<_>>()
    };
    for (name, only) in [(a.2, sections(&ka, &kb)), (b.2, sections(&kb, &ka))] {
        if !only.is_empty() {
            out.push_str(&format!("# not compared, only in {name}: {}\n", only.iter().map(|s| format!("[{s}]")).collect::<Vec<_>>().join(" ")));
        }
    }
    out
}
