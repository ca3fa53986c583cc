//! `cargo run --release -p pacozero-selfplay --example selfplay_uniform -- <out_dir> [games] [config.toml] [rollout]`
use pacozero_engine::paco::GameState;
use pacozero_search::{RolloutEvaluator, UniformEvaluator};
use pacozero_selfplay::{run_selfplay, SelfplayConfig};

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let out = a.first().map(String::as_str).unwrap_or("/tmp/selfplay-out");
    let games: u64 = a.get(1).map_or(Ok(64), |s| s.parse())?;
    let cfg = match a.get(2) {
        Some(p) if !p.is_empty() => SelfplayConfig::from_file(p.as_ref())?,
        _ => SelfplayConfig::default(),
    };
    let s = if a.get(3).map(String::as_str) == Some("rollout") {
        run_selfplay::<GameState, _>(&cfg, &RolloutEvaluator::new(cfg.seed, 1, 100), out.as_ref(), games, true)?
    } else {
        run_selfplay::<GameState, _>(&cfg, &UniformEvaluator, out.as_ref(), games, true)?
    };
    println!("{s}");
    Ok(())
}
