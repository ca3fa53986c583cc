//! The training file (`configs/train.toml`, and the `[net]` and `[train]`
//! tables of a loop configuration): the architecture keys of `[net]` (input
//! and policy sizes come from the game's data) and the [`TrainConfig`].

use anyhow::{Context, Result};
use pacozero_data::spec_of;
use pacozero_data::GameSpec;
use pacozero_engine::GameKind;
use pacozero_nn::NetConfig;
use serde::Deserialize;
use std::path::Path;

use crate::TrainConfig;

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
    pub value_pool: bool,
    pub reply_policy: bool,
}

impl Default for NetTable {
    fn default() -> Self {
        let d = NetConfig::default_for(&spec_of(GameKind::default()));
        NetTable {
            blocks: d.blocks,
            channels: d.channels,
            se_ratio: d.se_ratio,
            policy_channels: d.policy_channels,
            value_channels: d.value_channels,
            value_hidden: d.value_hidden,
            value_pool: d.value_pool,
            reply_policy: d.reply_policy,
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
            value_pool: self.value_pool,
            reply_policy: self.reply_policy,
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
    f.net.to_config(&spec_of(GameKind::default())).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    Ok(f)
}

/// What one call of [`train_run`] did.
pub struct TrainRun {
    /// The network's losses on the newest games before training on them.
    pub fresh: Option<crate::FreshLoss>,
    pub summary: crate::TrainSummary,
    /// The step reached.
    pub step: u64,
    /// The exported model, if one was asked for.
    pub exported: Option<std::path::PathBuf>,
}

/// Trains `steps` more steps on `run`'s games (resuming its checkpoint),
/// with the training file `config` (default: the built-in settings); the
/// input and policy sizes come from the newest chunk. With `export`, the
/// model is exported under that name and made current.
pub fn train_run(run: &Path, config: Option<&Path>, steps: u64, export: Option<&str>) -> Result<TrainRun> {
    let file = load_train_file(config)?;
    let device = pacozero_nn::default_device();
    let data = pacozero_data::RunDir::new(run).data();
    // Without data yet, training fails below with a message saying so.
    let spec = pacozero_data::data_spec(&data)?.unwrap_or_else(|| spec_of(GameKind::default()));
    let net = file.net.to_config(&spec)?;
    let mut trainer = crate::Trainer::resume_or_new(run, net, file.train, &device).map_err(|e| anyhow::anyhow!("{}: {e}", run.display()))?;
    // Games newer than the checkpoint's window measure how the network generalises.
    let fresh = if steps > 0 { trainer.fresh_data_loss(&data, crate::FRESH_LOSS_ROWS).map_err(|e| anyhow::anyhow!("{e}"))? } else { None };
    let summary = trainer.train_steps(&data, steps).map_err(|e| anyhow::anyhow!("training on {}: {e}", data.display()))?;
    // `train_steps` saves and plots after any step; zero steps still write
    // the checkpoint, so that `--steps 0` creates one for a fresh run.
    if steps == 0 {
        trainer.save_checkpoint().map_err(|e| anyhow::anyhow!("{e}"))?;
        trainer.plot().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let exported = match export {
        Some(name) => Some(trainer.export(name, true).map_err(|e| anyhow::anyhow!("{e}"))?),
        None => None,
    };
    Ok(TrainRun { fresh, summary, step: trainer.step(), exported })
}
