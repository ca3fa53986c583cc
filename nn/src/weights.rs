//! The weights of a [`PacoNet`] read by name, batch norms folded into the
//! convolutions before them: what [`crate::FastNet`] and the ONNX export
//! ([`crate::onnx`]) are built from, so both fold the same way.
//!
//! A batch norm in inference mode is `bn(x) = x * scale + shift` per channel
//! (`scale = gamma / sqrt(running_var + eps)`, `shift = beta - running_mean *
//! scale`); after a convolution without bias it becomes the convolution with
//! each output channel's weights multiplied by `scale` and `shift` as its bias.

use std::collections::HashMap;

use burn::module::{Module, ModuleVisitor, Param};
use burn::prelude::*;

use crate::error::{NnError, NnResult};
use crate::model::PacoNet;

/// Epsilon of every batch norm of [`PacoNet`] (`BatchNormConfig`'s default,
/// which model.rs uses; burn does not expose it as a tensor to visit).
const BN_EPSILON: f64 = 1e-5;

/// A fully connected layer (or a convolution as an im2col product):
/// `out[m, n] = sum_k in[m, k] * w[k, n] + b[n]`.
#[derive(Clone, Debug)]
pub(crate) struct Dense {
    pub k: usize,
    pub n: usize,
    /// `[k, n]` row-major.
    pub w: Vec<f32>,
    /// `[n]`.
    pub b: Vec<f32>,
}

/// A convolution with its batch norm folded in.
#[derive(Clone, Debug)]
pub(crate) struct FoldedConv {
    pub cin: usize,
    pub cout: usize,
    pub kernel: usize,
    /// `[cout, cin, kernel, kernel]` row-major (burn's and ONNX's layout).
    pub w: Vec<f32>,
    /// `[cout]`.
    pub b: Vec<f32>,
}

/// Collects every float tensor of a module by its dotted path.
struct Collector {
    path: Vec<String>,
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
}

impl ModuleVisitor for Collector {
    fn enter_module(&mut self, name: &str, _container_type: &str) {
        self.path.push(name.to_string());
    }

    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        self.path.pop();
    }

    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        // Parameters are visited as leaves: their own name is the last entered module.
        let t = param.val();
        let shape = t.dims().to_vec();
        // An unreadable tensor becomes empty and fails the shape check in `Weights::get`.
        let values = t.into_data().try_into_vec_as::<f32>().unwrap_or_default();
        self.tensors.insert(self.path.join("."), (shape, values));
    }
}

/// A model's tensors by path, looked up with shape checks.
pub(crate) struct Weights {
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
}

impl Weights {
    /// Every float tensor of `model` (batch norms read in inference mode:
    /// their running statistics).
    pub fn of(model: &PacoNet) -> Self {
        let mut col = Collector { path: Vec::new(), tensors: HashMap::new() };
        model.visit(&mut col);
        Weights { tensors: col.tensors }
    }

    /// Whether the model has a tensor at `path`.
    pub fn has(&self, path: &str) -> bool {
        self.tensors.contains_key(path)
    }

    fn get(&self, path: &str, shape: &[usize]) -> NnResult<&[f32]> {
        let (s, v) = self.tensors.get(path).ok_or_else(|| {
            let mut names: Vec<&String> = self.tensors.keys().collect();
            names.sort();
            NnError::Other(format!("parameter `{path}` not found (have {names:?})"))
        })?;
        if s != shape || v.len() != shape.iter().product::<usize>() {
            return Err(NnError::Other(format!("parameter `{path}` has shape {s:?}, expected {shape:?}")));
        }
        Ok(v)
    }

    /// Per-channel `(scale, shift)` of the batch norm at `path` in inference mode:
    /// `bn(x) = x * scale + shift`.
    fn bn(&self, path: &str, c: usize) -> NnResult<(Vec<f32>, Vec<f32>)> {
        let gamma = self.get(&format!("{path}.gamma"), &[c])?;
        let beta = self.get(&format!("{path}.beta"), &[c])?;
        let mean = self.get(&format!("{path}.running_mean"), &[c])?;
        let var = self.get(&format!("{path}.running_var"), &[c])?;
        let mut scale = vec![0.0; c];
        let mut shift = vec![0.0; c];
        for i in 0..c {
            // f64 for the fold so it adds no rounding beyond burn's own.
            let s = gamma[i] as f64 / (var[i] as f64 + BN_EPSILON).sqrt();
            scale[i] = s as f32;
            shift[i] = (beta[i] as f64 - mean[i] as f64 * s) as f32;
        }
        Ok((scale, shift))
    }

    /// The ConvBn at `path` (`{path}.conv`, `{path}.bn`), `kernel` 1 or 3,
    /// with the batch norm folded in.
    pub fn conv_bn(&self, path: &str, cin: usize, cout: usize, kernel: usize) -> NnResult<FoldedConv> {
        let kk = kernel * kernel;
        let w = self.get(&format!("{path}.conv.weight"), &[cout, cin, kernel, kernel])?; // [Cout, Cin, k, k]
        let (scale, shift) = self.bn(&format!("{path}.bn"), cout)?;
        let mut out = w.to_vec();
        for (co, rows) in out.chunks_exact_mut(cin * kk).enumerate() {
            rows.iter_mut().for_each(|v| *v *= scale[co]);
        }
        Ok(FoldedConv { cin, cout, kernel, w: out, b: shift })
    }

    /// A burn `Linear` (`weight: [in, out]`, `bias: [out]`; no bias reads as zeros).
    pub fn linear(&self, path: &str, k: usize, n: usize) -> NnResult<Dense> {
        let w = self.get(&format!("{path}.weight"), &[k, n])?.to_vec(); // [in, out]
        let b = match self.tensors.get(&format!("{path}.bias")) {
            Some(_) => self.get(&format!("{path}.bias"), &[n])?.to_vec(),
            None => vec![0.0; n],
        };
        Ok(Dense { k, n, w, b })
    }
}
