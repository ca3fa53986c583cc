//! `pacozero bench`: throughput figures printed as a table.

use crate::args::{BenchArgs, BenchWhat};
use anyhow::{Context, Result};
use pacozero_engine::paco::{FullMoveGen, GameState, Position};
use pacozero_selfplay::{SearchConfig, SelfplayConfig};
use std::time::Instant;

const BUNDLED_VECTORS: &str = include_str!("../../../engine/tests/data/vectors.jsonl");

pub fn run(a: BenchArgs) -> Result<()> {
    match a.what {
        BenchWhat::Perft { depth, positions } => perft(depth, positions),
        BenchWhat::Mcts { seconds, model, threads, games_per_thread } => mcts(seconds, model, threads, games_per_thread),
        BenchWhat::Net { blocks, channels, seconds } => net(blocks, channels, seconds),
        BenchWhat::Memory { games_per_thread, threads, games, max_decisions, sims, evaluator, games_per_chunk, tree_reuse } => {
            let cfg = SelfplayConfig {
                threads: threads.max(1),
                games_per_thread,
                games_per_chunk,
                max_decisions,
                search: SearchConfig { full_simulations: sims, cheap_simulations: (sims / 4).max(1), tree_reuse, ..SearchConfig::default() },
                ..SelfplayConfig::default()
            };
            memory(&cfg, games, &evaluator)
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

fn memory(cfg: &SelfplayConfig, games: Option<u64>, evaluator: &str) -> Result<()> {
    use pacozero_selfplay::run_selfplay;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    cfg.validate()?;
    let (threads, games_per_thread) = (cfg.threads, cfg.games_per_thread);
    let games = games.unwrap_or((threads * games_per_thread) as u64);
    let ev = super::selfplay::baseline_evaluator::<GameState>(evaluator, cfg.seed)?;
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
        let r = run_selfplay::<GameState, _>(cfg, ev.as_ref(), &dir, games, false);
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

fn mcts(seconds: f64, model: Option<std::path::PathBuf>, threads: usize, games_per_thread: usize) -> Result<()> {
    use pacozero_selfplay::{bench_mcts, SearchConfig, UniformEvaluator};
    let search = SearchConfig::default();
    let r = bench_mcts::<GameState, _>(&search, &UniformEvaluator, threads, games_per_thread, seconds)?;
    println!("{r}");
    if let Some(m) = model {
        let ev = crate::net::load_evaluator(&m, 0)?;
        let r = bench_mcts::<GameState, _>(&search, &ev, threads, games_per_thread, seconds)?;
        println!("{r}");
        println!("search overhead (time outside the network): {:.1}%", 100.0 * (1.0 - r.eval_fraction));
    }
    Ok(())
}

fn net(blocks: u32, channels: u32, seconds: f64) -> Result<()> {
    use pacozero_train::{bench_net, default_device, BenchOptions, NetConfig};
    let spec = pacozero_selfplay::game_spec::<GameState>();
    let cfg = NetConfig { blocks, channels, ..NetConfig::default_for(&spec) };
    cfg.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    let opts = BenchOptions { min_time: std::time::Duration::from_secs_f64(seconds), ..BenchOptions::default() };
    let r = bench_net(&cfg, &default_device(), &opts).map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("{r}");
    println!("fastnet: the plain-Rust forward pass Network uses on the CPU backend (PACOZERO_FASTNET=0 forces burn)");
    Ok(())
}

fn timed<F: FnOnce() -> u64>(f: F) -> (u64, f64) {
    let t = Instant::now();
    let n = f();
    (n, t.elapsed().as_secs_f64())
}

fn perft(depth: u32, positions: Option<std::path::PathBuf>) -> Result<()> {
    let start = GameState::new(Position::startpos());
    println!("{:<44} {:>12} {:>9} {:>12}", "workload", "leaves", "seconds", "M leaves/s");
    let row = |name: &str, n: u64, s: f64| println!("{name:<44} {n:>12} {s:>9.3} {:>12.2}", n as f64 / s / 1e6);
    let (n, s) = timed(|| start.perft_full(depth));
    row(&format!("full-move perft, start, depth {depth}"), n, s);
    let (n, s) = timed(|| start.perft_atomic(2 * depth));
    row(&format!("atomic perft, start, depth {}", 2 * depth), n, s);

    // Busy middlegames: settled test-vector positions with at least 6 unions
    // whose depth-2 count the reference engine measured (perft2_ms).
    let text = match positions {
        Some(p) => std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?,
        None => BUNDLED_VECTORS.to_string(),
    };
    let mut mids = Vec::new();
    let mut reference_ms = 0.0;
    for (i, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).with_context(|| format!("line {}", i + 1))?;
        if v["fen_exact"].as_bool() == Some(true) && v["unions"].as_u64().unwrap_or(0) >= 6 && v["required_action"] == "Lift" && v["perft2_full"].is_u64() {
            reference_ms += v["perft2_ms"].as_f64().unwrap_or(0.0);
            mids.push(v["fen"].as_str().unwrap_or_default().parse::<Position>().map_err(|e| anyhow::anyhow!("line {}: {e}", i + 1))?);
        }
    }
    let (n, s) = timed(|| mids.iter().map(|p| GameState::new(*p).perft_full(2)).sum());
    row(&format!("full-move perft, {} middlegames, depth 2", mids.len()), n, s);
    if reference_ms > 0.0 {
        println!(
            "{:<44} {n:>12} {:>9.3} {:>12.2}   (reference engine, from the vectors' perft2_ms)",
            "  reference engine, same positions",
            reference_ms / 1e3,
            n as f64 / (reference_ms / 1e3) / 1e6
        );
    }
    let (n, s) = timed(|| mids.iter().map(|p| GameState::new(*p).perft_atomic(4)).sum());
    row(&format!("atomic perft, {} middlegames, depth 4", mids.len()), n, s);
    let mut gen = FullMoveGen::new();
    let (n, s) = timed(|| mids.iter().map(|p| gen.count(p)).sum());
    row(&format!("full-move count, {} middlegames", mids.len()), n, s);
    Ok(())
}
