//! `pacozero train`: resumable training on a run directory's games
//! (`pacozero_train::train_run`). The network's input and policy sizes come
//! from the data (the spec of the newest chunk), so Paco Ŝako and Shako runs
//! train alike.

use crate::args::TrainArgs;
use anyhow::Result;

pub fn run(a: TrainArgs) -> Result<()> {
    if a.store.is_some() {
        return super::store::train(a);
    }
    let r = pacozero_train::train_run_with(&a.run, super::train_file(&a)?, a.steps, a.export.as_deref())?;
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
