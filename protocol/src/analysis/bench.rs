//! `pacozero bench analysis`: the engine's throughput and the network's
//! batch fill at several numbers of concurrent queries.

use anyhow::Result;
use pacozero_engine::Game;
use rand::{Rng, SeedableRng};
use std::time::Instant;

use super::{serve_read, ServeOptions};
use pacozero_search::eval::Evaluator;

/// One measurement: `queries` queries of `visits` simulations each, with
/// up to `concurrent` searched at once.
#[derive(Clone, Debug)]
pub struct BenchLine {
    pub concurrent: usize,
    pub queries: usize,
    pub seconds: f64,
    pub batches: u64,
    pub evaluated: u64,
}

impl BenchLine {
    pub fn queries_per_second(&self) -> f64 {
        self.queries as f64 / self.seconds
    }
    /// Mean leaves per network call.
    pub fn mean_batch(&self) -> f64 {
        self.evaluated as f64 / self.batches.max(1) as f64
    }
    /// Mean batch over the most it could be (the number of concurrent queries).
    pub fn fill(&self) -> f64 {
        self.mean_batch() / self.concurrent as f64
    }
}

/// Query lines for `n` positions reached by seeded random play from the
/// start (0 to 39 decisions, each given by name as `actions`).
pub fn bench_queries<G: Game>(n: usize, visits: u32, seed: u64) -> String {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut lines = String::new();
    let mut legal = Vec::new();
    let mut made = 0;
    while made < n {
        let mut g = G::start();
        let mut names = Vec::new();
        for _ in 0..rng.gen_range(0..40) {
            g.playable_actions(&mut legal);
            if legal.is_empty() {
                break;
            }
            let a = legal[rng.gen_range(0..legal.len())];
            names.push(g.action_name(a));
            g.apply(a);
        }
        g.playable_actions(&mut legal);
        if g.outcome().is_some() || legal.is_empty() {
            continue;
        }
        let q = serde_json::json!({"id": made, "actions": names, "max_visits": visits});
        lines.push_str(&q.to_string());
        lines.push('\n');
        made += 1;
    }
    lines
}

/// Serves the same `queries` query lines once per entry of `concurrency`.
pub fn bench_analysis<G: Game, E: Evaluator<G> + ?Sized>(evaluator: &E, queries: usize, visits: u32, concurrency: &[usize]) -> Result<Vec<BenchLine>> {
    let input = bench_queries::<G>(queries, visits, 0x0A7A_1515);
    let mut out = Vec::new();
    for &c in concurrency {
        let opts = ServeOptions { max_concurrent: c.max(1), ..ServeOptions::default() };
        let t = Instant::now();
        let stats = serve_read::<G, _, _>(&input, &mut std::io::sink(), evaluator, &opts)?;
        let seconds = t.elapsed().as_secs_f64();
        anyhow::ensure!(stats.answered == queries && stats.errors == 0, "the benchmark's queries were not all answered: {stats:?}");
        out.push(BenchLine { concurrent: c.max(1), queries, seconds, batches: stats.batches, evaluated: stats.evaluated });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{parse_line, Line};
    use pacozero_engine::paco::GameState;
    use pacozero_search::eval::UniformEvaluator;

    #[test]
    fn a_bench_line_derives_its_rates() {
        let l = BenchLine { concurrent: 4, queries: 10, seconds: 2.0, batches: 5, evaluated: 15 };
        assert_eq!((l.queries_per_second(), l.mean_batch(), l.fill()), (5.0, 3.0, 0.75));
        let none = BenchLine { batches: 0, evaluated: 0, ..l };
        assert_eq!(none.mean_batch(), 0.0);
    }

    #[test]
    fn the_benchmark_queries_are_valid_positions_of_the_game() {
        let text = bench_queries::<GameState>(30, 7, 11);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 30);
        assert_eq!(text, bench_queries::<GameState>(30, 7, 11), "seeded");
        assert_ne!(text, bench_queries::<GameState>(30, 7, 12));
        let opts = ServeOptions::default();
        let mut plies = std::collections::BTreeSet::new();
        for (i, l) in lines.iter().enumerate() {
            match parse_line::<GameState>(l, i + 1, &opts) {
                Ok(Line::Query(q)) => {
                    assert_eq!((q.id.clone(), q.max_visits), (serde_json::json!(i), 7));
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    plies.insert(v["actions"].as_array().unwrap().len());
                }
                _ => panic!("line {i} is not a query: {l}"),
            }
        }
        assert!(plies.len() > 5 && plies.iter().all(|&n| n < 40), "{plies:?}");
    }

    #[test]
    fn the_benchmark_serves_its_queries_at_each_concurrency() {
        let _watchdog = pacozero_testkit::Watchdog::new(pacozero_testkit::HANG);
        let lines = bench_analysis::<GameState, _>(&UniformEvaluator, 6, 8, &[1, 3]).unwrap();
        assert_eq!(lines.iter().map(|l| (l.concurrent, l.queries)).collect::<Vec<_>>(), [(1, 6), (3, 6)]);
        assert_eq!(lines[0].mean_batch(), 1.0, "one query at a time: one leaf a call");
        assert!(lines[1].mean_batch() > 1.0 && lines[1].mean_batch() <= 3.0, "{:?}", lines[1]);
        assert!(lines.iter().all(|l| l.seconds > 0.0 && l.evaluated >= 6 * 8));
    }
}
