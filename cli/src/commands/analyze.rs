//! `pacozero analyze`: search a position with a network and print the top
//! turns with their statistics and principal variations, for any game.

use crate::args::AnalyzeArgs;
use crate::turns::{principal_variation, root_turns};
use anyhow::{bail, Result};
use pacozero_engine::Game;
use pacozero_nn::NetworkEvaluator;
use pacozero_search::turns::search_decision;
use pacozero_search::{Evaluator, Search};
use std::path::Path;

/// Search settings of analysis and play: PUCT without noise, tree reuse.
pub use pacozero_protocol::analysis::analysis_search_config as analysis_config;

/// Refuses a finished game, or one whose mover has no legal decision.
fn check_playable<G: Game>(g: &G) -> Result<()> {
    if let Some(o) = g.outcome() {
        bail!("the game is already over ({o:?}, {}): nothing to analyse", g.end_reason());
    }
    let mut legal = Vec::new();
    g.playable_actions(&mut legal);
    if legal.is_empty() {
        bail!("the side to move has no legal action");
    }
    Ok(())
}

/// The position at `fen` (checked playable, before the network is loaded)
/// and the network of `model`, refused when it was made for another game.
pub fn position_and_network<G: Game>(fen: Option<&str>, model: &Path) -> Result<(G, NetworkEvaluator)> {
    let g: G = super::game_at(fen, None)?;
    check_playable(&g)?;
    Ok((g, pacozero_nn::load_network::<G>(model, 0)?))
}

pub fn run(a: AnalyzeArgs) -> Result<()> {
    if a.sims == 0 {
        bail!("--sims must be at least 1");
    }
    pacozero_engine::with_game!(a.game.kind, G => analyze::<G>(&a))
}

fn analyze<G: Game>(a: &AnalyzeArgs) -> Result<()> {
    let (g, evaluator) = position_and_network::<G>(a.fen.as_deref(), &a.model)?;
    let mut search = Search::new(analysis_config(a.sims), g.clone(), Evaluator::<G>::needs_encoding(&evaluator));
    let res = search_decision(&mut search, &evaluator, a.sims)?;
    let turns = root_turns(&search);
    println!("position: {}", g.notation());
    println!(
        "{} to move; {} simulations with {}: value {:+.3} (W {:.1}% D {:.1}% L {:.1}%)",
        g.to_move().title(),
        res.simulations,
        Evaluator::<G>::name(&evaluator),
        res.root_q,
        100.0 * res.root_wdl[0],
        100.0 * res.root_wdl[1],
        100.0 * res.root_wdl[2]
    );
    if search.root_is_detected_win() {
        if let Some(turn) = pacozero_search::turns::winning_turn(&g) {
            println!("forced win this turn: {}", g.turn_notation(&turn));
        }
        return Ok(());
    }
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
