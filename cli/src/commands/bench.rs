//! `pacozero bench`: throughput figures printed as a table.

use crate::args::{BenchArgs, BenchWhat};
use anyhow::{bail, Context, Result};
use pacozero_engine::{Game, GameKind};
use pacozero_search::SearchConfig;
use pacozero_selfplay::SelfplayConfig;

pub fn run(a: BenchArgs) -> Result<()> {
    match a.what {
        BenchWhat::Perft { depth, atomic_depth, repeat, positions } => pacozero_platform::perft::perft(depth, atomic_depth, repeat, positions),
        BenchWhat::Mcts { game, seconds, model, threads, games_per_thread } => {
            pacozero_engine::with_game!(game.kind, G => mcts::<G>(seconds, model, threads, games_per_thread))
        }
        BenchWhat::Net { game, blocks, channels, seconds } => net(game.kind, blocks, channels, seconds),
        BenchWhat::Analysis { model, queries, visits, concurrency, threads } => analysis(&model, queries, visits, &concurrency, threads),
        BenchWhat::Memory { game, games_per_thread, threads, games, max_decisions, sims, evaluator, games_per_chunk, tree_reuse } => {
            let cfg = SelfplayConfig {
                threads: threads.max(1),
                games_per_thread,
                games_per_chunk,
                max_decisions,
                search: SearchConfig { full_simulations: sims, cheap_simulations: (sims / 4).max(1), tree_reuse, ..SearchConfig::default() },
                ..SelfplayConfig::default()
            };
            pacozero_engine::with_game!(game.kind, G => memory::<G>(&cfg, games, &evaluator))
        }
    }
}

/// The binary's allocator: the system one, counting live heap bytes (and
/// their peak) only while `bench memory` switches counting on, so other
/// commands pay one relaxed load per allocation.
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

    pub struct Counting;
    pub static ON: AtomicBool = AtomicBool::new(false);
    pub static LIVE: AtomicIsize = AtomicIsize::new(0);
    pub static PEAK: AtomicIsize = AtomicIsize::new(0);

    fn add(n: isize) {
        if ON.load(Ordering::Relaxed) {
            let now = LIVE.fetch_add(n, Ordering::Relaxed) + n;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
    }

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            add(l.size() as isize);
            System.alloc(l)
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            add(-(l.size() as isize));
            System.dealloc(p, l)
        }
        unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
            add(l.size() as isize);
            System.alloc_zeroed(l)
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
            add(new as isize - l.size() as isize);
            System.realloc(p, l, new)
        }
    }
}

#[global_allocator]
static ALLOC: counting::Counting = counting::Counting;

/// A field of /proc/self/status in kB (`VmRSS`, `VmHWM`); `None` off Linux.
fn proc_status_kb(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?;
    line[field.len() + 1..].trim().trim_end_matches("kB").trim().parse().ok()
}

fn memory<G: Game>(cfg: &SelfplayConfig, games: Option<u64>, evaluator: &str) -> Result<()> {
    use pacozero_selfplay::run_selfplay;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    cfg.validate()?;
    let (threads, games_per_thread) = (cfg.threads, cfg.games_per_thread);
    let games = games.unwrap_or((threads * games_per_thread) as u64);
    let ev = pacozero_search::baseline_evaluator::<G>(evaluator, cfg.seed)?;
    let dir = std::env::temp_dir().join(format!("pacozero-bench-memory-{}", std::process::id()));
    let base = proc_status_kb("VmRSS").context("reading /proc/self/status (Linux only)")?;
    // Sample the resident size while the games run (VmHWM alone would also
    // count the start-up, before any game).
    let (done, peak) = (AtomicBool::new(false), AtomicU64::new(base));
    counting::ON.store(true, Ordering::Relaxed);
    let summary = std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(proc_status_kb("VmRSS").unwrap_or(0), Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        });
        let r = run_selfplay::<G, _>(cfg, ev.as_ref(), &dir, games, false);
        done.store(true, Ordering::Relaxed);
        r
    });
    counting::ON.store(false, Ordering::Relaxed);
    // Live heap bytes counted from the start of the games (frees of older blocks may make it dip below 0).
    let heap_peak = counting::PEAK.load(Ordering::Relaxed).max(0) as f64 / 1024.0;
    let _ = std::fs::remove_dir_all(&dir);
    let summary = summary?;
    let peak = peak.load(Ordering::Relaxed);
    let concurrent = (threads * games_per_thread) as f64;
    println!(
        "{} games ({} decisions, avg length {:.1}, at most {}) with {} x {} concurrent games, {} evaluator, {} simulations per full search, tree reuse {}, chunks of {} games, {:.1} s",
        summary.games,
        summary.positions,
        summary.avg_length(),
        cfg.max_decisions,
        threads,
        games_per_thread,
        evaluator,
        cfg.search.full_simulations,
        cfg.search.tree_reuse,
        cfg.games_per_chunk,
        summary.wall_secs
    );
    println!(
        "resident memory: {:.1} MiB before, peak {:.1} MiB; {:.1} KiB per concurrent game (peak - before) / {}",
        base as f64 / 1024.0,
        peak as f64 / 1024.0,
        peak.saturating_sub(base) as f64 / concurrent,
        concurrent
    );
    println!("live heap: peak {:.1} MiB above the start; {:.1} KiB per concurrent game", heap_peak / 1024.0, heap_peak / concurrent);
    Ok(())
}

fn mcts<G: Game>(seconds: f64, model: Option<std::path::PathBuf>, threads: usize, games_per_thread: usize) -> Result<()> {
    use pacozero_search::{SearchConfig, UniformEvaluator};
    use pacozero_selfplay::bench_mcts;
    let search = SearchConfig::default();
    let r = bench_mcts::<G, _>(&search, &UniformEvaluator, threads, games_per_thread, seconds)?;
    println!("{r}");
    if let Some(m) = model {
        let ev = pacozero_nn::load_network::<G>(&m, 0)?;
        let r = bench_mcts::<G, _>(&search, &ev, threads, games_per_thread, seconds)?;
        println!("{r}");
        println!("search overhead (time outside the network): {:.1}%", 100.0 * (1.0 - r.eval_fraction));
        let asked = pacozero_nn::precision::process_precision()?;
        let kernel = match asked.on_this_cpu() {
            pacozero_nn::NetPrecision::Int8 => format!(", the {} kernel (PACOZERO_INT8_KERNEL)", pacozero_nn::Int8Kernel::chosen()?),
            _ => String::new(),
        };
        println!("network tower precision: {}{kernel} (asked: {asked}; --precision)", asked.on_this_cpu());
    }
    Ok(())
}

fn net(game: GameKind, blocks: u32, channels: u32, seconds: f64) -> Result<()> {
    use pacozero_nn::{default_device, NetConfig};
    use pacozero_train::{bench_net, BenchOptions};
    let spec = pacozero_data::spec_of(game);
    let cfg = NetConfig { blocks, channels, ..NetConfig::default_for(&spec) };
    cfg.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    let precision = pacozero_nn::precision::process_precision()?;
    let opts = BenchOptions { min_time: std::time::Duration::from_secs_f64(seconds), precision, ..BenchOptions::default() };
    let r = bench_net(&cfg, &default_device(), &opts).map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("{r}");
    println!(
        "fastnet: the plain-Rust forward pass Network uses on the CPU backend (PACOZERO_FASTNET=0 forces burn), its tower in {} (--precision)",
        r.fast_precision
    );
    Ok(())
}

fn analysis(model: &str, queries: usize, visits: u32, concurrency: &[usize], threads: usize) -> Result<()> {
    if queries == 0 || visits == 0 {
        bail!("--queries and --visits must be at least 1");
    }
    let ev = pacozero_nn::load_evaluator_spec(model, threads)?;
    let game = pacozero_nn::network_game(&ev, model)?;
    println!("analysis engine, {game} network {model}: {queries} queries of {visits} visits (positions from seeded random play)");
    println!("{:>10} {:>10} {:>10} {:>12} {:>14} {:>7}", "concurrent", "queries/s", "seconds", "net calls", "leaves/call", "fill");
    let lines = pacozero_engine::with_game!(game, G => pacozero_protocol::analysis::bench_analysis::<G, _>(&ev, queries, visits, concurrency))?;
    for l in lines {
        println!(
            "{:>10} {:>10.2} {:>10.2} {:>12} {:>14.1} {:>6.0}%",
            l.concurrent,
            l.queries_per_second(),
            l.seconds,
            l.batches,
            l.mean_batch(),
            100.0 * l.fill()
        );
    }
    println!("fill: leaves per network call over the concurrent queries (the most a call can hold)");
    Ok(())
}
