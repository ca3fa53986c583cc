//! Network architecture: a residual tower with squeeze-excitation and four heads.
//!
//! Shapes use `B` = batch, `C` = tower channels, `Ci` = input channels
//! (`bit_planes + scalars`), `H`x`W` = board, `P` = policy size.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::{relu, sigmoid};
use serde::{Deserialize, Serialize};

use pacozero_engine::{encoding_index, Game, GameKind};

use crate::error::{NnError, NnResult};

/// The policy head of a network ([`NetConfig::policy_head`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyHead {
    /// A 1x1 convolution (`policy_channels`) and a fully connected layer
    /// from its every square to every policy slot.
    #[default]
    Fc,
    /// A 3x3 convolution (`policy_channels`) and a 1x1 convolution to the
    /// game's policy planes ([`pacozero_engine::Encode::policy_planes`]); each
    /// slot's logit is read from its plane and square.
    Conv,
}

impl PolicyHead {
    /// The name in a `[net]` table and a model header: `fc` or `conv`.
    pub fn name(self) -> &'static str {
        match self {
            PolicyHead::Fc => "fc",
            PolicyHead::Conv => "conv",
        }
    }

    fn is_fc(&self) -> bool {
        *self == PolicyHead::Fc
    }
}

/// Architecture of a network (serde, e.g. a `[net]` TOML table).
///
/// Every field is range-checked by [`NetConfig::validate`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    /// Residual blocks in the tower (1..=64). Default 6.
    #[serde(default = "d_blocks")]
    pub blocks: u32,
    /// Channels of the tower (4..=1024). Default 64.
    #[serde(default = "d_channels")]
    pub channels: u32,
    /// Squeeze-excitation reduction ratio: the SE bottleneck has
    /// `channels / se_ratio` units. 0 disables SE; otherwise 1..=channels. Default 4.
    #[serde(default = "d_se_ratio")]
    pub se_ratio: u32,
    /// Channels of the 1x1 convolution of the policy head (1..=1024). Default 32.
    #[serde(default = "d_policy_channels")]
    pub policy_channels: u32,
    /// Channels of the 1x1 convolution of the value head (1..=1024). Default 8.
    #[serde(default = "d_value_channels")]
    pub value_channels: u32,
    /// Hidden units of the value head's fully connected layer (1..=4096). Default 128.
    #[serde(default = "d_value_hidden")]
    pub value_hidden: u32,
    /// Global pooling in the value head (KataGo's): the hidden layer reads
    /// the mean and the maximum of each value channel over the board
    /// (`2 * value_channels` inputs) instead of every square's
    /// (`value_channels * H * W`), so it has far fewer weights to overfit
    /// with. Default false (the files of earlier builds have no such key).
    #[serde(default)]
    pub value_pool: bool,
    /// A second policy head (auxiliary, unused by search) trained on the
    /// opponent's reply: the search policy of the opponent's next decision
    /// (KataGo's opponent-policy target). It reads the policy head's
    /// convolution. Default false.
    #[serde(default)]
    pub reply_policy: bool,
    /// The policy head: `"fc"` (the default; the files of earlier builds
    /// have no such key), a fully connected layer with `policy_channels *
    /// H * W * policy_size` weights, or `"conv"`, convolutions to the
    /// game's policy planes (AlphaZero's), a few thousand weights for any
    /// board. Written only when `"conv"`, so the headers of fully connected
    /// networks stay as they were; a build that predates the key refuses a
    /// conv network's header as an unknown field.
    #[serde(default, skip_serializing_if = "PolicyHead::is_fc")]
    pub policy_head: PolicyHead,
    /// Bit planes of the input (from the data spec; 1..=4096).
    pub bit_planes: u32,
    /// Scalar inputs, broadcast to constant planes (0..=4096).
    pub scalars: u32,
    /// Board height (1..=64).
    pub height: u32,
    /// Board width (1..=64).
    pub width: u32,
    /// Policy slots (1..=65536).
    pub policy_size: u32,
    /// Logits of the auxiliary head: the game's auxiliary targets (from the
    /// data spec, `Encode::AUX_TARGETS`; 0..=64). Default 2 (both games have
    /// two, and the files of earlier builds have no such key); written only
    /// when it differs, so their headers stay as they were.
    #[serde(default = "d_aux_targets", skip_serializing_if = "is_d_aux_targets")]
    pub aux_targets: u32,
    /// The input encoding the network reads (one of the game's
    /// `Encode::ENCODINGS`, from the data spec): `"pacozero"`, each game's
    /// own, or for Paco Ŝako `"platform"`, the platform's input (see the
    /// book's chapter "ONNX export"). Written only when it is not
    /// `"pacozero"`, so the headers of earlier files, which have no such
    /// key, read as what they are.
    #[serde(default = "d_encoding", skip_serializing_if = "is_d_encoding")]
    pub encoding: String,
}

fn d_blocks() -> u32 {
    6
}
fn d_channels() -> u32 {
    64
}
fn d_se_ratio() -> u32 {
    4
}
fn d_policy_channels() -> u32 {
    32
}
fn d_value_channels() -> u32 {
    8
}
fn d_value_hidden() -> u32 {
    128
}
fn d_aux_targets() -> u32 {
    2
}
fn is_d_aux_targets(n: &u32) -> bool {
    *n == d_aux_targets()
}
fn d_encoding() -> String {
    pacozero_engine::DEFAULT_ENCODING.to_string()
}
fn is_d_encoding(name: &str) -> bool {
    name == pacozero_engine::DEFAULT_ENCODING
}

impl NetConfig {
    /// The default CPU network (6 blocks x 64 channels) for a data spec.
    pub fn default_for(spec: &pacozero_data::GameSpec) -> Self {
        NetConfig {
            blocks: d_blocks(),
            channels: d_channels(),
            se_ratio: d_se_ratio(),
            policy_channels: d_policy_channels(),
            value_channels: d_value_channels(),
            value_hidden: d_value_hidden(),
            value_pool: false,
            reply_policy: false,
            policy_head: PolicyHead::Fc,
            bit_planes: spec.bit_planes,
            scalars: spec.scalars,
            height: spec.board_height,
            width: spec.board_width,
            policy_size: spec.policy_size,
            aux_targets: spec.num_aux_targets() as u32,
            encoding: spec.encoding.clone(),
        }
    }

    /// A tiny network (1 block x 16 channels, the default squeeze-excitation ratio) for tests.
    pub fn tiny_for(spec: &pacozero_data::GameSpec) -> Self {
        NetConfig { blocks: 1, channels: 16, policy_channels: 8, value_channels: 4, value_hidden: 32, ..Self::default_for(spec) }
    }

    /// Check every field's range; the message names the field.
    pub fn validate(&self) -> NnResult<()> {
        let check = |name: &str, v: u32, lo: u32, hi: u32| -> NnResult<()> {
            if v < lo || v > hi {
                Err(NnError::Config(format!("net.{name} = {v} is out of range {lo}..={hi}")))
            } else {
                Ok(())
            }
        };
        check("blocks", self.blocks, 1, 64)?;
        check("channels", self.channels, 4, 1024)?;
        if self.se_ratio != 0 {
            check("se_ratio", self.se_ratio, 1, self.channels)?;
        }
        check("policy_channels", self.policy_channels, 1, 1024)?;
        check("value_channels", self.value_channels, 1, 1024)?;
        check("value_hidden", self.value_hidden, 1, 4096)?;
        check("bit_planes", self.bit_planes, 1, 4096)?;
        check("scalars", self.scalars, 0, 4096)?;
        check("height", self.height, 1, 64)?;
        check("width", self.width, 1, 64)?;
        check("policy_size", self.policy_size, 1, 65536)?;
        check("aux_targets", self.aux_targets, 0, pacozero_data::MAX_AUX_TARGETS as u32)?;
        if self.encoding.is_empty() {
            return Err(NnError::Config("net.encoding is empty".into()));
        }
        if self.policy_head == PolicyHead::Conv {
            self.policy_planes()?;
        }
        Ok(())
    }

    /// The policy planes of the game whose inputs (in this network's
    /// encoding), board and policy this network has
    /// ([`pacozero_engine::Encode::policy_planes`]), which a `"conv"` policy
    /// head writes; the error says why there are none.
    pub fn policy_planes(&self) -> NnResult<pacozero_engine::PolicyPlanes> {
        fn planes<G: Game>(cfg: &NetConfig) -> Option<Option<pacozero_engine::PolicyPlanes>> {
            let e = encoding_index::<G>(&cfg.encoding).ok()?;
            let spec = pacozero_data::game_spec_as::<G>(e);
            let fits = (cfg.input_channels(), cfg.height, cfg.width, cfg.policy_size as usize)
                == (spec.input_channels(), spec.board_height, spec.board_width, G::NUM_ACTIONS);
            fits.then(G::policy_planes)
        }
        match GameKind::ALL.into_iter().find_map(|k| pacozero_engine::with_game!(k, G => planes::<G>(self))) {
            Some(Some(pp)) => Ok(pp),
            Some(None) => Err(NnError::Config("net.policy_head = \"conv\": the game of this network has no policy planes".into())),
            None => Err(NnError::Config(format!(
                "net.policy_head = \"conv\" reads the policy planes of the network's game, but no game has its inputs ({} channels, {}x{}, encoding {}) and {} policy slots",
                self.input_channels(),
                self.height,
                self.width,
                self.encoding,
                self.policy_size
            ))),
        }
    }

    /// The kernel of the policy head's first convolution: 1 (`"fc"`) or 3 (`"conv"`).
    pub fn policy_kernel(&self) -> usize {
        match self.policy_head {
            PolicyHead::Fc => 1,
            PolicyHead::Conv => 3,
        }
    }

    /// Check this architecture reads data of `spec`.
    pub fn check_spec(&self, spec: &pacozero_data::GameSpec) -> NnResult<()> {
        if self.encoding != spec.encoding {
            return Err(NnError::Config(format!("net.encoding = {:?} but the data has encoding {:?} ({spec})", self.encoding, spec.encoding)));
        }
        let pairs = [
            ("bit_planes", self.bit_planes, spec.bit_planes),
            ("scalars", self.scalars, spec.scalars),
            ("height", self.height, spec.board_height),
            ("width", self.width, spec.board_width),
            ("policy_size", self.policy_size, spec.policy_size),
            ("aux_targets", self.aux_targets, spec.num_aux_targets() as u32),
        ];
        for (name, net, data) in pairs {
            if net != data {
                return Err(NnError::Config(format!("net.{name} = {net} but the data has {name} = {data} ({spec})")));
            }
        }
        Ok(())
    }

    /// Input channels `bit_planes + scalars`.
    pub fn input_channels(&self) -> usize {
        (self.bit_planes + self.scalars) as usize
    }

    /// Squares `height * width`.
    pub fn squares(&self) -> usize {
        (self.height * self.width) as usize
    }

    /// Multiply-adds x2 of one forward pass of one position (convolutions and linear layers).
    pub fn flops_per_position(&self) -> f64 {
        let hw = self.squares() as f64;
        let c = self.channels as f64;
        let ci = self.input_channels() as f64;
        let conv3 = |cin: f64, cout: f64| 2.0 * cin * cout * 9.0 * hw;
        let mut f = conv3(ci, c);
        let se_hidden = if self.se_ratio == 0 { 0.0 } else { (c / self.se_ratio as f64).max(1.0) };
        f += self.blocks as f64 * (2.0 * conv3(c, c) + 2.0 * (c * se_hidden + se_hidden * c));
        let pc = self.policy_channels as f64;
        let vc = self.value_channels as f64;
        let vh = self.value_hidden as f64;
        let policy_heads = if self.reply_policy { 2.0 } else { 1.0 };
        f += match self.policy_head {
            PolicyHead::Fc => 2.0 * c * pc * hw + policy_heads * 2.0 * pc * hw * self.policy_size as f64,
            PolicyHead::Conv => {
                let planes = self.policy_planes().map_or(0, |pp| pp.planes) as f64;
                2.0 * c * pc * 9.0 * hw + policy_heads * 2.0 * pc * planes * hw
            }
        };
        f += 2.0 * c * vc * hw + 2.0 * self.value_features() as f64 * vh + 2.0 * vh * 6.0;
        f
    }

    /// Inputs of the value head's hidden layer: every square's value
    /// channels, or with [`NetConfig::value_pool`] their mean and maximum.
    pub fn value_features(&self) -> usize {
        let vc = self.value_channels as usize;
        if self.value_pool {
            2 * vc
        } else {
            vc * self.squares()
        }
    }

    /// Number of 3x3 tower convolutions.
    pub fn tower_convs(&self) -> usize {
        1 + 2 * self.blocks as usize
    }

    /// Build a randomly initialised network on `device` (weights from the
    /// backend's current random state).
    pub fn init(&self, device: &Device) -> NnResult<PacoNet> {
        self.validate()?;
        let _guard = WEIGHT_INIT.lock().unwrap_or_else(|e| e.into_inner());
        Ok(materialized(PacoNet::new(self, device)))
    }

    /// A network of this architecture whose parameters are not drawn yet
    /// (burn draws a parameter on its first use): what a record is loaded
    /// into, so that loading allocates only what the record holds, and
    /// whose declared shapes can be read without allocating them.
    pub(crate) fn undrawn(&self, device: &Device) -> NnResult<PacoNet> {
        self.validate()?;
        Ok(PacoNet::new(self, device))
    }

    /// Build a network whose initial weights depend only on `seed`.
    pub fn init_seeded(&self, device: &Device, seed: u64) -> NnResult<PacoNet> {
        self.validate()?;
        let _guard = WEIGHT_INIT.lock().unwrap_or_else(|e| e.into_inner());
        device.seed(seed);
        Ok(materialized(PacoNet::new(self, device)))
    }
}

/// `net` with every parameter drawn now. burn initialises a parameter lazily,
/// on its first use; left so, the draw would happen outside [`WEIGHT_INIT`]
/// (in the first forward pass) and interleave with other initialisations.
fn materialized(net: PacoNet) -> PacoNet {
    struct Draw;
    impl burn::module::ModuleVisitor for Draw {
        fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
            let _ = param.val();
        }
    }
    net.visit(&mut Draw);
    net
}

/// burn's random state is one per backend and process: seeding and drawing
/// initial weights must not interleave with another initialisation (e.g. of
/// tests running in parallel), or the same seed would give other weights.
static WEIGHT_INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// 3x3 convolution (no bias) + batch norm.
#[derive(Module, Debug)]
pub struct ConvBn {
    conv: Conv2d,
    bn: BatchNorm,
}

impl ConvBn {
    fn new(cin: usize, cout: usize, kernel: usize, device: &Device) -> Self {
        let padding = if kernel == 1 { PaddingConfig2d::Valid } else { PaddingConfig2d::Same };
        ConvBn {
            conv: Conv2dConfig::new([cin, cout], [kernel, kernel]).with_padding(padding).with_bias(false).init(device),
            bn: BatchNormConfig::new(cout).init(device),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let x = self.conv.forward(x); // [B, Cout, H, W]
        self.bn.forward(x) // [B, Cout, H, W]
    }
}

/// Squeeze-excitation: global average pool, bottleneck, per-channel scale and bias.
#[derive(Module, Debug)]
pub struct SqueezeExcite {
    fc1: Linear,
    fc2: Linear,
    channels: usize,
}

impl SqueezeExcite {
    fn new(channels: usize, ratio: usize, device: &Device) -> Self {
        let hidden = (channels / ratio).max(1);
        SqueezeExcite { fc1: LinearConfig::new(channels, hidden).init(device), fc2: LinearConfig::new(hidden, 2 * channels).init(device), channels }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let [b, c, h, w] = x.dims();
        let pooled = x.clone().reshape([b, c, h * w]).mean_dim(2); // [B, C, 1]
        let pooled = pooled.reshape([b, c]); // [B, C]
        let hidden = relu(self.fc1.forward(pooled)); // [B, C/r]
        let gate = self.fc2.forward(hidden); // [B, 2C]
        let scale = sigmoid(gate.clone().narrow(1, 0, self.channels)); // [B, C]
        let bias = gate.narrow(1, self.channels, self.channels); // [B, C]
        let scale = scale.reshape([b, c, 1, 1]); // [B, C, 1, 1]
        let bias = bias.reshape([b, c, 1, 1]); // [B, C, 1, 1]
        x * scale + bias // [B, C, H, W]
    }
}

/// Residual block: conv-bn-relu-conv-bn-(SE) + skip, relu.
#[derive(Module, Debug)]
pub struct ResBlock {
    a: ConvBn,
    b: ConvBn,
    se: Option<SqueezeExcite>,
}

impl ResBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let y = relu(self.a.forward(x.clone())); // [B, C, H, W]
        let y = self.b.forward(y); // [B, C, H, W]
        let y = match &self.se {
            Some(se) => se.forward(y), // [B, C, H, W]
            None => y,
        };
        relu(y + x) // [B, C, H, W]
    }
}

/// Raw outputs of [`PacoNet::forward`].
#[derive(Debug, Clone)]
pub struct NetOutput {
    /// Policy logits over all slots, `[B, P]` (not masked).
    pub policy: Tensor<2>,
    /// Win/draw/loss logits from the mover's perspective, `[B, 3]`.
    pub wdl: Tensor<2>,
    /// Predicted `ln(1 + moves_left)`, `[B, 1]`.
    pub moves_left: Tensor<2>,
    /// Logits of the game's auxiliary targets (`Encode::AUX_TARGETS`, in
    /// order), `[B, A]` with `A` = [`NetConfig::aux_targets`].
    pub aux: Tensor<2>,
    /// Logits of the opponent's reply, `[B, P]` (not masked), with
    /// [`NetConfig::reply_policy`].
    pub reply: Option<Tensor<2>>,
}

/// The PacoZero network.
#[derive(Module, Debug)]
pub struct PacoNet {
    stem: ConvBn,
    blocks: Vec<ResBlock>,
    /// 1x1 (`"fc"` head) or 3x3 (`"conv"` head) convolution.
    policy_conv: ConvBn,
    /// The `"fc"` head's layer (`None` for `"conv"`).
    policy_fc: Option<Linear>,
    value_conv: ConvBn,
    value_fc: Linear,
    wdl_fc: Linear,
    moves_left_fc: Linear,
    /// The auxiliary targets' head (named for Paco Ŝako's first targets:
    /// the records of earlier builds hold it under this name).
    sako_fc: Linear,
    /// [`NetConfig::reply_policy`]'s head (last, so the records of networks
    /// without it are unchanged).
    reply_fc: Option<Linear>,
    /// The `"conv"` head's 1x1 convolution (with bias) to the policy planes.
    policy_planes: Option<Conv2d>,
    /// The same for the reply head of a `"conv"` network.
    reply_planes: Option<Conv2d>,
    /// The `"conv"` head's map from its output to the policy slots: slot
    /// `a` reads entry `gather[a]` of `[planes * H*W (plane-major), then
    /// each plane's mean]` (from [`NetConfig::policy_planes`]; a constant,
    /// not in the record).
    policy_gather: Option<Tensor<1, Int>>,
}

/// The `"conv"` head's gather indices ([`PacoNet`]'s `policy_gather`): slot
/// `a` on plane `k`, square `s` reads `k * hw + s`; a plane read whole,
/// its mean, `planes * hw + k`.
pub(crate) fn conv_gather(pp: &pacozero_engine::PolicyPlanes, hw: usize) -> Vec<usize> {
    pp.slots.iter().map(|&(k, s)| s.map_or(pp.planes * hw + k as usize, |s| k as usize * hw + s as usize)).collect()
}

impl PacoNet {
    fn new(cfg: &NetConfig, device: &Device) -> Self {
        let c = cfg.channels as usize;
        let hw = cfg.squares();
        let blocks = (0..cfg.blocks)
            .map(|_| ResBlock {
                a: ConvBn::new(c, c, 3, device),
                b: ConvBn::new(c, c, 3, device),
                se: (cfg.se_ratio > 0).then(|| SqueezeExcite::new(c, cfg.se_ratio as usize, device)),
            })
            .collect();
        let pc = cfg.policy_channels as usize;
        let vc = cfg.value_channels as usize;
        let vh = cfg.value_hidden as usize;
        let conv = cfg.policy_head == PolicyHead::Conv;
        // Validated by every caller: a conv network's game has policy planes.
        let planes = conv.then(|| cfg.policy_planes().expect("net.policy_head = \"conv\" has the game's policy planes"));
        let fc = || (!conv).then(|| LinearConfig::new(pc * hw, cfg.policy_size as usize).init(device));
        let to_planes = || planes.as_ref().map(|pp| Conv2dConfig::new([pc, pp.planes], [1, 1]).init(device));
        PacoNet {
            stem: ConvBn::new(cfg.input_channels(), c, 3, device),
            blocks,
            policy_conv: ConvBn::new(c, pc, cfg.policy_kernel(), device),
            policy_fc: fc(),
            value_conv: ConvBn::new(c, vc, 1, device),
            value_fc: LinearConfig::new(cfg.value_features(), vh).init(device),
            wdl_fc: LinearConfig::new(vh, 3).init(device),
            moves_left_fc: LinearConfig::new(vh, 1).init(device),
            sako_fc: LinearConfig::new(vh, cfg.aux_targets as usize).init(device),
            reply_fc: if cfg.reply_policy { fc() } else { None },
            policy_planes: to_planes(),
            reply_planes: if cfg.reply_policy { to_planes() } else { None },
            policy_gather: planes.as_ref().map(|pp| {
                let idx: Vec<i64> = conv_gather(pp, hw).into_iter().map(|i| i as i64).collect();
                Tensor::<1, Int>::from_data(TensorData::new(idx, [pp.slots.len()]), device)
            }),
        }
    }

    /// The `"conv"` head's logits from the policy convolution's features
    /// `p` (`[B, Pc, H, W]`) through the 1x1 convolution `to_planes`.
    fn read_planes(&self, to_planes: &Conv2d, p: Tensor<4>) -> Tensor<2> {
        let gather = self.policy_gather.clone().expect("a conv head has its gather");
        let o = to_planes.forward(p); // [B, K, H, W]
        let [b, k, h, w] = o.dims();
        let flat = o.clone().reshape([b, k * h * w]); // [B, K*H*W], plane-major
        let mean = o.reshape([b, k, h * w]).mean_dim(2).reshape([b, k]); // [B, K]
        Tensor::cat(vec![flat, mean], 1).select(1, gather) // [B, P]
    }

    /// Forward pass. `x`: `[B, Ci, H, W]` decoded inputs.
    pub fn forward(&self, x: Tensor<4>) -> NetOutput {
        let [b, _, h, w] = x.dims();
        let mut t = relu(self.stem.forward(x)); // [B, C, H, W]
        for block in &self.blocks {
            t = block.forward(t); // [B, C, H, W]
        }
        let p = relu(self.policy_conv.forward(t.clone())); // [B, Pc, H, W]
        let (policy, reply) = match (&self.policy_fc, &self.policy_planes) {
            (Some(fc), _) => {
                let p = p.reshape([b as i32, -1]); // [B, Pc*H*W]
                let reply = self.reply_fc.as_ref().map(|fc| fc.forward(p.clone())); // [B, P]
                (fc.forward(p), reply) // [B, P]
            }
            (None, Some(planes)) => {
                let reply = self.reply_planes.as_ref().map(|r| self.read_planes(r, p.clone())); // [B, P]
                (self.read_planes(planes, p), reply) // [B, P]
            }
            (None, None) => unreachable!("a network has a policy head"),
        };
        let v = relu(self.value_conv.forward(t)); // [B, Vc, H, W]
                                                  // Pooled ([`NetConfig::value_pool`]) when the hidden layer reads
                                                  // 2*Vc features rather than Vc*H*W (the two differ on any board of
                                                  // more than 2 squares). Read from the weights, so the records of
                                                  // earlier builds load unchanged.
        let [_, vc, _, _] = v.dims();
        let pooled = self.value_fc.weight.dims()[0] == 2 * vc && h * w != 2;
        let v = if pooled {
            let v = v.reshape([b, vc, h * w]); // [B, Vc, H*W]
            let mean = v.clone().mean_dim(2).reshape([b, vc]); // [B, Vc]
            let max = v.max_dim(2).reshape([b, vc]); // [B, Vc]
            Tensor::cat(vec![mean, max], 1) // [B, 2*Vc]: means, then maxima
        } else {
            v.reshape([b as i32, -1]) // [B, Vc*H*W]
        };
        let v = relu(self.value_fc.forward(v)); // [B, Vh]
        let wdl = self.wdl_fc.forward(v.clone()); // [B, 3]
        let moves_left = self.moves_left_fc.forward(v.clone()); // [B, 1]
        let aux = self.sako_fc.forward(v); // [B, A]
        NetOutput { policy, wdl, moves_left, aux, reply }
    }
}

#[cfg(test)]
mod tests;
