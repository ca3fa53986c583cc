//! `pacozero train`: resumable training on a run directory's games
//! (`pacozero_train::train_run`). The network's input and policy sizes come
//! from the data (the spec of the newest chunk), so Paco Ŝako and Shako runs
//! train alike.

use crate::args::TrainArgs;
use anyhow::Result;
use pacozero_data::RunDir;
use pacozero_train::TrainFile;

/// The training settings: `--config`, else the run's own `config.toml` (a
/// loop's run trains as its loop does), else the built-in ones; then the
/// `--set` overrides.
pub fn train_file(a: &TrainArgs) -> Result<TrainFile> {
    let own = RunDir::new(&a.run).config();
    let path = a.config.clone().or_else(|| own.exists().then_some(own));
    let (text, origin) = pacozero_run::overrides::config_text(path.as_deref(), &a.set)?;
    let mut file = TrainFile::from_toml_str(&text, &origin)?;
    file.train.progress &= !a.quiet;
    Ok(file)
}

pub fn run(a: TrainArgs) -> Result<()> {
    if a.store.is_some() {
        return super::store::train(a);
    }
    let r = pacozero_train::train_run_with(&a.run, train_file(&a)?, a.steps, a.export.as_deref())?;
    if let Some(f) = &r.fresh {
        println!("{f}");
    }
    let s = &r.summary;
    println!(
        "trained {} steps (now at step {}): loss {:.4} -> {:.4} (policy {:.4}, value {:.4}), policy top-1 {:.2}, {:.0} samples/s",
        s.steps, r.step, s.first.loss, s.last.loss, s.last.policy_loss, s.last.value_loss, s.last.policy_top1, s.samples_per_sec
    );
    if let Some(path) = &r.exported {
        println!("exported {}", path.display());
    }
    Ok(())
}
