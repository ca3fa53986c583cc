//! `pacozero perft`: leaf counts of any game through its fastest perft
//! ([`Tools::fast_perft`](pacozero_engine::Tools::fast_perft)), by whole turns (Paco Ŝako's full moves; the
//! default) or by decisions (`--atomic`). `--divide` prints each first
//! turn's count, sorted by its notation, before the total.

use super::game_at;
use crate::args::PerftArgs;
use anyhow::Result;
use pacozero_engine::Game;
use std::time::Instant;

pub fn run(a: PerftArgs) -> Result<()> {
    pacozero_engine::with_game!(a.game.kind, G => perft::<G>(&a))
}

fn perft<G: Game>(a: &PerftArgs) -> Result<()> {
    let g: G = game_at(a.fen.as_deref(), None)?;
    let whole_turns = !a.atomic;
    let start = Instant::now();
    let total = if a.divide { divide(&g, a.depth, whole_turns) } else { g.fast_perft(a.depth, whole_turns) };
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{} {} perft depth {}: {} leaves in {:.3} s ({:.2} M leaves/s)",
        G::NAME,
        if whole_turns { "whole-turn" } else { "decision" },
        a.depth,
        total,
        secs,
        total as f64 / secs.max(1e-9) / 1e6
    );
    println!("{total}");
    Ok(())
}

/// Prints `first turn: leaves` for every first turn (or decision), sorted by
/// name so that outputs diff against other engines, and returns the total.
fn divide<G: Game>(g: &G, depth: u32, whole_turns: bool) -> u64 {
    if depth == 0 || g.outcome().is_some() {
        return u64::from(depth == 0);
    }
    let firsts: Vec<Vec<u16>> = if whole_turns {
        g.legal_turns()
    } else {
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        legal.into_iter().map(|d| vec![d]).collect()
    };
    let mut lines: Vec<(String, u64)> = firsts
        .iter()
        .map(|first| {
            let mut child = g.clone();
            for &d in first {
                child.apply(d);
            }
            let name = if whole_turns { g.turn_notation(first) } else { g.action_name(first[0]) };
            (name, child.fast_perft(depth - 1, whole_turns))
        })
        .collect();
    lines.sort();
    for (name, n) in &lines {
        println!("{name}: {n}");
    }
    lines.iter().map(|(_, n)| n).sum()
}
