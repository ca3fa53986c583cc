//! Evaluation of a run in an object store (`pacozero evaluate --store URL`):
//! the loop's matches for every model a trainer uploads, the rating list and
//! the report written back to the store, and the promotion decided by the
//! run's rule instead of a trainer moving the pointer blindly (trainers run
//! with `train --store … --no-promote`).
//!
//! Keys it writes below the store's prefix:
//!
//! | key | how |
//! |---|---|
//! | `eval/<model>.json` | write-once: the model's matches ([`crate::files::MatchLine`]s) and the decision ([`EvalRecord`]); a model with one is evaluated |
//! | `eval/matches.jsonl`, `eval/ratings.csv`, `eval/ratings.md`, `eval/report.html` | replaced after each model (conditional put of the version read) |
//! | `models/current` | moved to the model when the rule promotes it (conditional on the pointer read before the matches) |
//!
//! The evaluator's local directory (`--run`) is an ordinary run directory
//! (models, `matches.jsonl`, ratings, report) rebuilt from the store's
//! `eval/*.json` at each start, so any machine can take over. Models are
//! taken in name order (`model-<milliseconds>`: upload order); the first
//! model of the store is the anchor (Elo 0), and the first evaluated with no
//! pointer in the store becomes the best without a gating match.

use anyhow::{bail, Context, Result};
use pacozero_data::RunDir;
use pacozero_engine::Game;
use pacozero_store::{ObjectKind, RunStore, SwapError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::files::{read_matches, write_ratings, MatchLine};
use crate::looping::{eval_matches, EvalRound, LoopFile, LoopObserver};
use crate::store_sync::{download_model, pointer_model, POINTER};

/// The folder of the evaluator's keys.
pub const EVAL: &str = "eval";

/// `eval/<model>.json`: one model's evaluation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EvalRecord {
    pub model: String,
    /// Its place among the store's models (1 = the first, the anchor).
    pub index: u32,
    /// The best model it played the gating match against ("" = none).
    pub best: String,
    pub promoted: bool,
    /// Why: the rule and its outcome.
    pub decision: String,
    pub matches: Vec<MatchLine>,
}

/// An evaluator of the run in a store.
pub struct StoreEvaluator {
    pub url: String,
    /// The local run directory (models, matches, ratings, report).
    pub cache: PathBuf,
    /// The evaluation settings: `[loop]` of a loop file (gating, anchor and
    /// baseline games, simulations, promotion rule, openings, seed).
    pub config: LoopFile,
}

/// The store's models, in name order.
fn store_models(store: &RunStore) -> Result<Vec<String>> {
    let ext = format!(".{}", pacozero_data::run_dir::MODEL_EXT);
    Ok(store
        .list(RunDir::MODELS)?
        .iter()
        .filter_map(|k| k.strip_prefix(RunDir::MODELS)?.strip_prefix('/')?.strip_suffix(&ext).map(str::to_string))
        .filter(|n| !n.contains('/'))
        .collect())
}

/// Replaces the text object `key` (created if absent); its version is read
/// from its metadata (the object can be larger than a pointer).
fn replace(store: &RunStore, key: &str, text: &str) -> Result<()> {
    let version = store.version(key)?;
    store.swap_pointer(key, text, version.as_ref()).map_err(|e| anyhow::anyhow!("{}: replacing `{key}`: {e}", store.url()))?;
    Ok(())
}

/// The evaluations the store holds, by model.
fn records(store: &RunStore) -> Result<Vec<EvalRecord>> {
    let mut out = Vec::new();
    for key in store.list(EVAL)? {
        let Some(name) = key.strip_prefix("eval/").and_then(|k| k.strip_suffix(".json")) else { continue };
        if name.contains('/') {
            continue;
        }
        let bytes = store.get(&key, ObjectKind::Json)?.with_context(|| format!("{}: `{key}` disappeared", store.url()))?;
        let record: EvalRecord = serde_json::from_slice(&bytes).with_context(|| format!("{}: `{key}` is not an evaluation record", store.url()))?;
        // Its names become local paths: model names only, and its own.
        if record.model != name || !RunDir::is_model_name(name) || !(record.best.is_empty() || RunDir::is_model_name(&record.best)) {
            bail!(
                "{}: `{key}`: field `model` {:?} or `best` {:?} is not the name of this record's model or of a model",
                store.url(),
                record.model,
                record.best
            );
        }
        out.push(record);
    }
    Ok(out)
}

/// Evaluates every model of the store without an evaluation, oldest first;
/// returns how many. `obs` hears the matches and the decisions.
pub fn store_evaluate<G: Game>(e: &StoreEvaluator, obs: &dyn LoopObserver) -> Result<usize> {
    let store = RunStore::open(&e.url)?;
    let run = &e.cache;
    std::fs::create_dir_all(RunDir::new(run).models()).with_context(|| format!("creating {}", run.display()))?;
    // The local matches are the store's: rebuilt from its records.
    let done = records(&store)?;
    let mut lines = String::new();
    for r in &done {
        for m in &r.matches {
            lines += &(serde_json::to_string(m)? + "\n");
        }
    }
    pacozero_data::write_atomic(&RunDir::new(run).matches(), &[lines.as_bytes()])?;
    let evaluated: BTreeSet<&str> = done.iter().map(|r| r.model.as_str()).collect();
    let models = store_models(&store)?;
    let Some(anchor) = models.first().cloned() else {
        obs.note(&format!("{}: no model yet", e.url));
        return Ok(0);
    };
    let todo: Vec<(u32, String)> = models.iter().enumerate().filter(|(_, m)| !evaluated.contains(m.as_str())).map(|(i, m)| (i as u32 + 1, m.clone())).collect();
    // The models evaluated so far, by place: each candidate also plays the
    // one evaluated last before it (`[loop] previous_games`).
    let mut rated: Vec<(u32, String)> = done.iter().map(|r| (r.index, r.model.clone())).collect();
    let chain = e.config.looping.previous_games.unwrap_or(e.config.looping.anchor_games) > 0;
    for (index, model) in &todo {
        download_model(&store, run, model)?;
        download_model(&store, run, &anchor)?;
        let previous = rated.iter().filter(|(i, _)| i < index).max_by_key(|(i, _)| *i).map(|(_, m)| m.clone());
        if let Some(p) = previous.as_deref().filter(|_| chain) {
            download_model(&store, run, p)?;
        }
        // The pointer before the matches: the promotion is conditional on it.
        let pointer = store.read_pointer(POINTER)?;
        let best = match &pointer {
            Some((text, _)) => {
                let name = pointer_model(&store, text)?.to_string();
                download_model(&store, run, &name)?;
                name
            }
            None => String::new(),
        };
        if &best == model {
            bail!("{}: `{POINTER}` already names {model}, which has no evaluation: is a trainer promoting blindly (run it with --no-promote)?", e.url);
        }
        obs.note(&format!("evaluating {model} (model {index} of the store; best {}, anchor {anchor})", if best.is_empty() { "none yet" } else { &best }));
        let before = read_matches(run)?.len();
        let round = EvalRound { candidate: model, anchor: Some(&anchor), previous: previous.as_deref(), best: &best, index: *index };
        let promoted = eval_matches::<G>(run, &e.config, &round, obs)?;
        let matches: Vec<MatchLine> = read_matches(run)?.into_iter().skip(before).collect();
        let rule = format!("{:?}", e.config.looping.promotion).to_lowercase();
        let decision = if best.is_empty() {
            "the first model: no best to beat".to_string()
        } else {
            format!("promotion = \"{rule}\": {}", if promoted { "promoted" } else { "not promoted" })
        };
        if promoted {
            let contents = format!("{}\n", RunDir::model_file(model));
            match store.swap_pointer(POINTER, &contents, pointer.as_ref().map(|(_, v)| v)) {
                Ok(_) => obs.note(&format!("{}: {POINTER} -> {model} ({decision})", e.url)),
                Err(SwapError::Conflict { .. }) => {
                    bail!("conflict: {POINTER} of {} moved while {model} was evaluated: is a trainer promoting blindly (run it with --no-promote)?", e.url)
                }
                Err(err) => return Err(err.into()),
            }
        } else {
            obs.note(&format!("{model} stays a candidate ({decision}); the best is still {best}"));
        }
        let record = EvalRecord { model: model.clone(), index: *index, best, promoted, decision, matches };
        store.put_once(&format!("{EVAL}/{model}.json"), serde_json::to_vec_pretty(&record)?)?;
        rated.push((*index, model.clone()));
        publish(&store, run, &anchor, obs)?;
    }
    if todo.is_empty() {
        obs.note(&format!("{}: every model is evaluated ({})", e.url, models.len()));
    }
    Ok(todo.len())
}

/// Fits the ratings, draws the report and puts both (and the matches) in the store.
fn publish(store: &RunStore, run: &Path, anchor: &str, obs: &dyn LoopObserver) -> Result<()> {
    let (table, _) = write_ratings(run, anchor)?;
    obs.note(&table);
    let page = crate::report::write_report(run)?;
    let dir = RunDir::new(run);
    // Under eval/ with the names they have in the evaluator's run directory.
    for path in [dir.matches(), dir.ratings_csv(), dir.ratings_md(), page] {
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let name = path.file_name().and_then(|n| n.to_str()).with_context(|| format!("{} has no file name", path.display()))?;
        replace(store, &format!("{EVAL}/{name}"), &text)?;
    }
    obs.note(&format!("ratings and report in {} {EVAL}/", store.url()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{err_text, tiny_loop, tiny_model_in, Notes, TempDir};
    use pacozero_engine::paco::GameState as Paco;

    #[test]
    fn a_record_naming_another_model_or_a_path_is_refused() {
        let dir = TempDir::new("eval-records");
        let url = dir.store_url("store");
        let store = RunStore::open(&url).unwrap();
        let put = |key: &str, model: &str, best: &str| {
            let r = EvalRecord { model: model.into(), index: 1, best: best.into(), promoted: false, decision: String::new(), matches: Vec::new() };
            store.put_once(key, serde_json::to_vec(&r).unwrap()).unwrap();
        };
        put("eval/m1.json", "m1", "");
        assert_eq!(records(&store).unwrap().len(), 1);
        put("eval/m2.json", "../../x", "");
        let e = err_text(records(&store));
        assert!(e.contains("`eval/m2.json`: field `model` \"../../x\" or `best` \"\" is not the name"), "{e}");
        let store = RunStore::open(&dir.store_url("store2")).unwrap();
        let r = EvalRecord { model: "m3".into(), index: 1, best: "../m1".into(), promoted: false, decision: String::new(), matches: Vec::new() };
        store.put_once("eval/m3.json", serde_json::to_vec(&r).unwrap()).unwrap();
        assert!(err_text(records(&store)).contains("`best` \"../m1\""));
    }

    fn record(store: &RunStore, model: &str) -> EvalRecord {
        serde_json::from_slice(&store.get(&format!("eval/{model}.json"), ObjectKind::Json).unwrap().unwrap()).unwrap()
    }

    /// Generation, players and games of each match.
    fn rows(matches: &[MatchLine]) -> Vec<(u32, &str, &str, u32)> {
        matches.iter().map(|m| (m.generation, m.a.as_str(), m.b.as_str(), m.wins + m.draws + m.losses)).collect()
    }

    /// Each model also plays the one evaluated before it, here on a second
    /// machine that reads it from the store's records and downloads it.
    #[test]
    fn an_evaluator_chains_each_model_to_the_one_evaluated_before_it() {
        let dir = TempDir::new("store-eval-previous");
        let url = dir.store_url("store");
        let store = RunStore::open(&url).unwrap();
        let sets = ["loop.promotion=score", "loop.promotion_score=0.6", "loop.previous_games=2"];
        let evaluator = |cache: &str| StoreEvaluator { url: url.clone(), cache: dir.join(cache), config: LoopFile::parse(&tiny_loop(&sets), "tiny").unwrap() };
        let made = dir.join("made");
        let put = |name: &str| {
            let bytes = std::fs::read(tiny_model_in::<Paco>(&made, name, 0)).unwrap();
            store.put_once(&format!("models/{name}.pzmodel"), bytes).unwrap();
        };
        put("model-0001");
        put("model-0002");
        assert_eq!(store_evaluate::<Paco>(&evaluator("cache"), &Notes::new()).unwrap(), 2);
        // model-0002's previous is model-0001, the best: the gating match plays it.
        assert_eq!(rows(&record(&store, "model-0002").matches), [(2, "model-0002", "model-0001", 2)]);
        put("model-0003");
        assert_eq!(store_evaluate::<Paco>(&evaluator("other"), &Notes::new()).unwrap(), 1);
        // Drawn games do not promote model-0002: model-0003 plays it, then the best.
        assert_eq!(rows(&record(&store, "model-0003").matches), [(3, "model-0003", "model-0002", 2), (3, "model-0003", "model-0001", 2)]);
    }

    #[test]
    fn an_evaluator_rates_each_new_model_once_and_moves_the_pointer_by_the_runs_rule() {
        let dir = TempDir::new("store-eval");
        let url = dir.store_url("store");
        let store = RunStore::open(&url).unwrap();
        let sets = ["loop.promotion=score", "loop.promotion_score=0.6", "loop.baseline_games=2"];
        let evaluator = |cache: &str| StoreEvaluator { url: url.clone(), cache: dir.join(cache), config: LoopFile::parse(&tiny_loop(&sets), "tiny").unwrap() };
        let notes = Notes::new();
        assert_eq!(store_evaluate::<Paco>(&evaluator("cache"), &notes).unwrap(), 0);
        assert_eq!(notes.lines(), [format!("{url}: no model yet")]);

        let made = dir.join("made");
        for name in ["model-0001", "model-0002", "old/model-0000"] {
            let bytes = std::fs::read(tiny_model_in::<Paco>(&made, name.rsplit('/').next().unwrap(), 0)).unwrap();
            store.put_once(&format!("models/{name}.pzmodel"), bytes).unwrap();
        }
        let notes = Notes::new();
        assert_eq!(store_evaluate::<Paco>(&evaluator("cache"), &notes).unwrap(), 2, "{}", notes.all());
        // The first model is the best without a gating match.
        let first = record(&store, "model-0001");
        assert_eq!((first.index, first.best.as_str(), first.promoted), (1, "", true));
        assert_eq!(first.decision, "the first model: no best to beat");
        assert_eq!(rows(&first.matches), [(1, "model-0001", "rollout-2", 2)]);
        // The second plays the first; drawn games score 0.5, short of 0.6.
        let second = record(&store, "model-0002");
        assert_eq!((second.index, second.best.as_str()), (2, "model-0001"));
        assert_eq!(rows(&second.matches), [(2, "model-0002", "rollout-2", 2), (2, "model-0002", "model-0001", 2)]);
        let gating = &second.matches[1];
        let score = (gating.wins as f64 + 0.5 * gating.draws as f64) / 2.0;
        assert!(score < 0.6, "these games are drawn at 20 decisions: {gating:?}");
        assert_eq!((second.promoted, second.decision.as_str()), (false, "promotion = \"score\": not promoted"));
        assert_eq!(store.read_pointer(POINTER).unwrap().unwrap().0, "model-0001.pzmodel\n");
        assert!(notes.lines().contains(&format!("{url}: models/current -> model-0001 (the first model: no best to beat)")), "{}", notes.all());
        // The ratings, matches and report of the evaluator's directory, in the store.
        let cache = RunDir::new(dir.join("cache"));
        for (key, path) in [
            ("eval/matches.jsonl", cache.matches()),
            ("eval/ratings.csv", cache.ratings_csv()),
            ("eval/ratings.md", cache.ratings_md()),
            ("eval/report.html", cache.report()),
        ] {
            assert_eq!(store.get(key, ObjectKind::Json).unwrap().unwrap(), std::fs::read(&path).unwrap(), "{key}");
        }
        assert_eq!(read_matches(&dir.join("cache")).unwrap().len(), 3);

        // Every model is evaluated: nothing to do, on this machine or another.
        for cache in ["cache", "other"] {
            let notes = Notes::new();
            assert_eq!(store_evaluate::<Paco>(&evaluator(cache), &notes).unwrap(), 0);
            assert_eq!(notes.lines(), [format!("{url}: every model is evaluated (2)")]);
            assert_eq!(read_matches(&dir.join(cache)).unwrap().len(), 3, "the matches come from the store's records");
        }

        // A trainer that moved the pointer itself to a model not evaluated.
        let bytes = std::fs::read(tiny_model_in::<Paco>(&made, "model-0003", 0)).unwrap();
        store.put_once("models/model-0003.pzmodel", bytes).unwrap();
        let (_, v) = store.read_pointer(POINTER).unwrap().unwrap();
        store.swap_pointer(POINTER, "model-0003.pzmodel\n", Some(&v)).unwrap();
        let e = err_text(store_evaluate::<Paco>(&evaluator("cache"), &Notes::new()));
        assert!(e.contains("`models/current` already names model-0003, which has no evaluation"), "{e}");
    }

    #[test]
    fn a_pointer_that_names_a_path_is_refused_as_the_workers_refuse_it() {
        let dir = TempDir::new("store-eval-pointer");
        let url = dir.store_url("store");
        let store = RunStore::open(&url).unwrap();
        let bytes = std::fs::read(tiny_model_in::<Paco>(&dir.join("made"), "model-0001", 0)).unwrap();
        store.put_once("models/model-0001.pzmodel", bytes).unwrap();
        // A model outside the evaluator's cache (`cache/models/../../x`), and a pointer to it.
        tiny_model_in::<Paco>(dir.path(), "x", 0);
        store.swap_pointer(POINTER, "../../x.pzmodel\n", None).unwrap();
        let evaluator = StoreEvaluator { url: url.clone(), cache: dir.join("cache"), config: LoopFile::parse(&tiny_loop(&[]), "tiny").unwrap() };
        let e = err_text(store_evaluate::<Paco>(&evaluator, &Notes::new()));
        assert_eq!(e, format!("{url}: `models/current` holds \"../../x.pzmodel\\n\", not the file name of a model"));
        assert!(read_matches(&dir.join("cache")).unwrap().is_empty(), "no match is played");
        // Nor is a model's name a path where it is downloaded.
        let e = err_text(download_model(&store, &dir.join("cache"), "../../x"));
        assert_eq!(e, format!("{url}: \"../../x\" is not the name of a model"));
    }
}
