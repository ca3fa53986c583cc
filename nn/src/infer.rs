//! Batched inference for self-play: [`Network`].

use std::path::Path;
use std::sync::Arc;

use burn::prelude::*;
use burn::tensor::activation::softmax;
use burn::tensor::TensorData;
use pacozero_data::{decode_into, GameSpec};

use crate::backend::{cpu_pool, default_device, in_pool, inference_device};
use crate::error::{NnError, NnResult};
use crate::fastnet::FastNet;
use crate::model::{NetConfig, PacoNet};
use crate::modelfile::{load_model, ModelInfo};
use crate::precision::NetPrecision;

/// One position to evaluate, in the data schema's packed layout.
#[derive(Clone, Copy, Debug)]
pub struct EvalInput<'a> {
    /// `bit_planes * ceil(H*W/64)` words, mover's frame (see `pacozero_data`).
    pub planes: &'a [u64],
    /// `scalars` values.
    pub scalars: &'a [f32],
}

/// Network outputs for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Raw policy logits over all `policy_size` slots (mask illegal slots yourself).
    pub policy_logits: Vec<f32>,
    /// (win, draw, loss) probabilities from the mover's perspective.
    pub wdl: [f32; 3],
    /// Predicted decisions left until the game ends.
    pub moves_left: f32,
}

/// Every head's output for a batch of `B` positions, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadOutputs {
    /// Policy logits, `[B, P]`.
    pub policy: Vec<f32>,
    /// Win/draw/loss probabilities (softmax of the value head), `[B, 3]`.
    pub wdl: Vec<f32>,
    /// Raw moves-left output (predicted `ln(1 + moves_left)`), `[B]`.
    pub moves_left: Vec<f32>,
    /// Logits of the auxiliary targets, `[B, A]`; `None` where the path
    /// does not compute them ([`FastNet`]).
    pub aux: Option<Vec<f32>>,
    /// Logits of the opponent's reply, `[B, P]`, with `reply_policy` and
    /// burn's forward pass.
    pub reply: Option<Vec<f32>>,
}

/// A loaded network ready to evaluate batches (no autodiff).
///
/// On the CPU (flex, or LibTorch's CPU device: [`crate::backend::is_cpu`])
/// evaluation runs through [`FastNet`], a plain-Rust copy of the network that
/// is several times faster at small batches; burn's forward pass stays the
/// path for GPUs and the reference. Set
/// `PACOZERO_FASTNET=0` (or call [`Network::set_fastnet`]) to force burn.
///
/// FastNet's tower runs in the process's precision when the network is
/// built ([`crate::precision::process_precision`]: `--precision`,
/// `PACOZERO_PRECISION`, a loop's `[net] precision`; fp32 by default), or
/// in what [`Network::set_precision`] chooses later.
pub struct Network {
    model: PacoNet,
    /// Always built (cheap: a copy of the weights); used when `use_fast`.
    fast: FastNet,
    use_fast: bool,
    net: NetConfig,
    info: ModelInfo,
    spec: GameSpec,
    device: Device,
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl Network {
    /// Load an exported model on the default backend ([`default_device`]),
    /// using `threads` CPU threads (0 = rayon global pool, see [`crate::backend`]).
    pub fn load(path: &Path, threads: usize) -> NnResult<Self> {
        Self::load_on(path, &default_device(), threads)
    }

    /// Load an exported model on a given device.
    pub fn load_on(path: &Path, device: &Device, threads: usize) -> NnResult<Self> {
        let device = inference_device(device);
        let (model, net, info) = load_model(path, &device, None)?;
        Self::from_model(model, net, info, &device, threads)
    }

    /// Wrap an in-memory model (moved to inference mode on `device`).
    pub fn from_model(model: PacoNet, net: NetConfig, info: ModelInfo, device: &Device, threads: usize) -> NnResult<Self> {
        let device = inference_device(device);
        let model = model.valid().to_device(&device);
        // The decoder's spec: the input's shape (the auxiliary targets are not read).
        let spec = GameSpec::new("any", net.height, net.width, net.bit_planes, net.scalars, net.policy_size, &[])?;
        let fast = FastNet::from_model(&model, &net)?;
        let fast_env = !matches!(std::env::var("PACOZERO_FASTNET").as_deref(), Ok("0") | Ok("false") | Ok("off"));
        let use_fast = fast_env && crate::backend::is_cpu(&device);
        let mut network = Network { model, fast, use_fast, net, info, spec, device, pool: cpu_pool(threads)? };
        let precision = crate::precision::process_precision()?;
        if !precision.is_fp32() {
            network.set_precision(precision)?;
        }
        Ok(network)
    }

    /// The arithmetic of FastNet's tower ([`crate::NetPrecision`]): `Auto`
    /// is `Int8` where the CPU has AVX-512 VNNI, else `Fp32`. int8 runs on
    /// [`crate::Int8Kernel::chosen`]'s kernel.
    pub fn set_precision(&mut self, precision: NetPrecision) -> NnResult<()> {
        self.fast = FastNet::from_model(&self.model, &self.net)?.with_precision(precision)?;
        Ok(())
    }

    /// The arithmetic FastNet's tower runs in (`Fp32` or `Int8`).
    pub fn precision(&self) -> NetPrecision {
        self.fast.precision()
    }

    /// Choose the evaluation path: `true` = [`FastNet`] (CPU), `false` = burn's
    /// forward pass on the model's device.
    pub fn set_fastnet(&mut self, on: bool) {
        self.use_fast = on;
    }

    /// Whether evaluation runs through [`FastNet`].
    pub fn uses_fastnet(&self) -> bool {
        self.use_fast
    }

    /// Architecture of the loaded model.
    pub fn config(&self) -> &NetConfig {
        &self.net
    }

    /// Name/step of the loaded model.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// The burn model (in inference mode).
    pub fn model(&self) -> &PacoNet {
        &self.model
    }

    /// Every head's raw output for already-decoded inputs (`x`: `[batch, C,
    /// H, W]` flattened), through [`FastNet`] (`fastnet`, on the CPU; no
    /// auxiliary heads) or burn's forward pass on the model's device: the
    /// references an exported network is checked against.
    pub fn forward_heads(&self, x: Vec<f32>, batch: usize, fastnet: bool) -> HeadOutputs {
        let (c, h, w) = (self.net.input_channels(), self.net.height as usize, self.net.width as usize);
        assert_eq!(x.len(), batch * c * h * w, "dense input has the wrong length");
        if fastnet {
            let out = self.fast_output(&x, batch);
            return HeadOutputs { policy: out.policy, wdl: out.wdl, moves_left: out.moves_left, aux: None, reply: None };
        }
        in_pool(&self.pool, || {
            let x = Tensor::<4>::from_data(TensorData::new(x, [batch, c, h, w]), &self.device); // [B, Ci, H, W]
            let out = self.model.forward(x);
            let floats = |t: Tensor<2>| t.into_data().try_to_vec::<f32>().expect("f32 output");
            HeadOutputs {
                policy: floats(out.policy),
                wdl: floats(softmax(out.wdl, 1)),
                moves_left: floats(out.moves_left),
                aux: Some(floats(out.aux)),
                reply: out.reply.map(floats),
            }
        })
    }

    /// [`FastNet::forward`] as the workers run it: batches below
    /// `PARALLEL_MIN_BATCH` on this thread (a hop to the pool costs more
    /// than it saves), larger ones split over the network's pool. Which
    /// threads run it changes no output.
    fn fast_output(&self, x: &[f32], batch: usize) -> crate::fastnet::FastOutput {
        let mut out = crate::fastnet::FastOutput { policy: vec![0.0; batch * self.policy_size()], wdl: vec![0.0; batch * 3], moves_left: vec![0.0; batch] };
        self.fast_forward(x, batch, &mut out.policy, &mut out.wdl, &mut out.moves_left);
        out
    }

    /// [`Network::fast_output`] into caller buffers: `policy: [B, P]`,
    /// `wdl: [B, 3]`, `moves_left: [B]`.
    fn fast_forward(&self, x: &[f32], batch: usize, policy: &mut [f32], wdl: &mut [f32], moves_left: &mut [f32]) {
        if batch >= crate::fastnet::PARALLEL_MIN_BATCH {
            in_pool(&self.pool, || self.fast.forward_into(x, batch, policy, wdl, moves_left))
        } else {
            self.fast.forward_into(x, batch, policy, wdl, moves_left)
        }
    }

    /// Policy slots.
    pub fn policy_size(&self) -> usize {
        self.net.policy_size as usize
    }

    /// Evaluate a batch of positions. Errors (never panics) if an input does
    /// not have the model's plane/scalar counts.
    pub fn evaluate_batch(&self, inputs: &[EvalInput<'_>]) -> NnResult<Vec<Evaluation>> {
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let n = self.spec.input_len();
        let mut x = vec![0f32; inputs.len() * n];
        for (i, inp) in inputs.iter().enumerate() {
            self.check_input(i, inp)?;
            decode_into(&self.spec, inp.planes, inp.scalars, &mut x[i * n..(i + 1) * n]);
        }
        Ok(self.evaluate_dense(x, inputs.len()))
    }

    /// Evaluate a batch of positions as [`Network::evaluate_batch`] does,
    /// handing each position's policy logits, win/draw/loss and moves left
    /// to `each(i, logits, wdl, moves_left)` instead of returning them.
    /// On FastNet the inputs and outputs live in buffers this thread keeps
    /// from batch to batch: self-play evaluates a batch every few hundred
    /// microseconds, and a fresh, zeroed 650 kB input each time showed in
    /// its profile (allocation, zeroing, page faults).
    pub fn evaluate_each(&self, inputs: &[EvalInput<'_>], mut each: impl FnMut(usize, &[f32], [f32; 3], f32)) -> NnResult<()> {
        if !self.use_fast {
            for (i, e) in self.evaluate_batch(inputs)?.into_iter().enumerate() {
                each(i, &e.policy_logits, e.wdl, e.moves_left);
            }
            return Ok(());
        }
        thread_local! {
            static BUFFERS: std::cell::RefCell<[Vec<f32>; 4]> = const { std::cell::RefCell::new([Vec::new(), Vec::new(), Vec::new(), Vec::new()]) };
        }
        let (n, p, b) = (self.spec.input_len(), self.policy_size(), inputs.len());
        BUFFERS.with(|buffers| {
            let mut buffers = buffers.borrow_mut();
            let [x, policy, wdl, moves_left] = &mut *buffers;
            x.resize(b * n, 0.0);
            for (i, inp) in inputs.iter().enumerate() {
                self.check_input(i, inp)?;
                decode_into(&self.spec, inp.planes, inp.scalars, &mut x[i * n..(i + 1) * n]);
            }
            policy.resize(b * p, 0.0);
            wdl.resize(b * 3, 0.0);
            moves_left.resize(b, 0.0);
            self.fast_forward(&x[..b * n], b, &mut policy[..b * p], &mut wdl[..b * 3], &mut moves_left[..b]);
            for i in 0..b {
                each(i, &policy[i * p..(i + 1) * p], [wdl[3 * i], wdl[3 * i + 1], wdl[3 * i + 2]], moves_left[i].exp_m1().max(0.0));
            }
            Ok(())
        })
    }

    /// The error of input `i` whose plane words or scalars are not the model's.
    fn check_input(&self, i: usize, inp: &EvalInput<'_>) -> NnResult<()> {
        if inp.planes.len() != self.spec.plane_words() || inp.scalars.len() != self.spec.scalars as usize {
            return Err(NnError::Config(format!(
                "input {i}: {} plane words and {} scalars, the model expects {} and {}",
                inp.planes.len(),
                inp.scalars.len(),
                self.spec.plane_words(),
                self.spec.scalars
            )));
        }
        Ok(())
    }

    /// Evaluate already-decoded inputs: `x` is `[batch, C, H, W]` flattened.
    pub fn evaluate_dense(&self, x: Vec<f32>, batch: usize) -> Vec<Evaluation> {
        let (c, h, w) = (self.net.input_channels(), self.net.height as usize, self.net.width as usize);
        assert_eq!(x.len(), batch * c * h * w, "dense input has the wrong length");
        let p = self.policy_size();
        if self.use_fast {
            let out = self.fast_output(&x, batch);
            return (0..batch)
                .map(|i| Evaluation {
                    policy_logits: out.policy[i * p..(i + 1) * p].to_vec(),
                    wdl: [out.wdl[3 * i], out.wdl[3 * i + 1], out.wdl[3 * i + 2]],
                    moves_left: out.moves_left[i].exp_m1().max(0.0),
                })
                .collect();
        }
        let (policy, wdl, ml) = in_pool(&self.pool, || {
            let x = Tensor::<4>::from_data(TensorData::new(x, [batch, c, h, w]), &self.device); // [B, Ci, H, W]
            let out = self.model.forward(x);
            let wdl = softmax(out.wdl, 1); // [B, 3]
            let ml = out.moves_left; // [B, 1]
            (out.policy.into_data(), wdl.into_data(), ml.into_data())
        });
        let policy = policy.as_slice::<f32>().expect("f32 policy").to_vec();
        let wdl = wdl.as_slice::<f32>().expect("f32 wdl").to_vec();
        let ml = ml.as_slice::<f32>().expect("f32 moves_left").to_vec();
        (0..batch)
            .map(|i| Evaluation {
                policy_logits: policy[i * p..(i + 1) * p].to_vec(),
                wdl: [wdl[3 * i], wdl[3 * i + 1], wdl[3 * i + 2]],
                moves_left: ml[i].exp_m1().max(0.0),
            })
            .collect()
    }
}
