//! The report's charts: one SVG per measure by generation or step.

use super::*;

/// Exponential moving average with a span of about 2% of the points.
pub(super) fn smooth(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let alpha = 2.0 / ((points.len() as f64 * 0.02).max(1.0) + 1.0);
    let mut m = f64::NAN;
    points
        .iter()
        .map(|&(x, y)| {
            m = if m.is_nan() { y } else { m + alpha * (y - m) };
            (x, m)
        })
        .collect()
}

/// The charts of a run, by file name.
pub(super) fn charts(run: &Path, gens: &Generations, matches: &[MatchLine], ratings: &[RatingRow]) -> Result<Vec<(&'static str, Chart)>> {
    let mut out = Vec::new();

    let mut elo = Chart::new("Elo by generation (vs gen-0001, 95% intervals)", "generation", "Elo");
    // The list is best first; the line joins the generations in their order.
    let mut by_generation: Vec<(u32, &RatingRow)> = ratings.iter().filter_map(|r| Some((generation_of(&r.player)?, r))).collect();
    by_generation.sort_by_key(|(g, _)| *g);
    let pts = by_generation.iter().map(|(g, r)| (*g as f64, r.elo)).collect();
    let errs = by_generation.iter().map(|(_, r)| r.ci95).collect();
    elo.series.push(Series { name: "network".into(), color: "#1f5fd1", points: pts, errors: Some(errs), markers: true });
    for r in ratings.iter().filter(|r| generation_of(&r.player).is_none()) {
        elo.guides.push((r.elo, r.player.clone()));
    }
    elo.y_include.push(0.0);
    out.push(("elo.svg", elo));

    let mut base = Chart::new("Score against the rollout-MCTS baseline", "generation", "score");
    let pts: Vec<(f64, f64)> = matches.iter().filter(|m| is_baseline(m)).map(|m| (m.generation as f64, score(m))).collect();
    base.series.push(Series::markers("candidate's score", "#d12f1f", pts));
    base.guides.push((0.5, "even".into()));
    base.guides.push((0.75, "target 75%".into()));
    base.y_include.extend([0.0, 1.0]);
    out.push(("baseline.svg", base));

    // A figure of `generations.jsonl` by generation (`stage.key`), where recorded.
    let by_gen = |key: &str| -> Vec<(f64, f64)> { gens.iter().filter_map(|(g, v)| Some((*g as f64, *v.get(key)?))).collect() };
    let mut draws = Chart::new("Draw rate by generation", "generation", "draw rate");
    draws.series.push(Series::markers("self-play", "#1f5fd1", by_gen("selfplay.draw_rate")));
    draws.series.push(Series::markers(
        "vs baseline",
        "#d12f1f",
        matches.iter().filter(|m| is_baseline(m)).map(|m| (m.generation as f64, draw_rate(m))).collect(),
    ));
    draws.series.push(Series::markers("gating", "#2a9d3a", matches.iter().filter(|m| !is_baseline(m)).map(|m| (m.generation as f64, draw_rate(m))).collect()));
    draws.y_include.extend([0.0, 1.0]);
    out.push(("draw_rate.svg", draws));

    let mut len = Chart::new("Game length by generation", "generation", "decisions per game");
    len.series.push(Series::markers("self-play", "#1f5fd1", by_gen("selfplay.avg_length")));
    len.series.push(Series::markers(
        "vs baseline",
        "#d12f1f",
        matches.iter().filter(|m| is_baseline(m)).map(|m| (m.generation as f64, m.avg_decisions)).collect(),
    ));
    len.series.push(Series::markers("gating", "#2a9d3a", matches.iter().filter(|m| !is_baseline(m)).map(|m| (m.generation as f64, m.avg_decisions)).collect()));
    len.y_include.push(0.0);
    out.push(("length.svg", len));

    // How games end: the game's own reasons (by the rules) by name, then
    // the ways self-play ends a game itself.
    let mut ends = Chart::new("How self-play games end, by generation", "generation", "share of games");
    let mut reasons: Vec<&str> = gens.values().flat_map(|v| v.keys()).filter_map(|k| k.strip_prefix("ends.")).collect::<BTreeSet<_>>().into_iter().collect();
    const SELFPLAY_ENDS: [&str; 4] = ["resign", "max_length", "material", "stuck"];
    reasons.sort_by_key(|r| (SELFPLAY_ENDS.iter().position(|k| k == r), *r));
    const COLORS: [&str; 10] = ["#1f5fd1", "#2a9d3a", "#e0a800", "#b02ab0", "#17a2b8", "#8c564b", "#d12f1f", "#999999", "#ff7f0e", "#000000"];
    for (i, reason) in reasons.iter().enumerate() {
        ends.stacked.push(Series::markers(reason, COLORS[i % COLORS.len()], by_gen(&format!("ends.{reason}"))));
    }
    out.push(("ends.svg", ends));

    let mut resign = Chart::new("False resignations (no-resign games), by generation", "generation", "false resignation rate");
    resign.series.push(Series::markers("false resignations", "#d12f1f", by_gen("selfplay.false_resignation_rate")));
    resign.guides.push((0.05, "5%".into()));
    resign.y_include.extend([0.0, 1.0]);
    out.push(("resignation.svg", resign));

    let mut time = Chart::new("Wall time by generation and stage", "generation", "minutes");
    for (stage, name, color) in [
        ("selfplay", "self-play", "#1f5fd1"),
        ("train", "training", "#2a9d3a"),
        ("overlap", "self-play ‖ training", "#17a2b8"),
        ("eval", "evaluation", "#d12f1f"),
        ("other", "other", "#999999"),
    ] {
        let key = format!("time.{stage}_seconds");
        time.stacked.push(Series::markers(name, color, gens.iter().filter_map(|(g, v)| Some((*g as f64, v.get(&key)? / 60.0))).collect()));
    }
    out.push(("time.svg", time));

    // Generalisation of the value head: on games it has never trained on, a
    // head above the constant prediction of the results' shares (their
    // entropy) is overconfident, whatever its training loss.
    let mut fresh = Chart::new("Value on new games (before training on them)", "generation", "nats / share");
    fresh.series.push(Series::markers("value loss", "#d12f1f", by_gen("fresh.value_loss")));
    fresh.series.push(Series::markers("constant base rate", "#999999", by_gen("fresh.base_rate_loss")));
    fresh.series.push(Series::markers("draw share", "#1f5fd1", by_gen("fresh.draw_share")));
    fresh.series.push(Series::markers("predicted draws", "#2a9d3a", by_gen("fresh.pred_draw")));
    fresh.y_include.push(0.0);
    out.push(("fresh_value.svg", fresh));

    let losses = read_losses(run)?;
    let mut lc = Chart::new("Training losses (smoothed)", "step", "loss");
    // The moves-left loss (a regression in decisions) starts an order of
    // magnitude higher and would flatten the others; it is in metrics.csv.
    for (name, color) in [("loss", "#000000"), ("policy_loss", "#1f5fd1"), ("value_loss", "#d12f1f"), ("sako_loss", "#b02ab0")] {
        if let Some(p) = losses.get(name) {
            lc.series.push(Series::line(name, color, smooth(p)));
        }
    }
    out.push(("losses.svg", lc));
    if let Some(c) = solved_chart(run)? {
        out.push(("solved.svg", c));
    }
    Ok(out)
}

/// Colours of the curves against perfect play, by visit budget (smallest
/// first): the run's, and the peer's in lighter shades.
pub(super) const SOLVED_COLORS: [(&str, &str); 4] = [("#1f5fd1", "#8fb0ea"), ("#2a9d3a", "#96d4a0"), ("#d12f1f", "#eb9a92"), ("#b02ab0", "#d999d9")];

/// The optimal-move share against wall time, the run's and the peer's
/// (`solved.jsonl`, `solved-peer.jsonl`), or `None` when neither exists.
pub(super) fn solved_chart(run: &Path) -> Result<Option<Chart>> {
    let (own, peer) = solved_curve::read_curves(run)?;
    if own.is_empty() && peer.is_empty() {
        return Ok(None);
    }
    let mut c = Chart::new("Optimal moves against perfect play, by wall time", "minutes", "optimal moves (%)");
    let visits: BTreeSet<u32> = own.iter().chain(&peer).flat_map(|p| p.optimal.keys().copied()).collect();
    for (i, v) in visits.iter().enumerate() {
        let (color, light) = SOLVED_COLORS[i % SOLVED_COLORS.len()];
        let how = if *v == 0 { "policy".to_string() } else { format!("{v} visits") };
        let points = |curve: &[solved_curve::CurvePoint]| curve.iter().filter_map(|p| Some((p.seconds / 60.0, *p.optimal.get(v)?))).collect::<Vec<_>>();
        if !own.is_empty() {
            c.series.push(Series::markers(&format!("PacoZero, {how}"), color, points(&own)));
        }
        if let Some(name) = peer.first().and_then(|p| p.implementation.as_deref()) {
            c.series.push(Series::markers(&format!("{name}, {how}"), light, points(&peer)));
        }
    }
    c.y_include.extend([0.0, 100.0]);
    Ok(Some(c))
}
