//! Trainer tests (run in release mode: `cargo test --release -p pacozero-train`).

use std::path::Path;

use pacozero_data::{ChunkWriter, GameSpec, PositionRow};
use pacozero_nn::*;
use pacozero_train::*;

mod common;
use common::game_row;

fn spec() -> GameSpec {
    GameSpec::new("pacosako", 8, 8, 4, 1, 50, &["first", "second"]).unwrap()
}

/// `n` distinct positions; the target move and the result are functions of the position.
fn rows(n: usize, seed: u64) -> Vec<PositionRow> {
    rows_of(&spec(), n, seed)
}

/// [`rows`] of data of `s`.
fn rows_of(s: &GameSpec, n: usize, seed: u64) -> Vec<PositionRow> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|i| {
            let planes: Vec<u64> = (0..s.plane_words()).map(|_| next() & next()).collect();
            let target = (planes[0].count_ones() % 10) as u16;
            let legal: Vec<u16> = (0..10).collect();
            let mut policy = vec![0.0; 10];
            policy[target as usize] = 1.0;
            PositionRow {
                game_id: i as u64 / 10,
                ply: i as u32 % 10,
                side_to_move: (i % 2) as u8,
                planes: planes.clone(),
                scalars: vec![(i % 10) as f32 / 10.0; s.scalars as usize],
                legal_actions: legal,
                policy,
                full_search: true,
                root_q: 0.0,
                root_wdl: [0.3, 0.4, 0.3],
                action: target,
                result: [1, 0, -1][(planes[1].count_ones() % 3) as usize],
                moves_left: (10 - i % 10) as u32,
                aux_targets: vec![planes[2] & 1 == 1, planes[3] & 2 == 2],
                weight: 1.0,
                network_id: "uniform".into(),
                truncated: false,
            }
        })
        .collect()
}

fn write_data(dir: &Path, n: usize, chunks: usize) {
    write_data_of(dir, &spec(), n, chunks)
}

/// [`write_data`] of data of `s`.
fn write_data_of(dir: &Path, s: &GameSpec, n: usize, chunks: usize) {
    let all = rows_of(s, n, 11);
    let per = n / chunks;
    for c in 0..chunks {
        let mut w = ChunkWriter::new(dir, s.clone()).unwrap();
        for r in &all[c * per..(c + 1) * per] {
            w.push_position(r.clone()).unwrap();
        }
        w.push_game(game_row(c as u64, per as u32));
        w.flush(&format!("chunk-{c:03}")).unwrap();
    }
}

/// A chunk of 40 positions unseen so far (another seed, game 1000; the
/// targets follow the same rules), named `stem`.
fn write_newer_chunk(dir: &Path, stem: &str) {
    write_newer_chunk_of(dir, &spec(), stem)
}

/// [`write_newer_chunk`] of data of `s`.
fn write_newer_chunk_of(dir: &Path, s: &GameSpec, stem: &str) {
    let mut w = ChunkWriter::new(dir, s.clone()).unwrap();
    for mut r in rows_of(s, 40, 99) {
        r.game_id += 1000;
        w.push_position(r).unwrap();
    }
    w.push_game(game_row(1000, 40));
    w.flush(stem).unwrap();
}

fn test_cfg() -> TrainConfig {
    TrainConfig {
        batch_size: 32,
        seed: 5,
        optimizer: OptimizerKind::Adamw,
        lr: 3e-3,
        weight_decay: 1e-5,
        warmup_steps: 5,
        progress: false,
        checkpoint_every: 0,
        plot_every: 0,
        threads: 2,
        ..TrainConfig::default()
    }
}

#[test]
fn tiny_net_overfits_small_dataset() {
    let data = tempfile::tempdir().unwrap();
    let run = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 2);
    let net = NetConfig::tiny_for(&spec());
    let mut t = Trainer::new(run.path(), net, test_cfg(), &default_device()).unwrap();
    let s = t.train_steps(data.path(), 300).unwrap();
    let first = s.first.policy_loss + s.first.value_loss;
    let last = s.last.policy_loss + s.last.value_loss;
    eprintln!("policy+value loss {first:.3} -> {last:.3}, top1 {:.2}, {:.0} samples/s", s.last.policy_top1, s.samples_per_sec);
    // Start: ~ln(10) + ln(3) = 3.4. Stated bound: below 0.5 after 300 steps.
    assert!(first > 2.5, "{first}");
    assert!(last < 0.5, "policy+value loss {last} did not drop below 0.5");
    assert!(s.last.policy_top1 > 0.9);
    assert_eq!(t.step(), 300);
    assert_eq!(t.samples_seen(), 300 * 32);
    // The metrics CSV and a TensorBoard event file exist (tests/test_tensorboard.py
    // of the Python package reads the events with TensorBoard's own reader).
    let csv = std::fs::read_to_string(run.path().join("metrics.csv")).unwrap();
    assert_eq!(csv.lines().count(), 301);
    let events: Vec<_> = std::fs::read_dir(run.path().join("tensorboard/train")).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(events.len() == 1 && events[0].starts_with("events.out.tfevents."), "{events:?}");
    assert!(!run.path().join("plots").exists(), "no PNG plots any more");
}

#[test]
fn save_load_gives_identical_outputs() {
    let data = tempfile::tempdir().unwrap();
    let run = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 1);
    let net = NetConfig::tiny_for(&spec());
    let mut t = Trainer::new(run.path(), net.clone(), test_cfg(), &default_device()).unwrap();
    t.train_steps(data.path(), 20).unwrap();
    let path = t.export("gen-0001", true).unwrap();
    assert_eq!(current_model(run.path()).unwrap(), path);
    // The exported header names what made it (a library build: commit unknown).
    let provenance = Some(pacozero_nn::provenance());
    let info = ModelInfo { name: "gen-0001".into(), step: 20, samples_seen: 640, provenance };
    let in_memory = Network::from_model(t.model().clone(), net.clone(), info.clone(), &default_device(), 1).unwrap();
    let loaded = Network::load(&path, 1).unwrap();
    assert_eq!(loaded.info(), &info);
    assert_eq!(loaded.config(), &net);
    let rs = rows(40, 99);
    let inputs: Vec<EvalInput> = rs.iter().map(|r| EvalInput { planes: &r.planes, scalars: &r.scalars }).collect();
    let a = in_memory.evaluate_batch(&inputs).unwrap();
    let b = loaded.evaluate_batch(&inputs).unwrap();
    assert_eq!(a, b, "outputs differ after save -> load");
    assert_eq!(a.len(), 40);
    assert_eq!(a[0].policy_logits.len(), 50);
    let s: f32 = a[0].wdl.iter().sum();
    assert!((s - 1.0).abs() < 1e-5);
    // Batch of one gives the same as inside a batch (inference mode BN).
    let one = loaded.evaluate_batch(&inputs[3..4]).unwrap();
    for (x, y) in one[0].policy_logits.iter().zip(&b[3].policy_logits) {
        assert!((x - y).abs() < 1e-4);
    }
    // A wrong input size is an error, not a panic.
    let bad = [EvalInput { planes: &rs[0].planes[..2], scalars: &rs[0].scalars }];
    assert!(loaded.evaluate_batch(&bad).is_err());
}

#[test]
fn resumed_run_continues_at_same_step_and_data_position() {
    let data = tempfile::tempdir().unwrap();
    write_data(data.path(), 100, 4);
    let net = NetConfig::tiny_for(&spec());
    let cfg = TrainConfig { batch_size: 16, ..test_cfg() };
    // Continuous run: 10 steps (crosses a window pass: 100 rows / 16 = 6 batches).
    let run_a = tempfile::tempdir().unwrap();
    let mut a = Trainer::new(run_a.path(), net.clone(), cfg.clone(), &default_device()).unwrap();
    let mut keys_a = Vec::new();
    let mut loss_a = Vec::new();
    for _ in 0..10 {
        let s = a.train_steps(data.path(), 1).unwrap();
        keys_a.push(a.last_batch().to_vec());
        loss_a.push(s.last.loss);
    }
    // Interrupted run: 5 steps, drop, resume from the checkpoint, 5 more.
    let run_b = tempfile::tempdir().unwrap();
    let mut keys_b = Vec::new();
    let mut loss_b = Vec::new();
    {
        let mut b = Trainer::new(run_b.path(), net.clone(), cfg.clone(), &default_device()).unwrap();
        for _ in 0..5 {
            let s = b.train_steps(data.path(), 1).unwrap();
            keys_b.push(b.last_batch().to_vec());
            loss_b.push(s.last.loss);
        }
    }
    assert!(Trainer::new(run_b.path(), net.clone(), cfg.clone(), &default_device()).is_err(), "new() must not clobber a run");
    let mut b = Trainer::resume(run_b.path(), &default_device()).unwrap();
    assert_eq!(b.step(), 5);
    assert_eq!(b.samples_seen(), 5 * 16);
    for _ in 0..5 {
        let s = b.train_steps(data.path(), 1).unwrap();
        keys_b.push(b.last_batch().to_vec());
        loss_b.push(s.last.loss);
    }
    assert_eq!(b.step(), 10);
    assert_eq!(b.samples_seen(), a.samples_seen());
    assert_eq!(keys_a, keys_b, "resumed run read different rows");
    assert_eq!(a.data_position(), b.data_position());
    assert!(a.data_position().windows_loaded >= 2);
    for (x, y) in loss_a.iter().zip(&loss_b) {
        assert!((x - y).abs() < 1e-3 * (1.0 + x.abs()), "losses diverged: {loss_a:?} vs {loss_b:?}");
    }
}

#[test]
fn bench_reports_figures() {
    let net = NetConfig::tiny_for(&spec());
    let opts = BenchOptions { batch_sizes: vec![1, 8], train_batch: 8, min_time: std::time::Duration::from_millis(100), threads: 2, ..BenchOptions::default() };
    let r = bench_net(&net, &default_device(), &opts).unwrap();
    eprintln!("{r}");
    assert_eq!(r.fast_precision, NetPrecision::Fp32, "fp32 unless asked");
    // Asked for int8, FastNet runs its tower in int8 (the scalar kernel where the CPU lacks VNNI).
    let int8 = bench_net(&net, &default_device(), &BenchOptions { precision: NetPrecision::Int8, batch_sizes: vec![8], ..opts.clone() }).unwrap();
    assert_eq!(int8.fast_precision, NetPrecision::Int8);
    assert!(int8.lines[0].fast_per_sec.is_some_and(|v| v > 0.0), "{int8}");
    assert_eq!(r.lines.len(), 3);
    assert_eq!(r.flops_per_position, net.flops_per_position());
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
    for (l, (kind, batch, forward_passes)) in r.lines.iter().zip([("infer", 1, 1.0), ("infer", 8, 1.0), ("train", 8, 3.0)]) {
        assert_eq!((l.kind.as_str(), l.batch), (kind, batch));
        assert!(l.net_per_sec > 0.0 && l.matmul_per_sec > 0.0 && l.ratio > 0.0, "{l:?}");
        // The figures of one line agree: the ratio of the rates, and each
        // rate times the flops of a position (training: three passes).
        assert!(close(l.ratio, l.net_per_sec / l.matmul_per_sec), "{l:?}");
        let flops = forward_passes * r.flops_per_position;
        assert!(close(l.net_gflops, l.net_per_sec * flops / 1e9), "{l:?}");
        assert!(close(l.matmul_gflops, l.matmul_per_sec * flops / 1e9), "{l:?}");
        assert_eq!(l.fast_per_sec.is_some(), kind == "infer", "{l:?}");
    }
}

#[test]
fn fresh_data_loss_measures_only_chunks_newer_than_the_window() {
    let data = tempfile::tempdir().unwrap();
    let run = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 2);
    let mut t = Trainer::new(run.path(), NetConfig::tiny_for(&spec()), test_cfg(), &default_device()).unwrap();
    // No trained network yet: nothing to measure.
    assert_eq!(t.fresh_data_loss(data.path(), 1000).unwrap(), None);
    t.train_steps(data.path(), 200).unwrap();
    // Every chunk is in the window: nothing fresh.
    assert_eq!(t.fresh_data_loss(data.path(), 1000).unwrap(), None);

    // A newer chunk of unseen positions (another seed; targets follow the same rules).
    write_newer_chunk(data.path(), "chunk-100");
    let fresh = t.fresh_data_loss(data.path(), 1000).unwrap().expect("a newer chunk");
    assert_eq!((fresh.rows, fresh.chunks), (40, 1));
    // The network is measured as it plays (batch normalisation by its
    // running statistics), so the measuring batch size changes nothing.
    t.save_checkpoint().unwrap();
    let other = Trainer::resume_with(run.path(), &default_device(), Some(TrainConfig { batch_size: 7, ..test_cfg() })).unwrap();
    let again = other.fresh_data_loss(data.path(), 1000).unwrap().expect("a newer chunk");
    assert!((again.value_loss - fresh.value_loss).abs() < 1e-4 && (again.policy_loss - fresh.policy_loss).abs() < 1e-4, "{again:?} vs {fresh:?}");
    assert!(fresh.policy_loss.is_finite() && fresh.value_loss.is_finite() && (0.0..=1.0).contains(&fresh.policy_top1), "{fresh:?}");
    // The calibration figures add up: the shares and the mean prediction
    // are distributions, the value loss is the share-weighted mean of the
    // loss by result, and the base rate is the shares' entropy.
    let sum = |v: [f64; 3]| v.iter().sum::<f64>();
    assert!((sum(fresh.result_share) - 1.0).abs() < 1e-9 && (sum(fresh.mean_wdl) - 1.0).abs() < 1e-4, "{fresh:?}");
    let mixed: f64 = (0..3).filter(|&j| fresh.result_share[j] > 0.0).map(|j| fresh.result_share[j] * fresh.value_loss_by_result[j]).sum();
    assert!((mixed - fresh.value_loss).abs() < 1e-4, "{mixed} vs {fresh:?}");
    let entropy: f64 = fresh.result_share.iter().filter(|&&s| s > 0.0).map(|&s| -s * s.ln()).sum();
    assert!((entropy - fresh.base_rate_loss).abs() < 1e-9 && fresh.base_rate_loss <= 3f64.ln() + 1e-9, "{fresh:?}");
    // A result that no row has: no loss for it.
    for j in 0..3 {
        assert_eq!(fresh.result_share[j] == 0.0, fresh.value_loss_by_result[j].is_nan(), "{fresh:?}");
    }
    // At most `max_rows` positions.
    assert_eq!(t.fresh_data_loss(data.path(), 10).unwrap().expect("fresh").rows, 10);
    // Unseen positions: the value loss is well above the memorised training batches'.
    let trained = t.train_steps(data.path(), 1).unwrap().last;
    eprintln!("fresh {fresh:?}, training batch value loss {:.3}", trained.value_loss);
    assert!(fresh.value_loss > trained.value_loss, "fresh {} vs trained {}", fresh.value_loss, trained.value_loss);
}

/// `limit_data`: the window and the fresh-loss chunks stop at the given
/// stem, whatever newer chunks appear (the loop's overlapped generations).
#[test]
fn a_data_limit_hides_the_newer_chunks() {
    let data = tempfile::tempdir().unwrap();
    let run = tempfile::tempdir().unwrap();
    write_data(data.path(), 96, 3);
    let mut cfg = test_cfg();
    cfg.reload_every_steps = 1;
    let mut t = Trainer::new(run.path(), NetConfig::tiny_for(&spec()), cfg, &default_device()).unwrap();
    t.limit_data(Some("chunk-000".into()));
    t.train_steps(data.path(), 3).unwrap();
    assert_eq!(t.data_position().chunks, ["chunk-000"], "the window of every step");
    assert_eq!(t.fresh_data_loss(data.path(), 1000).unwrap(), None, "the newer chunks are not fresh either");
    t.limit_data(Some("chunk-001".into()));
    assert_eq!(t.fresh_data_loss(data.path(), 1000).unwrap().expect("chunk-001 is fresh").chunks, 1);
    t.train_steps(data.path(), 1).unwrap();
    assert_eq!(t.data_position().chunks, ["chunk-000", "chunk-001"]);
    t.limit_data(None);
    t.train_steps(data.path(), 1).unwrap();
    assert_eq!(t.data_position().chunks, ["chunk-000", "chunk-001", "chunk-002"]);
}

/// A network with both new heads (global pooling in the value head, the
/// reply policy): the reply loss is reported and falls, `metrics.csv` has
/// its column, and the exported file loads for inference, where the fast
/// path agrees with burn's.
#[test]
fn a_network_with_a_pooled_value_head_and_a_reply_head_trains_and_loads() {
    let data = tempfile::tempdir().unwrap();
    let run = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 2);
    let net = NetConfig { value_pool: true, reply_policy: true, ..NetConfig::tiny_for(&spec()) };
    let mut t = Trainer::new(run.path(), net.clone(), test_cfg(), &default_device()).unwrap();
    let s = t.train_steps(data.path(), 300).unwrap();
    // Each game's rows alternate movers, so every row but a game's last has a reply.
    let (first, last) = (s.first.reply_policy_loss, s.last.reply_policy_loss);
    assert!(first.is_finite() && last.is_finite(), "{first} {last}");
    assert!(last < 0.7 * first, "the reply loss did not fall: {first:.3} -> {last:.3}");
    let csv = std::fs::read_to_string(run.path().join("metrics.csv")).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",reply_policy_loss"));
    let last_row = csv.lines().last().unwrap();
    assert!(last_row.rsplit(',').next().unwrap().parse::<f64>().unwrap().is_finite(), "{last_row}");

    let path = t.export("gen-0001", false).unwrap();
    let loaded = Network::load(&path, 1).unwrap();
    assert_eq!(loaded.config(), &net);
    let mut slow = Network::load(&path, 1).unwrap();
    slow.set_fastnet(false);
    let rs = rows(20, 5);
    let inputs: Vec<EvalInput> = rs.iter().map(|r| EvalInput { planes: &r.planes, scalars: &r.scalars }).collect();
    let (a, b) = (loaded.evaluate_batch(&inputs).unwrap(), slow.evaluate_batch(&inputs).unwrap());
    for (x, y) in a.iter().zip(&b) {
        for (p, q) in x.policy_logits.iter().zip(&y.policy_logits).chain(x.wdl.iter().zip(&y.wdl)) {
            assert!((p - q).abs() <= 1e-4 * (1.0 + q.abs()), "fast {p} vs burn {q}");
        }
    }
}

/// A Shako network with the conv policy head (and its reply head) in the
/// `threats` encoding, from a `[net]` table: the gather passes the
/// gradients on (the policy loss falls), and the exported network runs
/// the same through FastNet and burn.
#[test]
fn a_network_with_a_conv_policy_head_trains_and_loads() {
    let text = "[net]\nblocks = 1\nchannels = 16\npolicy_channels = 8\nvalue_channels = 4\nvalue_hidden = 32\nreply_policy = true\npolicy_head = \"conv\"\nencoding = \"threats\"\n";
    let f = TrainFile::from_toml_str(text, "conv.toml").unwrap();
    let s = pacozero_data::spec_of_encoding(pacozero_engine::GameKind::Shako, "threats").unwrap();
    let net = f.net.to_config(&s).unwrap();
    assert_eq!((net.policy_head, net.policy_size, net.bit_planes, net.encoding.as_str()), (PolicyHead::Conv, 3656, 30, "threats"));
    // A conv head on data of no game with policy planes is refused.
    let e = f.net.to_config(&GameSpec { encoding: "threats".into(), ..spec() }).unwrap_err().to_string();
    assert!(e.starts_with("[net]: ") && e.contains("net.policy_head = \"conv\""), "{e}");
    let data = tempfile::tempdir().unwrap();
    let run = tempfile::tempdir().unwrap();
    write_data_of(data.path(), &s, 64, 2);
    let mut t = Trainer::new(run.path(), net.clone(), test_cfg(), &default_device()).unwrap();
    let sum = t.train_steps(data.path(), 100).unwrap();
    let (first, last) = (sum.first.policy_loss, sum.last.policy_loss);
    assert!(last < 0.5 * first, "the policy loss did not fall: {first:.3} -> {last:.3}");
    assert!(sum.last.reply_policy_loss.is_finite());
    let path = t.export("gen-0001", false).unwrap();
    let loaded = Network::load(&path, 1).unwrap();
    assert_eq!(loaded.config(), &net);
    let mut slow = Network::load(&path, 1).unwrap();
    slow.set_fastnet(false);
    let rs = rows_of(&s, 20, 5);
    let inputs: Vec<EvalInput> = rs.iter().map(|r| EvalInput { planes: &r.planes, scalars: &r.scalars }).collect();
    let (a, b) = (loaded.evaluate_batch(&inputs).unwrap(), slow.evaluate_batch(&inputs).unwrap());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.policy_logits.len(), 3656);
        for (p, q) in x.policy_logits.iter().zip(&y.policy_logits).chain(x.wdl.iter().zip(&y.wdl)) {
            assert!((p - q).abs() <= 1e-4 * (1.0 + q.abs()), "fast {p} vs burn {q}");
        }
    }
}

/// Reply targets in a batch: the next row's policy where the mover changes,
/// weighted by the row; none for a game's last row.
#[test]
fn a_batch_carries_the_reply_targets() {
    let rs = rows(20, 3);
    let reply = pacozero_train::targets::reply_rows(&rs);
    let targets = Targets { reply: &reply, ..Targets::root(0.0) };
    let b = Batch::build_mirrored(&spec(), &rs, &[0, 9, 10], &targets, &|_| false);
    let p = b.p;
    // Row 0's reply is row 1 (game 0, the other side).
    assert_eq!(b.reply_w[0], 1.0);
    for (&a, &pr) in rs[1].legal_actions.iter().zip(&rs[1].policy) {
        assert_eq!(b.reply[a as usize], pr);
        assert_eq!(b.reply_mask[a as usize], 0.0);
    }
    assert!(b.reply_mask[..p].iter().filter(|&&m| m == 0.0).count() == rs[1].legal_actions.len());
    // Row 9 is game 0's last: no reply.
    assert_eq!(b.reply_w[1], 0.0);
    assert!(b.reply[p..2 * p].iter().all(|&x| x == 0.0));
    assert_eq!(b.reply_w[2], 1.0);
    // Without a reply head the batch has no reply arrays.
    let plain = Batch::build(&spec(), &rs, &[0], 0.0);
    assert!(plain.reply.is_empty() && plain.reply_w == vec![0.0]);
}

/// Every float tensor of a network (parameters and batch-norm statistics), in visiting order.
fn weights(m: &PacoNet) -> Vec<Vec<f32>> {
    use burn::module::{Module, ModuleVisitor, Param};
    use burn::tensor::Tensor;
    struct Collect(Vec<Vec<f32>>);
    impl ModuleVisitor for Collect {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            self.0.push(param.val().into_data().try_to_vec::<f32>().unwrap());
        }
    }
    let mut c = Collect(Vec::new());
    m.visit(&mut c);
    c.0
}

#[test]
fn export_average_folds_the_trained_weights_into_the_exported_ones_and_survives_a_resume() {
    let data = tempfile::tempdir().unwrap();
    let run = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 1);
    let net = NetConfig::tiny_for(&spec());
    let cfg = TrainConfig { export_average: 0.75, ..test_cfg() };
    let mut t = Trainer::new(run.path(), net.clone(), cfg.clone(), &default_device()).unwrap();
    t.train_steps(data.path(), 10).unwrap();
    // The first fold is the trained weights themselves.
    let first = weights(t.played());
    assert_eq!(first, weights(t.model()));
    t.train_steps(data.path(), 10).unwrap();
    let trained = weights(t.model());
    let avg = weights(t.played());
    assert_ne!(avg, trained, "the exported weights are not averaged");
    let (mut n, mut moved) = (0, 0);
    for ((a, f), m) in avg.iter().zip(&first).zip(&trained) {
        for ((&a, &f), &m) in a.iter().zip(f).zip(m) {
            let want = 0.75 * f + 0.25 * m;
            assert!((a - want).abs() <= 1e-5 * (1.0 + want.abs()), "{a} != 0.75 x {f} + 0.25 x {m}");
            n += 1;
            moved += (f != m) as usize;
        }
    }
    assert!(n > 1000 && moved > n / 2, "{moved} of {n} weights changed in training");
    // The export is the average, and a resumed trainer has it back.
    let path = t.export("gen-0002", false).unwrap();
    let (loaded, _, _) = load_model(&path, &default_device(), Some(&net)).unwrap();
    assert_eq!(weights(&loaded), avg);
    drop(t);
    let r = Trainer::resume(run.path(), &default_device()).unwrap();
    assert_eq!(weights(r.played()), avg);
    assert_eq!(weights(r.model()), trained);
    // Without averaging the export is the trained weights.
    let run2 = tempfile::tempdir().unwrap();
    let mut plain = Trainer::new(run2.path(), net, test_cfg(), &default_device()).unwrap();
    plain.train_steps(data.path(), 10).unwrap();
    assert_eq!(weights(plain.played()), weights(plain.model()));
}

#[test]
fn the_shipped_training_file_loads_with_every_key_it_documents() {
    // At run time: a binary built from another checkout keeps its path at compile time.
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    let path = Path::new(&dir).join("../configs/train.toml");
    let file = load_train_file(Some(&path)).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
    assert_eq!(file.train.export_average, 0.0);
    // The learning targets and the augmentation of configs/quick.toml's recipe.
    let quick = std::fs::read_to_string(Path::new(&dir).join("../configs/quick.toml")).unwrap();
    let quick: toml::Value = toml::from_str(&quick).unwrap();
    let q = &quick["train"];
    assert_eq!(
        (file.train.value_q_mix, file.train.value_horizon as i64, file.train.value_horizon_mix, file.train.mirror_augment),
        (
            q["value_q_mix"].as_float().unwrap(),
            q["value_horizon"].as_integer().unwrap(),
            q["value_horizon_mix"].as_float().unwrap(),
            q["mirror_augment"].as_bool().unwrap()
        )
    );
    assert!(file.train.mirror_augment && !TrainConfig::default().mirror_augment, "the file says where it differs from the defaults");
    // An unknown key is refused, naming it.
    let text = std::fs::read_to_string(&path).unwrap().replace("export_average =", "export_averag =");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("train.toml");
    std::fs::write(&bad, text).unwrap();
    let Err(e) = load_train_file(Some(&bad)) else { panic!("an unknown key must be refused") };
    let e = format!("{e:#}");
    assert!(e.contains("export_averag"), "{e}");
}

#[test]
fn train_run_checkpoints_a_fresh_run_at_zero_steps_and_resumes_it() {
    // A registered game's data: a fresh run's network is sized by its spec.
    let paco = pacozero_data::spec_of(pacozero_engine::GameKind::Paco);
    let run = tempfile::tempdir().unwrap();
    write_data_of(&run.path().join("data"), &paco, 100, 2);
    let config = run.path().join("train.toml");
    let file = "[net]\nblocks = 1\nchannels = 8\nse_ratio = 0\n[train]\nbatch_size = 16\nprogress = false\nthreads = 2\n";
    std::fs::write(&config, file).unwrap();
    // Zero steps: a checkpoint at step 0 and nothing exported.
    let r = train_run(run.path(), Some(&config), 0, None).unwrap();
    assert_eq!((r.step, r.summary.steps), (0, 0));
    assert!(r.fresh.is_none() && r.exported.is_none());
    assert_eq!(Trainer::resume(run.path(), &default_device()).unwrap().step(), 0);
    // Then 3 steps resume it, export a model and leave a checkpoint at step 3.
    let r = train_run(run.path(), Some(&config), 3, Some("gen-0001")).unwrap();
    assert_eq!(r.step, 3);
    let exported = r.exported.expect("asked for an export");
    assert!(exported.is_file(), "{}", exported.display());
    assert_eq!(Trainer::resume(run.path(), &default_device()).unwrap().step(), 3);
    // Newer games: a stage with nothing to train does not measure them,
    // one with a step to train does, before training on them.
    write_newer_chunk_of(&run.path().join("data"), &paco, "chunk-100");
    let file = TrainFile::from_toml_str(&std::fs::read_to_string(&config).unwrap(), "train.toml").unwrap();
    let net = file.net.to_config(&paco).unwrap();
    let stage = |steps| TrainStage { net: net.clone(), train: file.train.clone(), steps, data_upto: None, fresh_window_from: None, export: None };
    let r = train_stage(run.path(), stage(Steps::UpTo(3))).unwrap();
    assert!(r.fresh.is_none() && r.step == 3 && r.summary.steps == 0);
    let r = train_stage(run.path(), stage(Steps::UpTo(4))).unwrap();
    assert_eq!(r.step, 4);
    assert_eq!(r.fresh.map(|f| f.rows), Some(40), "the 40 newer positions measured");
}

/// A fresh run's network is sized from the newest chunk's metadata only
/// once its sizes are its game's (from the registry): an edited chunk
/// that declares other sizes, or a game there is not, builds nothing.
#[test]
fn a_fresh_run_is_sized_by_its_games_spec_not_by_a_chunks_metadata() {
    let paco = pacozero_data::spec_of(pacozero_engine::GameKind::Paco);
    let config = "[net]\nblocks = 1\nchannels = 8\nse_ratio = 0\n[train]\nbatch_size = 16\nprogress = false\nthreads = 2\n";
    let file = || TrainFile::from_toml_str(config, "train.toml").unwrap();
    let aux: Vec<&str> = paco.aux_targets.iter().map(String::as_str).collect();
    let edited = [
        (GameSpec::new("paco", 8, 8, paco.bit_planes, paco.scalars, paco.policy_size + 1, &aux).unwrap(), "policy_size = 133, but paco's is 132"),
        (GameSpec::new("paco", 8, 8, paco.bit_planes + 1, paco.scalars, paco.policy_size, &aux).unwrap(), "bit_planes = 32, but paco's is 31"),
        (GameSpec::new("paco", 8, 8, paco.bit_planes, paco.scalars, paco.policy_size, &["a", "b"]).unwrap(), "aux_targets = \"a,b\", but paco's are"),
        (spec(), "game = \"pacosako\""),
    ];
    for (s, what) in edited {
        let run = tempfile::tempdir().unwrap();
        let data = run.path().join("data");
        write_data_of(&data, &s, 40, 1);
        let e = format!("{:#}", train_run_with(run.path(), file(), 1, None).err().expect("refused"));
        assert!(e.starts_with(&format!("{}: the newest chunk's metadata says {what}", data.display())), "{e}");
        assert!(e.ends_with("no network is built from it"), "{e}");
        assert!(!run.path().join("checkpoints").exists(), "nothing trained: {e}");
    }
    // The game's own sizes train.
    let run = tempfile::tempdir().unwrap();
    write_data_of(&run.path().join("data"), &paco, 40, 1);
    assert_eq!(train_run_with(run.path(), file(), 1, None).unwrap().step, 1);
}

/// Every architecture key of `[net]` reaches the network's configuration;
/// a loop's configuration is read for its `[net]` and `[train]` tables
/// only, a training file's other tables are refused.
#[test]
fn the_net_table_carries_every_key_and_a_loop_config_is_read_for_its_tables() {
    let text = "[net]\nblocks = 3\nchannels = 24\nse_ratio = 3\npolicy_channels = 5\nvalue_channels = 6\nvalue_hidden = 40\nvalue_pool = true\nreply_policy = true\n[train]\nbatch_size = 17\n";
    let f = TrainFile::from_toml_str(text, "a.toml").unwrap();
    let n = f.net.to_config(&spec()).unwrap();
    assert_eq!(
        (n.blocks, n.channels, n.se_ratio, n.policy_channels, n.value_channels, n.value_hidden, n.value_pool, n.reply_policy),
        (3, 24, 3, 5, 6, 40, true, true)
    );
    assert_eq!((n.policy_size, n.bit_planes), (spec().policy_size, spec().bit_planes), "sizes from the data");
    assert_eq!(f.train.batch_size, 17);
    let in_loop = TrainFile::from_toml_str(&format!("{text}[loop]\ngenerations = 2\n[selfplay]\nx = 1\n"), "config.toml").unwrap();
    assert_eq!((in_loop.net.blocks, in_loop.net.value_hidden, in_loop.train.batch_size), (3, 40, 17));
    let e = format!("{:#}", TrainFile::from_toml_str(&format!("{text}[selfplay]\nx = 1\n"), "b.toml").unwrap_err());
    assert!(e.starts_with("b.toml: invalid training config") && e.contains("selfplay"), "{e}");
    let e = TrainFile::from_toml_str("[net]\nblocks = 0\n", "c.toml").unwrap_err().to_string();
    assert!(e.starts_with("c.toml: [net]: ") && e.ends_with("net.blocks = 0 is out of range 1..=64"), "{e}");
}

/// Batches walk a permutation of the window: every row once per pass, then
/// a new window; `reload_every_steps` reloads sooner. Each step reports its
/// step, samples, learning rate and window.
#[test]
fn batches_walk_the_window_once_then_reload_it() {
    let data = tempfile::tempdir().unwrap();
    let run = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 2);
    let cfg = TrainConfig { batch_size: 16, window_max: 64, min_positions: 64, ..test_cfg() };
    let mut t = Trainer::new(run.path(), NetConfig::tiny_for(&spec()), cfg.clone(), &default_device()).unwrap();
    let first = t.train_steps(data.path(), 1).unwrap().last;
    let rows = t.data_position().window_rows;
    assert!(rows >= 32 && rows.is_multiple_of(16), "{rows}");
    assert_eq!((first.step, first.samples_seen, first.window_rows, first.lr), (1, 16, rows, cfg.lr_at(0)));
    assert!(first.samples_per_sec > 16.0, "a step of 16 rows takes less than a second: {}", first.samples_per_sec);
    let mut seen: std::collections::HashSet<(u64, u32)> = t.last_batch().iter().copied().collect();
    assert_eq!((t.data_position().cursor, t.data_position().windows_loaded, seen.len()), (16, 1, 16));
    for k in 2..=rows / 16 {
        t.train_steps(data.path(), 1).unwrap();
        assert_eq!(t.last_batch().len(), 16);
        seen.extend(t.last_batch().iter().copied());
        assert_eq!((t.data_position().cursor, t.data_position().windows_loaded), (16 * k, 1));
    }
    assert_eq!(seen.len(), rows, "one pass: every row of the window once");
    let m = t.train_steps(data.path(), 1).unwrap().last;
    assert_eq!((t.data_position().cursor, t.data_position().windows_loaded, t.data_position().loaded_at_step), (16, 2, rows as u64 / 16));
    assert_eq!((m.step, m.samples_seen, m.lr), (rows as u64 / 16 + 1, 16 * (rows as u64 / 16 + 1), cfg.lr_at(rows as u64 / 16)));
    assert_eq!(t.train_config().batch_size, 16);

    // Reloaded every 2 steps: a new window at step 3 (the third batch).
    let run2 = tempfile::tempdir().unwrap();
    let mut t = Trainer::new(run2.path(), NetConfig::tiny_for(&spec()), TrainConfig { reload_every_steps: 2, ..cfg.clone() }, &default_device()).unwrap();
    let loaded: Vec<u64> = (0..4)
        .map(|_| {
            t.train_steps(data.path(), 1).unwrap();
            t.data_position().windows_loaded
        })
        .collect();
    assert_eq!(loaded, [1, 1, 2, 2]);

    // Too few positions for train.min_positions: refused, naming both.
    let run3 = tempfile::tempdir().unwrap();
    let mut t = Trainer::new(run3.path(), NetConfig::tiny_for(&spec()), TrainConfig { min_positions: 65, ..cfg }, &default_device()).unwrap();
    let e = t.train_steps(data.path(), 1).unwrap_err().to_string();
    assert!(e.contains("64 positions in complete chunks, train.min_positions = 65"), "{e}");
}

/// A stage that must train on the newest games replaces a window loaded
/// before it (the loop's `fresh_window`), and keeps one loaded during it
/// (a stage resumed from a checkpoint inside it).
#[test]
fn a_stage_refreshes_a_window_loaded_before_it_and_keeps_one_loaded_during_it() {
    let data = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 2);
    let cfg = TrainConfig { batch_size: 8, window_max: 1000, min_positions: 8, ..test_cfg() };
    let run = tempfile::tempdir().unwrap();
    let mut t = Trainer::new(run.path(), NetConfig::tiny_for(&spec()), cfg, &default_device()).unwrap();
    t.train_steps(data.path(), 2).unwrap();
    assert_eq!((t.data_position().windows_loaded, t.data_position().loaded_at_step), (1, 0));
    write_newer_chunk(data.path(), "chunk-009");
    // Without a refresh the window goes on (it is not used up).
    t.train_steps(data.path(), 1).unwrap();
    assert_eq!(t.data_position().windows_loaded, 1);
    assert!(!t.data_position().chunks.contains(&"chunk-009".to_string()));
    // A stage starting at step 0 keeps the window it loaded at step 0.
    t.refresh_window_loaded_before(0);
    t.train_steps(data.path(), 1).unwrap();
    assert_eq!(t.data_position().windows_loaded, 1);
    // A stage starting at step 4: a new window, with the new chunk.
    t.refresh_window_loaded_before(4);
    t.train_steps(data.path(), 1).unwrap();
    assert_eq!((t.data_position().windows_loaded, t.data_position().loaded_at_step), (2, 4));
    assert!(t.data_position().chunks.contains(&"chunk-009".to_string()), "{:?}", t.data_position().chunks);
    // Asked again in the same stage: kept.
    t.refresh_window_loaded_before(4);
    t.train_steps(data.path(), 1).unwrap();
    assert_eq!(t.data_position().windows_loaded, 2);
}

/// Metrics rows at every `metrics_every` steps and at the last; the
/// summary's mean is the mean of the steps' losses.
#[test]
fn metrics_are_written_every_so_many_steps_and_at_the_last() {
    let data = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 2);
    let steps_written = |run: &Path| -> Vec<(u64, f64)> {
        let text = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let (s, l) = (header.iter().position(|h| *h == "step").unwrap(), header.iter().position(|h| *h == "loss").unwrap());
        lines.map(|line| line.split(',').collect::<Vec<_>>()).map(|v| (v[s].parse().unwrap(), v[l].parse().unwrap())).collect()
    };
    let run = tempfile::tempdir().unwrap();
    let mut t =
        Trainer::new(run.path(), NetConfig::tiny_for(&spec()), TrainConfig { metrics_every: 3, batch_size: 8, ..test_cfg() }, &default_device()).unwrap();
    let s = t.train_steps(data.path(), 7).unwrap();
    assert_eq!(steps_written(run.path()).iter().map(|r| r.0).collect::<Vec<_>>(), [3, 6, 7]);
    assert_eq!((s.steps, s.first.step, s.last.step), (7, 1, 7));
    // 56 samples in well under 7 s.
    assert!(s.samples_per_sec > 8.0 && s.samples_per_sec.is_finite(), "{}", s.samples_per_sec);
    let run = tempfile::tempdir().unwrap();
    let mut t =
        Trainer::new(run.path(), NetConfig::tiny_for(&spec()), TrainConfig { metrics_every: 1, batch_size: 8, ..test_cfg() }, &default_device()).unwrap();
    let s = t.train_steps(data.path(), 5).unwrap();
    let rows = steps_written(run.path());
    let mean = rows.iter().map(|r| r.1).sum::<f64>() / 5.0;
    assert!((s.mean_loss - mean).abs() < 1e-4 * mean.abs().max(1.0), "{} vs {mean}", s.mean_loss);
    assert_eq!(t.train_steps(data.path(), 0).unwrap().mean_loss, 0.0);
    // A second call's rate counts its own samples only (40), not the 40
    // of the first call too: timed from outside, at most twice the rate.
    let t0 = std::time::Instant::now();
    let s = t.train_steps(data.path(), 5).unwrap();
    let outside = 40.0 / t0.elapsed().as_secs_f64();
    assert!(s.samples_per_sec >= outside && s.samples_per_sec < 2.0 * outside, "{} samples/s, {outside} timed outside", s.samples_per_sec);
}

/// SGD's momentum, weight decay and gradient clipping each change what a
/// few steps do (each is on only when its setting is above 0).
#[test]
fn the_optimizer_settings_each_change_training() {
    let data = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 2);
    let trained = |cfg: TrainConfig| {
        let run = tempfile::tempdir().unwrap();
        let mut t = Trainer::new(run.path(), NetConfig::tiny_for(&spec()), cfg, &default_device()).unwrap();
        t.train_steps(data.path(), 3).unwrap();
        weights(t.model())
    };
    let plain = TrainConfig { optimizer: OptimizerKind::Sgd, momentum: 0.0, weight_decay: 0.0, grad_clip_norm: 0.0, warmup_steps: 0, lr: 0.05, ..test_cfg() };
    // The largest difference of two networks' weights.
    let apart = |a: &[Vec<f32>], b: &[Vec<f32>]| a.iter().flatten().zip(b.iter().flatten()).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
    let base = trained(plain.clone());
    // Threads sum in any order: the same settings give the weights up to rounding.
    let again = apart(&trained(plain.clone()), &base);
    for (what, cfg) in [
        ("momentum", TrainConfig { momentum: 0.9, ..plain.clone() }),
        ("weight decay", TrainConfig { weight_decay: 0.5, ..plain.clone() }),
        ("gradient clipping", TrainConfig { grad_clip_norm: 1e-3, ..plain.clone() }),
    ] {
        let d = apart(&trained(cfg), &base);
        assert!(d > 1e-3 && d > 10.0 * again, "{what} moves the weights by {d} (a rerun by {again})");
    }
}

/// burn keeps batch normalisation's running statistics per thread; the
/// trainer syncs them after every step, so a step run by another pool worker
/// starts from the statistics of the step before. Without the sync, reruns
/// on a two-thread pool differed by the thread schedule (by ~0.09 in the
/// running means after three steps) and from a one-thread run.
#[test]
fn running_statistics_do_not_depend_on_which_pool_thread_runs_a_step() {
    let data = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 2);
    let trained = |threads: usize| {
        let run = tempfile::tempdir().unwrap();
        let cfg = TrainConfig { optimizer: OptimizerKind::Sgd, warmup_steps: 0, lr: 0.05, threads, ..test_cfg() };
        let mut t = Trainer::new(run.path(), NetConfig::tiny_for(&spec()), cfg, &default_device()).unwrap();
        t.train_steps(data.path(), 3).unwrap();
        weights(t.model())
    };
    let apart = |a: &[Vec<f32>], b: &[Vec<f32>]| a.iter().flatten().zip(b.iter().flatten()).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
    let one = trained(1);
    for run in 0..24 {
        let d = apart(&trained(2), &one);
        assert!(d < 1e-4, "run {run} on two threads is {d} from the one-thread run");
    }
}

/// `checkpoint_every` saves between the steps of one call (the last step's
/// save is the call's own, after the average is folded). Seen by making
/// every save fail (a directory where the checkpoint goes): the call stops
/// at the first save, so the trainer's step tells which step saved first.
#[test]
fn checkpoints_are_saved_every_so_many_steps_within_a_call() {
    let data = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 2);
    let first_save = |every: u64, steps: u64| {
        let run = tempfile::tempdir().unwrap();
        let mut t =
            Trainer::new(run.path(), NetConfig::tiny_for(&spec()), TrainConfig { checkpoint_every: every, batch_size: 8, ..test_cfg() }, &default_device())
                .unwrap();
        let blocker = checkpoint_path(run.path());
        std::fs::create_dir_all(blocker.join("in-the-way")).unwrap();
        // A call of no steps saves nothing.
        assert_eq!(t.train_steps(data.path(), 0).unwrap().steps, 0);
        let e = t.train_steps(data.path(), steps).unwrap_err();
        assert!(e.to_string().contains(&blocker.display().to_string()), "{e}");
        t.step()
    };
    assert_eq!(first_save(2, 5), 2);
    assert_eq!(first_save(3, 5), 3);
    assert_eq!(first_save(1, 2), 1);
    // The last step's save only: at the end, whatever checkpoint_every says.
    assert_eq!(first_save(2, 2), 2);
    assert_eq!(first_save(0, 3), 3);
}

/// A resumed run re-reads the checkpointed window; chunks that now hold
/// fewer rows than it had are refused, naming both counts.
#[test]
fn a_resume_refuses_chunks_that_shrank() {
    let data = tempfile::tempdir().unwrap();
    write_data(data.path(), 64, 2);
    let run = tempfile::tempdir().unwrap();
    let mut t = Trainer::new(run.path(), NetConfig::tiny_for(&spec()), TrainConfig { batch_size: 8, ..test_cfg() }, &default_device()).unwrap();
    t.train_steps(data.path(), 2).unwrap();
    drop(t);
    // The same chunk names, 16 rows each instead of 32.
    let smaller = tempfile::tempdir().unwrap();
    write_data(smaller.path(), 32, 2);
    let mut r = Trainer::resume(run.path(), &default_device()).unwrap();
    let e = r.train_steps(smaller.path(), 1).unwrap_err().to_string();
    assert!(e.contains("checkpointed window had 64 rows, its chunks now hold 32"), "{e}");
    // The whole chunks are still accepted.
    let mut r = Trainer::resume(run.path(), &default_device()).unwrap();
    assert_eq!(r.train_steps(data.path(), 1).unwrap().last.step, 3);
}
