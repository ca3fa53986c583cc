//! A fully connected layer whose input is mostly zeros, for
//! [`crate::fastnet`]'s heads.
//!
//! The heads' fully connected layers read a ReLU's output: the Paco Ŝako
//! quick net's policy layer reads 2,048 values a position (32 planes of 64
//! squares), `[2048, 132]` weights, and many of the values are zeros. A
//! matrix product multiplies every one of them, and `matrixmultiply` also
//! packs the whole weight matrix (1 MB) into its own layout on every call: a
//! profile of `pacozero --precision int8 bench mcts` put 13% of the time in
//! that product and its packing.
//!
//! Here each position's row is summed in registers: its nonzero inputs are
//! listed first (without a branch a value, so the zeros cost no
//! mispredictions), then each adds its weight row, times the value, to the
//! sums. The weights are stored once, rows padded to whole vectors of 16, so
//! nothing is packed at run time. Up to [`MAX_VECTORS`] vectors of sums
//! (192 outputs) stay in registers; wider layers go in several blocks of
//! columns, each reading the same list.

use crate::conv3x3::Kernel;
use crate::weights::Dense;

/// Lanes of one vector of sums (an AVX-512 register of `f32`).
const LANES: usize = 16;
/// The most vectors of sums one block of columns holds in registers (of
/// AVX-512's 32: the rest hold the broadcast value and the loads). The int8
/// layer ([`crate::conv3x3_i8::fc`]) blocks its columns the same way.
pub(crate) const MAX_VECTORS: usize = 12;

/// A fully connected layer `[k, n]` with bias, for inputs with many zeros.
#[derive(Clone, Debug)]
pub(crate) struct SparseFc {
    /// Inputs.
    k: usize,
    /// Outputs.
    n: usize,
    /// `n` rounded up to whole vectors: the length of a row of `w` and `b`.
    stride: usize,
    /// `[k, stride]`, row-major; the padding columns are zeros.
    w: Vec<f32>,
    /// `[stride]`, the padding zeros.
    b: Vec<f32>,
}

impl SparseFc {
    /// The layer `d` (`[k, n]` with bias).
    pub(crate) fn new(d: &Dense) -> SparseFc {
        let (k, n) = (d.k, d.n);
        let stride = n.next_multiple_of(LANES);
        let mut w = vec![0f32; k * stride];
        for (to, from) in w.chunks_exact_mut(stride).zip(d.w.chunks_exact(n)) {
            to[..n].copy_from_slice(from);
        }
        let mut b = vec![0f32; stride];
        b[..n].copy_from_slice(&d.b);
        SparseFc { k, n, stride, w, b }
    }

    /// Outputs.
    pub(crate) fn n(&self) -> usize {
        self.n
    }

    /// The layer as the `[k, n]` matrix it was made from (for its int8 copy).
    pub(crate) fn dense(&self) -> Dense {
        let w = self.w.chunks_exact(self.stride).flat_map(|row| &row[..self.n]).copied().collect();
        Dense { k: self.k, n: self.n, w, b: self.b[..self.n].to_vec() }
    }

    /// `out[m, n] = a[m, k] · w + b` (then ReLU when `relu`) for the `m`
    /// rows of `a`; `nonzero` is scratch (grown to `k`).
    pub(crate) fn forward(&self, a: &[f32], out: &mut [f32], relu: bool, nonzero: &mut Vec<u32>) {
        self.forward_on(Kernel::best(), a, out, relu, nonzero);
    }

    /// [`SparseFc::forward`] on `kernel` (which this CPU runs).
    pub(crate) fn forward_on(&self, kernel: Kernel, a: &[f32], out: &mut [f32], relu: bool, nonzero: &mut Vec<u32>) {
        let (k, n) = (self.k, self.n);
        // Checked in release builds too: the vector kernel reads the
        // weights through raw pointers at the listed rows.
        assert!(k > 0 && a.len().is_multiple_of(k), "sparse fc: the input is not rows of {k}");
        assert_eq!(out.len(), a.len() / k * n, "sparse fc: the output is not [m, {n}]");
        assert!(kernel.available(), "{kernel:?} needs instructions this CPU lacks");
        if nonzero.len() < k {
            nonzero.resize(k, 0);
        }
        for (row, out) in a.chunks_exact(k).zip(out.chunks_exact_mut(n)) {
            match kernel {
                // AVX2 has no compress store and 16 registers: the
                // portable rows serve it.
                Kernel::Portable | Kernel::Avx2 => self.row_portable(row, list_nonzero(row, nonzero), out, relu),
                // SAFETY: the CPU has AVX-512 F (asserted), `nonzero` holds
                // `k` indices, every listed index is below `k`, and `out`
                // holds `n` values.
                #[cfg(target_arch = "x86_64")]
                Kernel::Avx512 => unsafe {
                    let listed = avx512::list_nonzero(row, nonzero);
                    avx512::row(self, row, listed, out, relu)
                },
                #[cfg(not(target_arch = "x86_64"))]
                Kernel::Avx512 => unreachable!("only the portable kernel is available here"),
            }
        }
    }

    /// One row, one output at a time (the reference for the vector build).
    fn row_portable(&self, a: &[f32], listed: &[u32], out: &mut [f32], relu: bool) {
        out.copy_from_slice(&self.b[..self.n]);
        for &i in listed {
            let i = i as usize;
            let (v, w) = (a[i], &self.w[i * self.stride..i * self.stride + self.n]);
            out.iter_mut().zip(w).for_each(|(o, w)| *o += v * w);
        }
        if relu {
            out.iter_mut().for_each(|o| *o = o.max(0.0));
        }
    }
}

/// The indices of `row`'s nonzero values (a NaN counts as nonzero), written
/// to the front of `at` (at least `row.len()` long) and returned.
fn list_nonzero<'a>(row: &[f32], at: &'a mut [u32]) -> &'a [u32] {
    let mut count = 0;
    for (i, &v) in row.iter().enumerate() {
        // Every index is written; only a nonzero one is kept (no branch).
        at[count] = i as u32;
        count += usize::from(v != 0.0);
    }
    &at[..count]
}

/// The column blocks of `vectors` vectors: as few as fit [`MAX_VECTORS`],
/// as even as possible, as `(first vector, vectors)`.
pub(crate) fn blocks(vectors: usize) -> impl Iterator<Item = (usize, usize)> {
    let count = vectors.div_ceil(MAX_VECTORS).max(1);
    (0..count).map(move |i| {
        let (start, end) = (i * vectors / count, (i + 1) * vectors / count);
        (start, end - start)
    })
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{blocks, SparseFc, LANES};

    /// [`super::list_nonzero`] sixteen values at a time: each vector's
    /// nonzero lanes (a NaN is unequal to zero) store their indices, packed.
    ///
    /// # Safety
    /// The CPU has AVX-512 F; `at` is at least `row.len()` long.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn list_nonzero<'a>(row: &[f32], at: &'a mut [u32]) -> &'a [u32] {
        debug_assert!(at.len() >= row.len());
        let mut count = 0;
        let mut index = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let (zero, step) = (_mm512_setzero_ps(), _mm512_set1_epi32(LANES as i32));
        for chunk in row.chunks(LANES) {
            // SAFETY: the load is masked to the chunk; the store writes the
            // kept lanes at `count ..`, at most `row.len()` in all, within `at`.
            unsafe {
                let lanes = ((1u32 << chunk.len()) - 1) as __mmask16;
                let x = _mm512_maskz_loadu_ps(lanes, chunk.as_ptr());
                let keep = _mm512_mask_cmp_ps_mask::<_CMP_NEQ_UQ>(lanes, x, zero);
                _mm512_mask_compressstoreu_epi32(at.as_mut_ptr().add(count) as *mut _, keep, index);
                count += keep.count_ones() as usize;
            }
            index = _mm512_add_epi32(index, step);
        }
        &at[..count]
    }

    /// [`SparseFc::row_portable`] with sums in registers, a block of
    /// columns at a time.
    ///
    /// # Safety
    /// The CPU has AVX-512 F; every index in `listed` is below `fc.k` and
    /// `a.len()`; `out` holds `fc.n` values.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn row(fc: &SparseFc, a: &[f32], listed: &[u32], out: &mut [f32], relu: bool) {
        for (first, vectors) in blocks(fc.stride / LANES) {
            // SAFETY: as this function's.
            unsafe {
                match vectors {
                    1 => block::<1>(fc, first, a, listed, out, relu),
                    2 => block::<2>(fc, first, a, listed, out, relu),
                    3 => block::<3>(fc, first, a, listed, out, relu),
                    4 => block::<4>(fc, first, a, listed, out, relu),
                    5 => block::<5>(fc, first, a, listed, out, relu),
                    6 => block::<6>(fc, first, a, listed, out, relu),
                    7 => block::<7>(fc, first, a, listed, out, relu),
                    8 => block::<8>(fc, first, a, listed, out, relu),
                    9 => block::<9>(fc, first, a, listed, out, relu),
                    10 => block::<10>(fc, first, a, listed, out, relu),
                    11 => block::<11>(fc, first, a, listed, out, relu),
                    12 => block::<12>(fc, first, a, listed, out, relu),
                    _ => unreachable!("a block holds 1 to {} vectors", super::MAX_VECTORS),
                }
            }
        }
    }

    /// Columns `16 * first ..` of `V` vectors.
    ///
    /// # Safety
    /// As [`row`]'s; the block lies within `fc.stride`.
    #[target_feature(enable = "avx512f")]
    unsafe fn block<const V: usize>(fc: &SparseFc, first: usize, a: &[f32], listed: &[u32], out: &mut [f32], relu: bool) {
        let (stride, col) = (fc.stride, first * LANES);
        debug_assert!(col + V * LANES <= stride);
        // SAFETY: every load reads within row `i < k` of the `[k, stride]`
        // weights (or the `[stride]` biases) at columns below `stride`; the
        // stores are masked to the columns below `n`, within `out`.
        unsafe {
            let mut sums = [_mm512_setzero_ps(); V];
            for (j, s) in sums.iter_mut().enumerate() {
                *s = _mm512_loadu_ps(fc.b.as_ptr().add(col + j * LANES));
            }
            for &i in listed {
                let i = i as usize;
                let x = _mm512_set1_ps(*a.get_unchecked(i));
                let w = fc.w.as_ptr().add(i * stride + col);
                for (j, s) in sums.iter_mut().enumerate() {
                    *s = _mm512_fmadd_ps(x, _mm512_loadu_ps(w.add(j * LANES)), *s);
                }
            }
            let zero = _mm512_setzero_ps();
            for (j, s) in sums.iter().enumerate() {
                let at = col + j * LANES;
                if at >= fc.n {
                    break;
                }
                let lanes = (fc.n - at).min(LANES);
                // max(s, 0) with 0 second: a NaN gives 0, as f32::max does.
                let s = if relu { _mm512_max_ps(*s, zero) } else { *s };
                _mm512_mask_storeu_ps(out.as_mut_ptr().add(at), ((1u32 << lanes) - 1) as __mmask16, s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_testkit::Rng;

    /// The product written out from its definition, in f64.
    fn reference(d: &Dense, a: &[f32], relu: bool) -> Vec<f32> {
        let mut out = Vec::new();
        for row in a.chunks_exact(d.k) {
            for j in 0..d.n {
                let sum = d.b[j] as f64 + row.iter().enumerate().map(|(i, &v)| v as f64 * d.w[i * d.n + j] as f64).sum::<f64>();
                out.push(if relu { sum.max(0.0) } else { sum } as f32);
            }
        }
        out
    }

    #[test]
    fn blocks_cover_the_vectors_evenly_and_fit_the_registers() {
        for vectors in 1..=60 {
            let b: Vec<_> = blocks(vectors).collect();
            assert_eq!(b[0].0, 0);
            for pair in b.windows(2) {
                assert_eq!(pair[0].0 + pair[0].1, pair[1].0, "{vectors}: blocks {b:?} leave a gap");
            }
            let (last, len) = b[b.len() - 1];
            assert_eq!(last + len, vectors, "{vectors}: blocks {b:?}");
            assert!(b.iter().all(|&(_, v)| (1..=MAX_VECTORS).contains(&v)), "{vectors}: blocks {b:?}");
            assert_eq!(b.len(), vectors.div_ceil(MAX_VECTORS), "{vectors}: more blocks than needed");
        }
    }

    #[test]
    fn list_nonzero_lists_exactly_the_nonzero_values() {
        let row = [0.0, 1.5, 0.0, -0.0, f32::NAN, -2.0, 0.0];
        let mut at = vec![99; row.len()];
        assert_eq!(list_nonzero(&row, &mut at), &[1, 4, 5]);
        assert_eq!(list_nonzero(&[0.0; 7], &mut at), &[] as &[u32]);
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_vector_list_of_nonzero_values_is_the_portable_one() {
        if !Kernel::Avx512.available() {
            return;
        }
        let mut rng = Rng::new(3);
        for len in [0, 1, 15, 16, 17, 31, 32, 33, 100] {
            for density in [0.0, 0.3, 1.0] {
                let mut row: Vec<f32> = (0..len).map(|_| if rng.unit() < density { rng.range(-1.0, 1.0) } else { 0.0 }).collect();
                if len > 3 {
                    row[len / 2] = f32::NAN;
                    row[len / 3] = -0.0;
                }
                let (mut a, mut b) = (vec![7; len], vec![7; len]);
                let want = list_nonzero(&row, &mut a).to_vec();
                // SAFETY: the CPU has AVX-512 F (checked above); `b` is `row`'s length.
                let got = unsafe { avx512::list_nonzero(&row, &mut b) };
                assert_eq!(got, &want[..], "length {len}, density {density}");
            }
        }
    }

    #[test]
    fn every_kernel_computes_the_product_of_its_definition() {
        let mut rng = Rng::new(11);
        let kernels: Vec<_> = [Kernel::Portable, Kernel::Avx2, Kernel::Avx512].into_iter().filter(|k| k.available()).collect();
        // Widths below, at and above a vector, a block, and several blocks.
        for (k, n) in [(1, 1), (7, 15), (33, 16), (64, 17), (2048, 132), (40, 192), (50, 193), (30, 400)] {
            let d = Dense { k, n, w: (0..k * n).map(|_| rng.range(-1.0, 1.0)).collect(), b: (0..n).map(|_| rng.range(-1.0, 1.0)).collect() };
            let fc = SparseFc::new(&d);
            assert_eq!(fc.n(), n);
            let back = fc.dense();
            assert_eq!((back.k, back.n, &back.w, &back.b), (k, n, &d.w, &d.b), "[{k}, {n}]: dense() is not the matrix it was made from");
            for density in [0.0, 0.1, 0.5, 1.0] {
                let m = 5;
                let a: Vec<f32> = (0..m * k).map(|_| if rng.unit() < density { rng.range(-2.0, 2.0) } else { 0.0 }).collect();
                for relu in [false, true] {
                    let want = reference(&d, &a, relu);
                    for &kernel in &kernels {
                        let mut got = vec![f32::NAN; m * n];
                        fc.forward_on(kernel, &a, &mut got, relu, &mut Vec::new());
                        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                            assert!(
                                (g - w).abs() <= 1e-4 * (1.0 + w.abs()),
                                "{kernel:?} [{k}, {n}] density {density} relu {relu}: output {i} is {g}, the definition gives {w}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "not [m, 3]")]
    fn an_output_of_the_wrong_length_is_refused() {
        let d = Dense { k: 2, n: 3, w: vec![0.0; 6], b: vec![0.0; 3] };
        SparseFc::new(&d).forward(&[1.0, 2.0], &mut [0.0; 4], false, &mut Vec::new());
    }
}
