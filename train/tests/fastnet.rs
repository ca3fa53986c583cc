//! FastNet against burn's forward pass (run in release mode:
//! `cargo test --release --workspace --test fastnet`).

use burn::module::{Module, ModuleMapper, Param};
use burn::prelude::*;
use burn::tensor::activation::softmax;
use burn::tensor::{Distribution, TensorData};
use pacozero_data::{ChunkWriter, GameSpec, PositionRow};
use pacozero_nn::*;
use pacozero_train::*;

mod common;

fn spec(bit_planes: u32, scalars: u32, policy: u32) -> GameSpec {
    GameSpec::new("test", 8, 8, bit_planes, scalars, policy, &["first", "second"]).unwrap()
}

/// xorshift stream in [0, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Decoded inputs `[B, Ci, 8, 8]`: 0/1 planes then scalar planes.
fn inputs(net: &NetConfig, batch: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng(seed | 1);
    let (bp, sc, hw) = (net.bit_planes as usize, net.scalars as usize, net.squares());
    let mut x = Vec::new();
    for _ in 0..batch {
        for _ in 0..bp * hw {
            x.push((r.next() < 0.3) as u8 as f32);
        }
        for _ in 0..sc {
            let v = r.next() * 2.0 - 0.5;
            x.extend(std::iter::repeat_n(v, hw));
        }
    }
    x
}

/// Gives every parameter and batch-norm statistic a non-default value:
/// running variances in [0.5, 2], everything else perturbed by U(-0.2, 0.2).
struct Perturb {
    path: Vec<String>,
}

impl ModuleMapper for Perturb {
    fn enter_module(&mut self, name: &str, _: &str) {
        self.path.push(name.into());
    }
    fn exit_module(&mut self, _: &str, _: &str) {
        self.path.pop();
    }
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let is_var = self.path.last().map(|s| s == "running_var").unwrap_or(false);
        param.map(|t| {
            let dims = t.dims();
            let device = t.device();
            if is_var {
                Tensor::<D>::random(dims, Distribution::Uniform(0.5, 2.0), &device)
            } else {
                t + Tensor::<D>::random(dims, Distribution::Uniform(-0.2, 0.2), &device)
            }
        })
    }
}

fn assert_close(what: &str, a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let err = (x - y).abs() / (1.0 + y.abs());
        assert!(err <= tol, "{what}[{i}]: fastnet {x} vs burn {y}");
    }
}

/// Compare FastNet with burn's forward pass on batches of 1, 3 and 17.
fn check(model: &PacoNet, net: &NetConfig, seed: u64) {
    let device = Device::flex();
    let model = model.clone().valid();
    let fast = FastNet::from_model(&model, net).unwrap();
    for batch in [1usize, 3, 17] {
        let x = inputs(net, batch, seed + batch as u64);
        let (c, h, w) = (net.input_channels(), net.height as usize, net.width as usize);
        let t = Tensor::<4>::from_data(TensorData::new(x.clone(), [batch, c, h, w]), &device); // [B, Ci, H, W]
        let out = model.forward(t);
        let policy = out.policy.into_data().try_into_vec_as::<f32>().unwrap();
        let wdl = softmax(out.wdl, 1).into_data().try_into_vec_as::<f32>().unwrap();
        let ml = out.moves_left.into_data().try_into_vec_as::<f32>().unwrap();
        let f = fast.forward(&x, batch);
        let tag = format!("{}x{} se{} pool{} b{batch}", net.blocks, net.channels, net.se_ratio, net.value_pool);
        assert_close(&format!("{tag} policy"), &f.policy, &policy, 1e-4);
        assert_close(&format!("{tag} wdl"), &f.wdl, &wdl, 1e-4);
        assert_close(&format!("{tag} moves_left"), &f.moves_left, &ml, 1e-4);
        // Not a degenerate comparison: the policy varies across slots.
        let spread = policy.iter().cloned().fold(f32::MIN, f32::max) - policy.iter().cloned().fold(f32::MAX, f32::min);
        assert!(spread > 1e-3, "{tag}: flat policy");
    }
}

#[test]
fn fastnet_matches_burn_on_random_nets() {
    let device = Device::flex();
    let archs = [
        // (blocks, channels, se_ratio, policy_channels, value_channels, value_hidden, bit_planes, scalars, policy)
        (1, 16, 4, 8, 4, 32, 4, 1, 50),
        (2, 24, 0, 6, 3, 20, 29, 3, 132),
        (3, 32, 8, 16, 8, 64, 19, 4, 300),
        (1, 8, 1, 40, 80, 16, 3, 0, 10),
        // Towers that FastNet convolves through im2col (the others run the
        // direct kernel, nn/src/conv3x3.rs): not whole vectors, and wide.
        (1, 12, 4, 8, 4, 32, 6, 1, 40),
        (1, 72, 4, 8, 4, 32, 6, 1, 40),
    ];
    for (i, (blocks, channels, se_ratio, pc, vc, vh, bp, sc, p)) in archs.into_iter().enumerate() {
        let s = spec(bp, sc, p);
        let net = NetConfig { blocks, channels, se_ratio, policy_channels: pc, value_channels: vc, value_hidden: vh, ..NetConfig::default_for(&s) };
        let model = net.init(&device).unwrap();
        check(&model, &net, 100 + i as u64);
        // Non-default batch-norm statistics and biases.
        let model = model.map(&mut Perturb { path: Vec::new() });
        check(&model, &net, 200 + i as u64);
        // The same with global pooling in the value head.
        let pooled = NetConfig { value_pool: true, ..net };
        let model = pooled.init(&device).unwrap().map(&mut Perturb { path: Vec::new() });
        check(&model, &pooled, 300 + i as u64);
    }
}

/// With `value_pool` the value head's hidden layer reads 2 features per
/// value channel, whatever the board, and the value depends on the position.
#[test]
fn the_pooled_value_head_reads_means_and_maxima() {
    let device = Device::flex();
    let s = spec(4, 1, 50);
    let net = NetConfig { value_pool: true, value_channels: 5, ..NetConfig::tiny_for(&s) };
    assert_eq!(net.value_features(), 10);
    assert_eq!(NetConfig { value_pool: false, ..net.clone() }.value_features(), 5 * 64);
    let model = net.init(&device).unwrap().map(&mut Perturb { path: Vec::new() });
    let fast = FastNet::from_model(&model.valid(), &net).unwrap();
    let f = fast.forward(&inputs(&net, 4, 9), 4);
    let spread = (0..3)
        .map(|j| (0..4).map(|k| f.wdl[k * 3 + j]).fold(f32::MIN, f32::max) - (0..4).map(|k| f.wdl[k * 3 + j]).fold(f32::MAX, f32::min))
        .fold(0.0, f32::max);
    assert!(spread > 1e-4, "the pooled value is the same for every position: {:?}", f.wdl);
}

fn rows(n: usize) -> Vec<PositionRow> {
    let s = spec(4, 1, 50);
    let mut r = Rng(77);
    (0..n)
        .map(|i| {
            let planes: Vec<u64> = (0..s.plane_words()).map(|_| ((r.next() as f64 * 2f64.powi(53)) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
            let target = (planes[0].count_ones() % 10) as u16;
            let mut policy = vec![0.0; 10];
            policy[target as usize] = 1.0;
            PositionRow {
                game_id: i as u64 / 10,
                ply: i as u32 % 10,
                side_to_move: (i % 2) as u8,
                planes,
                scalars: vec![(i % 10) as f32 / 10.0],
                legal_actions: (0..10).collect(),
                policy,
                full_search: true,
                root_q: 0.0,
                root_wdl: [0.3, 0.4, 0.3],
                action: target,
                result: [1, 0, -1][i % 3],
                moves_left: (10 - i % 10) as u32,
                aux_targets: vec![false, i % 4 == 0],
                weight: 1.0,
                network_id: "uniform".into(),
                truncated: false,
            }
        })
        .collect()
}

#[test]
fn fastnet_matches_burn_after_training_and_in_network() {
    let data = tempfile::tempdir().unwrap();
    let run = tempfile::tempdir().unwrap();
    let rs = rows(64);
    let mut w = ChunkWriter::new(data.path(), spec(4, 1, 50)).unwrap();
    for r in &rs {
        w.push_position(r.clone()).unwrap();
    }
    w.push_game(common::game_row(0, 64));
    w.flush("chunk-000").unwrap();
    let net = NetConfig { blocks: 2, ..NetConfig::tiny_for(&spec(4, 1, 50)) };
    let cfg = TrainConfig { batch_size: 16, progress: false, checkpoint_every: 0, plot_every: 0, threads: 1, ..TrainConfig::default() };
    let mut t = Trainer::new(run.path(), net.clone(), cfg, &default_device()).unwrap();
    t.train_steps(data.path(), 10).unwrap();
    check(t.model(), &net, 300);

    // Network: the fast path (default) against the burn path on the same inputs.
    let info = ModelInfo { name: "t".into(), step: 10, samples_seen: 160, provenance: None };
    let fast = Network::from_model(t.model().clone(), net.clone(), info.clone(), &default_device(), 2).unwrap();
    let mut slow = Network::from_model(t.model().clone(), net.clone(), info, &default_device(), 2).unwrap();
    slow.set_fastnet(false);
    assert!(fast.uses_fastnet());
    assert!(!slow.uses_fastnet());
    let inputs: Vec<EvalInput> = rs[..40].iter().map(|r| EvalInput { planes: &r.planes, scalars: &r.scalars }).collect();
    for range in [0..1, 0..5, 0..40] {
        let a = fast.evaluate_batch(&inputs[range.clone()]).unwrap();
        let b = slow.evaluate_batch(&inputs[range]).unwrap();
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_close("network policy", &x.policy_logits, &y.policy_logits, 1e-4);
            assert_close("network wdl", &x.wdl, &y.wdl, 1e-4);
            assert_close("network moves_left", &[x.moves_left], &[y.moves_left], 1e-4);
        }
    }
}
