//! `pacozero analyze`: search a position with a network and print the top
//! turns with their statistics and principal variations in chain notation.

use super::game_from;
use crate::args::AnalyzeArgs;
use crate::turns::{principal_variation, root_turns};
use anyhow::{bail, Result};
use pacozero_engine::paco::GameState;
use pacozero_engine::{Color, Game};
use pacozero_selfplay::{Algorithm, EvalOutput, Evaluator, Search, SearchConfig};
use rand::SeedableRng;

/// Search settings of analysis and play: PUCT without noise, tree reuse.
pub fn analysis_config(simulations: u32) -> SearchConfig {
    SearchConfig {
        algorithm: Algorithm::Puct,
        full_simulations: simulations,
        cheap_simulations: simulations,
        dirichlet_epsilon: 0.0,
        tree_reuse: true,
        ..SearchConfig::default()
    }
}

/// Runs `simulations` more simulations on `search` (batch size 1).
pub fn run_search<E: Evaluator<GameState> + ?Sized>(search: &mut Search<GameState>, evaluator: &E, simulations: u32) -> Result<()> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let mut out = EvalOutput::default();
    search.begin(simulations, false);
    while search.run(&mut rng) {
        let req = search.request().expect("pending request");
        evaluator.evaluate(std::slice::from_ref(&req), &mut out)?;
        let (p, w) = (out.priors_of(0).to_vec(), out.wdl[0]);
        search.supply(&p, w);
    }
    Ok(())
}

pub fn color_name(c: Color) -> &'static str {
    if c == Color::White {
        "White"
    } else {
        "Black"
    }
}

pub fn run(a: AnalyzeArgs) -> Result<()> {
    if a.sims == 0 {
        bail!("--sims must be at least 1");
    }
    let g = game_from(a.fen.as_deref(), None)?;
    if let Some(o) = g.outcome() {
        bail!("the game is already over ({o:?}): nothing to analyse");
    }
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    if legal.is_empty() {
        bail!("the side to move has no legal action");
    }
    let evaluator = crate::net::load_evaluator(&a.model, 0)?;
    let mut search = Search::new(analysis_config(a.sims), g.clone(), Evaluator::<GameState>::needs_encoding(&evaluator));
    run_search(&mut search, &evaluator, a.sims)?;
    let res = search.result();
    let turns = root_turns(&search);
    println!("position: {}", g.position().fen());
    println!(
        "{} to move; {} simulations with {}: value {:+.3} (W {:.1}% D {:.1}% L {:.1}%)",
        color_name(g.to_move()),
        res.simulations,
        Evaluator::<GameState>::name(&evaluator),
        res.root_q,
        100.0 * res.root_wdl[0],
        100.0 * res.root_wdl[1],
        100.0 * res.root_wdl[2]
    );
    let shown: Vec<_> = turns.iter().take(a.top.max(1)).collect();
    let width = shown.iter().map(|t| t.name.len()).max().unwrap_or(4).max(4);
    println!(" #  {:<width$}  {:>7}  {:>7}  {:>5}  {:>5}  {:>5}  {:>6}", "move", "visits", "Q", "W%", "D%", "L%", "prior");
    for (i, t) in shown.iter().enumerate() {
        println!(
            "{:>2}  {:<width$}  {:>7}  {:>+7.3}  {:>5.1}  {:>5.1}  {:>5.1}  {:>5.1}%",
            i + 1,
            t.name,
            t.visits,
            t.wdl[0] - t.wdl[2],
            100.0 * t.wdl[0],
            100.0 * t.wdl[1],
            100.0 * t.wdl[2],
            100.0 * t.prior
        );
        let mut pv = vec![t.name.clone()];
        pv.extend(principal_variation(&search, &t.path, &t.state, a.pv_turns));
        println!("    pv: {}", pv.join(" "));
    }
    if turns.is_empty() {
        println!("(no turn was completed inside the search tree: raise --sims)");
    }
    Ok(())
}
