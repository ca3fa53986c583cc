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
mod tests;
