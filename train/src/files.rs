//! The training file (`configs/train.toml`, and the `[net]` and `[train]`
//! tables of a loop configuration): the architecture keys of `[net]` (input
//! and policy sizes come from the game's data) and the [`TrainConfig`].

use anyhow::{Context, Result};
use pacozero_data::{spec_of, spec_of_encoding, GameSpec, RunDir};
use pacozero_engine::GameKind;
use pacozero_nn::{NetConfig, NetPrecision, PolicyHead};
use serde::{Deserialize, Serialize};
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
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetTable {
    /// Residual blocks in the tower (1..=64).
    pub blocks: u32,
    /// Channels of the tower (4..=1024).
    pub channels: u32,
    /// Squeeze-excitation reduction ratio: the SE bottleneck has
    /// `channels / se_ratio` units (0 = no SE; else 1..=`channels`).
    pub se_ratio: u32,
    /// Channels of the policy head's first convolution (1..=1024).
    pub policy_channels: u32,
    /// Channels of the value head's 1x1 convolution (1..=1024).
    pub value_channels: u32,
    /// Hidden units of the value head's fully connected layer (1..=4096).
    pub value_hidden: u32,
    /// Global pooling in the value head (KataGo's): the hidden layer reads
    /// the mean and the maximum of each value channel over the board
    /// instead of every square's, so it has far fewer weights to overfit with.
    pub value_pool: bool,
    /// A second, auxiliary policy head (unused by search) trained on the
    /// opponent's reply: the search policy of the opponent's next decision
    /// (KataGo's opponent-policy target); see `train.reply_policy_weight`.
    pub reply_policy: bool,
    /// The policy head (`NetConfig::policy_head`): `"fc"`, a fully
    /// connected layer from every square to every policy slot, or `"conv"`,
    /// convolutions to the game's policy planes (AlphaZero's), a few
    /// thousand weights for any board.
    pub policy_head: PolicyHead,
    /// The input encoding (`NetConfig::encoding`): `"pacozero"`, or for
    /// Paco Ŝako `"platform"`, the platform's own input. It must be the
    /// data's; a loop's self-play writes its data in it.
    pub encoding: String,
    /// The arithmetic of the network's tower on the CPU when a loop plays
    /// (self-play, evaluation): `"fp32"`, `"int8"` (int8 weights and
    /// activations, 32-bit sums), or `"auto"` (int8 where the CPU has
    /// AVX-512 VNNI, else fp32). Not part of the network: model files keep
    /// fp32 weights. The command line's `--precision` and
    /// `PACOZERO_PRECISION` win over it. Left out of written
    /// configurations when fp32.
    #[serde(skip_serializing_if = "NetPrecision::is_fp32")]
    pub precision: NetPrecision,
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
            policy_head: d.policy_head,
            encoding: d.encoding,
            precision: NetPrecision::Fp32,
        }
    }
}

impl NetTable {
    /// The architecture for data of `spec` (whose encoding must be this table's).
    pub fn to_config(&self, spec: &GameSpec) -> Result<NetConfig> {
        if spec.encoding != self.encoding {
            anyhow::bail!("[net] encoding = {:?}, but the data holds encoding {:?} ({spec})", self.encoding, spec.encoding);
        }
        let net = NetConfig {
            blocks: self.blocks,
            channels: self.channels,
            se_ratio: self.se_ratio,
            policy_channels: self.policy_channels,
            value_channels: self.value_channels,
            value_hidden: self.value_hidden,
            value_pool: self.value_pool,
            reply_policy: self.reply_policy,
            policy_head: self.policy_head,
            ..NetConfig::default_for(spec)
        };
        net.validate().map_err(|e| anyhow::anyhow!("[net]: {e}"))?;
        Ok(net)
    }
}

/// Reads the training file at `path` (the built-in settings without one); see
/// [`TrainFile::from_toml_str`].
pub fn load_train_file(path: Option<&Path>) -> Result<TrainFile> {
    let Some(p) = path else { return Ok(TrainFile::default()) };
    let text = std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
    TrainFile::from_toml_str(&text, &p.display().to_string())
}

impl TrainFile {
    /// A training file's text, or a loop configuration's: a text with a
    /// `[loop]` table is a loop's (a run's `config.toml`), whose `[net]` and
    /// `[train]` tables are read and the others left to the loop. Unknown
    /// keys are errors; `origin` names the text in them.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<TrainFile> {
        let mut table: toml::Table = text.parse().with_context(|| format!("{origin}: invalid training config"))?;
        if table.contains_key("loop") {
            table.retain(|k, _| k == "net" || k == "train");
        }
        let f: TrainFile = table.try_into().with_context(|| format!("{origin}: invalid training config"))?;
        f.train.validate().map_err(|e| anyhow::anyhow!("{origin}: {e}"))?;
        let spec = spec_of_encoding(GameKind::default(), &f.net.encoding)
            .or_else(|_| GameKind::ALL.iter().find_map(|&k| spec_of_encoding(k, &f.net.encoding).ok()).ok_or(()))
            .map_err(|()| anyhow::anyhow!("{origin}: [net] encoding = {:?} is no game's input encoding", f.net.encoding))?;
        f.net.to_config(&spec).map_err(|e| anyhow::anyhow!("{origin}: {e}"))?;
        Ok(f)
    }
}

/// What one training stage did.
pub struct TrainRun {
    /// The network's losses on the newest games before training on them
    /// (`None` when no step was trained or no game is newer than the window).
    pub fresh: Option<crate::FreshLoss>,
    /// The steps trained (zero steps: an empty summary).
    pub summary: crate::TrainSummary,
    /// The step reached.
    pub step: u64,
    /// The exported model, if one was asked for.
    pub exported: Option<std::path::PathBuf>,
}

/// How far a training stage trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Steps {
    /// This many steps more than the checkpoint has.
    More(u64),
    /// Up to this step in all (none when the checkpoint is there already).
    UpTo(u64),
}

/// The model a training stage exports into the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Export<'a> {
    /// `models/<name>.pzmodel`.
    pub name: &'a str,
    /// Point `models/current` at it.
    pub make_current: bool,
}

/// One training stage.
#[derive(Clone, Debug)]
pub struct TrainStage<'a> {
    /// The architecture of a new run (a resumed run keeps its checkpoint's).
    pub net: NetConfig,
    pub train: TrainConfig,
    pub steps: Steps,
    /// Train on the chunks up to this stem only ([`crate::Trainer::limit_data`]).
    pub data_upto: Option<String>,
    /// The stage's first step, when its window must hold the newest games:
    /// a window loaded before it is replaced before the first batch
    /// ([`crate::Trainer::refresh_window_loaded_before`]); `None`: the window
    /// is replaced only after a full pass (or `reload_every_steps`).
    pub fresh_window_from: Option<u64>,
    pub export: Option<Export<'a>>,
}

/// One training stage on the run directory `run`, the one every caller
/// runs (the loop's generations, `pacozero train --run`, the object-store
/// trainer): resume the checkpoint (or start `stage.net`), measure the
/// network on the games newer than its window before training on them,
/// train and checkpoint (also after zero steps, so that a fresh run
/// gets its checkpoint), and export.
pub fn train_stage(run: &Path, stage: TrainStage<'_>) -> Result<TrainRun> {
    let device = pacozero_nn::default_device();
    let data = RunDir::new(run).data();
    let mut trainer = crate::Trainer::resume_or_new(run, stage.net, stage.train, &device).map_err(|e| anyhow::anyhow!("{}: {e}", run.display()))?;
    trainer.limit_data(stage.data_upto);
    let todo = match stage.steps {
        Steps::More(n) => n,
        Steps::UpTo(target) => target.saturating_sub(trainer.step()),
    };
    // Games newer than the checkpoint's window measure how the network generalises.
    let fresh = if todo > 0 { trainer.fresh_data_loss(&data, crate::FRESH_LOSS_ROWS).map_err(|e| anyhow::anyhow!("{e}"))? } else { None };
    if let Some(step) = stage.fresh_window_from {
        trainer.refresh_window_loaded_before(step);
    }
    let summary = trainer.train_steps(&data, todo).map_err(|e| anyhow::anyhow!("training on {}: {e}", data.display()))?;
    // `train_steps` saves after any step.
    if todo == 0 {
        trainer.save_checkpoint().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let exported = match stage.export {
        Some(e) => Some(trainer.export(e.name, e.make_current).map_err(|e| anyhow::anyhow!("{e}"))?),
        None => None,
    };
    Ok(TrainRun { fresh, summary, step: trainer.step(), exported })
}

/// Trains `steps` more steps on `run`'s games (resuming its checkpoint),
/// with the training file `config` (default: the built-in settings); the
/// input and policy sizes come from the newest chunk. With `export`, the
/// model is exported under that name and made current.
pub fn train_run(run: &Path, config: Option<&Path>, steps: u64, export: Option<&str>) -> Result<TrainRun> {
    train_run_with(run, load_train_file(config)?, steps, export)
}

/// [`train_run`] with a training file already read.
pub fn train_run_with(run: &Path, file: TrainFile, steps: u64, export: Option<&str>) -> Result<TrainRun> {
    // Without data yet, training fails with a message saying so. The newest
    // chunk names the game; its declared sizes must be the game's before a
    // network is sized from them.
    let data = RunDir::new(run).data();
    let spec = match pacozero_data::data_spec(&data)? {
        Some(spec) => pacozero_data::registered_spec(&spec)
            .map_err(|e| anyhow::anyhow!("{}: the newest chunk's metadata says {e}; no network is built from it", data.display()))?,
        None => spec_of_encoding(GameKind::default(), &file.net.encoding).map_err(|e| anyhow::anyhow!("[net] encoding: {e}"))?,
    };
    let net = file.net.to_config(&spec)?;
    let export = export.map(|name| Export { name, make_current: true });
    train_stage(run, TrainStage { net, train: file.train, steps: Steps::More(steps), data_upto: None, fresh_window_from: None, export })
}
