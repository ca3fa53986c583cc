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

use crate::conv3x3::Kernel;
use crate::weights::Dense;

/// Words of a plane's mask of nonzero squares: boards up to 256 squares.
const MAX_WORDS: usize = 4;

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
        assert!(hw <= 64 * MAX_WORDS, "a board of {hw} squares: the stem takes at most {}", 64 * MAX_WORDS);
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
        self.forward_on(Kernel::best(), x, out, relu);
    }

    /// [`SparseStem::forward`] compiled for `kernel`'s instruction set
    /// (which this CPU has): the same code, whose sums of weight rows the
    /// compiler turns into vectors of that width.
    pub(crate) fn forward_on(&self, kernel: Kernel, x: &[f32], out: &mut [f32], relu: bool) {
        assert!(kernel.available(), "{kernel:?} needs instructions this CPU lacks");
        match kernel {
            Kernel::Portable => self.forward_with(x, out, relu),
            // SAFETY: the CPU has the features these functions are compiled for (asserted).
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { self.forward_avx2(x, out, relu) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { self.forward_avx512(x, out, relu) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("only the portable kernel is available here"),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_avx2(&self, x: &[f32], out: &mut [f32], relu: bool) {
        self.forward_with(x, out, relu);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    unsafe fn forward_avx512(&self, x: &[f32], out: &mut [f32], relu: bool) {
        self.forward_with(x, out, relu);
    }

    #[inline(always)]
    fn forward_with(&self, x: &[f32], out: &mut [f32], relu: bool) {
        let (ci, c, hw) = (self.ci, self.c, self.hw);
        assert_eq!((x.len(), out.len()), (ci * hw, hw * c), "stem: the input is not [Ci, H*W] or the output not [H*W, C]");
        for row in out.chunks_exact_mut(c) {
            row.copy_from_slice(&self.b);
        }
        for (ch, plane) in x.chunks_exact(hw).enumerate() {
            // One pass over the plane: which squares hold a nonzero value
            // (a bit each, 64 squares a word), and whether all hold the first.
            let first = plane[0];
            let mut same = true;
            let mut words = [0u64; MAX_WORDS];
            for (word, squares) in words.iter_mut().zip(plane.chunks(64)) {
                for (i, &v) in squares.iter().enumerate() {
                    *word |= u64::from(v != 0.0) << i;
                    same &= v == first;
                }
            }
            if same {
                if first != 0.0 {
                    let sums = &self.plane_sums[ch * hw * c..(ch + 1) * hw * c];
                    for (row, sum) in out.chunks_exact_mut(c).zip(sums.chunks_exact(c)) {
                        row.iter_mut().zip(sum).for_each(|(o, s)| *o += first * s);
                    }
                }
                continue;
            }
            for (w, &word) in words.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let sq = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let v = plane[sq];
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
        for (h, w, ci, c) in [(8, 8, 7, 24), (10, 10, 5, 16), (6, 7, 3, 8), (16, 16, 2, 40)] {
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
                    for kernel in [Kernel::Portable, Kernel::Avx2, Kernel::Avx512].into_iter().filter(|k| k.available()) {
                        let mut got = vec![f32::NAN; hw * c];
                        stem.forward_on(kernel, &x, &mut got, relu);
                        for (i, (g, d)) in got.iter().zip(&want).enumerate() {
                            assert!(
                                (g - d).abs() <= 1e-4 * (1.0 + d.abs()),
                                "{kernel:?} {h}x{w} ci {ci} trial {trial} relu {relu}: entry {i} is {g}, the dense convolution gives {d}"
                            );
                        }
                    }
                }
            }
        }
    }
}
