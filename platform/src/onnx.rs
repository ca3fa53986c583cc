//! The file the game's platform runs in place of its own bot
//! (`pacozero export --format platform`): a network trained on the
//! platform's input (`net.encoding = "platform"`) as ONNX with the
//! platform's one input and one output.
//!
//! | tensor | shape | content |
//! |---|---|---|
//! | input `INPUT` | float32 `[1, 30, 8, 8]` | the platform's 30 planes (planes × rank × file, a1 = 0, the mover's frame) |
//! | output `OUTPUT` | float32 `[1, 133]` | index 0: the value `win − loss` in \[−1, 1\] for the mover; 1..=132: the policy as probabilities (softmax over all 132 action indices; the platform renormalises over the legal ones) |
//!
//! The action at output index `i` (1..=132) is the network's policy slot
//! `i − 1`, which is the platform's action index `i` (its indices are
//! PacoZero's plus one).

use onnx_protobuf::ModelProto;

use pacozero_nn::modelfile::ModelInfo;
use pacozero_nn::onnx::{game_facts, metadata, network_graph, write_model, Dim, GraphBuilder};
use pacozero_nn::{NetConfig, NnError, NnResult, PacoNet};

/// The input encoding the platform's runner feeds.
pub const PLATFORM_ENCODING: &str = "platform";
/// The name of the platform file's input.
pub const PLATFORM_INPUT: &str = "INPUT";
/// The name of the platform file's output.
pub const PLATFORM_OUTPUT: &str = "OUTPUT";

/// The platform's ONNX model of `model` (see the module docs); refused
/// unless the network reads the platform's input.
pub fn platform_model(model: &PacoNet, net: &NetConfig, info: &ModelInfo) -> NnResult<ModelProto> {
    if net.encoding != PLATFORM_ENCODING {
        return Err(NnError::Config(format!(
            "the platform's format needs a network trained on its input (net.encoding = \"{PLATFORM_ENCODING}\"); this one reads {:?}",
            net.encoding
        )));
    }
    let facts = game_facts(net)?;
    let (ci, h, w, p) = (net.input_channels(), net.height as usize, net.width as usize, net.policy_size as usize);
    let mut g = GraphBuilder::default();
    let x = g.input(PLATFORM_INPUT, &[Dim::Fixed(1), Dim::Fixed(ci), Dim::Fixed(h), Dim::Fixed(w)]);
    let heads = network_graph(&mut g, model, net, &x)?;
    // value = win - loss: the WDL probabilities times (1, 0, -1).
    let signs = g.floats("value_signs", &[3, 1], &[1.0, 0.0, -1.0]);
    let value = g.node("MatMul", "value", &[&heads.wdl, &signs], vec![]); // [1, 1]
    let axis =
        onnx_protobuf::AttributeProto { name: "axis".into(), type_: onnx_protobuf::attribute_proto::AttributeType::INT.into(), i: 1, ..Default::default() };
    let probs = g.node("Softmax", "policy_softmax", &[&heads.policy], vec![axis.clone()]); // [1, P]
    let out = g.node("Concat", "value_policy", &[&value, &probs], vec![axis]); // [1, 1 + P]
    g.output(&out, PLATFORM_OUTPUT, &[Dim::Fixed(1), Dim::Fixed(1 + p)]);
    let input = format!(
        "{PLATFORM_INPUT}: float32 [1, {ci}, {h}, {w}]: the platform's planes (planes x rank x file, tile = file + {w} * rank, a1 = 0), \
         seen from the mover (for Black the board flipped vertically)"
    );
    let outputs = [(
        PLATFORM_OUTPUT,
        format!("float32 [1, {}]: index 0 the value win - loss in [-1, 1] for the mover; indices 1..={p} the policy as probabilities (softmax over the {p} action indices), index i = action index i", 1 + p),
    )];
    let meta = metadata("platform", input, net, info, &facts, &outputs)?;
    let doc = format!("PacoZero network {} for the platform ({} blocks x {} channels)", info.name, net.blocks, net.channels);
    Ok(g.model("pacozero_platform", &doc, &meta))
}

/// Exports the platform's file ([`platform_model`]) to `path` atomically.
pub fn export_platform(model: &PacoNet, net: &NetConfig, info: &ModelInfo, path: &std::path::Path) -> NnResult<()> {
    write_model(&platform_model(model, net, info)?, path)
}
