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
