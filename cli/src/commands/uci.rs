//! `pacozero uci`: the UCI engine of `pacozero_protocol::uci` on stdin and
//! stdout, for the game of the network it is given.

use crate::args::UciArgs;
use anyhow::{bail, Result};
use pacozero_engine::Game;
use pacozero_protocol::uci::{serve, UciConfig};
use pacozero_search::Evaluator;
use std::path::Path;

pub fn run(a: UciArgs) -> Result<()> {
    if a.threads == 0 || a.threads > 512 {
        bail!("--threads must be in 1..=512 (the UCI option Threads), got {}", a.threads);
    }
    if a.visits == 0 || a.visit_cap == 0 {
        bail!("--visits and --visit-cap must be at least 1");
    }
    let evaluator = pacozero_nn::load_evaluator_spec(&a.model, a.threads)?;
    let game = pacozero_nn::network_game(&evaluator, &a.model)?;
    if let Some(asked) = a.game {
        if asked != game {
            bail!("--game {asked}: the network {} plays {game}", a.model);
        }
    }
    let config = UciConfig {
        name: format!("PacoZero {}", env!("CARGO_PKG_VERSION")),
        model: a.model.clone(),
        threads: a.threads,
        default_visits: a.visits,
        visit_cap: a.visit_cap,
    };
    pacozero_engine::with_game!(game, G => serve_game::<G>(evaluator, &config))
}

fn serve_game<G: Game>(evaluator: pacozero_nn::NetworkEvaluator, config: &UciConfig) -> Result<()> {
    // `Model` and `Threads` load a network of this game only.
    let loader = |model: &str, threads: usize| -> Result<Box<dyn Evaluator<G>>> { Ok(Box::new(pacozero_nn::load_network::<G>(Path::new(model), threads)?)) };
    let input = std::io::BufReader::new(std::io::stdin());
    let mut output = std::io::stdout().lock();
    serve::<G, _, _>(input, &mut output, Box::new(evaluator), &loader, config)
}
