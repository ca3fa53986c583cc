//! The figures of an `info` line: a value as centipawns, WDL in per mille.
//!
//! A search value `q` (win − loss for the side to move, in [−1, 1]) is an
//! expected score `s = (1 + q) / 2` (a draw counts a half). The centipawns
//! are those of the usual pawn-advantage curve `s = 1 / (1 + 10^(−cp/400))`
//! (chess programming's "pawn advantage, win percentage and Elo"):
//!
//! `cp = 400 · log10((1 + q) / (1 − q))`, clamped to ±[`MAX_CP`].
//!
//! So `q = 0` is 0 cp, `q = ±0.5` is ±191 cp, `q = ±0.9` is ±512 cp.

/// The largest centipawn score written (a value of ±1 would be infinite).
pub const MAX_CP: i32 = 10_000;

/// Centipawns of a value `q` (win − loss, side to move); non-finite values read as 0.
pub fn centipawns(q: f32) -> i32 {
    if !q.is_finite() {
        return 0;
    }
    let q = q.clamp(-1.0, 1.0) as f64;
    let cp = 400.0 * ((1.0 + q) / (1.0 - q)).log10();
    if cp.is_nan() {
        0
    } else {
        cp.round().clamp(-(MAX_CP as f64), MAX_CP as f64) as i32
    }
}

/// (win, draw, loss) probabilities as whole per-mille figures that sum to
/// 1000 (the rounding remainder goes to the draw), as `info ... wdl W D L`.
pub fn wdl_permille(wdl: [f32; 3]) -> [u32; 3] {
    let clean = |x: f32| if x.is_finite() { x.clamp(0.0, 1.0) } else { 0.0 };
    let (w, d, l) = (clean(wdl[0]), clean(wdl[1]), clean(wdl[2]));
    let total = w + d + l;
    if total <= 0.0 {
        return [0, 1000, 0];
    }
    let win = (1000.0 * w / total).round() as u32;
    let loss = ((1000.0 * l / total).round() as u32).min(1000 - win);
    [win, 1000 - win - loss, loss]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centipawns_follow_the_documented_curve() {
        assert_eq!(centipawns(0.0), 0);
        assert_eq!(centipawns(0.5), 191);
        assert_eq!(centipawns(-0.5), -191);
        assert_eq!(centipawns(0.9), 512);
        assert_eq!(centipawns(1.0), MAX_CP);
        assert_eq!(centipawns(-1.0), -MAX_CP);
        assert_eq!(centipawns(f32::NAN), 0);
        // Monotone.
        let mut last = i32::MIN;
        for i in -100..=100 {
            let cp = centipawns(i as f32 / 100.0);
            assert!(cp >= last, "{i}");
            last = cp;
        }
    }

    #[test]
    fn wdl_sums_to_a_thousand() {
        assert_eq!(wdl_permille([0.5, 0.25, 0.25]), [500, 250, 250]);
        assert_eq!(wdl_permille([1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0]).iter().sum::<u32>(), 1000);
        assert_eq!(wdl_permille([0.0, 0.0, 0.0]), [0, 1000, 0]);
        assert_eq!(wdl_permille([f32::NAN, 1.0, 0.0]), [0, 1000, 0]);
        assert_eq!(wdl_permille([0.9996, 0.0, 0.0004]), [1000, 0, 0]);
        // Not summing to 1: shares of the sum.
        assert_eq!(wdl_permille([0.25, 0.25, 0.5].map(|x| x * 0.8)), [250, 250, 500]);
        // Both ends rounding up (500.5 and 499.5): the loss gives way.
        assert_eq!(wdl_permille([1001.0 / 8192.0, 0.0, 999.0 / 8192.0]), [501, 0, 499]);
    }
}
