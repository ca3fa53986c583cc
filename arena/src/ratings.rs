//! Strength statistics of one match: W/D/L and pentanomial counts of paired
//! games, their Elo figures, and the sequential probability ratio test. The
//! rating list over many players is [`crate::rating_list`].

/// Expected score of a player `elo_diff` points stronger than its opponent.
pub fn expected_score(elo_diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo_diff / 400.0))
}

/// Elo difference that gives the expected score `s` (clamped away from 0 and 1).
pub fn elo_from_score(s: f64) -> f64 {
    let s = s.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Results of one player against another, from the first player's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Wdl {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games().max(1) as f64
    }
}

/// Counts of game pairs (same opening, colours swapped) by the first player's
/// points in the pair: 0, 0.5, 1, 1.5, 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    pub fn add_pair(&mut self, points_first: f64, points_second: f64) {
        let i = ((points_first + points_second) * 2.0).round() as usize;
        self.0[i.min(4)] += 1;
    }
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }
    /// Mean score per game and its variance per pair-average.
    fn mean_var(&self) -> (f64, f64) {
        mean_var(&self.0.map(f64::from))
    }
}

/// Mean score per game and the variance of a pair's average, from pair
/// counts (possibly fractional) by pair score 0, 0.5, 1, 1.5, 2.
fn mean_var(counts: &[f64; 5]) -> (f64, f64) {
    let n: f64 = counts.iter().sum();
    let mean = (0..5).map(|i| counts[i] * i as f64 / 4.0).sum::<f64>() / n;
    let var = (0..5).map(|i| counts[i] * (i as f64 / 4.0 - mean).powi(2)).sum::<f64>() / n;
    (mean, var)
}

/// A match's figures from its pentanomial counts, as fastchess reports them:
/// each pair (one opening, colours swapped) is one sample of the average
/// score of its two games, so the pairing of the openings is in the
/// variance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairStats {
    /// Mean score a game, in [0, 1].
    pub score: f64,
    /// Elo of that score, and the half-width of its 95% interval (the Elo
    /// of the score ± 1.96 standard errors, halved).
    pub elo: f64,
    pub elo_ci95: f64,
    /// Normalised Elo: (score − 0.5) / sqrt(2 · pair variance) · 800 / ln 10,
    /// and its 95% half-width; `None` when every pair scored the same.
    pub nelo: Option<(f64, f64)>,
    /// Likelihood of superiority: P(true score > 0.5), normal approximation.
    pub los: f64,
}

/// Standard normal distribution function.
fn normal_cdf(z: f64) -> f64 {
    // Abramowitz-Stegun 7.1.26 for erf, accurate to 1.5e-7.
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    if z >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

impl Pentanomial {
    /// The match's figures from the pair counts (see [`PairStats`]); `None`
    /// for fewer than two pairs.
    pub fn stats(&self) -> Option<PairStats> {
        let n = self.pairs();
        if n < 2 {
            return None;
        }
        let (score, var) = self.mean_var();
        let se = (var / n as f64).sqrt();
        let z = 1.959_963_984_540_054;
        let (lo, hi) = (elo_from_score(score - z * se), elo_from_score(score + z * se));
        let per_sd = 800.0 / std::f64::consts::LN_10 / (2.0 * var).sqrt();
        let nelo = (var > 0.0).then_some(((score - 0.5) * per_sd, z * se * per_sd));
        let los = if se > 0.0 {
            normal_cdf((score - 0.5) / se)
        } else {
            // Every pair scored the same: certain either way, or a tie.
            0.5 + 0.5 * (score - 0.5).signum() * f64::from(score != 0.5)
        };
        Some(PairStats { score, elo: elo_from_score(score), elo_ci95: (hi - lo) / 2.0, nelo, los })
    }
}

/// Sequential probability ratio test between Elo hypotheses `elo0` (H0) and
/// `elo1` (H1), with error rates `alpha` and `beta`.
#[derive(Clone, Copy, Debug)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

impl std::str::FromStr for Sprt {
    type Err = String;
    /// `elo0,elo1[,alpha,beta]`, e.g. `0,10` or `0,10,0.05,0.1`.
    fn from_str(s: &str) -> Result<Sprt, String> {
        let bad = |why: &str| format!("--sprt {s:?}: {why} (expected elo0,elo1[,alpha,beta], e.g. 0,10 or 0,10,0.05,0.1)");
        let v: Vec<f64> = s.split(',').map(|x| x.trim().parse::<f64>().map_err(|_| bad(&format!("{x:?} is not a number")))).collect::<Result<_, _>>()?;
        let (elo0, elo1, alpha, beta) = match v[..] {
            [a, b] => (a, b, 0.05, 0.05),
            [a, b, al, be] => (a, b, al, be),
            _ => return Err(bad(&format!("{} numbers", v.len()))),
        };
        if elo0 >= elo1 || !elo0.is_finite() || !elo1.is_finite() {
            return Err(bad("elo0 must be below elo1"));
        }
        if !(0.0 < alpha && alpha < 0.5 && 0.0 < beta && beta < 0.5) {
            return Err(bad("alpha and beta must be in (0, 0.5)"));
        }
        Ok(Sprt { elo0, elo1, alpha, beta })
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SprtDecision {
    AcceptH1,
    AcceptH0,
    Continue,
}

impl SprtDecision {
    /// As reports and `matches.jsonl` write it: `H1 accepted`, `H0
    /// accepted`, or `undecided` (a match that stopped at its cap).
    pub fn name(self) -> &'static str {
        match self {
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::Continue => "undecided",
        }
    }
}

impl Sprt {
    /// Lower and upper log-likelihood-ratio bounds.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// Generalised SPRT log-likelihood ratio from pentanomial pair counts
    /// (normal approximation, as used by chess engine testing frameworks).
    pub fn llr(&self, p: &Pentanomial) -> f64 {
        if p.pairs() < 2 {
            return 0.0;
        }
        // An empty category counts 0.001 pairs (the Stockfish testing
        // framework's regularisation): without it a few pairs that all
        // scored the same have no variance, and the LLR is unbounded.
        let (mean, var) = mean_var(&p.0.map(|c| f64::from(c).max(1e-3)));
        let s0 = expected_score(self.elo0);
        let s1 = expected_score(self.elo1);
        p.pairs() as f64 * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    pub fn decide(&self, p: &Pentanomial) -> SprtDecision {
        let llr = self.llr(p);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtDecision::AcceptH1
        } else if llr <= lo {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pentanomial figures against numbers worked out by hand: 40 pairs
    /// [2, 5, 10, 15, 8] score 0.6375 a game with a pair variance of
    /// 0.074844, so a standard error of 0.043256; Elo(0.6375) = 98.07,
    /// Elo(0.6375 ± 1.96 · 0.043256) = 36.77 and 166.04 (± 64.63); nElo =
    /// 0.1375 / sqrt(2 · 0.074844) · 347.44 = 123.48 ± 1.96 · 0.043256 ·
    /// 898.01 = ± 76.13; LOS Φ(3.1787) = 0.99926.
    #[test]
    fn pentanomial_figures_match_hand_computed_values() {
        let s = Pentanomial([2, 5, 10, 15, 8]).stats().unwrap();
        assert!((s.score - 0.6375).abs() < 1e-12);
        assert!((s.elo - 98.069).abs() < 0.01, "{s:?}");
        assert!((s.elo_ci95 - 64.635).abs() < 0.01, "{s:?}");
        let (nelo, nelo_ci) = s.nelo.unwrap();
        assert!((nelo - 123.476).abs() < 0.01 && (nelo_ci - 76.134).abs() < 0.01, "{s:?}");
        assert!((s.los - 0.99926).abs() < 2e-5, "{s:?}");
        // The pairing matters: the same 80 games as 40 pairs of one win and
        // one loss each are far more certain than 20 of two wins and 20 of
        // two losses.
        let mixed = Pentanomial([0, 0, 40, 0, 0]).stats().unwrap();
        let split = Pentanomial([20, 0, 0, 0, 20]).stats().unwrap();
        assert_eq!((mixed.score, split.score), (0.5, 0.5));
        assert_eq!(mixed.elo_ci95, 0.0);
        assert!(mixed.nelo.is_none() && split.elo_ci95 > 100.0, "{split:?}");
        assert!(Pentanomial([0, 0, 1, 0, 0]).stats().is_none());
    }

    #[test]
    fn elo_and_expected_score_are_inverse_and_clamped() {
        assert_eq!(expected_score(0.0), 0.5);
        assert!((expected_score(400.0) - 10.0 / 11.0).abs() < 1e-12);
        assert!((expected_score(-400.0) - 1.0 / 11.0).abs() < 1e-12);
        assert!((elo_from_score(10.0 / 11.0) - 400.0).abs() < 1e-9);
        assert!((elo_from_score(0.25) - -190.848_501_887).abs() < 1e-6);
        // A perfect or a null score is held 1e-6 from its end: about ±2400, finite.
        assert!((elo_from_score(1.0) - 2_399.999_826).abs() < 1e-3, "{}", elo_from_score(1.0));
        assert!((elo_from_score(0.0) + 2_399.999_826).abs() < 1e-3, "{}", elo_from_score(0.0));
    }

    #[test]
    fn wdl_counts_games_and_half_points() {
        let w = Wdl { wins: 3, draws: 2, losses: 5 };
        assert_eq!(w.games(), 10);
        assert!((w.score() - 0.4).abs() < 1e-12);
        assert_eq!(Wdl::default().score(), 0.0);
    }

    #[test]
    fn pairs_are_counted_by_their_points() {
        let mut p = Pentanomial::default();
        for (a, b) in [(1.0, 1.0), (1.0, 0.5), (0.5, 0.5), (1.0, 0.0), (0.0, 0.5), (0.0, 0.0), (0.5, 1.0)] {
            p.add_pair(a, b);
        }
        assert_eq!(p, Pentanomial([1, 1, 2, 2, 1]));
        assert_eq!(p.pairs(), 7);
    }

    /// The normal distribution function against erf's values (Python's math.erf).
    #[test]
    fn the_normal_distribution_function_is_accurate() {
        for (z, phi) in [(0.0, 0.5), (1.96, 0.975_002_104_852), (-1.0, 0.158_655_253_931), (0.5, 0.691_462_461_274), (-2.5, 0.006_209_665_326)] {
            assert!((normal_cdf(z) - phi).abs() < 2e-7, "Φ({z}) = {} vs {phi}", normal_cdf(z));
        }
    }

    /// Pairs that all scored the same have no spread: the likelihood of
    /// superiority is certain either way, or even.
    #[test]
    fn uniform_pairs_are_certain_or_even() {
        let ahead = Pentanomial([0, 0, 0, 3, 0]).stats().unwrap();
        assert_eq!((ahead.score, ahead.los, ahead.elo_ci95), (0.75, 1.0, 0.0));
        assert!(ahead.nelo.is_none());
        assert_eq!(Pentanomial([0, 3, 0, 0, 0]).stats().unwrap().los, 0.0);
        assert_eq!(Pentanomial([0, 0, 3, 0, 0]).stats().unwrap().los, 0.5);
        // With a spread: below even, the LOS is below a half.
        let behind = Pentanomial([3, 5, 10, 2, 0]).stats().unwrap();
        assert!(behind.los < 0.05 && behind.elo < 0.0, "{behind:?}");
        assert!(Pentanomial([0, 0, 0, 1, 0]).stats().is_none() && Pentanomial([0, 1, 0, 1, 0]).stats().is_some());
    }

    #[test]
    fn sprt_specs_are_read_and_bad_ones_named() {
        let t: Sprt = "0,10".parse().unwrap();
        assert_eq!((t.elo0, t.elo1, t.alpha, t.beta), (0.0, 10.0, 0.05, 0.05));
        let t: Sprt = " -5, 5 ,0.01,0.2".parse().unwrap();
        assert_eq!((t.elo0, t.elo1, t.alpha, t.beta), (-5.0, 5.0, 0.01, 0.2));
        for (bad, why) in [
            ("0,x", "\"x\" is not a number"),
            ("0", "1 numbers"),
            ("0,1,0.05", "3 numbers"),
            ("10,0", "elo0 must be below elo1"),
            ("5,5", "elo0 must be below elo1"),
            ("-inf,0", "elo0 must be below elo1"),
            ("0,inf", "elo0 must be below elo1"),
            ("0,10,0,0.1", "alpha and beta"),
            ("0,10,0.5,0.1", "alpha and beta"),
            ("0,10,0.05,0", "alpha and beta"),
            ("0,10,0.05,0.5", "alpha and beta"),
        ] {
            let e = bad.parse::<Sprt>().unwrap_err();
            assert!(e.contains(why) && e.contains(&format!("{bad:?}")), "{bad}: {e}");
        }
    }

    #[test]
    fn decisions_have_their_report_names() {
        let names = [SprtDecision::AcceptH1, SprtDecision::AcceptH0, SprtDecision::Continue].map(SprtDecision::name);
        assert_eq!(names, ["H1 accepted", "H0 accepted", "undecided"]);
    }

    /// Fewer than two pairs say nothing; two pairs of two wins each, whose
    /// empty categories count 0.001 pairs, give a finite LLR of 15.1426
    /// (by hand: mean 0.99925, variance 0.0013 of the regularised counts).
    #[test]
    fn the_llr_needs_two_pairs_and_stays_finite_without_a_spread() {
        let t = Sprt { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 };
        assert_eq!(t.llr(&Pentanomial([0, 0, 0, 0, 1])), 0.0);
        assert_eq!(t.decide(&Pentanomial([0, 0, 0, 0, 1])), SprtDecision::Continue);
        let llr = t.llr(&Pentanomial([0, 0, 0, 0, 2]));
        assert!((llr - 15.142_611_870).abs() < 1e-6, "{llr}");
        assert_eq!(t.decide(&Pentanomial([0, 0, 0, 0, 2])), SprtDecision::AcceptH1);
    }

    /// Pairs of two independent games at `elo` with `draws` of the games
    /// drawn, as pentanomial probabilities.
    fn pair_probabilities(elo: f64, draws: f64) -> [f64; 5] {
        let s = expected_score(elo);
        let (w, d, l) = (s - draws / 2.0, draws, 1.0 - s - draws / 2.0);
        let game = [l, d, w];
        let mut p = [0.0; 5];
        for (i, a) in game.iter().enumerate() {
            for (j, b) in game.iter().enumerate() {
                p[i + j] += a * b;
            }
        }
        p
    }

    /// Sequential tests on simulated matches, looking after every 8 pairs as
    /// `arena --sprt` does: at the true Elo elo0 the test accepts H1 in at
    /// most about α of 1,000 runs, at elo1 it accepts H0 in at most about β
    /// (1.5 times the rate plus three standard errors).
    #[test]
    fn sprt_error_rates_by_simulation() {
        use rand::{Rng, SeedableRng};
        let t = Sprt { elo0: 0.0, elo1: 40.0, alpha: 0.05, beta: 0.10 };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for (true_elo, wrong, rate) in [(0.0, SprtDecision::AcceptH1, t.alpha), (40.0, SprtDecision::AcceptH0, t.beta)] {
            let probs = pair_probabilities(true_elo, 0.4);
            let runs = 1000;
            let (mut errors, mut pairs) = (0, 0u64);
            for _ in 0..runs {
                let mut p = Pentanomial::default();
                let decision = loop {
                    for _ in 0..8 {
                        let mut u: f64 = rng.gen();
                        let k = probs.iter().position(|&q| {
                            u -= q;
                            u < 0.0
                        });
                        p.0[k.unwrap_or(4)] += 1;
                    }
                    let d = t.decide(&p);
                    if d != SprtDecision::Continue || p.pairs() >= 100_000 {
                        break d;
                    }
                };
                pairs += p.pairs() as u64;
                errors += usize::from(decision == wrong);
            }
            let observed = errors as f64 / runs as f64;
            eprintln!("true Elo {true_elo}: {wrong:?} in {observed} of the runs, {} pairs a test", pairs / runs);
            let limit = 1.5 * rate + 3.0 * (rate * (1.0 - rate) / runs as f64).sqrt();
            assert!(observed <= limit, "true Elo {true_elo}: {wrong:?} in {observed} of the runs (limit {limit:.3}), {} pairs a test", pairs / runs);
        }
    }

    #[test]
    fn sprt_accepts_clear_improvements_and_rejects_regressions() {
        let sprt = Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05 };
        let mut strong = Pentanomial::default();
        let mut weak = Pentanomial::default();
        for i in 0..200 {
            strong.0[[4, 3, 2, 3, 4][i % 5]] += 1;
            weak.0[[0, 1, 2, 1, 0][i % 5]] += 1;
        }
        assert_eq!(sprt.decide(&strong), SprtDecision::AcceptH1);
        assert_eq!(sprt.decide(&weak), SprtDecision::AcceptH0);
        let even = Pentanomial([1, 2, 3, 2, 1]);
        assert_eq!(sprt.decide(&even), SprtDecision::Continue);
    }

    /// The LLR and the bounds against numbers worked out by hand (Python,
    /// the formulas in the doc comments), and decisions that depend on which
    /// error rate is which: with α = 0.05, β = 0.10 the bounds are
    /// ln(β/(1−α)) = −2.2513 and ln((1−β)/α) = 2.8904; swapped they would be
    /// −2.8904 and 2.2513.
    #[test]
    fn sprt_llr_and_bounds_match_hand_computed_values() {
        let sprt = Sprt { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.10 };
        let (lo, hi) = sprt.bounds();
        assert!((lo - -2.251_291_8).abs() < 1e-6 && (hi - 2.890_371_8).abs() < 1e-6, "{lo} {hi}");
        // 40 pairs: mean 0.6375 a game, variance 0.074844 a pair; s0 = 0.5,
        // s1 = 0.514387 (10 Elo): LLR = 40 (s1 − s0)(2·0.6375 − s0 − s1) / (2·0.074844).
        let llr = sprt.llr(&Pentanomial([2, 5, 10, 15, 8]));
        assert!((llr - 1.001_949_9).abs() < 1e-5, "{llr}");
        // LLR 2.53: past the swapped upper bound, short of the right one.
        let between_up = Pentanomial([128, 320, 640, 352, 160]);
        assert!((sprt.llr(&between_up) - 2.530_089).abs() < 1e-5, "{}", sprt.llr(&between_up));
        assert_eq!(sprt.decide(&between_up), SprtDecision::Continue);
        // LLR −2.44: past the right lower bound, short of the swapped one.
        let between_down = Pentanomial([130, 273, 494, 286, 117]);
        assert!((sprt.llr(&between_down) - -2.437_886).abs() < 1e-5, "{}", sprt.llr(&between_down));
        assert_eq!(sprt.decide(&between_down), SprtDecision::AcceptH0);
    }
}
