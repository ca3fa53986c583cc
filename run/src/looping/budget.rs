//! The loop's time budget (`loop.max_minutes`) and the wall clock of
//! each stage.

use super::*;

/// The run's wall-time budget (`loop.max_minutes`), judged from the stage
/// times in `generations.jsonl`.
#[derive(Clone, Copy, Debug)]
pub(super) struct TimeBudget {
    pub(super) seconds: f64,
}

impl TimeBudget {
    pub(super) fn of(l: &LoopConfig) -> Option<TimeBudget> {
        (l.max_minutes > 0.0).then_some(TimeBudget { seconds: l.max_minutes * 60.0 })
    }

    /// Seconds the run has spent: every recorded stage time.
    pub(super) fn spent(&self, run: &Path) -> Result<f64> {
        Ok(spent_seconds(&read_generations(run)?))
    }

    /// After generation `g`'s training: would another generation like this
    /// one (self-play plus training) cross the budget?
    pub(super) fn ends_with(&self, run: &Path, g: u32) -> Result<bool> {
        let generations = read_generations(run)?;
        let this = generations.get(&g);
        let figure = |k: &str| this.and_then(|f| f.get(k)).copied().unwrap_or(0.0);
        let next = figure("time.selfplay_seconds") + figure("time.train_seconds") + figure("time.overlap_seconds");
        Ok(budget_ends(spent_seconds(&generations), next, self.seconds))
    }
}

/// The factor of `[train] lr` (`loop.lr_drop_at`) for a generation whose
/// training starts when the run has spent the share `spent` of its time
/// budget: `lr_drop_factor` from `lr_drop_at` on, else 1.
pub(super) fn lr_factor_after(l: &LoopConfig, spent: f64) -> f64 {
    if l.lr_drop_at > 0.0 && spent >= l.lr_drop_at {
        l.lr_drop_factor
    } else {
        1.0
    }
}

/// Every stage time recorded in `generations`, in seconds.
pub(super) fn spent_seconds(generations: &crate::files::Generations) -> f64 {
    generations.values().flat_map(|figures| figures.iter()).filter(|(k, _)| k.starts_with("time.")).map(|(_, v)| v).sum()
}

/// Whether a run that has spent `spent` seconds cannot fit another
/// generation of `next` seconds in a budget of `budget` seconds.
pub(super) fn budget_ends(spent: f64, next: f64, budget: f64) -> bool {
    spent + next > budget
}

/// Wall time of a generation by stage, written to `generations.jsonl` as
/// stage `time`: `selfplay_seconds`, `train_seconds`, `eval_seconds` as each
/// stage ends, and `other_seconds` (the rest of the generation in this
/// process: state files, ratings, the report) when it ends. A generation
/// resumed after a crash keeps the times of the stages that finished before;
/// the bookkeeping of the crashed process is not counted.
pub(super) struct StageClock {
    pub(super) generation: Instant,
    pub(super) lap: Instant,
    pub(super) staged: f64,
}

impl StageClock {
    pub(super) fn start() -> StageClock {
        StageClock { generation: Instant::now(), lap: Instant::now(), staged: 0.0 }
    }

    pub(super) fn lap(&mut self, run: &Path, g: u32, stage: &str) -> Result<()> {
        let secs = self.lap.elapsed().as_secs_f64();
        self.staged += secs;
        append_stage(run, g, "time", &[(&format!("{stage}_seconds"), secs)])?;
        self.lap = Instant::now();
        Ok(())
    }

    pub(super) fn finish(&self, run: &Path, g: u32) -> Result<()> {
        let other = (self.generation.elapsed().as_secs_f64() - self.staged).max(0.0);
        append_stage(run, g, "time", &[("other_seconds", other)])
    }
}
