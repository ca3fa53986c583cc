//! `pacozero analysis`: the JSON-lines analysis engine of
//! `pacozero_protocol::analysis` on stdin and stdout, for the game of the
//! network it is given.

use crate::args::AnalysisArgs;
use anyhow::Result;
use pacozero_engine::Game;
use pacozero_nn::NetworkEvaluator;
use pacozero_protocol::analysis::{serve, ServeOptions};

pub fn run(a: AnalysisArgs) -> Result<()> {
    let evaluator = pacozero_nn::load_evaluator_spec(&a.model, a.threads)?;
    let game = pacozero_nn::network_game(&evaluator, &a.model)?;
    let opts = ServeOptions {
        default_visits: a.visits.max(1),
        visit_cap: a.visit_cap.max(1),
        default_top_moves: a.top_moves,
        max_concurrent: a.max_concurrent.max(1),
        ..ServeOptions::default()
    };
    pacozero_engine::with_game!(game, G => serve_game::<G>(&evaluator, &opts))
}

fn serve_game<G: Game>(evaluator: &NetworkEvaluator, opts: &ServeOptions) -> Result<()> {
    let input = std::io::BufReader::new(std::io::stdin());
    let mut output = std::io::stdout().lock();
    let stats = serve::<G, _, _, _>(input, &mut output, evaluator, opts)?;
    eprintln!(
        "analysis: {} queries answered, {} lines refused; {} network calls, {:.1} leaves per call",
        stats.answered,
        stats.errors,
        stats.batches,
        stats.mean_batch()
    );
    Ok(())
}
