//! A miniature loop (tiny net, few games, two generations) through every
//! stage; then the same command resumes a finished run without redoing work,
//! and the arena and ratings see both generations.

use std::path::Path;

mod common;
use common::{check_report_in_browser, run_ok, write_config, TINY_NET};

/// A loop of two generations of four games and four training steps.
fn tiny_loop() -> String {
    format!(
        r#"
[loop]
generations = 2
games_per_generation = 4
train_steps_per_generation = 4
gating_games = 2
eval_simulations = 4
promotion = "always"
baseline_games = 2
baseline_simulations = 4
max_decisions = 80
seed = 7

[selfplay]
threads = 2
games_per_thread = 2
games_per_chunk = 2
max_decisions = 80
start_positions = "fischer_random"
playout_mix = 0.5

[selfplay.search]
full_simulations = 8
cheap_simulations = 4
{TINY_NET}
[train]
batch_size = 16
warmup_steps = 1
min_positions = 1
progress = false
"#
    )
}

#[test]
fn miniature_loop_runs_every_stage_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let cfg = write_config(dir.path(), "tiny.toml", &tiny_loop());
    let run_s = run.to_str().unwrap();
    let out = run_ok(&["loop", "--config", cfg.to_str().unwrap(), "--run", run_s]);
    // Generation 1 plays with rollouts, generation 2 with gen-0001 and half a playout mixed into its values.
    let log = String::from_utf8_lossy(&out.stderr);
    let with: Vec<&str> = log.lines().filter(|l| l.starts_with("self-play with ")).collect();
    assert_eq!(with.len(), 2, "{log}");
    assert!(with[0].contains("rollout") && !with[0].contains('+'), "{}", with[0]);
    assert!(with[1].ends_with("+rollout0.5"), "{}", with[1]);

    for f in [
        "config.toml",
        "state.json",
        "matches.jsonl",
        "ratings.csv",
        "ratings.md",
        "metrics.csv",
        "models/current",
        "models/gen-0001.pzmodel",
        "models/gen-0002.pzmodel",
    ] {
        assert!(run.join(f).exists(), "missing {f}");
    }
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["generation"], 3);
    assert_eq!(std::fs::read_to_string(run.join("models/current")).unwrap(), "gen-0002.pzmodel\n", "the best model is recorded in models/current");
    assert!(state.get("best").is_none(), "and nowhere else: {state}");
    // Provenance: the build, backend and CPUs, and the resolved configuration.
    let prov = &state["provenance"];
    assert!(prov["version"].is_string() && prov["commit"].as_str().is_some_and(|c| !c.is_empty()) && prov["dirty"].is_boolean(), "{state}");
    assert_eq!(prov["backend"], "flex", "{state}");
    assert!(prov["cpus"].as_u64().is_some_and(|n| n >= 1), "{state}");
    assert_eq!(state["config"]["loop"]["generations"], 2, "{state}");
    assert!(state["config"]["train"]["lr"].is_number(), "defaults are filled in: {state}");
    assert!(std::fs::read_to_string(run.join("config.toml")).unwrap().starts_with("# made by pacozero "));
    // Every model file's header names what made it.
    let (_, header) = pacozero_nn::read_model_header(&run.join("models/gen-0002.pzmodel")).unwrap();
    assert_eq!(header.provenance.as_ref().map(|p| p.backend.as_str()), Some("flex"), "{header:?}");
    assert_eq!(std::fs::read_to_string(run.join("models/current")).unwrap().trim(), "gen-0002.pzmodel");
    let chunks = std::fs::read_dir(run.join("data")).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".games.parquet")).count();
    assert!(chunks >= 2, "{chunks} game chunks");
    let ratings = std::fs::read_to_string(run.join("ratings.csv")).unwrap();
    assert!(ratings.contains("gen-0001") && ratings.contains("gen-0002") && ratings.contains("rollout-4"), "{ratings}");
    let matches = std::fs::read_to_string(run.join("matches.jsonl")).unwrap();
    assert_eq!(matches.lines().count(), 3, "baseline x2 + gating x1:\n{matches}");
    // Every match line says how its games ended, one count per game.
    for line in matches.lines() {
        let m: serde_json::Value = serde_json::from_str(line).unwrap();
        let games = ["wins", "draws", "losses"].iter().map(|k| m[k].as_u64().unwrap()).sum::<u64>();
        let ended = m["end_reasons"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum::<u64>();
        assert_eq!(ended, games, "{line}");
    }
    // No temporary file is left behind.
    assert_no_tmp(&run);

    // Per-generation figures and the report.
    let gens = std::fs::read_to_string(run.join("generations.jsonl")).unwrap();
    for stage in ["selfplay", "train", "eval"] {
        assert_eq!(gens.matches(&format!("\"stage\":\"{stage}\"")).count(), 2, "{stage} twice in:\n{gens}");
    }
    // Generation 2 measures gen-0001 on its new games before training on them.
    let fresh: Vec<serde_json::Value> = gens.lines().map(|l| serde_json::from_str(l).unwrap()).filter(|l: &serde_json::Value| l["stage"] == "fresh").collect();
    assert_eq!(fresh.len(), 1, "{gens}");
    assert_eq!(fresh[0]["generation"], 2);
    assert!(fresh[0]["value_loss"].as_f64().unwrap() > 0.0 && fresh[0]["rows"].as_f64().unwrap() >= 1.0, "{}", fresh[0]);
    // Each generation's wall time by stage, and the stacked bars of it.
    let lines: Vec<serde_json::Value> = gens.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for g in [1, 2] {
        let time: Vec<&serde_json::Value> = lines.iter().filter(|l| l["stage"] == "time" && l["generation"] == g).collect();
        for stage in ["selfplay", "train", "eval", "other"] {
            let key = format!("{stage}_seconds");
            let secs: Vec<f64> = time.iter().filter_map(|l| l[&key].as_f64()).collect();
            assert_eq!(secs.len(), 1, "generation {g}: one {key} in:\n{gens}");
            assert!(secs[0] >= 0.0 && secs[0] < 3600.0, "generation {g}: {key} = {}", secs[0]);
        }
        let selfplay = time.iter().find_map(|l| l["selfplay_seconds"].as_f64()).unwrap();
        assert!(selfplay > 0.0, "self-play takes time");
    }
    // The calibration figures of the fresh value loss, and their plot.
    for key in ["base_rate_loss", "draw_share", "pred_draw"] {
        assert!(fresh[0][key].as_f64().is_some_and(f64::is_finite), "{key} in {}", fresh[0]);
    }
    // The loss by result, for the results the new games had (others are left out).
    assert!(["value_loss_win", "value_loss_draw", "value_loss_loss"].iter().any(|k| fresh[0][k].as_f64().is_some()), "{}", fresh[0]);
    let base = fresh[0]["base_rate_loss"].as_f64().unwrap();
    assert!((0.0..=3f64.ln() + 1e-9).contains(&base), "{}", fresh[0]);
    for plot in ["elo", "baseline", "draw_rate", "length", "ends", "resignation", "time", "fresh_value", "losses"] {
        let svg = std::fs::read_to_string(run.join(format!("plots/{plot}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("<text"), "plots/{plot}.svg");
    }
    let time_svg = std::fs::read_to_string(run.join("plots/time.svg")).unwrap();
    assert!(time_svg.matches(r#"class="bar""#).count() >= 6, "two generations of at least three stages:\n{time_svg}");
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(page.contains("gen-0002") && page.contains("const GAMES = [{"), "report lacks generations or sample games");
    assert_eq!(page.matches("<svg").count(), 10, "nine inline plots and the rating list's");
    let ratings_plot = page.split("id=\"plot-ratings\">").nth(1).expect("the rating list's plot");
    let rows = ratings_plot.split("</svg>").next().unwrap().matches(r#"class="interval""#).count();
    assert_eq!(rows, ratings.lines().count() - 1, "one error bar per rated player");
    assert!(page.contains("id=\"time-share\">Self-play and training took ") && page.contains("over 2 generations"), "no time share in the report");
    check_report_in_browser(&run.join("report.html"), (8, 8), "report.png");

    // Running again resumes a finished run: nothing is redone.
    let before = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
    run_ok(&["loop", "--run", run_s]);
    assert_eq!(std::fs::read_to_string(run.join("metrics.csv")).unwrap(), before);
    assert_eq!(std::fs::read_to_string(run.join("matches.jsonl")).unwrap().lines().count(), 3);

    // The exported model plays in the arena.
    let model = run.join("models/gen-0002.pzmodel");
    let out = run_ok(&["arena", "--players", &format!("net:{}:4", model.display()), "random", "--games", "2", "--max-decisions", "60"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("W/D/L"));

    // Equal-time play: both players get 5 ms per decision.
    let out = run_ok(&["arena", "--players", &format!("net:{}:5ms", model.display()), "rollout:5ms", "--games", "2", "--max-decisions", "40"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("W/D/L"));
}

fn assert_no_tmp(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            assert_no_tmp(&p);
        } else {
            assert!(!p.to_string_lossy().ends_with(".tmp"), "leftover {}", p.display());
        }
    }
}

/// With `eval_every = 3`, generation 2 of 3 plays no match: the first and the
/// last are measured, and every generation still trains, promotes and reports
/// its time.
#[test]
fn eval_every_skips_the_matches_of_the_generations_between() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let text = tiny_loop().replace("generations = 2\n", "generations = 3\neval_every = 3\n").replace("baseline_games = 2", "baseline_games = 0");
    let cfg = write_config(dir.path(), "every3.toml", &text);
    let out = run_ok(&["loop", "--config", cfg.to_str().unwrap(), "--run", run.to_str().unwrap()]);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("evaluation: skipped in generation 2 (eval_every = 3)"), "{log}");
    assert_eq!(log.matches("evaluation: skipped").count(), 1, "{log}");
    let matches: Vec<serde_json::Value> =
        std::fs::read_to_string(run.join("matches.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let generations: Vec<u64> = matches.iter().map(|m| m["generation"].as_u64().unwrap()).collect();
    assert_eq!(generations, vec![3], "only the last generation plays (gating; the first has no best to play)");
    assert!(run.join("models/gen-0003.pzmodel").exists());
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    assert_eq!(std::fs::read_to_string(run.join("models/current")).unwrap(), "gen-0003.pzmodel\n", "the best model is recorded in models/current");
    assert!(state.get("best").is_none(), "and nowhere else: {state}");
    let gens = std::fs::read_to_string(run.join("generations.jsonl")).unwrap();
    assert_eq!(gens.matches("\"eval_seconds\"").count(), 3, "{gens}");
}

/// `promotion = "sprt"`: the gating match plays pairs until its sequential
/// test decides (rounds of 8 pairs) or reaches `gating_games`, records the
/// decision (undecided as such) and promotes only on H1.
#[test]
fn sprt_promotion_plays_until_the_test_decides_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let text = tiny_loop()
        .replace("promotion = \"always\"", "promotion = \"sprt\"\nsprt_elo0 = 0\nsprt_elo1 = 400\nsprt_alpha = 0.2\nsprt_beta = 0.2")
        .replace("gating_games = 2", "gating_games = 48")
        .replace("baseline_games = 2", "baseline_games = 0");
    let cfg = write_config(dir.path(), "sprt.toml", &text);
    let out = run_ok(&["loop", "--config", cfg.to_str().unwrap(), "--run", run.to_str().unwrap()]);
    let log = String::from_utf8_lossy(&out.stderr);
    let matches: Vec<serde_json::Value> =
        std::fs::read_to_string(run.join("matches.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(matches.len(), 1, "{matches:?}");
    let gating = &matches[0];
    let decision = gating["sprt"].as_str().unwrap_or_else(|| panic!("no sprt field: {gating}"));
    let games = gating["wins"].as_u64().unwrap() + gating["draws"].as_u64().unwrap() + gating["losses"].as_u64().unwrap();
    match decision {
        "undecided" => assert_eq!(games, 48, "{gating}"),
        "H1 accepted" | "H0 accepted" => assert!(games <= 48 && games.is_multiple_of(16), "{gating}"),
        other => panic!("decision {other:?}"),
    }
    assert!(log.contains(&format!("SPRT {decision} after {games} games")), "{log}");
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    let best = std::fs::read_to_string(run.join("models/current")).unwrap();
    assert_eq!(best == "gen-0002.pzmodel\n", decision == "H1 accepted", "{best} {state} after {decision}");
}

/// `--set section.key=value` overrides the configuration of a new run,
/// through the same checks as the file, and the run's config.toml records
/// it; an unknown key is named; a resumed run refuses overrides.
#[test]
fn set_overrides_a_new_runs_configuration_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let cfg = write_config(dir.path(), "tiny.toml", &tiny_loop().replace("baseline_games = 2", "baseline_games = 0"));
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["loop", "--config", cfg.to_str().unwrap(), "--run", run.to_str().unwrap()].iter().map(|s| s.to_string()).collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let bad = common::bin().args(args(&["--set", "train.bogus_key=1"])).output().unwrap();
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("bogus_key"), "{err}");
    assert!(!run.join("config.toml").exists(), "a refused configuration starts no run");
    let a = args(&["--set", "loop.generations=1", "--set", "train.lr=0.002", "--set", "loop.max_minutes=5"]);
    run_ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let saved: toml::Table = std::fs::read_to_string(run.join("config.toml")).unwrap().parse().unwrap();
    assert_eq!(saved["loop"]["generations"].as_integer(), Some(1));
    assert_eq!(saved["loop"]["max_minutes"].as_integer(), Some(5));
    assert_eq!(saved["train"]["lr"].as_float(), Some(0.002));
    assert!(run.join("models/gen-0001.pzmodel").exists() && !run.join("models/gen-0002.pzmodel").exists());
    let again = common::bin().args(args(&["--set", "loop.generations=2"])).output().unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("keeps its config.toml"), "{}", String::from_utf8_lossy(&again.stderr));
}

/// `max_minutes`: a budget smaller than one generation makes generation 1
/// the last (it is evaluated and promoted); run again, the spent budget
/// starts nothing.
#[test]
fn the_time_budget_stops_the_run_and_a_resumed_run_counts_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let text = tiny_loop().replace("generations = 2\n", "generations = 5\nmax_minutes = 0.0001\n").replace("baseline_games = 2", "baseline_games = 0");
    let cfg = write_config(dir.path(), "budget.toml", &text);
    let out = run_ok(&["loop", "--config", cfg.to_str().unwrap(), "--run", run.to_str().unwrap()]);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("generation 1 is the last within the time budget (0.0001 min)"), "{log}");
    assert!(run.join("models/gen-0001.pzmodel").exists());
    assert!(!run.join("models/gen-0002.pzmodel").exists(), "no generation after the budget");
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    assert_eq!(std::fs::read_to_string(run.join("models/current")).unwrap(), "gen-0001.pzmodel\n", "the best model is recorded in models/current");
    assert!(state.get("best").is_none(), "and nowhere else: {state}");
    let out = run_ok(&["loop", "--run", run.to_str().unwrap()]);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("done: the time budget (0.0001 min) is spent before generation 2"), "{log}");
    assert!(!run.join("models/gen-0002.pzmodel").exists());
}

/// The games of a run's data directory, oldest chunk first: (start, actions, result).
fn games_of(run: &Path) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for c in pacozero_data::list_chunks(&run.join("data")).unwrap() {
        let (_, games) = pacozero_data::read_games_file(&c.games_path).unwrap();
        out.extend(games.into_iter().map(|g| (g.start_fen, g.actions, g.result)));
    }
    out
}

/// `overlap = true`: from generation 2 on, self-play and training run at the
/// same time. Training reads only the chunks that were complete when its
/// generation began, so the run does not depend on how far self-play got:
/// two runs from the same seed play the same games. The time of the two
/// stages together is recorded once (`time.overlap_seconds`), each stage's
/// own time beside it, and the report counts it as self-play and training.
#[test]
fn overlapped_generations_train_on_earlier_chunks_and_repeat_exactly() {
    let text = tiny_loop()
        .replace("generations = 2\n", "generations = 3\noverlap = true\n")
        .replace("baseline_games = 2", "baseline_games = 0")
        .replace("threads = 2\n", "threads = 1\n")
        + "threads = 1\n";
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "overlap.toml", &text);
    let runs = [dir.path().join("one"), dir.path().join("two")];
    for run in &runs {
        let out = run_ok(&["loop", "--config", cfg.to_str().unwrap(), "--run", run.to_str().unwrap()]);
        let log = String::from_utf8_lossy(&out.stderr);
        assert_eq!(log.matches("self-play and training at once").count(), 2, "generations 2 and 3 overlap: {log}");
        assert!(run.join("models/gen-0003.pzmodel").exists());
        let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
        assert!(state.get("train_upto").is_none(), "cleared once the stage is done: {state}");
    }
    let games = games_of(&runs[0]);
    assert_eq!(games.len(), 12, "four games in each of three generations");
    assert_eq!(games, games_of(&runs[1]), "the same seed plays the same games");

    let gens: Vec<serde_json::Value> =
        std::fs::read_to_string(runs[0].join("generations.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let stage = |g: u64, s: &str| gens.iter().find(|v| v["generation"] == g && v["stage"] == s && v.as_object().unwrap().len() > 2).cloned();
    let times = |g: u64| {
        gens.iter()
            .filter(|v| v["generation"] == g && v["stage"] == "time")
            .flat_map(|v| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    assert!(times(1).contains(&"selfplay_seconds".to_string()) && !times(1).contains(&"overlap_seconds".to_string()), "generation 1 runs in turn");
    for g in [2, 3] {
        let t = times(g);
        assert!(t.contains(&"overlap_seconds".to_string()) && !t.contains(&"selfplay_seconds".to_string()), "generation {g}: {t:?}");
        let own = stage(g, "overlap").unwrap_or_else(|| panic!("generation {g}: no overlap stage"));
        assert!(own["selfplay_seconds"].as_f64().unwrap() > 0.0 && own["train_seconds"].as_f64().unwrap() > 0.0, "{own}");
    }
    // Before training, the network's loss on the games it has not trained on:
    // in generation 3 those of generation 2 (in generation 2, none: its
    // training reads generation 1's games, which gen-0001 trained on).
    assert!(stage(2, "fresh").is_none() && stage(3, "fresh").is_some(), "{gens:?}");
    let page = std::fs::read_to_string(runs[0].join("report.html")).unwrap();
    assert!(page.contains("over 3 generations"), "every generation counts in the time share");
    assert!(std::fs::read_to_string(runs[0].join("plots/time.svg")).unwrap().contains("self-play ‖ training"));
}

/// `--set net.encoding=platform` (the platform's input, docs/onnx.md): two
/// generations whose data, models and report record the encoding; the
/// exported bot file has the platform's shape; `selfplay.encoding` (which
/// the loop sets from `net.encoding`) may not contradict the network's.
#[test]
fn a_loop_on_the_platforms_input_records_it_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let cfg = write_config(dir.path(), "tiny.toml", &tiny_loop().replace("baseline_games = 2", "baseline_games = 0"));
    let (cfg_s, run_s) = (cfg.to_str().unwrap(), run.to_str().unwrap());
    let bad = common::bin().args(["loop", "--config", cfg_s, "--run", run_s, "--set", "selfplay.encoding=platform"]).output().unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("selfplay.encoding"), "{}", common::output_text(&bad));
    let bad = common::bin().args(["loop", "--config", cfg_s, "--run", run_s, "--set", "net.encoding=qwerty"]).output().unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("qwerty"), "{}", common::output_text(&bad));
    assert!(!run.join("config.toml").exists(), "a refused configuration starts no run");

    run_ok(&["loop", "--config", cfg_s, "--run", run_s, "--set", "net.encoding=platform"]);
    let (net, info) = pacozero_nn::read_model_header(&run.join("models/gen-0002.pzmodel")).unwrap();
    assert_eq!((net.encoding.as_str(), net.input_channels(), info.name.as_str()), ("platform", 30, "gen-0002"));
    let spec = pacozero_data::data_spec(&run.join("data")).unwrap().unwrap();
    assert_eq!((spec.encoding.as_str(), spec.bit_planes, spec.scalars), ("platform", 29, 1));
    let out = dir.path().join("bot.onnx");
    run_ok(&["export", "--format", "platform", "--model", run_s, "--out", out.to_str().unwrap()]);
    assert!(std::fs::metadata(&out).unwrap().len() > 1000);
    // Self-play of the default encoding is refused in the platform run.
    let bad = common::bin().args(["selfplay", "--run", run_s, "--games", "1", "--evaluator", "uniform", "--quiet"]).output().unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("encoding=platform"), "{}", common::output_text(&bad));
}
