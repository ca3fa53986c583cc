//! A direct 3x3 convolution on square-major activations, for [`crate::fastnet`].
//!
//! The im2col route (copy every activation nine times into `[B*HW, 9*C]`,
//! then one matrix product) spent its time in copies: a profile of the
//! quick net (2x24, batch 32, one thread; `perf record` under
//! `scripts/bench-onnx.py`'s forward pass) put 40% in `matrixmultiply`'s
//! packing of that buffer, 7% in the im2col copy and 25% in the product's
//! kernel. With 24 output channels each input value feeds only 24
//! multiply-adds, so copying it twice costs as much as using it.
//!
//! Here each output tile (a few squares × a block of output channels) is
//! accumulated in registers straight from the activations: for each tap,
//! the tile's squares read their neighbour's channel row (or a row of zeros
//! off the board), each value broadcast against one row of the `[9*Cin,
//! Cout]` weight matrix. Nothing is copied or packed. The kernel is written
//! once over fixed-size lane arrays that the compiler turns into vector
//! instructions; it is compiled for AVX2 + FMA and chosen at run time when
//! the CPU has them (AVX-512 where present, for its 32 registers), with the
//! same code without FMA as the fallback. FastNet's tower convolves layers
//! of 32 channels and more in whole vectors of 16 with Winograd's algorithm
//! instead ([`crate::winograd`]); other wide layers stay on im2col (see
//! [`DIRECT_MAX_COUT`]).

use crate::weights::Dense;

/// Lanes of one accumulator vector (an AVX2 register of `f32`).
const LANES: usize = 8;
/// Output squares of one tile.
const ROWS: usize = 4;

/// The most output channels [`FastNet`](crate::fastnet) convolves directly.
/// Measured with `pacozero bench net --blocks 4` (the FastNet column, batches
/// 1, 8, 32 and 256, the im2col binary against this one in one run): 1.06-1.2x
/// at 32 channels, 1.14-1.45x at 64, but 0.75-0.89x at 128 (the GPU
/// configuration's width), where each value feeds enough multiply-adds that
/// the copies matter less than `matrixmultiply`'s 16-lane AVX-512 kernel.
const DIRECT_MAX_COUT: usize = 64;

/// Whether the kernel can compute `cout` output channels (whole vectors).
fn fits(cout: usize) -> bool {
    cout > 0 && cout.is_multiple_of(LANES)
}

/// Whether [`FastNet`](crate::fastnet) convolves to `cout` channels directly
/// on a board of `hw` squares (see [`DIRECT_MAX_COUT`]); others go through
/// im2col.
pub(crate) fn supports(cout: usize, hw: usize) -> bool {
    fits(cout) && cout <= DIRECT_MAX_COUT && hw.is_multiple_of(ROWS)
}

/// The board a convolution runs on.
#[derive(Clone, Copy)]
pub(crate) struct Board<'a> {
    /// Squares `H*W` (a multiple of 4).
    pub hw: usize,
    /// `taps[sq*9 + t]`: the source square of tap `t = ky*3 + kx` of square
    /// `sq`, or -1 off the board.
    pub taps: &'a [i32],
    /// At least `Cin` zeros: the rows read off the board.
    pub zeros: &'a [f32],
}

/// Each square's nine neighbours on an `h` x `w` board, as [`Board::taps`]
/// holds them: `taps[sq*9 + t]` is the square tap `t = ky*3 + kx` of `sq`
/// reads, or -1 off the board.
pub(crate) fn taps(h: usize, w: usize) -> Vec<i32> {
    let mut t = vec![-1; h * w * 9];
    for y in 0..h as i32 {
        for x in 0..w as i32 {
            for k in 0..9 {
                let (sy, sx) = (y + k / 3 - 1, x + k % 3 - 1);
                if (0..h as i32).contains(&sy) && (0..w as i32).contains(&sx) {
                    t[(y as usize * w + x as usize) * 9 + k as usize] = sy * w as i32 + sx;
                }
            }
        }
    }
    t
}

/// `out[B*HW, Cout] = conv3x3(src[B*HW, Cin]) + bias` (ReLU when `relu`),
/// with `d` the `[9*Cin, Cout]` im2col weight matrix (row `t*Cin + c` for
/// tap `t = ky*3 + kx`). Needs `d.n` a multiple of 8.
pub(crate) fn conv3x3(d: &Dense, board: Board, src: &[f32], cin: usize, out: &mut [f32], relu: bool) {
    conv3x3_on(Kernel::best(), d, board, src, cin, out, relu);
}

/// The builds of the kernel, for the CPU's instruction sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kernel {
    /// Baseline x86-64 (SSE2) or another architecture, no fused multiply-add.
    Portable,
    /// AVX2 with FMA: 16 vector registers.
    Avx2,
    /// AVX-512 (F, VL): the same 8-lane code with 32 vector registers.
    Avx512,
}

/// The instruction-set extensions the kernels need.
#[derive(Clone, Copy, Debug, Default)]
struct Features {
    avx2: bool,
    fma: bool,
    avx512f: bool,
    avx512vl: bool,
}

impl Features {
    /// What this CPU has (none of them off x86-64).
    fn of_this_cpu() -> Features {
        #[cfg(target_arch = "x86_64")]
        {
            Features {
                avx2: std::is_x86_feature_detected!("avx2"),
                fma: std::is_x86_feature_detected!("fma"),
                avx512f: std::is_x86_feature_detected!("avx512f"),
                avx512vl: std::is_x86_feature_detected!("avx512vl"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Features::default()
        }
    }
}

impl Kernel {
    /// Whether a CPU with `features` runs the build.
    fn runs_on(self, f: Features) -> bool {
        match self {
            Kernel::Portable => true,
            Kernel::Avx2 => f.avx2 && f.fma,
            Kernel::Avx512 => f.avx512f && f.avx512vl && Kernel::Avx2.runs_on(f),
        }
    }

    /// Whether this CPU runs the build.
    pub(crate) fn available(self) -> bool {
        self.runs_on(Features::of_this_cpu())
    }

    /// The widest build a CPU with `features` runs.
    fn best_for(f: Features) -> Kernel {
        [Kernel::Avx512, Kernel::Avx2].into_iter().find(|k| k.runs_on(f)).unwrap_or(Kernel::Portable)
    }

    /// The widest build this CPU runs.
    pub(crate) fn best() -> Kernel {
        Kernel::best_for(Features::of_this_cpu())
    }
}

/// Whether [`conv1x1`] computes `cout` output channels (whole vectors, at
/// most [`DIRECT_MAX_COUT`]).
pub(crate) fn supports_1x1(cout: usize) -> bool {
    fits(cout) && cout <= DIRECT_MAX_COUT
}

/// A 1x1 convolution: `out[m, n] = src[m, k] · d.w[k, n] + d.b` (ReLU when
/// `relu`), each row a square's channels. The heads' 1x1 convolutions read
/// 24-64 channels into 8-32: a product this small was mostly
/// `matrixmultiply`'s packing of both matrices (10% of the quick net's
/// forward pass in int8), and a row at a time mostly the loop around it.
/// Here tiles of four rows sum in registers, as the 3x3 kernel's.
pub(crate) fn conv1x1(d: &Dense, src: &[f32], out: &mut [f32], relu: bool) {
    conv1x1_on(Kernel::best(), d, src, out, relu);
}

fn conv1x1_on(kernel: Kernel, d: &Dense, src: &[f32], out: &mut [f32], relu: bool) {
    let (k, n) = (d.k, d.n);
    // Checked in release builds too: the tiles read through raw pointers.
    assert!(supports_1x1(n) && k > 0 && d.w.len() == k * n && d.b.len() == n, "conv1x1: [{k}, {n}] is not a layer of whole vectors");
    assert!(
        src.len().is_multiple_of(k) && src.len() / k == out.len() / n && out.len().is_multiple_of(n),
        "conv1x1: {} inputs of {k} into {} outputs of {n}",
        src.len(),
        out.len()
    );
    assert!(kernel.available(), "{kernel:?} needs instructions this CPU lacks");
    match kernel {
        Kernel::Portable => conv1x1_with::<false>(d, src, out, relu),
        // SAFETY: the CPU has the features these functions are compiled for (asserted).
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { conv1x1_avx2(d, src, out, relu) },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { conv1x1_avx512(d, src, out, relu) },
        #[cfg(not(target_arch = "x86_64"))]
        _ => unreachable!("only the portable kernel is available here"),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn conv1x1_avx2(d: &Dense, src: &[f32], out: &mut [f32], relu: bool) {
    conv1x1_with::<true>(d, src, out, relu);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn conv1x1_avx512(d: &Dense, src: &[f32], out: &mut [f32], relu: bool) {
    conv1x1_with::<true>(d, src, out, relu);
}

#[inline(always)]
fn conv1x1_with<const FMA: bool>(d: &Dense, src: &[f32], out: &mut [f32], relu: bool) {
    let rows = out.len() / d.n;
    let mut row0 = 0;
    while row0 < rows {
        let r = if rows - row0 >= ROWS { ROWS } else { 1 };
        let mut col = 0;
        while col < d.n {
            let vectors = ((d.n - col) / LANES).min(4);
            match (r, vectors) {
                (ROWS, 4) => tile1x1::<4, ROWS, FMA>(d, src, row0, col, out, relu),
                (ROWS, 3) => tile1x1::<3, ROWS, FMA>(d, src, row0, col, out, relu),
                (ROWS, 2) => tile1x1::<2, ROWS, FMA>(d, src, row0, col, out, relu),
                (ROWS, 1) => tile1x1::<1, ROWS, FMA>(d, src, row0, col, out, relu),
                (_, 4) => tile1x1::<4, 1, FMA>(d, src, row0, col, out, relu),
                (_, 3) => tile1x1::<3, 1, FMA>(d, src, row0, col, out, relu),
                (_, 2) => tile1x1::<2, 1, FMA>(d, src, row0, col, out, relu),
                (_, 1) => tile1x1::<1, 1, FMA>(d, src, row0, col, out, relu),
                _ => unreachable!("{} output channels: not whole vectors of {LANES}", d.n),
            }
            col += LANES * vectors;
        }
        row0 += r;
    }
}

/// One tile of [`conv1x1`]: rows `row0 .. row0 + R` × outputs `col .. col + V*LANES`.
#[inline(always)]
fn tile1x1<const V: usize, const R: usize, const FMA: bool>(d: &Dense, src: &[f32], row0: usize, col: usize, out: &mut [f32], relu: bool) {
    let (k, n) = (d.k, d.n);
    assert!(col + V * LANES <= n && (row0 + R) * k <= src.len() && (row0 + R) * n <= out.len());
    let mut acc = [[[0.0f32; LANES]; V]; R];
    for row in acc.iter_mut() {
        for (v, lanes) in row.iter_mut().enumerate() {
            lanes.copy_from_slice(&d.b[col + v * LANES..col + (v + 1) * LANES]);
        }
    }
    let (w, a) = (d.w.as_ptr(), src[row0 * k..].as_ptr());
    for c in 0..k {
        // SAFETY: row `c < k` of the `[k, n]` weights holds `n >= col +
        // V*LANES` values, and rows `row0 .. row0 + R` of the input `k`
        // each (both asserted above). Unchecked reads keep the bounds
        // checks out of the loop.
        let w: [[f32; LANES]; V] = std::array::from_fn(|v| unsafe { std::ptr::read_unaligned(w.add(c * n + col + v * LANES) as *const [f32; LANES]) });
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = unsafe { *a.add(r * k + c) };
            for (acc, w) in acc.iter_mut().zip(&w) {
                for (s, &w) in acc.iter_mut().zip(w) {
                    *s = if FMA { x.mul_add(w, *s) } else { *s + x * w };
                }
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        let o = &mut out[(row0 + r) * n + col..][..V * LANES];
        for (v, lanes) in row.iter().enumerate() {
            for (l, &x) in lanes.iter().enumerate() {
                o[v * LANES + l] = if relu { x.max(0.0) } else { x };
            }
        }
    }
}

fn conv3x3_on(kernel: Kernel, d: &Dense, board: Board, src: &[f32], cin: usize, out: &mut [f32], relu: bool) {
    let (n, hw) = (d.n, board.hw);
    assert!(fits(n) && d.k == 9 * cin && hw.is_multiple_of(ROWS) && board.zeros.len() >= cin && board.taps.len() == 9 * hw);
    assert_eq!(src.len() / (hw * cin), out.len() / (hw * n));
    assert!(kernel.available(), "{kernel:?} needs instructions this CPU lacks");
    match kernel {
        Kernel::Portable => conv3x3_with::<false>(d, board, src, cin, out, relu),
        // SAFETY: the CPU has the features these functions are compiled for (asserted).
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { conv3x3_avx2(d, board, src, cin, out, relu) },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => unsafe { conv3x3_avx512(d, board, src, cin, out, relu) },
        #[cfg(not(target_arch = "x86_64"))]
        _ => unreachable!("only the portable kernel is available here"),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn conv3x3_avx2(d: &Dense, board: Board, src: &[f32], cin: usize, out: &mut [f32], relu: bool) {
    conv3x3_with::<true>(d, board, src, cin, out, relu);
}

/// The same kernel with AVX-512's 32 vector registers (still 8-lane vectors:
/// the quick net's 24 channels are three of them).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn conv3x3_avx512(d: &Dense, board: Board, src: &[f32], cin: usize, out: &mut [f32], relu: bool) {
    conv3x3_with::<true>(d, board, src, cin, out, relu);
}

/// The kernel; `FMA` uses fused multiply-adds (only where the CPU has them:
/// elsewhere `mul_add` is a slow library call).
#[inline(always)]
fn conv3x3_with<const FMA: bool>(d: &Dense, board: Board, src: &[f32], cin: usize, out: &mut [f32], relu: bool) {
    let (n, hw) = (d.n, board.hw);
    let positions = out.len() / (hw * n);
    for p in 0..positions {
        let img = &src[p * hw * cin..(p + 1) * hw * cin];
        let dst = &mut out[p * hw * n..(p + 1) * hw * n];
        for sq0 in (0..hw).step_by(ROWS) {
            // Column blocks of 3, 2 or 1 vectors (24, 16 or 8 channels).
            let mut col = 0;
            while col < n {
                let vectors = ((n - col) / LANES).min(3);
                match vectors {
                    3 => tile::<3, FMA>(d, board, img, cin, sq0, col, dst, relu),
                    2 => tile::<2, FMA>(d, board, img, cin, sq0, col, dst, relu),
                    1 => tile::<1, FMA>(d, board, img, cin, sq0, col, dst, relu),
                    _ => unreachable!("{n} output channels: not whole vectors of {LANES}"),
                }
                col += LANES * vectors;
            }
        }
    }
}

/// One tile: squares `sq0 .. sq0 + ROWS` of one position × output channels
/// `col .. col + V*LANES`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn tile<const V: usize, const FMA: bool>(d: &Dense, board: Board, img: &[f32], cin: usize, sq0: usize, col: usize, dst: &mut [f32], relu: bool) {
    let n = d.n;
    let mut acc = [[[0.0f32; LANES]; V]; ROWS];
    for row in acc.iter_mut() {
        for (v, lanes) in row.iter_mut().enumerate() {
            lanes.copy_from_slice(&d.b[col + v * LANES..col + (v + 1) * LANES]);
        }
    }
    assert!(col + V * LANES <= n && d.w.len() == 9 * cin * n);
    for t in 0..9 {
        // The tile's squares' source rows for this tap (zeros off the board).
        let mut rows = [board.zeros.as_ptr(); ROWS];
        for (r, row) in rows.iter_mut().enumerate() {
            let from = board.taps[(sq0 + r) * 9 + t];
            if from >= 0 {
                *row = img[from as usize * cin..][..cin].as_ptr();
            }
        }
        // The tap's `cin * n` weights start here (all there: the length is asserted above).
        let w_tap = d.w[t * cin * n..].as_ptr();
        for c in 0..cin {
            // SAFETY: every row holds `cin` values (sliced above, or the
            // zeros, at least `cin` long: asserted by `conv3x3`), and weight
            // row `c` of the tap holds `n >= col + V*LANES` values (asserted).
            // Unchecked reads keep the bounds checks out of the hot loop.
            let w: [[f32; LANES]; V] = std::array::from_fn(|v| unsafe { std::ptr::read_unaligned(w_tap.add(c * n + col + v * LANES) as *const [f32; LANES]) });
            for r in 0..ROWS {
                let a = unsafe { *rows[r].add(c) };
                for v in 0..V {
                    for l in 0..LANES {
                        acc[r][v][l] = if FMA { a.mul_add(w[v][l], acc[r][v][l]) } else { acc[r][v][l] + a * w[v][l] };
                    }
                }
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        let o = &mut dst[(sq0 + r) * n + col..(sq0 + r) * n + col + V * LANES];
        for (v, lanes) in row.iter().enumerate() {
            for (l, &x) in lanes.iter().enumerate() {
                o[v * LANES + l] = if relu { x.max(0.0) } else { x };
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small deterministic generator (the test needs no crate for it).
    pub(crate) fn values(seed: u64, n: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
            })
            .collect()
    }

    /// The convolution from its definition: for each square (y, x), the sum
    /// over the taps (ky, kx) whose square (y+ky-1, x+kx-1) is on the board.
    pub(crate) fn reference(d: &Dense, h: usize, w: usize, src: &[f32], cin: usize, relu: bool) -> Vec<f32> {
        let (hw, n) = (h * w, d.n);
        let positions = src.len() / (hw * cin);
        let mut out = vec![0.0; positions * hw * n];
        for p in 0..positions {
            for y in 0..h as i64 {
                for x in 0..w as i64 {
                    for co in 0..n {
                        let mut sum = d.b[co] as f64;
                        for ky in 0..3i64 {
                            for kx in 0..3i64 {
                                let (sy, sx) = (y + ky - 1, x + kx - 1);
                                if sy < 0 || sx < 0 || sy >= h as i64 || sx >= w as i64 {
                                    continue;
                                }
                                let t = (ky * 3 + kx) as usize;
                                for c in 0..cin {
                                    let a = src[(p * hw + sy as usize * w + sx as usize) * cin + c];
                                    sum += a as f64 * d.w[(t * cin + c) * n + co] as f64;
                                }
                            }
                        }
                        let v = sum as f32;
                        out[(p * hw + y as usize * w + x as usize) * n + co] = if relu { v.max(0.0) } else { v };
                    }
                }
            }
        }
        out
    }

    #[test]
    fn direct_convolution_matches_the_definition() {
        // Both boards; input widths of the stems (41, 23) and towers; output
        // widths taking every column-block size (8, 16, 24, 40 = 24+16, 128).
        for (h, w) in [(8, 8), (10, 10)] {
            for (cin, cout) in [(41, 24), (23, 16), (24, 24), (24, 8), (7, 40), (128, 128)] {
                for relu in [false, true] {
                    let d = Dense { k: 9 * cin, n: cout, w: values(cin as u64, 9 * cin * cout), b: values(cout as u64 + 7, cout) };
                    let positions = 3;
                    let src = values(h as u64 * 1000 + cin as u64, positions * h * w * cin);
                    let want = reference(&d, h, w, &src, cin, relu);
                    let (taps, zeros) = (taps(h, w), vec![0.0; cin]);
                    // Every build this CPU runs (the test machines have AVX-512).
                    for kernel in [Kernel::Portable, Kernel::Avx2, Kernel::Avx512].into_iter().filter(|k| k.available()) {
                        let mut out = vec![f32::NAN; positions * h * w * cout];
                        conv3x3_on(kernel, &d, Board { hw: h * w, taps: &taps, zeros: &zeros }, &src, cin, &mut out, relu);
                        for (i, (a, b)) in out.iter().zip(&want).enumerate() {
                            assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "{kernel:?} {h}x{w} {cin}->{cout} relu {relu} [{i}]: {a} vs {b}");
                        }
                    }
                }
            }
        }
    }

    /// The 1x1 convolution from its definition, in f64, on every build:
    /// widths of every tile (8 to 64 outputs, 1 to 4 vectors and more than
    /// one block), row counts with and without a tail of single rows.
    #[test]
    fn the_1x1_convolution_matches_the_definition() {
        for (k, n) in [(24, 32), (24, 8), (1, 8), (7, 40), (64, 64), (33, 24)] {
            for rows in [1, 3, 4, 7, 64, 130] {
                for relu in [false, true] {
                    let d = Dense { k, n, w: values(k as u64 * 31 + n as u64, k * n), b: values(n as u64 + 3, n) };
                    let src = values(rows as u64 + 11, rows * k);
                    let want: Vec<f32> = src
                        .chunks_exact(k)
                        .flat_map(|row| {
                            let d = &d;
                            (0..n).map(move |j| {
                                let v = (d.b[j] as f64 + row.iter().enumerate().map(|(i, &x)| x as f64 * d.w[i * n + j] as f64).sum::<f64>()) as f32;
                                if relu {
                                    v.max(0.0)
                                } else {
                                    v
                                }
                            })
                        })
                        .collect();
                    for kernel in [Kernel::Portable, Kernel::Avx2, Kernel::Avx512].into_iter().filter(|k| k.available()) {
                        let mut out = vec![f32::NAN; rows * n];
                        conv1x1_on(kernel, &d, &src, &mut out, relu);
                        for (i, (a, b)) in out.iter().zip(&want).enumerate() {
                            assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "{kernel:?} [{k}, {n}] x {rows} rows, relu {relu} [{i}]: {a} vs {b}");
                        }
                    }
                }
            }
        }
        assert!(supports_1x1(8) && supports_1x1(32) && supports_1x1(64));
        assert!(!supports_1x1(95) && !supports_1x1(12) && !supports_1x1(72) && !supports_1x1(0));
    }

    /// Every combination of the four extensions: AVX2 needs FMA too, AVX-512
    /// needs F, VL and the AVX2 build's extensions.
    #[test]
    fn each_build_needs_all_its_extensions() {
        for bits in 0..16u8 {
            let f = Features { avx2: bits & 1 != 0, fma: bits & 2 != 0, avx512f: bits & 4 != 0, avx512vl: bits & 8 != 0 };
            let avx2 = bits & 3 == 3;
            let avx512 = bits == 15;
            assert_eq!((Kernel::Portable.runs_on(f), Kernel::Avx2.runs_on(f), Kernel::Avx512.runs_on(f)), (true, avx2, avx512), "{f:?}");
            let best = if avx512 {
                Kernel::Avx512
            } else if avx2 {
                Kernel::Avx2
            } else {
                Kernel::Portable
            };
            assert_eq!(Kernel::best_for(f), best, "{f:?}");
        }
    }

    #[test]
    fn the_dispatcher_runs_the_widest_build_this_cpu_has() {
        #[cfg(target_arch = "x86_64")]
        {
            let f = Features::of_this_cpu();
            let detected = (
                std::is_x86_feature_detected!("avx2"),
                std::is_x86_feature_detected!("fma"),
                std::is_x86_feature_detected!("avx512f"),
                std::is_x86_feature_detected!("avx512vl"),
            );
            assert_eq!((f.avx2, f.fma, f.avx512f, f.avx512vl), detected, "the dispatcher reads this CPU's extensions");
        }
        let best = Kernel::best();
        assert!(best.available() && Kernel::Portable.available());
        // The widest available: no build listed after it is available.
        let order = [Kernel::Portable, Kernel::Avx2, Kernel::Avx512];
        let at = order.iter().position(|&k| k == best).unwrap();
        assert!(order[at + 1..].iter().all(|k| !k.available()), "{best:?}");
        let (h, w, cin, cout) = (4, 6, 5, 16);
        let d = Dense { k: 9 * cin, n: cout, w: values(3, 9 * cin * cout), b: values(4, cout) };
        let src = values(5, 2 * h * w * cin);
        let (taps, zeros) = (taps(h, w), vec![0.0; cin]);
        let mut out = vec![f32::NAN; 2 * h * w * cout];
        conv3x3(&d, Board { hw: h * w, taps: &taps, zeros: &zeros }, &src, cin, &mut out, true);
        let want = reference(&d, h, w, &src, cin, true);
        for (i, (a, b)) in out.iter().zip(&want).enumerate() {
            assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "[{i}]: {a} vs {b}");
        }
        assert!(want.contains(&0.0) && want.iter().any(|&v| v > 0.0), "ReLU clips some outputs and not others");
    }

    #[test]
    fn only_narrow_layers_of_whole_vectors_are_taken() {
        assert!(supports(8, 64) && supports(24, 64) && supports(32, 100));
        assert!(supports(64, 64));
        assert!(!supports(0, 64) && !supports(12, 64) && !supports(20, 64) && !supports(72, 64) && !supports(128, 64));
        assert!(!supports(24, 66), "squares in whole tiles of 4");
    }
}
