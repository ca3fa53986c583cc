//! Perft throughput (full-move and atomic) from the start position and from
//! busy middlegames of the reference vectors, for Paco Ŝako and Shako. Each
//! benchmark asserts its node count, so a speed-up can never come from a
//! rules change.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pacozero_engine::paco::{GameState, Position};
use pacozero_engine::prelude::*;
use pacozero_engine::shako;

fn middlegames() -> Vec<(Position, u64)> {
    include_str!("../tests/data/vectors.jsonl")
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            let ok = v["fen_exact"].as_bool()? && v["unions"].as_u64()? >= 6 && v["required_action"] == "Lift";
            let n = v["perft2_full"].as_u64()?;
            ok.then(|| (v["fen"].as_str().unwrap().parse().unwrap(), n))
        })
        .collect()
}

/// Settled positions of the reference vectors with one rule-heavy tag, with their depth-2 counts.
fn tagged(tag: &str) -> Vec<(Position, u64)> {
    include_str!("../tests/data/vectors.jsonl")
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            let ok = v["fen_exact"].as_bool()? && v["tags"].as_array()?.iter().any(|t| t == tag);
            let n = v["perft2_full"].as_u64()?;
            ok.then(|| (v["fen"].as_str().unwrap().parse().unwrap(), n))
        })
        .collect()
}

/// Full-move perft where chains explode: the tags the platform's engine is
/// slowest on (`pacozero bench perft` sets them beside its timings).
fn rule_heavy(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft rule-heavy depth 2");
    g.sample_size(10);
    for tag in ["mover_in_sako", "castling_blocked_by_threat", "gifts_opponent_promotion"] {
        let cases = tagged(tag);
        let total: u64 = cases.iter().map(|(_, n)| n).sum();
        g.throughput(Throughput::Elements(total));
        g.bench_function(format!("{tag} ({} positions)", cases.len()), |b| {
            b.iter(|| {
                let n: u64 = cases.iter().map(|(p, _)| GameState::new(*p).perft_full(2)).sum();
                assert_eq!(n, total);
            })
        });
    }
    g.finish();
}

fn perft(c: &mut Criterion) {
    let start = GameState::new(Position::startpos());
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    g.throughput(Throughput::Elements(197_792));
    g.bench_function("full-move start depth 4", |b| b.iter(|| assert_eq!(start.perft_full(4), 197_792)));
    g.throughput(Throughput::Elements(2_379_064));
    g.bench_function("atomic start depth 9", |b| b.iter(|| assert_eq!(start.perft_atomic(9), 2_379_064)));
    g.throughput(Throughput::Elements(58_741_075));
    g.bench_function("atomic start depth 11", |b| b.iter(|| assert_eq!(start.perft_atomic(11), 58_741_075)));
    let mids = middlegames();
    let total: u64 = mids.iter().map(|(_, n)| n).sum();
    g.throughput(Throughput::Elements(total));
    g.bench_function(format!("full-move {} middlegames depth 2", mids.len()), |b| {
        b.iter(|| {
            let n: u64 = mids.iter().map(|(p, _)| GameState::new(*p).perft_full(2)).sum();
            assert_eq!(n, total);
        })
    });
    g.finish();
}

/// Shako middlegames of the Fairy-Stockfish records with their perft-3 counts.
fn shako_middlegames() -> Vec<(shako::Position, u64)> {
    include_str!("../tests/data/shako/positions.jsonl")
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            let tags = v["tags"].as_array()?;
            tags.iter().any(|t| t == "phase_middlegame").then(|| (v["fen"].as_str().unwrap().parse().unwrap(), v["perft3"].as_u64().unwrap()))
        })
        .collect()
}

fn shako_perft(c: &mut Criterion) {
    let start = shako::Position::startpos();
    let mut g = c.benchmark_group("shako perft");
    g.sample_size(10);
    g.throughput(Throughput::Elements(10_273_158));
    g.bench_function("start depth 4", |b| b.iter(|| assert_eq!(start.perft(4), 10_273_158)));
    let mids = shako_middlegames();
    let total: u64 = mids.iter().map(|(_, n)| n).sum();
    g.throughput(Throughput::Elements(total));
    g.bench_function(format!("{} middlegames depth 3", mids.len()), |b| {
        b.iter(|| {
            let n: u64 = mids.iter().map(|(p, _)| p.perft(3)).sum();
            assert_eq!(n, total);
        })
    });
    g.finish();
}

/// The 100 Shako positions of the Fairy-Stockfish records (random games, all phases).
fn shako_records() -> Vec<shako::GameState> {
    include_str!("../tests/data/shako/positions.jsonl")
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            Some(shako::GameState::from_fen(v["fen"].as_str()?).unwrap())
        })
        .collect()
}

/// Shako's mate-in-one detection (`can_win_this_turn`, asked at every new
/// search leaf) against legal move generation on the same positions, and
/// against playing every move out and asking the game's result.
fn shako_mate_in_one(c: &mut Criterion) {
    use pacozero_engine::Outcome;
    let games = shako_records();
    let mut g = c.benchmark_group("shako mate in one");
    g.throughput(Throughput::Elements(games.len() as u64));
    let mates = games.iter().filter(|s| s.can_win_this_turn()).count();
    assert_eq!(mates, 5);
    g.bench_function("legal moves (list)", |b| b.iter(|| games.iter().map(|s| s.position().legal_moves_vec().len()).sum::<usize>()));
    g.bench_function("can_win_this_turn", |b| b.iter(|| assert_eq!(games.iter().filter(|s| s.can_win_this_turn()).count(), mates)));
    g.bench_function("every move played out", |b| {
        b.iter(|| {
            let n = games
                .iter()
                .filter(|s| {
                    s.legal_moves().into_iter().any(|m| {
                        let mut next = (*s).clone();
                        next.play_unchecked(m);
                        next.outcome() == Some(Outcome::Win(s.to_move()))
                    })
                })
                .count();
            assert_eq!(n, mates);
        })
    });
    g.finish();
}

criterion_group!(benches, perft, rule_heavy, shako_perft, shako_mate_in_one);
criterion_main!(benches);
