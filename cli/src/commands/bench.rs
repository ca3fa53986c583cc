//! `pacozero bench`: throughput figures printed as a table.

use crate::args::{BenchArgs, BenchWhat};
use anyhow::{bail, Context, Result};
use pacozero_engine::paco::{GameState, Position};
use pacozero_search::SearchConfig;
use pacozero_selfplay::SelfplayConfig;
use std::time::Instant;

pub fn run(a: BenchArgs) -> Result<()> {
    match a.what {
        BenchWhat::Perft { depth, atomic_depth, repeat, positions } => perft(depth, atomic_depth, repeat, positions),
        BenchWhat::Mcts { seconds, model, threads, games_per_thread } => mcts(seconds, model, threads, games_per_thread),
        BenchWhat::Net { blocks, channels, seconds } => net(blocks, channels, seconds),
        BenchWhat::Analysis { model, queries, visits, concurrency, threads } => analysis(&model, queries, visits, &concurrency, threads),
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
    let ev = pacozero_search::baseline_evaluator::<GameState>(evaluator, cfg.seed)?;
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
    use pacozero_search::{SearchConfig, UniformEvaluator};
    use pacozero_selfplay::bench_mcts;
    let search = SearchConfig::default();
    let r = bench_mcts::<GameState, _>(&search, &UniformEvaluator, threads, games_per_thread, seconds)?;
    println!("{r}");
    if let Some(m) = model {
        let ev = pacozero_nn::load_evaluator(&m, 0)?;
        let r = bench_mcts::<GameState, _>(&search, &ev, threads, games_per_thread, seconds)?;
        println!("{r}");
        println!("search overhead (time outside the network): {:.1}%", 100.0 * (1.0 - r.eval_fraction));
    }
    Ok(())
}

fn net(blocks: u32, channels: u32, seconds: f64) -> Result<()> {
    use pacozero_nn::{default_device, NetConfig};
    use pacozero_train::{bench_net, BenchOptions};
    let spec = pacozero_data::game_spec::<GameState>();
    let cfg = NetConfig { blocks, channels, ..NetConfig::default_for(&spec) };
    cfg.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    let opts = BenchOptions { min_time: std::time::Duration::from_secs_f64(seconds), ..BenchOptions::default() };
    let r = bench_net(&cfg, &default_device(), &opts).map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("{r}");
    println!("fastnet: the plain-Rust forward pass Network uses on the CPU backend (PACOZERO_FASTNET=0 forces burn)");
    Ok(())
}

fn analysis(model: &str, queries: usize, visits: u32, concurrency: &[usize], threads: usize) -> Result<()> {
    use pacozero_engine::{Game, GameVisitor};
    struct Bench<'a> {
        ev: &'a pacozero_nn::NetworkEvaluator,
        queries: usize,
        visits: u32,
        concurrency: &'a [usize],
    }
    impl GameVisitor for Bench<'_> {
        type Output = Result<Vec<pacozero_search::analysis::BenchLine>>;
        fn visit<G: Game>(self) -> Self::Output {
            pacozero_search::analysis::bench_analysis::<G, _>(self.ev, self.queries, self.visits, self.concurrency)
        }
    }
    if queries == 0 || visits == 0 {
        bail!("--queries and --visits must be at least 1");
    }
    let ev = pacozero_nn::load_evaluator_spec(model, threads)?;
    let game = pacozero_nn::network_game(&ev, model)?;
    println!("analysis engine, {game} network {model}: {queries} queries of {visits} visits (positions from seeded random play)");
    println!("{:>10} {:>10} {:>10} {:>12} {:>14} {:>7}", "concurrent", "queries/s", "seconds", "net calls", "leaves/call", "fill");
    for l in game.visit(Bench { ev: &ev, queries, visits, concurrency })? {
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

fn timed<F: FnOnce() -> u64>(f: F) -> (u64, f64) {
    let t = Instant::now();
    let n = f();
    (n, t.elapsed().as_secs_f64())
}

/// The rule-heavy tags of the reference vectors that `bench perft` reports,
/// each a rule the platform's engine is slowest on.
const PERFT_TAGS: [&str; 8] =
    ["mover_in_sako", "castling_blocked_by_threat", "gifts_opponent_promotion", "promotion_in_chain", "ep_capture", "unions_ge6", "chain", "mid_turn"];

/// One position of the vectors with the platform's depth-2 count and time.
struct PerftCase {
    fen: String,
    tags: Vec<String>,
    leaves: u64,
    platform_ms: f64,
    ours_ms: f64,
}

fn perft(depth: u32, atomic_depth: u32, repeat: u32, positions: Option<std::path::PathBuf>) -> Result<()> {
    let start = GameState::new(Position::startpos());
    println!("{:<52} {:>12} {:>9} {:>12}", "workload (start position)", "leaves", "seconds", "M leaves/s");
    let row = |name: &str, n: u64, s: f64| println!("{name:<52} {n:>12} {s:>9.3} {:>12.2}", n as f64 / s / 1e6);
    let (n, s) = timed(|| start.perft_full(depth));
    row(&format!("full-move perft, depth {depth}"), n, s);
    let (n, s) = timed(|| start.perft_atomic(atomic_depth));
    row(&format!("atomic perft, depth {atomic_depth}"), n, s);

    // Every exact-FEN vector with the platform's depth-2 full-move count and time.
    let (text, source) = match positions {
        Some(p) => (std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?, p.display().to_string()),
        None => (super::REFERENCE_VECTORS.to_string(), "the bundled test vectors".to_string()),
    };
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).with_context(|| format!("{source}, line {}", i + 1))?;
        let (Some(leaves), Some(platform_ms), Some(fen)) = (v["perft2_full"].as_u64(), v["perft2_ms"].as_f64(), v["fen"].as_str()) else { continue };
        if v["fen_exact"] != true {
            continue;
        }
        fen.parse::<Position>().map_err(|e| anyhow::anyhow!("{source}, line {}: {e}", i + 1))?;
        let tags = v["tags"].as_array().map(|t| t.iter().filter_map(|x| x.as_str().map(String::from)).collect()).unwrap_or_default();
        cases.push(PerftCase { fen: fen.to_string(), tags, leaves, platform_ms, ours_ms: f64::INFINITY });
    }
    // Interleaved rounds; in each, a position runs back to back for at least
    // 2 ms (the small ones take microseconds, below the timer's resolution to
    // time once) and its mean counts; the fastest round is reported.
    for _ in 0..repeat.max(1) {
        for c in &mut cases {
            let pos: Position = c.fen.parse().expect("checked above");
            let t = Instant::now();
            let mut calls = 0u32;
            while calls == 0 || t.elapsed().as_secs_f64() < 2e-3 {
                let n = GameState::new(pos).perft_full(2);
                if n != c.leaves {
                    bail!("full-move perft 2 of {} is {n}, the vectors say {}", c.fen, c.leaves);
                }
                calls += 1;
            }
            c.ours_ms = c.ours_ms.min(t.elapsed().as_secs_f64() * 1e3 / calls as f64);
        }
    }
    println!();
    println!("full-move perft, depth 2, on the rule-heavy positions of {source} (each position repeated");
    println!("for at least 2 ms, the fastest of {repeat} rounds),");
    println!("against the platform's engine timing the same counts (the vectors' perft2_ms):");
    println!("{:<28} {:>9} {:>10} {:>11} {:>13} {:>7} {:>13}", "tag", "positions", "leaves", "ours M/s", "platform M/s", "ratio", "lowest ratio");
    let mut lowest: Option<&PerftCase> = None;
    for tag in PERFT_TAGS.iter().copied().chain(["all"]) {
        let picked: Vec<&PerftCase> = cases.iter().filter(|c| tag == "all" || c.tags.iter().any(|t| t == tag)).collect();
        if picked.is_empty() {
            continue;
        }
        let leaves: u64 = picked.iter().map(|c| c.leaves).sum();
        let ours: f64 = picked.iter().map(|c| c.ours_ms).sum();
        let platform: f64 = picked.iter().map(|c| c.platform_ms).sum();
        let ratio = |c: &PerftCase| c.platform_ms / c.ours_ms;
        let worst = picked.iter().copied().min_by(|a, b| ratio(a).total_cmp(&ratio(b))).expect("not empty");
        println!(
            "{tag:<28} {:>9} {leaves:>10} {:>11.2} {:>13.2} {:>6.1}x {:>12.1}x",
            picked.len(),
            leaves as f64 / ours / 1e3,
            leaves as f64 / platform / 1e3,
            platform / ours,
            ratio(worst)
        );
        if tag == "chain" {
            lowest = Some(worst);
        }
    }
    if let Some(c) = lowest {
        println!(
            "lowest ratio among chain positions: {:.1}x, {} leaves in {:.3} ms (platform {:.3} ms): {}",
            c.platform_ms / c.ours_ms,
            c.leaves,
            c.ours_ms,
            c.platform_ms,
            c.fen
        );
    }
    Ok(())
}
