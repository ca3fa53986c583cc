//! A ladder: players against one external engine at a rising node budget
//! (Fairy-Stockfish at 1, 10, 100, … nodes for Shako), and the budget at
//! which each player scores 50%.
//!
//! The fit is a logistic regression of each game's score on the log of the
//! engine's nodes: the player's expected score against the engine at `n`
//! nodes is `σ(a + b·log10 n)`, with `a` and `b` at their maximum likelihood
//! over every game of the ladder (a draw scores a half; a tiny ridge,
//! [`RIDGE`], keeps the estimate finite when the results separate
//! perfectly). The 50% budget is `n50 = 10^(−a/b)`, its 95% interval
//! `10^(x50 ± 1.96·se)` with the standard error of `x50 = −a/b` by the delta
//! method from the inverse of the (penalised) information matrix. When no
//! rung is scored at 50% or less (or at 50% or more), the budget lies beyond
//! the ladder and only that is said.

/// The ridge penalty on `a` and `b` (in log-likelihood units per unit²).
pub const RIDGE: f64 = 1e-3;

/// One rung's results for a player: the engine's nodes and the player's W/D/L.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rung {
    pub nodes: u64,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Rung {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The player's score (0..=1); 0.5 for no game.
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => (self.wins as f64 + 0.5 * self.draws as f64) / n as f64,
        }
    }
}

/// Where the player scores 50%.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fifty {
    /// The fitted budget and its 95% interval, in nodes.
    At { nodes: f64, low: f64, high: f64 },
    /// The player scores more than 50% at every rung: beyond the top one.
    AboveTop(u64),
    /// The player scores less than 50% at every rung: below the bottom one.
    BelowBottom(u64),
}

impl std::fmt::Display for Fifty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Fifty::At { nodes, low, high } => write!(f, "{} nodes (95%: {}–{})", nodes_text(nodes), nodes_text(low), nodes_text(high)),
            Fifty::AboveTop(n) => write!(f, "above {n} nodes (more than 50% at every rung)"),
            Fifty::BelowBottom(n) => write!(f, "below {n} nodes (less than 50% at every rung)"),
        }
    }
}

impl Fifty {
    /// The JSON of `pacozero ladder` (`ladder.json`'s `fifty` entries, less
    /// the player): `{"nodes", "low", "high"}`, `{"above"}` or `{"below"}`.
    pub fn to_json(&self) -> serde_json::Value {
        match *self {
            Fifty::At { nodes, low, high } => serde_json::json!({"nodes": nodes, "low": low, "high": high}),
            Fifty::AboveTop(n) => serde_json::json!({"above": n}),
            Fifty::BelowBottom(n) => serde_json::json!({"below": n}),
        }
    }

    /// Reads [`Fifty::to_json`]'s object back (other keys are ignored); `None` when it holds none of them.
    pub fn from_json(v: &serde_json::Value) -> Option<Fifty> {
        if let (Some(nodes), Some(low), Some(high)) = (v["nodes"].as_f64(), v["low"].as_f64(), v["high"].as_f64()) {
            Some(Fifty::At { nodes, low, high })
        } else if let Some(n) = v["above"].as_u64() {
            Some(Fifty::AboveTop(n))
        } else {
            v["below"].as_u64().map(Fifty::BelowBottom)
        }
    }
}

/// A rung's Elo with its 95% interval as a table cell (`+35 ± 60`), given
/// the W/D/L and the match's Elo and interval: a perfect or a null score has
/// only a one-sided bound: the Elo of the score at which such a result has a
/// 5% chance (2-0: `≥ -216`, the score 0.05^(1/2) = 22.4%; 0-2: `≤ +216`).
pub fn elo_cell(wins: u32, draws: u32, losses: u32, elo: f64, ci95: f64) -> String {
    // The Elo of the score at which `n` straight results have a 5% chance.
    let bound = |n: u32| crate::ratings::elo_from_score(0.05f64.powf(1.0 / n as f64));
    if wins + draws + losses == 0 {
        "-".to_string()
    } else if draws + losses == 0 {
        format!("≥ {:+.0}", bound(wins))
    } else if wins + draws == 0 {
        format!("≤ {:+.0}", -bound(losses))
    } else {
        // + 0.0: no "-0" for an even score.
        format!("{:+.0} ± {ci95:.0}", elo + 0.0)
    }
}

/// A node count for people: whole from 10 on, two decimals below.
fn nodes_text(n: f64) -> String {
    if n >= 10.0 {
        format!("{n:.0}")
    } else {
        format!("{n:.2}")
    }
}

/// The node budget at which a player with these rungs scores 50% (see the module docs).
pub fn fifty_percent_budget(rungs: &[Rung]) -> Option<Fifty> {
    let played: Vec<&Rung> = rungs.iter().filter(|r| r.games() > 0 && r.nodes > 0).collect();
    let top = played.iter().map(|r| r.nodes).max()?;
    let bottom = played.iter().map(|r| r.nodes).min()?;
    if played.iter().all(|r| r.score() > 0.5) {
        return Some(Fifty::AboveTop(top));
    }
    if played.iter().all(|r| r.score() < 0.5) {
        return Some(Fifty::BelowBottom(bottom));
    }
    // Each rung as (x, games, total score); the likelihood depends on nothing else.
    let data: Vec<(f64, f64, f64)> = played.iter().map(|r| ((r.nodes as f64).log10(), r.games() as f64, r.score() * r.games() as f64)).collect();
    let (mut a, mut b) = (0.0f64, 0.0f64);
    let mut info = [[0.0f64; 2]; 2];
    for _ in 0..200 {
        let (mut g0, mut g1) = (-2.0 * RIDGE * a, -2.0 * RIDGE * b);
        let mut h = [[2.0 * RIDGE, 0.0], [0.0, 2.0 * RIDGE]];
        for &(x, n, y) in &data {
            let s = 1.0 / (1.0 + (-(a + b * x)).exp());
            g0 += y - n * s;
            g1 += (y - n * s) * x;
            let w = n * s * (1.0 - s);
            h[0][0] += w;
            h[0][1] += w * x;
            h[1][1] += w * x * x;
        }
        h[1][0] = h[0][1];
        info = h;
        // h is positive definite (the ridge's 2·RIDGE on the diagonal plus
        // a sum of positive semi-definite terms), so det > 0.
        let det = h[0][0] * h[1][1] - h[0][1] * h[1][0];
        let (da, db) = ((h[1][1] * g0 - h[0][1] * g1) / det, (h[0][0] * g1 - h[1][0] * g0) / det);
        // Damped steps: separated data would otherwise jump far.
        let scale = 1.0f64.min(5.0 / da.abs().max(db.abs()).max(1e-12));
        a += scale * da;
        b += scale * db;
        if da.abs().max(db.abs()) < 1e-10 {
            break;
        }
    }
    if b.abs() < 1e-12 {
        return None;
    }
    let x50 = -a / b;
    let det = info[0][0] * info[1][1] - info[0][1] * info[1][0];
    // The inverse of the (symmetric) information matrix, and the delta
    // method's gradient of x50 = -a/b.
    let (c00, c01, c11) = (info[1][1] / det, -info[0][1] / det, info[0][0] / det);
    let g = [-1.0 / b, a / (b * b)];
    let var = g[0] * g[0] * c00 + 2.0 * g[0] * g[1] * c01 + g[1] * g[1] * c11;
    let se = var.max(0.0).sqrt();
    Some(Fifty::At { nodes: 10f64.powf(x50), low: 10f64.powf(x50 - 1.96 * se), high: 10f64.powf(x50 + 1.96 * se) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rung(nodes: u64, wins: u32, draws: u32, losses: u32) -> Rung {
        Rung { nodes, wins, draws, losses }
    }

    #[test]
    fn a_symmetric_ladder_crosses_half_in_the_middle() {
        // 80% at 10 nodes, 50% at 100, 20% at 1000: the fit crosses at 100.
        let rungs = [rung(10, 80, 0, 20), rung(100, 40, 20, 40), rung(1000, 20, 0, 80)];
        let Some(Fifty::At { nodes, low, high }) = fifty_percent_budget(&rungs) else { panic!("no crossing") };
        assert!((nodes - 100.0).abs() < 1.0, "{nodes}");
        assert!(low < nodes && nodes < high && low > 30.0 && high < 330.0, "{low} {high}");
        // More games: a narrower interval.
        let more: Vec<Rung> = rungs.iter().map(|r| rung(r.nodes, 4 * r.wins, 4 * r.draws, 4 * r.losses)).collect();
        let Some(Fifty::At { low: l4, high: h4, .. }) = fifty_percent_budget(&more) else { panic!() };
        assert!(h4 / l4 < high / low, "{l4}-{h4} vs {low}-{high}");
    }

    #[test]
    fn the_fit_matches_a_known_logistic_curve() {
        // Expected scores of σ(2 − 1·log10 n): x50 = 2, n50 = 100, at 10 000 games a rung.
        let rungs: Vec<Rung> = [1u64, 10, 100, 1000, 10000]
            .iter()
            .map(|&n| {
                let s = 1.0 / (1.0 + (-(2.0 - (n as f64).log10())).exp());
                let wins = (s * 10_000.0).round() as u32;
                rung(n, wins, 0, 10_000 - wins)
            })
            .collect();
        let Some(Fifty::At { nodes, .. }) = fifty_percent_budget(&rungs) else { panic!() };
        assert!((nodes - 100.0).abs() < 2.0, "{nodes}");
    }

    #[test]
    fn elo_cells_bound_perfect_and_null_scores_from_one_side() {
        assert_eq!(elo_cell(0, 2, 0, -0.0, 0.0), "+0 ± 0");
        assert_eq!(elo_cell(30, 40, 30, 0.0, 61.4), "+0 ± 61");
        // A 2-0 has a 5% chance at the score 0.05^(1/2) = 22.4%, -216 Elo: the
        // lower bound. A 0-2, the other way round, is at most +216.
        assert_eq!(elo_cell(2, 0, 0, f64::INFINITY, f64::NAN), "≥ -216");
        assert_eq!(elo_cell(0, 0, 2, f64::NEG_INFINITY, f64::NAN), "≤ +216");
        assert_eq!(elo_cell(100, 0, 0, f64::INFINITY, f64::NAN), "≥ +607");
        assert_eq!(elo_cell(0, 0, 0, 0.0, 0.0), "-");
        // Mixed results, some with two counts equal (a difference of two
        // counts would be 0 where their sum is not): two-sided.
        assert_eq!(elo_cell(1, 1, 0, 190.8, 400.0), "+191 ± 400");
        assert_eq!(elo_cell(1, 0, 1, 0.0, 500.0), "+0 ± 500");
        assert_eq!(elo_cell(3, 1, 1, 147.2, 250.0), "+147 ± 250");
        assert_eq!(elo_cell(1, 1, 2, -88.7, 300.0), "-89 ± 300");
    }

    #[test]
    fn fifty_budgets_read_for_people() {
        assert_eq!(Fifty::At { nodes: 123.4, low: 9.876, high: 10.0 }.to_string(), "123 nodes (95%: 9.88–10)");
        assert_eq!(Fifty::AboveTop(1000).to_string(), "above 1000 nodes (more than 50% at every rung)");
        assert_eq!(Fifty::BelowBottom(1).to_string(), "below 1 nodes (less than 50% at every rung)");
        assert_eq!((rung(1, 0, 0, 0).score(), rung(1, 1, 2, 1).score(), rung(1, 1, 2, 1).games()), (0.5, 0.5, 4));
        assert_eq!(rung(1, 3, 0, 1).score(), 0.75);
        // Rungs without games or nodes are left out of the fit.
        assert_eq!(fifty_percent_budget(&[rung(10, 3, 0, 0), rung(100, 0, 0, 0), rung(0, 0, 0, 5)]), Some(Fifty::AboveTop(10)));
        // A rung at exactly 50% is neither above nor below.
        assert!(matches!(fifty_percent_budget(&[rung(10, 3, 0, 1), rung(100, 1, 0, 1)]), Some(Fifty::At { .. })));
    }

    /// The fit against a slow reference: the penalised log-likelihood
    /// maximised by plain gradient ascent (small fixed steps, no Newton),
    /// then the information matrix at the maximum written out term by term
    /// and the delta method. Few games, so the ridge's terms matter.
    #[test]
    fn the_fit_and_interval_match_gradient_ascent_and_the_delta_method() {
        let rungs = [rung(10, 7, 0, 3), rung(100, 4, 2, 4), rung(1000, 1, 2, 7)];
        // (x, games, points) of each rung.
        let data: Vec<(f64, f64, f64)> = rungs.iter().map(|r| ((r.nodes as f64).log10(), r.games() as f64, r.wins as f64 + 0.5 * r.draws as f64)).collect();
        let sigma = |z: f64| 1.0 / (1.0 + (-z).exp());
        let (mut a, mut b) = (0.0f64, 0.0f64);
        for _ in 0..400_000 {
            let (mut ga, mut gb) = (-2.0 * RIDGE * a, -2.0 * RIDGE * b);
            for &(x, n, y) in &data {
                let r = y - n * sigma(a + b * x);
                ga += r;
                gb += r * x;
            }
            a += 0.002 * ga;
            b += 0.002 * gb;
        }
        let (mut i00, mut i01, mut i11) = (2.0 * RIDGE, 0.0, 2.0 * RIDGE);
        for &(x, n, _) in &data {
            let s = sigma(a + b * x);
            let w = n * s * (1.0 - s);
            (i00, i01, i11) = (i00 + w, i01 + w * x, i11 + w * x * x);
        }
        let det = i00 * i11 - i01 * i01;
        let (c00, c01, c11) = (i11 / det, -i01 / det, i00 / det);
        let x50 = -a / b;
        let (d0, d1) = (-1.0 / b, a / (b * b));
        let se = (d0 * d0 * c00 + 2.0 * d0 * d1 * c01 + d1 * d1 * c11).sqrt();
        let want = [10f64.powf(x50), 10f64.powf(x50 - 1.96 * se), 10f64.powf(x50 + 1.96 * se)];
        let Some(Fifty::At { nodes, low, high }) = fifty_percent_budget(&rungs) else { panic!() };
        for (got, want) in [nodes, low, high].into_iter().zip(want) {
            assert!((got / want - 1.0).abs() < 1e-7, "{got} against {want} (all: {nodes} {low} {high}, want {want:?})");
        }
        // The likelihood reads the scores only: 6-2-2 scores 70% as 7-0-3 does.
        let same = [rung(10, 6, 2, 2), rung(100, 3, 4, 3), rung(1000, 0, 4, 6)];
        assert_eq!(fifty_percent_budget(&same), Some(Fifty::At { nodes, low, high }));
    }

    /// A rung at exactly 50% with the others below is not "below every rung".
    #[test]
    fn a_rung_at_half_is_not_below() {
        assert!(matches!(fifty_percent_budget(&[rung(10, 1, 0, 1), rung(100, 1, 0, 3)]), Some(Fifty::At { .. })));
        assert!(matches!(fifty_percent_budget(&[rung(10, 3, 0, 1), rung(100, 1, 0, 1)]), Some(Fifty::At { .. })));
    }

    #[test]
    fn fifty_budgets_read_back_their_json() {
        for f in [Fifty::At { nodes: 12.5, low: 3.0, high: 40.0 }, Fifty::AboveTop(10000), Fifty::BelowBottom(1)] {
            assert_eq!(Fifty::from_json(&f.to_json()), Some(f));
        }
        assert_eq!(Fifty::from_json(&serde_json::json!({"player": "p"})), None);
    }

    #[test]
    fn beyond_the_ladder_and_separated_results() {
        assert_eq!(fifty_percent_budget(&[rung(1, 2, 0, 0), rung(10, 1, 1, 0)]), Some(Fifty::AboveTop(10)));
        assert_eq!(fifty_percent_budget(&[rung(1, 0, 0, 2), rung(10, 0, 1, 1)]), Some(Fifty::BelowBottom(1)));
        assert_eq!(fifty_percent_budget(&[]), None);
        // All won at 10, all lost at 100: a finite crossing between them.
        // The ridge keeps a and b finite, and by the symmetry of the results
        // the crossing is near the middle, 10^1.5; the interval is finite.
        let Some(Fifty::At { nodes, low, high }) = fifty_percent_budget(&[rung(10, 20, 0, 0), rung(100, 0, 0, 20)]) else { panic!() };
        assert!((nodes.log10() - 1.5).abs() < 0.05, "{nodes}");
        assert!(low.is_finite() && high.is_finite() && low > 1.0 && low < nodes && nodes < high && high < 1000.0, "{low} {nodes} {high}");
    }
}
