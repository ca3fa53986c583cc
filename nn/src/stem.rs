//! The stem's 3x3 convolution computed from the input's nonzero values,
//! for [`crate::fastnet`].
//!
//! The stem reads the network input: bit planes of zeros and ones, mostly
//! zeros, then scalars broadcast to constant planes. A dense convolution
//! multiplies every square of every plane by nine weight rows. Here:
//!
//! * each nonzero value of a plane adds its weight row, times the value, to
//!   the output squares that read its square (at most nine, one a tap);
//! * a plane whose squares all hold one value `v` (a scalar's plane, or a
//!   bit plane of all ones) adds `v` times a precomputed row per output
//!   square: the plane's weight rows summed over the taps that square has on
//!   the board;
//! * a plane of zeros adds nothing.
//!
//! The sum is the dense convolution's in another order, so it agrees with
//! it to rounding (the tests compare them on random inputs of every kind).
//! It also reads the input channel-major, as the evaluator writes it, so the
//! forward pass needs no transpose to square-major before the stem.

use crate::weights::Dense;

/// The stem convolution, `[9*Ci, C]` with bias, arranged for sparse input.
#[derive(Clone, Debug)]
pub(crate) struct SparseStem {
    /// Input channels.
    ci: usize,
    /// Output channels.
    c: usize,
    /// Squares `H*W`.
    hw: usize,
    /// `[9*Ci, C]`, row `t*Ci + channel` (the im2col order of [`Dense`]).
    w: Vec<f32>,
    /// `[C]`.
    b: Vec<f32>,
    /// The output squares that read input square `s`, with the tap they read
    /// it through: `reads[starts[s]..starts[s + 1]]`, as `(square, tap)`.
    starts: Vec<usize>,
    reads: Vec<(usize, usize)>,
    /// `[Ci, H*W, C]`: for each channel and output square, the channel's
    /// weight rows summed over the square's taps on the board (what a plane
    /// of ones adds there).
    plane_sums: Vec<f32>,
}

impl SparseStem {
    /// The stem `d` (`[9*ci, c]`) on a board whose taps are `taps`
    /// (`taps[sq*9 + t]`: the source square of tap `t` of square `sq`, or
    /// -1 off the board).
    pub(crate) fn new(d: &Dense, ci: usize, hw: usize, taps: &[i32]) -> SparseStem {
        let c = d.n;
        assert_eq!(d.k, 9 * ci, "a 3x3 stem has 9 rows a channel");
        let mut by_source: Vec<Vec<(usize, usize)>> = vec![Vec::new(); hw];
        for sq in 0..hw {
            for t in 0..9 {
                if let Ok(from) = usize::try_from(taps[sq * 9 + t]) {
                    by_source[from].push((sq, t));
                }
            }
        }
        let mut starts = vec![0];
        let mut reads = Vec::new();
        for r in by_source {
            reads.extend(r);
            starts.push(reads.len());
        }
        let mut plane_sums = vec![0f32; ci * hw * c];
        for ch in 0..ci {
            for sq in 0..hw {
                let sum = &mut plane_sums[(ch * hw + sq) * c..(ch * hw + sq + 1) * c];
                for t in (0..9).filter(|&t| taps[sq * 9 + t] >= 0) {
                    let row = &d.w[(t * ci + ch) * c..(t * ci + ch + 1) * c];
                    sum.iter_mut().zip(row).for_each(|(s, w)| *s += w);
                }
            }
        }
        SparseStem { ci, c, hw, w: d.w.clone(), b: d.b.clone(), starts, reads, plane_sums }
    }

    /// One position: `x: [Ci, H*W]` (channel-major) into `out: [H*W, C]`
    /// (square-major), with a ReLU when `relu`.
    pub(crate) fn forward(&self, x: &[f32], out: &mut [f32], relu: bool) {
        let (ci, c, hw) = (self.ci, self.c, self.hw);
        debug_assert_eq!((x.len(), out.len()), (ci * hw, hw * c));
        for row in out.chunks_exact_mut(c) {
            row.copy_from_slice(&self.b);
        }
        for (ch, plane) in x.chunks_exact(hw).enumerate() {
            let first = plane[0];
            if plane.iter().all(|&v| v == first) {
                if first != 0.0 {
                    let sums = &self.plane_sums[ch * hw * c..(ch + 1) * hw * c];
                    for (row, sum) in out.chunks_exact_mut(c).zip(sums.chunks_exact(c)) {
                        row.iter_mut().zip(sum).for_each(|(o, s)| *o += first * s);
                    }
                }
                continue;
            }
            for (sq, &v) in plane.iter().enumerate() {
                if v == 0.0 {
                    continue;
                }
                for &(to, t) in &self.reads[self.starts[sq]..self.starts[sq + 1]] {
                    let w = &self.w[(t * ci + ch) * c..(t * ci + ch + 1) * c];
                    let row = &mut out[to * c..(to + 1) * c];
                    if v == 1.0 {
                        row.iter_mut().zip(w).for_each(|(o, w)| *o += w);
                    } else {
                        row.iter_mut().zip(w).for_each(|(o, w)| *o += v * w);
                    }
                }
            }
        }
        if relu {
            out.iter_mut().for_each(|v| *v = v.max(0.0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conv3x3::taps;
    use pacozero_testkit::Rng;

    /// The dense convolution, written out from its definition.
    fn dense_stem(d: &Dense, ci: usize, hw: usize, taps: &[i32], x: &[f32], relu: bool) -> Vec<f32> {
        let c = d.n;
        let mut out = vec![0f32; hw * c];
        for sq in 0..hw {
            for co in 0..c {
                let mut acc = d.b[co] as f64;
                for t in 0..9 {
                    if let Ok(from) = usize::try_from(taps[sq * 9 + t]) {
                        for ch in 0..ci {
                            acc += x[ch * hw + from] as f64 * d.w[(t * ci + ch) * c + co] as f64;
                        }
                    }
                }
                out[sq * c + co] = if relu { acc.max(0.0) } else { acc } as f32;
            }
        }
        out
    }

    #[test]
    fn the_sparse_stem_is_the_dense_convolution_on_every_kind_of_plane() {
        let mut rng = Rng::new(5);
        for (h, w, ci, c) in [(8, 8, 7, 24), (10, 10, 5, 16), (6, 7, 3, 8)] {
            let hw = h * w;
            let taps = taps(h, w);
            let d = Dense { k: 9 * ci, n: c, w: (0..9 * ci * c).map(|_| rng.range(-1.0, 1.0)).collect(), b: (0..c).map(|_| rng.range(-1.0, 1.0)).collect() };
            let stem = SparseStem::new(&d, ci, hw, &taps);
            for trial in 0..20 {
                // Planes of every kind: sparse bits, dense bits, all ones, all
                // zeros, a constant scalar, and values that vary.
                let mut x = vec![0f32; ci * hw];
                for (ch, plane) in x.chunks_exact_mut(hw).enumerate() {
                    match (ch + trial) % 6 {
                        0 => plane.iter_mut().for_each(|v| *v = if rng.unit() < 0.1 { 1.0 } else { 0.0 }),
                        1 => plane.iter_mut().for_each(|v| *v = if rng.unit() < 0.7 { 1.0 } else { 0.0 }),
                        2 => plane.fill(1.0),
                        3 => {}
                        4 => plane.fill(rng.range(-2.0, 2.0)),
                        _ => plane.iter_mut().for_each(|v| *v = if rng.unit() < 0.5 { rng.range(-2.0, 2.0) } else { 0.0 }),
                    }
                }
                for relu in [false, true] {
                    let want = dense_stem(&d, ci, hw, &taps, &x, relu);
                    let mut got = vec![f32::NAN; hw * c];
                    stem.forward(&x, &mut got, relu);
                    for (i, (g, d)) in got.iter().zip(&want).enumerate() {
                        assert!(
                            (g - d).abs() <= 1e-4 * (1.0 + d.abs()),
                            "{h}x{w} ci {ci} trial {trial} relu {relu}: entry {i} is {g}, the dense convolution gives {d}"
                        );
                    }
                }
            }
        }
    }
}
