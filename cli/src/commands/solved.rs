//! `pacozero solved`: a network judged against perfect play on a suite of
//! solved positions (`pacozero_arena::solved`), or a run's networks along
//! its wall time (`pacozero_run::solved_curve`).

use crate::args::SolvedArgs;
use anyhow::{Context, Result};
use pacozero_run::solved_curve::{import_peer, judge_curve, judge_model, to_peer_final, Judged};
use std::path::Path;

pub fn run(a: SolvedArgs) -> Result<()> {
    let suite_text = match &a.suite {
        Some(p) => Some(std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?),
        None => None,
    };
    let suite_name = a.suite.as_ref().map(|p| p.display().to_string());
    let suite = suite_text.as_deref().zip(suite_name.as_deref());
    if let Some(run) = &a.run {
        return curve(run, &a, suite);
    }
    let model = a.model.as_ref().expect("clap requires --model without --run");
    let judged = judge_model(model, suite, &a.visits)?;
    print_judged(&judged);
    if let Some(path) = &a.json {
        pacozero_data::write_atomic(path, &[format!("{}\n", serde_json::to_string_pretty(&figures(&judged))?).as_bytes()])?;
    }
    Ok(())
}

/// The learning curve of a run, and the peer's beside it.
fn curve(run: &Path, a: &SolvedArgs, suite: Option<(&str, &str)>) -> Result<()> {
    let peer = match &a.peer {
        Some(file) => {
            let points = import_peer(run, file)?;
            println!("the peer's curve: {} points from {} ({})", points.len(), file.display(), points[0].implementation.as_deref().unwrap_or("?"));
            points
        }
        None => pacozero_run::solved_curve::read_curves(run)?.1,
    };
    let curve = judge_curve(run, a.every_minutes * 60.0, &a.visits, suite, |p, i, n| {
        let shares: Vec<String> = p.optimal.iter().map(|(v, s)| format!("{v}: {s:.1}%")).collect();
        println!("[{i}/{n}] {} at {:.1} min: optimal {}; value {:.1}%", p.network, p.seconds / 60.0, shares.join(", "), p.value);
    })?;
    println!("{}: {} networks on the curve ({})", run.display(), curve.len(), pacozero_data::RunDir::new(run).solved_curve().display());
    if let Some(t) = to_peer_final(&curve, &peer) {
        let minutes = |t: Option<f64>| t.map_or("never".to_string(), |s| format!("{:.1} min", s / 60.0));
        let ratio = match (t.own_seconds, t.peer_seconds) {
            (Some(o), Some(p)) if o > 0.0 => format!("; the peer needs {:.1}x the time", p / o),
            _ => String::new(),
        };
        println!(
            "the peer's final share at {} visits, {:.1}%: this run reaches it at {}, the peer at {}{ratio}",
            t.visits,
            t.share,
            minutes(t.own_seconds),
            minutes(t.peer_seconds)
        );
    }
    Ok(())
}

fn print_judged(j: &Judged) {
    let positions = j.value.total;
    println!("{} on {positions} solved positions of {}:", j.network, j.suite);
    for l in &j.lines {
        let how = if l.sims == 0 { "policy alone".to_string() } else { format!("{} visits", l.sims) };
        let phases: Vec<String> = l.by_phase.iter().map(|(p, [n, o, _])| format!("{p} {o}/{n}")).collect();
        println!(
            "  {how:>12}: optimal {}/{} ({:.1}%), value kept {}/{} ({:.1}%); optimal by phase: {}",
            l.optimal,
            l.total,
            l.optimal_rate(),
            l.correct,
            l.total,
            l.correct_rate(),
            phases.join(", ")
        );
    }
    println!(
        "  value: the most likely result is the exact one at {}/{} ({:.1}%); mean probability of the exact result {:.3}",
        j.value.right,
        j.value.total,
        j.value.rate(),
        j.value.mean_probability
    );
}

fn figures(j: &Judged) -> serde_json::Value {
    let lines: Vec<serde_json::Value> = j
        .lines
        .iter()
        .map(|l| {
            serde_json::json!({
                "visits": l.sims, "positions": l.total, "optimal": l.optimal, "correct": l.correct,
                "optimal_rate": l.optimal_rate(), "correct_rate": l.correct_rate(),
                "by_phase": l.by_phase.iter().map(|(p, [n, o, c])| (p.clone(), serde_json::json!({"positions": n, "optimal": o, "correct": c}))).collect::<serde_json::Map<_, _>>(),
            })
        })
        .collect();
    serde_json::json!({
        "network": j.network, "suite": j.suite, "lines": lines,
        "value": {"positions": j.value.total, "right": j.value.right, "rate": j.value.rate(), "mean_probability": j.value.mean_probability},
    })
}
