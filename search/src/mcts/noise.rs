//! Random noise for exploration (Dirichlet at PUCT roots, Gumbel for Gumbel
//! search) and small numeric helpers.

use rand::Rng;

pub(super) fn nan_max(x: f32) -> f32 {
    if x.is_nan() {
        f32::NEG_INFINITY
    } else {
        x
    }
}

pub(super) fn sanitize_wdl(w: [f32; 3]) -> [f32; 3] {
    let w = w.map(|x| if x.is_finite() && x > 0.0 { x } else { 0.0 });
    let s = w[0] + w[1] + w[2];
    if s > 0.0 {
        w.map(|x| x / s)
    } else {
        [0.0, 1.0, 0.0]
    }
}

pub(super) fn softmax_in_place(v: &mut [f32]) {
    let max = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for x in v.iter_mut() {
        *x = (*x - max).exp();
        sum += *x;
    }
    for x in v.iter_mut() {
        *x /= sum;
    }
}

pub(super) fn sample_gumbel<R: Rng>(rng: &mut R) -> f32 {
    let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    (-(-u.ln()).ln()) as f32
}

pub(super) fn sample_normal<R: Rng>(rng: &mut R) -> f64 {
    let u1: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Gamma(alpha, 1) by Marsaglia-Tsang.
pub(super) fn sample_gamma<R: Rng>(rng: &mut R, alpha: f64) -> f64 {
    if alpha < 1.0 {
        let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
        return sample_gamma(rng, alpha + 1.0) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = sample_normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// A Dirichlet(alpha, ..., alpha) sample of `k` components.
pub fn dirichlet<R: Rng>(rng: &mut R, alpha: f32, k: usize) -> Vec<f32> {
    let g: Vec<f64> = (0..k).map(|_| sample_gamma(rng, alpha as f64)).collect();
    let s: f64 = g.iter().sum();
    if s > 0.0 {
        g.iter().map(|x| (x / s) as f32).collect()
    } else {
        vec![1.0 / k as f32; k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn dirichlet_is_a_distribution_with_the_right_mean() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        let mut mean = [0f64; 4];
        for _ in 0..4000 {
            let d = dirichlet(&mut rng, 0.3, 4);
            assert!((d.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            assert!(d.iter().all(|x| *x >= 0.0));
            for (m, x) in mean.iter_mut().zip(&d) {
                *m += *x as f64 / 4000.0;
            }
        }
        assert!(mean.iter().all(|m| (m - 0.25).abs() < 0.03), "{mean:?}");
    }

    /// How concentrated the noise is, which the mean cannot tell: for a
    /// symmetric Dirichlet(α) of k components E[Σ xᵢ²] = (α + 1) / (kα + 1).
    /// Gamma(α + 1) without its u^(1/α) factor would make Dirichlet(0.3)
    /// into Dirichlet(1.3): 0.202 instead of 0.382 at k = 8.
    #[test]
    fn dirichlet_concentration_follows_alpha() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        for (alpha, k) in [(0.3f32, 8usize), (0.03, 20), (2.0, 8)] {
            let n = 20_000;
            let mean_sq: f64 = (0..n).map(|_| dirichlet(&mut rng, alpha, k).iter().map(|&x| (x as f64).powi(2)).sum::<f64>()).sum::<f64>() / n as f64;
            let a = alpha as f64;
            let want = (a + 1.0) / (k as f64 * a + 1.0);
            assert!((mean_sq - want).abs() < 0.02 * want.max(0.25), "alpha {alpha}, k {k}: E[sum x^2] = {mean_sq:.4}, expected {want:.4}");
        }
    }

    #[test]
    fn gumbel_samples_have_the_right_mean() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let m: f64 = (0..20000).map(|_| sample_gumbel(&mut rng) as f64).sum::<f64>() / 20000.0;
        assert!((m - 0.5772).abs() < 0.05, "{m}");
    }

    #[test]
    fn sanitize_wdl_gives_a_distribution() {
        assert_eq!(sanitize_wdl([f32::NAN, -1.0, 0.0]), [0.0, 1.0, 0.0]);
        assert_eq!(sanitize_wdl([2.0, 0.0, 2.0]), [0.5, 0.0, 0.5]);
        assert_eq!(sanitize_wdl([1.0, 1.0, 2.0]), [0.25, 0.25, 0.5]);
        assert_eq!(sanitize_wdl([f32::INFINITY, 1.0, -3.0]), [0.0, 1.0, 0.0]);
        assert_eq!(sanitize_wdl([0.0, 0.0, 3.0]), [0.0, 0.0, 1.0]);
    }

    /// Mean and variance of `n` samples.
    fn moments(n: usize, mut sample: impl FnMut() -> f64) -> (f64, f64) {
        let xs: Vec<f64> = (0..n).map(|_| sample()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        (mean, xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64)
    }

    /// Gamma(α, 1) has mean α and variance α, below 1 (the boost by
    /// u^(1/α)) and above it (Marsaglia-Tsang itself).
    #[test]
    fn gamma_samples_have_mean_and_variance_alpha() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for alpha in [0.3, 1.0, 2.5, 9.0] {
            let (mean, var) = moments(40_000, || sample_gamma(&mut rng, alpha));
            assert!((mean - alpha).abs() < 0.02 * alpha.max(1.0), "alpha {alpha}: mean {mean}");
            assert!((var - alpha).abs() < 0.06 * alpha.max(1.0), "alpha {alpha}: variance {var}");
        }
    }

    /// Gamma(k, 1) for a whole k against its distribution function,
    /// `1 - e^-x * sum_{i<k} x^i / i!`, by the Kolmogorov-Smirnov distance:
    /// Marsaglia-Tsang's acceptance test is exact only with its own
    /// constants, and a wrong one can keep the first two moments.
    #[test]
    fn gamma_samples_follow_the_gamma_distribution() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let n = 100_000;
        for k in [2u32, 5] {
            let mut xs: Vec<f64> = (0..n).map(|_| sample_gamma(&mut rng, k as f64)).collect();
            xs.sort_by(f64::total_cmp);
            let cdf = |x: f64| {
                let (mut term, mut sum) = (1.0, 1.0);
                for i in 1..k {
                    term *= x / i as f64;
                    sum += term;
                }
                1.0 - (-x).exp() * sum
            };
            let d =
                xs.iter().enumerate().map(|(i, &x)| (cdf(x) - i as f64 / n as f64).abs().max((cdf(x) - (i + 1) as f64 / n as f64).abs())).fold(0.0, f64::max);
            // 1.63 / sqrt(n): the 1% critical value.
            assert!(d < 1.63 / (n as f64).sqrt(), "k {k}: distance {d}");
        }
    }

    #[test]
    fn normal_and_gumbel_samples_have_their_moments() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let (mean, var) = moments(40_000, || sample_normal(&mut rng));
        assert!(mean.abs() < 0.02 && (var - 1.0).abs() < 0.03, "normal: {mean} {var}");
        let (mean, var) = moments(40_000, || sample_gumbel(&mut rng) as f64);
        let pi2_6 = std::f64::consts::PI.powi(2) / 6.0;
        assert!((mean - 0.5772).abs() < 0.02 && (var - pi2_6).abs() < 0.06, "gumbel: {mean} {var}");
    }

    /// A tiny α underflows every gamma draw to 0 now and then: the sample
    /// is then uniform, never NaN.
    #[test]
    fn a_dirichlet_of_underflowing_draws_is_uniform() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut uniform = 0;
        for _ in 0..200 {
            let d = dirichlet(&mut rng, 1e-4, 3);
            assert!(d.iter().all(|x| x.is_finite() && *x >= 0.0) && (d.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{d:?}");
            uniform += usize::from(d == [1.0 / 3.0; 3]);
        }
        assert!(uniform > 50, "{uniform} of 200 uniform");
    }

    #[test]
    fn softmax_and_nan_max() {
        let mut v = [1.0f32, 2.0, 3.0, f32::NEG_INFINITY];
        softmax_in_place(&mut v);
        let z = 1f32.exp() + 2f32.exp() + 3f32.exp();
        for (x, want) in v.iter().zip([1f32.exp() / z, 2f32.exp() / z, 3f32.exp() / z, 0.0]) {
            assert!((x - want).abs() < 1e-6, "{v:?}");
        }
        // Large logits do not overflow (the maximum is subtracted first).
        let mut v = [1000.0f32, 1000.0];
        softmax_in_place(&mut v);
        assert_eq!(v, [0.5, 0.5]);
        assert_eq!(nan_max(f32::NAN), f32::NEG_INFINITY);
        assert_eq!(nan_max(-2.5), -2.5);
    }
}
