use super::*;
use crate::fuzz_checks::with_net;
use pacozero_data::GameSpec;

const PATH: &str = "x/m.pzmodel";

/// Container bytes: `magic`, `version`, the header's length and the header, then `body`.
fn container(magic: &[u8; 8], version: u32, header: &str, body: &[u8]) -> Vec<u8> {
    let mut v = magic.to_vec();
    v.extend(version.to_le_bytes());
    v.extend((header.len() as u64).to_le_bytes());
    v.extend(header.as_bytes());
    v.extend(body);
    v
}

/// A header listing one section `name` of `body`.
fn header_of(name: &str, body: &[u8]) -> String {
    format!(r#"{{"sections":[{{"name":"{name}","len":{},"fnv1a64":"{:016x}"}}]}}"#, body.len(), fnv1a64(body))
}

fn parse(data: &[u8]) -> NnResult<(serde_json::Value, Sections)> {
    parse_container(Path::new(PATH), data, MODEL_MAGIC, "model")
}

/// The error of parsing `data` as a model file, without the path in front.
fn refusal(data: &[u8]) -> String {
    let e = parse(data).unwrap_err().to_string();
    e.strip_prefix("x/m.pzmodel: ").unwrap_or_else(|| panic!("the error names the file: {e}")).to_string()
}

fn spec() -> GameSpec {
    GameSpec::new("test", 8, 8, 4, 1, 50, &["first", "second"]).unwrap()
}

fn info(name: &str) -> ModelInfo {
    ModelInfo { name: name.into(), step: 12, samples_seen: 345, provenance: None }
}

#[test]
fn fnv1a64_gives_the_published_test_vectors() {
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
}

#[test]
fn sections_are_listed_with_their_length_and_checksum() {
    let s = sections_of(&[("a", b"a"), ("empty", b"")]);
    let got: Vec<(&str, u64, &str)> = s.iter().map(|s| (s.name.as_str(), s.len, s.fnv1a64.as_str())).collect();
    assert_eq!(got, [("a", 1, "af63dc4c8601ec8c"), ("empty", 0, "cbf29ce484222325")]);
}

#[test]
fn a_container_parses_back_into_its_header_and_sections() {
    let header = r#"{"sections":[{"name":"one","len":3,"fnv1a64":"bff4aa198026f420"},{"name":"two","len":1,"fnv1a64":"af63dc4c8601ec8c"}],"k":7}"#;
    let (h, sections) = parse(&container(MODEL_MAGIC, 1, header, b"xyza")).unwrap();
    assert_eq!(h["k"], 7);
    assert_eq!(sections, [("one".to_string(), b"xyz".to_vec()), ("two".to_string(), b"a".to_vec())]);
    // A header that exactly fills the file, with no sections.
    let (h, sections) = parse(&container(MODEL_MAGIC, 1, r#"{"sections":[]}"#, b"")).unwrap();
    assert_eq!((h["sections"].as_array().map(Vec::len), sections.len()), (Some(0), 0));
}

#[test]
fn a_file_too_short_for_the_fixed_header_is_refused_with_its_length() {
    let full = container(MODEL_MAGIC, 1, "", b"");
    assert_eq!(full.len(), 20);
    assert_eq!(refusal(&full[..19]), "not a PacoZero model file (only 19 bytes)");
    assert_eq!(refusal(&full[..10]), "not a PacoZero model file (only 10 bytes)");
    assert_eq!(refusal(b""), "not a PacoZero model file (only 0 bytes)");
    // 20 bytes pass on to the header, which is empty here.
    assert!(refusal(&full).starts_with("corrupt header: "), "{}", refusal(&full));
}

#[test]
fn bad_magic_bytes_are_refused_naming_what_the_file_is() {
    let body = header_of("model", b"");
    assert_eq!(refusal(&container(b"NOTAMODL", 1, &body, b"")), "not a PacoZero model file: bad magic bytes");
    assert_eq!(refusal(&container(CKPT_MAGIC, 1, &body, b"")), "not a PacoZero model file: bad magic bytes (it is a checkpoint file)");
    let model = container(MODEL_MAGIC, 1, &body, b"");
    let e = parse_container(Path::new(PATH), &model, CKPT_MAGIC, "checkpoint").unwrap_err().to_string();
    assert_eq!(e, "x/m.pzmodel: not a PacoZero checkpoint file: bad magic bytes (it is a model file)");
}

#[test]
fn another_format_version_is_refused() {
    let data = container(MODEL_MAGIC, 2, &header_of("model", b""), b"");
    assert_eq!(refusal(&data), "model format version 2 is not supported (this build reads version 1)");
}

#[test]
fn a_header_longer_than_the_file_is_refused() {
    let mut data = container(MODEL_MAGIC, 1, r#"{"sections":[]}"#, b"");
    // One byte too long: 15 bytes of header, 16 claimed.
    data[12..20].copy_from_slice(&16u64.to_le_bytes());
    assert_eq!(refusal(&data), "truncated model file: header of 16 bytes does not fit");
    data[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(refusal(&data).starts_with("truncated model file: header of "), "{}", refusal(&data));
}

#[test]
fn a_header_that_is_not_json_or_lists_no_sections_is_refused() {
    assert!(refusal(&container(MODEL_MAGIC, 1, "{not json", b"")).starts_with("corrupt header: "));
    let e = refusal(&container(MODEL_MAGIC, 1, r#"{"sections":5}"#, b""));
    assert!(e.starts_with("corrupt header (sections): "), "{e}");
    let e = refusal(&container(MODEL_MAGIC, 1, r#"{"kind":"x"}"#, b""));
    assert!(e.starts_with("corrupt header (sections): "), "{e}");
}

#[test]
fn a_truncated_corrupt_or_padded_section_is_refused_naming_it() {
    let header = header_of("model", b"0123456789");
    assert_eq!(refusal(&container(MODEL_MAGIC, 1, &header, b"012345678")), "truncated model file: section `model` needs 10 bytes");
    assert_eq!(refusal(&container(MODEL_MAGIC, 1, &header, b"0123456780")), "corrupt model file: checksum mismatch in section `model`");
    assert_eq!(refusal(&container(MODEL_MAGIC, 1, &header, b"0123456789abc")), "corrupt model file: 3 trailing bytes");
    parse(&container(MODEL_MAGIC, 1, &header, b"0123456789")).unwrap();
    // A length that overflows the file's offsets.
    let huge = format!(r#"{{"sections":[{{"name":"big","len":{},"fnv1a64":"0"}}]}}"#, u64::MAX);
    assert_eq!(refusal(&container(MODEL_MAGIC, 1, &huge, b"x")), format!("truncated model file: section `big` needs {} bytes", u64::MAX));
}

#[test]
fn an_untrained_model_is_written_with_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/u.pzmodel");
    let net = NetConfig::tiny_for(&spec());
    export_untrained(&net, "u", &path).unwrap();
    assert_eq!(read_model_header(&path).unwrap(), (net.clone(), ModelInfo { name: "u".into(), step: 0, samples_seen: 0, provenance: None }));
    let (_, n, _) = load_model(&path, &Device::flex(), Some(&net)).unwrap();
    assert_eq!(n, net);
}

#[test]
fn an_exported_model_loads_back_with_its_header_and_weights() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.pzmodel");
    let net = NetConfig::tiny_for(&spec());
    let model = net.init_seeded(&Device::flex(), 9).unwrap();
    let info = ModelInfo { provenance: Some(pacozero_data::Provenance::here("flex")), ..info("m") };
    export_model(&model, &net, &info, &path).unwrap();
    assert_eq!(&std::fs::read(&path).unwrap()[..8], b"PZMODEL\n");
    assert_eq!(read_model_header(&path).unwrap(), (net.clone(), info.clone()));
    let (loaded, n, i) = load_model(&path, &Device::flex(), Some(&net)).unwrap();
    assert_eq!((n, i), (net.clone(), info));
    // The same weights: the same outputs.
    let x = || burn::tensor::Tensor::<4>::ones([1, 5, 8, 8], &Device::flex());
    let policy = |m: &PacoNet| m.forward(x()).policy.into_data().try_to_vec::<f32>().unwrap();
    assert!(policy(&loaded) == policy(&model), "the loaded model computes another policy");
    let other = NetConfig { value_hidden: 33, ..net };
    let e = load_model(&path, &Device::flex(), Some(&other)).unwrap_err().to_string();
    assert!(e.contains("m.pzmodel: architecture mismatch: file has ") && e.contains(r#""value_hidden":32"#) && e.contains(r#""value_hidden":33"#), "{e}");
}

#[test]
fn a_model_file_without_a_model_section_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.pzmodel");
    let net = NetConfig::tiny_for(&spec());
    let header = ModelHeader { kind: "pacozero-model".into(), format_version: 1, net, info: info("m"), sections: sections_of(&[("weights", b"abc")]) };
    write_container(&path, MODEL_MAGIC, &serde_json::to_value(&header).unwrap(), &[("weights", b"abc")]).unwrap();
    let e = load_model(&path, &Device::flex(), None).err().unwrap().to_string();
    assert_eq!(e, format!("{}: no `model` section", path.display()));
}

#[test]
fn record_bytes_that_do_not_fit_the_header_are_refused() {
    let p = Path::new(PATH);
    let net = NetConfig::tiny_for(&spec());
    let bytes = record_bytes(&net.init_seeded(&Device::flex(), 1).unwrap()).unwrap();
    let bad = NetConfig { blocks: 0, ..net.clone() };
    let e = model_from_bytes(p, &bad, &Device::flex(), bytes.clone()).err().unwrap().to_string();
    assert_eq!(e, "x/m.pzmodel: bad architecture in header: invalid configuration: net.blocks = 0 is out of range 1..=64");
    let e = model_from_bytes(p, &net, &Device::flex(), b"garbage".to_vec()).err().unwrap().to_string();
    assert!(e.starts_with("x/m.pzmodel: header field `net` declares "), "{e}");
    let e = model_from_bytes(p, &net, &Device::flex(), vec![7; bytes.len()]).err().unwrap().to_string();
    assert!(e.starts_with("x/m.pzmodel: corrupt weights: "), "{e}");
    let e = model_from_bytes(p, &NetConfig { blocks: 2, ..net.clone() }, &Device::flex(), bytes.clone()).err().unwrap().to_string();
    assert!(e.starts_with("x/m.pzmodel: header field `net` declares "), "{e}");
    // A smaller network than the weights: each tensor's shape is checked.
    let e = model_from_bytes(p, &NetConfig { value_hidden: 16, ..net.clone() }, &Device::flex(), bytes.clone()).err().unwrap().to_string();
    assert!(e.starts_with("x/m.pzmodel: weights do not fit the architecture: ") && e.contains("value_fc.weight: shape mismatch"), "{e}");
    model_from_bytes(p, &net, &Device::flex(), bytes).unwrap();
}

#[test]
fn a_header_that_declares_more_weights_than_the_file_holds_is_refused_before_anything_is_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/reference/quick-edd488c-gen71.pzmodel");
    let data = std::fs::read(&reference).unwrap();
    // The largest policy layer the ranges allow: 1024 x 64 x 64 inputs by
    // 65536 slots, 2.7e11 weights (1.1 TB).
    let huge = with_net(&data, |net| {
        for (k, v) in [("policy_channels", 1024), ("height", 64), ("width", 64), ("policy_size", 65536)] {
            net[k] = v.into();
        }
    });
    let path = dir.path().join("huge.pzmodel");
    std::fs::write(&path, &huge).unwrap();
    // The container is whole: only the sizes tell.
    read_model_header(&path).unwrap();
    let e = load_model(&path, &Device::flex(), None).err().unwrap().to_string();
    assert!(e.starts_with(&format!("{}: header field `net` declares ", path.display())), "{e}");
    assert!(e.contains("the largest, `policy_fc.weight` [4194304, 65536], alone 1099511627776 bytes"), "{e}");
    assert!(e.ends_with("the header does not describe these weights"), "{e}");
    // So is a header that declares a value head some megabytes too large.
    let more = with_net(&data, |net| net["value_hidden"] = 4096.into());
    std::fs::write(&path, &more).unwrap();
    let e = load_model(&path, &Device::flex(), None).err().unwrap().to_string();
    assert!(e.contains("header field `net` declares "), "{e}");
    // The file as it is loads.
    std::fs::write(&path, &data).unwrap();
    load_model(&path, &Device::flex(), None).unwrap();
}

#[test]
fn models_live_in_the_runs_models_folder() {
    let run = Path::new("/r/run");
    assert_eq!(models_dir(run), Path::new("/r/run/models"));
    assert_eq!(model_path(run, "gen-0003"), Path::new("/r/run/models/gen-0003.pzmodel"));
}

#[test]
fn export_to_run_writes_the_model_and_points_current_at_it_when_asked() {
    let run = tempfile::tempdir().unwrap();
    let net = NetConfig::tiny_for(&spec());
    let model = net.init_seeded(&Device::flex(), 2).unwrap();
    let first = export_to_run(run.path(), &model, &net, &info("gen-1"), false).unwrap();
    assert_eq!(first, run.path().join("models/gen-1.pzmodel"));
    assert!(first.is_file());
    assert!(current_model(run.path()).is_err(), "not made current");
    let second = export_to_run(run.path(), &model, &net, &info("gen-2"), true).unwrap();
    assert_eq!(std::fs::read_to_string(run.path().join("models/current")).unwrap(), "gen-2.pzmodel\n");
    assert_eq!(current_model(run.path()).unwrap(), second);
    set_current_model(run.path(), "gen-1").unwrap();
    assert_eq!(current_model(run.path()).unwrap(), first);
}

#[test]
fn a_local_pointer_must_name_a_model_file_and_stay_small() {
    let run = tempfile::tempdir().unwrap();
    let ptr = run.path().join("models/current");
    std::fs::create_dir_all(ptr.parent().unwrap()).unwrap();
    for bad in ["../../x.pzmodel\n", "..\n", "a\\b.pzmodel", "gen-1.bin\n", ""] {
        std::fs::write(&ptr, bad).unwrap();
        let e = current_model(run.path()).unwrap_err().to_string();
        assert!(e.contains("bad pointer contents") && e.contains("expected the file name of a model"), "{bad:?}: {e}");
    }
    // A 1 GiB pointer (sparse) is refused after its first 4 KiB.
    std::fs::File::create(&ptr).unwrap().set_len(1 << 30).unwrap();
    let e = current_model(run.path()).unwrap_err().to_string();
    assert!(e.contains("a pointer of more than 4096 bytes"), "{e}");
}

#[test]
fn a_model_name_that_is_empty_a_path_or_hidden_is_refused() {
    let run = tempfile::tempdir().unwrap();
    let net = NetConfig::tiny_for(&spec());
    let model = net.init_seeded(&Device::flex(), 3).unwrap();
    for name in ["", "a/b", r"a\b", ".hidden", "/abs"] {
        let e = export_to_run(run.path(), &model, &net, &info(name), true).unwrap_err().to_string();
        assert_eq!(e, format!("invalid configuration: bad model name {name:?}"));
    }
    assert!(!run.path().join("models").exists(), "nothing written");
}

#[test]
fn current_cannot_point_at_a_missing_model() {
    let run = tempfile::tempdir().unwrap();
    let e = set_current_model(run.path(), "gen-9").unwrap_err().to_string();
    assert_eq!(e, format!("{}: cannot point `current` at a missing model", run.path().join("models/gen-9.pzmodel").display()));
    assert!(!run.path().join("models/current").exists());
}

#[test]
fn a_current_pointer_that_is_empty_or_a_path_is_refused() {
    let run = tempfile::tempdir().unwrap();
    let ptr = run.path().join("models/current");
    let e = current_model(run.path()).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}: I/O error: ", ptr.display())), "{e}");
    std::fs::create_dir_all(run.path().join("models")).unwrap();
    for (text, shown) in [("\n", r#""""#), ("../x.pzmodel\n", r#""../x.pzmodel""#), ("a/b", r#""a/b""#)] {
        std::fs::write(&ptr, text).unwrap();
        let e = current_model(run.path()).unwrap_err().to_string();
        assert_eq!(e, format!("{}: bad pointer contents {shown} (expected the file name of a model)", ptr.display()));
    }
    // Surrounding white space is not part of the name.
    std::fs::write(&ptr, "  gen-4.pzmodel \n").unwrap();
    assert_eq!(current_model(run.path()).unwrap(), run.path().join("models/gen-4.pzmodel"));
}
