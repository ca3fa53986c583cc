//! `selfplay --store URL --worker N` and `train --store URL`: the store
//! sync of `pacozero_run::store_sync`, its notes printed.

use crate::args::{SelfplayArgs, TrainArgs};
use anyhow::{Context, Result};
use pacozero_engine::{Game, GameVisitor};
use pacozero_run::store_sync::{store_selfplay, store_train, StoreWorker};

fn print(text: &str) {
    println!("{text}");
}

/// `pacozero selfplay --store URL --worker N`.
pub fn selfplay(a: SelfplayArgs) -> Result<()> {
    struct Worker(StoreWorker);
    impl GameVisitor for Worker {
        type Output = Result<()>;
        fn visit<G: Game>(self) -> Result<()> {
            store_selfplay::<G>(&self.0, &print)
        }
    }
    let url = a.store.clone().context("selfplay in a store needs --store URL")?;
    let worker = a.worker.context("--store needs --worker N (each worker its own index)")?;
    let (text, origin) = pacozero_run::overrides::config_text(a.config.as_deref(), pacozero_run::overrides::Fallback::DEFAULTS, &a.set)?;
    let config = pacozero_selfplay::SelfplayConfig::from_toml_str(&text).with_context(|| format!("in {origin}"))?;
    let w = StoreWorker { url, worker, cache: a.run.clone(), games: a.games, config, evaluator: a.evaluator.clone(), progress: !a.quiet };
    a.game.visit(Worker(w))
}

/// `pacozero train --store URL --run CACHE`.
pub fn train(a: TrainArgs) -> Result<()> {
    let url = a.store.clone().context("training in a store needs --store URL")?;
    let file = super::train_file(&a)?;
    store_train(&url, &a.run, file, a.steps, a.export.as_deref(), &print)
}
