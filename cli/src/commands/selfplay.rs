//! `pacozero selfplay`: games to Parquet chunks, with a network or a baseline
//! evaluator; `--game` picks Paco Ŝako or Shako.

use crate::args::SelfplayArgs;
use anyhow::{bail, Context, Result};
use pacozero_data::{check_data_dir_as, RunDir};
use pacozero_engine::Game;
use pacozero_run::rounds::{selfplay_round, selfplay_rounds, RoundReport, SelfplayPlayer, Series};
use std::path::PathBuf;

pub fn run(a: SelfplayArgs) -> Result<()> {
    if a.store.is_some() {
        return super::store::selfplay(a);
    }
    pacozero_engine::with_game!(a.game.kind, G => run_game::<G>(a))
}

fn run_game<G: Game>(a: SelfplayArgs) -> Result<()> {
    let cfg = super::selfplay_config_at(a.config.as_deref(), &a.set)?.0;
    let out: PathBuf = match (&a.out, &a.run) {
        (Some(o), _) => o.clone(),
        (None, Some(r)) => RunDir::new(r).data(),
        (None, None) => PathBuf::from("selfplay-data"),
    };
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    // Each round checks again, in the encoding of its network.
    let encoding = pacozero_engine::encoding_index::<G>(&cfg.encoding).map_err(|e| anyhow::anyhow!("config key `encoding`: {e}"))?;
    check_data_dir_as::<G>(&out, encoding)?;
    let Some(run_dir) = &a.run else {
        let player = match &a.model {
            Some(m) => SelfplayPlayer::Network { model: m.clone(), threads: 0 },
            None => SelfplayPlayer::Baseline(a.evaluator.clone()),
        };
        let summary = selfplay_round::<G>(&cfg, cfg.seed, &player, &out, a.games, !a.quiet, &|_| {})?;
        println!("{summary}");
        return Ok(());
    };
    // Rounds of games; the current model is re-read before each round.
    let player = || -> Result<SelfplayPlayer> {
        Ok(match pacozero_nn::current_model(run_dir) {
            Ok(model) => SelfplayPlayer::Network { model, threads: 0 },
            // No pointer yet: the baseline; a broken pointer is an error.
            Err(_) if !RunDir::new(run_dir).current_pointer().exists() => SelfplayPlayer::Baseline(a.evaluator.clone()),
            Err(e) => bail!("{e}"),
        })
    };
    let started = |index: u64, n: u64, who: &SelfplayPlayer| eprintln!("round {}: {n} games with {}", index + 1, who);
    let finished = |r: &RoundReport| -> Result<()> {
        println!("{}", r.summary);
        Ok(())
    };
    selfplay_rounds::<G>(Series { cfg: &cfg, base_seed: cfg.seed, games: a.games }, &out, !a.quiet, player, started, finished)
}
