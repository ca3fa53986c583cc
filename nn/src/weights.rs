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

    /// A convolution with its bias and no batch norm (`{path}.weight`,
    /// `{path}.bias`), as a [`FoldedConv`].
    pub fn conv(&self, path: &str, cin: usize, cout: usize, kernel: usize) -> NnResult<FoldedConv> {
        let w = self.get(&format!("{path}.weight"), &[cout, cin, kernel, kernel])?.to_vec(); // [Cout, Cin, k, k]
        let b = self.get(&format!("{path}.bias"), &[cout])?.to_vec();
        Ok(FoldedConv { cin, cout, kernel, w, b })
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

#[cfg(test)]
mod tests {
    use burn::module::ModuleMapper;
    use burn::tensor::TensorData;
    use pacozero_data::GameSpec;

    use super::*;
    use crate::model::NetConfig;

    /// Sets the parameters at the given dotted paths to the given values.
    struct Set<'a>(Vec<String>, &'a [(&'a str, Vec<f32>)]);

    impl ModuleMapper for Set<'_> {
        fn enter_module(&mut self, name: &str, _: &str) {
            self.0.push(name.into());
        }
        fn exit_module(&mut self, _: &str, _: &str) {
            self.0.pop();
        }
        fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
            let path = self.0.join(".");
            match self.1.iter().find(|(p, _)| *p == path) {
                Some((_, values)) => param.map(|t| {
                    let (dims, device) = (t.dims(), t.device());
                    Tensor::<D>::from_data(TensorData::new(values.clone(), dims), &device)
                }),
                None => param,
            }
        }
    }

    /// 1 bit plane + 1 scalar on 2x2, 4 channels, no SE, 3 policy channels.
    fn net() -> NetConfig {
        let spec = GameSpec::new("test", 2, 2, 1, 1, 5, &["a", "b"]).unwrap();
        NetConfig { blocks: 2, channels: 4, se_ratio: 0, policy_channels: 3, value_channels: 2, value_hidden: 6, ..NetConfig::tiny_for(&spec) }
    }

    /// `0.01, 0.02, ...`: `n` distinct weights.
    fn ramp(n: usize) -> Vec<f32> {
        (1..=n).map(|i| 0.01 * i as f32).collect()
    }

    fn close(a: f32, b: f64) -> bool {
        (a as f64 - b).abs() <= 1e-6 * (1.0 + b.abs())
    }

    #[test]
    fn every_parameter_is_found_by_its_dotted_path() {
        let model = net().init_seeded(&Device::flex(), 1).unwrap();
        let wt = Weights::of(&model);
        for path in ["stem.conv.weight", "stem.bn.gamma", "stem.bn.running_var", "blocks.1.b.conv.weight", "policy_fc.bias", "sako_fc.weight"] {
            assert!(wt.has(path), "{path}");
        }
        for path in ["blocks.2.a.conv.weight", "blocks.0.se.fc1.weight", "reply_fc.weight", "stem", "weight"] {
            assert!(!wt.has(path), "{path}");
        }
        let with_reply = NetConfig { reply_policy: true, se_ratio: 2, ..net() }.init_seeded(&Device::flex(), 1).unwrap();
        let wt = Weights::of(&with_reply);
        assert!(wt.has("reply_fc.weight") && wt.has("blocks.0.se.fc1.weight") && wt.has("blocks.1.se.fc2.bias"));
    }

    #[test]
    fn a_batch_norm_folds_into_the_convolution_before_it() {
        // Stem: Cin = 2, Cout = 4, 3x3: 72 weights.
        let w = ramp(72);
        let (gamma, beta) = (vec![2.0, 0.5, 1.0, -1.0], vec![0.25, -0.5, 0.0, 1.0]);
        let (mean, var) = (vec![0.5, 0.0, -1.0, 2.0], vec![3.0, 1e-4, 0.25, 1.0]);
        let set =
            [("stem.conv.weight", w.clone()), ("stem.bn.gamma", gamma), ("stem.bn.beta", beta), ("stem.bn.running_mean", mean), ("stem.bn.running_var", var)];
        let model = net().init_seeded(&Device::flex(), 1).unwrap().map(&mut Set(Vec::new(), &set));
        let f = Weights::of(&model).conv_bn("stem", 2, 4, 3).unwrap();
        assert_eq!((f.cin, f.cout, f.kernel, f.w.len()), (2, 4, 3, 72));
        // scale = gamma / sqrt(var + 1e-5), shift = beta - mean * scale:
        let scale = [
            2.0 / (3.0f64 + 1e-5).sqrt(),  // 1.154699...
            0.5 / (1e-4f64 + 1e-5).sqrt(), // 47.67313...: the epsilon matters here
            1.0 / (0.25f64 + 1e-5).sqrt(), // 1.999960...
            -1.0 / (1.0f64 + 1e-5).sqrt(), // -0.999995...
        ];
        let shift = [0.25 - 0.5 * scale[0], -0.5, 0.0 + scale[2], 1.0 - 2.0 * scale[3]];
        assert_folded(&f, &w, &scale, &shift);
    }

    #[test]
    fn a_batch_norm_folds_into_a_one_by_one_convolution() {
        // Policy convolution: Cin = 4, Cout = 3, 1x1: 12 weights.
        let w = ramp(12);
        let set = [
            ("policy_conv.conv.weight", w.clone()),
            ("policy_conv.bn.gamma", vec![1.0, -2.0, 3.0]),
            ("policy_conv.bn.beta", vec![0.5, 0.0, -0.5]),
            ("policy_conv.bn.running_mean", vec![0.0, 0.5, 1.0]),
            ("policy_conv.bn.running_var", vec![1.0, 0.25, 4.0]),
        ];
        let model = net().init_seeded(&Device::flex(), 2).unwrap().map(&mut Set(Vec::new(), &set));
        let f = Weights::of(&model).conv_bn("policy_conv", 4, 3, 1).unwrap();
        // scale = gamma / sqrt(var + 1e-5): about 1, -4 and 1.5.
        let scale = [1.0 / (1.0f64 + 1e-5).sqrt(), -2.0 / (0.25f64 + 1e-5).sqrt(), 3.0 / (4.0f64 + 1e-5).sqrt()];
        // shift = beta - mean * scale: 0.5, about 2, about -2.
        let shift = [0.5, 0.0 - 0.5 * scale[1], -0.5 - scale[2]];
        assert_folded(&f, &w, &scale, &shift);
    }

    /// A folded convolution against its batch norm's `scale` and `shift`:
    /// output channel `co` holds the unfolded weights of its slice of `w`
    /// (`w.len() / scale.len()` of them), each times `scale[co]`, and its
    /// bias is `shift[co]`.
    fn assert_folded(f: &FoldedConv, w: &[f32], scale: &[f64], shift: &[f64]) {
        assert_eq!((f.w.len(), f.b.len()), (w.len(), shift.len()));
        let per = w.len() / scale.len();
        for (co, (&b, &want)) in f.b.iter().zip(shift).enumerate() {
            assert!(close(b, want), "shift {co}: {b} vs {want}");
        }
        for (k, (&got, &orig)) in f.w.iter().zip(w).enumerate() {
            let want = orig as f64 * scale[k / per];
            assert!(close(got, want), "weight {k}: {got} vs {want}");
        }
    }

    #[test]
    fn a_linear_layer_reads_its_weight_in_by_out_and_its_bias() {
        let set = [("wdl_fc.weight", ramp(18)), ("wdl_fc.bias", vec![-1.0, 0.0, 1.0])];
        let model = net().init_seeded(&Device::flex(), 3).unwrap().map(&mut Set(Vec::new(), &set));
        let d = Weights::of(&model).linear("wdl_fc", 6, 3).unwrap();
        assert_eq!((d.k, d.n, d.w, d.b), (6, 3, ramp(18), vec![-1.0, 0.0, 1.0]));
    }

    #[test]
    fn a_missing_or_misshapen_tensor_is_named_with_the_shapes() {
        let model = net().init_seeded(&Device::flex(), 4).unwrap();
        let wt = Weights::of(&model);
        let err = wt.get("nope", &[1]).unwrap_err().to_string();
        assert!(err.starts_with(r#"parameter `nope` not found (have ["blocks.0.a.bn.beta", "blocks.0.a.bn.gamma", "#), "{err}");
        // The same number of values in another shape is refused too.
        let err = wt.get("stem.conv.weight", &[4, 18, 1, 1]).unwrap_err().to_string();
        assert_eq!(err, "parameter `stem.conv.weight` has shape [4, 2, 3, 3], expected [4, 18, 1, 1]");
        assert_eq!(wt.get("stem.conv.weight", &[4, 2, 3, 3]).unwrap().len(), 72);
        let err = wt.conv_bn("stem", 3, 4, 3).unwrap_err().to_string();
        assert_eq!(err, "parameter `stem.conv.weight` has shape [4, 2, 3, 3], expected [4, 3, 3, 3]");
        let err = wt.linear("wdl_fc", 7, 3).unwrap_err().to_string();
        assert_eq!(err, "parameter `wdl_fc.weight` has shape [6, 3], expected [7, 3]");
    }
}
