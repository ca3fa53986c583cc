//! The reference generator against the platform's own answers
//! (`engine/tests/data/`, recorded from the platform's rules engine): it must
//! reproduce every record, as the fast engine does, before it may judge the
//! fast engine.

use pacozero_paco_reference::{Action, RefGame, Rules, State};
use serde_json::Value;
use std::collections::BTreeMap;

fn data(name: &str) -> Vec<Value> {
    let path = format!("{}/../tests/data/{name}", manifest_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn replay(start: &str, actions: &str, draw_after: usize) -> RefGame {
    let mut g = RefGame::new(State::from_fen(start, Rules::default()).unwrap(), draw_after);
    for (i, a) in actions.split_whitespace().enumerate() {
        let a: Action = a.parse().unwrap();
        g.play(a).unwrap_or_else(|e| panic!("action {} ({a}): {e}", i + 1));
    }
    g
}

fn game_of(v: &Value) -> RefGame {
    if v["fen_exact"].as_bool().unwrap() {
        RefGame::new(State::from_fen(v["fen"].as_str().unwrap(), Rules::default()).unwrap(), 3)
    } else {
        let src = &v["source"];
        replay(src["start_fen"].as_str().unwrap(), src["actions_from_start"].as_str().unwrap(), src["draw_after_n_repetitions"].as_u64().unwrap_or(3) as usize)
    }
}

/// FNV-1a 64 over the distinct result FENs, sorted, joined by newlines.
fn digest(fens: impl Iterator<Item = String>) -> String {
    let distinct: std::collections::BTreeSet<String> = fens.collect();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in distinct.into_iter().collect::<Vec<_>>().join("\n").bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[test]
fn every_vector_and_its_full_moves() {
    let vectors = data("vectors.jsonl");
    let full = data("full_moves.jsonl");
    assert_eq!((vectors.len(), full.len()), (150, 150));
    let mut failures = Vec::new();
    let mut listed = 0;
    for (v, f) in vectors.iter().zip(&full) {
        let id = v["id"].as_u64().unwrap();
        let g = game_of(v);
        let s = &g.state;
        let mut fail = |what: String| failures.push(format!("id {id}: {what}"));
        if s.fen() != v["fen"].as_str().unwrap() {
            fail(format!("fen {}", s.fen()));
        }
        if s.required.name() != v["required_action"] {
            fail(format!("required {}", s.required.name()));
        }
        let legal: Vec<String> = s.legal_actions().iter().map(|a| a.to_string()).collect();
        let want: Vec<String> = v["legal_actions"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
        if legal != want {
            fail(format!("legal {legal:?} != {want:?}"));
        }
        let results = g.turn_results();
        if results.len() as u64 != v["num_full_moves"].as_u64().unwrap() {
            fail(format!("{} full moves != {}", results.len(), v["num_full_moves"]));
        }
        let d = digest(results.iter().map(|r| r.state.fen()));
        if d != v["full_moves_digest_fnv1a64"].as_str().unwrap() {
            fail(format!("digest {d}"));
        }
        let wins = results.iter().filter(|r| r.winner().is_some()).count() as u64;
        let draws = results.iter().filter(|r| r.winner().is_none() && r.status() != pacozero_paco_reference::Status::Running).count() as u64;
        if (wins, draws) != (v["winning_full_moves"].as_u64().unwrap(), v["drawing_full_moves"].as_u64().unwrap()) {
            fail(format!("wins/draws {wins}/{draws}"));
        }
        let listed_moves = f["full_moves"].as_array().unwrap();
        if listed_moves.is_empty() {
            continue;
        }
        let mut got: BTreeMap<(String, String, String), usize> = BTreeMap::new();
        for r in &results {
            *got.entry((r.state.fen(), r.status().to_string(), r.state.required.name().to_string())).or_default() += 1;
        }
        let mut expected: BTreeMap<(String, String, String), usize> = BTreeMap::new();
        for m in listed_moves {
            listed += 1;
            *expected
                .entry((m["result_fen"].as_str().unwrap().into(), m["state"].as_str().unwrap().into(), m["next_required"].as_str().unwrap().into()))
                .or_default() += 1;
        }
        if got != expected {
            let missing: Vec<_> = expected.keys().filter(|k| !got.contains_key(*k)).take(3).collect();
            let extra: Vec<_> = got.keys().filter(|k| !expected.contains_key(*k)).take(3).collect();
            fail(format!("results differ: missing {missing:?}, extra {extra:?}"));
        }
    }
    assert!(listed > 29_000, "only {listed} full moves compared");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_game_replays_to_its_result() {
    let games = data("games.jsonl");
    assert_eq!(games.len(), 25);
    for gm in &games {
        let setup = &gm["setup"];
        let g = replay(setup["start_fen"].as_str().unwrap(), gm["actions"].as_str().unwrap(), setup["draw_after_n_repetitions"].as_u64().unwrap() as usize);
        assert_eq!(g.state.fen(), gm["final_fen"].as_str().unwrap(), "game {}", gm["game"]);
        assert_eq!(g.status().to_string(), gm["result"].as_str().unwrap(), "game {}", gm["game"]);
        assert_eq!(g.state.required.name(), gm["final_required_action"].as_str().unwrap(), "game {}", gm["game"]);
    }
}

fn atomic_perft(s: &State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    s.legal_actions()
        .into_iter()
        .map(|a| {
            let mut n = s.clone();
            n.play(a).unwrap();
            atomic_perft(&n, depth - 1)
        })
        .sum()
}

fn full_perft(s: &State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    s.turn_results().iter().map(|r| full_perft(r, depth - 1)).sum()
}

/// The platform's perft from the start (engine/tests/data/README.md).
#[test]
fn start_position_perft() {
    let start = State::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -", Rules::default()).unwrap();
    let atomic: Vec<u64> = (1..=6).map(|d| atomic_perft(&start, d)).collect();
    assert_eq!(atomic, [10, 20, 200, 400, 4_472, 8_902]);
    let full: Vec<u64> = (1..=3).map(|d| full_perft(&start, d)).collect();
    assert_eq!(full, [20, 400, 8_902]);
}

/// This checkout's package directory, asked of cargo at run time (a test
/// binary built by another checkout sharing the target directory keeps
/// that checkout's compile-time path).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
}
