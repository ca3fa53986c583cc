//! Helpers shared by the integration tests: the seeded random stream,
//! networks with every weight and batch-norm statistic away from its
//! default, decoded inputs and a tolerant comparison.
#![allow(dead_code)]

use burn::module::{Module, ModuleMapper, Param};
use burn::prelude::*;
use burn::tensor::TensorData;
use pacozero_data::GameSpec;
use pacozero_nn::{NetConfig, PacoNet};

/// The tests' seeded random stream.
pub use pacozero_testkit::Rng;

/// A data spec of `height`x`width` with these inputs and policy (two auxiliary targets).
pub fn spec(height: u32, width: u32, bit_planes: u32, scalars: u32, policy: u32) -> GameSpec {
    GameSpec::new("test", height, width, bit_planes, scalars, policy, &["first", "second"]).unwrap()
}

/// Replaces every parameter with deterministic values away from burn's
/// defaults: batch-norm running variances in [0.5, 2], running means in
/// [-0.3, 0.3], gammas in [0.7, 1.3], everything else the initial value
/// plus U(-0.2, 0.2).
struct Perturb {
    path: Vec<String>,
    rng: Rng,
}

impl ModuleMapper for Perturb {
    fn enter_module(&mut self, name: &str, _: &str) {
        self.path.push(name.into());
    }

    fn exit_module(&mut self, _: &str, _: &str) {
        self.path.pop();
    }

    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let leaf = self.path.last().cloned().unwrap_or_default();
        let rng = &mut self.rng;
        param.map(|t| {
            let dims = t.dims();
            let device = t.device();
            let old = t.into_data().try_into_vec_as::<f32>().unwrap();
            let new: Vec<f32> = old
                .iter()
                .map(|&v| match leaf.as_str() {
                    "running_var" => rng.range(0.5, 2.0),
                    "running_mean" => rng.range(-0.3, 0.3),
                    "gamma" => rng.range(0.7, 1.3),
                    _ => v + rng.range(-0.2, 0.2),
                })
                .collect();
            Tensor::<D>::from_data(TensorData::new(new, dims), &device)
        })
    }
}

/// A network of `net` whose weights depend only on `seed`, every one of
/// them (batch-norm statistics included) away from its initial value.
pub fn random_net(net: &NetConfig, seed: u64) -> PacoNet {
    let model = net.init_seeded(&Device::flex(), seed).unwrap();
    model.map(&mut Perturb { path: Vec::new(), rng: Rng::new(seed + 1000) })
}

/// Decoded inputs `[B, Ci, H, W]`: 0/1 bit planes, then each scalar as a constant plane.
pub fn inputs(net: &NetConfig, batch: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng::new(seed);
    let (bp, sc, hw) = (net.bit_planes as usize, net.scalars as usize, net.squares());
    let mut x = Vec::new();
    for _ in 0..batch {
        for _ in 0..bp * hw {
            x.push((r.unit() < 0.3) as u8 as f32);
        }
        for _ in 0..sc {
            let v = r.range(-0.5, 1.5);
            x.extend(std::iter::repeat_n(v, hw));
        }
    }
    x
}

/// `a` and `b` agree to `tol` relative to `1 + |b|`, element by element.
pub fn assert_close(what: &str, a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let err = (x - y).abs() / (1.0 + y.abs());
        assert!(err <= tol, "{what}[{i}]: {x} vs {y}");
    }
}

/// The largest minus the smallest of `v`.
pub fn spread(v: &[f32]) -> f32 {
    v.iter().cloned().fold(f32::MIN, f32::max) - v.iter().cloned().fold(f32::MAX, f32::min)
}
