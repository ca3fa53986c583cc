//! `pacozero ladder`: players against an external UCI engine at rising node
//! budgets, each rung a paired-opening match (the same openings at every
//! rung), and the budget where each player scores 50%
//! (`pacozero_arena::ladder`). Prints a markdown table (or JSON).

use crate::args::LadderArgs;
use anyhow::{bail, Result};
use pacozero_arena::ladder::{elo_cell, fifty_percent_budget, Rung};
use pacozero_arena::{run_match, Budget, MatchResult, Player, PlayerSpec};
use pacozero_data::RunDir;
use pacozero_engine::Game;
use std::fmt::Write as _;

pub fn run(a: LadderArgs) -> Result<()> {
    if a.nodes.is_empty() || a.nodes.contains(&0) || !a.nodes.is_sorted() {
        bail!("--nodes {:?}: expected node budgets of at least 1, ascending", a.nodes);
    }
    pacozero_engine::with_game!(a.game.kind, G => run_game::<G>(a))
}

/// Elo with its 95% interval as a table cell ([`elo_cell`]).
fn match_elo_cell(m: &MatchResult) -> String {
    let (elo, ci, _) = m.elo();
    elo_cell(m.wdl.wins, m.wdl.draws, m.wdl.losses, elo, ci)
}

fn run_game<G: Game>(a: LadderArgs) -> Result<()> {
    let pairs = a.games.div_ceil(2).max(1);
    let limits = a.matches.limits();
    let players: Vec<Player<G>> =
        a.players.iter().enumerate().map(|(i, p)| Player::<G>::new(p, a.matches.seed.wrapping_add(i as u64), 0)).collect::<Result<_>>()?;
    let run = a.run.as_ref().map(RunDir::new);
    if let Some(run) = &run {
        if !run.root().is_dir() {
            bail!("--run {}: no such run directory", run.root().display());
        }
    }
    let record = a.record.clone().or_else(|| run.as_ref().map(RunDir::ladder_games));
    let mut table = String::new();
    let _ = writeln!(
        table,
        "{} ladder against `{}`: {} games per rung ({} {} of {} openings), seed {}\n",
        G::NAME,
        a.engine,
        2 * pairs,
        pairs,
        if pairs == 1 { "pair" } else { "pairs" },
        serde_json::to_value(a.matches.openings)?.as_str().unwrap_or("?"),
        a.matches.seed
    );
    let _ = writeln!(table, "| player | engine nodes | games | W | D | L | score | Elo ± 95% |");
    let _ = writeln!(table, "|---|---:|---:|---:|---:|---:|---:|---|");
    let mut rows = Vec::new();
    let mut fifties = Vec::new();
    for p in &players {
        let mut rungs = Vec::new();
        for &nodes in &a.nodes {
            let engine =
                Player::<G>::from_spec(format!("{}:nodes={nodes}", a.engine), PlayerSpec::Uci(a.engine.at(Budget::Nodes(nodes))), a.matches.seed ^ 0xE9, 0)?;
            let m = super::arena::with_match_bar(pairs, a.output.quiet, |progress| {
                run_match(p, &engine, pairs, a.matches.openings, limits, a.matches.seed, progress)
            })?;
            if let Some(dir) = &record {
                pacozero_arena::records::record_games::<G>(dir, &m.played)?;
            }
            for f in &m.forfeits {
                eprintln!("forfeit: {f}");
            }
            let w = &m.wdl;
            let _ = writeln!(
                table,
                "| `{}` | {nodes} | {} | {} | {} | {} | {:.1}% | {} |",
                p.name,
                w.games(),
                w.wins,
                w.draws,
                w.losses,
                100.0 * w.score(),
                match_elo_cell(&m)
            );
            let (elo, ci, _) = m.elo();
            rows.push(serde_json::json!({
                "player": p.name, "nodes": nodes, "games": w.games(), "wins": w.wins, "draws": w.draws, "losses": w.losses,
                "score": w.score(), "elo": elo.is_finite().then_some(elo), "elo_ci95": ci.is_finite().then_some(ci),
                "end_reasons": m.end_reasons,
            }));
            rungs.push(Rung { nodes, wins: w.wins, draws: w.draws, losses: w.losses });
        }
        fifties.push((p.name.clone(), fifty_percent_budget(&rungs)));
    }
    let _ = writeln!(table, "\n| player | scores 50% against the engine at |\n|---|---|");
    for (name, f) in &fifties {
        let _ = writeln!(table, "| `{name}` | {} |", f.map_or_else(|| "no fit".to_string(), |f| f.to_string()));
    }
    if let Some(path) = &a.out {
        pacozero_data::write_atomic(path, &[table.as_bytes()])?;
    }
    let fifty: Vec<serde_json::Value> = fifties
        .iter()
        .map(|(name, f)| {
            let mut v = f.map_or_else(|| serde_json::json!({}), |f| f.to_json());
            v["player"] = serde_json::json!(name);
            v
        })
        .collect();
    let json = serde_json::json!({
        "game": G::NAME, "engine": a.engine.to_string(), "games_per_rung": 2 * pairs, "openings": a.matches.openings, "seed": a.matches.seed,
        "max_decisions": a.matches.max_decisions, "adjudicate_material": a.matches.adjudicate_material, "rungs": rows, "fifty": fifty,
    });
    if let Some(run) = &run {
        pacozero_data::write_atomic(&run.ladder_md(), &[table.as_bytes()])?;
        pacozero_data::write_atomic(&run.ladder_json(), &[serde_json::to_string_pretty(&json)?.as_bytes()])?;
        pacozero_run::report::write_report(run.root())?;
    }
    if a.output.json {
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        print!("{table}");
    }
    Ok(())
}
