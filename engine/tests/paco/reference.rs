//! Every record of the reference data (`tests/data/`, copied from the
//! platform's rules engine) must be reproduced exactly.

use pacozero_engine::paco::{action_to_string, parse_actions, FullMoveGen, GameState, Position, Status};
use serde_json::Value;
use std::collections::BTreeMap;

use crate::common::manifest_dir;
use pacozero_engine::prelude::*;

fn read_jsonl(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/{name}", manifest_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}:{}: {e}", i + 1)))
        .collect()
}

/// The record's position: parsed from its FEN, or replayed from the start
/// where the FEN cannot express the state (pending promotion, repetition history).
fn game_of(v: &Value) -> GameState {
    let src = &v["source"];
    if v["fen_exact"].as_bool().unwrap() {
        let pos: Position = v["fen"].as_str().unwrap().parse().unwrap();
        GameState::new(pos)
    } else {
        replay(src["start_fen"].as_str().unwrap(), src["actions_from_start"].as_str().unwrap(), src["draw_after_n_repetitions"].as_u64().unwrap_or(3) as u8)
    }
}

fn replay(start: &str, actions: &str, draw_after: u8) -> GameState {
    let mut g = GameState::new(start.parse().unwrap()).with_draw_after(draw_after);
    for (i, a) in parse_actions(actions).unwrap().into_iter().enumerate() {
        g.play(a).unwrap_or_else(|e| panic!("action {} ({a}) rejected: {e}; fen {}", i + 1, g.position().fen()));
    }
    g
}

fn legal_strings(pos: &Position) -> Vec<String> {
    pos.actions().iter().map(action_to_string).collect()
}

/// The reference's fingerprint of a set of full moves: FNV-1a 64 over the
/// distinct result FENs, sorted, joined by `\n`, as 16 lowercase hex digits.
fn full_moves_digest(result_fens: impl Iterator<Item = String>) -> String {
    let distinct: std::collections::BTreeSet<String> = result_fens.collect();
    let joined = distinct.into_iter().collect::<Vec<_>>().join("\n");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in joined.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn status_string(s: Status) -> String {
    s.to_string()
}

#[test]
fn vectors_legal_actions_and_full_move_counts() {
    let vectors = read_jsonl("vectors.jsonl");
    assert_eq!(vectors.len(), 150);
    let mut gen = FullMoveGen::new();
    let mut failures = Vec::new();
    for v in &vectors {
        let id = v["id"].as_u64().unwrap();
        let g = game_of(v);
        let pos = g.position();
        let mut fail = |what: String| failures.push(format!("id {id} ({}): {what}", v["fen"].as_str().unwrap()));
        if pos.fen() != v["fen"].as_str().unwrap() {
            fail(format!("fen {} != expected", pos.fen()));
        }
        if pos.required().name() != v["required_action"].as_str().unwrap() {
            fail(format!("required {:?}", pos.required()));
        }
        if pos.side_to_move().letter().to_string() != v["side_to_move"].as_str().unwrap() {
            fail("side to move".into());
        }
        if pos.no_progress_half_moves() as u64 != v["no_progress_half_moves"].as_u64().unwrap() {
            fail("no-progress counter".into());
        }
        if pos.unions().len() as u64 != v["unions"].as_u64().unwrap() {
            fail("union count".into());
        }
        let expected: Vec<String> = v["legal_actions"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
        let got = legal_strings(pos);
        if got != expected {
            fail(format!("legal actions {got:?} != {expected:?}"));
        }
        if got.len() as u64 != v["num_legal_actions"].as_u64().unwrap() {
            fail(format!("{} legal actions != num_legal_actions {}", got.len(), v["num_legal_actions"]));
        }
        let moves = g.full_moves(&mut gen);
        // The whole set of results, by its fingerprint: the only check of the
        // full-move set of the records too large to list in full_moves.jsonl.
        let digest = full_moves_digest(moves.iter().map(|(m, _)| m.position().fen()));
        if digest != v["full_moves_digest_fnv1a64"].as_str().unwrap() {
            fail(format!("full-move digest {digest} != {}", v["full_moves_digest_fnv1a64"]));
        }
        let wins = moves.iter().filter(|(m, _)| m.status().winner().is_some()).count();
        let draws = moves.iter().filter(|(m, _)| matches!(m.status(), Status::RepetitionDraw | Status::NoProgressDraw | Status::KingChainDraw)).count();
        if moves.len() as u64 != v["num_full_moves"].as_u64().unwrap() {
            fail(format!("num_full_moves {} != {}", moves.len(), v["num_full_moves"]));
        }
        if gen.count(pos) != moves.len() as u64 {
            fail(format!("bulk count {} != enumeration {}", gen.count(pos), moves.len()));
        }
        if wins as u64 != v["winning_full_moves"].as_u64().unwrap() || draws as u64 != v["drawing_full_moves"].as_u64().unwrap() {
            fail(format!("wins/draws {wins}/{draws} != {}/{}", v["winning_full_moves"], v["drawing_full_moves"]));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn vectors_perft2() {
    let vectors = read_jsonl("vectors.jsonl");
    let mut failures = Vec::new();
    let mut checked = 0;
    for v in &vectors {
        let Some(expected) = v["perft2_full"].as_u64() else { continue };
        let g = game_of(v);
        let got = g.perft_full(2);
        checked += 1;
        if got != expected {
            failures.push(format!("id {}: perft2 {got} != {expected} ({})", v["id"], v["fen"]));
        }
    }
    assert!(checked >= 100, "only {checked} perft2 values checked");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn full_moves_results_and_traces() {
    let vectors = read_jsonl("vectors.jsonl");
    let full = read_jsonl("full_moves.jsonl");
    assert_eq!(full.len(), vectors.len());
    let mut gen = FullMoveGen::new();
    let mut failures = Vec::new();
    let mut listed = 0;
    for (v, f) in vectors.iter().zip(&full) {
        assert_eq!(v["id"], f["id"]);
        let expected_moves = f["full_moves"].as_array().unwrap();
        if expected_moves.is_empty() {
            continue; // too many to list (7 records): the vectors test checks their digest
        }
        let g = game_of(v);
        // Results as (fen, state, next required), compared as multisets.
        let mut got: BTreeMap<(String, String, String), usize> = BTreeMap::new();
        for (m, _) in g.full_moves(&mut gen) {
            *got.entry((m.position().fen(), status_string(m.status()), m.position().required().name().to_string())).or_default() += 1;
        }
        let mut want: BTreeMap<(String, String, String), usize> = BTreeMap::new();
        for m in expected_moves {
            listed += 1;
            *want
                .entry((m["result_fen"].as_str().unwrap().into(), m["state"].as_str().unwrap().into(), m["next_required"].as_str().unwrap().into()))
                .or_default() += 1;
            // The reference's trace must be accepted and lead to its result.
            let mut r = g.clone();
            for a in parse_actions(m["trace"].as_str().unwrap()).unwrap() {
                if let Err(e) = r.play(a) {
                    failures.push(format!("id {}: trace {} rejected: {e}", v["id"], m["trace"]));
                    break;
                }
            }
            if r.position().fen() != m["result_fen"].as_str().unwrap() {
                failures.push(format!("id {}: trace {} gives {}", v["id"], m["trace"], r.position().fen()));
            }
        }
        let listed_digest = full_moves_digest(expected_moves.iter().map(|m| m["result_fen"].as_str().unwrap().to_string()));
        if listed_digest != v["full_moves_digest_fnv1a64"].as_str().unwrap() {
            failures.push(format!("id {}: digest of the listed results {listed_digest} != the record's", v["id"]));
        }
        if got != want {
            let missing: Vec<_> = want.keys().filter(|k| !got.contains_key(*k)).take(3).collect();
            let extra: Vec<_> = got.keys().filter(|k| !want.contains_key(*k)).take(3).collect();
            failures.push(format!("id {}: results differ: missing {missing:?}, extra {extra:?}", v["id"]));
        }
    }
    assert!(listed > 29_000, "only {listed} full moves compared");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn games_replay_to_their_results() {
    let games = read_jsonl("games.jsonl");
    assert_eq!(games.len(), 25);
    for gm in &games {
        let setup = &gm["setup"];
        let g = replay(setup["start_fen"].as_str().unwrap(), gm["actions"].as_str().unwrap(), setup["draw_after_n_repetitions"].as_u64().unwrap() as u8);
        let pos = g.position();
        assert_eq!(pos.fen(), gm["final_fen"].as_str().unwrap(), "game {}", gm["game"]);
        assert_eq!(status_string(g.status()), gm["result"].as_str().unwrap(), "game {}", gm["game"]);
        assert_eq!(pos.required().name(), gm["final_required_action"].as_str().unwrap(), "game {}", gm["game"]);
        assert_eq!(pos.no_progress_half_moves() as u64, gm["final_no_progress_half_moves"].as_u64().unwrap());
        assert_eq!(pos.unions().len() as u64, gm["final_unions"].as_u64().unwrap());
        assert_eq!(parse_actions(gm["actions"].as_str().unwrap()).unwrap().len() as u64, gm["num_actions"].as_u64().unwrap());
    }
}

#[test]
fn start_position_perft() {
    let g = GameState::new(Position::startpos());
    let full = [20u64, 400, 8_902, 197_792, 4_901_417];
    for (d, &n) in full.iter().enumerate() {
        assert_eq!(g.perft_full(d as u32 + 1), n, "full-move perft depth {}", d + 1);
    }
    let atomic = [10u64, 20, 200, 400, 4_472, 8_902, 99_312, 197_784];
    for (d, &n) in atomic.iter().enumerate() {
        assert_eq!(g.perft_atomic(d as u32 + 1), n, "atomic perft depth {}", d + 1);
    }
}

/// The positions in which the platform found `pacozero legal` short of one
/// action each (issue 31): the position's list, the `Game` trait's list
/// (what `pacozero legal` and Python report) and the full-move count.
#[test]
fn platform_checks() {
    let records = read_jsonl("platform_checks.jsonl");
    assert_eq!(records.len(), 2);
    for v in &records {
        let fen = v["fen"].as_str().unwrap();
        let strings = |key: &str| -> Vec<String> { v[key].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect() };
        let want = strings("legal_actions");
        let pos: Position = fen.parse().unwrap();
        let mut got = legal_strings(&pos);
        got.sort();
        assert_eq!(got, want, "Position::actions in {fen}");
        let g = GameState::new(pos);
        let names = |f: fn(&GameState, &mut Vec<u16>)| -> Vec<String> {
            let mut out = Vec::new();
            f(&g, &mut out);
            let mut n: Vec<String> = out.iter().map(|&a| g.action_name(a)).collect();
            n.sort();
            n
        };
        assert_eq!(names(|g, out| g.legal_actions(out)), want, "GameRules::legal_actions in {fen}");
        let dead_ends = strings("dead_end_actions");
        let playable: Vec<String> = want.iter().filter(|a| !dead_ends.contains(a)).cloned().collect();
        assert_eq!(names(|g, out| g.playable_actions(out)), playable, "GameRules::playable_actions in {fen}");
        let moves = g.full_moves(&mut FullMoveGen::new());
        assert_eq!(moves.len() as u64, v["num_full_moves"].as_u64().unwrap(), "full moves in {fen}");
    }
}
