//! `cargo run --release -p pacozero-selfplay --example bench_mcts -- [puct|gumbel] [seconds] [threads] [games_per_thread] [sims] [rollout]`
use pacozero_engine::paco::GameState;
use pacozero_search::{Algorithm, RolloutEvaluator, SearchConfig, UniformEvaluator};
use pacozero_selfplay::bench_mcts;

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let alg = if a.first().map(String::as_str) == Some("puct") { Algorithm::Puct } else { Algorithm::Gumbel };
    let secs: f64 = a.get(1).map_or(Ok(5.0), |s| s.parse())?;
    let threads: usize = a.get(2).map_or(Ok(0), |s| s.parse())?;
    let gpt: usize = a.get(3).map_or(Ok(32), |s| s.parse())?;
    let sims: u32 = a.get(4).map_or(Ok(64), |s| s.parse())?;
    let cfg = SearchConfig { algorithm: alg, full_simulations: sims, ..SearchConfig::default() };
    let r = if a.get(5).map(String::as_str) == Some("rollout") {
        bench_mcts::<GameState, _>(&cfg, &RolloutEvaluator::new(0, 1, 100), threads, gpt, secs)?
    } else {
        bench_mcts::<GameState, _>(&cfg, &UniformEvaluator, threads, gpt, secs)?
    };
    println!("{r}");
    Ok(())
}
