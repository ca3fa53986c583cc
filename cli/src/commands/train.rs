//! `pacozero train`: resumable training on a run directory's games. The
//! network's input and policy sizes come from the data (the spec of the
//! newest chunk), so Paco Ŝako and Shako runs train alike.

use crate::args::{GameKind, TrainArgs};
use anyhow::{Context, Result};
use pacozero_data::GameSpec;
use pacozero_nn::{default_device, NetConfig};
use pacozero_train::{TrainConfig, Trainer};
use serde::Deserialize;
use std::path::Path;

/// The training file: a `[net]` table (architecture; input sizes come from the
/// game) and a `[train]` table. Unknown keys are errors.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainFile {
    #[serde(default)]
    pub net: NetTable,
    #[serde(default)]
    pub train: TrainConfig,
}

/// Architecture keys of `[net]` (the input and policy sizes come from the game;
/// the defaults are the same for every game).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetTable {
    pub blocks: u32,
    pub channels: u32,
    pub se_ratio: u32,
    pub policy_channels: u32,
    pub value_channels: u32,
    pub value_hidden: u32,
}

impl Default for NetTable {
    fn default() -> Self {
        let d = NetConfig::default_for(&super::selfplay::spec_of(GameKind::Paco));
        NetTable {
            blocks: d.blocks,
            channels: d.channels,
            se_ratio: d.se_ratio,
            policy_channels: d.policy_channels,
            value_channels: d.value_channels,
            value_hidden: d.value_hidden,
        }
    }
}

impl NetTable {
    /// The architecture for data of `spec`.
    pub fn to_config(&self, spec: &GameSpec) -> Result<NetConfig> {
        let net = NetConfig {
            blocks: self.blocks,
            channels: self.channels,
            se_ratio: self.se_ratio,
            policy_channels: self.policy_channels,
            value_channels: self.value_channels,
            value_hidden: self.value_hidden,
            ..NetConfig::default_for(spec)
        };
        net.validate().map_err(|e| anyhow::anyhow!("[net]: {e}"))?;
        Ok(net)
    }
}

pub fn load_train_file(path: Option<&Path>) -> Result<TrainFile> {
    let Some(p) = path else { return Ok(TrainFile::default()) };
    let text = std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
    let f: TrainFile = toml::from_str(&text).with_context(|| format!("{}: invalid training config", p.display()))?;
    f.train.validate().map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    f.net.to_config(&super::selfplay::spec_of(GameKind::Paco)).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    Ok(f)
}

pub fn run(a: TrainArgs) -> Result<()> {
    if a.store.is_some() {
        return super::store::train(a);
    }
    let file = load_train_file(a.config.as_deref())?;
    let device = default_device();
    let data = a.run.join("data");
    // Without data yet, training fails below with a message saying so.
    let spec = super::selfplay::data_spec(&data)?.unwrap_or_else(|| super::selfplay::spec_of(GameKind::Paco));
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
