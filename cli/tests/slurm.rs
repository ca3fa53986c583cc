//! The scale-out of `docs/scale-out.md` on a real Slurm cluster: the job
//! scripts the docs include (`docs/slurm/selfplay.sbatch` and
//! `docs/slurm/train.sbatch`), submitted unchanged with `sbatch`, against the
//! local S3 server.
//!
//! `scripts/test.sh` runs the tests through `scripts/test-scaleout.sh`, which
//! starts a single-node cluster (munged, slurmctld, slurmd) and exports
//! `PACOZERO_TEST_SLURM=1` and `SLURM_CONF`; the S3 server is the one
//! `scripts/test.sh` starts (`PACOZERO_TEST_S3_ENDPOINT`). Without them the
//! test fails and says so.
//!
//! The flow: a job array of four workers plays with the baseline and uploads
//! its chunks; the trainer job trains on them and moves `models/current`; a
//! second array of the same indices resumes and plays with the new model; a
//! worker task cancelled (`scancel`) in the middle of its games and then
//! requeued (`scontrol requeue`) ends with every game it had recorded and
//! exactly the games an uninterrupted worker plays; every game id of the
//! store is there once.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use pacozero_store::{ObjectKind, RunStore};

mod common;
mod slurm_support;
use common::{bin, manifest_dir, output_text, s, tiny_selfplay, tiny_train, write_config};
use slurm_support::*;

/// The documented job array and trainer, end to end.
#[test]
fn slurm_job_array_of_workers_and_a_trainer() {
    require_cluster();
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path();
    let (url, vars) = fresh_store("flow");
    let store = RunStore::open_with(&url, vars.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))).unwrap();
    let sp = write_config(tmp, "selfplay.toml", &tiny_selfplay(21));
    let tr = write_config(tmp, "train.toml", &tiny_train(""));
    let cluster = Cluster::new(&tmp.join("submit"), &url, &vars);
    let config = [("PACOZERO_SELFPLAY_CONFIG", s(&sp))];
    // A test node is small: one CPU per task (the scripts ask for a real node's share).
    let small = ["--cpus-per-task=1", "--mem=1G", "--time=30:00"];
    let with = |extra: &[&'static str]| small.iter().chain(extra).copied().collect::<Vec<&str>>();

    // 1. The job array: four workers, four games each, no model yet.
    let first = cluster.sbatch(&with(&["--array=0-3"]), &selfplay_sbatch(), &[config[0], ("PACOZERO_GAMES", "4")]);
    cluster.wait_ok(&first, 0);
    let games = store_games(&store, "data", tmp);
    for w in 0..4 {
        let folder = format!("w{w:04}");
        assert_eq!(ids_of(&games, &folder).len(), 4, "worker {w}'s games in the store\n{}", cluster.logs());
        let log = cluster.log(&format!("selfplay-{first}_{w}.log"));
        assert!(log.contains(&format!("worker {w} round 1")) && log.contains("no model in the store yet"), "{log}");
    }
    assert_eq!(games.len(), 16);
    assert_unique(&games.iter().map(|g| g.1).collect::<Vec<_>>());

    // 2. The trainer job: trains on the 16 games and moves the pointer; it
    // goes on training until it is cancelled.
    assert_eq!(pointer(&store), None);
    let trainer = cluster.sbatch(
        &small,
        &train_sbatch(),
        &[("PACOZERO_TRAINER_DIR", s(&tmp.join("trainer"))), ("PACOZERO_TRAIN_CONFIG", s(&tr)), ("PACOZERO_STEPS", "3"), ("PACOZERO_RETRY_SECONDS", "1")],
    );
    let waited = Instant::now();
    while pointer(&store).is_none() {
        let st = cluster.states(&trainer);
        assert!(!st.iter().any(|(_, t)| t.ended()), "the trainer ended before it moved the pointer: {st:?}\n{}", cluster.logs());
        assert!(waited.elapsed() < JOB_TIMEOUT, "no model after {JOB_TIMEOUT:?}\n{}{}", cluster.logs(), daemon_logs());
        std::thread::sleep(Duration::from_millis(200));
    }
    scancel(&trainer);
    cluster.wait(&trainer, 0);
    let model_file = pointer(&store).unwrap();
    let model = model_file.strip_suffix(".pzmodel").unwrap_or_else(|| panic!("pointer {model_file:?}")).to_string();
    assert!(store.exists(&format!("models/{model_file}")).unwrap());
    let log = cluster.log(&format!("train-{trainer}.log"));
    // The trainer may have started another round before the cancel landed:
    // the pointer names a model the log says it uploaded (the note of the
    // swap itself can be cut by the cancel).
    assert!(log.contains("16 new chunks downloaded") && log.contains(&format!("uploaded models/{model_file}")) && log.contains("models/current -> "), "{log}");

    // 3. A second array of the same workers, started afterwards: each resumes
    // (its earlier games stay, their seeds are not played again) and plays
    // two new games with the trainer's model.
    let second = cluster.sbatch(&with(&["--array=0-3"]), &selfplay_sbatch(), &[config[0], ("PACOZERO_GAMES", "2")]);
    cluster.wait_ok(&second, 0);
    let games = store_games(&store, "data", tmp);
    for w in 0..4 {
        let folder = format!("w{w:04}");
        let with_model = games.iter().filter(|g| g.0 == folder && g.2 == model).count();
        assert_eq!((ids_of(&games, &folder).len(), with_model), (6, 2), "worker {w}: games, games with {model}\n{}", cluster.logs());
        let log = cluster.log(&format!("selfplay-{second}_{w}.log"));
        assert!(log.contains(&format!("games with model {model}")), "{log}");
    }
    assert_unique(&games.iter().map(|g| g.1).collect::<Vec<_>>());

    // 4. A worker task cancelled in the middle of its games, then requeued.
    let games_per_start = 30u64;
    let killed = cluster.sbatch(&with(&["--array=6"]), &selfplay_sbatch(), &[config[0], ("PACOZERO_GAMES", "30")]);
    let task = format!("{killed}_6");
    let waited = Instant::now();
    while store.list("data/w0006").unwrap().iter().filter(|k| k.ends_with(".games.parquet")).count() < 3 {
        assert!(waited.elapsed() < JOB_TIMEOUT, "worker 6 uploaded nothing in {JOB_TIMEOUT:?}\n{}", cluster.logs());
        std::thread::sleep(Duration::from_millis(50));
    }
    scancel(&task);
    let st = cluster.wait(&task, 0);
    assert_eq!(st[0].1.state, "CANCELLED", "worker 6 must be cancelled while it plays (it finished first: make it play longer)\n{}", cluster.logs());
    // Every game it recorded: uploaded, or in a chunk of its cache (written,
    // not uploaded yet).
    let caches: Vec<PathBuf> = std::fs::read_dir(tmp.join("submit/node-tmp"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().ends_with("-w0006"))
        .collect();
    assert_eq!(caches.len(), 1, "worker 6's cache: {caches:?}");
    let recorded: HashSet<u64> = pacozero_data::game_ids(&caches[0].join("data")).unwrap();
    let uploaded: HashSet<u64> = ids_of(&store_games(&store, "data/w0006", tmp), "w0006").into_iter().collect();
    assert!(uploaded.is_subset(&recorded), "the store has games of worker 6 its cache lacks");
    let before = recorded.len() as u64;
    assert!(before >= 3 && before < games_per_start, "worker 6 had recorded {before} games when it was cancelled");
    eprintln!("worker 6 cancelled after {before} recorded games ({} uploaded), {:.1} s into the test", uploaded.len(), t0.elapsed().as_secs_f64());
    let out = Command::new("scontrol").args(["requeue", &task]).output().unwrap();
    assert!(out.status.success(), "scontrol requeue {task}:\n{}", output_text(&out));
    cluster.wait_ok(&task, 1);
    let games = store_games(&store, "data", tmp);
    let w6: Vec<u64> = ids_of(&games, "w0006");
    assert_unique(&w6);
    let w6: HashSet<u64> = w6.into_iter().collect();
    assert!(recorded.is_subset(&w6), "games worker 6 recorded before it was cancelled are missing from the store");
    assert_eq!(w6.len() as u64, before + games_per_start, "the requeued task plays PACOZERO_GAMES new games");
    // Exactly the games of an uninterrupted worker 6 with as many games (game
    // ids follow from the seeds alone, whatever the evaluator): no seed skipped.
    let reference = tmp.join("reference");
    let out = bin()
        .args(["selfplay", "--store", &format!("file://{}/", reference.join("store").display()), "--worker", "6"])
        .args(["--run", s(&reference.join("cache")), "--config", s(&sp), "--games", &(before + games_per_start).to_string()])
        .args(["--evaluator", "uniform", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", output_text(&out));
    let expected = pacozero_data::game_ids(&reference.join("cache/data")).unwrap();
    assert_eq!(w6, expected, "worker 6 after the requeue against an uninterrupted worker 6");
    let log = cluster.log(&format!("selfplay-{killed}_6.log"));
    assert_eq!(log.matches("worker 6: store").count(), 2, "two starts of worker 6 in its log:\n{log}");

    // Every game id of the store once.
    assert_unique(&games.iter().map(|g| g.1).collect::<Vec<_>>());
    assert_eq!(games.len() as u64, 24 + before + games_per_start);
    eprintln!("slurm flow done in {:.1} s", t0.elapsed().as_secs_f64());
}

/// The evaluator job beside a trainer that leaves the pointer alone
/// (`PACOZERO_NO_PROMOTE=1`): every model the trainer uploads is played
/// (baseline, anchor, gating against the best), its record, the ratings and
/// the report land in the store's `eval/`, and `models/current` names the
/// newest model the rule promoted, never one without an evaluation.
#[test]
fn slurm_evaluator_rates_and_promotes_by_the_rule() {
    require_cluster();
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path();
    let (url, vars) = fresh_store("evaluate");
    let store = RunStore::open_with(&url, vars.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))).unwrap();
    let sp = write_config(tmp, "selfplay.toml", &tiny_selfplay(33));
    let tr = write_config(tmp, "train.toml", &tiny_train(""));
    let ev = write_config(
        tmp,
        "eval.toml",
        "[loop]\npromotion = \"score\"\npromotion_score = 0.5\ngating_games = 2\nanchor_games = 2\nbaseline_games = 2\nbaseline_simulations = 4\neval_simulations = 4\nmax_decisions = 40\n",
    );
    let cluster = Cluster::new(&tmp.join("submit"), &url, &vars);
    let small = ["--cpus-per-task=1", "--mem=1G", "--time=30:00"];
    let workers =
        cluster.sbatch(&[&small[..], &["--array=0-1"]].concat(), &selfplay_sbatch(), &[("PACOZERO_SELFPLAY_CONFIG", s(&sp)), ("PACOZERO_GAMES", "4")]);
    cluster.wait_ok(&workers, 0);

    let trainer = cluster.sbatch(
        &small,
        &train_sbatch(),
        &[
            ("PACOZERO_TRAINER_DIR", s(&tmp.join("trainer"))),
            ("PACOZERO_TRAIN_CONFIG", s(&tr)),
            ("PACOZERO_STEPS", "3"),
            ("PACOZERO_RETRY_SECONDS", "1"),
            ("PACOZERO_NO_PROMOTE", "1"),
        ],
    );
    let evaluator = cluster.sbatch(
        &small,
        &evaluate_sbatch(),
        &[("PACOZERO_EVALUATOR_DIR", s(&tmp.join("evaluator"))), ("PACOZERO_EVAL_CONFIG", s(&ev)), ("PACOZERO_WATCH_SECONDS", "1")],
    );
    let records = || -> Vec<serde_json::Value> {
        let mut keys: Vec<String> = store.list("eval").unwrap().into_iter().filter(|k| k.ends_with(".json")).collect();
        keys.sort();
        keys.iter().map(|k| serde_json::from_slice(&store.get(k, ObjectKind::Json).unwrap().unwrap()).unwrap()).collect()
    };
    let waited = Instant::now();
    while records().len() < 3 || !store.exists("eval/report.html").unwrap() {
        for job in [&trainer, &evaluator] {
            let st = cluster.states(job);
            assert!(!st.iter().any(|(_, t)| t.ended()), "job {job} ended: {st:?}\n{}", cluster.logs());
        }
        assert!(waited.elapsed() < JOB_TIMEOUT, "fewer than 3 evaluations after {JOB_TIMEOUT:?}\n{}{}", cluster.logs(), daemon_logs());
        std::thread::sleep(Duration::from_millis(200));
    }
    // The trainer stops first; the evaluator then catches up with every
    // model in the store and is cancelled while it waits for the next one
    // (not between a promotion and its record).
    scancel(&trainer);
    cluster.wait(&trainer, 0);
    let models = || store.list("models").unwrap().iter().filter(|k| k.ends_with(".pzmodel")).count();
    let waited = Instant::now();
    while records().len() < models() {
        assert!(waited.elapsed() < JOB_TIMEOUT, "the evaluator did not catch up: {} records, {} models\n{}", records().len(), models(), cluster.logs());
        std::thread::sleep(Duration::from_millis(200));
    }
    // Its ratings (and then its report) follow its last record.
    let rated = || {
        let csv = store.get("eval/ratings.csv", ObjectKind::Json).unwrap().map(|b| String::from_utf8(b.to_vec()).unwrap()).unwrap_or_default();
        records().iter().all(|r| csv.contains(r["model"].as_str().unwrap()))
    };
    while !rated() || !store.exists("eval/report.html").unwrap() {
        assert!(waited.elapsed() < JOB_TIMEOUT, "no ratings of every model\n{}", cluster.logs());
        std::thread::sleep(Duration::from_millis(200));
    }
    scancel(&evaluator);
    cluster.wait(&evaluator, 0);

    let mut recs = records();
    recs.sort_by_key(|r| r["index"].as_u64().unwrap());
    // The first model has no best to beat; each later one played the best of its time.
    assert_eq!((recs[0]["index"].as_u64(), recs[0]["promoted"].as_bool()), (Some(1), Some(true)), "{recs:?}");
    assert!(recs[0]["decision"].as_str().unwrap().contains("first model"));
    let mut best = recs[0]["model"].as_str().unwrap().to_string();
    for r in &recs[1..] {
        assert_eq!(r["best"].as_str().unwrap(), best, "{r}");
        let matches = r["matches"].as_array().unwrap();
        let names: Vec<&str> = matches.iter().map(|m| m["b"].as_str().unwrap()).collect();
        assert!(names.contains(&best.as_str()) && names.iter().any(|n| n.starts_with("rollout")), "gating and baseline: {names:?}");
        // The rule: score >= 0.5 in the gating match.
        let g = matches.iter().find(|m| m["b"] == best.as_str()).unwrap();
        let score = (g["wins"].as_f64().unwrap() + 0.5 * g["draws"].as_f64().unwrap()) / 2.0;
        assert_eq!(r["promoted"].as_bool().unwrap(), score >= 0.5, "{r}");
        if score >= 0.5 {
            best = r["model"].as_str().unwrap().to_string();
        }
    }
    // The pointer: the newest promoted model.
    assert_eq!(pointer(&store), Some(format!("{best}.pzmodel")), "{recs:?}");
    let ratings = String::from_utf8(store.get("eval/ratings.csv", ObjectKind::Json).unwrap().unwrap().to_vec()).unwrap();
    assert!(ratings.starts_with("player,elo,ci95") && ratings.contains(recs[0]["model"].as_str().unwrap()), "{ratings}");
    let page = String::from_utf8(store.get("eval/report.html", ObjectKind::Json).unwrap().unwrap().to_vec()).unwrap();
    assert!(page.contains("plot-ratings"), "the report's rating plot");
    let log = cluster.log(&format!("train-{trainer}.log"));
    assert!(log.contains("left to the evaluator") && !log.contains("models/current ->"), "{log}");
}

/// `docs/scale-out.md` shows the three job scripts in full: its listings are
/// the files the cluster test submits, byte for byte.
#[test]
fn the_docs_show_the_job_scripts_the_test_submits() {
    let docs = std::fs::read_to_string(manifest_dir().join("../docs/scale-out.md")).unwrap();
    let listings: Vec<&str> = docs.split("```bash\n").skip(1).map(|b| b.split("\n```").next().unwrap()).collect();
    for (file, name) in
        [(selfplay_sbatch(), "docs/slurm/selfplay.sbatch"), (train_sbatch(), "docs/slurm/train.sbatch"), (evaluate_sbatch(), "docs/slurm/evaluate.sbatch")]
    {
        let script = std::fs::read_to_string(&file).unwrap();
        assert!(listings.iter().any(|l| *l == script.trim_end()), "docs/scale-out.md must show {name} exactly as it is (copy the file into its ```bash block)");
    }
}
