//! `pacozero selfplay`: games to Parquet chunks, with a network or a baseline evaluator.

use crate::args::SelfplayArgs;
use anyhow::{bail, Context, Result};
use pacozero_engine::paco::GameState;
use pacozero_selfplay::{run_selfplay, Evaluator, RolloutEvaluator, SelfplayConfig, UniformEvaluator};
use std::path::{Path, PathBuf};

pub fn load_config(path: Option<&Path>) -> Result<SelfplayConfig> {
    match path {
        Some(p) => SelfplayConfig::from_file(p).with_context(|| format!("reading self-play config {}", p.display())),
        None => Ok(SelfplayConfig::default()),
    }
}

/// The baseline evaluator named on the command line.
pub fn baseline_evaluator(name: &str, seed: u64) -> Result<Box<dyn Evaluator<GameState>>> {
    Ok(match name {
        "uniform" => Box::new(UniformEvaluator),
        "rollout" => Box::new(RolloutEvaluator::new(seed, 1, 400)),
        other => bail!("unknown evaluator '{other}' (expected 'uniform' or 'rollout')"),
    })
}

pub fn run(a: SelfplayArgs) -> Result<()> {
    let mut cfg = load_config(a.config.as_deref())?;
    let out: PathBuf = match (&a.out, &a.run) {
        (Some(o), _) => o.clone(),
        (None, Some(r)) => r.join("data"),
        (None, None) => PathBuf::from("selfplay-data"),
    };
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    if let Some(run_dir) = &a.run {
        // Rounds of games; the current model is re-read before each round.
        let round = (cfg.effective_threads() * cfg.games_per_thread).max(1) as u64;
        let base_seed = cfg.seed;
        let mut played = 0;
        let mut index = 0u64;
        while played < a.games {
            let n = round.min(a.games - played);
            cfg.seed = super::derive_seed(base_seed, index);
            let evaluator: Box<dyn Evaluator<GameState>> = match pacozero_train::current_model(run_dir) {
                Ok(model) => Box::new(crate::net::load_evaluator(&model, 0)?),
                Err(_) => baseline_evaluator(&a.evaluator, cfg.seed)?,
            };
            eprintln!("round {}: {} games with {}", index + 1, n, evaluator.name());
            let summary = run_selfplay::<GameState, _>(&cfg, evaluator.as_ref(), &out, n, !a.quiet)?;
            println!("{summary}");
            played += n;
            index += 1;
        }
        return Ok(());
    }
    let evaluator: Box<dyn Evaluator<GameState>> = match &a.model {
        Some(m) => Box::new(crate::net::load_evaluator(m, 0)?),
        None => baseline_evaluator(&a.evaluator, cfg.seed)?,
    };
    let summary = run_selfplay::<GameState, _>(&cfg, evaluator.as_ref(), &out, a.games, !a.quiet)?;
    println!("{summary}");
    Ok(())
}
