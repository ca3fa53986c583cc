use super::game_from;
use crate::args::PerftArgs;
use anyhow::{bail, Context, Result};
use pacozero_engine::paco::{action_to_string, FullMoveGen, GameState};
use pacozero_engine::shako;
use pacozero_engine::GameKind;
use std::time::Instant;

pub fn run(a: PerftArgs) -> Result<()> {
    match a.game {
        GameKind::Paco => run_paco(a),
        GameKind::Shako => run_shako(a),
    }
}

fn run_paco(a: PerftArgs) -> Result<()> {
    let g = game_from(a.fen.as_deref(), None)?;
    let start = Instant::now();
    let total = if a.divide {
        divide(&g, a.depth, a.atomic)
    } else if a.atomic {
        g.perft_atomic(a.depth)
    } else {
        g.perft_full(a.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{} perft depth {}: {} leaves in {:.3} s ({:.2} M leaves/s)",
        if a.atomic { "atomic" } else { "full-move" },
        a.depth,
        total,
        secs,
        total as f64 / secs.max(1e-9) / 1e6
    );
    println!("{total}");
    Ok(())
}

fn divide(g: &GameState, depth: u32, atomic: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    if atomic {
        for act in g.position().actions() {
            let mut c = g.clone();
            c.play_unchecked(act);
            let n = c.perft_atomic(depth - 1);
            println!("{}: {n}", action_to_string(act));
            total += n;
        }
    } else {
        let mut gen = FullMoveGen::new();
        for (child, trace) in g.full_moves(&mut gen) {
            let n = if child.status().is_over() && depth > 1 { 0 } else { child.perft_full(depth - 1) };
            let t: Vec<String> = trace.iter().map(|a| action_to_string(*a)).collect();
            println!("{}: {n}", t.join(" "));
            total += n;
        }
    }
    total
}

/// Shako perft: legal-move leaves (Fairy-Stockfish's `go perft`); `--divide`
/// prints each first move's count in UCI order.
fn run_shako(a: PerftArgs) -> Result<()> {
    if a.atomic {
        bail!("--atomic applies to Paco Ŝako only (Shako has no atomic actions)");
    }
    let pos: shako::Position = match a.fen.as_deref() {
        Some(f) => f.parse().with_context(|| format!("reading FEN \"{f}\""))?,
        None => shako::Position::startpos(),
    };
    let start = Instant::now();
    let total = if a.divide && a.depth > 0 {
        let mut lines: Vec<(String, u64)> = pos.divide(a.depth).into_iter().map(|(m, n)| (m.to_string(), n)).collect();
        lines.sort();
        for (m, n) in &lines {
            println!("{m}: {n}");
        }
        lines.iter().map(|(_, n)| n).sum()
    } else {
        pos.perft(a.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    eprintln!("shako perft depth {}: {} leaves in {:.3} s ({:.2} M leaves/s)", a.depth, total, secs, total as f64 / secs.max(1e-9) / 1e6);
    println!("{total}");
    Ok(())
}
