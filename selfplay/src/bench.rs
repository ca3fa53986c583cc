//! Search throughput of self-play ([`bench_mcts`]): its workers, writing nothing.

use std::time::{Duration, Instant};

use anyhow::Result;

use pacozero_search::{Evaluator, SearchConfig};

use crate::config::SelfplayConfig;
use crate::selfplay::run_workers;
use crate::SelfplayGame;

/// Search throughput figures.
#[derive(Clone, Debug)]
pub struct BenchReport {
    pub evaluator: String,
    pub threads: usize,
    pub games_per_thread: usize,
    pub wall_secs: f64,
    pub simulations: u64,
    pub node_visits: u64,
    pub decisions: u64,
    pub batches: u64,
    pub avg_batch: f64,
    pub simulations_per_sec: f64,
    pub node_visits_per_sec: f64,
    /// Seconds inside the evaluator, summed over threads.
    pub eval_secs: f64,
    /// Share of worker time inside the evaluator.
    pub eval_fraction: f64,
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} threads x {} games, {:.1} s: {:.0} simulations/s, {:.0} node visits/s, {} decisions, avg batch {:.1}, evaluator {:.1}% of worker time",
            self.evaluator,
            self.threads,
            self.games_per_thread,
            self.wall_secs,
            self.simulations_per_sec,
            self.node_visits_per_sec,
            self.decisions,
            self.avg_batch,
            100.0 * self.eval_fraction
        )
    }
}

/// Runs self-play search (every decision a full search of
/// `search.full_simulations`, standard start, no resignation, games cut at 300
/// decisions) for `seconds` on `threads` workers (0 = all cores) with
/// `games_per_thread` interleaved games each, writing nothing.
pub fn bench_mcts<G: SelfplayGame, E: Evaluator<G> + ?Sized>(
    search: &SearchConfig,
    evaluator: &E,
    threads: usize,
    games_per_thread: usize,
    seconds: f64,
) -> Result<BenchReport> {
    let defaults = SelfplayConfig::default();
    let cfg = SelfplayConfig {
        threads,
        games_per_thread,
        max_decisions: 300,
        full_search_fraction: 1.0,
        resign_threshold: -1.0,
        search: search.clone(),
        // The network's own input (a Shako network may read "threats").
        encoding: evaluator.encoding().unwrap_or(defaults.encoding.clone()),
        ..defaults
    };
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let s = run_workers::<G, E>(&cfg, evaluator, None, u64::MAX, Some(deadline), false)?;
    Ok(BenchReport {
        evaluator: evaluator.name(),
        threads: s.threads,
        games_per_thread,
        wall_secs: s.wall_secs,
        simulations: s.simulations,
        node_visits: s.node_visits,
        // Those of unfinished games too: a short run abandons several
        // games of up to 300 decisions, whose simulations are counted.
        decisions: s.positions + s.unfinished_decisions,
        batches: s.batches,
        avg_batch: s.requests as f64 / s.batches.max(1) as f64,
        simulations_per_sec: s.simulations_per_sec(),
        node_visits_per_sec: s.node_visits as f64 / s.wall_secs.max(1e-9),
        eval_secs: s.eval_secs,
        eval_fraction: s.eval_fraction(),
    })
}
