//! `pacozero train`: resumable training on a run directory's games. The
//! network's input and policy sizes come from the data (the spec of the
//! newest chunk), so Paco Ŝako and Shako runs train alike.

use crate::args::TrainArgs;
use anyhow::Result;
use pacozero_engine::GameKind;
use pacozero_nn::default_device;
use pacozero_selfplay::{data_spec, spec_of};
use pacozero_train::{load_train_file, Trainer};

pub fn run(a: TrainArgs) -> Result<()> {
    if a.store.is_some() {
        return super::store::train(a);
    }
    let file = load_train_file(a.config.as_deref())?;
    let device = default_device();
    let data = a.run.join("data");
    // Without data yet, training fails below with a message saying so.
    let spec = data_spec(&data)?.unwrap_or_else(|| spec_of(GameKind::Paco));
    let net = file.net.to_config(&spec)?;
    let mut trainer = Trainer::resume_or_new(&a.run, net, file.train, &device).map_err(|e| anyhow::anyhow!("{}: {e}", a.run.display()))?;
    // Games newer than the checkpoint's window measure how the network generalises.
    if a.steps > 0 {
        if let Some(f) = trainer.fresh_data_loss(&data, pacozero_train::FRESH_LOSS_ROWS).map_err(|e| anyhow::anyhow!("{e}"))? {
            println!("{f}");
        }
    }
    let summary = trainer.train_steps(&data, a.steps).map_err(|e| anyhow::anyhow!("training on {}: {e}", data.display()))?;
    trainer.save_checkpoint().map_err(|e| anyhow::anyhow!("{e}"))?;
    trainer.plot().map_err(|e| anyhow::anyhow!("{e}"))?;
    println!(
        "trained {} steps (now at step {}): loss {:.4} -> {:.4} (policy {:.4}, value {:.4}), policy top-1 {:.2}, {:.0} samples/s",
        summary.steps,
        trainer.step(),
        summary.first.loss,
        summary.last.loss,
        summary.last.policy_loss,
        summary.last.value_loss,
        summary.last.policy_top1,
        summary.samples_per_sec
    );
    if let Some(name) = a.export {
        let path = trainer.export(&name, true).map_err(|e| anyhow::anyhow!("{e}"))?;
        println!("exported {}", path.display());
    }
    Ok(())
}
