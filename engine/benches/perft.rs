//! Perft throughput (full-move and atomic) from the start position and from
//! busy middlegames of the reference vectors. Each benchmark asserts its node
//! count, so a speed-up can never come from a rules change.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pacozero_engine::paco::{GameState, Position};

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

fn perft(c: &mut Criterion) {
    let start = GameState::new(Position::startpos());
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    g.throughput(Throughput::Elements(197_792));
    g.bench_function("full-move start depth 4", |b| b.iter(|| assert_eq!(start.perft_full(4), 197_792)));
    g.throughput(Throughput::Elements(2_379_064));
    g.bench_function("atomic start depth 9", |b| b.iter(|| assert_eq!(start.perft_atomic(9), 2_379_064)));
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

criterion_group!(benches, perft);
criterion_main!(benches);
