//! ONNX export of a network: the same forward pass as [`PacoNet::forward`]
//! (and [`crate::FastNet`]) as an ONNX graph, written with the ONNX protobuf
//! messages of the `onnx-protobuf` crate. The file format is described in
//! the book (docs/onnx.md).
//!
//! * input `planes`: float32 `[N, C, H, W]`, `N` dynamic: the game's
//!   encoding as the networks read it (bit planes as 0/1, then each scalar
//!   broadcast to a constant plane);
//! * outputs, one per head: `policy` logits `[N, P]`, `wdl` probabilities
//!   `[N, 3]` (softmax of the value head: win, draw, loss for the mover),
//!   `moves_left` `[N, 1]` (predicted `ln(1 + decisions left)`), `aux`
//!   logits `[N, A]` of the game's auxiliary targets (absent when it has
//!   none), and with `reply_policy` `reply` logits `[N, P]`;
//! * batch norms are folded into the convolutions before them
//!   (as for `FastNet`), so the graph holds convolutions with bias and no
//!   BatchNormalization node;
//! * opset [`ONNX_OPSET`], IR version [`ONNX_IR_VERSION`]; `metadata_props`
//!   name the game, the encoding and its version, the input planes, the
//!   action-index layout, the value convention and the architecture.

use std::path::Path;

use onnx_protobuf::attribute_proto::AttributeType;
use onnx_protobuf::tensor_proto::DataType;
use onnx_protobuf::tensor_shape_proto::{dimension, Dimension};
use onnx_protobuf::type_proto::{self, Tensor as TensorType};
use onnx_protobuf::{
    AttributeProto, GraphProto, Message, ModelProto, NodeProto, OperatorSetIdProto, StringStringEntryProto, TensorProto, TensorShapeProto, TypeProto,
    ValueInfoProto,
};
use pacozero_engine::Game;

use crate::error::{NnError, NnResult};
use crate::load::config_game;
use crate::model::{conv_gather, NetConfig, PacoNet, PolicyHead};
use crate::modelfile::ModelInfo;
use crate::weights::{Dense, FoldedConv, Weights};

/// The operator set the graphs are written for.
pub const ONNX_OPSET: i64 = 17;
/// The IR version of opset 17 (ONNX 1.12), the oldest that reads it: the
/// newest runtime reads it too.
pub const ONNX_IR_VERSION: i64 = 8;
/// The name of the batch dimension of the input and outputs.
pub const BATCH_DIM: &str = "batch";
/// The input of a network's graph.
pub const INPUT: &str = "planes";
/// The value convention of the `wdl` output, as the metadata states it.
pub const VALUE_CONVENTION: &str = "wdl = softmax of the value head = (win, draw, loss) probabilities for the side to move; value = win - loss in [-1, 1]";

/// A dimension of a tensor's declared shape.
#[derive(Clone, Debug)]
pub enum Dim {
    /// The batch, [`BATCH_DIM`].
    Batch,
    Fixed(usize),
}

/// An ONNX graph under construction: nodes in order, initializers, and a
/// counter for the names of intermediate values.
#[derive(Default)]
pub struct GraphBuilder {
    nodes: Vec<NodeProto>,
    initializers: Vec<TensorProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
    values: usize,
}

fn attr_int(name: &str, v: i64) -> AttributeProto {
    AttributeProto { name: name.into(), type_: AttributeType::INT.into(), i: v, ..Default::default() }
}

fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto { name: name.into(), type_: AttributeType::INTS.into(), ints: v.to_vec(), ..Default::default() }
}

fn value_info(name: &str, shape: &[Dim]) -> ValueInfoProto {
    let dim = shape
        .iter()
        .map(|d| Dimension {
            value: Some(match d {
                Dim::Batch => dimension::Value::DimParam(BATCH_DIM.into()),
                Dim::Fixed(n) => dimension::Value::DimValue(*n as i64),
            }),
            ..Default::default()
        })
        .collect();
    let tensor = TensorType { elem_type: DataType::FLOAT as i32, shape: Some(TensorShapeProto { dim, ..Default::default() }).into(), ..Default::default() };
    ValueInfoProto {
        name: name.into(),
        type_: Some(TypeProto { value: Some(type_proto::Value::TensorType(tensor)), ..Default::default() }).into(),
        ..Default::default()
    }
}

impl GraphBuilder {
    /// Declares a float32 graph input.
    pub fn input(&mut self, name: &str, shape: &[Dim]) -> String {
        self.inputs.push(value_info(name, shape));
        name.to_string()
    }

    /// Declares `value` a float32 graph output named `name` (an Identity
    /// node renames it when it has another name).
    pub fn output(&mut self, value: &str, name: &str, shape: &[Dim]) {
        if value != name {
            self.nodes.push(NodeProto { op_type: "Identity".into(), input: vec![value.into()], output: vec![name.into()], ..Default::default() });
        }
        self.outputs.push(value_info(name, shape));
    }

    /// A float32 initializer (stored as raw little-endian bytes).
    pub fn floats(&mut self, name: &str, dims: &[usize], data: &[f32]) -> String {
        debug_assert_eq!(dims.iter().product::<usize>(), data.len());
        let raw = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.initializers.push(TensorProto {
            name: name.into(),
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type: DataType::FLOAT as i32,
            raw_data: raw,
            ..Default::default()
        });
        name.to_string()
    }

    /// An int64 initializer (shapes, axes, split sizes).
    pub fn int64s(&mut self, name: &str, data: &[i64]) -> String {
        self.initializers.push(TensorProto {
            name: name.into(),
            dims: vec![data.len() as i64],
            data_type: DataType::INT64 as i32,
            int64_data: data.to_vec(),
            ..Default::default()
        });
        name.to_string()
    }

    /// A node of `op` on `inputs` with `outputs` fresh values named after
    /// `name`; returns their names.
    pub fn node_n(&mut self, op: &str, name: &str, inputs: &[&str], attrs: Vec<AttributeProto>, outputs: usize) -> Vec<String> {
        self.values += 1;
        let outs: Vec<String> = (0..outputs).map(|i| if outputs == 1 { name.to_string() } else { format!("{name}_{i}") }).collect();
        self.nodes.push(NodeProto {
            name: format!("{op}_{}", self.values),
            op_type: op.into(),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: outs.clone(),
            attribute: attrs,
            ..Default::default()
        });
        outs
    }

    /// A node with one output.
    pub fn node(&mut self, op: &str, name: &str, inputs: &[&str], attrs: Vec<AttributeProto>) -> String {
        self.node_n(op, name, inputs, attrs, 1).remove(0)
    }

    /// A folded convolution (same padding), optionally followed by ReLU.
    fn conv(&mut self, x: &str, name: &str, c: &FoldedConv, relu: bool) -> String {
        let k = c.kernel;
        let w = self.floats(&format!("{name}.weight"), &[c.cout, c.cin, k, k], &c.w);
        let b = self.floats(&format!("{name}.bias"), &[c.cout], &c.b);
        let pad = (k / 2) as i64;
        let attrs = vec![attr_ints("kernel_shape", &[k as i64, k as i64]), attr_ints("pads", &[pad, pad, pad, pad])];
        let y = self.node("Conv", &format!("{name}.conv"), &[x, &w, &b], attrs);
        if relu {
            self.node("Relu", &format!("{name}.relu"), &[&y], vec![])
        } else {
            y
        }
    }

    /// A fully connected layer `x [N, k] -> [N, n]` (Gemm), optionally followed by ReLU.
    fn dense(&mut self, x: &str, name: &str, d: &Dense, relu: bool) -> String {
        let w = self.floats(&format!("{name}.weight"), &[d.k, d.n], &d.w);
        let b = self.floats(&format!("{name}.bias"), &[d.n], &d.b);
        let y = self.node("Gemm", &format!("{name}.gemm"), &[x, &w, &b], vec![]);
        if relu {
            self.node("Relu", &format!("{name}.relu"), &[&y], vec![])
        } else {
            y
        }
    }

    /// The finished model: this graph, opset [`ONNX_OPSET`], `metadata`.
    pub fn model(self, graph_name: &str, doc: &str, metadata: &[(String, String)]) -> ModelProto {
        let graph = GraphProto {
            name: graph_name.into(),
            node: self.nodes,
            initializer: self.initializers,
            input: self.inputs,
            output: self.outputs,
            ..Default::default()
        };
        ModelProto {
            ir_version: ONNX_IR_VERSION,
            opset_import: vec![OperatorSetIdProto { domain: String::new(), version: ONNX_OPSET, ..Default::default() }],
            producer_name: "pacozero".into(),
            // The version alone, so that a model exports to the same bytes
            // from any build of it (the model's own provenance is metadata).
            producer_version: env!("CARGO_PKG_VERSION").into(),
            doc_string: doc.into(),
            graph: Some(graph).into(),
            metadata_props: metadata.iter().map(|(k, v)| StringStringEntryProto { key: k.clone(), value: v.clone(), ..Default::default() }).collect(),
            ..Default::default()
        }
    }
}

/// The values of the heads of a network graph ([`network_graph`]).
pub struct Heads {
    pub policy: String,
    /// Probabilities (softmax of the value head's logits).
    pub wdl: String,
    pub moves_left: String,
    /// `None` when the game has no auxiliary targets.
    pub aux: Option<String>,
    pub reply: Option<String>,
}

/// The network `model` (architecture `net`) as nodes of `g` reading `x`,
/// `[N, Ci, H, W]`: the forward pass of [`PacoNet::forward`] with its batch
/// norms folded.
pub fn network_graph(g: &mut GraphBuilder, model: &PacoNet, net: &NetConfig, x: &str) -> NnResult<Heads> {
    net.validate()?;
    let wt = Weights::of(model);
    let (ci, c, hw) = (net.input_channels(), net.channels as usize, net.squares());
    let (pc, vc, vh) = (net.policy_channels as usize, net.value_channels as usize, net.value_hidden as usize);
    let p = net.policy_size as usize;
    let mut t = g.conv(x, "stem", &wt.conv_bn("stem", ci, c, 3)?, true); // [N, C, H, W]
    for i in 0..net.blocks as usize {
        let name = format!("blocks.{i}");
        let a = g.conv(&t, &format!("{name}.a"), &wt.conv_bn(&format!("{name}.a"), c, c, 3)?, true); // [N, C, H, W]
        let mut y = g.conv(&a, &format!("{name}.b"), &wt.conv_bn(&format!("{name}.b"), c, c, 3)?, false); // [N, C, H, W]
        if net.se_ratio > 0 {
            let hidden = (c / net.se_ratio as usize).max(1);
            let se = format!("{name}.se");
            let pooled = g.node("GlobalAveragePool", &format!("{se}.pool"), &[&y], vec![]); // [N, C, 1, 1]
            let pooled = g.node("Flatten", &format!("{se}.flat"), &[&pooled], vec![attr_int("axis", 1)]); // [N, C]
            let h = g.dense(&pooled, &format!("{se}.fc1"), &wt.linear(&format!("{se}.fc1"), c, hidden)?, true); // [N, C/r]
            let gate = g.dense(&h, &format!("{se}.fc2"), &wt.linear(&format!("{se}.fc2"), hidden, 2 * c)?, false); // [N, 2C]
            let sizes = g.int64s(&format!("{se}.split_sizes"), &[c as i64, c as i64]);
            let parts = g.node_n("Split", &format!("{se}.split"), &[&gate, &sizes], vec![attr_int("axis", 1)], 2); // 2 x [N, C]
            let axes = g.int64s(&format!("{se}.axes"), &[2, 3]);
            let scale = g.node("Sigmoid", &format!("{se}.sigmoid"), &[&parts[0]], vec![]); // [N, C]
            let scale = g.node("Unsqueeze", &format!("{se}.scale"), &[&scale, &axes], vec![]); // [N, C, 1, 1]
            let bias = g.node("Unsqueeze", &format!("{se}.bias"), &[&parts[1], &axes], vec![]); // [N, C, 1, 1]
            let scaled = g.node("Mul", &format!("{se}.mul"), &[&y, &scale], vec![]); // [N, C, H, W]
            y = g.node("Add", &format!("{se}.add"), &[&scaled, &bias], vec![]); // [N, C, H, W]
        }
        let sum = g.node("Add", &format!("{name}.skip"), &[&y, &t], vec![]); // [N, C, H, W]
        t = g.node("Relu", &format!("{name}.relu"), &[&sum], vec![]); // [N, C, H, W]
    }

    let ph = g.conv(&t, "policy_conv", &wt.conv_bn("policy_conv", c, pc, net.policy_kernel())?, true); // [N, Pc, H, W]
    let (policy, reply) = match net.policy_head {
        PolicyHead::Fc => {
            // burn flattens channel-major ([N, Pc*H*W], index c*HW + s), as Flatten does.
            let ph = g.node("Flatten", "policy_flat", &[&ph], vec![attr_int("axis", 1)]); // [N, Pc*H*W]
            let policy = g.dense(&ph, "policy_fc", &wt.linear("policy_fc", pc * hw, p)?, false); // [N, P]
            let reply = match net.reply_policy {
                true => Some(g.dense(&ph, "reply_fc", &wt.linear("reply_fc", pc * hw, p)?, false)), // [N, P]
                false => None,
            };
            (policy, reply)
        }
        PolicyHead::Conv => {
            // The planes flattened plane-major, then each plane's mean: the
            // vector the gather indices point into (as burn's forward pass).
            let pp = net.policy_planes()?;
            let gather: Vec<i64> = conv_gather(&pp, hw).into_iter().map(|i| i as i64).collect();
            let gather = g.int64s("policy_gather", &gather);
            let mut read = |name: &str| -> NnResult<String> {
                let o = g.conv(&ph, name, &wt.conv(name, pc, pp.planes, 1)?, false); // [N, K, H, W]
                let flat = g.node("Flatten", &format!("{name}.flat"), &[&o], vec![attr_int("axis", 1)]); // [N, K*H*W]
                let mean = g.node("GlobalAveragePool", &format!("{name}.pool"), &[&o], vec![]); // [N, K, 1, 1]
                let mean = g.node("Flatten", &format!("{name}.mean"), &[&mean], vec![attr_int("axis", 1)]); // [N, K]
                let all = g.node("Concat", &format!("{name}.all"), &[&flat, &mean], vec![attr_int("axis", 1)]); // [N, K*H*W + K]
                Ok(g.node("Gather", &format!("{name}.gather"), &[&all, &gather], vec![attr_int("axis", 1)]))
                // [N, P]
            };
            let policy = read("policy_planes")?;
            let reply = if net.reply_policy { Some(read("reply_planes")?) } else { None };
            (policy, reply)
        }
    };

    // Value trunk.
    let v = g.conv(&t, "value_conv", &wt.conv_bn("value_conv", c, vc, 1)?, true); // [N, Vc, H, W]
    let features = if net.value_pool {
        let mean = g.node("GlobalAveragePool", "value_mean", &[&v], vec![]); // [N, Vc, 1, 1]
        let max = g.node("GlobalMaxPool", "value_max", &[&v], vec![]); // [N, Vc, 1, 1]
        let mean = g.node("Flatten", "value_mean_flat", &[&mean], vec![attr_int("axis", 1)]); // [N, Vc]
        let max = g.node("Flatten", "value_max_flat", &[&max], vec![attr_int("axis", 1)]); // [N, Vc]
        g.node("Concat", "value_pooled", &[&mean, &max], vec![attr_int("axis", 1)])
    // [N, 2*Vc]: means, then maxima
    } else {
        g.node("Flatten", "value_flat", &[&v], vec![attr_int("axis", 1)]) // [N, Vc*H*W]
    };
    let hidden = g.dense(&features, "value_fc", &wt.linear("value_fc", net.value_features(), vh)?, true); // [N, Vh]
    let wdl_logits = g.dense(&hidden, "wdl_fc", &wt.linear("wdl_fc", vh, 3)?, false); // [N, 3]
    let wdl = g.node("Softmax", "wdl_softmax", &[&wdl_logits], vec![attr_int("axis", 1)]); // [N, 3]
    let moves_left = g.dense(&hidden, "moves_left_fc", &wt.linear("moves_left_fc", vh, 1)?, false); // [N, 1]
    let a = net.aux_targets as usize;
    let aux = match a {
        0 => None,
        _ => Some(g.dense(&hidden, "sako_fc", &wt.linear("sako_fc", vh, a)?, false)), // [N, A]
    };
    if net.reply_policy != (wt.has("reply_fc.weight") || wt.has("reply_planes.weight")) {
        return Err(NnError::Config(format!(
            "net.reply_policy = {} but the weights {} a reply head",
            net.reply_policy,
            if net.reply_policy { "lack" } else { "have" }
        )));
    }
    Ok(Heads { policy, wdl, moves_left, aux, reply })
}

/// What a file says about the game a network plays: its name, input
/// encoding, policy layout and auxiliary targets, from the registry.
pub struct GameFacts {
    pub game: &'static str,
    pub encoding: pacozero_engine::Encoding,
    pub action_layout: &'static str,
    pub aux_targets: &'static [&'static str],
}

/// The facts of the game whose inputs and policy `net` has.
pub fn game_facts(net: &NetConfig) -> NnResult<GameFacts> {
    fn facts<G: Game>(encoding: &str) -> GameFacts {
        let e = G::ENCODINGS.iter().find(|e| e.name == encoding).expect("config_game found the network's encoding");
        GameFacts { game: G::NAME, encoding: *e, action_layout: G::ACTION_LAYOUT, aux_targets: G::AUX_TARGETS }
    }
    let kind = config_game(net).ok_or_else(|| {
        NnError::Config(format!(
            "the network's inputs ({} channels, {}x{}, encoding {}) and {} policy slots fit none of the games",
            net.input_channels(),
            net.height,
            net.width,
            net.encoding,
            net.policy_size
        ))
    })?;
    Ok(pacozero_engine::with_game!(kind, G => facts::<G>(&net.encoding)))
}

/// The `metadata_props` of a network's ONNX file (see docs/onnx.md):
/// `format` is `network` or `platform`, `input` describes the input.
pub fn metadata(
    format: &str,
    input: String,
    net: &NetConfig,
    info: &ModelInfo,
    facts: &GameFacts,
    outputs: &[(&str, String)],
) -> NnResult<Vec<(String, String)>> {
    let e = &facts.encoding;
    let planes: Vec<&str> = e.bit_planes.iter().chain(e.scalars).copied().collect();
    let net_json = serde_json::to_string(net).map_err(|e| NnError::Other(e.to_string()))?;
    let outputs: Vec<String> = outputs.iter().map(|(name, what)| format!("{name}: {what}")).collect();
    Ok(vec![
        ("pacozero.format".into(), format.into()),
        ("game".into(), facts.game.into()),
        ("encoding".into(), e.name.into()),
        ("encoding_version".into(), e.version.to_string()),
        ("input".into(), input),
        ("input_planes".into(), planes.join(",")),
        ("action_layout".into(), facts.action_layout.into()),
        ("value_convention".into(), VALUE_CONVENTION.into()),
        ("aux_targets".into(), facts.aux_targets.join(",")),
        ("outputs".into(), outputs.join("; ")),
        ("batch_norm".into(), "folded into the convolutions before it".into()),
        ("net".into(), net_json),
        ("model_name".into(), info.name.clone()),
        ("model_step".into(), info.step.to_string()),
        ("model_provenance".into(), info.provenance.as_ref().map_or_else(|| "unknown".to_string(), |p| p.to_string())),
    ])
}

/// The ONNX model of a network: input [`INPUT`] `[N, C, H, W]`, one output
/// per head (see the module docs), metadata from the game's registry entry.
pub fn network_model(model: &PacoNet, net: &NetConfig, info: &ModelInfo) -> NnResult<ModelProto> {
    let facts = game_facts(net)?;
    let (ci, h, w) = (net.input_channels(), net.height as usize, net.width as usize);
    let p = net.policy_size as usize;
    let mut g = GraphBuilder::default();
    let x = g.input(INPUT, &[Dim::Batch, Dim::Fixed(ci), Dim::Fixed(h), Dim::Fixed(w)]);
    let heads = network_graph(&mut g, model, net, &x)?;
    let mut outputs = vec![
        ("policy", format!("float32 [N, {p}] policy logits over the action indices (unmasked)")),
        ("wdl", "float32 [N, 3] (win, draw, loss) probabilities for the side to move".to_string()),
        ("moves_left", "float32 [N, 1] predicted ln(1 + decisions left in the game)".to_string()),
    ];
    g.output(&heads.policy, "policy", &[Dim::Batch, Dim::Fixed(p)]);
    g.output(&heads.wdl, "wdl", &[Dim::Batch, Dim::Fixed(3)]);
    g.output(&heads.moves_left, "moves_left", &[Dim::Batch, Dim::Fixed(1)]);
    if let Some(aux) = &heads.aux {
        let a = net.aux_targets as usize;
        g.output(aux, "aux", &[Dim::Batch, Dim::Fixed(a)]);
        outputs.push(("aux", format!("float32 [N, {a}] logits of the auxiliary targets ({}), sigmoid for probabilities", facts.aux_targets.join(", "))));
    }
    if let Some(reply) = &heads.reply {
        g.output(reply, "reply", &[Dim::Batch, Dim::Fixed(p)]);
        outputs.push(("reply", format!("float32 [N, {p}] logits of the opponent's reply policy (auxiliary, unmasked)")));
    }
    let e = &facts.encoding;
    let input = format!(
        "{INPUT}: float32 [N, {ci}, {h}, {w}]: channels 0..{} bit planes (0 or 1), then {} scalars each broadcast to a constant plane; square index = rank * {w} + file in the mover's frame",
        e.num_bit_planes(),
        e.num_scalars(),
    );
    let meta = metadata("network", input, net, info, &facts, &outputs)?;
    let doc = format!("PacoZero {} network {} ({} blocks x {} channels)", facts.game, info.name, net.blocks, net.channels);
    Ok(g.model(&format!("pacozero_{}", facts.game), &doc, &meta))
}

/// Writes `model` to `path` atomically (temporary name, fsync, rename).
pub fn write_model(model: &ModelProto, path: &Path) -> NnResult<()> {
    let bytes = model.write_to_bytes().map_err(|e| NnError::Other(format!("cannot serialise the ONNX model: {e}")))?;
    Ok(pacozero_data::write_atomic(path, &[&bytes])?)
}

/// Exports a network as ONNX ([`network_model`]) to `path`.
pub fn export_network(model: &PacoNet, net: &NetConfig, info: &ModelInfo, path: &Path) -> NnResult<()> {
    write_model(&network_model(model, net, info)?, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::Device;
    use pacozero_data::GameSpec;

    #[test]
    fn a_network_without_auxiliary_targets_has_no_aux_head_in_the_graph() {
        let spec = GameSpec::new("test", 4, 4, 2, 1, 9, &[]).unwrap();
        for aux_targets in [0, 1] {
            let net = NetConfig { aux_targets, ..NetConfig::tiny_for(&spec) };
            let model = net.init_seeded(&Device::flex(), 1).unwrap();
            let mut g = GraphBuilder::default();
            let x = g.input(INPUT, &[Dim::Batch, Dim::Fixed(3), Dim::Fixed(4), Dim::Fixed(4)]);
            assert_eq!(x, "planes");
            let heads = network_graph(&mut g, &model, &net, &x).unwrap();
            assert_eq!(heads.aux.as_deref(), (aux_targets == 1).then_some("sako_fc.gemm"));
            assert_eq!((heads.policy.as_str(), heads.wdl.as_str(), heads.moves_left.as_str()), ("policy_fc.gemm", "wdl_softmax", "moves_left_fc.gemm"));
            assert!(heads.reply.is_none());
            let aux_weights = g.initializers.iter().filter(|t| t.name.starts_with("sako_fc.")).count();
            assert_eq!(aux_weights, 2 * aux_targets as usize);
        }
    }

    #[test]
    fn the_builder_names_initializers_and_values_as_asked() {
        let mut g = GraphBuilder::default();
        assert_eq!(g.floats("w", &[2, 1], &[1.5, -2.0]), "w");
        assert_eq!(g.int64s("axes", &[2, 3]), "axes");
        assert_eq!(g.node("Relu", "r", &["w"], vec![]), "r");
        assert_eq!(g.node_n("Split", "s", &["w", "axes"], vec![attr_int("axis", 1)], 2), ["s_0", "s_1"]);
        let (w, axes) = (&g.initializers[0], &g.initializers[1]);
        assert_eq!((w.dims.as_slice(), w.data_type, w.raw_data.as_slice()), (&[2i64, 1][..], DataType::FLOAT as i32, &[0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0][..]));
        assert_eq!((axes.dims.as_slice(), axes.data_type, axes.int64_data.as_slice()), (&[2i64][..], DataType::INT64 as i32, &[2i64, 3][..]));
        let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["Relu_1", "Split_2"]);
        assert_eq!(g.nodes[1].attribute[0].i, 1);
        // An output under its own name needs no renaming.
        g.output("r", "r", &[Dim::Batch]);
        assert_eq!(g.nodes.len(), 2);
        g.output("r", "out", &[Dim::Batch]);
        assert_eq!(
            (g.nodes[2].op_type.as_str(), g.nodes[2].input.as_slice(), g.nodes[2].output.as_slice()),
            ("Identity", &["r".to_string()][..], &["out".to_string()][..])
        );
        assert_eq!(g.outputs.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(), ["r", "out"]);
    }
}
