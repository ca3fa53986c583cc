//! Files whose headers declare more than they hold, read by the binary
//! under a 2 GiB address-space limit: one clear error, no abort. Before the
//! checks, a model header edited to declare a 1.1 TB policy layer aborted
//! the loader (`memory allocation of 1099511627776 bytes failed`).

use std::path::Path;

mod common;
use common::{bin, limit_address_space, manifest_dir, output_text, s};

/// Address space each command gets: 2 GiB.
const MEMORY: u64 = 2 << 30;

/// `data`, a model file, with its header's `net` changed by `edit` (the
/// header has no checksum; the weight sections keep theirs).
fn with_net(data: &[u8], edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let hlen = u64::from_le_bytes(data[12..20].try_into().unwrap()) as usize;
    let mut header: serde_json::Value = serde_json::from_slice(&data[20..20 + hlen]).unwrap();
    edit(&mut header["net"]);
    let header = serde_json::to_vec(&header).unwrap();
    let mut out = data[..12].to_vec();
    out.extend((header.len() as u64).to_le_bytes());
    out.extend(header);
    out.extend(&data[20 + hlen..]);
    out
}

/// Runs `pacozero ARGS` under [`MEMORY`]; its exit status and output.
fn run_limited(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut c = bin();
    c.args(args);
    limit_address_space(&mut c, MEMORY);
    let out = c.output().unwrap();
    (out.status, output_text(&out))
}

#[test]
fn a_model_header_declaring_a_terabyte_is_one_error_within_2_gib() {
    let dir = tempfile::tempdir().unwrap();
    let reference = manifest_dir().join("../models/reference/quick-edd488c-gen71.pzmodel");
    let data = std::fs::read(&reference).unwrap();
    // The largest policy layer the header's ranges allow: 2.7e11 weights.
    let huge = with_net(&data, |net| {
        for (k, v) in [("policy_channels", 1024), ("height", 64), ("width", 64), ("policy_size", 65536)] {
            net[k] = v.into();
        }
    });
    let model = dir.path().join("huge.pzmodel");
    std::fs::write(&model, &huge).unwrap();
    let onnx = dir.path().join("huge.onnx");
    let player = format!("net:{}:4", s(&model));
    for args in [
        vec!["export", "--format", "onnx", "--model", s(&model), "--out", s(&onnx)],
        vec!["arena", "--players", &player, "random", "--games", "2", "--quiet"],
        vec!["tactics", "solve", "--model", s(&model), "--visits", "4"],
    ] {
        let (status, text) = run_limited(&args);
        // An exit with a status (no signal: no abort), and one error naming the file and the field.
        assert_eq!(status.code(), Some(1), "{args:?}: {text}");
        assert!(text.contains(&format!("{}: header field `net` declares ", model.display())), "{args:?}: {text}");
        assert!(!text.contains("memory allocation") && !text.contains("panicked"), "{args:?}: {text}");
    }
    assert!(!onnx.exists() && !Path::new(&format!("{}.tmp", onnx.display())).exists(), "nothing written");
    // The file as it was loads under the same limit.
    std::fs::write(&model, &data).unwrap();
    let (status, text) = run_limited(&["export", "--format", "onnx", "--model", s(&model), "--out", s(&onnx)]);
    assert!(status.success() && onnx.exists(), "{text}");
}
