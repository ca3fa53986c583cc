//! [`TrainConfig`]: every training hyper-parameter, serde + range checks.

use serde::{Deserialize, Serialize};

/// A `[train]` key out of range or the table unreadable; the message names the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid configuration: {}", self.0)
    }
}

impl std::error::Error for ConfigError {}

type ConfigResult<T> = Result<T, ConfigError>;

/// Optimizer choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// SGD with (non-Nesterov) momentum and L2 weight decay.
    Sgd,
    /// AdamW with decoupled weight decay.
    Adamw,
}

/// Learning-rate schedule after warmup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    /// `lr` forever.
    Constant,
    /// `lr * lr_step_gamma^floor((step - warmup_steps) / lr_step_every)`.
    Step,
    /// Cosine from `lr` down to `lr * lr_min_factor` at `cosine_steps` steps after warmup, then flat.
    Cosine,
}

/// Training configuration (a `[train]` TOML table). Unknown keys are refused.
///
/// | key | default | range | meaning |
/// |---|---|---|---|
/// | `batch_size` | 256 | 1..=65536 | positions per step |
/// | `seed` | 1 | any | seed of shuffling (and weight init of a new run) |
/// | `optimizer` | `"sgd"` | `sgd`/`adamw` | optimizer |
/// | `lr` | 0.02 | (0, 10] | peak learning rate |
/// | `momentum` | 0.9 | [0, 1) | SGD momentum (ignored by AdamW) |
/// | `weight_decay` | 1e-4 | [0, 1) | SGD: L2 penalty added to gradients; AdamW: decoupled decay |
/// | `grad_clip_norm` | 0 | >= 0 | clip the gradient norm of each parameter tensor (0 = off) |
/// | `warmup_steps` | 100 | >= 0 | linear warmup from 0 to `lr` |
/// | `lr_schedule` | `"constant"` | `constant`/`step`/`cosine` | schedule after warmup |
/// | `lr_step_every` | 10000 | >= 1 | steps between decays (`step`) |
/// | `lr_step_gamma` | 0.1 | (0, 1] | decay factor (`step`) |
/// | `cosine_steps` | 100000 | >= 1 | length of the cosine (`cosine`) |
/// | `lr_min_factor` | 0.01 | [0, 1] | final lr / lr (`cosine`) |
/// | `policy_weight` | 1.0 | >= 0 | weight of the policy cross-entropy (full-search rows only) |
/// | `value_weight` | 1.0 | >= 0 | weight of the WDL cross-entropy |
/// | `moves_left_weight` | 0.05 | >= 0 | weight of the moves-left MSE on `ln(1+moves_left)` |
/// | `sako_weight` | 0.1 | >= 0 | weight of the auxiliary targets' BCE (the game's `Game::AUX_TARGETS`; the name is from Paco Ŝako's, kept so configurations and `metrics.csv`'s `sako_loss` read on) |
/// | `reply_policy_weight` | 0.15 | >= 0 | weight of the reply head's cross-entropy (networks with `net.reply_policy`) |
/// | `value_q_mix` | 0.0 | [0, 1] | WDL target = (1-m-h)·onehot(result) + m·root_wdl + h·(root_wdl `value_horizon` decisions later) |
/// | `value_horizon` | 0 | 0..=1000 | decisions ahead of the short-horizon value target (`targets.rs`) |
/// | `value_horizon_mix` | 0.0 | [0, 1], with `value_q_mix` at most 1 | h above; needs `value_horizon` > 0 |
/// | `mirror_augment` | false | bool | Paco Ŝako: each sampled position without a castling right is file-mirrored (a ↔ h: planes and policy) with probability 1/2 |
/// | `export_average` | 0.0 | [0, 0.99] | exported weights = this × the previous export's + (1 − this) × the trained ones, folded at the end of each `train_steps` call (parameters and batch-norm statistics; 0 = the trained weights) |
/// | `window_c` | 250000 | >= 1 | KataGo-style window: `c·(1 + β((N/c)^α − 1)/α)` for N positions seen |
/// | `window_alpha` | 0.75 | (0, 1] | α of the window formula |
/// | `window_beta` | 0.4 | [0, 10] | β of the window formula |
/// | `window_max` | 2000000 | 1..=50000000 | upper bound of the window (also capped by N); at most [`MAX_WINDOW`] |
/// | `min_positions` | 1 | >= 1 | refuse to train with fewer positions on disk |
/// | `reload_every_steps` | 0 | >= 0 | re-read the window after this many steps (0 = after each full pass) |
/// | `metrics_every` | 1 | >= 1 | append a CSV row every this many steps |
/// | `plot_every` | 200 | >= 0 | read and ignored: the trainer draws no PNG plots any more (their axes had no text); its curves are in TensorBoard (`tensorboard/train/`) and the run report's SVG plots. Kept so that earlier runs' configurations still read |
/// | `checkpoint_every` | 500 | >= 0 | write a checkpoint every this many steps (0 = only at the end of `train_steps`) |
/// | `threads` | 0 | 0..=1024 | CPU threads for training (0 = rayon global pool) |
/// | `progress` | true | bool | show an indicatif progress bar |
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    pub batch_size: usize,
    pub seed: u64,
    pub optimizer: OptimizerKind,
    pub lr: f64,
    pub momentum: f64,
    pub weight_decay: f64,
    pub grad_clip_norm: f64,
    pub warmup_steps: u64,
    pub lr_schedule: LrSchedule,
    pub lr_step_every: u64,
    pub lr_step_gamma: f64,
    pub cosine_steps: u64,
    pub lr_min_factor: f64,
    pub policy_weight: f64,
    pub value_weight: f64,
    pub moves_left_weight: f64,
    /// Weight of the auxiliary targets' loss (the game's, whatever they are).
    pub sako_weight: f64,
    pub reply_policy_weight: f64,
    pub value_q_mix: f64,
    pub value_horizon: u32,
    pub value_horizon_mix: f64,
    pub mirror_augment: bool,
    pub export_average: f64,
    pub window_c: f64,
    pub window_alpha: f64,
    pub window_beta: f64,
    pub window_max: usize,
    pub min_positions: usize,
    pub reload_every_steps: u64,
    pub metrics_every: u64,
    pub plot_every: u64,
    pub checkpoint_every: u64,
    pub threads: usize,
    pub progress: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 256,
            seed: 1,
            optimizer: OptimizerKind::Sgd,
            lr: 0.02,
            momentum: 0.9,
            weight_decay: 1e-4,
            grad_clip_norm: 0.0,
            warmup_steps: 100,
            lr_schedule: LrSchedule::Constant,
            lr_step_every: 10_000,
            lr_step_gamma: 0.1,
            cosine_steps: 100_000,
            lr_min_factor: 0.01,
            policy_weight: 1.0,
            value_weight: 1.0,
            moves_left_weight: 0.05,
            sako_weight: 0.1,
            reply_policy_weight: 0.15,
            value_q_mix: 0.0,
            value_horizon: 0,
            value_horizon_mix: 0.0,
            mirror_augment: false,
            export_average: 0.0,
            window_c: 250_000.0,
            window_alpha: 0.75,
            window_beta: 0.4,
            window_max: 2_000_000,
            min_positions: 1,
            reload_every_steps: 0,
            metrics_every: 1,
            plot_every: 200,
            checkpoint_every: 500,
            threads: 0,
            progress: true,
        }
    }
}

/// Most positions a window may hold (`window_max`): 50 million, some
/// 35 GB of rows in memory. A window is read whole, so the bound keeps a
/// configuration (or a chunk's row counts) from sizing an allocation the
/// machine cannot hold.
pub const MAX_WINDOW: usize = 50_000_000;

fn range(name: &str, v: f64, ok: bool, want: &str) -> ConfigResult<()> {
    if ok && v.is_finite() {
        Ok(())
    } else {
        Err(ConfigError(format!("train.{name} = {v} must be {want}")))
    }
}

impl TrainConfig {
    /// Parse from TOML text (a table with the keys above) and validate.
    pub fn from_toml(text: &str) -> ConfigResult<Self> {
        let c: TrainConfig = toml::from_str(text).map_err(|e| ConfigError(e.to_string()))?;
        c.validate()?;
        Ok(c)
    }

    /// Check every key's range; the message names the key.
    pub fn validate(&self) -> ConfigResult<()> {
        let u = |name: &str, v: u64, lo: u64, hi: u64| -> ConfigResult<()> {
            if v < lo || v > hi {
                Err(ConfigError(format!("train.{name} = {v} is out of range {lo}..={hi}")))
            } else {
                Ok(())
            }
        };
        u("batch_size", self.batch_size as u64, 1, 65536)?;
        range("lr", self.lr, self.lr > 0.0 && self.lr <= 10.0, "in (0, 10]")?;
        range("momentum", self.momentum, (0.0..1.0).contains(&self.momentum), "in [0, 1)")?;
        range("weight_decay", self.weight_decay, (0.0..1.0).contains(&self.weight_decay), "in [0, 1)")?;
        range("grad_clip_norm", self.grad_clip_norm, self.grad_clip_norm >= 0.0, ">= 0")?;
        u("lr_step_every", self.lr_step_every, 1, u64::MAX)?;
        range("lr_step_gamma", self.lr_step_gamma, self.lr_step_gamma > 0.0 && self.lr_step_gamma <= 1.0, "in (0, 1]")?;
        u("cosine_steps", self.cosine_steps, 1, u64::MAX)?;
        range("lr_min_factor", self.lr_min_factor, (0.0..=1.0).contains(&self.lr_min_factor), "in [0, 1]")?;
        for (n, v) in [
            ("policy_weight", self.policy_weight),
            ("value_weight", self.value_weight),
            ("moves_left_weight", self.moves_left_weight),
            ("sako_weight", self.sako_weight),
            ("reply_policy_weight", self.reply_policy_weight),
        ] {
            range(n, v, v >= 0.0, ">= 0")?;
        }
        range("value_q_mix", self.value_q_mix, (0.0..=1.0).contains(&self.value_q_mix), "in [0, 1]")?;
        range("value_horizon", self.value_horizon as f64, self.value_horizon <= 1000, "at most 1000")?;
        range("value_horizon_mix", self.value_horizon_mix, (0.0..=1.0).contains(&self.value_horizon_mix), "in [0, 1]")?;
        range("value_horizon_mix", self.value_horizon_mix, self.value_q_mix + self.value_horizon_mix <= 1.0 + 1e-9, "at most 1 - value_q_mix")?;
        range("value_horizon_mix", self.value_horizon_mix, self.value_horizon_mix == 0.0 || self.value_horizon > 0, "0 unless value_horizon > 0")?;
        range("export_average", self.export_average, (0.0..=0.99).contains(&self.export_average), "in [0, 0.99]")?;
        range("window_c", self.window_c, self.window_c >= 1.0, ">= 1")?;
        range("window_alpha", self.window_alpha, self.window_alpha > 0.0 && self.window_alpha <= 1.0, "in (0, 1]")?;
        range("window_beta", self.window_beta, (0.0..=10.0).contains(&self.window_beta), "in [0, 10]")?;
        u("window_max", self.window_max as u64, 1, MAX_WINDOW as u64)?;
        u("min_positions", self.min_positions as u64, 1, u64::MAX)?;
        u("metrics_every", self.metrics_every, 1, u64::MAX)?;
        u("threads", self.threads as u64, 0, 1024)?;
        Ok(())
    }

    /// Learning rate at `step` (0-based): linear warmup, then the schedule.
    pub fn lr_at(&self, step: u64) -> f64 {
        if step < self.warmup_steps {
            return self.lr * (step + 1) as f64 / self.warmup_steps as f64;
        }
        let s = step - self.warmup_steps;
        match self.lr_schedule {
            LrSchedule::Constant => self.lr,
            LrSchedule::Step => self.lr * self.lr_step_gamma.powi((s / self.lr_step_every).min(i32::MAX as u64) as i32),
            LrSchedule::Cosine => {
                let t = (s as f64 / self.cosine_steps as f64).min(1.0);
                let min = self.lr * self.lr_min_factor;
                min + (self.lr - min) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
        }
    }

    /// Window size for `total` positions seen (KataGo's formula, capped by
    /// `window_max` and by `total`).
    pub fn window_size(&self, total: u64) -> usize {
        let c = self.window_c;
        let a = self.window_alpha;
        let n = total as f64;
        let w = c * (1.0 + self.window_beta * ((n / c).powf(a) - 1.0) / a);
        let w = w.max(1.0).min(self.window_max as f64).min(n);
        w as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_toml_parses() {
        TrainConfig::default().validate().unwrap();
        let c = TrainConfig::from_toml("batch_size = 32\noptimizer = \"adamw\"\nlr_schedule = \"cosine\"").unwrap();
        assert_eq!(c.batch_size, 32);
        assert_eq!(c.optimizer, OptimizerKind::Adamw);
        let e = TrainConfig::from_toml("batch_size = 0").unwrap_err().to_string();
        assert!(e.contains("train.batch_size = 0"), "{e}");
        let e = TrainConfig::from_toml("bogus = 1").unwrap_err().to_string();
        assert!(e.contains("bogus"), "{e}");
        let e = TrainConfig::from_toml("lr = -1.0").unwrap_err().to_string();
        assert!(e.contains("train.lr"), "{e}");
        let c = TrainConfig::from_toml("value_q_mix = 0.25\nvalue_horizon = 6\nvalue_horizon_mix = 0.5").unwrap();
        assert_eq!((c.value_horizon, c.value_horizon_mix), (6, 0.5));
        let e = TrainConfig::from_toml("value_q_mix = 0.6\nvalue_horizon = 6\nvalue_horizon_mix = 0.5").unwrap_err().to_string();
        assert!(e.contains("train.value_horizon_mix = 0.5 must be at most 1 - value_q_mix"), "{e}");
        let e = TrainConfig::from_toml("value_horizon_mix = 0.5").unwrap_err().to_string();
        assert!(e.contains("0 unless value_horizon > 0"), "{e}");
    }

    #[test]
    fn the_window_has_an_upper_bound_named_with_its_key() {
        assert_eq!(TrainConfig::from_toml("window_max = 50000000").unwrap().window_max, MAX_WINDOW);
        let e = TrainConfig::from_toml("window_max = 50000001").unwrap_err().to_string();
        assert!(e.contains("train.window_max = 50000001 is out of range 1..=50000000"), "{e}");
        let e = TrainConfig::from_toml("window_max = 9223372036854775807").unwrap_err().to_string();
        assert!(e.contains("train.window_max"), "{e}");
    }

    #[test]
    fn schedule_and_window() {
        let c = TrainConfig { warmup_steps: 10, lr: 1.0, lr_schedule: LrSchedule::Step, lr_step_every: 5, lr_step_gamma: 0.5, ..Default::default() };
        assert!((c.lr_at(0) - 0.1).abs() < 1e-12);
        assert_eq!(c.lr_at(10), 1.0);
        assert_eq!(c.lr_at(15), 0.5);
        let c = TrainConfig { warmup_steps: 0, lr: 1.0, lr_schedule: LrSchedule::Cosine, cosine_steps: 100, lr_min_factor: 0.0, ..Default::default() };
        assert!((c.lr_at(50) - 0.5).abs() < 1e-9);
        assert!(c.lr_at(100) < 1e-12);
        let c = TrainConfig::default();
        assert_eq!(c.window_size(1000), 1000);
        assert_eq!(c.window_size(250_000), 250_000);
        let w = c.window_size(1_000_000);
        assert!(w > 400_000 && w < 600_000, "{w}");
        assert_eq!(c.window_size(100_000_000), 2_000_000);
    }
}
