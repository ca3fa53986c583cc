//! `pacozero selfplay`: games to Parquet chunks, with a network or a baseline
//! evaluator; `--game` picks Paco Ŝako or Shako.

use crate::args::SelfplayArgs;
use anyhow::{bail, Context, Result};
use pacozero_engine::{Game, GameVisitor};
use pacozero_selfplay::{baseline_evaluator, check_data_dir, derive_seed, run_selfplay, Evaluator, SelfplayConfig};
use std::path::PathBuf;

pub fn run(a: SelfplayArgs) -> Result<()> {
    if a.store.is_some() {
        return super::store::selfplay(a);
    }
    struct Selfplay(SelfplayArgs);
    impl GameVisitor for Selfplay {
        type Output = Result<()>;
        fn visit<G: Game>(self) -> Result<()> {
            run_game::<G>(self.0)
        }
    }
    a.game.visit(Selfplay(a))
}

fn run_game<G: Game>(a: SelfplayArgs) -> Result<()> {
    let mut cfg = SelfplayConfig::from_optional_file(a.config.as_deref())?;
    let out: PathBuf = match (&a.out, &a.run) {
        (Some(o), _) => o.clone(),
        (None, Some(r)) => r.join("data"),
        (None, None) => PathBuf::from("selfplay-data"),
    };
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    check_data_dir::<G>(&out)?;
    if let Some(run_dir) = &a.run {
        // Rounds of games; the current model is re-read before each round.
        let round = (cfg.effective_threads() * cfg.games_per_thread).max(1) as u64;
        let base_seed = cfg.seed;
        let mut played = 0;
        let mut index = 0u64;
        while played < a.games {
            let n = round.min(a.games - played);
            cfg.seed = derive_seed(base_seed, index);
            let evaluator: Box<dyn Evaluator<G>> = match pacozero_nn::current_model(run_dir) {
                Ok(model) => pacozero_nn::selfplay_network::<G>(&model, &cfg, 0)?,
                // No pointer yet: the baseline; a broken pointer is an error.
                Err(_) if !pacozero_nn::models_dir(run_dir).join("current").exists() => baseline_evaluator(&a.evaluator, cfg.seed)?,
                Err(e) => bail!("{e}"),
            };
            eprintln!("round {}: {} games with {}", index + 1, n, evaluator.name());
            let summary = run_selfplay::<G, _>(&cfg, evaluator.as_ref(), &out, n, !a.quiet)?;
            println!("{summary}");
            // Games of this round written by an earlier (killed) process are skipped, not counted.
            played += summary.games;
            index += 1;
        }
        return Ok(());
    }
    let evaluator: Box<dyn Evaluator<G>> = match &a.model {
        Some(m) => pacozero_nn::selfplay_network::<G>(m, &cfg, 0)?,
        None => baseline_evaluator(&a.evaluator, cfg.seed)?,
    };
    let summary = run_selfplay::<G, _>(&cfg, evaluator.as_ref(), &out, a.games, !a.quiet)?;
    println!("{summary}");
    Ok(())
}
