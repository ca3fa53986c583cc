//! Winograd's F(2x2, 3x3) convolution for FastNet's wide fp32 layers.
//!
//! A 3x3 convolution of `cin` to `cout` channels costs `9 * cin * cout`
//! multiply-adds a square. Winograd's minimal filtering (Lavin and Gray,
//! "Fast Algorithms for Convolutional Neural Networks", 2015) computes each
//! 2x2 block of outputs from the 4x4 block of inputs around it with 16
//! products a channel pair instead of 36: 2.25 times fewer. The transforms
//! that make this possible are additions only:
//!
//! * the weights once, at load: `U = G g Gᵀ`, 16 values for each `(cin,
//!   cout)` pair, held as 16 matrices `U[ξ]` of `[cin, cout]`;
//! * the input at each layer: `V = Bᵀ d B` for each tile's 4x4 block `d`
//!   of each channel (zeros off the board), held as `[ξ][tile][cin]`;
//! * 16 matrix products, one a point `ξ` of the 4x4 block:
//!   `M[ξ] = V[ξ] · U[ξ]`, `[tiles, cout]` each (the tiles of all positions
//!   one after the other: a point's rows are contiguous, so the product
//!   reads them without cache conflicts);
//! * the output: `Y = Aᵀ M A`, the 2x2 outputs of each tile, plus the bias
//!   (and ReLU), written to the squares on the board.
//!
//! Boards of odd height or width get a last row or column of tiles whose
//! outputs off the board are not written. F(2x2, 3x3) rounds a little
//! differently from the direct sum (its transforms add and halve); the tests
//! compare it with the convolution's definition in f64.
//!
//! The products are the work: on AVX-512 they run in a kernel of this file
//! that reads `U[ξ]` as laid out at load (no packing: at batch 1 a product
//! has only 16 rows, and `matrixmultiply` would pack the 64 kB of `U[ξ]` at
//! every call); elsewhere `matrixmultiply`, which takes the strides as they
//! are.

use crate::weights::Dense;

/// Floats of one SIMD step of the transforms and products (an AVX-512 register).
const LANES: usize = 16;

/// The points of a tile's 4x4 block.
const POINTS: usize = 16;

/// The most rows of one tile of the AVX-512 product (6 rows x 4 vectors =
/// 24 of the 32 registers as sums, 4 for the weights).
const TILE_ROWS: usize = 6;

/// The most vectors of 16 output channels of one tile of the product.
const TILE_VECTORS: usize = 4;

/// How many rows of weights ahead the first tile of a block asks for.
const PREFETCH_ROWS: usize = 16;

/// The narrowest layer (output channels) FastNet convolves with Winograd.
/// Against the direct kernel ([`crate::conv3x3`]) and im2col, `pacozero
/// bench net` (FastNet, one thread, batches 1-256, a busy machine, both
/// binaries in one run) measured 1.05-1.25x at 4x32, 1.15-1.35x at 4x48,
/// 1.4-1.6x at 6x64, 1.25-1.6x at 10x128.
const MIN_COUT: usize = 32;

/// Whether FastNet convolves `cin` to `cout` channels with Winograd: wide
/// layers whose channels come in whole vectors.
pub(crate) fn supports(cin: usize, cout: usize) -> bool {
    cout >= MIN_COUT && cin.is_multiple_of(LANES) && cout.is_multiple_of(LANES)
}

/// A 3x3 same-padding convolution with its weights transformed for F(2x2, 3x3).
#[derive(Clone, Debug)]
pub(crate) struct Winograd {
    cin: usize,
    cout: usize,
    /// Board squares.
    hw: usize,
    /// The transformed weights: for each point `ξ`, for each block of
    /// columns ([`column_blocks`]), the block's `[cin, width]` rows. A block
    /// is contiguous (32 kB at 128 input channels), so it stays in the
    /// first-level cache while the product's row tiles reuse it; rows of the
    /// whole `[cin, cout]` matrix, 512 bytes apart, would fall on half of the
    /// cache's sets and evict each other.
    u: Vec<f32>,
    /// `[cout]`.
    bias: Vec<f32>,
    /// `[tile][16]`: the square each point of the tile's input block reads, or -1 off the board.
    inputs: Vec<i32>,
    /// `[tile][4]`: the square of each of the tile's 2x2 outputs, or -1 off the board.
    outputs: Vec<i32>,
    kernel: Kernel,
}

/// The builds of the transforms and products.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kernel {
    /// Any CPU: the transforms as plain loops, the products by `matrixmultiply`.
    Portable,
    /// AVX-512 F: the transforms compiled for it, the products by this file's kernel.
    Avx512,
}

impl Kernel {
    /// Whether this CPU runs the build.
    pub(crate) fn available(self) -> bool {
        match self {
            Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => std::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx512 => false,
        }
    }

    /// The fastest build this CPU runs.
    pub(crate) fn best() -> Kernel {
        if Kernel::Avx512.available() {
            Kernel::Avx512
        } else {
            Kernel::Portable
        }
    }
}

/// `G g Gᵀ` for one 3x3 filter `g[ky][kx]`, in f64 (then rounded once).
fn transform_filter(g: [[f64; 3]; 3]) -> [[f64; 4]; 4] {
    // G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]].
    let along = |a: f64, b: f64, c: f64| [a, (a + b + c) / 2.0, (a - b + c) / 2.0, c];
    let rows: [[f64; 4]; 3] = std::array::from_fn(|ky| along(g[ky][0], g[ky][1], g[ky][2]));
    let mut u = [[0.0; 4]; 4];
    for j in 0..4 {
        let col = along(rows[0][j], rows[1][j], rows[2][j]);
        for i in 0..4 {
            u[i][j] = col[i];
        }
    }
    u
}

impl Winograd {
    /// The convolution of the `[9*cin, cout]` im2col matrix `d` (row `t*cin + c`
    /// for tap `t = ky*3 + kx`) on an `h` x `w` board, on the fastest build.
    pub(crate) fn new(d: &Dense, cin: usize, h: usize, w: usize) -> Winograd {
        Winograd::with_kernel(d, cin, h, w, Kernel::best())
    }

    pub(crate) fn with_kernel(d: &Dense, cin: usize, h: usize, w: usize, kernel: Kernel) -> Winograd {
        let cout = d.n;
        assert!(d.k == 9 * cin && cin.is_multiple_of(LANES) && cout.is_multiple_of(LANES) && d.b.len() == cout);
        assert!(kernel.available(), "{kernel:?} needs instructions this CPU lacks");
        let mut u = vec![0.0f32; POINTS * cin * cout];
        for c in 0..cin {
            for co in 0..cout {
                let g = std::array::from_fn(|ky| std::array::from_fn(|kx| d.w[((ky * 3 + kx) * cin + c) * cout + co] as f64));
                let t = transform_filter(g);
                let (col, width) = column_blocks(cout).find(|&(col, width)| co < col + width).expect("every column is in a block");
                for (xi, v) in t.iter().flatten().enumerate() {
                    u[xi * cin * cout + col * cin + c * width + co - col] = *v as f32;
                }
            }
        }
        let (tiles_y, tiles_x) = (h.div_ceil(2), w.div_ceil(2));
        let square = |y: i64, x: i64| if (0..h as i64).contains(&y) && (0..w as i64).contains(&x) { (y * w as i64 + x) as i32 } else { -1 };
        let mut inputs = Vec::with_capacity(tiles_y * tiles_x * POINTS);
        let mut outputs = Vec::with_capacity(tiles_y * tiles_x * 4);
        for ty in 0..tiles_y as i64 {
            for tx in 0..tiles_x as i64 {
                for i in 0..4 {
                    for j in 0..4 {
                        inputs.push(square(2 * ty - 1 + i, 2 * tx - 1 + j));
                    }
                }
                for i in 0..2 {
                    for j in 0..2 {
                        outputs.push(square(2 * ty + i, 2 * tx + j));
                    }
                }
            }
        }
        Winograd { cin, cout, hw: h * w, u, bias: d.b.clone(), inputs, outputs, kernel }
    }

    /// Tiles of one position.
    fn tiles(&self) -> usize {
        self.outputs.len() / 4
    }

    /// Floats of scratch [`Winograd::forward`] needs for `positions`.
    pub(crate) fn scratch_len(&self, positions: usize) -> usize {
        positions * self.tiles() * POINTS * (self.cin + self.cout)
    }

    /// `out[B*HW, cout] = conv3x3(src[B*HW, cin]) + bias` (ReLU when `relu`),
    /// with `scratch` at least [`Winograd::scratch_len`] floats.
    ///
    /// It runs on the calling thread. Sharing a small batch's 16 products
    /// out over two threads was slower at batch 1 (`pacozero bench net`,
    /// 10x128: 194-210 positions a second against 242-254): waking the
    /// other thread and moving the data to it cost more than the half it did.
    pub(crate) fn forward(&self, src: &[f32], out: &mut [f32], relu: bool, scratch: &mut [f32]) {
        let positions = src.len() / (self.hw * self.cin);
        assert_eq!(src.len(), positions * self.hw * self.cin, "winograd: the input is not [B*HW, cin]");
        assert_eq!(out.len(), positions * self.hw * self.cout, "winograd: the output is not [B*HW, cout]");
        let rows = positions * self.tiles();
        let (v, rest) = scratch.split_at_mut(rows * POINTS * self.cin);
        let m = &mut rest[..rows * POINTS * self.cout];
        match self.kernel {
            Kernel::Portable => self.transform_input(src, v),
            // SAFETY: the CPU has AVX-512 F (checked when `self` was built).
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { self.transform_input_avx512(src, v) },
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx512 => unreachable!("AVX-512 is x86-64's"),
        }
        let v = &*v;
        let product = |(xi, m): (usize, &mut [f32])| self.product(&v[xi * rows * self.cin..][..rows * self.cin], xi, m);
        m.chunks_mut(rows * self.cout).enumerate().for_each(product);
        match self.kernel {
            Kernel::Portable => self.transform_output(m, out, relu),
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { self.transform_output_avx512(m, out, relu) },
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx512 => unreachable!("AVX-512 is x86-64's"),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn transform_input_avx512(&self, src: &[f32], v: &mut [f32]) {
        self.transform_input(src, v);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn transform_output_avx512(&self, m: &[f32], out: &mut [f32], relu: bool) {
        self.transform_output(m, out, relu);
    }

    /// `V = Bᵀ d B` of every tile and channel: `src [B*HW, cin]` -> `v [16, B*tiles, cin]`.
    #[inline(always)]
    fn transform_input(&self, src: &[f32], v: &mut [f32]) {
        let (cin, hw, tiles) = (self.cin, self.hw, self.tiles());
        let rows = src.len() / (hw * cin) * tiles;
        let zeros = [0.0f32; LANES];
        for (p, img) in src.chunks_exact(hw * cin).enumerate() {
            for (tile, squares) in self.inputs.chunks_exact(POINTS).enumerate() {
                let row = p * tiles + tile;
                for c0 in (0..cin).step_by(LANES) {
                    let d: [[[f32; LANES]; 4]; 4] = std::array::from_fn(|i| {
                        std::array::from_fn(|j| {
                            let s = squares[i * 4 + j];
                            if s < 0 {
                                zeros
                            } else {
                                img[s as usize * cin + c0..][..LANES].try_into().expect("a whole vector")
                            }
                        })
                    });
                    // t = Bᵀ d (rows), then V = t B (columns), Bᵀ = [[1,0,-1,0],[0,1,1,0],[0,-1,1,0],[0,1,0,-1]].
                    let t: [[[f32; LANES]; 4]; 4] = std::array::from_fn(|j| {
                        let col = |i: usize| d[i][j];
                        across(col(0), col(1), col(2), col(3))
                    });
                    // t[j][i] holds row i of Bᵀ d at column j.
                    for i in 0..4 {
                        let points = across(t[0][i], t[1][i], t[2][i], t[3][i]);
                        for (j, lanes) in points.iter().enumerate() {
                            v[((i * 4 + j) * rows + row) * cin + c0..][..LANES].copy_from_slice(lanes);
                        }
                    }
                }
            }
        }
    }

    /// `Y = Aᵀ M A` of every tile, plus the bias (ReLU when `relu`), into the
    /// squares on the board: `m [16, B*tiles, cout]` -> `out [B*HW, cout]`.
    #[inline(always)]
    fn transform_output(&self, m: &[f32], out: &mut [f32], relu: bool) {
        let (cout, hw, tiles) = (self.cout, self.hw, self.tiles());
        let rows = out.len() / (hw * cout) * tiles;
        for (p, img) in out.chunks_exact_mut(hw * cout).enumerate() {
            for (tile, squares) in self.outputs.chunks_exact(4).enumerate() {
                let row = p * tiles + tile;
                for c0 in (0..cout).step_by(LANES) {
                    let point = |xi: usize| -> [f32; LANES] { m[(xi * rows + row) * cout + c0..][..LANES].try_into().expect("a whole vector") };
                    // s = Aᵀ M (rows), then Y = s A (columns), Aᵀ = [[1,1,1,0],[0,1,-1,-1]].
                    let s: [[[f32; LANES]; 2]; 4] = std::array::from_fn(|j| reduce(point(j), point(4 + j), point(8 + j), point(12 + j)));
                    let bias: &[f32; LANES] = self.bias[c0..c0 + LANES].try_into().expect("a whole vector");
                    for i in 0..2 {
                        let y = reduce(s[0][i], s[1][i], s[2][i], s[3][i]);
                        for (j, lanes) in y.iter().enumerate() {
                            let sq = squares[i * 2 + j];
                            if sq < 0 {
                                continue;
                            }
                            let o = &mut img[sq as usize * cout + c0..][..LANES];
                            for l in 0..LANES {
                                let x = lanes[l] + bias[l];
                                o[l] = if relu { x.max(0.0) } else { x };
                            }
                        }
                    }
                }
            }
        }
    }

    /// Point `xi`'s product `M[ξ] = V[ξ] · U[ξ]`: `v [rows, cin]` -> `m [rows, cout]`.
    fn product(&self, v: &[f32], xi: usize, m: &mut [f32]) {
        let (cin, cout) = (self.cin, self.cout);
        let rows = v.len() / cin;
        assert!(v.len() == rows * cin && m.len() == rows * cout && self.u.len() == POINTS * cin * cout && xi < POINTS);
        let u = &self.u[xi * cin * cout..(xi + 1) * cin * cout];
        match self.kernel {
            Kernel::Portable => {
                for (col, width) in column_blocks(cout) {
                    // SAFETY: the rows of v and m and the block's weights
                    // u[col*cin ..][..cin*width] lie within the slices
                    // (lengths asserted above); m does not alias.
                    unsafe {
                        matrixmultiply::sgemm(
                            rows,
                            cin,
                            width,
                            1.0,
                            v.as_ptr(),
                            cin as isize,
                            1,
                            u.as_ptr().add(col * cin),
                            width as isize,
                            1,
                            0.0,
                            m.as_mut_ptr().add(col),
                            cout as isize,
                            1,
                        );
                    }
                }
            }
            // SAFETY: the CPU has AVX-512 F (checked when `self` was built).
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { product_avx512(rows, cin, cout, v, u, m) },
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx512 => unreachable!("AVX-512 is x86-64's"),
        }
    }
}

/// One point's product in AVX-512 tiles of up to 6 rows x 64 channels, the
/// sums in registers, the weights `u` read as laid out at load.
///
/// # Safety
/// The CPU has AVX-512 F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn product_avx512(rows: usize, cin: usize, cout: usize, v: &[f32], u: &[f32], m: &mut [f32]) {
    assert!(v.len() == rows * cin && u.len() == cin * cout && m.len() == rows * cout);
    for (col, width) in column_blocks(cout) {
        let mut row = 0;
        while row < rows {
            let r = (rows - row).min(TILE_ROWS);
            // SAFETY: rows row..row+r, the block's weights and its columns
            // col..col+width lie within v, u and m (lengths asserted above;
            // cout is whole vectors).
            unsafe {
                product_tile(
                    r,
                    width / LANES,
                    row == 0,
                    cin,
                    v[row * cin..].as_ptr(),
                    cin,
                    u[col * cin..].as_ptr(),
                    width,
                    m[row * cout + col..].as_mut_ptr(),
                    cout,
                )
            };
            row += r;
        }
    }
}

/// The blocks of columns of the products, `(first column, width)`: 64
/// columns (the AVX-512 tile's 4 vectors) each, and the rest in one block.
fn column_blocks(cout: usize) -> impl Iterator<Item = (usize, usize)> {
    let block = TILE_VECTORS * LANES;
    (0..cout).step_by(block).map(move |col| (col, block.min(cout - col)))
}

/// `[x0 - x2, x1 + x2, x2 - x1, x1 - x3]`, lane by lane: `Bᵀ` applied along one axis.
#[inline(always)]
fn across(x0: [f32; LANES], x1: [f32; LANES], x2: [f32; LANES], x3: [f32; LANES]) -> [[f32; LANES]; 4] {
    [
        std::array::from_fn(|l| x0[l] - x2[l]),
        std::array::from_fn(|l| x1[l] + x2[l]),
        std::array::from_fn(|l| x2[l] - x1[l]),
        std::array::from_fn(|l| x1[l] - x3[l]),
    ]
}

/// `[x0 + x1 + x2, x1 - x2 - x3]`, lane by lane: `Aᵀ` applied along one axis.
#[inline(always)]
fn reduce(x0: [f32; LANES], x1: [f32; LANES], x2: [f32; LANES], x3: [f32; LANES]) -> [[f32; LANES]; 2] {
    [std::array::from_fn(|l| x0[l] + x1[l] + x2[l]), std::array::from_fn(|l| x1[l] - x2[l] - x3[l])]
}

/// One tile of a product, dispatched to its fixed size: `r` rows (1-6) x
/// `vectors` (1-4) vectors of 16 columns. `prefetch` for the first tile of a
/// block of weights, which reads them from memory: it asks for the weights
/// [`PREFETCH_ROWS`] rows ahead (past the block's end, the next block's:
/// the blocks lie in the order the products read them). At batch 1 a block
/// serves only three tiles, and waiting for its weights was the time.
///
/// # Safety
/// The CPU has AVX-512 F; `a` has `r` rows of `k` floats at stride `lda`,
/// `b` `k` rows of `16 * vectors` floats at stride `ldb`, `c` `r` rows of
/// `16 * vectors` floats at stride `ldc`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)]
unsafe fn product_tile(r: usize, vectors: usize, prefetch: bool, k: usize, a: *const f32, lda: usize, b: *const f32, ldb: usize, c: *mut f32, ldc: usize) {
    macro_rules! dispatch {
        ($($r:literal)*) => {
            match (r, vectors, prefetch) {
                $(
                    ($r, 4, false) => unsafe { tile::<$r, 4, false>(k, a, lda, b, ldb, c, ldc) },
                    ($r, 3, false) => unsafe { tile::<$r, 3, false>(k, a, lda, b, ldb, c, ldc) },
                    ($r, 2, false) => unsafe { tile::<$r, 2, false>(k, a, lda, b, ldb, c, ldc) },
                    ($r, 1, false) => unsafe { tile::<$r, 1, false>(k, a, lda, b, ldb, c, ldc) },
                    ($r, 4, true) => unsafe { tile::<$r, 4, true>(k, a, lda, b, ldb, c, ldc) },
                    ($r, 3, true) => unsafe { tile::<$r, 3, true>(k, a, lda, b, ldb, c, ldc) },
                    ($r, 2, true) => unsafe { tile::<$r, 2, true>(k, a, lda, b, ldb, c, ldc) },
                    ($r, 1, true) => unsafe { tile::<$r, 1, true>(k, a, lda, b, ldb, c, ldc) },
                )*
                _ => unreachable!("a tile of {r} rows x {vectors} vectors"),
            }
        };
    }
    dispatch!(1 2 3 4 5 6);
}

/// `c[R, 16V] = a[R, k] · b[k, 16V]`: the sums in `R * V` registers, each
/// weight vector loaded once for the `R` rows, each input broadcast once for
/// the `V` vectors.
///
/// # Safety
/// As [`product_tile`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn tile<const R: usize, const V: usize, const PREFETCH: bool>(k: usize, a: *const f32, lda: usize, b: *const f32, ldb: usize, c: *mut f32, ldc: usize) {
    use std::arch::x86_64::*;
    let mut acc = [[_mm512_setzero_ps(); V]; R];
    for kk in 0..k {
        // SAFETY (this block and the stores): within the bounds the caller promises.
        unsafe {
            // Loops, not closures: a closure would not be compiled for AVX-512.
            let mut w = [_mm512_setzero_ps(); V];
            for (v, wv) in w.iter_mut().enumerate() {
                *wv = _mm512_loadu_ps(b.add(kk * ldb + v * LANES));
                if PREFETCH {
                    // A hint, never a fault: the address may lie past the weights.
                    _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add((kk + PREFETCH_ROWS) * ldb + v * LANES) as *const i8);
                }
            }
            for (rr, sums) in acc.iter_mut().enumerate() {
                let x = _mm512_set1_ps(*a.add(rr * lda + kk));
                for (s, wv) in sums.iter_mut().zip(&w) {
                    *s = _mm512_fmadd_ps(x, *wv, *s);
                }
            }
        }
    }
    for (rr, sums) in acc.iter().enumerate() {
        for (v, s) in sums.iter().enumerate() {
            unsafe { _mm512_storeu_ps(c.add(rr * ldc + v * LANES), *s) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conv3x3::tests::{reference, values};

    #[test]
    fn winograd_matches_the_convolutions_definition() {
        // Even and odd boards (Paco Ŝako's, Shako's, Connect Four's, a
        // small one); widths taking every tile size of the product (16 to
        // 144 columns: 1 to 4 vectors and a remainder), batches whose rows
        // leave every remainder of 6.
        for (h, w) in [(8, 8), (10, 10), (6, 7), (3, 5)] {
            for (cin, cout) in [(16, 16), (32, 48), (128, 128), (64, 144)] {
                for positions in [1, 2, 3] {
                    for relu in [false, true] {
                        let d = Dense { k: 9 * cin, n: cout, w: values(cin as u64 * 7 + cout as u64, 9 * cin * cout), b: values(cout as u64 + 3, cout) };
                        let src = values(h as u64 * 100 + w as u64 + positions as u64, positions * h * w * cin);
                        let want = reference(&d, h, w, &src, cin, relu);
                        for kernel in [Kernel::Portable, Kernel::Avx512].into_iter().filter(|k| k.available()) {
                            let wino = Winograd::with_kernel(&d, cin, h, w, kernel);
                            let mut scratch = vec![f32::NAN; wino.scratch_len(positions)];
                            let mut out = vec![f32::NAN; positions * h * w * cout];
                            wino.forward(&src, &mut out, relu, &mut scratch);
                            // Sums of up to 9 * 128 products of values in [-1, 1]: the
                            // transforms' rounding stays far below this bound.
                            for (i, (a, b)) in out.iter().zip(&want).enumerate() {
                                assert!((a - b).abs() <= 2e-4 * (1.0 + b.abs()), "{kernel:?} {h}x{w} {cin}->{cout} x{positions} relu {relu} [{i}]: {a} vs {b}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_scratch_holds_the_transformed_input_and_the_products_exactly() {
        let d = |cin: usize, cout: usize| Dense { k: 9 * cin, n: cout, w: vec![0.0; 9 * cin * cout], b: vec![0.0; cout] };
        // 8x8: 16 tiles; 6x7: 3 x 4 tiles (the last column overhangs the board).
        assert_eq!(Winograd::with_kernel(&d(32, 48), 32, 8, 8, Kernel::Portable).scratch_len(2), 2 * 16 * 16 * (32 + 48));
        assert_eq!(Winograd::with_kernel(&d(16, 32), 16, 6, 7, Kernel::Portable).scratch_len(3), 3 * 12 * 16 * (16 + 32));
    }

    #[test]
    fn the_filter_transform_is_g_g_gt() {
        // G g Gᵀ by the matrices, for one filter.
        let g = [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0], [-0.75, 2.0, 1.5]];
        let gm = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]];
        let u = transform_filter(g);
        for i in 0..4 {
            for j in 0..4 {
                let mut want = 0.0;
                for a in 0..3 {
                    for b in 0..3 {
                        want += gm[i][a] * g[a][b] * gm[j][b];
                    }
                }
                assert!((u[i][j] - want).abs() < 1e-12, "U[{i}][{j}] = {} vs {want}", u[i][j]);
            }
        }
    }

    #[test]
    fn only_wide_layers_of_whole_vectors_are_taken() {
        assert!(supports(128, 128) && supports(64, 64) && supports(32, 32) && supports(16, 48));
        assert!(!supports(16, 16) && !supports(24, 24) && !supports(8, 8), "narrow layers stay direct");
        assert!(supports(128, 80) && !supports(128, 88));
        assert!(!supports(120, 128) && !supports(128, 104), "channels in whole vectors of 16");
        assert!(Kernel::Portable.available() && Kernel::best().available());
    }
}
