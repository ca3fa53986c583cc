//! The files of a loop's run directory that more than one stage (and the
//! report) read: the loop state, the per-stage figures, the matches and the
//! ratings. Each write is whole or nothing (a temporary file renamed over the
//! old one) or an appended line synced to disk; readers skip a last line cut
//! by a crash. Their paths, with every other file of a run, are named and
//! documented in `pacozero_data::run_dir`.
//!
//! | path | content |
//! |---|---|
//! | `state.json` | [`LoopState`]: game, generation, the last completed stage and whether its evaluation promoted (atomic) |
//! | `generations.jsonl` | [`StageLine`]s: `{"generation", "stage", figures...}` |
//! | `matches.jsonl` | [`MatchLine`]s: players, W/D/L, pentanomial, time and simulations per decision |
//! | `ratings.csv`, `ratings.md` | Elo of every player over all matches, anchored at `gen-0001` ([`write_ratings`]) |

use anyhow::{bail, Context, Result};
use pacozero_arena::ratings::{fit_elo, Wdl};
use pacozero_data::tfevents::EventWriter;
use pacozero_data::RunDir;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Writes `bytes` to `<path>.tmp`, syncs it, then renames it over `path`, so a
/// reader sees the old file or the new one, never a part.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    pacozero_data::write_atomic(path, &[bytes]).with_context(|| format!("writing {}", path.display()))
}

/// The stages of a generation, in order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Nothing of the generation is done yet.
    #[default]
    #[serde(rename = "")]
    None,
    Selfplay,
    Train,
    Eval,
}

/// The loop's progress (`state.json`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LoopState {
    /// The game of the run (`paco`, `shako`; absent in older Paco runs).
    #[serde(default)]
    pub game: String,
    /// The generation in progress (1-based: generation g trains model gen-g).
    pub generation: u32,
    /// Last completed stage of that generation (`""` in the file: none yet).
    pub done: Stage,
    /// Whether the completed evaluation of this generation (`done` =
    /// `eval`) promoted its model. The best model itself is recorded once,
    /// in `models/current` ([`best_model`]), which moves only after this is
    /// saved, so a crash in between is repaired on resume. (Runs of earlier
    /// builds also have a `best` key here; it is ignored.)
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub promoted: bool,
    /// What runs the loop: the build, backend and CPUs of the latest start
    /// (absent in runs of earlier builds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<pacozero_data::Provenance>,
    /// The configuration as the loop reads it, every default filled in
    /// (`config.toml` holds the text as written, with its `--set`s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<serde_json::Value>,
    /// In an overlapped generation (`loop.overlap`): the newest chunk that
    /// was complete when it began, the last its training reads (kept so that
    /// a resumed generation trains on the same chunks); empty otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub train_upto: String,
}

pub fn load_state(run: &Path) -> Result<LoopState> {
    let p = RunDir::new(run).state();
    if !p.exists() {
        return Ok(LoopState { generation: 1, ..LoopState::default() });
    }
    let text = std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not a loop state file", p.display()))
}

/// The best model of a run: the one `models/current` names (empty before
/// the first promotion).
pub fn best_model(run: &Path) -> Result<String> {
    if !RunDir::new(run).current_pointer().exists() {
        return Ok(String::new());
    }
    let path = pacozero_nn::current_model(run).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default())
}

pub fn save_state(run: &Path, s: &LoopState) -> Result<()> {
    write_atomic(&RunDir::new(run).state(), serde_json::to_string_pretty(s)?.as_bytes())
}

/// One match result line of `matches.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchLine {
    pub generation: u32,
    pub a: String,
    pub b: String,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub pentanomial: [u32; 5],
    pub avg_decisions: f64,
    /// Mean seconds per decision of A and of B (absent in older runs).
    #[serde(default)]
    pub seconds_per_decision: Option<[f64; 2]>,
    /// Mean simulations per decision of A and of B (absent in older runs).
    #[serde(default)]
    pub simulations_per_decision: Option<[f64; 2]>,
    /// Games by how they ended (`paco`, `no_progress`, `repetition`, `max_length`, ...; absent in older runs).
    #[serde(default)]
    pub end_reasons: std::collections::BTreeMap<String, u32>,
    /// The gating match's sequential test (`promotion = "sprt"`): `"H1
    /// accepted"`, `"H0 accepted"` or `"undecided"` (the `gating_games` cap
    /// reached); absent for other matches and in older runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<String>,
}

/// One line of `generations.jsonl`: the figures of one completed stage.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StageLine {
    pub generation: u32,
    pub stage: String,
    /// Figures; a figure that is not a number (e.g. policy accuracy of a
    /// batch without full searches) is left out, and `null` read as missing.
    #[serde(flatten)]
    pub figures: BTreeMap<String, Option<f64>>,
}

pub fn append_stage(run: &Path, generation: u32, stage: &str, figures: &[(&str, f64)]) -> Result<()> {
    let line =
        StageLine { generation, stage: stage.into(), figures: figures.iter().filter(|(_, v)| v.is_finite()).map(|(k, v)| (k.to_string(), Some(*v))).collect() };
    append_line(&RunDir::new(run).generations(), &serde_json::to_string(&line)?)?;
    stage_events(run, generation, stage, figures)
}

/// The same figures as TensorBoard scalars `<stage>/<figure>` at step =
/// generation, in this process's event file of `tensorboard/loop/`.
fn stage_events(run: &Path, generation: u32, stage: &str, figures: &[(&str, f64)]) -> Result<()> {
    static WRITERS: Mutex<BTreeMap<PathBuf, EventWriter>> = Mutex::new(BTreeMap::new());
    let dir = RunDir::new(run).tensorboard("loop");
    let mut writers = WRITERS.lock().unwrap_or_else(|e| e.into_inner());
    let w = match writers.entry(dir) {
        std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::btree_map::Entry::Vacant(e) => {
            let w = EventWriter::create(e.key())?;
            e.insert(w)
        }
    };
    let tags: Vec<String> = figures.iter().map(|(k, _)| format!("{stage}/{k}")).collect();
    let scalars: Vec<(&str, f64)> = tags.iter().map(String::as_str).zip(figures.iter().map(|(_, v)| *v)).collect();
    w.scalars(generation as i64, &scalars)?;
    Ok(())
}

/// Figures by generation, then by `"stage.figure"`; a stage repeated after
/// a crash overrides the earlier line.
pub type Generations = BTreeMap<u32, BTreeMap<String, f64>>;

pub fn read_generations(run: &Path) -> Result<Generations> {
    let mut out = Generations::new();
    for l in read_jsonl::<StageLine>(&RunDir::new(run).generations())? {
        let e = out.entry(l.generation).or_default();
        for (k, v) in l.figures.into_iter().filter_map(|(k, v)| Some((k, v?))) {
            e.insert(format!("{}.{k}", l.stage), v);
        }
    }
    Ok(out)
}

pub fn append_line(p: &Path, line: &str) -> Result<()> {
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(p).with_context(|| format!("opening {}", p.display()))?;
    writeln!(f, "{line}").with_context(|| format!("appending to {}", p.display()))?;
    f.sync_all()?;
    Ok(())
}

/// Reads a JSON-lines file (missing = empty). Only the last line may be cut
/// (a crash while appending); it is skipped with a warning.
pub fn read_jsonl<T: serde::de::DeserializeOwned>(p: &Path) -> Result<Vec<T>> {
    if !p.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(l) {
            Ok(m) => out.push(m),
            Err(e) if i + 1 == lines.len() && !text.ends_with('\n') => eprintln!("warning: {}:{}: ignoring an incomplete last line ({e})", p.display(), i + 1),
            Err(e) => bail!("{}:{}: {e}", p.display(), i + 1),
        }
    }
    Ok(out)
}

pub fn append_match(run: &Path, m: &MatchLine) -> Result<()> {
    append_line(&RunDir::new(run).matches(), &serde_json::to_string(m)?)
}

/// The matches of a run. An evaluation stage repeated after a crash appends
/// its matches again: only the last line of each (generation, a, b) counts.
pub fn read_matches(run: &Path) -> Result<Vec<MatchLine>> {
    let all: Vec<MatchLine> = read_jsonl(&RunDir::new(run).matches())?;
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<MatchLine> = all.into_iter().rev().filter(|m| seen.insert((m.generation, m.a.clone(), m.b.clone()))).collect();
    out.reverse();
    Ok(out)
}

/// Elo of every player over all matches, anchored at the first network.
/// Fits the rating list of every match of the run, writes `ratings.csv` and
/// `ratings.md`, and returns the Markdown table and the ratings.
pub fn write_ratings(run: &Path) -> Result<(String, Vec<pacozero_arena::ratings::Rating>)> {
    let matches = read_matches(run)?;
    let mut results: BTreeMap<(String, String), Wdl> = BTreeMap::new();
    for m in &matches {
        let e = results.entry((m.a.clone(), m.b.clone())).or_default();
        e.wins += m.wins;
        e.draws += m.draws;
        e.losses += m.losses;
    }
    let anchor = "gen-0001";
    let mut ratings = fit_elo(&results, anchor);
    ratings.sort_by(|a, b| a.name.cmp(&b.name));
    let mut csv = String::from("player,elo,ci95,games\n");
    let mut md = String::from("| player | Elo vs gen-0001 | 95% | games |\n|---|---:|---:|---:|\n");
    for r in &ratings {
        csv.push_str(&format!("{},{:.1},{:.1},{}\n", csv_field(&r.name), r.elo, r.ci95, r.games));
        md.push_str(&format!("| {} | {:+.0} | ±{:.0} | {} |\n", r.name, r.elo, r.ci95, r.games));
    }
    write_atomic(&RunDir::new(run).ratings_csv(), csv.as_bytes())?;
    write_atomic(&RunDir::new(run).ratings_md(), md.as_bytes())?;
    Ok((md, ratings))
}

/// A CSV field: as it is, or quoted (RFC 4180) when it holds a comma, a
/// quote or a line break (an external engine's spec holds commas).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn model_name(g: u32) -> String {
    format!("gen-{g:04}")
}
