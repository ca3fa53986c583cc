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

use anyhow::{Context, Result};
use pacozero_arena::rating_list::{rating_list, Anchor, Matchup, RatingList};
use pacozero_arena::ratings::{Pentanomial, Wdl};
use pacozero_data::jsonl::{append_line, read_jsonl};
use pacozero_data::tfevents::EventWriter;
use pacozero_data::RunDir;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
    Ok(pacozero_data::write_atomic(&RunDir::new(run).state(), &[serde_json::to_string_pretty(s)?.as_bytes()])?)
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

pub fn append_match(run: &Path, m: &MatchLine) -> Result<()> {
    Ok(append_line(&RunDir::new(run).matches(), &serde_json::to_string(m)?)?)
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

/// Fits the rating list of every match of the run (one joint fit with a
/// prior of virtual draws, intervals from the pairs, the gap to the next
/// player; [`pacozero_arena::rating_list`]) with `anchor` at 0, or
/// the players' mean at 0 when the anchor played no match; writes
/// `ratings.csv` and `ratings.md` and returns the Markdown table and the
/// list (`None` before the first match).
pub fn write_ratings(run: &Path, anchor: &str) -> Result<(String, Option<RatingList>)> {
    let matchups: Vec<Matchup> = read_matches(run)?
        .into_iter()
        .map(|m| Matchup { a: m.a, b: m.b, wdl: Wdl { wins: m.wins, draws: m.draws, losses: m.losses }, pentanomial: Pentanomial(m.pentanomial) })
        .collect();
    let played = matchups.iter().any(|m| m.a == anchor || m.b == anchor);
    let pin = if played { Anchor::Player { name: anchor.to_string(), elo: 0.0 } } else { Anchor::Mean(0.0) };
    let list = if matchups.is_empty() { None } else { Some(rating_list(&matchups, &pin).map_err(|e| anyhow::anyhow!("{}: {e}", run.display()))?) };
    let (csv, md) = match &list {
        Some(l) => (l.to_csv(), l.to_markdown()),
        None => (RatingList { anchor: pin, ratings: Vec::new() }.to_csv(), "no matches yet\n".to_string()),
    };
    pacozero_data::write_atomic(&RunDir::new(run).ratings_csv(), &[csv.as_bytes()])?;
    pacozero_data::write_atomic(&RunDir::new(run).ratings_md(), &[md.as_bytes()])?;
    Ok((md, list))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{err_text, tiny_model, TempDir};
    use pacozero_arena::rating_list::Anchor;
    use pacozero_engine::paco::GameState as Paco;

    fn match_line(generation: u32, a: &str, b: &str, wins: u32, draws: u32, losses: u32, pentanomial: [u32; 5]) -> MatchLine {
        MatchLine { pentanomial, ..crate::test_support::match_line(generation, a, b, wins, draws, losses) }
    }

    #[test]
    fn a_written_file_has_the_bytes_and_no_temporary_is_left() {
        let dir = TempDir::new("atomic");
        let p = dir.join("x.json");
        pacozero_data::write_atomic(&p, &[b"old"]).unwrap();
        pacozero_data::write_atomic(&p, &[b"new contents"]).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new contents");
        let names: Vec<String> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["x.json"]);
    }

    #[test]
    fn a_new_run_is_at_generation_one_and_a_saved_state_reads_back() {
        let dir = TempDir::new("state");
        assert_eq!(load_state(dir.path()).unwrap(), LoopState { generation: 1, ..LoopState::default() });
        let s = LoopState {
            game: "shako".into(),
            generation: 4,
            done: Stage::Train,
            promoted: true,
            train_upto: "1700000000000-w0001".into(),
            ..LoopState::default()
        };
        save_state(dir.path(), &s).unwrap();
        assert_eq!(load_state(dir.path()).unwrap(), s);
        let text = std::fs::read_to_string(RunDir::new(dir.path()).state()).unwrap();
        assert!(text.contains("\"done\": \"train\"") && text.contains("\"promoted\": true"), "{text}");
        // Nothing done yet is "" in the file, and `promoted: false` is left out.
        save_state(dir.path(), &LoopState { generation: 2, ..LoopState::default() }).unwrap();
        let text = std::fs::read_to_string(RunDir::new(dir.path()).state()).unwrap();
        assert!(text.contains("\"done\": \"\"") && !text.contains("promoted"), "{text}");
        std::fs::write(RunDir::new(dir.path()).state(), "{\"generation\": \"two\"}").unwrap();
        let e = err_text(load_state(dir.path()));
        assert!(e.contains(&format!("{}: not a loop state file", RunDir::new(dir.path()).state().display())), "{e}");
    }

    #[test]
    fn the_best_model_is_the_one_models_current_names() {
        let dir = TempDir::new("best");
        assert_eq!(best_model(dir.path()).unwrap(), "", "none before the first promotion");
        tiny_model::<Paco>(dir.path(), "gen-0003");
        pacozero_nn::set_current_model(dir.path(), "gen-0003").unwrap();
        assert_eq!(best_model(dir.path()).unwrap(), "gen-0003");
    }

    #[test]
    fn a_stage_line_has_the_finite_figures_and_they_go_to_tensorboard_too() {
        let dir = TempDir::new("stage");
        let run = dir.path();
        append_stage(run, 3, "train", &[("steps", 4.0), ("loss", 0.5), ("policy_top1", f64::NAN), ("rate", f64::INFINITY)]).unwrap();
        append_stage(run, 3, "eval", &[("promoted", 1.0)]).unwrap();
        let text = std::fs::read_to_string(RunDir::new(run).generations()).unwrap();
        assert_eq!(text, "{\"generation\":3,\"stage\":\"train\",\"loss\":0.5,\"steps\":4.0}\n{\"generation\":3,\"stage\":\"eval\",\"promoted\":1.0}\n");
        let events: Vec<_> = std::fs::read_dir(RunDir::new(run).tensorboard("loop")).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(events.len(), 1, "{events:?}");
        assert!(std::fs::metadata(&events[0]).unwrap().len() > 0);
    }

    #[test]
    fn generations_are_read_by_stage_and_figure_and_a_repeated_stage_overrides() {
        let dir = TempDir::new("generations");
        let p = RunDir::new(dir.path()).generations();
        std::fs::write(
            &p,
            "{\"generation\":1,\"stage\":\"train\",\"loss\":2.0,\"policy_top1\":null}\n\
             {\"generation\":1,\"stage\":\"selfplay\",\"games\":4}\n\
             {\"generation\":1,\"stage\":\"train\",\"loss\":1.5}\n\
             {\"generation\":2,\"stage\":\"train\",\"loss\":1.0}\n",
        )
        .unwrap();
        let g = read_generations(dir.path()).unwrap();
        let want: Generations = [
            (1, [("selfplay.games".to_string(), 4.0), ("train.loss".to_string(), 1.5)].into_iter().collect()),
            (2, [("train.loss".to_string(), 1.0)].into_iter().collect()),
        ]
        .into_iter()
        .collect();
        assert_eq!(g, want);
    }

    #[test]
    fn a_match_repeated_after_a_crash_counts_once_with_its_last_line() {
        let dir = TempDir::new("matches");
        let run = dir.path();
        assert!(read_matches(run).unwrap().is_empty());
        append_match(run, &match_line(1, "gen-0001", "rollout-8", 1, 0, 1, [0, 0, 1, 0, 0])).unwrap();
        append_match(run, &match_line(2, "gen-0002", "gen-0001", 2, 0, 0, [0, 0, 0, 0, 1])).unwrap();
        append_match(run, &match_line(1, "gen-0001", "rollout-8", 2, 0, 0, [0, 0, 0, 0, 1])).unwrap();
        let got: Vec<(u32, String, u32)> = read_matches(run).unwrap().into_iter().map(|m| (m.generation, m.a, m.wins)).collect();
        assert_eq!(got, [(2, "gen-0002".to_string(), 2), (1, "gen-0001".to_string(), 2)]);
    }

    #[test]
    fn ratings_are_pinned_at_the_anchor_when_it_played_and_at_the_mean_when_not() {
        let dir = TempDir::new("ratings");
        let run = dir.path();
        let (md, list) = write_ratings(run, "gen-0001").unwrap();
        assert_eq!((md.as_str(), list), ("no matches yet\n", None));
        assert_eq!(std::fs::read_to_string(RunDir::new(run).ratings_csv()).unwrap(), "player,elo,ci95,ci95_trinomial,above_next,above_next_ci95,score,games\n");
        assert_eq!(std::fs::read_to_string(RunDir::new(run).ratings_md()).unwrap(), "no matches yet\n");
        // gen-0002 scores 3 of 4 against gen-0001 (the anchor, as b), 4 of 6
        // with the rating list's two virtual draws: 400 log10(4 / 2) = +120.4 Elo.
        append_match(run, &match_line(2, "gen-0002", "gen-0001", 3, 0, 1, [0, 0, 1, 0, 1])).unwrap();
        let elo = 400.0 * 2f64.log10();
        let (md, list) = write_ratings(run, "gen-0001").unwrap();
        let list = list.unwrap();
        assert_eq!(list.anchor, Anchor::Player { name: "gen-0001".into(), elo: 0.0 });
        assert_eq!(list.get("gen-0001").unwrap().elo, 0.0);
        assert!((list.get("gen-0002").unwrap().elo - elo).abs() < 0.1, "{list:?}");
        assert_eq!(md, list.to_markdown());
        assert_eq!(std::fs::read_to_string(RunDir::new(run).ratings_csv()).unwrap(), list.to_csv());
        // An anchor without a game: the mean is 0, the two at ±60.2.
        let (_, list) = write_ratings(run, "gen-0009").unwrap();
        let list = list.unwrap();
        assert_eq!(list.anchor, Anchor::Mean(0.0));
        assert!((list.get("gen-0002").unwrap().elo - elo / 2.0).abs() < 0.1 && (list.get("gen-0001").unwrap().elo + elo / 2.0).abs() < 0.1, "{list:?}");
    }
}
