//! `pacozero bench perft`: the engine against the platform's own engine,
//! on the start position and on the reference vectors' rule-heavy positions
//! with the platform's timing of the same counts. It exists for the
//! platform's game and its engine, so it names that game.

use anyhow::{bail, Context, Result};
use pacozero_engine::paco::{GameState, Position};
use std::time::Instant;

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

pub fn perft(depth: u32, atomic_depth: u32, repeat: u32, positions: Option<std::path::PathBuf>) -> Result<()> {
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
        None => (crate::REFERENCE_VECTORS.to_string(), "the bundled test vectors".to_string()),
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
