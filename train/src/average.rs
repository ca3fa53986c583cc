//! Weight averaging (`export_average` > 0): the exported and played weights
//! are an exponential moving average of the trained ones, folded in at the
//! end of each [`Trainer::train_steps`](crate::Trainer::train_steps) call.
//! Kept apart from the trainer: it works on two networks alone, tensor by
//! tensor, through burn's module visitor and mapper.

use std::path::Path;

use burn::prelude::*;
use pacozero_nn::modelfile::{model_from_bytes, record_bytes};
use pacozero_nn::{NetConfig, PacoNet};

use crate::error::{TrainError, TrainResult};

/// Folds the trained weights `model` into the average `avg` with weight
/// `keep` (`export_average`): `None` when `keep` <= 0, a copy of `model`
/// when there is no average yet, else [`blend`]. `run_dir` is the path
/// errors name.
pub(crate) fn fold_average(avg: Option<PacoNet>, model: &PacoNet, keep: f32, net: &NetConfig, device: &Device, run_dir: &Path) -> TrainResult<Option<PacoNet>> {
    if keep <= 0.0 {
        return Ok(None);
    }
    Ok(Some(match avg {
        // A copy through the record: a module's clone shares its
        // batch-norm statistics with the original, which training updates
        // in place (and blending would then write into the trained model).
        None => model_from_bytes(run_dir, net, device, record_bytes(model)?)?,
        Some(avg) => blend(avg, model, keep)?,
    }))
}

/// `keep` × `avg` + (1 − `keep`) × `model`, tensor by tensor: every float
/// tensor of the module (parameters and batch-norm running statistics).
/// Visiting and mapping walk a module's tensors in the same order, so the
/// model's are collected first and the average's mapped against them.
fn blend(avg: PacoNet, model: &PacoNet, keep: f32) -> TrainResult<PacoNet> {
    use burn::module::{ModuleMapper, ModuleVisitor, Param};
    use burn::tensor::{Tensor, TensorData};

    struct Collect(Vec<TensorData>);
    impl ModuleVisitor for Collect {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            self.0.push(param.val().into_data());
        }
    }
    struct Blend {
        news: std::vec::IntoIter<TensorData>,
        keep: f32,
        error: Option<String>,
    }
    impl ModuleMapper for Blend {
        fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
            let (id, old, _) = param.consume();
            let Some(new) = self.news.next() else {
                self.error.get_or_insert_with(|| "the average has more tensors than the model".into());
                return Param::initialized(id, old);
            };
            let device = old.device();
            let old = old.into_data();
            let (a, b) = match (old.try_to_vec::<f32>(), new.try_to_vec::<f32>()) {
                (Ok(a), Ok(b)) if a.len() == b.len() => (a, b),
                _ => {
                    self.error.get_or_insert_with(|| format!("a tensor of shape {:?} does not match the model's {:?}", old.shape(), new.shape()));
                    return Param::initialized(id, Tensor::from_data(old, &device));
                }
            };
            let mixed: Vec<f32> = a.iter().zip(&b).map(|(x, y)| self.keep * x + (1.0 - self.keep) * y).collect();
            Param::initialized(id, Tensor::from_data(TensorData::new(mixed, old.shape().clone()), &device))
        }
    }

    let mut collect = Collect(Vec::new());
    model.visit(&mut collect);
    let mut mapper = Blend { news: collect.0.into_iter(), keep, error: None };
    let avg = avg.map(&mut mapper);
    if mapper.news.next().is_some() {
        mapper.error.get_or_insert_with(|| "the model has more tensors than the average".into());
    }
    match mapper.error {
        Some(e) => Err(TrainError::Other(format!("weight averaging: {e}"))),
        None => Ok(avg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::module::{ModuleVisitor, Param};
    use burn::tensor::Tensor;
    use pacozero_data::GameSpec;

    fn net(blocks: u32, channels: u32, seed: u64) -> (NetConfig, PacoNet) {
        let spec = GameSpec::new("test", 8, 8, 4, 1, 50, &["first", "second"]).unwrap();
        let cfg = NetConfig { blocks, channels, ..NetConfig::tiny_for(&spec) };
        let device = pacozero_nn::default_device();
        let model = cfg.init_seeded(&device, seed).unwrap();
        (cfg, model)
    }

    /// Every float tensor of a module, in visiting order.
    fn tensors(model: &PacoNet) -> Vec<Vec<f32>> {
        struct Collect(Vec<Vec<f32>>);
        impl ModuleVisitor for Collect {
            fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
                self.0.push(param.val().into_data().try_to_vec::<f32>().unwrap());
            }
        }
        let mut c = Collect(Vec::new());
        model.visit(&mut c);
        c.0
    }

    #[test]
    fn blending_mixes_every_tensor_by_the_kept_share() {
        let (_, a) = net(1, 8, 1);
        let (_, b) = net(1, 8, 2);
        let (ta, tb) = (tensors(&a), tensors(&b));
        let mixed = tensors(&blend(a, &b, 0.25).unwrap());
        assert_eq!(mixed.len(), ta.len());
        for ((m, x), y) in mixed.iter().zip(&ta).zip(&tb) {
            assert_eq!(m.len(), x.len());
            for ((m, x), y) in m.iter().zip(x).zip(y) {
                assert!((m - (0.25 * x + 0.75 * y)).abs() < 1e-6, "{m} vs 0.25 × {x} + 0.75 × {y}");
            }
        }
    }

    #[test]
    fn blending_networks_of_other_shapes_is_refused() {
        let (_, a) = net(1, 8, 1);
        let (_, wider) = net(1, 16, 2);
        let Err(e) = blend(a, &wider, 0.5) else { panic!("other channels blended") };
        let e = e.to_string();
        assert!(e.contains("weight averaging: a tensor of shape") && e.contains("does not match"), "{e}");
        let (_, a) = net(1, 8, 1);
        let (_, deeper) = net(2, 8, 2);
        let Err(e) = blend(a, &deeper, 0.5) else { panic!("more blocks blended") };
        let e = e.to_string();
        assert!(e.contains("weight averaging:"), "{e}");
        let (_, a) = net(2, 8, 1);
        let (_, shallower) = net(1, 8, 2);
        assert!(blend(a, &shallower, 0.5).is_err(), "fewer blocks");
    }

    #[test]
    fn folding_starts_with_a_copy_and_is_off_at_zero() {
        let (cfg, a) = net(1, 8, 1);
        let (_, b) = net(1, 8, 2);
        let device = pacozero_nn::default_device();
        let dir = Path::new("run");
        assert!(fold_average(None, &a, 0.0, &cfg, &device, dir).unwrap().is_none(), "keep 0: no average");
        let first = fold_average(None, &a, 0.5, &cfg, &device, dir).unwrap().expect("a copy");
        assert_eq!(tensors(&first), tensors(&a));
        let second = fold_average(Some(first), &b, 0.5, &cfg, &device, dir).unwrap().unwrap();
        let (ta, tb, ts) = (tensors(&a), tensors(&b), tensors(&second));
        assert!((ts[0][0] - 0.5 * (ta[0][0] + tb[0][0])).abs() < 1e-6);
    }
}
