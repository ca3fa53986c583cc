//! The tower's 3x3 convolutions (and the `"conv"` policy head's) in int8,
//! for [`crate::fastnet`]'s reduced-precision path
//! ([`crate::NetPrecision::Int8`]).
//!
//! Self-play spends nearly all its time in the tower's 3x3 convolutions.
//! In fp32 an AVX-512 fused multiply-add does 16 multiply-adds; AVX-512
//! VNNI's `vpdpbusd` multiplies 64 pairs of bytes (unsigned × signed) and
//! adds them, four at a time, into 16 32-bit sums. So the tower's
//! convolutions run on bytes:
//!
//! * **weights**: signed 8-bit, symmetric, one scale per output channel
//!   (`w ≈ q * w_scale[co]`, `q` in -127..=127, `w_scale[co] = max|w[.., co]|
//!   / 127`), computed from the fp32 weights (batch norm folded in) when
//!   the net is built: the model file keeps fp32;
//! * **activations**: unsigned 8-bit, one scale per position and layer,
//!   computed as the layer runs: the position's largest input is byte 255
//!   ([`quantize_input`]). Every tower convolution reads a ReLU's output,
//!   never negative, so unsigned bytes give it the full 8 bits, and zero
//!   (the board's padding) is exact. Nothing saturates and nothing needs
//!   calibrating;
//! * **sums** in `i32`, exact: a sum of `9 * Cin` products of at most 255 ×
//!   127 cannot overflow below 7,000 input channels, and integer addition
//!   does not depend on its order, so every kernel gives the same sums to
//!   the bit ([`Int8Kernel`]);
//! * the sums are then **dequantized in fp32**: `acc * scale *
//!   w_scale[co] + bias[co]`, ReLU where the layer has one
//!   ([`dequantize`]). Everything between the convolutions
//!   (squeeze-excitation, the skip connection), the stem and the heads stay
//!   fp32, but for the `"conv"` policy head's 3x3 convolution, which reads
//!   the tower's output (a ReLU's) as the tower's convolutions read theirs.
//!
//! Why a scale per position, not per layer from calibration: measured on
//! the reference network `quick-edd488c-gen71` against fp32 on 10,000
//! positions of random games (`nn/tests/int8.rs`), the largest difference of
//! a value was 0.011 with a scale per position, but 0.02-0.04 with static
//! scales calibrated on 256-4,096 other positions, per layer or per input
//! channel (folded into the weights, which then lose levels). Finding a
//! position's largest input is one pass over activations the quantization
//! reads anyway.
//!
//! Layouts: activations square-major as in fp32 (`[B*HW, Cin]`), as bytes
//! with each row padded with zeros to a multiple of 4 channels (`vpdpbusd`
//! takes channels four at a time); weights `[9][Cin/4][Cout][4]` (tap,
//! group of four input channels, output channel, channel of the group),
//! `Cout` padded with zero weights to a multiple of 16 (one 512-bit
//! vector of sums), so that a tap's group for 16 output channels is one
//! 64-byte load; the sums `[B*HW, Cout padded]`. The weights end with zero
//! groups up to a whole step of AMX's tiles (`9 * Cin padded` to a multiple
//! of 64 bytes, [`QuantConv::k_padded`]), which the other kernels never read.
//!
//! The sums have three builds ([`Int8Kernel`]): the scalar reference, AVX-512
//! VNNI (module `vnni`, below) and AMX tiles (module `amx`, its own file).

use crate::error::{NnError, NnResult};
use crate::weights::Dense;

/// Input channels `vpdpbusd` multiplies into one sum.
const GROUP: usize = 4;
/// Sums of one 512-bit vector: the output channels of one column block.
const LANES: usize = 16;
/// The largest activation byte.
const U8_MAX: f32 = 255.0;
/// The largest weight byte (symmetric: -127 is the smallest, never -128).
const I8_MAX: f32 = 127.0;
/// The input bytes of one AMX tile row: the weights hold whole steps of it.
const AMX_STEP: usize = 64;

/// A 3x3 convolution with int8 weights (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct QuantConv {
    pub cin: usize,
    pub cout: usize,
    /// `[9][cin_padded/4][cout_padded][4]`, zeros in the padding.
    w: Vec<i8>,
    /// The scale of each output channel's weights, `[cout]`.
    w_scale: Vec<f32>,
    /// The folded batch norm's shift, `[cout]`.
    bias: Vec<f32>,
    /// `w` as AMX tiles: `[cout_padded / 16][k_padded / 64][16][64]` (column
    /// block, step, group of the step, the block's 16 x 4 weights), each
    /// tile 1,024 contiguous bytes.
    tiles: Vec<i8>,
}

impl QuantConv {
    /// The int8 copy of the fp32 convolution `d` (`[9*cin, cout]`, row `t*cin
    /// + c` for tap `t`).
    pub fn new(d: &Dense, cin: usize) -> QuantConv {
        assert_eq!(d.k, 9 * cin, "a 3x3 convolution of {cin} input channels has {} weight rows, not {}", 9 * cin, d.k);
        let cout = d.n;
        let w_scale = (0..cout).map(|co| scale_of((0..d.k).map(|k| d.w[k * cout + co].abs()).fold(0.0, f32::max), I8_MAX)).collect();
        let mut q = QuantConv { cin, cout, w: Vec::new(), w_scale, bias: d.b.clone(), tiles: Vec::new() };
        q.w = vec![0; q.k_padded() * q.cout_padded()];
        for t in 0..9 {
            for ci in 0..cin {
                for co in 0..cout {
                    let v = d.w[(t * cin + ci) * cout + co] / q.w_scale[co];
                    let at = q.weight_index(t, ci, co);
                    q.w[at] = v.round().clamp(-I8_MAX, I8_MAX) as i8;
                }
            }
        }
        let (np, steps) = (q.cout_padded(), q.k_padded() / AMX_STEP);
        let tile_rows = AMX_STEP / GROUP;
        q.tiles.reserve(q.w.len());
        for block in 0..np / LANES {
            for group in 0..steps * tile_rows {
                q.tiles.extend_from_slice(&q.w[(group * np + block * LANES) * GROUP..][..LANES * GROUP]);
            }
        }
        q
    }

    /// Input channels with the padding to whole groups of four: the stride
    /// of a row of input bytes.
    pub fn cin_padded(&self) -> usize {
        self.cin.next_multiple_of(GROUP)
    }

    /// The bytes of a tap-after-tap row of inputs (`9 * cin_padded`) padded
    /// to a whole number of AMX steps of 64 bytes: the weights hold this
    /// many rows (a quarter as many groups), zeros past `9 * cin_padded`.
    pub fn k_padded(&self) -> usize {
        (9 * self.cin_padded()).next_multiple_of(AMX_STEP)
    }

    /// Output channels with the padding to whole vectors: the stride of a
    /// row of sums.
    pub fn cout_padded(&self) -> usize {
        self.cout.next_multiple_of(LANES)
    }

    /// Where the weight of tap `t`, input channel `ci`, output channel `co` is.
    fn weight_index(&self, t: usize, ci: usize, co: usize) -> usize {
        let groups = self.cin_padded() / GROUP;
        ((t * groups + ci / GROUP) * self.cout_padded() + co) * GROUP + ci % GROUP
    }

    /// The weight of tap `t`, input channel `ci`, output channel `co`.
    fn weight(&self, t: usize, ci: usize, co: usize) -> i8 {
        self.w[self.weight_index(t, ci, co)]
    }
}

/// The scale that maps `0..=max_abs` onto `0..=steps` (1 for an all-zero
/// tensor, whose bytes are all zero whatever the scale).
fn scale_of(max_abs: f32, steps: f32) -> f32 {
    if max_abs > 0.0 && max_abs.is_finite() {
        max_abs / steps
    } else {
        1.0
    }
}

/// `dst[B*HW, cin_padded]` = the bytes of `src[B*HW, cin]`, position by
/// position (`hw` squares each), at the position's scale `scales[p]`, which
/// makes its largest input 255 (rounded; negative inputs, which a ReLU's
/// output does not have, 0; the padding 0).
/// `kernel` picks the build; every build writes the same bytes and scales.
pub(crate) fn quantize_input(kernel: Int8Kernel, q: &QuantConv, hw: usize, src: &[f32], dst: &mut [u8], scales: &mut [f32]) {
    quantize_rows(kernel, q.cin, hw, src, dst, scales);
}

/// [`quantize_input`] of rows of `cin` values (`dst`: rows of `cin`
/// rounded up to a multiple of 4 bytes), `hw` rows a position.
fn quantize_rows(kernel: Int8Kernel, cin: usize, hw: usize, src: &[f32], dst: &mut [u8], scales: &mut [f32]) {
    let stride = cin.next_multiple_of(GROUP);
    assert!(cin > 0, "quantize_input: rows of no values");
    assert_eq!(src.len() / cin, dst.len() / stride, "quantize_input: {} values of {cin} channels into {} bytes of {stride}", src.len(), dst.len());
    assert_eq!(src.len(), scales.len() * hw * cin, "quantize_input: one scale a position");
    assert_eq!(src.len() % cin, 0, "quantize_input: {} values are not rows of {cin}", src.len());
    assert!(kernel.available(), "{kernel:?} needs instructions this CPU lacks");
    match kernel {
        Int8Kernel::Scalar => quantize_input_scalar(cin, hw, src, dst, scales),
        // SAFETY: the CPU has the features (asserted above); the lengths
        // are as the function needs them (asserted above).
        // AMX's CPUs have AVX-512 VNNI (`amx::available` checks it).
        #[cfg(target_arch = "x86_64")]
        Int8Kernel::Vnni | Int8Kernel::Amx => unsafe { vnni::quantize_input(cin, hw, src, dst, scales) },
        #[cfg(not(target_arch = "x86_64"))]
        Int8Kernel::Vnni | Int8Kernel::Amx => unreachable!("VNNI and AMX are x86-64 only"),
    }
}

/// [`quantize_input`] one value at a time: the reference.
fn quantize_input_scalar(cin: usize, hw: usize, src: &[f32], dst: &mut [u8], scales: &mut [f32]) {
    let stride = cin.next_multiple_of(GROUP);
    for ((img, bytes), scale) in src.chunks_exact(hw * cin).zip(dst.chunks_exact_mut(hw * stride)).zip(scales.iter_mut()) {
        *scale = scale_of(img.iter().cloned().fold(0.0, f32::max), U8_MAX);
        let to_byte = 1.0 / *scale;
        for (row, out) in img.chunks_exact(cin).zip(bytes.chunks_exact_mut(stride)) {
            for (o, &x) in out.iter_mut().zip(row) {
                *o = (x * to_byte).round().clamp(0.0, U8_MAX) as u8;
            }
            out[cin..].fill(0);
        }
    }
}

/// `out[B*HW, cout] = acc * scale * w_scale + bias` (ReLU when `relu`),
/// from the sums `acc[B*HW, cout_padded]` of positions of `hw` squares
/// whose input bytes had the scales `scales` ([`quantize_input`]).
/// `kernel` picks the build; every build writes the same values.
pub(crate) fn dequantize(kernel: Int8Kernel, q: &QuantConv, hw: usize, acc: &[i32], scales: &[f32], out: &mut [f32], relu: bool) {
    let (cout, stride) = (q.cout, q.cout_padded());
    assert_eq!(acc.len() / stride, out.len() / cout, "dequantize: {} sums of {stride} into {} values of {cout}", acc.len(), out.len());
    assert_eq!(out.len(), scales.len() * hw * cout, "dequantize: one scale a position");
    assert_eq!(acc.len(), scales.len() * hw * stride, "dequantize: the sums are not [B*HW, {stride}]");
    assert!(kernel.available(), "{kernel:?} needs instructions this CPU lacks");
    match kernel {
        Int8Kernel::Scalar => dequantize_scalar(q, hw, acc, scales, out, relu),
        // SAFETY: the CPU has the features (asserted above); the lengths
        // are as the function needs them (asserted above).
        #[cfg(target_arch = "x86_64")]
        Int8Kernel::Vnni | Int8Kernel::Amx => unsafe { vnni::dequantize(q, hw, acc, scales, out, relu) },
        #[cfg(not(target_arch = "x86_64"))]
        Int8Kernel::Vnni | Int8Kernel::Amx => unreachable!("VNNI and AMX are x86-64 only"),
    }
}

/// [`dequantize`] one value at a time: the reference.
fn dequantize_scalar(q: &QuantConv, hw: usize, acc: &[i32], scales: &[f32], out: &mut [f32], relu: bool) {
    let (cout, stride) = (q.cout, q.cout_padded());
    let mut unit = vec![0.0f32; cout];
    for ((sums, img), &scale) in acc.chunks_exact(hw * stride).zip(out.chunks_exact_mut(hw * cout)).zip(scales) {
        // What one unit of each output channel's sum is worth at this position.
        unit.iter_mut().zip(&q.w_scale).for_each(|(u, &w)| *u = w * scale);
        for (sums, row) in sums.chunks_exact(stride).zip(img.chunks_exact_mut(cout)) {
            for (((o, &s), &unit), &b) in row.iter_mut().zip(sums).zip(&unit).zip(&q.bias) {
                let v = s as f32 * unit + b;
                *o = if relu { v.max(0.0) } else { v };
            }
        }
    }
}

/// The board a convolution runs on, with byte activations.
#[derive(Clone, Copy)]
pub(crate) struct Board<'a> {
    /// Squares `H*W`.
    pub hw: usize,
    /// `taps[sq*9 + t]`: the source square of tap `t = ky*3 + kx` of square
    /// `sq`, or -1 off the board.
    pub taps: &'a [i32],
    /// At least `cin_padded` zero bytes: the rows read off the board.
    pub zeros: &'a [u8],
}

/// The builds of the int8 convolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Int8Kernel {
    /// Plain Rust on any CPU: the reference the others must equal.
    Scalar,
    /// AVX-512 VNNI (`vpdpbusd` on 512-bit vectors).
    Vnni,
    /// AMX tiles (`tdpbusd` on 16 x 64-byte tiles) for the sums, VNNI's
    /// build for the rest.
    Amx,
}

impl Int8Kernel {
    /// Every build, the reference first.
    pub const ALL: [Int8Kernel; 3] = [Int8Kernel::Scalar, Int8Kernel::Vnni, Int8Kernel::Amx];

    /// Whether this CPU (and, for AMX, the operating system) runs the build.
    pub fn available(self) -> bool {
        match self {
            Int8Kernel::Scalar => true,
            Int8Kernel::Vnni => has_vnni(),
            #[cfg(target_arch = "x86_64")]
            Int8Kernel::Amx => amx::available(),
            #[cfg(not(target_arch = "x86_64"))]
            Int8Kernel::Amx => false,
        }
    }

    /// The fastest build this CPU runs.
    pub fn best() -> Int8Kernel {
        [Int8Kernel::Amx, Int8Kernel::Vnni].into_iter().find(|k| k.available()).unwrap_or(Int8Kernel::Scalar)
    }

    /// The build `PACOZERO_INT8_KERNEL` names (`scalar`, `vnni`, `amx`),
    /// else [`Int8Kernel::best`]: the environment picks one to compare or
    /// to work around. An unknown name, or one this CPU does not run, is an
    /// error naming it.
    pub fn chosen() -> NnResult<Int8Kernel> {
        match std::env::var("PACOZERO_INT8_KERNEL") {
            Ok(name) if !name.is_empty() => {
                let kernel = name.parse::<Int8Kernel>().map_err(|e| NnError::Config(format!("PACOZERO_INT8_KERNEL: {e}")))?;
                if !kernel.available() {
                    return Err(NnError::Config(format!("PACOZERO_INT8_KERNEL={name}: this CPU or system does not run the {kernel} kernel")));
                }
                Ok(kernel)
            }
            _ => Ok(Int8Kernel::best()),
        }
    }
}

impl std::fmt::Display for Int8Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Int8Kernel::Scalar => "scalar",
            Int8Kernel::Vnni => "vnni",
            Int8Kernel::Amx => "amx",
        })
    }
}

impl std::str::FromStr for Int8Kernel {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Int8Kernel::ALL.into_iter().find(|k| k.to_string() == s).ok_or_else(|| format!("no int8 kernel is called {s:?} (scalar, vnni or amx)"))
    }
}

/// Whether this CPU has AVX-512 VNNI (with the F, BW and VL extensions
/// the VNNI kernel's loads and stores use).
pub(crate) fn has_vnni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// What [`accumulate`] and [`convolve`] need of their arguments, asserted:
/// `sums` is the number of sums the input makes.
fn check_accumulate(kernel: Int8Kernel, q: &QuantConv, board: Board, src: &[u8], sums: usize) {
    let (hw, cp, np) = (board.hw, q.cin_padded(), q.cout_padded());
    assert!(hw > 0 && src.len().is_multiple_of(hw * cp), "accumulate: {} input bytes are not whole positions of {hw} squares x {cp}", src.len());
    assert_eq!(sums, src.len() / cp * np, "accumulate: the sums are not [B*HW, {np}]");
    assert_eq!(board.taps.len(), 9 * hw, "accumulate: the taps are not 9 a square");
    assert!(board.taps.iter().all(|&t| t < hw as i32), "accumulate: a tap points off the board's {hw} squares");
    assert!(board.zeros.len() >= cp && board.zeros.iter().all(|&z| z == 0), "accumulate: fewer than {cp} zero bytes for the padding");
    assert_eq!(q.w.len(), q.k_padded() * np, "accumulate: the weights are not [k_padded / 4][{np}][4]");
    assert!(kernel.available(), "{kernel:?} needs instructions this CPU lacks");
}

/// `acc[B*HW, cout_padded]` = the integer sums of the convolution `q` of the
/// bytes `src[B*HW, cin_padded]` (see [`quantize_input`]), with `kernel`.
pub(crate) fn accumulate(kernel: Int8Kernel, q: &QuantConv, board: Board, src: &[u8], acc: &mut [i32]) {
    check_accumulate(kernel, q, board, src, acc.len());
    match kernel {
        Int8Kernel::Scalar => accumulate_scalar(q, board, src, acc),
        // SAFETY: the CPU has the features the function is compiled for
        // (asserted above), and the lengths it reads and writes through
        // raw pointers are asserted above.
        #[cfg(target_arch = "x86_64")]
        Int8Kernel::Vnni => unsafe { vnni::accumulate(q, board, src, acc) },
        // SAFETY: as above; the weights hold `k_padded` bytes' groups (`QuantConv::new`).
        #[cfg(target_arch = "x86_64")]
        Int8Kernel::Amx => unsafe { amx::accumulate(q, board, src, acc) },
        #[cfg(not(target_arch = "x86_64"))]
        Int8Kernel::Vnni | Int8Kernel::Amx => unreachable!("VNNI and AMX are x86-64 only"),
    }
}

/// The whole int8 convolution of the bytes `src` (quantized with `scales`,
/// [`quantize_input`]) into `out[B*HW, cout]`: [`accumulate`], then
/// [`dequantize`]. The AMX build dequantizes each block of 32 squares as
/// soon as its sums are out of the tiles, while they are in the first-level
/// cache, and needs no `sums`; the others fill `sums[B*HW, cout_padded]`
/// first. Every build writes the same values.
#[allow(clippy::too_many_arguments)]
pub(crate) fn convolve(kernel: Int8Kernel, q: &QuantConv, board: Board, src: &[u8], scales: &[f32], sums: &mut [i32], out: &mut [f32], relu: bool) {
    #[cfg(target_arch = "x86_64")]
    if kernel == Int8Kernel::Amx {
        let (hw, cp) = (board.hw, q.cin_padded());
        check_accumulate(kernel, q, board, src, src.len() / cp * q.cout_padded());
        assert_eq!(out.len(), src.len() / cp * q.cout, "convolve: the output is not [B*HW, {}]", q.cout);
        assert_eq!(scales.len() * hw * cp, src.len(), "convolve: one scale a position");
        // SAFETY: as `accumulate` and `dequantize` need it (asserted above).
        unsafe { amx::convolve(q, board, src, scales, out, relu) };
        return;
    }
    accumulate(kernel, q, board, src, sums);
    dequantize(kernel, q, board.hw, sums, scales, out, relu);
}

/// The convolution from its definition: each sum is the products of every
/// on-board tap's input bytes with the weights, one at a time.
fn accumulate_scalar(q: &QuantConv, board: Board, src: &[u8], acc: &mut [i32]) {
    let (hw, cp, np) = (board.hw, q.cin_padded(), q.cout_padded());
    for (img, sums) in src.chunks_exact(hw * cp).zip(acc.chunks_exact_mut(hw * np)) {
        for (sq, out) in sums.chunks_exact_mut(np).enumerate() {
            for (co, o) in out.iter_mut().enumerate() {
                let mut sum = 0i32;
                for t in 0..9 {
                    let from = board.taps[sq * 9 + t];
                    if from < 0 {
                        continue;
                    }
                    let row = &img[from as usize * cp..][..cp];
                    for (ci, &x) in row.iter().enumerate().take(q.cin) {
                        // Padded output channels have zero weights: their sums are 0.
                        let w = if co < q.cout { q.weight(t, ci, co) } else { 0 };
                        sum += x as i32 * w as i32;
                    }
                }
                *o = sum;
            }
        }
    }
}

/// The AVX-512 VNNI kernel: each tile of `R` squares × `V` vectors of 16
/// output channels is summed in registers; for each tap and group of four
/// input channels, a square's four bytes are broadcast to every lane and
/// `vpdpbusd` adds their products with the group's weights of 16 output
/// channels (one 64-byte load) to the sums.
#[cfg(target_arch = "x86_64")]
mod vnni {
    use std::arch::x86_64::*;

    use super::{scale_of, Board, QuantConv, GROUP, LANES, U8_MAX};

    /// The mask of the first `n` of 16 lanes.
    fn first(n: usize) -> __mmask16 {
        debug_assert!(n <= LANES);
        ((1u32 << n) - 1) as __mmask16
    }

    /// [`super::quantize_input`] sixteen values at a time. The bytes are
    /// the scalar kernel's: the same product `x * to_byte`, clamped to
    /// 0..=255 (a NaN to 0, as `as u8` makes it), then rounded half away
    /// from zero as `f32::round` does (truncate, add one where the
    /// fraction is at least a half).
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW and VL (the 16-byte masked store); `src` is whole positions of `hw` rows
    /// of `cin` values, `dst` as many rows of `cin` rounded up to a multiple of 4 bytes, and
    /// `scales` one a position ([`super::quantize_input`] asserts it).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) unsafe fn quantize_input(cin: usize, hw: usize, src: &[f32], dst: &mut [u8], scales: &mut [f32]) {
        let stride = cin.next_multiple_of(GROUP);
        for ((img, bytes), scale) in src.chunks_exact(hw * cin).zip(dst.chunks_exact_mut(hw * stride)).zip(scales.iter_mut()) {
            // SAFETY (every block below): loads and stores stay within
            // `img`, `row` and `out`, masked to the lanes that exist.
            let mut top = _mm512_setzero_ps();
            for block in img.chunks(LANES) {
                let x = unsafe { _mm512_maskz_loadu_ps(first(block.len()), block.as_ptr()) };
                // A NaN input leaves the maximum as it was, as f32::max does.
                top = _mm512_max_ps(x, top);
            }
            *scale = scale_of(_mm512_reduce_max_ps(top), U8_MAX);
            let to_byte = _mm512_set1_ps(1.0 / *scale);
            let (zero, most, half, one) = (_mm512_setzero_ps(), _mm512_set1_ps(U8_MAX), _mm512_set1_ps(0.5), _mm512_set1_ps(1.0));
            let bytes_of = |x: __m512| {
                // max(y, 0) with y second: a NaN y gives 0.
                let y = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(x, to_byte), zero), most);
                let whole = _mm512_roundscale_ps::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(y);
                let up = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(_mm512_sub_ps(y, whole), half);
                _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(_mm512_mask_add_ps(whole, up, whole, one)))
            };
            if cin == stride {
                // Rows without padding: the position is one run of values.
                for (block, out) in img.chunks(LANES).zip(bytes.chunks_mut(LANES)) {
                    let m = first(block.len());
                    unsafe { _mm_mask_storeu_epi8(out.as_mut_ptr() as *mut i8, m, bytes_of(_mm512_maskz_loadu_ps(m, block.as_ptr()))) };
                }
            } else {
                for (row, out) in img.chunks_exact(cin).zip(bytes.chunks_exact_mut(stride)) {
                    for (block, out) in row.chunks(LANES).zip(out.chunks_mut(LANES)) {
                        let m = first(block.len());
                        unsafe { _mm_mask_storeu_epi8(out.as_mut_ptr() as *mut i8, m, bytes_of(_mm512_maskz_loadu_ps(m, block.as_ptr()))) };
                    }
                    out[cin..].fill(0);
                }
            }
        }
    }

    /// [`super::dequantize`] sixteen values at a time, with the scalar
    /// kernel's arithmetic: a product, then a sum (no fused multiply-add,
    /// which rounds once where the scalar kernel rounds twice).
    ///
    /// # Safety
    /// The CPU has AVX-512 F; `acc` is whole positions of `hw` rows of
    /// `q.cout_padded()` sums, `out` as many rows of `q.cout` values, and
    /// `scales` one a position ([`super::dequantize`] asserts it).
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn dequantize(q: &QuantConv, hw: usize, acc: &[i32], scales: &[f32], out: &mut [f32], relu: bool) {
        let (cout, stride) = (q.cout, q.cout_padded());
        let (w_scale, bias) = padded(q);
        for ((sums, img), &scale) in acc.chunks_exact(hw * stride).zip(out.chunks_exact_mut(hw * cout)).zip(scales) {
            for (sums, row) in sums.chunks_exact(stride).zip(img.chunks_exact_mut(cout)) {
                // SAFETY: the rows are as `dequantize_row` needs them.
                unsafe { dequantize_row(&w_scale, &bias, sums, scale, row, relu) };
            }
        }
    }

    /// The weights' scales and the biases of `q`, padded with zeros to
    /// `q.cout_padded()`: what [`dequantize_row`] reads.
    pub(super) fn padded(q: &QuantConv) -> (Vec<f32>, Vec<f32>) {
        let mut w_scale = vec![0.0f32; q.cout_padded()];
        let mut bias = vec![0.0f32; q.cout_padded()];
        w_scale[..q.cout].copy_from_slice(&q.w_scale);
        bias[..q.cout].copy_from_slice(&q.bias);
        (w_scale, bias)
    }

    /// One row of [`dequantize`]: `row[co] = sums[co] * (w_scale[co] *
    /// scale) + bias[co]`, ReLU when `relu`.
    ///
    /// # Safety
    /// The CPU has AVX-512 F; `w_scale`, `bias` and `sums` hold
    /// `row.len()` rounded up to 16 values.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(super) unsafe fn dequantize_row(w_scale: &[f32], bias: &[f32], sums: &[i32], scale: f32, row: &mut [f32], relu: bool) {
        let n = row.len().next_multiple_of(LANES);
        debug_assert!(w_scale.len() >= n && bias.len() >= n && sums.len() >= n);
        let (zero, scale) = (_mm512_setzero_ps(), _mm512_set1_ps(scale));
        for (v, out) in row.chunks_mut(LANES).enumerate() {
            let (m, at) = (first(out.len()), v * LANES);
            // SAFETY: lanes `at .. at + 16` lie within the padded rows of
            // sums, scales and biases; the store is masked to `out`.
            unsafe {
                // What one unit of each output channel's sum is worth at this position.
                let unit = _mm512_mul_ps(_mm512_loadu_ps(w_scale[at..].as_ptr()), scale);
                let s = _mm512_cvtepi32_ps(_mm512_loadu_si512(sums[at..].as_ptr() as *const __m512i));
                let x = _mm512_add_ps(_mm512_mul_ps(s, unit), _mm512_loadu_ps(bias[at..].as_ptr()));
                // max(x, 0) with 0 second: a NaN gives 0, as f32::max does.
                let x = if relu { _mm512_max_ps(x, zero) } else { x };
                _mm512_mask_storeu_ps(out.as_mut_ptr(), m, x);
            }
        }
    }

    /// Output squares of one tile.
    const ROWS: usize = 4;
    /// Vectors of sums of one tile (64 output channels).
    const MAX_VECTORS: usize = 4;

    /// [`super::accumulate`] with VNNI.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW and VNNI; `src` is whole positions of
    /// `board.hw` rows of `q.cin_padded()` bytes, `acc` as many rows of
    /// `q.cout_padded()` sums, every tap is below `board.hw`, and
    /// `board.zeros` holds at least `q.cin_padded()` bytes
    /// ([`super::accumulate`] asserts all of it).
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn accumulate(q: &QuantConv, board: Board, src: &[u8], acc: &mut [i32]) {
        let (hw, cp, np) = (board.hw, q.cin_padded(), q.cout_padded());
        for (img, sums) in src.chunks_exact(hw * cp).zip(acc.chunks_exact_mut(hw * np)) {
            let mut sq0 = 0;
            while sq0 + ROWS <= hw {
                // SAFETY: squares sq0..sq0 + ROWS are on the board; the rest as the caller promises.
                unsafe { column_blocks::<ROWS>(q, board, img, sq0, sums) };
                sq0 += ROWS;
            }
            while sq0 < hw {
                // SAFETY: as above, one square.
                unsafe { column_blocks::<1>(q, board, img, sq0, sums) };
                sq0 += 1;
            }
        }
    }

    /// Squares `sq0 .. sq0 + R` of one position, all output channels, in
    /// blocks of up to [`MAX_VECTORS`] vectors.
    ///
    /// # Safety
    /// As [`accumulate`], for one position `img` and its sums, with
    /// `sq0 + R <= board.hw`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    unsafe fn column_blocks<const R: usize>(q: &QuantConv, board: Board, img: &[u8], sq0: usize, sums: &mut [i32]) {
        let vectors = q.cout_padded() / LANES;
        let mut v0 = 0;
        while v0 < vectors {
            let v = (vectors - v0).min(MAX_VECTORS);
            // SAFETY: vectors v0 .. v0 + v are within the padded output channels.
            unsafe {
                match v {
                    4 => tile::<R, 4>(q, board, img, sq0, v0, sums),
                    3 => tile::<R, 3>(q, board, img, sq0, v0, sums),
                    2 => tile::<R, 2>(q, board, img, sq0, v0, sums),
                    _ => tile::<R, 1>(q, board, img, sq0, v0, sums),
                }
            }
            v0 += v;
        }
    }

    /// One tile: squares `sq0 .. sq0 + R` × output channels `16*v0 ..
    /// 16*(v0 + V)`.
    ///
    /// # Safety
    /// As [`column_blocks`], with `v0 + V <= q.cout_padded() / 16`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    unsafe fn tile<const R: usize, const V: usize>(q: &QuantConv, board: Board, img: &[u8], sq0: usize, v0: usize, sums: &mut [i32]) {
        let (cp, np) = (q.cin_padded(), q.cout_padded());
        let groups = cp / GROUP;
        let mut acc = [[_mm512_setzero_si512(); V]; R];
        for t in 0..9 {
            // The tile's squares' source rows for this tap (zeros off the board).
            let mut rows = [board.zeros.as_ptr(); R];
            for (r, row) in rows.iter_mut().enumerate() {
                let from = board.taps[(sq0 + r) * 9 + t];
                if from >= 0 {
                    *row = img[from as usize * cp..][..cp].as_ptr();
                }
            }
            // The tap's weights: `groups` rows of `np * 4` bytes.
            let w_tap = q.w[t * groups * np * GROUP..][..groups * np * GROUP].as_ptr();
            for g in 0..groups {
                // SAFETY: row g of the tap holds np * 4 bytes, and vectors
                // v0 .. v0 + V of 64 bytes lie within it (v0 + V <= np / 16);
                // every source row holds cp = 4 * groups bytes (a row of the
                // position or the zeros). Unaligned loads and reads.
                unsafe {
                    let w: [__m512i; V] = std::array::from_fn(|v| _mm512_loadu_si512(w_tap.add((g * np + (v0 + v) * LANES) * GROUP) as *const __m512i));
                    for r in 0..R {
                        let x = _mm512_set1_epi32(std::ptr::read_unaligned(rows[r].add(g * GROUP) as *const i32));
                        for v in 0..V {
                            acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], x, w[v]);
                        }
                    }
                }
            }
        }
        for (r, vectors) in acc.iter().enumerate() {
            let out = &mut sums[(sq0 + r) * np + v0 * LANES..][..V * LANES];
            for (v, &sum) in vectors.iter().enumerate() {
                // SAFETY: `out` holds V vectors of 16 sums (sliced above).
                unsafe { _mm512_storeu_si512(out[v * LANES..].as_mut_ptr() as *mut __m512i, sum) };
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod amx;

pub(crate) mod fc;

#[cfg(test)]
mod tests;
