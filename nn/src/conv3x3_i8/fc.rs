//! The `"fc"` policy head's fully connected layer in int8 ([`QuantFc`]),
//! with the tower's arithmetic (the parent module's docs).
//!
//! Paco Ŝako's `"fc"` head reads 2,048 values a position (32 planes of 64
//! squares, a ReLU's output) into 132 logits: 270,000 multiply-adds, a
//! fifth of the quick net's tower. In fp32 ([`crate::sparse_fc`]) its
//! weights are 1.2 MB, more than a core's second-level cache, and each
//! position streams the rows of its nonzero inputs from farther away; a
//! profile of the quick net in int8 put the head's layers at 28% of the
//! forward pass, more than the int8 tower's convolutions (24%).
//!
//! Here the weights are bytes (295 kB, one scale per output), the input
//! a position's bytes at one scale (its largest value is 255), and each
//! `vpdpbusd` adds the products of four inputs with 16 outputs' weights.
//! Groups of four inputs that are all zero are skipped, as the fp32
//! layer skips zero inputs: each row first lists its nonzero groups.
//!
//! Layouts: the weights `[K/4][N padded][4]` (group of four inputs,
//! output, input of the group), `N` padded with zero weights to a multiple
//! of 16, `K` with zero rows to a multiple of 4; a position's bytes as
//! [`super::quantize_input`] writes them (one position, one row of `K`).
//! The sums are exact in `i32` (below 66,000 inputs), so every build gives
//! the same sums, and [`super::vnni::dequantize_row`] the same outputs.

use super::{scale_of, Int8Kernel, GROUP, I8_MAX, LANES};
use crate::weights::Dense;

/// A fully connected layer `[k, n]` with bias, in int8, for inputs that are
/// a ReLU's output (never negative; see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct QuantFc {
    /// Inputs.
    k: usize,
    /// Outputs.
    n: usize,
    /// `n` rounded up to whole vectors of 16.
    stride: usize,
    /// `[k_padded / 4][stride][4]`, zeros in the padding.
    w: Vec<i8>,
    /// Each output's weight scale, `[stride]` (zeros in the padding).
    w_scale: Vec<f32>,
    /// `[stride]`, zeros in the padding.
    bias: Vec<f32>,
}

/// A row's buffers ([`QuantFc::forward`]); grown once, reused.
#[derive(Default)]
pub(crate) struct FcScratch {
    /// The row's bytes, `k` padded to whole groups.
    bytes: Vec<u8>,
    /// The indices of its nonzero groups.
    groups: Vec<u32>,
    /// Its sums, `[stride]`.
    sums: Vec<i32>,
}

impl QuantFc {
    /// The int8 copy of the fp32 layer `d` (`[k, n]`, row-major, with bias):
    /// symmetric weights, one scale per output (`max |w[.., j]| / 127`).
    pub(crate) fn new(d: &Dense) -> QuantFc {
        let (k, n) = (d.k, d.n);
        assert!(k > 0 && n > 0, "a fully connected layer of {k} inputs and {n} outputs");
        let stride = n.next_multiple_of(LANES);
        let mut w_scale = vec![0.0f32; stride];
        for (j, s) in w_scale.iter_mut().enumerate().take(n) {
            *s = scale_of((0..k).map(|i| d.w[i * n + j].abs()).fold(0.0, f32::max), I8_MAX);
        }
        let mut w = vec![0i8; k.next_multiple_of(GROUP) * stride];
        for i in 0..k {
            for j in 0..n {
                let q = (d.w[i * n + j] / w_scale[j]).round().clamp(-I8_MAX, I8_MAX);
                w[((i / GROUP) * stride + j) * GROUP + i % GROUP] = q as i8;
            }
        }
        let mut bias = vec![0.0f32; stride];
        bias[..n].copy_from_slice(&d.b);
        QuantFc { k, n, stride, w, w_scale, bias }
    }

    /// Outputs.
    #[cfg(test)]
    pub(crate) fn n(&self) -> usize {
        self.n
    }

    /// Groups of four inputs (the last padded with zeros).
    fn groups(&self) -> usize {
        self.k.div_ceil(GROUP)
    }

    /// `out[m, n] = a[m, k] · w + b` (ReLU when `relu`) for the `m` rows of
    /// `a`, each quantized at its own scale; `kernel` picks the build,
    /// every build writes the same values.
    pub(crate) fn forward(&self, kernel: Int8Kernel, a: &[f32], out: &mut [f32], relu: bool, scratch: &mut FcScratch) {
        let (k, n) = (self.k, self.n);
        // Checked in release builds too: the vector build reads the weights
        // through raw pointers at the listed groups.
        assert!(a.len().is_multiple_of(k), "int8 fc: the input is not rows of {k}");
        assert_eq!(out.len(), a.len() / k * n, "int8 fc: the output is not [m, {n}]");
        assert!(kernel.available(), "{kernel:?} needs instructions this CPU lacks");
        let groups = self.groups();
        scratch.bytes.resize(groups * GROUP, 0);
        scratch.groups.resize(groups, 0);
        scratch.sums.resize(self.stride, 0);
        let mut scale = [0.0f32];
        for (row, out) in a.chunks_exact(k).zip(out.chunks_exact_mut(n)) {
            super::quantize_rows(kernel, k, 1, row, &mut scratch.bytes, &mut scale);
            match kernel {
                Int8Kernel::Scalar => {
                    let listed = list_nonzero_groups(&scratch.bytes, &mut scratch.groups);
                    self.sums_scalar(&scratch.bytes, listed, &mut scratch.sums);
                    self.dequantize_scalar(&scratch.sums, scale[0], out, relu);
                }
                // SAFETY: the CPU has AVX-512 F, BW and VNNI (asserted:
                // AMX's CPUs have them too); the bytes hold `groups` whole
                // groups, the list as many indices, each below `groups`;
                // the sums, scales and biases `stride` values, `out` `n`.
                #[cfg(target_arch = "x86_64")]
                Int8Kernel::Vnni | Int8Kernel::Amx => unsafe {
                    let listed = vnni::list_nonzero_groups(&scratch.bytes, &mut scratch.groups);
                    vnni::sums(self, &scratch.bytes, listed, &mut scratch.sums);
                    super::vnni::dequantize_row(&self.w_scale, &self.bias, &scratch.sums, scale[0], out, relu);
                },
                #[cfg(not(target_arch = "x86_64"))]
                Int8Kernel::Vnni | Int8Kernel::Amx => unreachable!("VNNI and AMX are x86-64 only"),
            }
        }
    }

    /// The sums from their definition: each output's products with the
    /// listed groups' bytes, one at a time.
    fn sums_scalar(&self, bytes: &[u8], listed: &[u32], sums: &mut [i32]) {
        sums.fill(0);
        for &g in listed {
            let g = g as usize;
            for (j, s) in sums.iter_mut().enumerate() {
                for i in 0..GROUP {
                    *s += bytes[g * GROUP + i] as i32 * self.w[(g * self.stride + j) * GROUP + i] as i32;
                }
            }
        }
    }

    /// `out[j] = sums[j] * (w_scale[j] * scale) + bias[j]` (ReLU when
    /// `relu`): a product, then a sum, as the vector build rounds them.
    fn dequantize_scalar(&self, sums: &[i32], scale: f32, out: &mut [f32], relu: bool) {
        for (((o, &s), &w), &b) in out.iter_mut().zip(sums).zip(&self.w_scale).zip(&self.bias) {
            let v = s as f32 * (w * scale) + b;
            *o = if relu { v.max(0.0) } else { v };
        }
    }
}

/// The indices of the groups of four of `bytes` that are not all zero,
/// written to the front of `at` (one a group) and returned.
fn list_nonzero_groups<'a>(bytes: &[u8], at: &'a mut [u32]) -> &'a [u32] {
    let mut count = 0;
    for (g, group) in bytes.chunks_exact(GROUP).enumerate() {
        // Every index is written; only a nonzero group's is kept (no branch).
        at[count] = g as u32;
        count += usize::from(group != [0; GROUP]);
    }
    &at[..count]
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use std::arch::x86_64::*;

    use super::{QuantFc, GROUP, LANES};
    // Column blocks as the fp32 layer's: as many vectors of sums as stay in registers.
    use crate::sparse_fc::{blocks, MAX_VECTORS};

    /// [`super::list_nonzero_groups`] sixteen groups at a time: the groups
    /// are 32-bit words, and a vector's nonzero words store their indices,
    /// packed.
    ///
    /// # Safety
    /// The CPU has AVX-512 F; `bytes` is whole groups, `at` holds one index a group.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn list_nonzero_groups<'a>(bytes: &[u8], at: &'a mut [u32]) -> &'a [u32] {
        let groups = bytes.len() / GROUP;
        debug_assert!(at.len() >= groups && bytes.len() == groups * GROUP);
        let mut count = 0;
        let mut index = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let step = _mm512_set1_epi32(LANES as i32);
        let mut g = 0;
        while g < groups {
            let lanes = (groups - g).min(LANES);
            // SAFETY: the load is masked to the groups that exist; the
            // store writes the kept lanes at `count ..`, at most `groups`
            // in all, within `at`.
            unsafe {
                let mask = ((1u32 << lanes) - 1) as __mmask16;
                let words = _mm512_maskz_loadu_epi32(mask, bytes.as_ptr().add(g * GROUP) as *const i32);
                let keep = _mm512_mask_test_epi32_mask(mask, words, words);
                _mm512_mask_compressstoreu_epi32(at.as_mut_ptr().add(count) as *mut _, keep, index);
                count += keep.count_ones() as usize;
            }
            index = _mm512_add_epi32(index, step);
            g += LANES;
        }
        &at[..count]
    }

    /// The sums of one row, a block of columns at a time.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW and VNNI; every listed group is below
    /// `fc.groups()`, `bytes` holds them all, `sums` holds `fc.stride`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn sums(fc: &QuantFc, bytes: &[u8], listed: &[u32], sums: &mut [i32]) {
        debug_assert!(sums.len() >= fc.stride && bytes.len() >= fc.groups() * GROUP);
        for (first, vectors) in blocks(fc.stride / LANES) {
            // SAFETY: as this function's; the block lies within the stride.
            unsafe {
                match vectors {
                    1 => block::<1>(fc, first, bytes, listed, sums),
                    2 => block::<2>(fc, first, bytes, listed, sums),
                    3 => block::<3>(fc, first, bytes, listed, sums),
                    4 => block::<4>(fc, first, bytes, listed, sums),
                    5 => block::<5>(fc, first, bytes, listed, sums),
                    6 => block::<6>(fc, first, bytes, listed, sums),
                    7 => block::<7>(fc, first, bytes, listed, sums),
                    8 => block::<8>(fc, first, bytes, listed, sums),
                    9 => block::<9>(fc, first, bytes, listed, sums),
                    10 => block::<10>(fc, first, bytes, listed, sums),
                    11 => block::<11>(fc, first, bytes, listed, sums),
                    12 => block::<12>(fc, first, bytes, listed, sums),
                    _ => unreachable!("a block holds 1 to {MAX_VECTORS} vectors"),
                }
            }
        }
    }

    /// Outputs `16 * first ..` of `V` vectors: for each listed group, its
    /// four bytes broadcast to every lane, `vpdpbusd` with the group's
    /// weights of 16 outputs (one 64-byte load) a vector.
    ///
    /// # Safety
    /// As [`sums`]'s, with `first + V <= fc.stride / 16`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn block<const V: usize>(fc: &QuantFc, first: usize, bytes: &[u8], listed: &[u32], sums: &mut [i32]) {
        let (stride, col) = (fc.stride, first * LANES);
        debug_assert!(col + V * LANES <= stride);
        // SAFETY: every load reads group `g < groups` of the bytes and row
        // `g` of the `[groups][stride][4]` weights at outputs below
        // `stride`; the stores write outputs below `stride`, within `sums`.
        unsafe {
            let mut acc = [_mm512_setzero_si512(); V];
            for &g in listed {
                let g = g as usize;
                let x = _mm512_set1_epi32(std::ptr::read_unaligned(bytes.as_ptr().add(g * GROUP) as *const i32));
                let w = fc.w.as_ptr().add((g * stride + col) * GROUP);
                for (v, a) in acc.iter_mut().enumerate() {
                    *a = _mm512_dpbusd_epi32(*a, x, _mm512_loadu_si512(w.add(v * LANES * GROUP) as *const __m512i));
                }
            }
            for (v, a) in acc.iter().enumerate() {
                _mm512_storeu_si512(sums.as_mut_ptr().add(col + v * LANES) as *mut __m512i, *a);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_testkit::Rng;

    /// The layer from its definition: the documented bytes and weights
    /// (each row's largest value is byte 255, each output's largest weight
    /// 127; rounded in f32 as documented), their products summed in `i64`,
    /// dequantized in f64.
    fn reference(d: &Dense, a: &[f32], relu: bool) -> Vec<f64> {
        let (k, n) = (d.k, d.n);
        let nonzero_or_one = |s: f32| if s > 0.0 { s } else { 1.0 };
        let w_scale: Vec<f32> = (0..n).map(|j| nonzero_or_one((0..k).map(|i| d.w[i * n + j].abs()).fold(0.0, f32::max) / 127.0)).collect();
        let mut out = Vec::new();
        for row in a.chunks_exact(k) {
            let scale = nonzero_or_one(row.iter().cloned().fold(0.0, f32::max) / 255.0);
            let bytes: Vec<i64> = row.iter().map(|&x| (x * (1.0 / scale)).round().clamp(0.0, 255.0) as i64).collect();
            for (j, (&ws, &b)) in w_scale.iter().zip(&d.b).enumerate() {
                let sum: i64 = bytes.iter().enumerate().map(|(i, &x)| x * (d.w[i * n + j] / ws).round().clamp(-127.0, 127.0) as i64).sum();
                let v = sum as f64 * ws as f64 * scale as f64 + b as f64;
                out.push(if relu { v.max(0.0) } else { v });
            }
        }
        out
    }

    fn random_dense(rng: &mut Rng, k: usize, n: usize) -> Dense {
        Dense { k, n, w: (0..k * n).map(|_| rng.range(-1.0, 1.0)).collect(), b: (0..n).map(|_| rng.range(-1.0, 1.0)).collect() }
    }

    #[test]
    fn only_the_groups_with_a_nonzero_byte_are_listed() {
        let bytes = [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 9, 9, 9, 9, 0, 0, 0, 255];
        let mut at = vec![99; 5];
        assert_eq!(list_nonzero_groups(&bytes, &mut at), &[1, 3, 4]);
        assert_eq!(list_nonzero_groups(&[0; 20], &mut at), &[] as &[u32]);
        #[cfg(target_arch = "x86_64")]
        if Int8Kernel::Vnni.available() {
            let mut rng = Rng::new(5);
            for groups in [1, 15, 16, 17, 40, 512] {
                for density in [0.0, 0.05, 0.5, 1.0] {
                    let bytes: Vec<u8> = (0..groups * GROUP).map(|_| if rng.unit() < density { 1 + rng.below(255) as u8 } else { 0 }).collect();
                    let (mut a, mut b) = (vec![7; groups], vec![7; groups]);
                    let want = list_nonzero_groups(&bytes, &mut a).to_vec();
                    // SAFETY: the CPU has AVX-512 F (VNNI's CPUs do); whole groups, one index each.
                    let got = unsafe { vnni::list_nonzero_groups(&bytes, &mut b) };
                    assert_eq!(got, &want[..], "{groups} groups, density {density}");
                }
            }
        }
    }

    /// Every build this CPU runs equals the definition (to rounding of the
    /// dequantization, f32 against f64) and the scalar build to the bit, on
    /// shapes below, at and above a vector and a block, inputs of every
    /// density, with and without ReLU.
    #[test]
    fn every_build_computes_the_layer_of_its_definition() {
        let mut rng = Rng::new(17);
        let kernels: Vec<_> = Int8Kernel::ALL.into_iter().filter(|k| k.available()).collect();
        for (k, n) in [(1, 1), (5, 15), (33, 16), (64, 17), (2048, 132), (40, 192), (50, 193), (30, 400)] {
            let d = random_dense(&mut rng, k, n);
            let fc = QuantFc::new(&d);
            assert_eq!(fc.n(), n);
            for density in [0.0, 0.1, 0.5, 1.0] {
                let m = 3;
                let a: Vec<f32> = (0..m * k).map(|_| if rng.unit() < density { rng.range(0.0, 3.0) } else { 0.0 }).collect();
                for relu in [false, true] {
                    let want = reference(&d, &a, relu);
                    let mut first: Option<Vec<f32>> = None;
                    for &kernel in &kernels {
                        let mut got = vec![f32::NAN; m * n];
                        fc.forward(kernel, &a, &mut got, relu, &mut FcScratch::default());
                        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                            assert!(
                                (*g as f64 - w).abs() <= 1e-4 * (1.0 + w.abs()),
                                "{kernel:?} [{k}, {n}] density {density} relu {relu}: output {i} is {g}, the definition gives {w}"
                            );
                        }
                        match &first {
                            None => first = Some(got),
                            Some(f) => assert_eq!(f, &got, "{kernel:?} [{k}, {n}] density {density}: not the scalar build's values"),
                        }
                    }
                }
            }
        }
    }

    /// Against the fp32 layer the error is the quantization's: within a
    /// few hundredths of the outputs' spread on 2,048 inputs of a ReLU's
    /// kind (half of them zero).
    #[test]
    fn the_int8_layer_is_close_to_the_fp32_layer() {
        let mut rng = Rng::new(23);
        let d = random_dense(&mut rng, 2048, 132);
        let a: Vec<f32> = (0..4 * 2048).map(|_| if rng.unit() < 0.5 { rng.range(0.0, 2.0) } else { 0.0 }).collect();
        let mut got = vec![0.0; 4 * 132];
        QuantFc::new(&d).forward(Int8Kernel::best(), &a, &mut got, false, &mut FcScratch::default());
        let d = &d;
        let exact: Vec<f64> = a
            .chunks_exact(2048)
            .flat_map(|row| (0..132).map(move |j| d.b[j] as f64 + row.iter().enumerate().map(|(i, &x)| x as f64 * d.w[i * 132 + j] as f64).sum::<f64>()))
            .collect();
        let spread = exact.iter().map(|v| v.abs()).fold(0.0, f64::max);
        let worst = got.iter().zip(&exact).map(|(&g, &e)| (g as f64 - e).abs()).fold(0.0, f64::max);
        assert!(worst < 0.01 * spread, "largest error {worst} against outputs up to {spread}");
        assert!(worst > 0.0, "int8 gave the fp32 values exactly: the layer did not quantize");
    }

    #[test]
    #[should_panic(expected = "not [m, 3]")]
    fn an_output_of_the_wrong_length_is_refused() {
        let d = Dense { k: 2, n: 3, w: vec![0.0; 6], b: vec![0.0; 3] };
        QuantFc::new(&d).forward(Int8Kernel::Scalar, &[1.0, 2.0], &mut [0.0; 4], false, &mut FcScratch::default());
    }
}
