//! Model files for workers and the `current` pointer of a run.
//!
//! ## File layout (`*.pzmodel`, also used for checkpoints with another magic)
//!
//! ```text
//! magic        8 bytes   b"PZMODEL\n" (model) or b"PZCKPT\n\0" (checkpoint)
//! version      u32 LE    container format version (currently 1)
//! header_len   u64 LE
//! header       JSON      {"kind", "format_version", "net": NetConfig, "sections": [{name,len,fnv1a64}], ...}
//! sections     bytes     concatenated; section "model" is a burnpack ModuleRecord
//! ```
//!
//! Every section carries its length and an FNV-1a 64-bit checksum, so a
//! truncated or corrupt file gives an error naming the file instead of a
//! panic, and a file of another architecture is refused before any tensor is
//! touched. Writes are atomic: `<file>.tmp`, fsync, rename.
//!
//! The container functions ([`write_container`], [`read_container`],
//! [`record_bytes`], [`model_from_bytes`]) are public for the trainer's
//! checkpoints (`pacozero_train`).

use std::fs;
use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::{Bytes, Device};
use serde::{Deserialize, Serialize};

use pacozero_data::RunDir;

use crate::error::{io_err, NnError, NnResult};
use crate::model::{NetConfig, PacoNet};

/// Container format version written by this build.
pub const MODEL_FORMAT_VERSION: u32 = 1;
/// Extension of exported model files.
pub use pacozero_data::run_dir::MODEL_EXT;
/// Magic of model files.
pub const MODEL_MAGIC: &[u8; 8] = b"PZMODEL\n";
/// Magic of the trainer's checkpoints (`pacozero_train`); known here so that
/// a checkpoint given as a model (or the reverse) is named in the error.
pub const CKPT_MAGIC: &[u8; 8] = b"PZCKPT\n\0";

/// Metadata stored in (and returned from) a model file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Model name, e.g. `"gen-0003"`.
    pub name: String,
    /// Training step at export.
    pub step: u64,
    /// Training samples seen at export.
    pub samples_seen: u64,
    /// What exported it (absent in files of earlier builds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<pacozero_data::Provenance>,
}

impl ModelInfo {
    /// The metadata of a network that has not trained: step 0, no samples,
    /// no provenance.
    pub fn untrained(name: &str) -> ModelInfo {
        ModelInfo { name: name.into(), step: 0, samples_seen: 0, provenance: None }
    }
}

/// One section's entry in a container header: name, length, checksum.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Section {
    pub name: String,
    pub len: u64,
    pub fnv1a64: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct ModelHeader {
    kind: String,
    format_version: u32,
    net: NetConfig,
    info: ModelInfo,
    sections: Vec<Section>,
}

/// FNV-1a, 64 bits: the checksum of a container's sections.
pub fn fnv1a64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Header entries of `parts` (name, bytes), in order.
pub fn sections_of(parts: &[(&str, &[u8])]) -> Vec<Section> {
    parts.iter().map(|(n, d)| Section { name: n.to_string(), len: d.len() as u64, fnv1a64: format!("{:016x}", fnv1a64(d)) }).collect()
}

/// Write a container: magic, version, JSON header, sections.
pub fn write_container(path: &Path, magic: &[u8; 8], header: &serde_json::Value, parts: &[(&str, &[u8])]) -> NnResult<()> {
    let head = container_head(magic, header)?;
    let mut chunks: Vec<&[u8]> = vec![&head];
    chunks.extend(parts.iter().map(|(_, d)| *d));
    Ok(pacozero_data::write_atomic(path, &chunks)?)
}

/// A container's bytes before its sections: magic, version, the header's
/// length and the header.
fn container_head(magic: &[u8; 8], header: &serde_json::Value) -> NnResult<Vec<u8>> {
    let header = serde_json::to_vec(header).map_err(|e| NnError::Other(e.to_string()))?;
    let mut head = magic.to_vec();
    head.extend(MODEL_FORMAT_VERSION.to_le_bytes());
    head.extend((header.len() as u64).to_le_bytes());
    head.extend(header);
    Ok(head)
}

/// The bytes [`write_container`] writes, in memory.
pub fn container_bytes(magic: &[u8; 8], header: &serde_json::Value, parts: &[(&str, &[u8])]) -> NnResult<Vec<u8>> {
    let mut out = container_head(magic, header)?;
    for (_, d) in parts {
        out.extend_from_slice(d);
    }
    Ok(out)
}

/// A container's named sections, in file order.
pub type Sections = Vec<(String, Vec<u8>)>;

/// Read a container; returns the JSON header and the sections (verified).
pub fn read_container(path: &Path, magic: &[u8; 8], what: &str) -> NnResult<(serde_json::Value, Sections)> {
    let data = fs::read(path).map_err(io_err(path))?;
    parse_container(path, &data, magic, what)
}

/// Parse and verify the bytes of a container; errors name `path`.
pub fn parse_container(path: &Path, data: &[u8], magic: &[u8; 8], what: &str) -> NnResult<(serde_json::Value, Sections)> {
    let bad = |m: String| NnError::ModelFile { path: path.to_path_buf(), message: m };
    if data.len() < 20 {
        return Err(bad(format!("not a PacoZero {what} file (only {} bytes)", data.len())));
    }
    if &data[..8] != magic {
        let other = if &data[..8] == MODEL_MAGIC {
            " (it is a model file)"
        } else if &data[..8] == CKPT_MAGIC {
            " (it is a checkpoint file)"
        } else {
            ""
        };
        return Err(bad(format!("not a PacoZero {what} file: bad magic bytes{other}")));
    }
    let version = u32::from_le_bytes(data[8..12].try_into().unwrap());
    if version != MODEL_FORMAT_VERSION {
        return Err(bad(format!("{what} format version {version} is not supported (this build reads version {MODEL_FORMAT_VERSION})")));
    }
    let hlen = u64::from_le_bytes(data[12..20].try_into().unwrap()) as usize;
    if hlen > data.len() - 20 {
        return Err(bad(format!("truncated {what} file: header of {hlen} bytes does not fit")));
    }
    let header: serde_json::Value = serde_json::from_slice(&data[20..20 + hlen]).map_err(|e| bad(format!("corrupt header: {e}")))?;
    let sections: Vec<Section> =
        serde_json::from_value(header.get("sections").cloned().unwrap_or_default()).map_err(|e| bad(format!("corrupt header (sections): {e}")))?;
    let mut pos = 20 + hlen;
    let mut out = Vec::new();
    for s in sections {
        let end = pos.checked_add(s.len as usize).filter(|&e| e <= data.len());
        let Some(end) = end else {
            return Err(bad(format!("truncated {what} file: section `{}` needs {} bytes", s.name, s.len)));
        };
        let body = &data[pos..end];
        let sum = format!("{:016x}", fnv1a64(body));
        if sum != s.fnv1a64 {
            return Err(bad(format!("corrupt {what} file: checksum mismatch in section `{}`", s.name)));
        }
        out.push((s.name, body.to_vec()));
        pos = end;
    }
    if pos != data.len() {
        return Err(bad(format!("corrupt {what} file: {} trailing bytes", data.len() - pos)));
    }
    Ok((header, out))
}

/// The burnpack record of `model`, as bytes (the `model` section).
pub fn record_bytes(model: &PacoNet) -> NnResult<Vec<u8>> {
    let bytes = model.clone().into_record().into_bytes().map_err(|e| NnError::Other(format!("cannot serialise the model: {e}")))?;
    Ok(bytes.to_vec())
}

/// Bytes of one weight: model files and checkpoints hold f32 tensors.
const WEIGHT_BYTES: u64 = 4;

/// The tensors of a network's record (its parameters and its batch norms'
/// running statistics) as their shapes declare them, read from a network
/// whose parameters are not drawn: nothing is allocated for them.
#[derive(Debug, Default)]
struct DeclaredWeights {
    /// The module path being visited.
    path: Vec<String>,
    /// Elements of every tensor (saturating: a header may declare anything).
    elements: u64,
    /// The largest tensor: its path, shape and elements.
    largest: (String, Vec<usize>, u64),
}

impl DeclaredWeights {
    fn of(model: &PacoNet) -> DeclaredWeights {
        let mut w = DeclaredWeights::default();
        model.visit(&mut w);
        w
    }
}

impl burn::module::ModuleVisitor for DeclaredWeights {
    fn enter_module(&mut self, name: &str, _container_type: &str) {
        self.path.push(name.to_string());
    }

    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        self.path.pop();
    }

    fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<burn::tensor::Tensor<D>>) {
        let shape = param.lazy_shape();
        let n = shape.as_slice().iter().fold(1u64, |a, &d| a.saturating_mul(d as u64));
        self.elements = self.elements.saturating_add(n);
        if n > self.largest.2 {
            self.largest = (self.path.join("."), shape.as_slice().to_vec(), n);
        }
    }
}

/// What a burnpack record must hold before burn loads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordKind {
    /// A network's weights: `f32` tensors.
    Weights,
    /// An optimizer's state: `f32` tensors, each with the id of its parameter.
    OptimizerState,
}

/// Checks the tensors a burnpack record declares before burn loads them:
/// burn 0.22 panics on a float parameter stored as another dtype
/// (`Expected float dtype`) and on an optimizer tensor without a parameter
/// id, where a file's bytes should get an error (issue 61: both found by
/// the fuzz targets of `fuzz/`). Reads only the record's table of tensors.
pub fn check_record(bytes: &[u8], kind: RecordKind) -> Result<(), String> {
    let reader = burn_pack::Reader::from_bytes(burn_pack::Bytes::from_bytes_vec(bytes.to_vec())).map_err(|e| e.to_string())?;
    // An optimizer state's tensors are rebuilt at their parameter's rank
    // (the `<id>.__rank` scalar, else the rank of the first tensor carrying
    // that id), each found by its name, `<id>.<field>`. burn-optim panics on
    // a tensor of another rank (`Given dimensions differ from the tensor
    // rank`, found by the `checkpoint` fuzz target).
    let mut ranks: std::collections::BTreeMap<u64, usize> =
        reader.scalars().iter().filter_map(|(name, value)| Some((name.strip_suffix(".__rank")?.parse::<u64>().ok()?, usize::try_from(*value).ok()?))).collect();
    let mut named = Vec::new();
    for t in reader.into_tensors().map_err(|e| e.to_string())? {
        if t.dtype != burn_pack::DType::F32 {
            return Err(format!("tensor `{}` is {:?}, not f32", t.name, t.dtype));
        }
        if kind == RecordKind::OptimizerState {
            let Some(id) = t.param_id else { return Err(format!("optimizer tensor `{}` names no parameter", t.name)) };
            let rank = t.shape.as_slice().len();
            ranks.entry(id).or_insert(rank);
            named.push((t.name, rank));
        }
    }
    for (name, rank) in named {
        let id = name.split('.').next().and_then(|p| p.parse::<u64>().ok());
        if let Some(want) = id.and_then(|id| ranks.get(&id)) {
            if rank != *want {
                return Err(format!("optimizer tensor `{name}` has rank {rank}, but its parameter's state has rank {want}"));
            }
        }
    }
    Ok(())
}

/// Build a network of `net` on `device` and load record bytes into it.
///
/// The header is not trusted to size anything: the shapes `net` declares
/// must fit in `bytes` (every weight is 4 bytes) before anything is
/// allocated, and the network is built with its parameters undrawn, so
/// that loading allocates only what the record holds. The loader then
/// checks every tensor's shape, and that no tensor is missing or left over.
pub fn model_from_bytes(path: &Path, net: &NetConfig, device: &Device, bytes: Vec<u8>) -> NnResult<PacoNet> {
    let bad = |m: String| NnError::ModelFile { path: path.to_path_buf(), message: m };
    net.validate().map_err(|e| bad(format!("bad architecture in header: {e}")))?;
    let model = net.undrawn(device)?;
    let declared = DeclaredWeights::of(&model);
    let need = declared.elements.saturating_mul(WEIGHT_BYTES);
    if need > bytes.len() as u64 {
        let (name, shape, n) = &declared.largest;
        return Err(bad(format!(
            "header field `net` declares {} weights ({need} bytes; the largest, `{name}` {shape:?}, alone {} bytes), but the weights are {} bytes: \
             the header does not describe these weights",
            declared.elements,
            n.saturating_mul(WEIGHT_BYTES),
            bytes.len()
        )));
    }
    check_record(&bytes, RecordKind::Weights).map_err(|e| bad(format!("corrupt weights: {e}")))?;
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes)).map_err(|e| bad(format!("corrupt weights: {e}")))?;
    model.try_load_record(record).map_err(|e| bad(format!("weights do not fit the architecture: {e}")))
}

/// Export `model` (architecture `net`) to `path` atomically.
///
/// The model is stored in inference mode; batch-norm running statistics are included.
pub fn export_model(model: &PacoNet, net: &NetConfig, info: &ModelInfo, path: &Path) -> NnResult<()> {
    Ok(pacozero_data::write_atomic(path, &[&model_bytes(model, net, info)?])?)
}

/// The bytes of the model file [`export_model`] writes.
pub fn model_bytes(model: &PacoNet, net: &NetConfig, info: &ModelInfo) -> NnResult<Vec<u8>> {
    let weights = record_bytes(&model.valid())?;
    let header = ModelHeader {
        kind: "pacozero-model".into(),
        format_version: MODEL_FORMAT_VERSION,
        net: net.clone(),
        info: info.clone(),
        sections: sections_of(&[("model", &weights)]),
    };
    let header = serde_json::to_value(&header).map_err(|e| NnError::Other(e.to_string()))?;
    container_bytes(MODEL_MAGIC, &header, &[("model", &weights)])
}

/// Read only the architecture and info of a model file (verifies checksums).
pub fn read_model_header(path: &Path) -> NnResult<(NetConfig, ModelInfo)> {
    let data = fs::read(path).map_err(io_err(path))?;
    model_header_of(path, &data)
}

/// The architecture and info of a model held in memory (checksums verified),
/// e.g. one downloaded before it is written to `path`, which errors name.
pub fn model_header_of(path: &Path, data: &[u8]) -> NnResult<(NetConfig, ModelInfo)> {
    let (header, _) = parse_container(path, data, MODEL_MAGIC, "model")?;
    let h: ModelHeader =
        serde_json::from_value(header).map_err(|e| NnError::ModelFile { path: path.to_path_buf(), message: format!("corrupt header: {e}") })?;
    Ok((h.net, h.info))
}

/// Load a model file on `device`.
///
/// With `expected = Some(net)`, a file of another architecture is refused with an
/// error naming the file and both architectures.
pub fn load_model(path: &Path, device: &Device, expected: Option<&NetConfig>) -> NnResult<(PacoNet, NetConfig, ModelInfo)> {
    let data = fs::read(path).map_err(io_err(path))?;
    model_of_bytes(path, &data, device, expected)
}

/// [`load_model`] of a model file's bytes held in memory; errors name `path`.
pub fn model_of_bytes(path: &Path, data: &[u8], device: &Device, expected: Option<&NetConfig>) -> NnResult<(PacoNet, NetConfig, ModelInfo)> {
    let (header, mut sections) = parse_container(path, data, MODEL_MAGIC, "model")?;
    let bad = |m: String| NnError::ModelFile { path: path.to_path_buf(), message: m };
    let h: ModelHeader = serde_json::from_value(header).map_err(|e| bad(format!("corrupt header: {e}")))?;
    if let Some(exp) = expected {
        if *exp != h.net {
            return Err(bad(format!(
                "architecture mismatch: file has {}, expected {}",
                serde_json::to_string(&h.net).unwrap_or_default(),
                serde_json::to_string(exp).unwrap_or_default()
            )));
        }
    }
    let idx = sections.iter().position(|(n, _)| n == "model").ok_or_else(|| bad("no `model` section".into()))?;
    let bytes = sections.swap_remove(idx).1;
    let model = model_from_bytes(path, &h.net, device, bytes)?;
    Ok((model, h.net, h.info))
}

/// `<run>/models`.
pub fn models_dir(run_dir: &Path) -> PathBuf {
    RunDir::new(run_dir).models()
}

/// Path of model `name` in a run: `<run>/models/<name>.pzmodel`.
pub fn model_path(run_dir: &Path, name: &str) -> PathBuf {
    RunDir::new(run_dir).model(name)
}

/// Write a freshly initialised (untrained) network of architecture `net` as
/// the model `name` at `path`, creating `path`'s directory: some network of
/// a game, for tests and tools that need one before any training.
pub fn export_untrained(net: &NetConfig, name: &str, path: &Path) -> NnResult<()> {
    let model = net.init(&crate::default_device())?;
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(io_err(dir))?;
    }
    export_model(&model, net, &ModelInfo::untrained(name), path)
}

/// Atomically point `<run>/models/current` at model `name` (the file holds the
/// file name, e.g. `gen-0003.pzmodel`, and a newline).
pub fn set_current_model(run_dir: &Path, name: &str) -> NnResult<()> {
    let target = model_path(run_dir, name);
    if !target.is_file() {
        return Err(NnError::ModelFile { path: target, message: "cannot point `current` at a missing model".into() });
    }
    let line = format!("{}\n", RunDir::model_file(name));
    Ok(pacozero_data::write_atomic(&RunDir::new(run_dir).current_pointer(), &[line.as_bytes()])?)
}

/// The model `<run>/models/current` points at.
pub fn current_model(run_dir: &Path) -> NnResult<PathBuf> {
    use std::io::Read;
    let ptr = RunDir::new(run_dir).current_pointer();
    let bad = |message: String| NnError::ModelFile { path: ptr.clone(), message };
    // Read no more than a pointer may hold, and one byte to tell it is longer.
    let mut bytes = Vec::new();
    fs::File::open(&ptr).and_then(|f| f.take(RunDir::POINTER_MAX_BYTES + 1).read_to_end(&mut bytes)).map_err(io_err(&ptr))?;
    if bytes.len() as u64 > RunDir::POINTER_MAX_BYTES {
        return Err(bad(format!("a pointer of more than {} bytes; it names one model file", RunDir::POINTER_MAX_BYTES)));
    }
    let text = String::from_utf8_lossy(&bytes);
    let name = RunDir::pointer_model(&text).ok_or_else(|| bad(format!("bad pointer contents {:?} (expected the file name of a model)", text.trim())))?;
    Ok(models_dir(run_dir).join(RunDir::model_file(name)))
}

/// Export into a run (`<run>/models/<name>.pzmodel`) and make it `current`.
pub fn export_to_run(run_dir: &Path, model: &PacoNet, net: &NetConfig, info: &ModelInfo, make_current: bool) -> NnResult<PathBuf> {
    if info.name.is_empty() || info.name.contains(['/', '\\']) || info.name.starts_with('.') {
        return Err(NnError::Config(format!("bad model name {:?}", info.name)));
    }
    let path = model_path(run_dir, &info.name);
    export_model(model, net, info, &path)?;
    if make_current {
        set_current_model(run_dir, &info.name)?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
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
}
