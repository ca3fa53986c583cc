//! The check that the fuzz target `checkpoint` of `fuzz/` runs on each
//! input, kept here so that `cargo test` replays the committed corpus
//! through the same code (`run/tests/fuzz_corpus.rs`). Not an API: it
//! panics when the reader breaks one of its promises.

use std::path::Path;

use pacozero_nn::fuzz_checks::{assert_names_input, resealed};
use pacozero_nn::modelfile::{record_bytes, CKPT_MAGIC};

use crate::backend::training_device;
use crate::trainer::{build_optimizer, Checkpoint};

/// Any bytes as a checkpoint: refused with an error naming the file, or
/// read into a header that writes back to the same JSON and weights and an
/// optimizer state that the header's configuration (when it passes its
/// check, as a resume requires) loads. The same bytes with their sections'
/// checksums made right go through the same check
/// ([`pacozero_nn::fuzz_checks::resealed`]). Returns whether the reader
/// took the bytes as they are.
pub fn checkpoint(data: &[u8]) -> bool {
    let read = check_checkpoint(data);
    if let Some(sealed) = resealed(data, CKPT_MAGIC) {
        check_checkpoint(&sealed);
    }
    read
}

fn check_checkpoint(data: &[u8]) -> bool {
    let device = training_device(&pacozero_nn::default_device());
    let checkpoint = match Checkpoint::parse(Path::new("fuzz-input.pzckpt"), data, &device) {
        Ok(c) => c,
        Err(e) => {
            assert_names_input(&e.to_string());
            return false;
        }
    };
    let header = serde_json::to_value(&checkpoint.header).expect("a read header serialises");
    let again: crate::trainer::CheckpointHeader = serde_json::from_value(header.clone()).unwrap_or_else(|e| panic!("a written header does not read: {e}"));
    assert_eq!(serde_json::to_value(&again).unwrap(), header, "a checkpoint's header changed through writing and reading");
    for model in std::iter::once(&checkpoint.model).chain(&checkpoint.average) {
        record_bytes(model).unwrap_or_else(|e| panic!("loaded weights do not serialise: {e}"));
    }
    backward_through(&checkpoint.model);
    let cfg = &checkpoint.header.train;
    if cfg.validate().is_ok() {
        let optimizer = build_optimizer(cfg).load_record(checkpoint.optimizer);
        optimizer.into_bytes().unwrap_or_else(|e| panic!("a loaded optimizer state does not serialise: {e}"));
    }
    true
}

/// A backward pass through the sum of `model`'s parameters: the weights a
/// checkpoint loads are tracked for training. It also lets burn's autodiff
/// free what it keeps for each tracked leaf until a backward pass, as
/// training does right after a load; a check that loads and never trains
/// kept about the weights' size an input (`fuzz/RUNS.md`).
fn backward_through(model: &pacozero_nn::PacoNet) {
    use burn::module::{Module, ModuleVisitor, Param};
    use burn::tensor::Tensor;
    struct Sum(Option<Tensor<1>>);
    impl ModuleVisitor for Sum {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            let s = param.val().sum();
            self.0 = Some(match self.0.take() {
                Some(total) => total + s,
                None => s,
            });
        }
    }
    let mut sum = Sum(None);
    model.visit(&mut sum);
    let total = sum.0.expect("a network has parameters");
    assert!(total.is_tracked(), "a checkpoint's weights are not tracked for training");
    drop(total.backward());
}
