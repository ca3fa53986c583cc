//! The book's configuration-key reference (`docs/config-keys.md`) is
//! generated from the code, so it never drifts from what a configuration
//! file accepts: one table per section, whose keys are the ones serde reads,
//! whose defaults are what a file that leaves the key out gets, and whose
//! meanings are the fields' `///` comments (read from the source files).
//! The test renders the page and fails when the committed one differs.
//! Regenerate it with
//! `PACOZERO_UPDATE_REFERENCE=1 cargo test --release -p pacozero --test config_reference`.

use pacozero_book::BookConfig;
use pacozero_run::looping::LoopFile;
use pacozero_search::SearchConfig;
use pacozero_selfplay::SelfplayConfig;
use pacozero_train::{NetTable, TrainConfig, TrainFile};
use serde::de::DeserializeOwned;
mod reference_page;
use serde_json::Value;
use std::path::{Path, PathBuf};

const REGENERATE: &str = "PACOZERO_UPDATE_REFERENCE=1 cargo test --release -p pacozero --test config_reference";

/// The kinds of configuration file: the sections of each are rendered from
/// one of them, and a key's default is read from that file left empty.
#[derive(Clone, Copy, PartialEq)]
enum FileKind {
    /// `pacozero loop --config` (and `evaluate`): `[loop]`, `[selfplay]`,
    /// `[selfplay.search]`, `[net]`, `[train]`.
    Loop,
    /// `pacozero book build --config`: keys at the top level.
    Book,
}

/// One table of the page: a section of a configuration file and the struct
/// that reads it.
struct Section {
    /// The table's name in the file (`[]` for the top level).
    table: &'static [&'static str],
    file: FileKind,
    /// The struct's source file, from the repository root, and its name.
    source: &'static str,
    name: &'static str,
    /// The keys serde accepts (see [`accepted_keys`]).
    accepted: fn() -> Vec<&'static str>,
    /// What the section is for (one or two short sentences of the page).
    about: &'static str,
}

const SECTIONS: &[Section] = &[
    Section {
        table: &["loop"],
        file: FileKind::Loop,
        source: "run/src/looping/config.rs",
        name: "LoopConfig",
        accepted: accepted_keys::<pacozero_run::looping::LoopConfig>,
        about: "The loop's generations, its evaluation matches and its promotion rule.",
    },
    Section {
        table: &["selfplay"],
        file: FileKind::Loop,
        source: "selfplay/src/config.rs",
        name: "SelfplayConfig",
        accepted: accepted_keys::<SelfplayConfig>,
        about: "Self-play: start positions, playout caps, temperatures and resignation. In a self-play file these keys are at the top level.",
    },
    Section {
        table: &["selfplay", "search"],
        file: FileKind::Loop,
        source: "search/src/config.rs",
        name: "SearchConfig",
        accepted: accepted_keys::<SearchConfig>,
        about: "The tree search of self-play and of the loop's network players. In a self-play file this table is `[search]`.",
    },
    Section {
        table: &["net"],
        file: FileKind::Loop,
        source: "train/src/files.rs",
        name: "NetTable",
        accepted: accepted_keys::<NetTable>,
        about: "The network's architecture. The input and policy sizes come from the game.",
    },
    Section {
        table: &["train"],
        file: FileKind::Loop,
        source: "batch/src/config.rs",
        name: "TrainConfig",
        accepted: accepted_keys::<TrainConfig>,
        about: "Optimisation, learning targets, augmentation and the training window.",
    },
    Section {
        table: &[],
        file: FileKind::Book,
        source: "book/src/build.rs",
        name: "BookConfig",
        accepted: accepted_keys::<BookConfig>,
        about: "How `pacozero book build` grows an opening book. The keys are at the top level of the book file.",
    },
];

fn repo_root() -> PathBuf {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    Path::new(&manifest).parent().unwrap().to_path_buf()
}

fn reference_path() -> PathBuf {
    repo_root().join("docs/config-keys.md")
}

// --- The keys serde accepts --------------------------------------------------

/// What [`FieldNames`] finds: the field names a struct's `Deserialize`
/// hands to `deserialize_struct`, or why there are none.
#[derive(Debug)]
enum Found {
    Fields(&'static [&'static str]),
    Other(String),
}

impl std::fmt::Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for Found {}

impl serde::de::Error for Found {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Found::Other(msg.to_string())
    }
}

/// A deserializer that reads nothing: serde's derive calls
/// `deserialize_struct` with every name it accepts (aliases included), and
/// that call stops with those names. A struct with a `#[serde(flatten)]`
/// field asks for a map instead and has no such list.
struct FieldNames;

impl<'de> serde::Deserializer<'de> for FieldNames {
    type Error = Found;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Found> {
        Err(Found::Other("not a struct with named fields (a #[serde(flatten)] field?)".into()))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(self, _: &'static str, fields: &'static [&'static str], _: V) -> Result<V::Value, Found> {
        Err(Found::Fields(fields))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// Every key `T` reads, aliases included.
fn accepted_keys<T: DeserializeOwned>() -> Vec<&'static str> {
    match T::deserialize(FieldNames) {
        Err(Found::Fields(fields)) => fields.to_vec(),
        Err(Found::Other(why)) => panic!("{}: cannot list its keys: {why}", std::any::type_name::<T>()),
        Ok(_) => unreachable!("FieldNames reads nothing"),
    }
}

// --- The fields in the source -------------------------------------------------

/// A field of a configuration struct as its source declares it.
struct Field {
    /// The key (the field's name, or its `#[serde(rename)]`).
    key: String,
    /// `#[serde(alias)]` names.
    aliases: Vec<String>,
    rust_type: String,
    /// The `///` comment, on one line.
    doc: String,
    /// `file:line` of the field, for errors.
    at: String,
}

/// The fields of `pub struct <name>` in `source` (a path from the repository
/// root), with their doc comments and serde names. Panics, naming the file
/// and line, on a field without a doc comment or with an attribute this
/// reader does not understand.
fn struct_fields(source: &str, name: &str) -> Vec<Field> {
    let text = std::fs::read_to_string(repo_root().join(source)).unwrap_or_else(|e| panic!("reading {source}: {e}"));
    let lines: Vec<&str> = text.lines().collect();
    let header = format!("pub struct {name} {{");
    let start = lines.iter().position(|l| l.trim() == header).unwrap_or_else(|| panic!("{source}: no line `{header}`"));
    let (mut fields, mut doc, mut attrs) = (Vec::new(), Vec::<String>::new(), Vec::<String>::new());
    let mut missing = Vec::new();
    for (i, raw) in lines.iter().enumerate().skip(start + 1) {
        let line = raw.trim();
        let at = format!("{source}:{}", i + 1);
        if line == "}" {
            break;
        } else if let Some(d) = line.strip_prefix("///") {
            doc.push(d.strip_prefix(' ').unwrap_or(d).to_string());
        } else if line.starts_with("#[") {
            assert!(line.ends_with(']'), "{at}: an attribute over several lines; write it on one line");
            attrs.push(line.to_string());
        } else if line.is_empty() || line.starts_with("//") {
            continue;
        } else {
            let decl = line.strip_prefix("pub ").unwrap_or(line).trim_end_matches(',');
            let (ident, ty) = decl.split_once(':').unwrap_or_else(|| panic!("{at}: not a field: {line}"));
            let serde = serde_attributes(&attrs, &at);
            if doc.iter().all(|d| d.trim().is_empty()) {
                missing.push(format!("{at}: `{}` of {name}", ident.trim()));
            }
            if !serde.skipped {
                fields.push(Field {
                    key: serde.rename.unwrap_or_else(|| ident.trim().to_string()),
                    aliases: serde.aliases,
                    rust_type: ty.trim().to_string(),
                    doc: one_line(&doc),
                    at,
                });
            }
            doc.clear();
            attrs.clear();
        }
    }
    assert!(missing.is_empty(), "configuration keys without a `///` doc comment (the reference shows it as the key's meaning):\n  {}", missing.join("\n  "));
    fields
}

/// What a field's `#[serde(...)]` attributes say about its key.
#[derive(Default)]
struct SerdeNames {
    rename: Option<String>,
    aliases: Vec<String>,
    /// `skip` or `skip_deserializing`: not a key.
    skipped: bool,
}

fn serde_attributes(attrs: &[String], at: &str) -> SerdeNames {
    let mut names = SerdeNames::default();
    for attr in attrs {
        let Some(inner) = attr.strip_prefix("#[serde(").and_then(|a| a.strip_suffix(")]")) else { continue };
        for item in inner.split(',').map(str::trim) {
            let quoted = |prefix: &str| item.strip_prefix(prefix).map(|v| v.trim().trim_matches('"').to_string());
            if let Some(v) = quoted("rename =") {
                names.rename = Some(v);
            } else if let Some(v) = quoted("alias =") {
                names.aliases.push(v);
            } else if item == "skip" || item == "skip_deserializing" {
                names.skipped = true;
            } else if item == "flatten" || item.starts_with("rename(") || item.starts_with("alias(") {
                panic!("{at}: #[serde({item})] is not handled by this reference; list the flattened struct as a section of its own or extend struct_fields");
            }
        }
    }
    names
}

/// Doc lines joined into one line; intra-doc links become code spans.
fn one_line(doc: &[String]) -> String {
    let text = doc.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
    text.replace("[`", "`").replace("`]", "`")
}

// --- Defaults ---------------------------------------------------------------

/// A file of `kind` with every key left out, as JSON: what each key is then.
/// (JSON, not TOML: it has a `null` for an unset optional key, and writes an
/// `f32` as the number written in the code.)
fn empty_file(kind: FileKind) -> Value {
    read_file(kind, "").unwrap_or_else(|e| panic!("an empty file does not read: {e}"))
}

/// The file `text` of `kind` as the code reads it (before any range check),
/// as JSON.
fn read_file(kind: FileKind, text: &str) -> Result<Value, String> {
    let json = match kind {
        FileKind::Loop => toml::from_str::<LoopFile>(text).map_err(|e| e.to_string()).and_then(|f| serde_json::to_string(&f).map_err(|e| e.to_string())),
        FileKind::Book => toml::from_str::<BookConfig>(text).map_err(|e| e.to_string()).and_then(|f| serde_json::to_string(&f).map_err(|e| e.to_string())),
    }?;
    Ok(serde_json::from_str(&json).unwrap())
}

/// The section's part of `file`.
fn section_of<'a>(file: &'a Value, table: &[&str]) -> &'a Value {
    table.iter().fold(file, |v, t| &v[*t])
}

/// A default as the file would write it (`"gumbel"`, `0.25`, `true`).
fn toml_literal(v: &Value) -> Option<String> {
    match v {
        Value::Null | Value::Object(_) => None,
        Value::String(s) => Some(toml::Value::String(s.clone()).to_string()),
        Value::Array(items) => Some(format!("[{}]", items.iter().filter_map(toml_literal).collect::<Vec<_>>().join(", "))),
        other => Some(other.to_string()),
    }
}

/// The defaults of the keys that serialization leaves out when they hold
/// them (`skip_serializing_if`), by `section.key`: their TOML literal, or
/// `None` for an optional key that is unset. Each is checked like the
/// others: written into a file, it reads as a file without the key.
fn left_out_defaults() -> Vec<(&'static str, Option<String>)> {
    vec![
        ("loop.previous_games", None),
        ("selfplay.encoding", Some(toml::Value::String(pacozero_engine::DEFAULT_ENCODING.to_string()).to_string())),
        ("net.precision", Some(toml::Value::String(pacozero_nn::NetPrecision::default().to_string()).to_string())),
    ]
}

/// A TOML text that sets `key` of the section to `literal`.
fn file_setting(table: &[&str], key: &str, literal: &str) -> String {
    if table.is_empty() {
        format!("{key} = {literal}\n")
    } else {
        format!("[{}]\n{key} = {literal}\n", table.join("."))
    }
}

// --- The page ----------------------------------------------------------------

/// The type a key takes in the file, from the field's Rust type. Enums are
/// strings (their values are in the key's meaning); a type this table does
/// not know is an error, so that a new one is named here on purpose.
fn toml_type(field: &Field) -> String {
    let ty = field.rust_type.as_str();
    // An engine spec as given, written "" for none (`loop.external`).
    if ty == "Option<Given<UciSpec>>" {
        return "string".into();
    }
    if let Some(inner) = ty.strip_prefix("Option<").and_then(|t| t.strip_suffix('>')) {
        let inner = Field { rust_type: inner.to_string(), key: field.key.clone(), aliases: vec![], doc: String::new(), at: field.at.clone() };
        return format!("{}, optional", toml_type(&inner));
    }
    const STRING_ENUMS: &[&str] =
        &["GameKind", "Promotion", "Openings", "StartPositions", "Algorithm", "OptimizerKind", "LrSchedule", "PolicyHead", "NetPrecision"];
    match ty {
        "u8" | "u16" | "u32" | "u64" | "usize" | "i32" | "i64" => "integer".into(),
        "f32" | "f64" => "float".into(),
        "bool" => "boolean".into(),
        "String" => "string".into(),
        "PathBuf" => "path (string)".into(),
        "SearchConfig" => "table".into(),
        _ if STRING_ENUMS.contains(&ty) => "string".into(),
        _ => panic!("{}: type `{ty}` of key `{}`: add it to toml_type in cli/tests/config_reference.rs", field.at, field.key),
    }
}

/// A table cell: `|` escaped, and a `<` that could open an HTML tag
/// (`<word`) outside code spans shown as text.
fn cell(text: &str) -> String {
    text.split('`').enumerate().map(|(i, part)| if i % 2 == 0 { escape_tags(part) } else { part.to_string() }).collect::<Vec<_>>().join("`").replace('|', "\\|")
}

fn escape_tags(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let opens_tag = c == '<' && chars.peek().is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?'));
        if opens_tag {
            out.push_str("&lt;");
        } else {
            out.push(c);
        }
    }
    out
}

fn heading(section: &Section) -> String {
    match section.table {
        [] => "Book file (top level)".to_string(),
        t => format!("`[{}]`", t.join(".")),
    }
}

/// The rows of a section's table, checked against the code: the keys are
/// the ones serde accepts, and each default, written into a file, reads as
/// the default again.
fn section_rows(section: &Section) -> Vec<String> {
    let fields = struct_fields(section.source, section.name);
    let mut declared: Vec<String> = fields.iter().flat_map(|f| std::iter::once(f.key.clone()).chain(f.aliases.iter().cloned())).collect();
    let mut accepted: Vec<String> = (section.accepted)().iter().map(|k| k.to_string()).collect();
    declared.sort();
    accepted.sort();
    assert_eq!(declared, accepted, "the keys of {} in {} (with their aliases) are not the ones serde accepts", section.name, section.source);
    let empty = empty_file(section.file);
    let defaults = section_of(&empty, section.table);
    let left_out = left_out_defaults();
    let mut rows = Vec::new();
    for field in &fields {
        let path = format!("{}.{}", section.table.join("."), field.key);
        let default = match defaults.get(&field.key) {
            Some(value) => toml_literal(value),
            None => left_out.iter().find(|(p, _)| *p == path).map(|(_, literal)| literal.clone()).unwrap_or_else(|| {
                panic!("{}: `{path}` is left out of the serialized defaults (skip_serializing_if): name its default in left_out_defaults", field.at)
            }),
        };
        if let Some(literal) = &default {
            let text = file_setting(section.table, &field.key, literal);
            let read =
                read_file(section.file, &text).unwrap_or_else(|e| panic!("{}: the default {literal} of `{}` does not read back: {e}", field.at, field.key));
            assert_eq!(read, empty, "{}: `{}` = {literal} is not what a file without the key gets", field.at, field.key);
        }
        let shown = match (&default, defaults.get(&field.key)) {
            (Some(literal), _) => format!("`{literal}`"),
            (None, Some(Value::Object(_))) => format!("the `[{path}]` table"),
            (None, _) => "none".to_string(),
        };
        let key = std::iter::once(format!("`{}`", field.key)).chain(field.aliases.iter().map(|a| format!("(alias `{a}`)"))).collect::<Vec<_>>().join(" ");
        rows.push(format!("| {key} | {} | {shown} | {} |", toml_type(field), cell(&field.doc)));
    }
    rows
}

const INTRO: &str = "# Configuration keys

This page is generated from the code by `cli/tests/config_reference.rs`; do not edit it by hand.
Regenerate it with `PACOZERO_UPDATE_REFERENCE=1 cargo test --release -p pacozero --test config_reference`.

Every key is optional. A key left out of a file takes the default shown here.
Unknown keys and out-of-range values are refused with the key's name.
The meanings give each key's range in parentheses.
[Configuration files](configuration.md) says which file each command reads.

| file | read by | its sections |
|---|---|---|
| loop file (`configs/quick.toml`, `configs/gpu.toml`, a run's `config.toml`) | `pacozero loop --config`, `pacozero evaluate --config` | `[loop]`, `[selfplay]`, `[selfplay.search]`, `[net]`, `[train]` |
| self-play file (`configs/selfplay.toml`) | `pacozero selfplay --config` | the keys of `[selfplay]` at the top level, and `[search]`, the keys of `[selfplay.search]` |
| training file (`configs/train.toml`) | `pacozero train --config` | `[net]`, `[train]` |
| book file (`configs/book.toml`) | `pacozero book build --config` | the keys of the last table below, at the top level |

`pacozero loop` without `--config` reads the embedded `configs/quick.toml`, whose values differ from these defaults.
`--set section.key=value` overrides one key of any of these files, and `--set key=value` one at the top level.
";

/// The page: the introduction, then one table per section.
fn render() -> String {
    let mut page = INTRO.to_string();
    for section in SECTIONS {
        page.push_str(&format!("\n## {}\n\n{} The struct is `{}` in `{}`.\n\n", heading(section), section.about, section.name, section.source));
        page.push_str("| key | type | default | meaning |\n|---|---|---|---|\n");
        for row in section_rows(section) {
            page.push_str(&row);
            page.push('\n');
        }
    }
    page
}

#[test]
fn config_reference_is_current() {
    reference_page::check_current(&reference_path(), &render(), "the code", REGENERATE);
}

/// The self-play and training files read their keys with the same structs
/// as a loop file's sections, with the same defaults, as the page says.
#[test]
fn the_other_files_share_the_loop_files_sections() {
    let loop_file = empty_file(FileKind::Loop);
    let selfplay: SelfplayConfig = toml::from_str("").unwrap();
    assert_eq!(serde_json::to_value(&selfplay).unwrap(), serde_json::to_value(toml::from_str::<LoopFile>("").unwrap().selfplay).unwrap());
    let train: TrainFile = toml::from_str("").unwrap();
    let loop_parsed = toml::from_str::<LoopFile>("").unwrap();
    assert_eq!(serde_json::to_value(&train.net).unwrap(), serde_json::to_value(&loop_parsed.net).unwrap());
    assert_eq!(serde_json::to_value(&train.train).unwrap(), serde_json::to_value(&loop_parsed.train).unwrap());
    // The loop file has exactly the sections the page tables.
    let mut sections: Vec<&str> = loop_file.as_object().unwrap().keys().map(String::as_str).collect();
    sections.sort();
    let mut tabled: Vec<&str> = SECTIONS.iter().filter(|s| s.file == FileKind::Loop && s.table.len() == 1).map(|s| s.table[0]).collect();
    tabled.sort();
    assert_eq!(sections, tabled, "the loop file's sections");
    assert_eq!(accepted_keys::<LoopFile>().len(), tabled.len(), "the loop file's sections as serde reads them");
}
