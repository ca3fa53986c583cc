//! The checks that the fuzz targets of `fuzz/` run on each input (`model`),
//! kept here so that `cargo test` replays the committed corpus through the
//! same code (`run/tests/fuzz_corpus.rs`). Not an API: each function panics
//! when the reader breaks one of its promises.

use std::path::Path;

use crate::modelfile::{fnv1a64, model_bytes, model_of_bytes, parse_container, record_bytes, MODEL_FORMAT_VERSION, MODEL_MAGIC};

/// The name the inputs are read under: every error must name it.
const INPUT: &str = "fuzz-input.pzmodel";

/// Any bytes as a model file. The loader refuses them with an error naming
/// the file, or returns a network whose architecture passes its own check
/// and which writes back to a file that loads as the same network. The same
/// bytes [`resealed`] go through the same check: a checksum that does not
/// match stops nearly every change of a fuzzer before the header's shapes
/// or the weights are read, and those are what a hostile file edits.
///
/// Returns whether the loader took the bytes as they are.
pub fn model_file(data: &[u8]) -> bool {
    let read = check_model(data);
    if let Some(sealed) = resealed(data, MODEL_MAGIC) {
        check_model(&sealed);
    }
    read
}

fn check_model(data: &[u8]) -> bool {
    let path = Path::new(INPUT);
    let device = crate::default_device();
    let (model, net, info) = match model_of_bytes(path, data, &device, None) {
        Ok(loaded) => loaded,
        Err(e) => {
            assert_names_input(&e.to_string());
            return false;
        }
    };
    net.validate().unwrap_or_else(|e| panic!("a loaded model's architecture fails its own check: {e}"));
    let written = model_bytes(&model, &net, &info).unwrap_or_else(|e| panic!("a loaded model cannot be written: {e}"));
    let (again, net_again, info_again) =
        model_of_bytes(path, &written, &device, Some(&net)).unwrap_or_else(|e| panic!("a model written from a loaded one does not load: {e}"));
    assert_eq!((&net_again, &info_again), (&net, &info), "a model's header changed through writing and reading");
    record_bytes(&model).expect("the loaded weights serialise");
    assert!(weights_of(&again) == weights_of(&model), "a model's weights changed through writing and reading");
    true
}

/// Every float tensor of `model` (parameters and batch-norm statistics), as
/// bytes, in visiting order. (Records are not compared: two loads of the
/// same file give records of different bytes.)
pub fn weights_of(model: &crate::PacoNet) -> Vec<Vec<u8>> {
    use burn::module::Module;
    struct Weights(Vec<Vec<u8>>);
    impl burn::module::ModuleVisitor for Weights {
        fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<burn::tensor::Tensor<D>>) {
            self.0.push(param.val().into_data().as_bytes().to_vec());
        }
    }
    let mut w = Weights(Vec::new());
    model.visit(&mut w);
    w.0
}

/// Panics unless an error message names the input file.
pub fn assert_names_input(message: &str) {
    assert!(message.contains("fuzz-input."), "an error that does not name the file: {message}");
}

/// `data`, a model file, with its header's `net` changed by `edit`: the
/// header has no checksum and the sections keep theirs, so only the sizes
/// the header declares tell (the hostile file of issue 61's tests).
pub fn with_net(data: &[u8], edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let hlen = u64::from_le_bytes(data[12..20].try_into().expect("a model file's header length")) as usize;
    let mut header: serde_json::Value = serde_json::from_slice(&data[20..20 + hlen]).expect("a model file's JSON header");
    edit(&mut header["net"]);
    let header = serde_json::to_vec(&header).expect("JSON");
    let mut out = data[..12].to_vec();
    out.extend((header.len() as u64).to_le_bytes());
    out.extend(header);
    out.extend(&data[20 + hlen..]);
    out
}

/// `data` made into a container that passes the container's own checks:
/// the magic `magic`, the current version, and each section that the
/// header lists given the length and checksum of the bytes that are there
/// for it (cut at the end of the data; bytes after the last section are
/// dropped). `None` when the header is not JSON with a `sections` list.
pub fn resealed(data: &[u8], magic: &[u8; 8]) -> Option<Vec<u8>> {
    let declared = u64::from_le_bytes(data.get(12..20)?.try_into().ok()?);
    let header_len = usize::try_from(declared).ok()?.min(data.len() - 20);
    let mut header: serde_json::Value = serde_json::from_slice(&data[20..20 + header_len]).ok()?;
    let mut body = &data[20 + header_len..];
    let mut sections = Vec::new();
    for section in header.get_mut("sections")?.as_array_mut()? {
        let section = section.as_object_mut()?;
        let len = section.get("len").and_then(serde_json::Value::as_u64).unwrap_or(0).min(body.len() as u64) as usize;
        let (bytes, rest) = body.split_at(len);
        section.insert("len".into(), len.into());
        section.insert("fnv1a64".into(), format!("{:016x}", fnv1a64(bytes)).into());
        sections.push(bytes);
        body = rest;
    }
    let header = serde_json::to_vec(&header).ok()?;
    let mut out = magic.to_vec();
    out.extend(MODEL_FORMAT_VERSION.to_le_bytes());
    out.extend((header.len() as u64).to_le_bytes());
    out.extend(header);
    sections.iter().for_each(|s| out.extend_from_slice(s));
    debug_assert!(parse_container(Path::new(INPUT), &out, magic, "resealed").is_ok(), "a resealed container is valid");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resealing_repairs_the_checksums_of_an_edited_section() {
        let body = b"weights!";
        let header = format!(r#"{{"sections":[{{"name":"model","len":{},"fnv1a64":"0000000000000000"}}]}}"#, body.len());
        let mut data = MODEL_MAGIC.to_vec();
        data.extend(7u32.to_le_bytes());
        data.extend((header.len() as u64).to_le_bytes());
        data.extend(header.as_bytes());
        data.extend(body);
        data.extend(b"trailing");
        assert!(parse_container(Path::new(INPUT), &data, MODEL_MAGIC, "model").is_err());
        let sealed = resealed(&data, MODEL_MAGIC).expect("the header is JSON with sections");
        let (_, sections) = parse_container(Path::new(INPUT), &sealed, MODEL_MAGIC, "model").expect("resealed bytes are a valid container");
        assert_eq!(sections, vec![("model".to_string(), body.to_vec())]);
    }

    #[test]
    fn a_section_longer_than_the_data_is_cut_to_it() {
        let header = r#"{"sections":[{"name":"model","len":999}]}"#;
        let mut data = MODEL_MAGIC.to_vec();
        data.extend(1u32.to_le_bytes());
        data.extend((header.len() as u64).to_le_bytes());
        data.extend(header.as_bytes());
        data.extend(b"abc");
        let sealed = resealed(&data, MODEL_MAGIC).unwrap();
        let (_, sections) = parse_container(Path::new(INPUT), &sealed, MODEL_MAGIC, "model").unwrap();
        assert_eq!(sections[0].1, b"abc");
    }

    #[test]
    fn an_untrained_model_passes_the_check_and_garbage_is_refused_naming_the_file() {
        let spec = pacozero_data::GameSpec::new("test", 8, 8, 4, 1, 50, &["first", "second"]).unwrap();
        let net = crate::NetConfig::tiny_for(&spec);
        let model = net.init(&crate::default_device()).unwrap();
        let bytes = model_bytes(&model, &net, &crate::ModelInfo::untrained("m")).unwrap();
        assert!(model_file(&bytes));
        assert!(!model_file(b"PZMODEL\n\x01\0\0\0garbage"));
        let e = model_of_bytes(Path::new(INPUT), b"not a model", &crate::default_device(), None).unwrap_err();
        assert_names_input(&e.to_string());
    }
}
