//! Network architecture: a residual tower with squeeze-excitation and four heads.
//!
//! Shapes use `B` = batch, `C` = tower channels, `Ci` = input channels
//! (`bit_planes + scalars`), `H`x`W` = board, `P` = policy size.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::{relu, sigmoid};
use serde::{Deserialize, Serialize};

use pacozero_engine::{encoding_index, Game, GameKind, GameVisitor};

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
    /// game's policy planes ([`pacozero_engine::Game::policy_planes`]); each
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
    /// data spec, `Game::AUX_TARGETS`; 0..=64). Default 2 (both games have
    /// two, and the files of earlier builds have no such key); written only
    /// when it differs, so their headers stay as they were.
    #[serde(default = "d_aux_targets", skip_serializing_if = "is_d_aux_targets")]
    pub aux_targets: u32,
    /// The input encoding the network reads (one of the game's
    /// `Game::ENCODINGS`, from the data spec): `"pacozero"`, each game's
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
    /// ([`pacozero_engine::Game::policy_planes`]), which a `"conv"` policy
    /// head writes; the error says why there are none.
    pub fn policy_planes(&self) -> NnResult<pacozero_engine::PolicyPlanes> {
        struct Planes<'a>(&'a NetConfig);
        impl GameVisitor for Planes<'_> {
            type Output = Option<Option<pacozero_engine::PolicyPlanes>>;
            fn visit<G: Game>(self) -> Self::Output {
                let e = encoding_index::<G>(&self.0.encoding).ok()?;
                let spec = pacozero_data::game_spec_as::<G>(e);
                let fits = (self.0.input_channels(), self.0.height, self.0.width, self.0.policy_size as usize)
                    == (spec.input_channels(), spec.board_height, spec.board_width, G::NUM_ACTIONS);
                fits.then(G::policy_planes)
            }
        }
        match GameKind::ALL.into_iter().find_map(|k| k.visit(Planes(self))) {
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
    /// Logits of the game's auxiliary targets (`Game::AUX_TARGETS`, in
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
mod tests {
    use super::*;
    use pacozero_data::GameSpec;

    fn spec() -> GameSpec {
        GameSpec::new("test", 8, 8, 4, 1, 50, &["first", "second"]).unwrap()
    }

    /// A valid architecture with every field away from its bounds.
    fn base() -> NetConfig {
        NetConfig { blocks: 2, channels: 16, se_ratio: 4, ..NetConfig::tiny_for(&spec()) }
    }

    /// The message of `net.validate()`'s error, or `None` when it passes.
    fn refusal(net: &NetConfig) -> Option<String> {
        net.validate().err().map(|e| e.to_string())
    }

    #[test]
    fn validate_accepts_each_bound_and_refuses_one_past_it_naming_the_field() {
        type Set = fn(&mut NetConfig, u32);
        let fields: [(&str, Set, u32, u32); 11] = [
            ("blocks", |n, v| n.blocks = v, 1, 64),
            ("channels", |n, v| n.channels = v, 4, 1024),
            ("policy_channels", |n, v| n.policy_channels = v, 1, 1024),
            ("value_channels", |n, v| n.value_channels = v, 1, 1024),
            ("value_hidden", |n, v| n.value_hidden = v, 1, 4096),
            ("bit_planes", |n, v| n.bit_planes = v, 1, 4096),
            ("scalars", |n, v| n.scalars = v, 0, 4096),
            ("height", |n, v| n.height = v, 1, 64),
            ("width", |n, v| n.width = v, 1, 64),
            ("policy_size", |n, v| n.policy_size = v, 1, 65536),
            ("aux_targets", |n, v| n.aux_targets = v, 0, 64),
        ];
        assert_eq!(pacozero_data::MAX_AUX_TARGETS, 64);
        assert_eq!(refusal(&base()), None);
        for (name, set, lo, hi) in fields {
            let with = |v: u32| {
                let mut n = base();
                set(&mut n, v);
                n
            };
            assert_eq!(refusal(&with(lo)), None, "{name} = {lo}");
            assert_eq!(refusal(&with(hi)), None, "{name} = {hi}");
            let over = hi + 1;
            assert_eq!(refusal(&with(over)), Some(format!("invalid configuration: net.{name} = {over} is out of range {lo}..={hi}")));
            if lo > 0 {
                let under = lo - 1;
                assert_eq!(refusal(&with(under)), Some(format!("invalid configuration: net.{name} = {under} is out of range {lo}..={hi}")));
            }
        }
    }

    #[test]
    fn the_se_ratio_is_zero_or_at_most_the_channels() {
        let with = |se_ratio| NetConfig { se_ratio, ..base() };
        // 0 turns SE off; otherwise 1..=channels (16 here).
        for ok in [0, 1, 16] {
            assert_eq!(refusal(&with(ok)), None, "se_ratio = {ok}");
        }
        assert_eq!(refusal(&with(17)), Some("invalid configuration: net.se_ratio = 17 is out of range 1..=16".to_string()));
        // The bound follows the channels.
        assert_eq!(refusal(&NetConfig { channels: 32, ..with(17) }), None);
    }

    #[test]
    fn an_empty_encoding_is_refused() {
        let net = NetConfig { encoding: String::new(), ..base() };
        assert_eq!(refusal(&net), Some("invalid configuration: net.encoding is empty".to_string()));
    }

    #[test]
    fn check_spec_names_the_first_field_that_differs_from_the_data() {
        let spec = spec();
        let net = NetConfig::tiny_for(&spec);
        net.check_spec(&spec).unwrap();
        let differ = |net: NetConfig| net.check_spec(&spec).unwrap_err().to_string();
        let cases = [
            ("bit_planes", 5, NetConfig { bit_planes: 5, ..net.clone() }, 4),
            ("scalars", 2, NetConfig { scalars: 2, ..net.clone() }, 1),
            ("height", 7, NetConfig { height: 7, ..net.clone() }, 8),
            ("width", 9, NetConfig { width: 9, ..net.clone() }, 8),
            ("policy_size", 51, NetConfig { policy_size: 51, ..net.clone() }, 50),
            ("aux_targets", 3, NetConfig { aux_targets: 3, ..net.clone() }, 2),
        ];
        for (name, value, net, data) in cases {
            assert_eq!(differ(net), format!("invalid configuration: net.{name} = {value} but the data has {name} = {data} ({spec})"));
        }
        assert_eq!(
            differ(NetConfig { encoding: "platform".into(), ..net }),
            format!("invalid configuration: net.encoding = \"platform\" but the data has encoding \"pacozero\" ({spec})")
        );
    }

    #[test]
    fn the_shape_helpers_count_channels_squares_features_and_convolutions() {
        // 4 bit planes + 2 scalars; a 3x4 board; 5 value channels.
        let net = NetConfig { bit_planes: 4, scalars: 2, height: 3, width: 4, value_channels: 5, ..base() };
        assert_eq!(net.input_channels(), 6);
        assert_eq!(net.squares(), 12);
        assert_eq!(net.value_features(), 5 * 12);
        assert_eq!(NetConfig { value_pool: true, ..net.clone() }.value_features(), 2 * 5);
        // The stem and two convolutions a block.
        assert_eq!(NetConfig { blocks: 1, ..net.clone() }.tower_convs(), 3);
        assert_eq!(NetConfig { blocks: 3, ..net }.tower_convs(), 7);
    }

    #[test]
    fn flops_per_position_adds_every_layer_by_hand() {
        let net = NetConfig {
            blocks: 2,
            channels: 8,
            se_ratio: 2,
            policy_channels: 3,
            value_channels: 5,
            value_hidden: 7,
            value_pool: false,
            reply_policy: false,
            policy_head: PolicyHead::Fc,
            bit_planes: 4,
            scalars: 2,
            height: 3,
            width: 4,
            policy_size: 11,
            aux_targets: 2,
            encoding: "pacozero".into(),
        };
        // hw = 12, Ci = 6, C = 8, SE hidden = 8 / 2 = 4.
        // stem: 2 * 6 * 8 * 9 * 12 = 10,368
        // a block: 2 convolutions 2 * (2 * 8 * 8 * 9 * 12) = 27,648, SE 2 * (8 * 4 + 4 * 8) = 128: 27,776; two: 55,552
        // policy: conv 2 * 8 * 3 * 12 = 576, linear 2 * 3 * 12 * 11 = 792: 1,368
        // value: conv 2 * 8 * 5 * 12 = 960, hidden 2 * (5 * 12) * 7 = 840, outputs 2 * 7 * 6 = 84: 1,884
        // total 10,368 + 55,552 + 1,368 + 1,884 = 69,172
        assert_eq!(net.flops_per_position(), 69_172.0);
        // A reply head adds a second policy linear layer: + 792.
        assert_eq!(NetConfig { reply_policy: true, ..net.clone() }.flops_per_position(), 69_964.0);
        // Pooling: the hidden layer reads 2 * 5 features: 2 * 10 * 7 = 140 instead of 840.
        assert_eq!(NetConfig { value_pool: true, ..net.clone() }.flops_per_position(), 68_472.0);
        // No SE: two blocks of 27,648.
        assert_eq!(NetConfig { se_ratio: 0, ..net.clone() }.flops_per_position(), 68_916.0);
        // SE ratio 8: a bottleneck of 1, 2 * (8 + 8) = 32 a block instead of 128.
        assert_eq!(NetConfig { se_ratio: 8, ..net }.flops_per_position(), 68_980.0);
    }

    #[test]
    fn default_and_tiny_networks_take_the_shape_of_the_data() {
        let spec = GameSpec::new("test", 9, 7, 11, 3, 77, &["a", "b", "c"]).unwrap();
        let d = NetConfig::default_for(&spec);
        let shape = |n: &NetConfig| (n.bit_planes, n.scalars, n.height, n.width, n.policy_size, n.aux_targets, n.encoding.clone());
        assert_eq!(shape(&d), (11, 3, 9, 7, 77, 3, "pacozero".to_string()));
        assert_eq!(
            (d.blocks, d.channels, d.se_ratio, d.policy_channels, d.value_channels, d.value_hidden, d.value_pool, d.reply_policy),
            (6, 64, 4, 32, 8, 128, false, false)
        );
        let t = NetConfig::tiny_for(&spec);
        assert_eq!(shape(&t), shape(&d));
        assert_eq!(
            (t.blocks, t.channels, t.se_ratio, t.policy_channels, t.value_channels, t.value_hidden, t.value_pool, t.reply_policy),
            (1, 16, 4, 8, 4, 32, false, false)
        );
    }

    #[test]
    fn a_net_table_with_only_the_datas_keys_takes_the_defaults() {
        let net: NetConfig = serde_json::from_str(r#"{"bit_planes": 4, "scalars": 1, "height": 8, "width": 8, "policy_size": 50}"#).unwrap();
        assert_eq!(net, NetConfig { aux_targets: 2, encoding: "pacozero".into(), ..NetConfig::default_for(&spec()) });
        assert_eq!((net.blocks, net.channels, net.se_ratio, net.policy_channels, net.value_channels, net.value_hidden), (6, 64, 4, 32, 8, 128));
        assert_eq!((net.aux_targets, net.encoding.as_str(), net.value_pool, net.reply_policy), (2, "pacozero", false, false));
    }

    #[test]
    fn the_aux_targets_and_encoding_are_written_only_when_not_the_defaults() {
        let net = NetConfig::tiny_for(&spec());
        let json = serde_json::to_string(&net).unwrap();
        assert!(!json.contains("aux_targets") && !json.contains("encoding"), "{json}");
        assert_eq!(serde_json::from_str::<NetConfig>(&json).unwrap(), net);
        let other = NetConfig { aux_targets: 3, encoding: "platform".into(), ..net };
        let json = serde_json::to_string(&other).unwrap();
        assert!(json.contains(r#""aux_targets":3"#) && json.contains(r#""encoding":"platform""#), "{json}");
        assert_eq!(serde_json::from_str::<NetConfig>(&json).unwrap(), other);
    }

    #[test]
    fn the_forward_pass_has_every_heads_shape() {
        let device = Device::flex();
        let spec = GameSpec::new("test", 3, 5, 2, 1, 13, &["a", "b", "c"]).unwrap();
        for reply_policy in [false, true] {
            let net = NetConfig { reply_policy, ..NetConfig::tiny_for(&spec) };
            let model = net.init_seeded(&device, 1).unwrap();
            let x = Tensor::<4>::zeros([2, 3, 3, 5], &device); // [B, Ci, H, W]
            let out = model.forward(x);
            assert_eq!(out.policy.dims(), [2, 13]);
            assert_eq!(out.wdl.dims(), [2, 3]);
            assert_eq!(out.moves_left.dims(), [2, 1]);
            assert_eq!(out.aux.dims(), [2, 3]);
            assert_eq!(out.reply.map(|r| r.dims()), reply_policy.then_some([2, 13]));
        }
    }

    #[test]
    fn a_seed_gives_the_same_weights_and_another_seed_others() {
        let device = Device::flex();
        let net = NetConfig::tiny_for(&spec());
        let x = || Tensor::<4>::ones([1, 5, 8, 8], &device);
        let policy = |seed| net.init_seeded(&device, seed).unwrap().forward(x()).policy.into_data().try_to_vec::<f32>().unwrap();
        assert_eq!(policy(5), policy(5));
        assert_ne!(policy(5), policy(6));
    }

    fn shako_spec(encoding: &str) -> GameSpec {
        pacozero_data::spec_of_encoding(GameKind::Shako, encoding).unwrap()
    }

    #[test]
    fn a_conv_policy_head_is_written_only_when_chosen_and_reads_back() {
        let net = NetConfig::tiny_for(&shako_spec("threats"));
        let json = serde_json::to_string(&net).unwrap();
        assert!(!json.contains("policy_head"), "{json}");
        let conv = NetConfig { policy_head: PolicyHead::Conv, ..net };
        let json = serde_json::to_string(&conv).unwrap();
        assert!(json.contains(r#""policy_head":"conv""#), "{json}");
        assert_eq!(serde_json::from_str::<NetConfig>(&json).unwrap(), conv);
        // A [net] table names it in words; anything else is refused.
        let table = |head: &str| serde_json::from_str::<NetConfig>(&json.replace(r#""conv""#, head));
        assert_eq!(table(r#""fc""#).unwrap().policy_head, PolicyHead::Fc);
        let e = table(r#""linear""#).unwrap_err().to_string();
        assert!(e.contains("unknown variant `linear`, expected `fc` or `conv`"), "{e}");
        assert_eq!((PolicyHead::Fc.name(), PolicyHead::Conv.name(), PolicyHead::default()), ("fc", "conv", PolicyHead::Fc));
    }

    #[test]
    fn a_conv_head_reads_the_policy_planes_of_the_networks_game() {
        for (spec, planes) in [(shako_spec("pacozero"), 95), (shako_spec("threats"), 95), (pacozero_data::spec_of(GameKind::Paco), 6)] {
            let net = NetConfig { policy_head: PolicyHead::Conv, ..NetConfig::tiny_for(&spec) };
            assert_eq!(refusal(&net), None);
            let pp = net.policy_planes().unwrap();
            assert_eq!((pp.planes, pp.slots.len()), (planes, spec.policy_size as usize));
            assert_eq!(net.policy_kernel(), 3);
        }
        // A shape no game has: refused, naming the shape.
        let net = NetConfig { policy_head: PolicyHead::Conv, ..base() };
        assert_eq!(
            refusal(&net),
            Some(
                "invalid configuration: net.policy_head = \"conv\" reads the policy planes of the network's game, but no game has its inputs \
                 (5 channels, 8x8, encoding pacozero) and 50 policy slots"
                    .to_string()
            )
        );
        // A fully connected head needs no game.
        assert_eq!(refusal(&base()), None);
        assert_eq!(base().policy_kernel(), 1);
    }

    #[test]
    fn conv_gather_points_at_each_slots_square_or_its_planes_mean() {
        let pp = pacozero_engine::PolicyPlanes { planes: 3, slots: vec![(0, Some(4)), (2, Some(0)), (1, None), (2, None)] };
        // 5 squares: plane k square s is k * 5 + s; the means follow the 15 plane entries.
        assert_eq!(conv_gather(&pp, 5), [4, 10, 15 + 1, 15 + 2]);
    }

    /// The conv head's logits are its planes' values at each slot's square
    /// (or a plane's mean), read from burn's own convolution output.
    #[test]
    fn the_conv_head_reads_each_slot_from_its_plane_and_square() {
        let device = Device::flex();
        for spec in [shako_spec("threats"), pacozero_data::spec_of(GameKind::Paco)] {
            let net = NetConfig { policy_head: PolicyHead::Conv, ..NetConfig::tiny_for(&spec) };
            let model = net.init_seeded(&device, 3).unwrap();
            let (h, w, pc) = (net.height as usize, net.width as usize, net.policy_channels as usize);
            let p = Tensor::<4>::random([2, pc, h, w], burn::tensor::Distribution::Uniform(-1.0, 1.0), &device); // [B, Pc, H, W]
            let conv = model.policy_planes.as_ref().unwrap();
            let logits = model.read_planes(conv, p.clone()).into_data().try_into_vec_as::<f32>().unwrap(); // [B, P]
            let planes = conv.forward(p).into_data().try_into_vec_as::<f32>().unwrap(); // [B, K, H, W]
            let pp = net.policy_planes().unwrap();
            let (k, hw, n) = (pp.planes, h * w, pp.slots.len());
            assert_eq!((logits.len(), planes.len()), (2 * n, 2 * k * hw));
            for b in 0..2 {
                for (a, &(plane, sq)) in pp.slots.iter().enumerate() {
                    let at = |s: usize| planes[(b * k + plane as usize) * hw + s];
                    let want = sq.map_or_else(|| (0..hw).map(at).sum::<f32>() / hw as f32, |s| at(s as usize));
                    assert!((logits[b * n + a] - want).abs() < 1e-5, "{} slot {a}: {} vs {want}", spec.game, logits[b * n + a]);
                }
            }
        }
    }

    /// The conv head's weights: a 3x3 convolution and a 1x1 convolution to
    /// the planes, no fully connected layer; far fewer than the fc head's.
    #[test]
    fn a_conv_head_has_convolutions_in_place_of_the_linear_layer() {
        let spec = shako_spec("pacozero");
        let count = |net: &NetConfig| {
            struct Count(usize);
            impl burn::module::ModuleVisitor for Count {
                fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
                    self.0 += param.lazy_shape().num_elements();
                }
            }
            let mut c = Count(0);
            net.init_seeded(&Device::flex(), 1).unwrap().visit(&mut c);
            c.0
        };
        let fc = NetConfig { reply_policy: true, ..NetConfig::tiny_for(&spec) };
        let conv = NetConfig { policy_head: PolicyHead::Conv, ..fc.clone() };
        let (pc, c) = (fc.policy_channels as usize, fc.channels as usize);
        // fc: 1x1 conv + BN, two linear layers of 800 x 3,656 (+ biases).
        // conv: 3x3 conv + BN, two 1x1 convolutions of 8 x 95 (+ biases).
        let common = count(&fc) - (c * pc + 4 * pc) - 2 * (pc * 100 * 3656 + 3656);
        assert_eq!(count(&conv), common + (9 * c * pc + 4 * pc) + 2 * (pc * 95 + 95));
        // Multiply-adds: the 3x3 convolution (x2: 2 * 16 * 8 * 9 * 100 = 230,400)
        // and two 1x1 convolutions to 95 planes (2 * 2 * 8 * 95 * 100 = 304,000)
        // in place of a 1x1 convolution (25,600) and two linear layers (2 * 2 * 800 * 3,656 = 11,699,200).
        assert_eq!(fc.flops_per_position() - conv.flops_per_position(), 25_600.0 + 11_699_200.0 - 230_400.0 - 304_000.0);
        let model = conv.init_seeded(&Device::flex(), 1).unwrap();
        assert!(model.policy_fc.is_none() && model.reply_fc.is_none() && model.policy_planes.is_some() && model.reply_planes.is_some());
    }
}
