//! External UCI engines as arena players (`uci:<command>:<budget>`): the
//! arena's client plays our own `pacozero uci` for both games, a network
//! plays short Shako games against Fairy-Stockfish to their end, and
//! engines that play an illegal move, crash or time out lose the game with
//! the reason recorded.

use pacozero_engine::{paco, shako};
use serde_json::Value;
use std::path::{Path, PathBuf};

mod common;
use common::{bin, bin_path, s, tiny_model_of};

/// `pacozero arena ... --json`: the match's JSON.
fn arena(game: &str, players: [&str; 2], extra: &[&str]) -> Value {
    let out = bin().args(["arena", "--game", game, "--quiet", "--json", "--players", players[0], players[1]]).args(extra).output().unwrap();
    assert!(out.status.success(), "arena {players:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Fairy-Stockfish: `$FAIRY_STOCKFISH`, else found as the arena finds a bare name (`PATH`, then `/usr/games`).
fn fairy_stockfish() -> PathBuf {
    if let Some(p) = std::env::var_os("FAIRY_STOCKFISH") {
        return PathBuf::from(p);
    }
    pacozero_arena::uci_player::find_program("fairy-stockfish")
        .unwrap_or_else(|e| panic!("{e}: scripts/test.sh installs it (Debian: apt-get install fairy-stockfish), or set FAIRY_STOCKFISH to its path"))
}

/// A shell script speaking enough UCI for a game, whose answer to `go` is
/// `on_go` (shell); it offers the option `Hash`, and `option` besides (a
/// line after `option name `, or nothing).
fn fake_engine(dir: &Path, name: &str, on_go: &str, option: &str) -> PathBuf {
    let path = dir.join(name);
    let extra = if option.is_empty() { String::new() } else { format!(" echo 'option name {option}';") };
    let script = format!(
        "#!/bin/sh\nwhile read line; do\n  case \"$line\" in\n    uci) echo 'id name {name}'; echo 'option name Hash type spin default 16 min 1 max 64';{extra} echo uciok;;\n    isready) echo readyok;;\n    go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Every game ended by the rules or the length cap; no forfeit.
fn no_forfeits(m: &Value) {
    assert_eq!(m["forfeits"], serde_json::json!([]), "{m}");
    for reason in m["end_reasons"].as_object().unwrap().keys() {
        assert!(!["illegal_move", "engine_crash", "engine_timeout"].contains(&reason.as_str()), "{m}");
    }
}

#[test]
fn the_arena_plays_our_own_uci_engine_for_both_games() {
    let dir = tempfile::tempdir().unwrap();
    for (game, model) in [("shako", tiny_model_of::<shako::GameState>(dir.path(), "shako")), ("paco", tiny_model_of::<paco::GameState>(dir.path(), "paco"))] {
        let engine = format!("uci:{} uci --model {}:nodes=12", s(&bin_path()), s(&model));
        let m = arena(game, [&engine, "rollout:8"], &["--games", "2", "--max-decisions", "60"]);
        assert_eq!(m["games"], 2, "{m}");
        no_forfeits(&m);
        // The engine's reported nodes are its simulations: at most 12 a turn.
        let sims = m["simulations_per_decision"][0].as_f64().unwrap();
        assert!(sims > 0.0 && sims <= 12.0, "{game}: {m}");
        // On a clock of 0.5 s + 0.05 s a move, against itself: the arena keeps
        // each engine's clock, and our engine's time management never loses on time.
        let clocked = format!("uci:{} uci --model {}:tc=0.5+0.05", s(&bin_path()), s(&model));
        let m = arena(game, [&clocked, &clocked], &["--games", "2", "--max-decisions", "60"]);
        assert_eq!(m["games"], 2, "{m}");
        no_forfeits(&m);
    }
}

#[test]
fn a_network_plays_shako_against_fairy_stockfish_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model_of::<shako::GameState>(dir.path(), "shako");
    let fsf = format!("uci:{},UCI_Variant=shako:nodes=200", s(&fairy_stockfish()));
    let net = format!("net:{}:16", s(&model));
    let m = arena("shako", [&net, &fsf], &["--games", "4", "--max-decisions", "2000", "--openings", "fischer_random"]);
    assert_eq!(m["games"], 4, "{m}");
    // Fairy-Stockfish's every move is legal by our rules, and every game ends by the rules.
    no_forfeits(&m);
    for reason in m["end_reasons"].as_object().unwrap().keys() {
        assert!(["checkmate", "stalemate", "repetition", "fifty_moves"].contains(&reason.as_str()), "{m}");
    }
    // Fairy-Stockfish reports its nodes.
    assert!(m["simulations_per_decision"][1].as_f64().unwrap() > 0.0, "{m}");
}

#[test]
fn illegal_moves_crashes_and_timeouts_lose_the_game_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    for (name, on_go, budget, reason, detail) in [
        ("illegal", "echo 'bestmove a1a1'", "nodes=5:timeout=300", "illegal_move", "`bestmove a1a1`"),
        ("crash", "exit 3", "nodes=5:timeout=300", "engine_crash", "it ended"),
        ("silent", ":", "nodes=5:timeout=300", "engine_timeout", "no `bestmove` in time"),
        // A move sent after its clock of 0.2 s ran out: lost on time.
        ("slow", "sleep 0.5; echo 'bestmove e3e4'", "tc=0.2+0.1", "engine_timeout", "lost on time"),
    ] {
        let engine = fake_engine(dir.path(), name, on_go, "");
        let spec = format!("uci:{}:{budget}", s(&engine));
        let m = arena("shako", [&spec, "random"], &["--games", "2"]);
        assert_eq!((m["losses"].as_u64(), m["wins"].as_u64()), (Some(2), Some(0)), "{name}: {m}");
        assert_eq!(m["end_reasons"][reason], 2, "{name}: {m}");
        let forfeits = m["forfeits"].as_array().unwrap();
        assert_eq!(forfeits.len(), 2, "{m}");
        // Each game names the engine, its colour, the reason and what happened.
        for (f, colour) in forfeits.iter().zip(["white", "black"]) {
            let f = f.as_str().unwrap();
            assert!(f.starts_with(&format!("{spec} ({colour}) {reason}: ")) && f.contains(detail), "{f}");
        }
    }
    // A spec is checked before the match: the program, UCI, the options,
    // the game among the engine's variants.
    let good = fake_engine(dir.path(), "good", "echo 'bestmove e3e4'", "");
    let chess_only = fake_engine(dir.path(), "chess-only", "echo 'bestmove e2e4'", "UCI_Variant type combo default chess var chess var xiangqi");
    for (spec, needle) in [
        (format!("uci:{},Threads=2:nodes=5", s(&good)), "the engine has no option `Threads` (it has: Hash)"),
        ("uci:no-such-uci-engine:nodes=5".to_string(), "no program `no-such-uci-engine` on PATH or in /usr/games"),
        (format!("uci:{}:nodes=5", s(&chess_only)), "UCI_Variant has no variant `shako` (it has: chess, xiangqi)"),
    ] {
        let out = bin().args(["arena", "--game", "shako", "--quiet", "--players", &spec, "random", "--games", "2"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{spec}: {err}");
        assert!(err.contains(needle), "{spec}: {err}");
    }
}

#[test]
fn the_loop_plays_an_external_engine_and_keeps_every_evaluation_game() {
    let dir = tempfile::tempdir().unwrap();
    let config = r#"
[loop]
game = "shako"
generations = 1
games_per_generation = 2
train_steps_per_generation = 2
gating_games = 2
eval_simulations = 4
promotion = "always"
baseline_games = 2
baseline_simulations = 4
external_games = 2
max_decisions = 40
seed = 5

[selfplay]
threads = 1
games_per_thread = 2
games_per_chunk = 2
max_decisions = 40

[selfplay.search]
full_simulations = 4
cheap_simulations = 2

[net]
blocks = 1
channels = 8
policy_channels = 2
value_channels = 2
value_hidden = 16

[train]
batch_size = 8
warmup_steps = 1
min_positions = 1
progress = false
"#;
    let cfg = common::write_config(dir.path(), "loop.toml", config);
    let run = dir.path().join("run");
    let external = format!("uci:{},UCI_Variant=shako:nodes=10", s(&fairy_stockfish()));
    common::run_ok(&[
        "loop",
        "--config",
        s(&cfg),
        "--run",
        s(&run),
        "--quiet",
        "--set",
        &format!("loop.external={}", serde_json::to_string(&external).unwrap()),
    ]);
    // The external match is one of the evaluation matches ...
    let matches = std::fs::read_to_string(run.join("matches.jsonl")).unwrap();
    let lines: Vec<Value> = matches.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ext: Vec<&Value> = lines.iter().filter(|l| l["b"] == external.as_str()).collect();
    assert_eq!(ext.len(), 1, "{matches}");
    assert_eq!(ext[0]["wins"].as_u64().unwrap() + ext[0]["draws"].as_u64().unwrap() + ext[0]["losses"].as_u64().unwrap(), 2);
    // ... and every evaluation game is kept with its players, exportable as PGN.
    let out = common::run_ok(&["games", "export", s(&run.join("match-games"))]);
    let pgn = String::from_utf8(out.stdout).unwrap();
    let games = pgn.matches("[Event \"PacoZero match\"]").count();
    let played: u64 = lines.iter().map(|l| l["wins"].as_u64().unwrap() + l["draws"].as_u64().unwrap() + l["losses"].as_u64().unwrap()).sum();
    assert_eq!(games as u64, played, "{pgn}");
    assert_eq!(pgn.matches(&format!("[Black \"{external}\"]")).count() + pgn.matches(&format!("[White \"{external}\"]")).count(), 2, "{pgn}");
    // A bad external spec is refused with the configuration.
    let out = bin().args(["loop", "--config", s(&cfg), "--run", s(&dir.path().join("bad")), "--set", "loop.external=\"rollout:8\""]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("loop.external must be a uci:"), "{err}");
}

#[test]
fn the_ladder_plays_every_rung_and_fits_the_fifty_percent_budget() {
    let dir = tempfile::tempdir().unwrap();
    let engine = format!("uci:{},UCI_Variant=shako", s(&fairy_stockfish()));
    let (record, table) = (dir.path().join("games"), dir.path().join("ladder.md"));
    // The ladder of `players` at 1 and 10 nodes, two games a rung, with `extra` arguments.
    let ladder = |players: &[&str], extra: &[&str]| {
        let mut args = vec!["ladder", "--game", "shako", "--players"];
        args.extend(players);
        args.extend(["--engine", &engine, "--nodes", "1,10", "--games", "2", "--max-decisions", "200", "--quiet"]);
        args.extend(extra);
        common::run_ok(&args)
    };
    let out = ladder(&["greedy", "rollout:8"], &["--json", "--record", s(&record), "--out", s(&table)]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rungs = v["rungs"].as_array().unwrap();
    // Two players, two rungs each, two games a rung.
    assert_eq!(rungs.len(), 4, "{v}");
    for (r, (player, nodes)) in rungs.iter().zip([("greedy", 1), ("greedy", 10), ("rollout:8", 1), ("rollout:8", 10)]) {
        assert_eq!((r["player"].as_str(), r["nodes"].as_u64(), r["games"].as_u64()), (Some(player), Some(nodes), Some(2)), "{r}");
    }
    assert_eq!(v["fifty"].as_array().unwrap().len(), 2, "{v}");
    // The markdown table has a row per rung and one per player's 50% budget; every game is kept.
    let md = std::fs::read_to_string(&table).unwrap();
    assert_eq!(md.lines().filter(|l| l.starts_with("| `")).count(), 4 + 2, "{md}");
    assert_eq!(pacozero_data::game_ids(&record).unwrap().len(), 8);
    // With --run the ladder goes into the run: ladder.json (the printed JSON),
    // ladder.md, ladder-games/, and a Yardstick section in the run's report.
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    ladder(&["greedy"], &["--run", s(&run)]);
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(run.join("ladder.json")).unwrap()).unwrap();
    assert_eq!((saved["rungs"].as_array().unwrap().len(), saved["games_per_rung"].as_u64()), (2, Some(2)), "{saved}");
    assert_eq!(pacozero_data::game_ids(&run.join("ladder-games")).unwrap().len(), 4);
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    let section = &page[page.find("id=\"yardstick\"").expect("a yardstick section")..];
    for r in saved["rungs"].as_array().unwrap() {
        let row = format!("<tr><td>greedy</td><td>{}</td><td>2</td><td>{}</td><td>{}</td><td>{}</td>", r["nodes"], r["wins"], r["draws"], r["losses"]);
        assert!(section.contains(&row), "{row} not in {section}");
    }
    assert!(std::fs::read_to_string(run.join("ladder.md")).unwrap().contains("| `greedy` | 10 | 2 |"));
    // The engine is given without a budget.
    let out = bin().args(["ladder", "--game", "shako", "--players", "greedy", "--engine", &format!("{engine}:nodes=5")]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("without a budget"), "{}", String::from_utf8_lossy(&out.stderr));
}
