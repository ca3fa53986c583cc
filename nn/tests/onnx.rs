//! The ONNX export's structure for every game and head configuration: the
//! file parses back as ONNX protobuf with the declared input and outputs,
//! the weights as initializers of the right shapes, folded batch norms and
//! the metadata. (That ONNX Runtime computes the network's outputs from it is
//! python/tests/test_onnx.py's check.)

use std::collections::HashMap;

use onnx_protobuf::{Message, ModelProto, ValueInfoProto};
use pacozero_data::spec_of;
use pacozero_engine::prelude::*;
use pacozero_engine::GameKind;
use pacozero_nn::{default_device, ModelInfo, NetConfig, PolicyHead};

fn dims(v: &ValueInfoProto) -> Vec<String> {
    use onnx_protobuf::tensor_shape_proto::dimension::Value;
    use onnx_protobuf::type_proto::Value as Type;
    let Some(Type::TensorType(t)) = &v.type_.value else { panic!("{} is not a tensor", v.name) };
    t.shape
        .dim
        .iter()
        .map(|d| match &d.value {
            Some(Value::DimValue(n)) => n.to_string(),
            Some(Value::DimParam(p)) => p.clone(),
            _ => "?".into(),
        })
        .collect()
}

fn export(net: &NetConfig) -> ModelProto {
    let model = net.init_seeded(&default_device(), 7).unwrap();
    let info = ModelInfo { name: "t".into(), step: 3, samples_seen: 0, provenance: None };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.onnx");
    pacozero_nn::onnx::export_network(&model, net, &info, &path).unwrap();
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["t.onnx"], "only the file is left, no temporary");
    ModelProto::parse_from_bytes(&std::fs::read(&path).unwrap()).unwrap()
}

#[test]
fn every_game_and_head_configuration_exports() {
    for kind in GameKind::ALL {
        let spec = spec_of(kind);
        for (se_ratio, value_pool, reply_policy) in [(4, false, false), (0, true, true), (2, true, false)] {
            let net = NetConfig { blocks: 2, se_ratio, value_pool, reply_policy, ..NetConfig::tiny_for(&spec) };
            let m = export(&net);
            let what = format!("{kind} se_ratio={se_ratio} value_pool={value_pool} reply_policy={reply_policy}");
            assert_eq!(m.opset_import[0].version, 17, "{what}");
            let g = m.graph.as_ref().unwrap();
            let [input] = &g.input[..] else { panic!("{what}: one input") };
            assert_eq!(input.name, "planes");
            let (c, h, w) = (spec.input_channels(), spec.board_height, spec.board_width);
            assert_eq!(dims(input), ["batch".to_string(), c.to_string(), h.to_string(), w.to_string()], "{what}");
            let outputs: Vec<(String, Vec<String>)> = g.output.iter().map(|o| (o.name.clone(), dims(o))).collect();
            let p = spec.policy_size.to_string();
            let mut want = vec![
                ("policy".to_string(), vec!["batch".to_string(), p.clone()]),
                ("wdl".into(), vec!["batch".into(), "3".into()]),
                ("moves_left".into(), vec!["batch".into(), "1".into()]),
                ("aux".into(), vec!["batch".into(), spec.num_aux_targets().to_string()]),
            ];
            if reply_policy {
                want.push(("reply".into(), vec!["batch".into(), p.clone()]));
            }
            assert_eq!(outputs, want, "{what}");
            let ops: Vec<&str> = g.node.iter().map(|n| n.op_type.as_str()).collect();
            assert!(!ops.contains(&"BatchNormalization"), "{what}: batch norms are folded");
            assert_eq!(ops.iter().filter(|&&o| o == "Conv").count(), 1 + 2 * net.blocks as usize + 2, "{what}");
            assert_eq!(ops.iter().filter(|&&o| o == "Split").count(), if se_ratio > 0 { 2 } else { 0 }, "{what}");
            assert_eq!(ops.contains(&"GlobalMaxPool"), value_pool, "{what}");
            // Each initializer's shape holds its data; the stem reads every input channel.
            let inits: HashMap<&str, &onnx_protobuf::TensorProto> = g.initializer.iter().map(|t| (t.name.as_str(), t)).collect();
            for t in &g.initializer {
                let n: i64 = t.dims.iter().product();
                let len = if t.raw_data.is_empty() { t.int64_data.len() } else { t.raw_data.len() / 4 };
                assert_eq!(n as usize, len, "{what}: initializer {}", t.name);
            }
            assert_eq!(inits["stem.weight"].dims, [net.channels as i64, c as i64, 3, 3], "{what}");
            let meta: HashMap<&str, &str> = m.metadata_props.iter().map(|e| (e.key.as_str(), e.value.as_str())).collect();
            assert_eq!(meta["game"], kind.name(), "{what}");
            assert_eq!(meta["encoding"], "pacozero");
            assert_eq!(meta["input_planes"].split(',').count(), c, "{what}");
            assert_eq!(meta["model_step"], "3");
            let back: NetConfig = serde_json::from_str(meta["net"]).unwrap();
            assert_eq!(back, net, "{what}");
        }
    }
}

/// A conv policy head exports as convolutions and a gather: a 3x3 policy
/// convolution, a 1x1 convolution to the planes for each policy head, the
/// planes and their means concatenated and gathered by one index table.
#[test]
fn a_conv_policy_head_exports_convolutions_and_a_gather() {
    let spec = pacozero_data::spec_of_encoding(GameKind::Shako, "threats").unwrap();
    let net = NetConfig { blocks: 1, reply_policy: true, policy_head: PolicyHead::Conv, ..NetConfig::tiny_for(&spec) };
    let m = export(&net);
    let g = m.graph.as_ref().unwrap();
    let ops: Vec<&str> = g.node.iter().map(|n| n.op_type.as_str()).collect();
    // Stem, two in the block, the policy convolution, two to the planes, the value convolution.
    assert_eq!(ops.iter().filter(|&&o| o == "Conv").count(), 1 + 2 + 1 + 2 + 1);
    assert_eq!(ops.iter().filter(|&&o| o == "Gather").count(), 2);
    assert_eq!(ops.iter().filter(|&&o| o == "Gemm").count(), 4 + 2, "value, WDL, moves left, aux and the SE layers: no policy layer");
    let inits: HashMap<&str, &onnx_protobuf::TensorProto> = g.initializer.iter().map(|t| (t.name.as_str(), t)).collect();
    let (c, pc) = (net.channels as i64, net.policy_channels as i64);
    assert_eq!(inits["policy_conv.weight"].dims, [pc, c, 3, 3]);
    assert_eq!(inits["policy_planes.weight"].dims, [95, pc, 1, 1]);
    assert_eq!(inits["reply_planes.bias"].dims, [95]);
    assert!(!inits.contains_key("policy_fc.weight"));
    // The table: slot 0 (a1-b1, east one square) reads plane 18 at a1; every entry inside the 95 x 100 planes.
    let gather = &inits["policy_gather"].int64_data;
    assert_eq!((gather.len(), gather[0]), (3656, 18 * 100));
    assert!(gather.iter().all(|&i| (0..95 * 100).contains(&i)));
    let gathers: Vec<&onnx_protobuf::NodeProto> = g.node.iter().filter(|n| n.op_type == "Gather").collect();
    assert!(gathers.iter().all(|n| n.input[1] == "policy_gather" && n.attribute[0].i == 1));
    let meta: HashMap<&str, &str> = m.metadata_props.iter().map(|e| (e.key.as_str(), e.value.as_str())).collect();
    assert_eq!((meta["game"], meta["encoding"]), ("shako", "threats"));
    assert!(meta["net"].contains(r#""policy_head":"conv""#), "{}", meta["net"]);
    assert_eq!(serde_json::from_str::<NetConfig>(meta["net"]).unwrap(), net);
}

#[test]
fn a_network_of_no_game_is_refused() {
    let spec = spec_of(GameKind::default());
    let net = NetConfig { bit_planes: spec.bit_planes + 1, ..NetConfig::tiny_for(&spec) };
    let model = net.init(&default_device()).unwrap();
    let info = ModelInfo::untrained("t");
    let err = pacozero_nn::onnx::network_model(&model, &net, &info).unwrap_err().to_string();
    assert!(err.contains("fit none of the games"), "{err}");
}

#[test]
fn the_platform_file_has_the_platforms_input_and_output() {
    let spec = pacozero_data::spec_of_encoding(GameKind::default(), "platform").unwrap();
    assert_eq!((spec.input_channels(), spec.board_height, spec.board_width, spec.policy_size), (30, 8, 8, 132));
    let net = NetConfig::tiny_for(&spec);
    assert_eq!(net.encoding, "platform");
    assert_eq!(pacozero_nn::config_game(&net), Some(GameKind::default()));
    // The header records the encoding; a default-encoding header has no such key.
    let json = serde_json::to_string(&net).unwrap();
    assert!(json.contains(r#""encoding":"platform""#), "{json}");
    assert_eq!(serde_json::from_str::<NetConfig>(&json).unwrap(), net);
    assert!(!serde_json::to_string(&NetConfig::tiny_for(&spec_of(GameKind::default()))).unwrap().contains("encoding"));

    let model = net.init_seeded(&default_device(), 3).unwrap();
    let info = ModelInfo { name: "p".into(), step: 1, samples_seen: 0, provenance: None };
    let m = pacozero_platform::onnx::platform_model(&model, &net, &info).unwrap();
    let g = m.graph.as_ref().unwrap();
    let [input] = &g.input[..] else { panic!("one input") };
    let [output] = &g.output[..] else { panic!("one output") };
    assert_eq!((input.name.as_str(), dims(input)), ("INPUT", vec!["1".to_string(), "30".into(), "8".into(), "8".into()]));
    assert_eq!((output.name.as_str(), dims(output)), ("OUTPUT", vec!["1".to_string(), "133".into()]));
    let meta: HashMap<&str, &str> = m.metadata_props.iter().map(|e| (e.key.as_str(), e.value.as_str())).collect();
    assert_eq!((meta["pacozero.format"], meta["encoding"]), ("platform", "platform"));
    assert_eq!(meta["input_planes"].split(',').count(), 30);

    // A network of the game's own encoding is refused, naming the key.
    let own = NetConfig::tiny_for(&spec_of(GameKind::default()));
    let model = own.init(&default_device()).unwrap();
    let err = pacozero_platform::onnx::platform_model(&model, &own, &info).unwrap_err().to_string();
    assert!(err.contains(r#"net.encoding = "platform""#) && err.contains("pacozero"), "{err}");
}

fn paco_export() -> (NetConfig, ModelProto) {
    let net = NetConfig { blocks: 2, ..NetConfig::tiny_for(&spec_of(GameKind::Paco)) };
    let m = export(&net);
    (net, m)
}

#[test]
fn the_model_declares_its_versions_producer_and_documentation() {
    let (_, m) = paco_export();
    assert_eq!(m.ir_version, 8);
    let opsets: Vec<(&str, i64)> = m.opset_import.iter().map(|o| (o.domain.as_str(), o.version)).collect();
    assert_eq!(opsets, [("", 17)]);
    assert_eq!((m.producer_name.as_str(), m.producer_version.as_str()), ("pacozero", env!("CARGO_PKG_VERSION")));
    assert_eq!(m.doc_string, "PacoZero paco network t (2 blocks x 16 channels)");
    assert_eq!(m.graph.as_ref().unwrap().name, "pacozero_paco");
    let shako = export(&NetConfig::tiny_for(&spec_of(GameKind::Shako)));
    assert_eq!(shako.doc_string, "PacoZero shako network t (1 blocks x 16 channels)");
    assert_eq!(shako.graph.as_ref().unwrap().name, "pacozero_shako");
}

#[test]
fn nodes_are_numbered_in_order_and_their_values_named_after_the_layers() {
    let (_, m) = paco_export();
    let g = m.graph.as_ref().unwrap();
    // Every node but the outputs' renamings is `<op>_<k>`, k = 1, 2, ... in graph order.
    let named: Vec<&onnx_protobuf::NodeProto> = g.node.iter().filter(|n| n.op_type != "Identity").collect();
    for (k, n) in named.iter().enumerate() {
        assert_eq!(n.name, format!("{}_{}", n.op_type, k + 1));
    }
    let io = |n: &onnx_protobuf::NodeProto| (n.op_type.clone(), n.input.clone(), n.output.clone());
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // The stem: a 3x3 convolution padded by 1 on every side, then ReLU.
    assert_eq!(io(&g.node[0]), ("Conv".into(), s(&["planes", "stem.weight", "stem.bias"]), s(&["stem.conv"])));
    let attrs: Vec<(&str, Vec<i64>)> = g.node[0].attribute.iter().map(|a| (a.name.as_str(), a.ints.clone())).collect();
    assert_eq!(attrs, [("kernel_shape", vec![3, 3]), ("pads", vec![1, 1, 1, 1])]);
    assert_eq!(io(&g.node[1]), ("Relu".into(), s(&["stem.conv"]), s(&["stem.relu"])));
    // The first block's SE splits its gate in two values.
    let split = g.node.iter().find(|n| n.op_type == "Split").unwrap();
    assert_eq!(io(split), ("Split".into(), s(&["blocks.0.se.fc2.gemm", "blocks.0.se.split_sizes"]), s(&["blocks.0.se.split_0", "blocks.0.se.split_1"])));
    // A 1x1 convolution is not padded.
    let pc = g.node.iter().find(|n| n.output == ["policy_conv.conv"]).unwrap();
    assert_eq!(pc.attribute.iter().map(|a| a.ints.clone()).collect::<Vec<_>>(), [vec![1, 1], vec![0, 0, 0, 0]]);
    // The outputs are the heads' values renamed.
    let renamed: Vec<(String, Vec<String>, Vec<String>)> = g.node.iter().filter(|n| n.op_type == "Identity").map(io).collect();
    assert_eq!(
        renamed,
        [
            ("Identity".into(), s(&["policy_fc.gemm"]), s(&["policy"])),
            ("Identity".into(), s(&["wdl_softmax"]), s(&["wdl"])),
            ("Identity".into(), s(&["moves_left_fc.gemm"]), s(&["moves_left"])),
            ("Identity".into(), s(&["sako_fc.gemm"]), s(&["aux"])),
        ]
    );
}

#[test]
fn the_metadata_names_the_game_its_encoding_inputs_layout_and_the_model() {
    type G = pacozero_engine::paco::GameState;
    let net = NetConfig { blocks: 2, ..NetConfig::tiny_for(&spec_of(GameKind::Paco)) };
    let model = net.init_seeded(&default_device(), 7).unwrap();
    let provenance = pacozero_data::Provenance::here("flex");
    for (info, shown) in [
        (ModelInfo { name: "t".into(), step: 3, samples_seen: 0, provenance: None }, "unknown".to_string()),
        (ModelInfo { name: "u".into(), step: 4, samples_seen: 0, provenance: Some(provenance.clone()) }, provenance.to_string()),
    ] {
        let m = pacozero_nn::onnx::network_model(&model, &net, &info).unwrap();
        let meta: Vec<(&str, &str)> = m.metadata_props.iter().map(|e| (e.key.as_str(), e.value.as_str())).collect();
        let e = &G::ENCODINGS[0];
        let (bp, sc) = (e.bit_planes.len(), e.scalars.len());
        let planes: Vec<&str> = e.bit_planes.iter().chain(e.scalars).copied().collect();
        let input = format!("planes: float32 [N, {}, 8, 8]: channels 0..{bp} bit planes (0 or 1), then {sc} scalars each broadcast to a constant plane; square index = rank * 8 + file in the mover's frame", bp + sc);
        let outputs = "policy: float32 [N, 132] policy logits over the action indices (unmasked); \
             wdl: float32 [N, 3] (win, draw, loss) probabilities for the side to move; \
             moves_left: float32 [N, 1] predicted ln(1 + decisions left in the game); \
             aux: float32 [N, 2] logits of the auxiliary targets (mover_in_sako, mover_can_paco), sigmoid for probabilities";
        let net_json = serde_json::to_string(&net).unwrap();
        let (version, joined, step) = (e.version.to_string(), planes.join(","), info.step.to_string());
        let want: Vec<(&str, &str)> = vec![
            ("pacozero.format", "network"),
            ("game", "paco"),
            ("encoding", "pacozero"),
            ("encoding_version", &version),
            ("input", &input),
            ("input_planes", &joined),
            ("action_layout", G::ACTION_LAYOUT),
            ("value_convention", pacozero_nn::onnx::VALUE_CONVENTION),
            ("aux_targets", "mover_in_sako,mover_can_paco"),
            ("outputs", outputs),
            ("batch_norm", "folded into the convolutions before it"),
            ("net", &net_json),
            ("model_name", &info.name),
            ("model_step", &step),
            ("model_provenance", &shown),
        ];
        assert_eq!(meta, want);
    }
}

#[test]
fn a_reply_head_the_weights_lack_or_have_is_refused() {
    let info = ModelInfo::untrained("t");
    let net = NetConfig::tiny_for(&spec_of(GameKind::Paco));
    let with = NetConfig { reply_policy: true, ..net.clone() };
    let plain = net.init_seeded(&default_device(), 1).unwrap();
    // Lacking, the head's weights are missing when they are read (before the
    // check that would say "lack").
    let e = pacozero_nn::onnx::network_model(&plain, &with, &info).unwrap_err().to_string();
    assert!(e.starts_with("parameter `reply_fc.weight` not found (have ["), "{e}");
    let replying = with.init_seeded(&default_device(), 1).unwrap();
    let e = pacozero_nn::onnx::network_model(&replying, &net, &info).unwrap_err().to_string();
    assert_eq!(e, "invalid configuration: net.reply_policy = false but the weights have a reply head");
}
