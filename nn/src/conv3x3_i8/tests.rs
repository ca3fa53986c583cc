use super::*;

/// A small deterministic generator in [0, 1) (the test needs no crate for it).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn values(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| lo + (hi - lo) * self.next()).collect()
    }
}

use crate::conv3x3::taps;

/// The fp32 convolution from its definition (f64 sums).
fn fp32_reference(d: &Dense, h: usize, w: usize, src: &[f32], cin: usize, relu: bool) -> Vec<f32> {
    let (hw, n, taps) = (h * w, d.n, taps(h, w));
    let mut out = vec![0.0; src.len() / cin * n];
    for (img, dst) in src.chunks_exact(hw * cin).zip(out.chunks_exact_mut(hw * n)) {
        for sq in 0..hw {
            for co in 0..n {
                let mut sum = d.b[co] as f64;
                for t in 0..9 {
                    let from = taps[sq * 9 + t];
                    if from >= 0 {
                        for c in 0..cin {
                            sum += img[from as usize * cin + c] as f64 * d.w[(t * cin + c) * n + co] as f64;
                        }
                    }
                }
                dst[sq * n + co] = if relu { (sum as f32).max(0.0) } else { sum as f32 };
            }
        }
    }
    out
}

/// The sums of `kernel` for the int8 convolution `q` on `src`, and each position's scale.
fn sums(kernel: Int8Kernel, q: &QuantConv, h: usize, w: usize, src: &[f32]) -> (Vec<i32>, Vec<f32>) {
    let mut bytes = vec![0xAA; src.len() / q.cin * q.cin_padded()];
    let mut scales = vec![f32::NAN; src.len() / (h * w * q.cin)];
    quantize_input(kernel, q, h * w, src, &mut bytes, &mut scales);
    let (taps, zeros) = (taps(h, w), vec![0u8; q.cin_padded()]);
    let mut acc = vec![i32::MIN; bytes.len() / q.cin_padded() * q.cout_padded()];
    accumulate(kernel, q, Board { hw: h * w, taps: &taps, zeros: &zeros }, &bytes, &mut acc);
    (acc, scales)
}

/// Shapes of both games' boards and Connect Four's (42 squares: not
/// whole tiles of 4), the quick net's 24 channels (a vector and a half),
/// channels not whole groups of 4, and wide layers of several column
/// blocks (144 = 9 vectors: blocks of 4, 4, 1).
const SHAPES: [(usize, usize, usize, usize); 8] =
    [(8, 8, 24, 24), (10, 10, 24, 24), (6, 7, 16, 16), (8, 8, 7, 40), (10, 10, 64, 64), (8, 8, 128, 144), (3, 5, 5, 3), (1, 1, 4, 16)];

/// The builds this CPU runs besides the scalar reference.
fn fast_kernels() -> Vec<Int8Kernel> {
    let fast: Vec<Int8Kernel> = Int8Kernel::ALL[1..].iter().copied().filter(|k| k.available()).collect();
    if fast.len() < 2 {
        eprintln!("this CPU runs {fast:?} of {:?} besides the scalar kernel", &Int8Kernel::ALL[1..]);
    }
    fast
}

/// Every build against the scalar kernel, sum for sum, on the shapes
/// above and on batches of 1 to 5 positions: 3 positions of 42 squares are
/// 126 rows, three whole AMX blocks of 32 and a last one of 30.
#[test]
fn every_kernel_gives_the_scalar_kernels_sums_exactly() {
    let mut rng = Rng::new(1);
    for (i, (h, w, cin, cout)) in SHAPES.into_iter().enumerate() {
        let d = Dense { k: 9 * cin, n: cout, w: rng.values(9 * cin * cout, -1.0, 1.0), b: rng.values(cout, -0.5, 0.5) };
        let q = QuantConv::new(&d, cin);
        let src = rng.values((1 + i % 5) * h * w * cin, 0.0, 3.5);
        let want = sums(Int8Kernel::Scalar, &q, h, w, &src).0;
        for kernel in fast_kernels() {
            let got = sums(kernel, &q, h, w, &src).0;
            assert_eq!(got.len(), want.len());
            for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                assert_eq!(a, b, "{kernel:?} {h}x{w} {cin}->{cout}: sum {i} (square {}, channel {})", i / q.cout_padded(), i % q.cout_padded());
            }
        }
        if cin >= 24 {
            assert!(want.iter().any(|&s| s.abs() > 100_000), "{h}x{w} {cin}->{cout}: sums beyond 16 bits");
        }
    }
}

/// The extreme bytes: 255 against -127 and 127 in every product, the
/// largest sums a layer of 128 channels can have.
#[test]
fn the_largest_sums_are_exact_on_every_kernel() {
    let (h, w, cin, cout) = (8, 8, 128, 32);
    let mut weights = vec![1.0f32; 9 * cin * cout];
    for (i, v) in weights.iter_mut().enumerate() {
        if i % cout >= cout / 2 {
            *v = -1.0;
        }
    }
    let q = QuantConv::new(&Dense { k: 9 * cin, n: cout, w: weights, b: vec![0.0; cout] }, cin);
    let src = vec![1.0; h * w * cin];
    for kernel in Int8Kernel::ALL.into_iter().filter(|k| k.available()) {
        let acc = sums(kernel, &q, h, w, &src).0;
        // A corner square reads 4 taps, an inner one 9.
        let full = 9 * cin as i32 * 255 * 127;
        assert_eq!(acc[9 * q.cout_padded()], full, "{kernel:?}: an inner square, a positive channel");
        assert_eq!(acc[9 * q.cout_padded() + cout - 1], -full, "{kernel:?}: an inner square, a negative channel");
        assert_eq!(acc[0], 4 * cin as i32 * 255 * 127, "{kernel:?}: the corner");
    }
}

/// One layer in int8 (quantize, sum, dequantize) against fp32: each
/// output is off by at most the rounding of its inputs and weights. A
/// product `x * w` is `(qx + ex) * (qw + ew) * w_scale` with the bytes
/// `qx <= 255`, `|qw| <= 127` and their roundings `|ex|, |ew| <= 1/2`,
/// so it is off by at most `w_scale * (255/2 + 127/2 + 1/4)`, times the
/// position's scale.
#[test]
fn one_int8_layer_is_within_its_quantization_error_of_fp32() {
    let mut rng = Rng::new(2);
    for (h, w, cin, cout) in SHAPES {
        let d = Dense { k: 9 * cin, n: cout, w: rng.values(9 * cin * cout, -0.3, 0.3), b: rng.values(cout, -0.5, 0.5) };
        let src: Vec<f32> = rng.values(2 * h * w * cin, -1.0, 2.0).into_iter().map(|x| x.max(0.0)).collect(); // post-ReLU
                                                                                                              // Channels of different ranges, one of them always zero.
        let range: Vec<f32> = (0..cin).map(|c| if c == 1 { 0.0 } else { 0.1 + c as f32 }).collect();
        let src: Vec<f32> = src.iter().enumerate().map(|(i, x)| x * range[i % cin]).collect();
        let q = QuantConv::new(&d, cin);
        for relu in [false, true] {
            let want = fp32_reference(&d, h, w, &src, cin, relu);
            let (acc, scales) = sums(Int8Kernel::best(), &q, h, w, &src);
            let mut got = vec![f32::NAN; want.len()];
            dequantize(Int8Kernel::best(), &q, h * w, &acc, &scales, &mut got, relu);
            let taps = taps(h, w);
            let mut worst = 0.0f32;
            for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                let (position, sq, co) = (i / (h * w * cout), (i / cout) % (h * w), i % cout);
                let reads = (0..9).filter(|&t| taps[sq * 9 + t] >= 0).count() * cin;
                let bound = reads as f32 * q.w_scale[co] * scales[position] * (255.0 / 2.0 + 127.0 / 2.0 + 0.25) + 1e-5;
                assert!((a - b).abs() <= bound, "{h}x{w} {cin}->{cout} relu {relu} [{i}]: {a} vs {b}, bound {bound}");
                worst = worst.max((a - b).abs() / bound);
            }
            // A bound this loose would pass a wrong kernel that errs by
            // little: the error is also small next to the outputs.
            let rms = (want.iter().map(|v| v * v).sum::<f32>() / want.len() as f32).sqrt();
            let err = (got.iter().zip(&want).map(|(a, b)| (a - b) * (a - b)).sum::<f32>() / want.len() as f32).sqrt();
            assert!(err <= 0.02 * rms, "{h}x{w} {cin}->{cout} relu {relu}: rms error {err} of outputs of rms {rms}");
            assert!(worst > 0.0, "the int8 layer is not the fp32 one");
        }
    }
}

#[test]
fn weights_are_symmetric_per_output_channel_and_each_position_fills_the_bytes() {
    // One input channel, two output channels: channel 0's weights run
    // from -2 to 2 over the taps, channel 1's from 0 to -0.5.
    let w = (0..9).flat_map(|t| [(t as f32 - 4.0) / 2.0, -0.5 * t as f32 / 8.0]).collect();
    let q = QuantConv::new(&Dense { k: 9, n: 2, w, b: vec![0.1, -0.2] }, 1);
    assert_eq!(q.w_scale, vec![2.0 / 127.0, 0.5 / 127.0]);
    assert_eq!((q.cin_padded(), q.cout_padded()), (4, 16));
    assert_eq!((q.weight(8, 0, 0), q.weight(0, 0, 0), q.weight(4, 0, 0)), (127, -127, 0), "-2..2 onto -127..127");
    assert_eq!((q.weight(8, 0, 1), q.weight(0, 0, 1)), (-127, 0));
    for kernel in Int8Kernel::ALL.into_iter().filter(|k| k.available()) {
        // Three positions of six squares, each with its own range.
        let src = [[0.0, 1.004, 2.55, -3.0, 0.006, 0.0049], [0.0, 1.0, 5.1, 2.5, -1.0, 0.5], [0.0, 0.08, 0.2, 0.0, 0.0, 0.04]].concat();
        let (mut bytes, mut scales) = ([9u8; 72], [f32::NAN; 3]);
        quantize_input(kernel, &q, 6, &src, &mut bytes, &mut scales);
        let first: Vec<u8> = bytes.chunks(4).map(|row| row[0]).collect();
        assert_eq!(first, [[0, 100, 255, 0, 1, 0], [0, 50, 255, 125, 0, 25], [0, 102, 255, 0, 0, 51]].concat(), "{kernel:?}: rounded, the largest 255");
        for (got, want) in scales.iter().zip([0.01, 0.02, 0.2 / 255.0]) {
            assert!((got - want).abs() < 1e-5 * want, "{kernel:?}: scales {scales:?}");
        }
        assert!(bytes.chunks(4).all(|row| row[1..] == [0, 0, 0]), "{kernel:?}: rows padded with zeros");
        // All zeros: bytes 0 whatever the scale.
        quantize_input(kernel, &q, 6, &[0.0; 6], &mut bytes[..24], &mut scales[..1]);
        assert!(bytes[..24].iter().all(|&b| b == 0) && scales[0] == 1.0, "{kernel:?}");
        // Dequantized: sum * scale * w_scale + bias, ReLU on request.
        let mut acc = vec![0i32; 2 * 16];
        acc[0] = 127 * 255;
        acc[1] = 127 * 10;
        acc[16] = -127;
        let mut out = [f32::NAN; 4];
        dequantize(kernel, &q, 1, &acc, &[0.01, 0.5], &mut out, false);
        for (got, want) in out.iter().zip([2.0 * 2.55 + 0.1, 0.5 * 0.1 - 0.2, -2.0 * 0.5 + 0.1, -0.2]) {
            assert!((got - want).abs() < 1e-5, "{kernel:?}: {out:?}");
        }
        dequantize(kernel, &q, 1, &acc, &[0.01, 0.5], &mut out, true);
        assert_eq!(out[1], 0.0, "{kernel:?}: ReLU");
    }
}

/// The AVX-512 quantization and dequantization against the scalar
/// reference, value for value: halves (rounded away from zero, where
/// adding a half and truncating would round 0.49999997 up), negatives,
/// NaN, values above the largest, rows with and without padding, and
/// whole positions of zeros.
#[test]
fn the_vnni_quantization_writes_the_scalar_kernels_bytes_and_values() {
    if !Int8Kernel::Vnni.available() {
        eprintln!("this CPU has no AVX-512 VNNI: only the scalar kernel runs here");
        return;
    }
    let same = |a: f32, b: f32| a == b || (a.is_nan() && b.is_nan());
    let mut rng = Rng::new(3);
    let awkward = [0.5, 1.5, 2.5, 254.5, 0.499_999_97, 0.500_000_06, -0.5, -3.0, f32::NAN, 1e-9, 255.0, 0.0, -0.0];
    for (h, w, cin, cout) in SHAPES {
        let hw = h * w;
        let d = Dense { k: 9 * cin, n: cout, w: rng.values(9 * cin * cout, -1.0, 1.0), b: rng.values(cout, -0.5, 0.5) };
        let q = QuantConv::new(&d, cin);
        // Position 0 random, position 1 with the awkward values at the
        // scale 1 (its largest input is 255, a NaN is no largest), position 2 all zeros.
        let mut src = rng.values(hw * cin, 0.0, 3.5);
        src.extend((0..hw * cin).map(|i| if i == 0 { 255.0 } else { awkward[i % awkward.len()] }));
        src.extend(vec![0.0; hw * cin]);
        let run = |kernel| {
            let mut bytes = vec![0xAA; 3 * hw * q.cin_padded()];
            let mut scales = vec![f32::NAN; 3];
            quantize_input(kernel, &q, hw, &src, &mut bytes, &mut scales);
            let acc: Vec<i32> = (0..bytes.len() / q.cin_padded() * q.cout_padded()).map(|i| (i as i32 * 7919) % 200_001 - 100_000).collect();
            let outs = [false, true].map(|relu| {
                let mut out = vec![f32::NAN; 3 * hw * cout];
                dequantize(kernel, &q, hw, &acc, &scales, &mut out, relu);
                out
            });
            (bytes, scales, outs)
        };
        let (want, got) = (run(Int8Kernel::Scalar), run(Int8Kernel::Vnni));
        assert_eq!(got.0, want.0, "{h}x{w} {cin}->{cout}: bytes");
        assert!(got.1.iter().zip(&want.1).all(|(&a, &b)| a.to_bits() == b.to_bits()), "{h}x{w} {cin}->{cout}: scales {:?} vs {:?}", got.1, want.1);
        for (relu, (g, e)) in got.2.iter().zip(&want.2).enumerate() {
            for (i, (&a, &b)) in g.iter().zip(e).enumerate() {
                assert!(same(a, b), "{h}x{w} {cin}->{cout} relu {relu}: value {i}: {a} vs {b}");
            }
        }
        let awkward_bytes: Vec<u8> = want.0[hw * q.cin_padded()..][..hw * q.cin_padded()].chunks(q.cin_padded()).flat_map(|row| row[..cin].to_vec()).collect();
        for (i, (&byte, x)) in awkward_bytes.iter().zip(awkward.iter().cycle()).enumerate().skip(1) {
            let expected = if x.is_nan() { 0 } else { x.round().clamp(0.0, 255.0) as u8 };
            assert_eq!(byte, expected, "{h}x{w} {cin}->{cout}: input {x} (value {i}) rounds half away from zero");
        }
    }
}

/// [`convolve`] (AMX dequantizes block by block) writes the values of the
/// scalar kernel's sums dequantized by the scalar kernel, to the bit, with
/// and without ReLU, on every shape and kernel.
#[test]
fn every_kernel_convolves_to_the_scalar_kernels_values_exactly() {
    let mut rng = Rng::new(5);
    for (i, (h, w, cin, cout)) in SHAPES.into_iter().enumerate() {
        let hw = h * w;
        let d = Dense { k: 9 * cin, n: cout, w: rng.values(9 * cin * cout, -1.0, 1.0), b: rng.values(cout, -0.5, 0.5) };
        let q = QuantConv::new(&d, cin);
        let positions = 1 + (i + 2) % 5;
        let src = rng.values(positions * hw * cin, 0.0, 3.5);
        let (taps, zeros) = (taps(h, w), vec![0u8; q.cin_padded()]);
        let board = Board { hw, taps: &taps, zeros: &zeros };
        for relu in [false, true] {
            let run = |kernel| {
                let (acc, scales) = sums(Int8Kernel::Scalar, &q, h, w, &src);
                let mut bytes = vec![0; src.len() / cin * q.cin_padded()];
                let mut again = vec![f32::NAN; positions];
                quantize_input(Int8Kernel::Scalar, &q, hw, &src, &mut bytes, &mut again);
                assert_eq!(again, scales);
                let mut out = vec![f32::NAN; positions * hw * cout];
                if kernel == Int8Kernel::Scalar {
                    dequantize(kernel, &q, hw, &acc, &scales, &mut out, relu);
                } else {
                    let mut scratch = vec![i32::MIN; acc.len()];
                    convolve(kernel, &q, board, &bytes, &scales, &mut scratch, &mut out, relu);
                }
                out
            };
            let want = run(Int8Kernel::Scalar);
            assert!(want.iter().all(|v| v.is_finite()));
            for kernel in fast_kernels() {
                let got = run(kernel);
                for (j, (a, b)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(a.to_bits(), b.to_bits(), "{kernel:?} {h}x{w} {cin}->{cout} relu {relu}: value {j}: {a} vs {b}");
                }
            }
        }
    }
}
