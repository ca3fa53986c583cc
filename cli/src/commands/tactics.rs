//! `pacozero tactics generate | solve`: the tactics suite of
//! `pacozero_arena::tactics`, written to a file or measured on a network.

use crate::args::{TacticsArgs, TacticsCommand};
use anyhow::bail;
use anyhow::{Context, Result};
use pacozero_arena::tactics::{parse_suite, solve_suite, Knowledge, BUNDLED_SUITE};
use pacozero_engine::{Game, GameKind};
use pacozero_platform::tactics::{generate_suite, BUNDLED_GAMES, MAX_CHAIN_STATES, MAX_UNIONS};
use pacozero_search::Evaluator;
use std::path::Path;

pub fn run(a: TacticsArgs) -> Result<()> {
    match a.what {
        TacticsCommand::Generate { out, max_depth, quiet } => generate(&out, max_depth, quiet),
        TacticsCommand::Solve { model, sims, suite, network_only } => {
            solve(&model, sims, suite.as_deref(), if network_only { Knowledge::NetworkOnly } else { Knowledge::Search })
        }
    }
}

fn generate(out: &Path, max_depth: u8, quiet: bool) -> Result<()> {
    let s = generate_suite(BUNDLED_GAMES, pacozero_platform::REFERENCE_VECTORS, max_depth, &mut |n, total, in1, in2| {
        if !quiet {
            eprintln!("{n}/{total} positions: {in1} Paco in 1, {in2} Paco in 2 so far")
        }
    })?;
    let mut text = String::new();
    for line in &s.lines {
        text.push_str(&serde_json::to_string(line)?);
        text.push('\n');
    }
    pacozero_data::write_atomic(out, &[text.as_bytes()])?;
    println!(
        "{} positions ({} distinct) proved: {} Paco in 1, {} Paco in 2 ({} left out: more than {MAX_UNIONS} unions or {MAX_CHAIN_STATES} chain states), written to {}",
        s.candidates,
        s.distinct,
        s.in1,
        s.in2,
        s.too_big,
        out.display()
    );
    Ok(())
}

fn solve(model: &Path, sims: u32, suite: Option<&Path>, knowledge: Knowledge) -> Result<()> {
    let evaluator = pacozero_nn::load_evaluator(model, 0)?;
    let game = pacozero_nn::network_game(&evaluator, &model.display().to_string())?;
    let (text, name) = match suite {
        Some(p) => (std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?, p.display().to_string()),
        None if game != GameKind::default() => {
            bail!("the bundled suite is of {}, and {} is a {game} network: pass --suite with a suite of {game}", GameKind::default(), model.display())
        }
        None => (BUNDLED_SUITE.to_string(), "the bundled suite".to_string()),
    };
    pacozero_engine::with_game!(game, G => solve_game::<G>(&evaluator, &text, &name, sims, knowledge))
}

fn solve_game<G: Game>(evaluator: &pacozero_nn::NetworkEvaluator, text: &str, name: &str, sims: u32, knowledge: Knowledge) -> Result<()> {
    let suite = parse_suite::<G>(text, name)?;
    let r = solve_suite::<G, _>(evaluator, &suite, sims, knowledge)?;
    let how = match (sims, knowledge) {
        (0, _) => "its policy alone",
        (_, Knowledge::Search) => "the search as it plays (win detection, proven results)",
        (_, Knowledge::NetworkOnly) => "the network alone (no win detection, no solver)",
    };
    println!("{} at {} simulations per decision, {how}, on {} positions:", Evaluator::<G>::name(evaluator), sims, suite.len());
    println!("  win in 1: {}/{} solved ({:.1}%)", r.solved[0], r.total[0], r.rate(1));
    println!("  win in 2: {}/{} solved ({:.1}%)", r.solved[1], r.total[1], r.rate(2));
    Ok(())
}
