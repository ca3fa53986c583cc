//! The metrics file `metrics.csv`: one row per training step
//! ([`StepMetrics`]), its header ([`METRICS_HEADER`], the columns
//! `docs/DATA.md` documents), appending a row and trimming the rows a resumed
//! run redoes. Kept apart from the trainer so the file's format is defined in
//! one place.

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{io_err, TrainResult};

/// Figures of one training step (also a row of `metrics.csv`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepMetrics {
    pub step: u64,
    pub samples_seen: u64,
    pub lr: f64,
    pub loss: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub moves_left_loss: f64,
    /// The auxiliary targets' loss: the mean binary cross-entropy over the
    /// game's `Encode::AUX_TARGETS` (named for Paco Ŝako's, as in earlier
    /// runs' `metrics.csv`).
    pub sako_loss: f64,
    /// Fraction of full-search rows whose top (masked) logit is the top target move.
    pub policy_top1: f64,
    /// Mean predicted win probability vs fraction of rows won.
    pub pred_win: f64,
    pub actual_win: f64,
    /// Mean predicted draw probability vs fraction drawn.
    pub pred_draw: f64,
    pub actual_draw: f64,
    /// Mean predicted score P(win) − P(loss) vs mean result.
    pub pred_score: f64,
    pub actual_score: f64,
    pub samples_per_sec: f64,
    pub window_rows: usize,
    /// Cross-entropy of the reply head (`NaN` without one, or without reply
    /// targets in the batch).
    pub reply_policy_loss: f64,
}

pub(crate) const METRICS_HEADER: &str = "step,samples_seen,lr,loss,policy_loss,value_loss,moves_left_loss,sako_loss,policy_top1,pred_win,actual_win,pred_draw,actual_draw,pred_score,actual_score,samples_per_sec,window_rows,reply_policy_loss";

impl StepMetrics {
    fn csv_row(&self) -> String {
        format!(
            "{},{},{:.6e},{:.6},{:.6},{:.6},{:.6},{:.6},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.1},{},{:.6}",
            self.step,
            self.samples_seen,
            self.lr,
            self.loss,
            self.policy_loss,
            self.value_loss,
            self.moves_left_loss,
            self.sako_loss,
            self.policy_top1,
            self.pred_win,
            self.actual_win,
            self.pred_draw,
            self.actual_draw,
            self.pred_score,
            self.actual_score,
            self.samples_per_sec,
            self.window_rows,
            self.reply_policy_loss
        )
    }
}

/// Appends `m` to the metrics file at `path`, with the header first when the file is new.
impl StepMetrics {
    /// The step's TensorBoard scalars (`trainer/<column>`, apart from the loop's
    /// per-generation `train/<figure>`), as in `metrics.csv`.
    pub(crate) fn scalars(&self) -> [(&'static str, f64); 10] {
        [
            ("trainer/loss", self.loss),
            ("trainer/policy_loss", self.policy_loss),
            ("trainer/value_loss", self.value_loss),
            ("trainer/moves_left_loss", self.moves_left_loss),
            ("trainer/sako_loss", self.sako_loss),
            ("trainer/reply_policy_loss", self.reply_policy_loss),
            ("trainer/policy_top1", self.policy_top1),
            ("trainer/lr", self.lr),
            ("trainer/samples_per_sec", self.samples_per_sec),
            ("trainer/window_rows", self.window_rows as f64),
        ]
    }
}

pub(crate) fn append_metrics(path: &Path, m: &StepMetrics) -> TrainResult<()> {
    let header = if path.exists() { String::new() } else { format!("{METRICS_HEADER}\n") };
    // Whole or not at all: a full disk leaves no half row.
    pacozero_data::durable::append_whole(path, format!("{header}{}\n", m.csv_row()).as_bytes(), false).map_err(io_err(path))
}

/// Drops the rows of `metrics.csv` past checkpoint step `step` (steps a
/// killed run did after its last checkpoint, which the resumed run redoes)
/// and a cut last line, so the file holds each step at most once, in order.
/// A file of an earlier build, whose header lacks columns added since at
/// the end, gets the current header and `NaN` in those columns.
pub(crate) fn trim_metrics(path: &Path, step: u64) -> TrainResult<()> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(path)(e)),
    };
    let columns = METRICS_HEADER.split(',').count();
    let mut keep = String::with_capacity(text.len());
    let mut missing = 0;
    for line in text.split_inclusive('\n') {
        let whole = line.ends_with('\n');
        let first = line.split(',').next().unwrap_or("");
        if whole && line.starts_with("step,") {
            let header = line.trim_end();
            if header != METRICS_HEADER && METRICS_HEADER.starts_with(&format!("{header},")) {
                missing = columns - header.split(',').count();
            }
            keep.push_str(if missing > 0 { METRICS_HEADER } else { header });
            keep.push('\n');
        } else if whole && first.parse::<u64>().is_ok_and(|s| s <= step) {
            keep.push_str(line.trim_end());
            keep.push_str(&",NaN".repeat(missing));
            keep.push('\n');
        }
    }
    if keep != text {
        pacozero_data::write_atomic(path, &[keep.as_bytes()])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/DATA.md lists the columns `metrics.csv` has, in order.
    #[test]
    fn the_documented_metrics_columns_are_the_written_ones() {
        let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
        let doc = fs::read_to_string(format!("{root}/../docs/DATA.md")).unwrap();
        let start = doc.find("`metrics.csv` columns: `").expect("docs/DATA.md lists the metrics columns") + "`metrics.csv` columns: `".len();
        let listed: String = doc[start..].split('`').next().unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(listed.replace(", ", ","), METRICS_HEADER);
    }

    #[test]
    fn an_earlier_builds_metrics_get_the_new_columns_as_nan() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.csv");
        let old_header = METRICS_HEADER.rsplit_once(',').unwrap().0;
        let row = |step: u64| format!("{step},{},0.001,2.5,1.5,0.9,0.05,0.6,0.4,0.5,0.5,0.1,0.1,0.0,0.0,1200.0,4096", step * 128);
        fs::write(&path, format!("{old_header}\n{}\n{}\n{}\n", row(1), row(2), row(3))).unwrap();
        trim_metrics(&path, 2).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines, vec![METRICS_HEADER.to_string(), format!("{},NaN", row(1)), format!("{},NaN", row(2))]);
        // Current files are only trimmed.
        fs::write(&path, format!("{METRICS_HEADER}\n{},0.5\n{},0.4\n", row(1), row(2))).unwrap();
        trim_metrics(&path, 5).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), format!("{METRICS_HEADER}\n{},0.5\n{},0.4\n", row(1), row(2)));
    }

    #[test]
    fn trimming_keeps_whole_rows_up_to_the_step_and_leaves_a_missing_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.csv");
        trim_metrics(&path, 3).unwrap();
        assert!(!path.exists(), "nothing to trim, nothing written");
        let rows: Vec<String> = (1..=4).map(|s| StepMetrics { step: s, ..StepMetrics::default() }.csv_row()).collect();
        // Steps 1-4 and a cut fifth line: steps up to 3 stay, the exact step included.
        fs::write(&path, format!("{METRICS_HEADER}\n{}\n{}\n{}\n{}\n5,64", rows[0], rows[1], rows[2], rows[3])).unwrap();
        trim_metrics(&path, 3).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), format!("{METRICS_HEADER}\n{}\n{}\n{}\n", rows[0], rows[1], rows[2]));
        // A directory in its place is an error naming it.
        let e = trim_metrics(dir.path(), 3).unwrap_err().to_string();
        assert!(e.contains(&dir.path().display().to_string()), "{e}");
    }

    /// A file of an earlier build, two columns short: the current header,
    /// and `NaN` in the two columns of each kept row. A header that is no
    /// start of the current one is kept as it is, its rows unpadded.
    #[test]
    fn an_earlier_builds_file_gets_the_current_header_and_nan_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.csv");
        let columns: Vec<&str> = METRICS_HEADER.split(',').collect();
        let old_header = columns[..columns.len() - 2].join(",");
        let old_row = |s: u64| format!("{s}{}", ",1".repeat(columns.len() - 3));
        fs::write(&path, format!("{old_header}\n{}\n{}\n{}\n", old_row(1), old_row(2), old_row(3))).unwrap();
        trim_metrics(&path, 2).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), format!("{METRICS_HEADER}\n{},NaN,NaN\n{},NaN,NaN\n", old_row(1), old_row(2)));
        // Trimmed again: nothing changes (the header is current now).
        trim_metrics(&path, 2).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), format!("{METRICS_HEADER}\n{},NaN,NaN\n{},NaN,NaN\n", old_row(1), old_row(2)));
        let other = "step,something_else";
        fs::write(&path, format!("{other}\n1,2\n")).unwrap();
        trim_metrics(&path, 5).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), format!("{other}\n1,2\n"));
    }

    #[test]
    fn the_tensorboard_scalars_are_the_steps_figures() {
        let m = StepMetrics {
            loss: 2.5,
            policy_loss: 1.5,
            value_loss: 0.9,
            moves_left_loss: 0.05,
            sako_loss: 0.6,
            reply_policy_loss: 0.3,
            policy_top1: 0.4,
            lr: 0.001,
            samples_per_sec: 1200.0,
            window_rows: 4096,
            ..StepMetrics::default()
        };
        let (names, values): (Vec<&str>, Vec<f64>) = m.scalars().into_iter().unzip();
        assert_eq!(
            names,
            [
                "trainer/loss",
                "trainer/policy_loss",
                "trainer/value_loss",
                "trainer/moves_left_loss",
                "trainer/sako_loss",
                "trainer/reply_policy_loss",
                "trainer/policy_top1",
                "trainer/lr",
                "trainer/samples_per_sec",
                "trainer/window_rows"
            ]
        );
        assert_eq!(values, [2.5, 1.5, 0.9, 0.05, 0.6, 0.3, 0.4, 0.001, 1200.0, 4096.0]);
    }
}
