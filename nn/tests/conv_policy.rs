//! The conv policy head (`net.policy_head = "conv"`) in model files: a conv
//! network's file names its head and loads as the network it was exported
//! from (burn's forward pass and FastNet alike), a header that names the
//! other head is refused, and the fully connected networks of earlier
//! builds, whose headers have no such key, load and run as before.

mod common;

use std::path::Path;

use common::{assert_close, inputs, random_net, spread};
use pacozero_data::spec_of_encoding;
use pacozero_engine::GameKind;
use pacozero_nn::*;

/// The JSON header of a model file.
fn header(data: &[u8]) -> String {
    let hlen = u64::from_le_bytes(data[12..20].try_into().unwrap()) as usize;
    String::from_utf8(data[20..20 + hlen].to_vec()).unwrap()
}

/// `data` with its header replaced by `text` (the header has no checksum).
fn with_header(data: &[u8], text: &str) -> Vec<u8> {
    let hlen = u64::from_le_bytes(data[12..20].try_into().unwrap()) as usize;
    let mut out = data[..12].to_vec();
    out.extend((text.len() as u64).to_le_bytes());
    out.extend(text.as_bytes());
    out.extend(&data[20 + hlen..]);
    out
}

/// Every head of `a` and `b` on the same inputs, through burn and FastNet.
fn assert_same_outputs(what: &str, a: &Network, b: &Network, net: &NetConfig) {
    let batch = 3;
    let x = inputs(net, batch, 9);
    for fastnet in [false, true] {
        let (p, q) = (a.forward_heads(x.clone(), batch, fastnet), b.forward_heads(x.clone(), batch, fastnet));
        let what = format!("{what} fastnet={fastnet}");
        assert_close(&format!("{what} policy"), &p.policy, &q.policy, 1e-6);
        assert_close(&format!("{what} wdl"), &p.wdl, &q.wdl, 1e-6);
        assert_close(&format!("{what} moves_left"), &p.moves_left, &q.moves_left, 1e-6);
        assert!(spread(&p.policy) > 1e-3, "{what}: flat policy");
    }
    // FastNet and burn agree on the loaded network too.
    let (slow, fast) = (a.forward_heads(x.clone(), batch, false), a.forward_heads(x, batch, true));
    assert_close(&format!("{what} burn vs FastNet policy"), &fast.policy, &slow.policy, 1e-4);
    assert_close(&format!("{what} burn vs FastNet wdl"), &fast.wdl, &slow.wdl, 1e-4);
}

#[test]
fn a_conv_network_round_trips_through_its_model_file() {
    let spec = spec_of_encoding(GameKind::Shako, "threats").unwrap();
    let net = NetConfig { reply_policy: true, policy_head: PolicyHead::Conv, ..NetConfig::tiny_for(&spec) };
    let model = random_net(&net, 31);
    let info = ModelInfo::untrained("conv");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("conv.pzmodel");
    export_model(&model, &net, &info, &path).unwrap();
    let data = std::fs::read(&path).unwrap();
    let text = header(&data);
    assert!(text.contains(r#""policy_head":"conv""#) && text.contains(r#""encoding":"threats""#), "{text}");
    assert_eq!(read_model_header(&path).unwrap(), (net.clone(), info.clone()));
    let loaded = Network::load(&path, 1).unwrap();
    assert_eq!(loaded.config(), &net);
    let original = Network::from_model(model, net.clone(), info, &default_device(), 1).unwrap();
    assert_same_outputs("conv", &loaded, &original, &net);
    // The file is far smaller than a fully connected head's: 8 policy channels
    // x 100 squares x 3,656 slots is 2.9M weights a head, 23 MB for two.
    assert!(data.len() < 1_000_000, "{} bytes", data.len());
    // The same weights under a header that names the fully connected head
    // (as a build without the key would write it) are refused.
    let as_fc = with_header(&data, &text.replace(r#","policy_head":"conv""#, ""));
    assert!(!header(&as_fc).contains("policy_head"));
    std::fs::write(&path, &as_fc).unwrap();
    let e = Network::load(&path, 1).err().expect("refused").to_string();
    assert!(e.starts_with(&path.display().to_string()), "{e}");
}

/// A fully connected network of an earlier build (a reference network,
/// whose header has no `policy_head`) loads as `"fc"` and runs as before.
#[test]
fn a_fully_connected_network_of_an_earlier_build_loads_and_runs() {
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/reference/quick-edd488c-gen71.pzmodel");
    let data = std::fs::read(&reference).unwrap();
    assert!(!header(&data).contains("policy_head"));
    let (net, _) = read_model_header(&reference).unwrap();
    assert_eq!(net.policy_head, PolicyHead::Fc);
    let a = Network::load(&reference, 1).unwrap();
    // Exported again by this build: the same header (but for the weights'
    // checksum: burn gives the batch norms' statistics new ids) and outputs.
    let dir = tempfile::tempdir().unwrap();
    let again = dir.path().join("again.pzmodel");
    export_model(a.model(), &net, a.info(), &again).unwrap();
    let without_sums = |data: &[u8]| {
        let mut h: serde_json::Value = serde_json::from_str(&header(data)).unwrap();
        h["sections"][0]["fnv1a64"] = "".into();
        h
    };
    assert_eq!(without_sums(&std::fs::read(&again).unwrap()), without_sums(&data));
    let b = Network::load(&again, 1).unwrap();
    assert_same_outputs("reference", &a, &b, &net);
}
