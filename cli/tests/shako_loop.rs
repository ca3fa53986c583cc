//! Shako through the whole pipeline: a miniature loop (tiny net, few games,
//! two generations) through every stage; the run keeps its game; the
//! `selfplay`, `train` and `arena` commands work on the run with `--game shako`
//! and refuse to mix games.

mod common;
use common::{bin, check_report_in_browser, run_ok, write_config};

/// The miniature Shako loop. Its `[net]` has 2 policy channels where
/// `common::TINY_NET` has 4, so the table is spelled out here.
const TINY: &str = r#"
[loop]
game = "shako"
generations = 2
games_per_generation = 4
train_steps_per_generation = 4
gating_games = 2
anchor_games = 2
eval_simulations = 4
promotion = "always"
baseline_games = 2
baseline_simulations = 4
openings = "fischer_random"
max_decisions = 40
seed = 3

[selfplay]
threads = 2
games_per_thread = 2
games_per_chunk = 2
max_decisions = 40
start_positions = "fischer_random"

[selfplay.search]
full_simulations = 8
cheap_simulations = 4

[net]
blocks = 1
channels = 8
policy_channels = 2
value_channels = 2
value_hidden = 16

[train]
batch_size = 16
warmup_steps = 1
min_positions = 1
progress = false
"#;

/// Runs `pacozero ARGS`, asserts that it failed, and returns its standard error.
fn run_fails(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert!(!out.status.success(), "pacozero {args:?} should fail:\n{}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn miniature_shako_loop_runs_every_stage() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let cfg = write_config(dir.path(), "tiny-shako.toml", TINY);
    let run_s = run.to_str().unwrap();
    run_ok(&["loop", "--config", cfg.to_str().unwrap(), "--run", run_s]);

    for f in [
        "config.toml",
        "state.json",
        "matches.jsonl",
        "ratings.csv",
        "ratings.md",
        "metrics.csv",
        "generations.jsonl",
        "report.html",
        "models/current",
        "models/gen-0001.pzmodel",
        "models/gen-0002.pzmodel",
    ] {
        assert!(run.join(f).exists(), "missing {f}");
    }
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["game"], "shako");
    assert_eq!(state["generation"], 3);
    assert_eq!(std::fs::read_to_string(run.join("models/current")).unwrap(), "gen-0002.pzmodel\n", "the best model is recorded in models/current");
    assert!(state.get("best").is_none(), "and nowhere else: {state}");

    // The data is Shako's: 10x10, 19 bit planes of two words, 4 scalars, 3,656 policy slots.
    let chunks = pacozero_data::list_chunks(&run.join("data")).unwrap();
    assert!(chunks.len() >= 2, "{} chunks", chunks.len());
    for c in &chunks {
        let (spec, positions, games) = pacozero_data::read_chunk(c).unwrap();
        assert_eq!((spec.game.as_str(), spec.board_height, spec.board_width, spec.bit_planes, spec.scalars, spec.policy_size), ("shako", 10, 10, 19, 4, 3656));
        assert!(positions.iter().all(|p| p.planes.len() == 38 && p.scalars.len() == 4));
        assert!(games.iter().all(|g| ["checkmate", "stalemate", "repetition", "fifty_moves", "max_length", "resign"].contains(&g.reason.as_str())), "reasons");
    }
    let model = pacozero_nn::read_model_header(&run.join("models/gen-0002.pzmodel")).unwrap();
    assert_eq!((model.0.height, model.0.width, model.0.policy_size), (10, 10, 3656));

    let matches = std::fs::read_to_string(run.join("matches.jsonl")).unwrap();
    assert_eq!(matches.lines().count(), 4, "baseline x2 + anchor x1 + gating x1:\n{matches}");
    let anchor: Vec<serde_json::Value> =
        matches.lines().map(|l| serde_json::from_str(l).unwrap()).filter(|m: &serde_json::Value| m["generation"] == 2 && m["b"] == "gen-0001").collect();
    assert_eq!(anchor.len(), 2, "generation 2 plays gen-0001 as anchor and as gating opponent:\n{matches}");
    assert!(anchor.iter().all(|m| m["wins"].as_u64().unwrap() + m["draws"].as_u64().unwrap() + m["losses"].as_u64().unwrap() == 2));
    let ratings = std::fs::read_to_string(run.join("ratings.csv")).unwrap();
    assert!(ratings.contains("gen-0001") && ratings.contains("gen-0002"), "{ratings}");
    let gens = std::fs::read_to_string(run.join("generations.jsonl")).unwrap();
    for stage in ["selfplay", "train", "eval"] {
        assert_eq!(gens.matches(&format!("\"stage\":\"{stage}\"")).count(), 2, "{stage} twice in:\n{gens}");
    }

    // The report shows Shako's sample games on 10x10 boards with their UCI move lists.
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(page.contains("vs gen-0001 (W-D-L)"), "report lacks the anchor column");
    assert!(page.contains("const GAMES = [{") && page.contains("\"size\":10") && page.contains("\"moves\":\"1. "), "report lacks Shako sample games");
    check_report_in_browser(&run.join("report.html"), (10, 10), "shako-report.png");

    // Resuming a finished run redoes nothing; a run cannot switch games.
    let before = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
    run_ok(&["loop", "--run", run_s]);
    assert_eq!(std::fs::read_to_string(run.join("metrics.csv")).unwrap(), before);
    let copy = run.join("config.toml");
    let text = std::fs::read_to_string(&copy).unwrap();
    std::fs::write(&copy, text.replace("game = \"shako\"", "game = \"paco\"")).unwrap();
    let e = run_fails(&["loop", "--run", run_s, "--generations", "3"]);
    assert!(e.contains("shako run") && e.contains("cannot switch games"), "{e}");
    std::fs::write(&copy, text).unwrap();

    // Self-play and training on the run, outside the loop.
    run_ok(&["selfplay", "--game", "shako", "--run", run_s, "--games", "2", "--evaluator", "uniform", "--quiet"]);
    let e = run_fails(&["selfplay", "--run", run_s, "--games", "2", "--quiet"]);
    assert!(e.contains("shako data") && e.contains("--game"), "{e}");
    let out = run_ok(&["train", "--run", run_s, "--steps", "2", "--export", "extra"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("exported"));

    // Arena on Shako: the baselines, and the trained network (not in a Paco match).
    let out = run_ok(&["arena", "--game", "shako", "--players", "rollout:4", "uniform:4", "--games", "2", "--max-decisions", "40"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("W/D/L"));
    let net = format!("net:{}:4", run.join("models/gen-0002.pzmodel").display());
    let out = run_ok(&["arena", "--game", "shako", "--openings", "standard", "--players", &net, "greedy", "--games", "2", "--max-decisions", "30"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("W/D/L"));
    let e = run_fails(&["arena", "--players", &net, "random", "--games", "2"]);
    assert!(e.contains("not a paco network"), "{e}");
}
