//! PNG plots of `metrics.csv` (plotters bitmap backend, no fonts needed).
//!
//! The images carry no text (the build has no font backend); each curve has a
//! fixed colour, listed in [`PLOTS`]. Light grey lines mark 5 equal divisions
//! of each axis. Noisy per-step values are smoothed with an exponential moving
//! average whose span is ~2% of the run.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::error::{io_err, TrainError, TrainResult};

/// (file name, [(csv column, colour name)]) of every plot written.
pub const PLOTS: &[(&str, &[(&str, &str)])] = &[
    ("losses.png", &[("loss", "black"), ("policy_loss", "blue"), ("value_loss", "red"), ("moves_left_loss", "green"), ("sako_loss", "magenta")]),
    ("accuracy.png", &[("policy_top1", "blue")]),
    ("calibration.png", &[("pred_win", "red"), ("actual_win", "orange"), ("pred_score", "blue"), ("actual_score", "cyan")]),
    ("lr.png", &[("lr", "black")]),
    ("speed.png", &[("samples_per_sec", "black")]),
];

fn colour(name: &str) -> RGBColor {
    match name {
        "blue" => RGBColor(30, 90, 220),
        "red" => RGBColor(220, 40, 40),
        "green" => RGBColor(30, 160, 60),
        "magenta" => RGBColor(200, 40, 200),
        "orange" => RGBColor(250, 150, 30),
        "cyan" => RGBColor(40, 190, 210),
        _ => RGBColor(0, 0, 0),
    }
}

/// The step column and every other column of a metrics file, by name.
type Columns = (Vec<f64>, HashMap<String, Vec<f64>>);

fn read_csv(path: &Path) -> TrainResult<Columns> {
    let text = fs::read_to_string(path).map_err(io_err(path))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let mut cols: HashMap<String, Vec<f64>> = header.iter().map(|h| (h.to_string(), Vec::new())).collect();
    for line in lines {
        let vals: Vec<&str> = line.split(',').collect();
        if vals.len() != header.len() {
            continue; // a partially written last line
        }
        for (h, v) in header.iter().zip(vals) {
            cols.get_mut(*h).unwrap().push(v.parse().unwrap_or(f64::NAN));
        }
    }
    let steps = cols.get("step").cloned().unwrap_or_default();
    Ok((steps, cols))
}

fn ema(v: &[f64]) -> Vec<f64> {
    let span = (v.len() as f64 * 0.02).max(1.0);
    let a = 2.0 / (span + 1.0);
    let mut out = Vec::with_capacity(v.len());
    let mut s = f64::NAN;
    for &x in v {
        if x.is_finite() {
            s = if s.is_finite() { a * x + (1.0 - a) * s } else { x };
        }
        out.push(s);
    }
    out
}

/// Draw every plot of [`PLOTS`] from `csv` into `out_dir`; returns the files written.
pub fn write_plots(csv: &Path, out_dir: &Path) -> TrainResult<Vec<PathBuf>> {
    let (steps, cols) = read_csv(csv)?;
    fs::create_dir_all(out_dir).map_err(io_err(out_dir))?;
    let mut written = Vec::new();
    if steps.len() < 2 {
        return Ok(written);
    }
    for (file, series) in PLOTS {
        let path = out_dir.join(file);
        let data: Vec<(Vec<f64>, RGBColor)> = series.iter().filter_map(|(c, col)| cols.get(*c).map(|v| (ema(v), colour(col)))).collect();
        draw(&path, &steps, &data).map_err(|e| TrainError::Other(format!("{}: cannot draw plot: {e}", path.display())))?;
        written.push(path);
    }
    Ok(written)
}

fn draw(path: &Path, steps: &[f64], data: &[(Vec<f64>, RGBColor)]) -> Result<(), Box<dyn std::error::Error>> {
    let x0 = steps[0];
    let x1 = steps[steps.len() - 1].max(x0 + 1.0);
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for (v, _) in data {
        for &y in v.iter().filter(|y| y.is_finite()) {
            lo = lo.min(y);
            hi = hi.max(y);
        }
    }
    if !lo.is_finite() {
        lo = 0.0;
        hi = 1.0;
    }
    if hi - lo < 1e-9 {
        hi = lo + 1.0;
    }
    let pad = (hi - lo) * 0.05;
    let (lo, hi) = (lo - pad, hi + pad);
    {
        let root = BitMapBackend::new(path, (800, 480)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root).margin(12).build_cartesian_2d(x0..x1, lo..hi)?;
        let grey = RGBColor(225, 225, 225);
        for i in 0..=5 {
            let y = lo + (hi - lo) * i as f64 / 5.0;
            chart.draw_series(LineSeries::new([(x0, y), (x1, y)], grey))?;
            let x = x0 + (x1 - x0) * i as f64 / 5.0;
            chart.draw_series(LineSeries::new([(x, lo), (x, hi)], grey))?;
        }
        for (v, c) in data {
            let pts: Vec<(f64, f64)> = steps.iter().zip(v).filter(|(_, y)| y.is_finite()).map(|(&x, &y)| (x, y)).collect();
            chart.draw_series(LineSeries::new(pts, (*c).stroke_width(2)))?;
        }
        root.present()?;
    }
    Ok(())
}
