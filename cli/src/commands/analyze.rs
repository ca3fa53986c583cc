//! `pacozero analyze`: search a position with a network and print the top
//! turns with their statistics and principal variations, for any game.

use crate::args::AnalyzeArgs;
use crate::turns::{principal_variation, root_turns};
use anyhow::{bail, Context, Result};
use pacozero_engine::{Color, Game, GameVisitor};
use pacozero_nn::NetworkEvaluator;
use pacozero_selfplay::turns::MAX_TURN_DECISIONS;
use pacozero_selfplay::{Evaluator, Search, SearchConfig, SearchResult};
use rand::SeedableRng;
use std::path::Path;

/// Search settings of analysis and play: PUCT without noise, tree reuse.
pub use pacozero_selfplay::analysis::analysis_search_config as analysis_config;

/// One decision search of `simulations` more simulations on `search` (batch
/// size 1, no noise, seed 0: analysis is deterministic).
pub fn search_decision<G: Game, E: Evaluator<G> + ?Sized>(search: &mut Search<G>, evaluator: &E, simulations: u32) -> Result<SearchResult> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    search.search_until(evaluator, simulations, None, false, &mut rng)
}

/// The decisions of a whole turn played by search, and what the search
/// said at its first decision.
pub struct SearchedTurn {
    pub decisions: Vec<u16>,
    /// The mover's (win, draw, loss) at the first decision.
    pub first_wdl: [f32; 3],
    /// The turn was cut after [`MAX_TURN_DECISIONS`]: a chain kept re-entering unions.
    pub cut: bool,
}

/// Plays the whole turn of `g`'s mover by search, `simulations` per decision
/// with the tree kept through the turn; `g` is left after the decisions.
pub fn search_turn<G: Game, E: Evaluator<G> + ?Sized>(g: &mut G, cfg: SearchConfig, evaluator: &E, simulations: u32) -> Result<SearchedTurn> {
    let mover = g.to_move();
    let mut search = Search::new(cfg, g.clone(), evaluator.needs_encoding());
    let mut turn = SearchedTurn { decisions: Vec::new(), first_wdl: [0.0, 1.0, 0.0], cut: false };
    while g.to_move() == mover && g.outcome().is_none() {
        if turn.decisions.len() >= MAX_TURN_DECISIONS {
            turn.cut = true;
            break;
        }
        let res = search_decision(&mut search, evaluator, simulations)?;
        if res.legal.is_empty() {
            break;
        }
        if turn.decisions.is_empty() {
            turn.first_wdl = res.root_wdl;
        }
        g.apply(res.action);
        turn.decisions.push(res.action);
        search.advance(res.action, g);
    }
    Ok(turn)
}

pub fn color_name(c: Color) -> &'static str {
    if c == Color::White {
        "White"
    } else {
        "Black"
    }
}

/// The game at `fen` in `G`'s notation (default: the standard start).
pub fn game_at<G: Game>(fen: Option<&str>) -> Result<G> {
    match fen {
        Some(f) => G::from_notation(f).with_context(|| format!("reading FEN \"{f}\"")),
        None => Ok(G::start()),
    }
}

/// Refuses a finished game, or one whose mover has no legal decision.
pub fn check_playable<G: Game>(g: &G) -> Result<()> {
    if let Some(o) = g.outcome() {
        bail!("the game is already over ({o:?}, {}): nothing to analyse", g.end_reason());
    }
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    if legal.is_empty() {
        bail!("the side to move has no legal action");
    }
    Ok(())
}

/// The network of `model` for game `G`, refused when it was made for another game.
pub fn network_for<G: Game>(model: &Path) -> Result<NetworkEvaluator> {
    pacozero_nn::load_network::<G>(model, 0)
}

pub fn run(a: AnalyzeArgs) -> Result<()> {
    if a.sims == 0 {
        bail!("--sims must be at least 1");
    }
    a.game.engine().visit(Analyze(&a))
}

struct Analyze<'a>(&'a AnalyzeArgs);

impl GameVisitor for Analyze<'_> {
    type Output = Result<()>;
    fn visit<G: Game>(self) -> Result<()> {
        let a = self.0;
        let g: G = game_at(a.fen.as_deref())?;
        check_playable(&g)?;
        let evaluator = network_for::<G>(&a.model)?;
        let mut search = Search::new(analysis_config(a.sims), g.clone(), Evaluator::<G>::needs_encoding(&evaluator));
        let res = search_decision(&mut search, &evaluator, a.sims)?;
        let turns = root_turns(&search);
        println!("position: {}", g.notation());
        println!(
            "{} to move; {} simulations with {}: value {:+.3} (W {:.1}% D {:.1}% L {:.1}%)",
            color_name(g.to_move()),
            res.simulations,
            Evaluator::<G>::name(&evaluator),
            res.root_q,
            100.0 * res.root_wdl[0],
            100.0 * res.root_wdl[1],
            100.0 * res.root_wdl[2]
        );
        if search.root_is_detected_win() {
            if let Some(turn) = pacozero_selfplay::turns::winning_turn(&g) {
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
}
