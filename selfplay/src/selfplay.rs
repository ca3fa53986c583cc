//! Self-play workers: many games per thread with game-level interleaving,
//! one evaluator batch per round, output written as `pacozero_data` chunks
//! (one game's state machine is [`crate::game`]).

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use pacozero_data::{chunk_stem, game_spec_as, ChunkWriter};

use pacozero_search::{evaluate_pending, EvalOutput, Evaluator, Search};

use crate::config::SelfplayConfig;
use crate::game::{game_id_of, game_seed, Runner, Shared, Step};
use crate::summary::Summary;
use crate::SelfplayGame;

/// Counters shared between workers and the progress display.
#[derive(Default)]
struct Live {
    next_game: AtomicU64,
    skipped: AtomicU64,
    simulations: AtomicU64,
    node_visits: AtomicU64,
    abort: AtomicBool,
    summary: Mutex<Summary>,
}

struct WorkerStats {
    eval_secs: f64,
    batches: u64,
    requests: u64,
    chunks: Vec<String>,
    /// Decisions of the games in progress when the deadline came.
    unfinished_decisions: u64,
}

/// One worker: `games_per_thread` interleaved games until `total` games have
/// been started (or `deadline`), one evaluator call per round.
#[allow(clippy::too_many_arguments)]
fn worker<G: SelfplayGame, E: Evaluator<G> + ?Sized>(
    sh: &Shared<'_>,
    evaluator: &E,
    live: &Live,
    worker_id: u32,
    total: u64,
    out_dir: Option<&Path>,
    deadline: Option<Instant>,
    existing: &HashSet<u64>,
) -> Result<WorkerStats> {
    let cfg = sh.cfg;
    let mut writer = match out_dir {
        Some(d) => Some(ChunkWriter::new(d, game_spec_as::<G>(sh.encoding)).with_context(|| format!("creating chunk writer in {}", d.display()))?),
        None => None,
    };
    let mut stats = WorkerStats { eval_secs: 0.0, batches: 0, requests: 0, chunks: Vec::new(), unfinished_decisions: 0 };
    let mut seq = 0u64;
    let mut slots: Vec<Option<Runner<G>>> = (0..cfg.games_per_thread).map(|_| None).collect();
    let mut out = EvalOutput::default();
    let mut counted = vec![(0u64, 0u64); slots.len()];
    let mut exhausted = false;
    loop {
        if live.abort.load(Ordering::Relaxed) {
            break;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            // Benchmarks stop at the deadline, abandoning games in progress;
            // their decisions count, as their simulations do.
            stats.unfinished_decisions = slots.iter().flatten().map(|r| r.decisions()).sum();
            break;
        }
        // Advance every game to its next leaf request.
        for (si, slot) in slots.iter_mut().enumerate() {
            loop {
                if slot.is_none() {
                    if exhausted {
                        break;
                    }
                    let idx = live.next_game.fetch_add(1, Ordering::Relaxed);
                    if idx >= total {
                        exhausted = true;
                        break;
                    }
                    if existing.contains(&game_id_of(game_seed(cfg.seed, idx))) {
                        live.skipped.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    *slot = Some(Runner::new(sh, idx, None)?);
                    counted[si] = (0, 0);
                }
                let r = slot.as_mut().expect("runner");
                match r.step(cfg) {
                    Step::NeedEval => break,
                    Step::Finished => {
                        let r = slot.take().expect("runner");
                        let rec = r.record(sh);
                        live.simulations.fetch_add(rec.simulations - counted[si].0, Ordering::Relaxed);
                        live.node_visits.fetch_add(rec.node_visits - counted[si].1, Ordering::Relaxed);
                        counted[si] = (0, 0);
                        live.summary.lock().expect("summary lock").add_game(&rec);
                        if let Some(w) = writer.as_mut() {
                            w.push_finished_game(rec.game, rec.positions)?;
                            if w.num_games() >= cfg.games_per_chunk {
                                let stem = chunk_stem(worker_id, seq);
                                seq += 1;
                                w.flush(&stem).with_context(|| format!("writing chunk {stem}"))?;
                                stats.chunks.push(stem);
                            }
                        }
                    }
                }
            }
        }
        // Evaluate the pending leaves in one batch (the time includes handing
        // the requests and the results over, a small part of it).
        let t0 = Instant::now();
        let mut searches: Vec<&mut Search<G>> = slots.iter_mut().filter_map(|s| s.as_mut().map(|r| &mut r.search)).collect();
        let n = evaluate_pending(&mut searches, evaluator, &mut out)?;
        drop(searches);
        if n == 0 {
            if slots.iter().all(|s| s.is_none()) {
                break;
            }
            continue;
        }
        stats.eval_secs += t0.elapsed().as_secs_f64();
        stats.batches += 1;
        stats.requests += n as u64;
        for (si, slot) in slots.iter_mut().enumerate() {
            if let Some(r) = slot.as_mut() {
                let (s, v) = (r.search.total_simulations, r.search.node_visits);
                live.simulations.fetch_add(s - counted[si].0, Ordering::Relaxed);
                live.node_visits.fetch_add(v - counted[si].1, Ordering::Relaxed);
                counted[si] = (s, v);
            }
        }
    }
    if let Some(w) = writer.as_mut() {
        if w.num_games() > 0 {
            let stem = chunk_stem(worker_id, seq);
            w.flush(&stem).with_context(|| format!("writing chunk {stem}"))?;
            stats.chunks.push(stem);
        }
    }
    Ok(stats)
}

pub(crate) fn run_workers<G: SelfplayGame, E: Evaluator<G> + ?Sized>(
    cfg: &SelfplayConfig,
    evaluator: &E,
    out_dir: Option<&Path>,
    games: u64,
    deadline: Option<Instant>,
    progress: bool,
) -> Result<Summary> {
    let sh = Shared::new::<G, E>(cfg, evaluator)?;
    let threads = cfg.effective_threads();
    let live = Live::default();
    // Games of this seed already written (a run restarted after a crash) are
    // not played again, so every game id is written once.
    let existing = match out_dir {
        Some(d) if d.is_dir() => pacozero_data::game_ids(d).with_context(|| format!("reading the game ids of {}", d.display()))?,
        _ => HashSet::new(),
    };
    let bar = if shows_progress(progress, games) {
        let b = indicatif::ProgressBar::new(games);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} games [{elapsed_precise} < {eta_precise}] {msg}").expect("progress template"),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let start = Instant::now();
    let results: Vec<Result<WorkerStats>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|w| {
                let (sh, live, existing) = (&sh, &live, &existing);
                s.spawn(move || {
                    let r = worker::<G, E>(sh, evaluator, live, w as u32, games, out_dir, deadline, existing);
                    if r.is_err() {
                        live.abort.store(true, Ordering::Relaxed);
                    }
                    r
                })
            })
            .collect();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(200));
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            let sm = live.summary.lock().expect("summary lock").clone();
            bar.set_position(sm.games);
            bar.set_message(format!(
                "{:.0} pos/s, {:.0} sims/s, avg len {:.1}, W/D/L {}/{}/{}",
                sm.positions as f64 / secs,
                live.simulations.load(Ordering::Relaxed) as f64 / secs,
                sm.avg_length(),
                sm.white_wins,
                sm.draws,
                sm.black_wins
            ));
        }
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("self-play worker panicked")))).collect()
    });
    bar.finish_and_clear();
    let mut summary = live.summary.lock().expect("summary lock").clone();
    summary.wall_secs = start.elapsed().as_secs_f64();
    summary.threads = threads;
    summary.simulations = live.simulations.load(Ordering::Relaxed);
    summary.node_visits = live.node_visits.load(Ordering::Relaxed);
    summary.skipped = live.skipped.load(Ordering::Relaxed);
    for r in results {
        let st = r?;
        summary.eval_secs += st.eval_secs;
        summary.batches += st.batches;
        summary.requests += st.requests;
        summary.unfinished_decisions += st.unfinished_decisions;
        summary.chunks.extend(st.chunks);
    }
    summary.chunks.sort();
    Ok(summary)
}

/// Whether a run of `games` games shows a progress bar: when asked, and for
/// a count it can show (not none, not the benchmark's unbounded count).
fn shows_progress(progress: bool, games: u64) -> bool {
    progress && games > 0 && games < u64::MAX
}

/// Plays `games` self-play games on `cfg.threads` workers and writes them as
/// chunks (every `cfg.games_per_chunk` games per worker, plus a final partial
/// chunk) into `out_dir`. Shows an indicatif progress bar if `progress`.
///
/// Game `i` (seed `game_seed(cfg.seed, i)`) is skipped when its id is already
/// in `out_dir` ([`Summary::skipped`]): a run restarted after a crash plays
/// only the games it had not written, and never writes a game id twice.
pub fn run_selfplay<G: SelfplayGame, E: Evaluator<G> + ?Sized>(
    cfg: &SelfplayConfig,
    evaluator: &E,
    out_dir: &Path,
    games: u64,
    progress: bool,
) -> Result<Summary> {
    run_workers::<G, E>(cfg, evaluator, Some(out_dir), games, None, progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resumed run skips game `i` when `game_id_of(game_seed(seed, i))` is
    /// already in the data, so two games of a run must never share an id:
    /// over a million games of one seed none do (a 64-bit id; an id that
    /// kept only 32 of the seed's bits would collide about a hundred times).
    #[test]
    fn a_million_games_of_a_run_have_distinct_ids_and_seeds() {
        let mut ids = std::collections::HashSet::with_capacity(1 << 20);
        let mut seeds = std::collections::HashSet::with_capacity(1 << 20);
        for i in 0..1_000_000u64 {
            let s = game_seed(42, i);
            assert!(seeds.insert(s), "game {i}: seed repeated");
            assert!(ids.insert(game_id_of(s)), "game {i}: id repeated");
        }
        // Another run's seed gives other games.
        assert_ne!(game_seed(43, 0), game_seed(42, 0));
        assert_ne!(game_id_of(game_seed(42, 0)), game_seed(42, 0), "the id is not the seed itself");
    }

    #[test]
    fn progress_is_shown_for_a_bounded_run_when_asked() {
        assert!(shows_progress(true, 1) && shows_progress(true, 1000));
        assert!(!shows_progress(false, 1000) && !shows_progress(true, 0) && !shows_progress(true, u64::MAX));
    }

    #[test]
    fn summary_rates_are_the_counts_over_time_and_games() {
        let s = Summary {
            games: 8,
            positions: 1000,
            simulations: 30_000,
            node_visits: 90_000,
            wall_secs: 4.0,
            eval_secs: 6.0,
            threads: 2,
            would_resign_games: 5,
            false_resignations: 1,
            ..Summary::default()
        };
        assert_eq!(s.avg_length(), 125.0);
        assert_eq!(s.positions_per_sec(), 250.0);
        assert_eq!(s.simulations_per_sec(), 7500.0);
        assert_eq!(s.eval_fraction(), 0.75);
        assert_eq!(s.false_resignation_rate(), 0.2);
        // Nothing played: zeros, not a division by zero.
        let empty = Summary::default();
        assert_eq!((empty.avg_length(), empty.positions_per_sec(), empty.false_resignation_rate()), (0.0, 0.0, 0.0));
        let text = s.to_string();
        assert!(text.contains("avg length 125.0") && text.contains("250 positions/s") && text.contains("7500 simulations/s"), "{text}");
        assert!(text.contains("evaluator 75.0% of worker time"), "{text}");
        assert!(!text.contains("not played again"), "{text}");
        let resumed = Summary { skipped: 3, ..s };
        assert!(resumed.to_string().contains("3 games already in the directory"));
    }
}
