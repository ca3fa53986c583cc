//! `selfplay --store URL --worker N`, `train --store URL` and `evaluate
//! --store URL`: the store sync of `pacozero_run::store_sync` and the
//! store's evaluator (`pacozero_run::store_eval`), their notes printed.

use crate::args::{SelfplayArgs, TrainArgs};
use anyhow::{Context, Result};
use pacozero_run::store_eval::{store_evaluate, StoreEvaluator};
use pacozero_run::store_sync::{store_selfplay, store_train, StoreWorker};

fn print(text: &str) {
    println!("{text}");
}

/// `pacozero selfplay --store URL --worker N`.
pub fn selfplay(a: SelfplayArgs) -> Result<()> {
    let url = a.store.clone().context("selfplay in a store needs --store URL")?;
    let worker = a.worker.context("--store needs --worker N (each worker its own index)")?;
    let config = super::selfplay_config_at(a.config.as_deref(), &a.set)?.0;
    let w = StoreWorker { url, worker, cache: a.run.clone(), games: a.games, config, evaluator: a.evaluator.clone(), progress: !a.quiet };
    pacozero_engine::with_game!(a.game.kind, G => store_selfplay::<G>(&w, &print))
}

/// `pacozero train --store URL --run CACHE`.
pub fn train(a: TrainArgs) -> Result<()> {
    let url = a.store.clone().context("training in a store needs --store URL")?;
    let file = super::train_file(&a)?;
    store_train(&url, &a.run, file, a.steps, a.export.as_deref(), !a.no_promote, &print)
}

/// `pacozero evaluate --store URL --run DIR`: once, or every `--watch` seconds.
pub fn evaluate(a: crate::args::EvaluateArgs) -> Result<()> {
    struct Notes {
        bar: indicatif::ProgressBar,
    }
    impl pacozero_run::looping::LoopObserver for Notes {
        fn note(&self, text: &str) {
            self.bar.suspend(|| println!("{}", text.trim_end()));
        }
        fn match_progress(&self, done: u64, total: u64) {
            self.bar.set_length(total);
            self.bar.set_position(done);
        }
    }
    let fallback = pacozero_run::overrides::Fallback { text: pacozero_run::looping::QUICK_TOML, name: "the embedded configs/quick.toml" };
    let (text, origin) = pacozero_run::overrides::config_text(a.config.as_deref(), fallback, &a.set)?;
    let config = pacozero_run::looping::LoopFile::parse(&text, &origin)?;
    let game = config.looping.game;
    let e = StoreEvaluator { url: a.store.clone(), cache: a.run.clone(), config };
    let bar = if a.quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(0) };
    let notes = Notes { bar };
    loop {
        pacozero_engine::with_game!(game, G => store_evaluate::<G>(&e, &notes))?;
        if a.watch == 0 {
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_secs(a.watch));
    }
}
