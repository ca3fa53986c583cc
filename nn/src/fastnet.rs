//! [`FastNet`]: an inference-only forward pass of [`PacoNet`] in plain Rust.
//!
//! burn's CPU backend spends most of a small-batch forward pass in per-op
//! overhead; this module runs the same network as a handful of matrix
//! products on preallocated buffers:
//!
//! * activations are kept square-major (`[B*H*W, C]`, channels innermost);
//!   the tower's 3x3 convolutions of 32 channels or more, in multiples of
//!   16, run as Winograd's F(2x2, 3x3) ([`crate::winograd`]: 2.25 times
//!   fewer multiply-adds); the other 3x3 convolutions are direct, reading
//!   the activations in place ([`crate::conv3x3`], 8 to 64 output channels
//!   in multiples of 8, such as the quick net's 24), or else an im2col copy
//!   into `[B*H*W, 9*C]` followed by one product with a `[9*C, Cout]`
//!   weight matrix;
//! * the heads' 1x1 convolutions run directly on the activations in tiles
//!   of four squares ([`conv3x3::conv1x1`]; `matrixmultiply` packed both
//!   matrices on every call, 10% of an int8 forward pass), or, where the
//!   outputs are not whole vectors of 8, each square's row adds up the
//!   weight rows of its nonzero channels ([`crate::sparse_fc`]);
//! * batch norm (inference mode: running statistics) is folded into the
//!   convolution weights and a per-channel bias when the net is built;
//! * the heads' fully connected layers have their weight rows permuted so they
//!   read the square-major activations directly (burn flattens channel-major);
//!   the policy and value layers, which read a ReLU's output, add up weight
//!   rows for their nonzero inputs only ([`crate::sparse_fc`]);
//! * a `"conv"` policy head runs its 3x3 convolution as the tower's and its
//!   1x1 convolution as above, then reads each slot's logit from the
//!   square-major `[H*W, planes]` output through a gather table;
//! * products run single-threaded (`matrixmultiply` for the im2col
//!   convolutions, `gemm` for the small value layers); large batches are split
//!   across the current rayon pool by positions, each thread with its own
//!   scratch buffers (thread-local, grown once, never shrunk).
//!
//! The auxiliary Ŝako head is not computed (self-play does not read it).
//!
//! The stem reads the input channel-major, as the evaluator writes it, and
//! adds up weight rows for its nonzero values only ([`crate::stem`]): most
//! of the input is zeros.
//!
//! [`FastNet::quantized`] makes a copy whose 3x3 convolutions (the blocks'
//! and the `"conv"` policy head's, nearly all of the work) and the `"fc"`
//! policy head's fully connected layer run in int8 ([`crate::conv3x3_i8`]);
//! the stem, squeeze-excitation, skip connections, the heads' 1x1
//! convolutions and the value head stay fp32.

use std::cell::RefCell;

use rayon::prelude::*;

use crate::conv3x3;
use crate::conv3x3_i8::fc::{FcScratch, QuantFc};
use crate::conv3x3_i8::{self, Int8Kernel, QuantConv};
use crate::error::{NnError, NnResult};
use crate::model::{NetConfig, PacoNet, PolicyHead};
use crate::precision::NetPrecision;
use crate::sparse_fc::SparseFc;
use crate::stem::SparseStem;
use crate::weights::{Dense, FoldedConv, Weights};
use crate::winograd::{self, Winograd};

/// Products with at least this many rows use `matrixmultiply`, smaller ones `gemm`.
const MATRIXMULTIPLY_MIN_ROWS: usize = 16;

/// Bytes of im2col buffer one thread fills at once: larger batches go
/// through in pieces of at most this much (and at least [`MIN_PIECE`]
/// positions), so that the buffer stays in the caches. The buffer holds
/// `9 * C` floats per square and position: 55 KB a position at 24 channels,
/// 295 KB at 128. Measured on one thread (a busy machine, scripts/bench-onnx.py):
/// the quick net (2x24) at batch 256 in one piece ran at 70% of its speed
/// at batch 32, the GPU config's 10x128 at 80% of its speed at batch 8.
const PIECE_BYTES: usize = 2 << 20;

/// The fewest positions of a piece (matrix products want rows).
const MIN_PIECE: usize = 8;

/// Batches at least this large are split across the rayon pool.
pub const PARALLEL_MIN_BATCH: usize = 8;

/// Squeeze-excitation: `fc1: [C, C/r]`, `fc2: [C/r, 2C]` (scale logits, then biases).
#[derive(Clone, Debug)]
struct Se {
    fc1: Dense,
    fc2: Dense,
}

#[derive(Clone, Debug)]
struct Block {
    /// 3x3 conv + BN, `[9*C, C]`.
    a: Dense,
    /// 3x3 conv + BN, `[9*C, C]`.
    b: Dense,
    /// `a` and `b` for Winograd's F(2x2, 3x3), where the tower is wide
    /// enough ([`winograd::supports`]): what the fp32 tower runs.
    winograd: Option<[Winograd; 2]>,
    se: Option<Se>,
}

/// A head's 1x1 convolution `[Cin, Cout]` with bias: direct where its
/// outputs are whole vectors ([`conv3x3::conv1x1`]), else each square's row
/// adds up the weight rows of its nonzero inputs (it reads a ReLU's output).
#[derive(Clone, Debug)]
enum Pointwise {
    Direct(Dense),
    Sparse(SparseFc),
}

impl Pointwise {
    fn new(d: Dense) -> Pointwise {
        if conv3x3::supports_1x1(d.n) {
            Pointwise::Direct(d)
        } else {
            Pointwise::Sparse(SparseFc::new(&d))
        }
    }

    /// Output channels.
    fn n(&self) -> usize {
        match self {
            Pointwise::Direct(d) => d.n,
            Pointwise::Sparse(fc) => fc.n(),
        }
    }

    /// `src: [M, Cin]` into `out: [M, Cout]` (ReLU when `relu`).
    fn forward(&self, src: &[f32], out: &mut [f32], relu: bool, nonzero: &mut Vec<u32>) {
        match self {
            Pointwise::Direct(d) => conv3x3::conv1x1(d, src, out, relu),
            Pointwise::Sparse(fc) => fc.forward(src, out, relu, nonzero),
        }
    }
}

/// An `"fc"` policy head.
#[derive(Clone, Debug)]
struct FcPolicy {
    /// The 1x1 convolution (batch norm folded), `[C, Pc]`.
    conv: Pointwise,
    /// `[H*W*Pc, P]`, rows in square-major order.
    fc: SparseFc,
}

/// A `"conv"` policy head after its first convolution.
#[derive(Clone, Debug)]
struct ConvPolicy {
    /// The 1x1 convolution to the policy planes, `[Pc, K]` with bias (it
    /// reads the 3x3 convolution's ReLU).
    planes: Pointwise,
    /// Each slot's entry of one position's square-major output `[H*W, K]`
    /// (`square * K + plane`), or `H*W*K + plane` for a plane's mean.
    gather: Vec<u32>,
    /// Whether some slot reads a plane's mean.
    reads_means: bool,
}

/// The tower's convolutions in int8 ([`FastNet::quantized`]), and the
/// policy head's layer that reads the tower's kind of input: the `"conv"`
/// head's 3x3 convolution or the `"fc"` head's fully connected layer.
#[derive(Clone, Debug)]
struct Int8Tower {
    /// Each block's two convolutions in order (`a`, then `b`): tower layer `2*i + j`.
    convs: Vec<QuantConv>,
    /// The `"conv"` policy head's 3x3 convolution (`None` with the `"fc"`
    /// head, whose 1x1 convolution stays fp32). It reads the tower's
    /// output, a ReLU's, as the tower's convolutions read theirs; in a
    /// 2x32 net it is a fifth of the 3x3 convolutions' work.
    policy: Option<QuantConv>,
    /// The `"fc"` policy head's fully connected layer (`None` with the
    /// `"conv"` head): it reads the head's 1x1 convolution's ReLU; in the
    /// quick Paco Ŝako net it was a fifth of the forward pass in fp32
    /// ([`crate::conv3x3_i8::fc`]).
    policy_fc: Option<QuantFc>,
    kernel: Int8Kernel,
    /// A padded row of zero bytes: the rows read off the board.
    zeros: Vec<u8>,
}

impl Int8Tower {
    /// The convolution `q` (a tower layer or the policy head's) on `src:
    /// [B*HW, Cin]` into `out: [B*HW, Cout]`.
    #[allow(clippy::too_many_arguments)]
    fn conv(&self, q: &QuantConv, hw: usize, taps: &[i32], src: &[f32], out: &mut [f32], relu: bool, scratch: &mut Int8Scratch) {
        let rows = src.len() / q.cin;
        let bytes = take(&mut scratch.bytes, rows * q.cin_padded());
        let scales = take(&mut scratch.scales, rows / hw);
        conv3x3_i8::quantize_input(self.kernel, q, hw, src, bytes, scales);
        // AMX needs no buffer of sums (`conv3x3_i8::convolve`).
        let sums = take(&mut scratch.sums, if self.kernel == Int8Kernel::Amx { 0 } else { rows * q.cout_padded() });
        conv3x3_i8::convolve(self.kernel, q, conv3x3_i8::Board { hw, taps, zeros: &self.zeros }, bytes, scales, sums, out, relu);
    }
}

/// Inference-only copy of a [`PacoNet`] (see the module docs).
#[derive(Clone, Debug)]
pub struct FastNet {
    /// Input channels (`bit_planes + scalars`).
    ci: usize,
    /// Tower channels.
    c: usize,
    /// Squares `H*W`.
    hw: usize,
    policy_size: usize,
    /// For each square and 3x3 tap (`ky*3 + kx`), the source square, or -1 for padding.
    taps: Vec<i32>,
    /// `C` zeros: the off-board rows of the direct convolution (every
    /// direct convolution reads `C` channels: the stem reads the input in
    /// place).
    zeros: Vec<f32>,
    /// 3x3 conv + BN from `Ci` to `C` channels, read from the input's
    /// nonzero values.
    stem: SparseStem,
    blocks: Vec<Block>,
    /// 1x1 conv + BN, `[C, Pc]` (`"fc"` head), or 3x3, `[9*C, Pc]` (`"conv"`).
    policy_conv: Dense,
    /// The `"fc"` head.
    fc_policy: Option<FcPolicy>,
    /// The `"conv"` head.
    conv_policy: Option<ConvPolicy>,
    /// 1x1 conv + BN, `[C, Vc]`.
    value_conv: Pointwise,
    /// `[H*W*Vc, Vh]`, rows in square-major order; with `value_pool`,
    /// `[2*Vc, Vh]` reading the channels' means then maxima.
    value_fc: SparseFc,
    /// [`NetConfig::value_pool`].
    value_pool: bool,
    /// `[Vh, 3]`.
    wdl_fc: Dense,
    /// `[Vh, 1]`.
    moves_left_fc: Dense,
    /// The tower in int8 ([`FastNet::quantized`]); `None`: fp32.
    int8: Option<Int8Tower>,
}

/// Outputs of [`FastNet::forward`] for a batch of `B` positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FastOutput {
    /// Policy logits, `[B, P]`.
    pub policy: Vec<f32>,
    /// Win/draw/loss probabilities (softmax of the WDL logits), `[B, 3]`.
    pub wdl: Vec<f32>,
    /// Raw moves-left output (predicted `ln(1 + moves_left)`), `[B]`.
    pub moves_left: Vec<f32>,
}

/// A folded convolution as the `[kernel² * cin, cout]` matrix of its im2col
/// product, row `t*cin + ci` for tap `t = ky*kernel + kx`.
fn im2col_matrix(conv: FoldedConv) -> Dense {
    let FoldedConv { cin, cout, kernel, w, b } = conv; // w: [Cout, Cin, k, k]
    let kk = kernel * kernel;
    let mut out = vec![0.0; kk * cin * cout]; // [k*k*Cin, Cout]
    for co in 0..cout {
        for ci in 0..cin {
            for t in 0..kk {
                out[(t * cin + ci) * cout + co] = w[(co * cin + ci) * kk + t];
            }
        }
    }
    Dense { k: kk * cin, n: cout, w: out, b }
}

/// A linear layer reading a channel-major flatten `[ch, hw]` of a conv output,
/// with its rows reordered to read the square-major flatten `[hw, ch]`.
fn linear_square_major(wt: &Weights, path: &str, ch: usize, hw: usize, n: usize) -> NnResult<Dense> {
    let mut d = wt.linear(path, ch * hw, n)?;
    let src = std::mem::take(&mut d.w); // [Ch*HW, N], row c*HW + s
    let mut w = vec![0.0; ch * hw * n]; // [HW*Ch, N], row s*Ch + c
    for c in 0..ch {
        for s in 0..hw {
            let from = (c * hw + s) * n;
            let to = (s * ch + c) * n;
            w[to..to + n].copy_from_slice(&src[from..from + n]);
        }
    }
    d.w = w;
    Ok(d)
}

/// Per-thread scratch buffers, grown to the largest batch seen.
#[derive(Default)]
struct Scratch {
    /// Tower activations `[B*HW, C]`.
    x: Vec<f32>,
    /// Second activation buffer `[B*HW, C]`.
    y: Vec<f32>,
    /// Third activation buffer `[B*HW, C]` (a block's second convolution).
    z: Vec<f32>,
    /// im2col buffer `[B*HW, 9*C]` (or the heads' `[B*HW, Pc|Vc]` if larger).
    cols: Vec<f32>,
    /// Small per-position buffers (SE, head hidden layers).
    s1: Vec<f32>,
    s2: Vec<f32>,
    /// The int8 tower's buffers.
    int8: Int8Scratch,
    /// The Winograd convolutions' transformed inputs and products.
    winograd: Vec<f32>,
    /// The heads' lists of nonzero inputs ([`SparseFc::forward`]).
    nonzero: Vec<u32>,
}

/// Buffers of an int8 convolution.
#[derive(Default)]
struct Int8Scratch {
    /// The input as bytes, `[B*HW, C padded]`.
    bytes: Vec<u8>,
    /// The sums, `[B*HW, C padded]`.
    sums: Vec<i32>,
    /// Each position's scale of its bytes, `[B]`.
    scales: Vec<f32>,
    /// The `"fc"` policy head's int8 layer's.
    fc: FcScratch,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// `buf[..n]`, growing `buf` if needed (contents unspecified).
fn take<T: Copy + Default>(buf: &mut Vec<T>, n: usize) -> &mut [T] {
    if buf.len() < n {
        buf.resize(n, T::default());
    }
    &mut buf[..n]
}

/// `out[m, n] = a[m, k] · d.w[k, n] + d.b`, optionally followed by ReLU.
fn dense(d: &Dense, m: usize, a: &[f32], out: &mut [f32], relu: bool) {
    let (k, n) = (d.k, d.n);
    // Checked in release builds too: the products below read and write
    // through raw pointers, so a wrong length would be out of bounds.
    assert_eq!(a.len(), m * k, "dense: the input is not [m, k]");
    assert_eq!(out.len(), m * n, "dense: the output is not [m, n]");
    if m == 0 {
        return;
    }
    // Start from the bias so the product accumulates onto it.
    for row in out.chunks_exact_mut(n) {
        row.copy_from_slice(&d.b);
    }
    // Measured on our shapes (single thread): matrixmultiply is ~20-40% faster
    // than gemm on the convolutions (m = B*64 rows, k = 9*C, n = C); gemm is ~4x
    // faster on the heads' matrix-vector products at small batches.
    // SAFETY: all three matrices are row-major with the strides given here and
    // lie within `a`, `d.w` and `out` (lengths checked above); `out` does not alias.
    unsafe {
        if m >= MATRIXMULTIPLY_MIN_ROWS {
            matrixmultiply::sgemm(m, k, n, 1.0, a.as_ptr(), k as isize, 1, d.w.as_ptr(), n as isize, 1, 1.0, out.as_mut_ptr(), n as isize, 1);
        } else {
            gemm::gemm(
                m,
                n,
                k,
                out.as_mut_ptr(),
                1,
                n as isize,
                true,
                a.as_ptr(),
                1,
                k as isize,
                d.w.as_ptr(),
                1,
                n as isize,
                1.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            );
        }
    }
    if relu {
        for v in out.iter_mut() {
            *v = v.max(0.0);
        }
    }
}

fn softmax3(z: &[f32], out: &mut [f32]) {
    let mx = z[0].max(z[1]).max(z[2]);
    let e = [(z[0] - mx).exp(), (z[1] - mx).exp(), (z[2] - mx).exp()];
    let s = e[0] + e[1] + e[2];
    for i in 0..3 {
        out[i] = e[i] / s;
    }
}

impl FastNet {
    /// Copy the weights of `model` (with the architecture `net`), folding batch norms.
    /// The model's batch norms are read in inference mode (running statistics).
    pub fn from_model(model: &PacoNet, net: &NetConfig) -> NnResult<Self> {
        net.validate()?;
        let wt = Weights::of(model);
        let (ci, c, hw) = (net.input_channels(), net.channels as usize, net.squares());
        let (h, w) = (net.height as usize, net.width as usize);
        let (pc, vc, vh) = (net.policy_channels as usize, net.value_channels as usize, net.value_hidden as usize);
        let p = net.policy_size as usize;
        let blocks = (0..net.blocks as usize)
            .map(|i| -> NnResult<Block> {
                let se = if net.se_ratio > 0 {
                    let hidden = (c / net.se_ratio as usize).max(1);
                    Some(Se { fc1: wt.linear(&format!("blocks.{i}.se.fc1"), c, hidden)?, fc2: wt.linear(&format!("blocks.{i}.se.fc2"), hidden, 2 * c)? })
                } else {
                    None
                };
                let a = im2col_matrix(wt.conv_bn(&format!("blocks.{i}.a"), c, c, 3)?);
                let b = im2col_matrix(wt.conv_bn(&format!("blocks.{i}.b"), c, c, 3)?);
                let winograd = winograd::supports(c, c).then(|| [Winograd::new(&a, c, h, w), Winograd::new(&b, c, h, w)]);
                Ok(Block { a, b, winograd, se })
            })
            .collect::<NnResult<Vec<_>>>()?;
        let taps = conv3x3::taps(h, w);
        let policy_conv = im2col_matrix(wt.conv_bn("policy_conv", c, pc, net.policy_kernel())?);
        let (fc_policy, conv_policy) = match net.policy_head {
            PolicyHead::Fc => {
                let fc = SparseFc::new(&linear_square_major(&wt, "policy_fc", pc, hw, p)?);
                (Some(FcPolicy { conv: Pointwise::new(policy_conv.clone()), fc }), None)
            }
            PolicyHead::Conv => {
                let pp = net.policy_planes()?;
                let k = pp.planes;
                let gather = pp.slots.iter().map(|&(plane, sq)| sq.map_or(hw * k, |s| s as usize * k) as u32 + plane as u32).collect();
                let planes = Pointwise::new(im2col_matrix(wt.conv("policy_planes", pc, k, 1)?));
                (None, Some(ConvPolicy { planes, gather, reads_means: pp.slots.iter().any(|s| s.1.is_none()) }))
            }
        };
        let stem = SparseStem::new(&im2col_matrix(wt.conv_bn("stem", ci, c, 3)?), ci, hw, &taps);
        Ok(FastNet {
            ci,
            c,
            hw,
            policy_size: p,
            taps,
            zeros: vec![0.0; c],
            stem,
            blocks,
            policy_conv,
            fc_policy,
            conv_policy,
            value_conv: Pointwise::new(im2col_matrix(wt.conv_bn("value_conv", c, vc, 1)?)),
            value_fc: SparseFc::new(&if net.value_pool { wt.linear("value_fc", 2 * vc, vh)? } else { linear_square_major(&wt, "value_fc", vc, hw, vh)? }),
            value_pool: net.value_pool,
            wdl_fc: wt.linear("wdl_fc", vh, 3)?,
            moves_left_fc: wt.linear("moves_left_fc", vh, 1)?,
            int8: None,
        })
    }

    /// A copy whose tower convolutions run in int8 (`nn/src/conv3x3_i8.rs`)
    /// on the fastest kernel this CPU has.
    pub fn quantized(&self) -> FastNet {
        self.quantized_with(Int8Kernel::best()).expect("the best kernel runs on this CPU")
    }

    /// A copy whose tower convolutions run in int8 on `kernel`; the error
    /// says when the CPU lacks its instructions.
    pub fn quantized_with(&self, kernel: Int8Kernel) -> NnResult<FastNet> {
        if !kernel.available() {
            return Err(NnError::Config(format!("the int8 kernel {kernel:?} needs instructions this CPU lacks")));
        }
        let convs = self.blocks.iter().flat_map(|block| [&block.a, &block.b]).map(|d| QuantConv::new(d, self.c)).collect();
        let policy = self.conv_policy.is_some().then(|| QuantConv::new(&self.policy_conv, self.c));
        let policy_fc = self.fc_policy.as_ref().map(|head| QuantFc::new(&head.fc.dense()));
        let int8 = Int8Tower { convs, policy, policy_fc, kernel, zeros: vec![0; self.c.next_multiple_of(4)] };
        // The int8 tower never reads the fp32 tower's Winograd weights (16/9
        // of its convolutions' size): the copy leaves them out.
        let blocks = self.blocks.iter().map(|b| Block { winograd: None, ..b.clone() }).collect();
        Ok(FastNet { int8: Some(int8), blocks, ..self.clone() })
    }

    /// This net in `precision` ([`NetPrecision::on_this_cpu`]): an int8 copy
    /// on [`Int8Kernel::chosen`]'s kernel, or this fp32 net as it is.
    pub fn with_precision(self, precision: NetPrecision) -> NnResult<FastNet> {
        match precision.on_this_cpu() {
            NetPrecision::Int8 => self.quantized_with(Int8Kernel::chosen()?),
            _ => Ok(self),
        }
    }

    /// The arithmetic of the tower: [`NetPrecision::Int8`] for a
    /// [`FastNet::quantized`] copy, else [`NetPrecision::Fp32`].
    pub fn precision(&self) -> NetPrecision {
        if self.int8.is_some() {
            NetPrecision::Int8
        } else {
            NetPrecision::Fp32
        }
    }

    /// The kernel of the int8 tower (`None` in fp32).
    pub fn int8_kernel(&self) -> Option<Int8Kernel> {
        self.int8.as_ref().map(|t| t.kernel)
    }

    /// Policy slots.
    pub fn policy_size(&self) -> usize {
        self.policy_size
    }

    /// Floats of one decoded input position (`Ci * H * W`).
    pub fn input_len(&self) -> usize {
        self.ci * self.hw
    }

    /// Forward pass of `batch` positions; `x` is `[B, Ci, H, W]` flattened (as
    /// [`PacoNet::forward`] takes it). Batches of at least `PARALLEL_MIN_BATCH`
    /// are split across the current rayon pool (run it inside `pool.install`
    /// to choose the pool); smaller ones run on the calling thread.
    pub fn forward(&self, x: &[f32], batch: usize) -> FastOutput {
        let mut out = FastOutput { policy: vec![0.0; batch * self.policy_size], wdl: vec![0.0; batch * 3], moves_left: vec![0.0; batch] };
        self.forward_into(x, batch, &mut out.policy, &mut out.wdl, &mut out.moves_left);
        out
    }

    /// [`FastNet::forward`] into caller buffers: `policy: [B, P]`, `wdl: [B, 3]`, `moves_left: [B]`.
    pub fn forward_into(&self, x: &[f32], batch: usize, policy: &mut [f32], wdl: &mut [f32], moves_left: &mut [f32]) {
        let n = self.input_len();
        let p = self.policy_size;
        assert_eq!(x.len(), batch * n, "input has the wrong length");
        assert_eq!(policy.len(), batch * p);
        assert_eq!(wdl.len(), batch * 3);
        assert_eq!(moves_left.len(), batch);
        let threads = rayon::current_num_threads();
        if batch < PARALLEL_MIN_BATCH || threads <= 1 {
            self.forward_chunk(x, batch, policy, wdl, moves_left);
            return;
        }
        // Split into one chunk per thread (at least 4 positions each so the
        // products stay reasonably sized).
        let per = batch.div_ceil(threads).max(PARALLEL_MIN_BATCH / 2);
        x.par_chunks(per * n)
            .zip(policy.par_chunks_mut(per * p))
            .zip(wdl.par_chunks_mut(per * 3))
            .zip(moves_left.par_chunks_mut(per))
            .for_each(|(((x, pol), wdl), ml)| self.forward_chunk(x, ml.len(), pol, wdl, ml));
    }

    /// Positions of one piece of a forward pass ([`PIECE_BYTES`]).
    fn piece(&self) -> usize {
        let per_position = self.hw * 9 * self.c * std::mem::size_of::<f32>();
        (PIECE_BYTES / per_position).max(MIN_PIECE)
    }

    /// Forward pass on the calling thread, [`FastNet::piece`] positions at a time.
    fn forward_chunk(&self, x: &[f32], batch: usize, policy: &mut [f32], wdl: &mut [f32], moves_left: &mut [f32]) {
        let (n, p, k) = (self.input_len(), self.policy_size, self.piece());
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            let s = &mut *s;
            for (((x, pol), wdl), ml) in x.chunks(k * n).zip(policy.chunks_mut(k * p)).zip(wdl.chunks_mut(k * 3)).zip(moves_left.chunks_mut(k)) {
                self.forward_scratch(s, x, ml.len(), pol, wdl, ml);
            }
        });
        debug_assert_eq!(moves_left.len(), batch);
    }

    fn forward_scratch(&self, s: &mut Scratch, x: &[f32], b: usize, policy: &mut [f32], wdl: &mut [f32], moves_left: &mut [f32]) {
        let (ci, c, hw) = (self.ci, self.c, self.hw);
        let m = b * hw;
        let act = take(&mut s.x, m * c); // [B*HW, C]
        let tmp = take(&mut s.y, m * c); // [B*HW, C]
                                         // im2col buffer, reused for the heads' 1x1 convolution outputs.
        let planes = self.conv_policy.as_ref().map_or(0, |h| h.planes.n());
        let cols_len = m * (9 * c).max(self.policy_conv.n).max(self.value_conv.n()).max(planes);
        let cols = take(&mut s.cols, cols_len); // [B*HW, 9*C] or more

        // Input [B, Ci, HW] (channel-major) -> stem -> square-major [B*HW, C].
        for (x, act) in x.chunks_exact(ci * hw).zip(act.chunks_exact_mut(hw * c)).take(b) {
            self.stem.forward(x, act, true);
        }

        let z = take(&mut s.z, m * c);
        for (i, block) in self.blocks.iter().enumerate() {
            let y = &mut tmp[..m * c];
            let scratch = (&mut *cols, &mut s.int8, &mut s.winograd);
            self.tower_conv(block, 2 * i, act, y, true, scratch); // [B*HW, C]
            let scratch = (&mut *cols, &mut s.int8, &mut s.winograd);
            self.tower_conv(block, 2 * i + 1, y, z, false, scratch); // [B*HW, C]
            let y = &mut *z;
            if let Some(se) = &block.se {
                let hidden = se.fc1.n;
                let pooled = take(&mut s.s1, b * c); // [B, C]
                pooled.fill(0.0);
                for bi in 0..b {
                    let prow = &mut pooled[bi * c..(bi + 1) * c];
                    for row in y[bi * hw * c..(bi + 1) * hw * c].chunks_exact(c) {
                        for (p, v) in prow.iter_mut().zip(row) {
                            *p += v;
                        }
                    }
                    let inv = 1.0 / hw as f32;
                    prow.iter_mut().for_each(|p| *p *= inv);
                }
                // Both SE layers share s2: hidden [B, C/r] then gate [B, 2C].
                let s2 = take(&mut s.s2, b * (hidden + 2 * c));
                let (h1, gate) = s2.split_at_mut(b * hidden);
                dense(&se.fc1, b, pooled, h1, true); // [B, C/r]
                dense(&se.fc2, b, h1, gate, false); // [B, 2C]
                for bi in 0..b {
                    let g = &mut gate[bi * 2 * c..(bi + 1) * 2 * c]; // [2C]: scale logits, biases
                    for v in &mut g[..c] {
                        *v = 1.0 / (1.0 + (-*v).exp());
                    }
                    let (scale, bias) = g.split_at(c);
                    for row in y[bi * hw * c..(bi + 1) * hw * c].chunks_exact_mut(c) {
                        for ((v, sc), bs) in row.iter_mut().zip(scale).zip(bias) {
                            *v = *v * sc + bs;
                        }
                    }
                }
            }
            // Skip connection and ReLU, back into the activation buffer.
            for (a, v) in act.iter_mut().zip(y.iter()) {
                *a = (*a + v).max(0.0);
            }
        }

        let pc = self.policy_conv.n;
        let p = self.policy_size;
        match (&self.fc_policy, &self.conv_policy) {
            (Some(head), _) => {
                // Policy head: 1x1 conv -> [B, HW*Pc] (square-major) -> logits.
                let ph = &mut cols[..m * pc];
                head.conv.forward(act, ph, true, &mut s.nonzero); // [B*HW, Pc] = [B, HW*Pc]
                match self.int8.as_ref().and_then(|t| Some((t.kernel, t.policy_fc.as_ref()?))) {
                    Some((kernel, fc)) => fc.forward(kernel, ph, policy, false, &mut s.int8.fc), // [B, P]
                    None => head.fc.forward(ph, policy, false, &mut s.nonzero),                  // [B, P]
                }
            }
            (None, Some(head)) => {
                // 3x3 conv -> 1x1 conv to the planes -> each slot's square (or plane mean).
                let ph = take(&mut s.z, m * pc);
                match self.int8.as_ref().and_then(|t| Some((t, t.policy.as_ref()?))) {
                    Some((tower, q)) => tower.conv(q, self.hw, &self.taps, act, ph, true, &mut s.int8),
                    None => self.conv3x3(&self.policy_conv, act, b, c, ph, true, cols), // [B*HW, Pc]
                }
                let k = head.planes.n();
                let out = &mut cols[..m * k];
                head.planes.forward(ph, out, false, &mut s.nonzero); // [B*HW, K]
                let means = take(&mut s.s2, k);
                for (o, pol) in out.chunks_exact(hw * k).zip(policy.chunks_exact_mut(p)) {
                    if head.reads_means {
                        means.fill(0.0);
                        for row in o.chunks_exact(k) {
                            means.iter_mut().zip(row).for_each(|(a, v)| *a += v);
                        }
                        let inv = 1.0 / hw as f32;
                        means.iter_mut().for_each(|a| *a *= inv);
                    }
                    for (v, &i) in pol.iter_mut().zip(&head.gather) {
                        let i = i as usize;
                        *v = if i < hw * k { o[i] } else { means[i - hw * k] };
                    }
                }
            }
            (None, None) => unreachable!("a network has a policy head"),
        }

        // Value head: 1x1 conv -> [B, HW*Vc] -> hidden -> WDL, moves left.
        let vc = self.value_conv.n();
        let vh = self.value_fc.n();
        let vconv = &mut cols[..m * vc];
        self.value_conv.forward(act, vconv, true, &mut s.nonzero); // [B*HW, Vc] = [B, HW*Vc]
        let hid = take(&mut s.s1, b * vh);
        if self.value_pool {
            let pooled = take(&mut s.s2, b * 2 * vc); // [B, 2*Vc]: means, then maxima
            for bi in 0..b {
                let (mean, max) = pooled[bi * 2 * vc..(bi + 1) * 2 * vc].split_at_mut(vc);
                mean.fill(0.0);
                max.fill(f32::NEG_INFINITY);
                for row in vconv[bi * hw * vc..(bi + 1) * hw * vc].chunks_exact(vc) {
                    for ((a, x), v) in mean.iter_mut().zip(max.iter_mut()).zip(row) {
                        *a += v;
                        *x = x.max(*v);
                    }
                }
                let inv = 1.0 / hw as f32;
                mean.iter_mut().for_each(|a| *a *= inv);
            }
            self.value_fc.forward(pooled, hid, true, &mut s.nonzero); // [B, Vh]
        } else {
            self.value_fc.forward(vconv, hid, true, &mut s.nonzero); // [B, Vh]
        }
        let logits = take(&mut s.s2, b * 3);
        dense(&self.wdl_fc, b, hid, logits, false); // [B, 3]
        for bi in 0..b {
            softmax3(&logits[bi * 3..bi * 3 + 3], &mut wdl[bi * 3..bi * 3 + 3]);
        }
        dense(&self.moves_left_fc, b, hid, moves_left, false); // [B, 1]
    }

    /// Tower convolution `layer` (`block`'s `a` for an even layer, else its
    /// `b`) of `src: [B*HW, C]` into `out: [B*HW, C]`: in int8 in a
    /// [`FastNet::quantized`] copy, else in fp32 (Winograd's where the block
    /// has it). `scratch`: the im2col buffer, the int8 buffers, Winograd's.
    fn tower_conv(&self, block: &Block, layer: usize, src: &[f32], out: &mut [f32], relu: bool, scratch: (&mut [f32], &mut Int8Scratch, &mut Vec<f32>)) {
        let (cols, int8, wino) = scratch;
        let b = src.len() / (self.hw * self.c);
        match (&self.int8, &block.winograd) {
            (Some(tower), _) => tower.conv(&tower.convs[layer], self.hw, &self.taps, src, out, relu, int8),
            (None, Some(convs)) => {
                let conv = &convs[layer % 2];
                conv.forward(src, out, relu, take(wino, conv.scratch_len(b)));
            }
            (None, None) => self.conv3x3(if layer.is_multiple_of(2) { &block.a } else { &block.b }, src, b, self.c, out, relu, cols),
        }
    }

    /// A 3x3 same-padding convolution `src: [B*HW, cin]` -> `out: [B*HW, d.n]`
    /// with the `[9*cin, n]` matrix `d`: direct where [`conv3x3::supports`]
    /// it, else im2col into `cols` and one product.
    #[allow(clippy::too_many_arguments)]
    fn conv3x3(&self, d: &Dense, src: &[f32], b: usize, cin: usize, out: &mut [f32], relu: bool, cols: &mut [f32]) {
        if conv3x3::supports(d.n, self.hw) {
            conv3x3::conv3x3(d, conv3x3::Board { hw: self.hw, taps: &self.taps, zeros: &self.zeros }, src, cin, out, relu);
        } else {
            let cols = &mut cols[..b * self.hw * 9 * cin];
            self.im2col(src, b, cin, cols); // [B*HW, 9*cin]
            dense(d, b * self.hw, cols, out, relu);
        }
    }

    /// 3x3 same-padding im2col: `src: [B*HW, ch]` -> `dst: [B*HW, 9*ch]`, row `(t*ch + c)`.
    fn im2col(&self, src: &[f32], b: usize, ch: usize, dst: &mut [f32]) {
        let hw = self.hw;
        for bi in 0..b {
            let img = &src[bi * hw * ch..(bi + 1) * hw * ch]; // [HW, ch]
            let out = &mut dst[bi * hw * 9 * ch..(bi + 1) * hw * 9 * ch]; // [HW, 9*ch]
            for (sq, row) in out.chunks_exact_mut(9 * ch).enumerate() {
                for (t, seg) in row.chunks_exact_mut(ch).enumerate() {
                    let from = self.taps[sq * 9 + t];
                    if from < 0 {
                        seg.fill(0.0);
                    } else {
                        let f = from as usize * ch;
                        seg.copy_from_slice(&img[f..f + ch]);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_data::GameSpec;

    /// A piece is the most positions whose im2col buffer (9 floats per
    /// square and tower channel: the stem reads the input where it is)
    /// fits in `PIECE_BYTES`, and never fewer than `MIN_PIECE`.
    #[test]
    fn a_piece_is_the_most_positions_whose_buffer_fits() {
        for (height, width, bit_planes, channels) in [(8, 8, 4, 16), (8, 8, 4, 128), (10, 10, 40, 24), (10, 10, 4, 256), (2, 1, 300, 8)] {
            let spec = GameSpec::new("test", height, width, bit_planes, 1, 50, &["first", "second"]).unwrap();
            let net = NetConfig { channels, ..NetConfig::tiny_for(&spec) };
            let fast = FastNet::from_model(&net.init_seeded(&burn::tensor::Device::flex(), 1).unwrap(), &net).unwrap();
            let widest = channels as usize;
            assert!(fast.ci >= bit_planes as usize);
            let bytes = |positions: usize| positions * (height * width) as usize * 9 * widest * std::mem::size_of::<f32>();
            let k = fast.piece();
            assert!(k >= MIN_PIECE && bytes(k + 1) > PIECE_BYTES, "{height}x{width}, {channels} channels: {k}");
            assert!(k == MIN_PIECE || bytes(k) <= PIECE_BYTES, "{height}x{width}, {channels} channels: {k}");
            if (height, width, channels) == (8, 8, 16) {
                // The budget is the 2 MiB that PIECE_BYTES documents the speeds of.
                assert_eq!(k, 56, "2 MiB holds 56 positions of 64 squares x 9 taps x 16 channels");
            }
        }
    }

    /// The int8 copy drops the fp32 tower's Winograd weights (it never
    /// reads them); the fp32 net keeps them for every block wide enough.
    #[test]
    fn the_int8_copy_leaves_out_the_winograd_weights() {
        let spec = GameSpec::new("test", 8, 8, 4, 1, 50, &["first", "second"]).unwrap();
        let net = NetConfig { channels: 32, blocks: 2, ..NetConfig::tiny_for(&spec) };
        let fast = FastNet::from_model(&net.init_seeded(&burn::tensor::Device::flex(), 1).unwrap(), &net).unwrap();
        assert_eq!(fast.blocks.len(), 2);
        assert!(fast.blocks.iter().all(|b| b.winograd.is_some()), "32 channels run as Winograd in fp32");
        let int8 = fast.quantized_with(Int8Kernel::Scalar).unwrap();
        assert!(int8.blocks.iter().all(|b| b.winograd.is_none()));
        assert!(fast.blocks.iter().all(|b| b.winograd.is_some()), "the fp32 net keeps its own");
    }

    /// The int8 copy runs the `"conv"` policy head's 3x3 convolution in
    /// int8: the policy differs from the same copy with that convolution in
    /// fp32, the value (which never reads it) does not. An `"fc"` head's
    /// 1x1 convolution stays fp32.
    #[test]
    fn the_int8_copy_runs_the_conv_policy_heads_convolution_in_int8() {
        let spec = pacozero_data::spec_of_encoding(pacozero_engine::GameKind::Shako, "threats").unwrap();
        let tiny = NetConfig { channels: 24, ..NetConfig::tiny_for(&spec) };
        let conv = NetConfig { policy_head: PolicyHead::Conv, policy_channels: 16, ..tiny.clone() };
        let fast = FastNet::from_model(&conv.init_seeded(&burn::tensor::Device::flex(), 3).unwrap(), &conv).unwrap();
        let int8 = fast.quantized_with(Int8Kernel::Scalar).unwrap();
        let q = int8.int8.as_ref().unwrap().policy.as_ref().expect("the conv head's convolution in int8");
        assert_eq!((q.cin, q.cout), (24, 16));
        let mut fp32_head = int8.clone();
        fp32_head.int8.as_mut().unwrap().policy = None;
        // Two positions of ones and zeros.
        let x: Vec<f32> = (0..2 * fast.input_len()).map(|i| ((i * 7919) % 5 == 0) as u8 as f32).collect();
        let (a, b) = (int8.forward(&x, 2), fp32_head.forward(&x, 2));
        assert_eq!(a.wdl, b.wdl, "the value head does not read the policy convolution");
        assert_ne!(a.policy, b.policy, "the policy convolution ran in fp32");
        let fc = FastNet::from_model(&tiny.init_seeded(&burn::tensor::Device::flex(), 3).unwrap(), &tiny).unwrap();
        assert!(fc.quantized_with(Int8Kernel::Scalar).unwrap().int8.unwrap().policy.is_none());
        assert!(int8.int8.as_ref().unwrap().policy_fc.is_none(), "a conv head has no fully connected layer");
    }

    /// The int8 copy of a net with the `"fc"` policy head runs its fully
    /// connected layer in int8: the policy differs from the same copy with
    /// that layer in fp32, the value does not; the two policies are close.
    #[test]
    fn the_int8_copy_runs_the_fc_policy_heads_layer_in_int8() {
        let spec = pacozero_data::spec_of(pacozero_engine::GameKind::Paco);
        let net = NetConfig { channels: 24, ..NetConfig::tiny_for(&spec) };
        let fast = FastNet::from_model(&net.init_seeded(&burn::tensor::Device::flex(), 4).unwrap(), &net).unwrap();
        let int8 = fast.quantized_with(Int8Kernel::Scalar).unwrap();
        let tower = int8.int8.as_ref().unwrap();
        assert!(tower.policy.is_none());
        assert_eq!(tower.policy_fc.as_ref().expect("the fc head's layer in int8").n(), fast.policy_size());
        let mut fp32_head = int8.clone();
        fp32_head.int8.as_mut().unwrap().policy_fc = None;
        let x: Vec<f32> = (0..2 * fast.input_len()).map(|i| ((i * 7919) % 5 == 0) as u8 as f32).collect();
        let (a, b) = (int8.forward(&x, 2), fp32_head.forward(&x, 2));
        assert_eq!(a.wdl, b.wdl, "the value head does not read the policy layer");
        assert_ne!(a.policy, b.policy, "the policy layer ran in fp32");
        let spread = b.policy.iter().map(|v| v.abs()).fold(0.0, f32::max);
        let worst = a.policy.iter().zip(&b.policy).map(|(p, q)| (p - q).abs()).fold(0.0, f32::max);
        assert!(worst <= 0.02 * spread.max(1e-3), "int8 logits differ by {worst} (logits up to {spread})");
    }
}
