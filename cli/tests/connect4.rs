//! Connect Four, the third game, through every command: a miniature loop
//! (tiny net, few games, two generations) through every stage, then on its
//! network `selfplay`, `train`, `arena`, `analyze`, `analysis`, `uci`,
//! `export`, `solved` and `games export`, and the engine tools `perft`,
//! `show` and `legal`; and the perfect player (a solver others wrote,
//! `tools/connect4-solvers`) as an arena opponent.

use std::io::Write;
use std::process::{Command, Stdio};

mod common;
use common::{bin, check_report_in_browser, manifest_dir, output_text, run_ok, s, write_config};

const TINY: &str = r#"
[loop]
game = "connect4"
generations = 2
games_per_generation = 8
train_steps_per_generation = 4
gating_games = 2
anchor_games = 2
eval_simulations = 4
promotion = "always"
baseline_games = 2
baseline_simulations = 4
openings = "fischer_random"
max_decisions = 42
seed = 3

[selfplay]
threads = 2
games_per_thread = 2
games_per_chunk = 2
max_decisions = 42
start_positions = "fischer_random"

[selfplay.search]
full_simulations = 8
cheap_simulations = 4

[net]
blocks = 1
channels = 8
policy_head = "conv"
policy_channels = 2
value_channels = 2
value_hidden = 16

[train]
batch_size = 16
warmup_steps = 1
min_positions = 1
progress = false
"#;

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Runs `pacozero ARGS` with `input` on its standard input; asserts success.
fn run_with_input(args: &[&str], input: &str) -> String {
    let mut child = bin().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "pacozero {args:?}: {}", output_text(&out));
    stdout_of(&out)
}

#[test]
fn a_miniature_connect4_loop_and_every_command_on_its_network() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let cfg = write_config(dir.path(), "tiny-connect4.toml", TINY);
    run_ok(&["loop", "--config", s(&cfg), "--run", s(&run)]);
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    assert_eq!((state["game"].as_str(), state["generation"].as_u64()), (Some("connect4"), Some(3)), "{state}");

    // The data is Connect Four's: 6x7, 5 bit planes of one word, 3 scalars, 7 policy slots.
    let chunks = pacozero_data::list_chunks(&run.join("data")).unwrap();
    assert!(chunks.len() >= 2, "{} chunks", chunks.len());
    for c in &chunks {
        let (spec, positions, games) = pacozero_data::read_chunk(c).unwrap();
        assert_eq!((spec.game.as_str(), spec.board_height, spec.board_width, spec.bit_planes, spec.scalars, spec.policy_size), ("connect4", 6, 7, 5, 3, 7));
        assert!(positions.iter().all(|p| p.planes.len() == 5 && p.scalars.len() == 3));
        assert!(games.iter().all(|g| ["four_in_a_row", "board_full", "resign"].contains(&g.reason.as_str())), "reasons");
        assert!(games.iter().all(|g| g.num_decisions <= 42));
    }
    let model = run.join("models/gen-0002.pzmodel");
    let header = pacozero_nn::read_model_header(&model).unwrap();
    assert_eq!((header.0.height, header.0.width, header.0.policy_size), (6, 7, 7));

    // The report draws its sample games on 7x6 boards.
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(page.contains("\"size\":7") && page.contains("\"height\":6"), "report lacks Connect Four sample games");
    check_report_in_browser(&run.join("report.html"), (7, 6), "connect4-report.png");

    // Self-play and training on the run, outside the loop.
    run_ok(&["selfplay", "--game", "connect4", "--run", s(&run), "--games", "2", "--evaluator", "uniform", "--quiet"]);
    let out = run_ok(&["train", "--run", s(&run), "--steps", "2", "--export", "extra"]);
    assert!(stdout_of(&out).contains("exported"));

    // Matches: the network against rollout-MCTS, recorded and exported as PGN.
    let net = format!("net:{}:4", model.display());
    let games = dir.path().join("games");
    let out = run_ok(&["arena", "--game", "connect4", "--players", &net, "rollout:4", "--games", "2", "--record", s(&games)]);
    assert!(stdout_of(&out).contains("W/D/L"));
    let pgn = dir.path().join("games.pgn");
    run_ok(&["games", "export", s(&games), "--out", s(&pgn)]);
    let pgn = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");
    assert!(pgn.contains("1. ") && (pgn.contains(" 1-0") || pgn.contains(" 0-1") || pgn.contains(" 1/2-1/2")), "{pgn}");

    // A league of the network and two baselines: one rating list.
    let league = dir.path().join("league");
    let out = run_ok(&["league", "--game", "connect4", "--players", &net, "rollout:4", "random", "--out", s(&league), "--pairs", "1", "--quiet"]);
    let table = stdout_of(&out);
    assert!(table.contains("rollout:4") && table.contains("random"), "{table}");

    // Play in the terminal: a bad move, then a legal one; the bot answers.
    let text = run_with_input(&["play", "--game", "connect4", "--model", s(&model), "--sims", "8"], "9\n4\nquit\n");
    assert!(text.contains("`9` is not a legal decision here") && text.contains("1 2 3 4 5 6 7"), "{text}");
    let reply = text.lines().find_map(|l| l.split("bot plays: ").nth(1)).unwrap_or_else(|| panic!("no reply: {text}"));
    // The column, before the bot's view of the result.
    let column = reply.split_whitespace().next().unwrap_or_default();
    assert!(["1", "2", "3", "4", "5", "6", "7"].contains(&column), "{text}");

    // Analysis: one position, the JSON engine and UCI.
    let out = run_ok(&["analyze", "--game", "connect4", "--model", s(&model), "--fen", "4453", "--visits", "16"]);
    assert!(stdout_of(&out).contains("visits"), "{}", stdout_of(&out));
    let answer = run_with_input(&["analysis", "--model", s(&model)], "{\"id\": 1, \"fen\": \"44\", \"actions\": [\"3\"], \"max_visits\": 8}\n");
    let v: serde_json::Value = serde_json::from_str(answer.lines().next().unwrap()).unwrap();
    assert_eq!((v["id"].as_i64(), v["game"].as_str(), v["fen"].as_str()), (Some(1), Some("connect4"), Some("443")), "{answer}");
    assert!(v["top_moves"].as_array().is_some_and(|m| !m.is_empty()), "{answer}");
    // A win in one (the fourth stone on column 1) is mate 1, found at once;
    // the end of the input lets a search with a limit finish (a `quit` would stop it).
    let uci = run_with_input(&["uci", "--model", s(&model)], "uci\nisready\nposition startpos moves 1 2 1 2 1 2\ngo nodes 16\n");
    assert!(uci.contains("uciok") && uci.contains("score mate 1") && uci.contains("bestmove 1"), "{uci}");

    // Export, and the judge on a small suite (the bundled one's first lines).
    let onnx = dir.path().join("net.onnx");
    run_ok(&["export", "--format", "onnx", "--model", s(&model), "--out", s(&onnx)]);
    assert!(std::fs::metadata(&onnx).unwrap().len() > 1000);
    let bundled = std::fs::read_to_string(manifest_dir().join("../engine/tests/data/connect4-solved.jsonl")).unwrap();
    let suite = dir.path().join("suite.jsonl");
    std::fs::write(&suite, bundled.lines().take(30).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let json = dir.path().join("solved.json");
    let out = run_ok(&["solved", "--model", s(&model), "--suite", s(&suite), "--visits", "0,8", "--json", s(&json)]);
    assert!(stdout_of(&out).contains("on 30 solved positions"), "{}", stdout_of(&out));
    let figures: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(figures["lines"].as_array().unwrap().len(), 2);
    assert_eq!(figures["lines"][1]["positions"], 30);
    // An optimal move always keeps the value: never more optimal than correct moves.
    for l in figures["lines"].as_array().unwrap() {
        assert!(l["correct"].as_u64().unwrap() >= l["optimal"].as_u64().unwrap(), "{l}");
    }
    // Without --suite the bundled suite is judged.
    let out = run_ok(&["solved", "--model", s(&model), "--visits", "0"]);
    assert!(stdout_of(&out).contains("the bundled suite"), "{}", stdout_of(&out));

    // The run's curve against perfect play, a peer's beside it, in the report.
    let peer = dir.path().join("judged.jsonl");
    std::fs::write(&peer, "{\"network\":\"checkpoint-1\",\"seconds\":1e6,\"optimal\":{\"0\":100},\"value\":50,\"implementation\":\"peer\"}\n").unwrap();
    let out = stdout_of(&run_ok(&["solved", "--run", s(&run), "--suite", s(&suite), "--visits", "0", "--every-minutes", "0.01", "--peer", s(&peer)]));
    assert!(out.contains("the peer's curve: 1 points") && out.contains("networks on the curve"), "{out}");
    assert!(out.contains("the peer's final share at 0 visits, 100.0%") && out.contains("the peer at 16666.7 min"), "{out}");
    let curve = std::fs::read_to_string(run.join("solved.jsonl")).unwrap();
    assert!(curve.lines().count() >= 1 && curve.contains("\"network\":\"gen-000"), "{curve}");
    run_ok(&["report", "--run", s(&run)]);
    let report = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(report.contains("id=\"perfect-play\"") && report.contains("<td>peer</td><td>checkpoint-1</td>"), "the report has no curve");
}

#[test]
fn perft_show_and_legal_speak_connect4() {
    // Published perft of Connect Four from the empty board: 7^n until a
    // column can fill (n = 7: 823,543 − 7), then games end.
    for (depth, leaves) in [(4, "2401"), (7, "823536"), (8, "5673234")] {
        let out = run_ok(&["perft", "--game", "connect4", "--depth", &depth.to_string()]);
        assert_eq!(stdout_of(&out).lines().last(), Some(leaves), "depth {depth}");
    }
    let out = run_ok(&["show", "--game", "connect4", "--actions", "4 4 5"]);
    let text = stdout_of(&out);
    assert!(text.contains(". . . o . . .") && text.contains(". . . x x . .") && text.contains("1 2 3 4 5 6 7"), "{text}");
    let answer = run_with_input(&["legal", "--game", "connect4"], "{\"fen\": \"1111112\"}\n{\"fen\": \"1212121\"}\n");
    let lines: Vec<serde_json::Value> = answer.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["playable_actions"], serde_json::json!(["2", "3", "4", "5", "6", "7"]), "column 1 is full: {}", lines[0]);
    assert_eq!((lines[1]["winner"].as_str(), lines[1]["end_reason"].as_str()), (Some("white"), Some("four_in_a_row")), "{}", lines[1]);
}

/// The perfect player, built from `tools/connect4-solvers`.
fn perfect_player() -> String {
    let out = Command::new(manifest_dir().join("../scripts/connect4-solvers.sh")).arg("path").output().unwrap();
    assert!(out.status.success(), "building tools/connect4-solvers: {}", output_text(&out));
    format!("uci:{} uci:nodes=1", String::from_utf8(out.stdout).unwrap().trim())
}

#[test]
fn the_perfect_player_wins_every_game_from_the_empty_board_as_first_player() {
    let perfect = perfect_player();
    let out = run_ok(&["arena", "--game", "connect4", "--openings", "standard", "--players", &perfect, "rollout:50", "--games", "2", "--json"]);
    let text = stdout_of(&out);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    // First player from the empty board: a win, whatever the opponent; as
    // second player against rollout-MCTS at 50 simulations it wins too.
    assert_eq!(v["wins"], 2, "{text}");
}
