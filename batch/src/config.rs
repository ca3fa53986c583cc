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
/// Each key's meaning, with its range, is on its field; the book's
/// configuration-key reference (`docs/config-keys.md`) is generated from them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Positions per step (1..=65536).
    pub batch_size: usize,
    /// Seed of the shuffling (and of the weight initialisation of a new run).
    pub seed: u64,
    /// Optimizer: `"sgd"` or `"adamw"`.
    pub optimizer: OptimizerKind,
    /// Peak learning rate (> 0, <= 10).
    pub lr: f64,
    /// SGD momentum, ignored by AdamW (0 <= m < 1).
    pub momentum: f64,
    /// SGD: L2 penalty added to the gradients; AdamW: decoupled weight decay (0 <= d < 1).
    pub weight_decay: f64,
    /// Clip the gradient norm of each parameter tensor to this (>= 0; 0 = off).
    pub grad_clip_norm: f64,
    /// Steps of linear warmup from 0 to `lr`.
    pub warmup_steps: u64,
    /// Schedule after warmup: `"constant"`, `"step"` or `"cosine"`.
    pub lr_schedule: LrSchedule,
    /// `lr_schedule = "step"`: steps between decays (>= 1).
    pub lr_step_every: u64,
    /// `lr_schedule = "step"`: decay factor (> 0, <= 1).
    pub lr_step_gamma: f64,
    /// `lr_schedule = "cosine"`: length of the cosine in steps after warmup (>= 1).
    pub cosine_steps: u64,
    /// `lr_schedule = "cosine"`: final learning rate as a fraction of `lr` (0..=1).
    pub lr_min_factor: f64,
    /// Weight of the policy cross-entropy, on full-search rows only (>= 0).
    pub policy_weight: f64,
    /// Weight of the WDL (value) cross-entropy (>= 0).
    pub value_weight: f64,
    /// Weight of the moves-left MSE on `ln(1 + moves_left)` (>= 0).
    pub moves_left_weight: f64,
    /// Weight of the auxiliary targets' BCE: the game's `Encode::AUX_TARGETS`,
    /// whatever they are (>= 0). The name is from Paco Ŝako's; it is kept so
    /// that configurations and `metrics.csv`'s `sako_loss` still read.
    pub sako_weight: f64,
    /// Weight of the reply head's cross-entropy, for networks with
    /// `net.reply_policy` (>= 0).
    pub reply_policy_weight: f64,
    /// Share m of the search's root WDL in the value target (0..=1): the
    /// target is (1 − m − h)·result + m·root WDL + h·(the root WDL
    /// `value_horizon` decisions later), h being `value_horizon_mix`.
    pub value_q_mix: f64,
    /// Decisions ahead of the short-horizon value target (0..=1000; see
    /// `value_horizon_mix` and `targets.rs`).
    pub value_horizon: u32,
    /// Share h of the short-horizon value target (0..=1, at most 1 −
    /// `value_q_mix`); needs `value_horizon` > 0.
    pub value_horizon_mix: f64,
    /// Paco Ŝako: each sampled position without a castling right is
    /// mirrored a ↔ h (planes and policy) with probability 1/2.
    pub mirror_augment: bool,
    /// Exported weights = this × the previous export's + (1 − this) × the
    /// trained ones, folded at the end of each training call (parameters and
    /// batch-norm statistics; 0..=0.99; 0 = the trained weights).
    pub export_average: f64,
    /// c of KataGo's window formula `c·(1 + β((N/c)^α − 1)/α)` for N
    /// positions seen (>= 1).
    pub window_c: f64,
    /// α of the window formula (> 0, <= 1).
    pub window_alpha: f64,
    /// β of the window formula (0..=10).
    pub window_beta: f64,
    /// Upper bound of the window, which N caps too (1..=50000000, [`MAX_WINDOW`]).
    pub window_max: usize,
    /// Refuse to train with fewer positions on disk (>= 1).
    pub min_positions: usize,
    /// Re-read the window after this many steps (0 = after each full pass).
    pub reload_every_steps: u64,
    /// Append a row to `metrics.csv` every this many steps (>= 1).
    pub metrics_every: u64,
    /// Read and ignored: the trainer draws no PNG plots any more. Its curves
    /// are in TensorBoard (`tensorboard/train/`) and the run report's SVG
    /// plots. Kept so that earlier runs' configurations still read.
    pub plot_every: u64,
    /// Write a checkpoint every this many steps (0 = only at the end of a
    /// training call).
    pub checkpoint_every: u64,
    /// CPU threads for training (0..=1024; 0 = rayon's global pool).
    pub threads: usize,
    /// Show a progress bar.
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
