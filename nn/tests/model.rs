//! Model files, architectures and networks without training (run in release
//! mode: `cargo test --release -p pacozero-nn`).

use pacozero_data::GameSpec;
use pacozero_nn::*;

fn spec() -> GameSpec {
    GameSpec::new("pacosako", 8, 8, 4, 1, 50, &["first", "second"]).unwrap()
}

#[test]
fn corrupt_or_mismatched_model_files_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let net = NetConfig::tiny_for(&spec());
    let dev = default_device();
    let model = net.init(&dev).unwrap();
    let info = ModelInfo::untrained("m");
    let path = dir.path().join("m.pzmodel");
    export_model(&model, &net, &info, &path).unwrap();
    let (n2, i2) = read_model_header(&path).unwrap();
    assert_eq!((n2, i2), (net.clone(), info));
    // Another architecture expected.
    let other = NetConfig { channels: 32, ..net.clone() };
    let e = load_model(&path, &dev, Some(&other)).unwrap_err().to_string();
    assert!(e.contains("m.pzmodel") && e.contains("architecture mismatch"), "{e}");
    let bytes = std::fs::read(&path).unwrap();
    // Flipped byte in the weights.
    let mut flipped = bytes.clone();
    let k = flipped.len() - 100;
    flipped[k] ^= 0x55;
    std::fs::write(&path, &flipped).unwrap();
    let e = Network::load(&path, 1).err().unwrap().to_string();
    assert!(e.contains("m.pzmodel") && e.contains("checksum mismatch"), "{e}");
    // Truncated.
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let e = Network::load(&path, 1).err().unwrap().to_string();
    assert!(e.contains("m.pzmodel") && e.contains("truncated"), "{e}");
    std::fs::write(&path, &bytes[..10]).unwrap();
    let e = Network::load(&path, 1).err().unwrap().to_string();
    assert!(e.contains("m.pzmodel"), "{e}");
    // Not a model at all.
    std::fs::write(&path, b"hello world, this is not a model file").unwrap();
    let e = Network::load(&path, 1).err().unwrap().to_string();
    assert!(e.contains("m.pzmodel") && e.contains("bad magic"), "{e}");
    // A header claiming another architecture than its weights.
    let small = NetConfig { blocks: 2, ..net.clone() };
    let big_model = small.init(&dev).unwrap();
    export_model(&big_model, &small, &ModelInfo::untrained("x"), &path).unwrap();
    let text = std::fs::read(&path).unwrap();
    let s = String::from_utf8_lossy(&text[20..200]).to_string();
    assert!(s.contains("\"blocks\":2"), "{s}");
    let patched: Vec<u8> = {
        let pos = text.windows(10).position(|w| w == b"\"blocks\":2").unwrap();
        let mut t = text.clone();
        t[pos + 9] = b'1';
        t
    };
    std::fs::write(&path, patched).unwrap();
    let e = Network::load(&path, 1).err().unwrap().to_string();
    assert!(e.contains("m.pzmodel") && e.contains("weights do not fit"), "{e}");
    // Missing file.
    let e = Network::load(&dir.path().join("nope.pzmodel"), 1).err().unwrap().to_string();
    assert!(e.contains("nope.pzmodel"), "{e}");
}

#[test]
fn config_errors_name_the_field() {
    let net = NetConfig { channels: 2, ..NetConfig::tiny_for(&spec()) };
    let e = net.validate().unwrap_err().to_string();
    assert!(e.contains("net.channels = 2"), "{e}");
    let e = toml::from_str::<NetConfig>("blocks = 3").unwrap_err().to_string();
    assert!(e.contains("bit_planes"), "{e}");
}

#[test]
fn network_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Network>();
}

/// burn draws a parameter lazily, on first use; a new network must hold all
/// of its weights already, or the draw escapes the initialisation lock (and
/// parallel tests gave one seed two different networks).
#[test]
fn new_networks_hold_every_weight_already() {
    use burn::module::{Module, ModuleVisitor, Param};
    use burn::prelude::Tensor;
    struct Count {
        params: usize,
        drawn: usize,
    }
    impl ModuleVisitor for Count {
        fn visit_float<const D: usize>(&mut self, p: &Param<Tensor<D>>) {
            self.params += 1;
            self.drawn += p.is_initialized() as usize;
        }
    }
    let net = NetConfig::tiny_for(&spec());
    for model in [net.init_seeded(&default_device(), 3).unwrap(), net.init(&default_device()).unwrap()] {
        let mut c = Count { params: 0, drawn: 0 };
        model.visit(&mut c);
        assert!(c.params > 10);
        assert_eq!(c.drawn, c.params);
    }
}
