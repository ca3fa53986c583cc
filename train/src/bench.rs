//! [`bench_net`]: network speed against a plain-matmul reference of equal FLOPs.

use std::time::{Duration, Instant};

use burn::prelude::*;
use burn::tensor::{Distribution, TensorData};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::backend::training_device;
use crate::error::TrainResult;
use crate::losses::losses;
use burn::optim::{GradientsParams, SgdConfig};
use pacozero_batch::Batch;
use pacozero_batch::TrainConfig;
use pacozero_data::{GameSpec, PositionRow};
use pacozero_nn::backend::{in_pool, inference_device};
use pacozero_nn::{FastNet, NetConfig, NetPrecision};

/// Options of [`bench_net`].
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Inference batch sizes to measure.
    pub batch_sizes: Vec<usize>,
    /// Batch size of the training measurement.
    pub train_batch: usize,
    /// Minimum measured time per figure (after one warm-up run).
    pub min_time: Duration,
    /// CPU threads (0 = rayon global pool).
    pub threads: usize,
    /// The arithmetic of [`FastNet`]'s tower (`Auto` is resolved on this
    /// CPU): the CLI passes the process's (`--precision`).
    pub precision: NetPrecision,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions { batch_sizes: vec![1, 8, 32, 256], train_batch: 256, min_time: Duration::from_secs(2), threads: 0, precision: NetPrecision::Fp32 }
    }
}

/// One measured figure.
#[derive(Clone, Debug, Serialize)]
pub struct BenchLine {
    /// "infer" or "train".
    pub kind: String,
    pub batch: usize,
    /// Positions (samples) per second of the network.
    pub net_per_sec: f64,
    /// Positions per second the matmul reference of equal FLOPs achieves.
    pub matmul_per_sec: f64,
    /// `net_per_sec / matmul_per_sec` (1.0 = the net runs at plain-matmul speed).
    pub ratio: f64,
    /// Achieved GFLOP/s of the network and of the reference.
    pub net_gflops: f64,
    pub matmul_gflops: f64,
    /// Inference only: positions per second of [`FastNet`] on the same inputs
    /// (what [`pacozero_nn::Network`] uses on the CPU backend).
    pub fast_per_sec: Option<f64>,
}

/// Result of [`bench_net`].
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub backend: String,
    pub net: NetConfig,
    /// Forward FLOPs per position (2 x multiply-adds of convolutions and linear layers).
    pub flops_per_position: f64,
    pub lines: Vec<BenchLine>,
    /// The arithmetic [`FastNet`]'s tower ran in.
    pub fast_precision: NetPrecision,
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "backend {} | net {}x{} | {:.1} MFLOP/position (forward)",
            self.backend,
            self.net.blocks,
            self.net.channels,
            self.flops_per_position / 1e6
        )?;
        writeln!(
            f,
            "{:<6} {:>6} {:>12} {:>14} {:>7} {:>10} {:>12} {:>14} {:>10}",
            "kind", "batch", "net pos/s", "matmul pos/s", "ratio", "net GF/s", "matmul GF/s", "fastnet pos/s", "fast/burn"
        )?;
        for l in &self.lines {
            let (fast, speedup) = match l.fast_per_sec {
                Some(v) => (format!("{v:.1}"), format!("{:.2}x", v / l.net_per_sec)),
                None => ("-".into(), "-".into()),
            };
            writeln!(
                f,
                "{:<6} {:>6} {:>12.1} {:>14.1} {:>7.3} {:>10.2} {:>12.2} {:>14} {:>10}",
                l.kind, l.batch, l.net_per_sec, l.matmul_per_sec, l.ratio, l.net_gflops, l.matmul_gflops, fast, speedup
            )?;
        }
        Ok(())
    }
}

fn time_it(min_time: Duration, mut f: impl FnMut()) -> f64 {
    f(); // warm-up
    let start = Instant::now();
    let mut n = 0u32;
    while n == 0 || start.elapsed() < min_time {
        f();
        n += 1;
    }
    start.elapsed().as_secs_f64() / n as f64
}

/// Seconds per call of `f` and of `g`, timed alternately (one call each per round,
/// after one warm-up round) so that load from other processes hits both alike.
fn time_pair(min_time: Duration, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    f();
    g();
    let (mut tf, mut tg) = (Duration::ZERO, Duration::ZERO);
    let mut n = 0u32;
    while n == 0 || tf + tg < min_time * 2 {
        let t = Instant::now();
        f();
        tf += t.elapsed();
        let t = Instant::now();
        g();
        tg += t.elapsed();
        n += 1;
    }
    (tf.as_secs_f64() / n as f64, tg.as_secs_f64() / n as f64)
}

/// The products the matmul reference times for `flops`: `reps` products of
/// `[m, k] x [k, n]` shaped like one tower convolution (m = batch·H·W,
/// k = 9·C, n = C), i.e. what an im2col convolution would compute, each of
/// `per` flops.
#[derive(Debug, PartialEq)]
struct ReferencePlan {
    m: usize,
    k: usize,
    n: usize,
    per: f64,
    reps: usize,
}

impl ReferencePlan {
    fn new(net: &NetConfig, batch: usize, flops: f64) -> Self {
        let (m, k, n) = (batch * net.squares(), 9 * net.channels as usize, net.channels as usize);
        let per = 2.0 * m as f64 * k as f64 * n as f64;
        ReferencePlan { m, k, n, per, reps: (flops / per).round().max(1.0) as usize }
    }

    /// The time of `flops` from the time of one run of the plan (whose
    /// whole products round `flops`).
    fn time_for(&self, secs_per_run: f64, flops: f64) -> f64 {
        secs_per_run * flops / (self.reps as f64 * self.per)
    }
}

/// Seconds per run of matmuls totalling `flops` ([`ReferencePlan`]).
fn matmul_reference(device: &Device, net: &NetConfig, batch: usize, flops: f64, min_time: Duration) -> f64 {
    let plan = ReferencePlan::new(net, batch, flops);
    let a = Tensor::<2>::random([plan.m, plan.k], Distribution::Default, device);
    let b = Tensor::<2>::random([plan.k, plan.n], Distribution::Default, device);
    let secs = time_it(min_time, || {
        // The first element of each product, summed: the products cannot
        // be skipped as unused.
        let mut acc = 0.0f32;
        for _ in 0..plan.reps {
            let c = a.clone().matmul(b.clone()); // [m, n]
            acc += c.slice([0..1, 0..1]).into_data().as_slice::<f32>().map(|s| s[0]).unwrap_or(0.0);
        }
        std::hint::black_box(acc);
    });
    plan.time_for(secs, flops)
}

pub(crate) fn synthetic_rows(net: &NetConfig, n: usize, seed: u64) -> (GameSpec, Vec<PositionRow>) {
    let names: Vec<String> = (0..net.aux_targets).map(|a| format!("aux_{a}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let spec = GameSpec::new("bench", net.height, net.width, net.bit_planes, net.scalars, net.policy_size, &names).expect("valid net");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rows = (0..n)
        .map(|i| {
            let legal: Vec<u16> = (0..20u16.min(net.policy_size as u16)).map(|a| (a * 37 + i as u16) % net.policy_size as u16).collect();
            let mut legal = legal;
            legal.sort();
            legal.dedup();
            let k = legal.len();
            PositionRow {
                game_id: i as u64,
                ply: 0,
                side_to_move: 0,
                planes: (0..spec.plane_words()).map(|_| rng.gen::<u64>() & rng.gen::<u64>()).collect(),
                scalars: (0..spec.scalars).map(|_| rng.gen::<f32>()).collect(),
                action: legal[0],
                policy: vec![1.0 / k as f32; k],
                legal_actions: legal,
                full_search: true,
                root_q: 0.0,
                root_wdl: [0.4, 0.2, 0.4],
                result: [1, 0, -1][i % 3],
                moves_left: 10,
                // The last target set on every fifth row, the others never.
                aux_targets: (0..names.len()).map(|a| a + 1 == names.len() && i % 5 == 0).collect(),
                weight: 1.0,
                network_id: "bench".into(),
                truncated: false,
            }
        })
        .collect();
    (spec, rows)
}

/// Measure inference positions/s at each of `opts.batch_sizes` and training
/// samples/s at `opts.train_batch` for `net` on `device`, each against a
/// matmul workload of equal FLOPs (training counted as 3x forward FLOPs).
pub fn bench_net(net: &NetConfig, device: &Device, opts: &BenchOptions) -> TrainResult<BenchReport> {
    net.validate()?;
    let pool = crate::backend::training_pool(opts.threads)?;
    let dev = inference_device(device);
    let flops = net.flops_per_position();
    let mut lines = Vec::new();
    let fast_precision = in_pool(&pool, || -> TrainResult<NetPrecision> {
        let model = net.init(&dev)?.valid();
        // FastNet as Network runs it, in the precision asked.
        let fast = FastNet::from_model(&model, net)?.with_precision(opts.precision)?;
        let (c, h, w) = (net.input_channels(), net.height as usize, net.width as usize);
        for &b in &opts.batch_sizes {
            let data: Vec<f32> = (0..b * c * h * w).map(|i| ((i * 7919) % 3 == 0) as u8 as f32).collect();
            // burn and FastNet (as Network runs it: batches below its threshold on this
            // thread, larger ones over the current pool), timed alternately.
            let (secs, fast_secs) = time_pair(
                opts.min_time,
                || {
                    let x = Tensor::<4>::from_data(TensorData::new(data.clone(), [b, c, h, w]), &dev); // [B, Ci, H, W]
                    let out = model.forward(x);
                    std::hint::black_box(out.policy.into_data());
                    std::hint::black_box(out.wdl.into_data());
                },
                || {
                    std::hint::black_box(fast.forward(&data, b));
                },
            );
            let mm = matmul_reference(&dev, net, b, flops * b as f64, opts.min_time);
            let mut l = line("infer", b, secs, mm, flops * b as f64);
            l.fast_per_sec = Some(b as f64 / fast_secs);
            lines.push(l);
        }
        // Training: forward + backward + SGD step.
        let tdev = training_device(device);
        let b = opts.train_batch;
        let (spec, rows) = synthetic_rows(net, b, 7);
        let idx: Vec<u32> = (0..b as u32).collect();
        let batch = Batch::build(&spec, &rows, &idx, 0.0);
        let cfg = TrainConfig::default();
        let mut model = Some(net.init(&tdev)?);
        let mut optim = SgdConfig::new().init();
        let secs = time_it(opts.min_time, || {
            let m = model.take().expect("model");
            let l = losses(&m, &batch, &cfg, &tdev);
            let grads = GradientsParams::from_grads(l.total.backward(), &m);
            let m = optim.step(1e-3, m, grads);
            std::hint::black_box(l.policy.into_data());
            model = Some(m);
        });
        let mm = matmul_reference(&dev, net, b, 3.0 * flops * b as f64, opts.min_time);
        lines.push(line("train", b, secs, mm, 3.0 * flops * b as f64));
        Ok(fast.precision())
    })?;
    Ok(BenchReport { backend: format!("{device:?}"), net: net.clone(), flops_per_position: flops, lines, fast_precision })
}

fn line(kind: &str, batch: usize, net_secs: f64, mm_secs: f64, flops: f64) -> BenchLine {
    BenchLine {
        kind: kind.into(),
        batch,
        net_per_sec: batch as f64 / net_secs,
        matmul_per_sec: batch as f64 / mm_secs,
        ratio: mm_secs / net_secs,
        net_gflops: flops / net_secs / 1e9,
        matmul_gflops: flops / mm_secs / 1e9,
        fast_per_sec: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest network of a test game on an 8x8 board (50 actions,
    /// two auxiliary targets).
    fn tiny_net() -> NetConfig {
        NetConfig::tiny_for(&GameSpec::new("test", 8, 8, 4, 1, 50, &["first", "second"]).unwrap())
    }

    #[test]
    fn timing_runs_past_the_minimum_after_a_warm_up_and_gives_the_time_per_call() {
        let mut calls = 0u32;
        let per = time_it(Duration::from_millis(30), || {
            calls += 1;
            std::thread::sleep(Duration::from_millis(2));
        });
        // About 15 calls of 2 ms (the warm-up not timed).
        assert!(calls >= 2, "{calls}");
        assert!((0.002..0.02).contains(&per), "{per} s per call");
        let timed = (calls - 1) as f64;
        assert!(per * timed >= 0.030 && per * timed < 0.5, "{per} × {timed}");
        // A zero minimum still times one call.
        let mut calls = 0u32;
        let per = time_it(Duration::ZERO, || {
            calls += 1;
            std::thread::sleep(Duration::from_millis(1));
        });
        assert_eq!(calls, 2);
        assert!(per >= 0.001, "{per}");
    }

    #[test]
    fn paired_timing_alternates_and_times_each_side_alone() {
        let (mut nf, mut ng) = (0u32, 0u32);
        let wall = Instant::now();
        let (tf, tg) = time_pair(
            Duration::from_millis(20),
            || {
                nf += 1;
                std::thread::sleep(Duration::from_millis(1));
            },
            || {
                ng += 1;
                std::thread::sleep(Duration::from_millis(3));
            },
        );
        assert_eq!(nf, ng, "one call each per round");
        assert!(nf >= 2);
        // Each side's own time: 1 ms and 3 ms sleeps (or more, under load).
        assert!(tf >= 0.001 && tg >= 0.003 && tg > tf, "{tf} {tg}");
        // Both together run at least twice the minimum, and within the call.
        let timed = (tf + tg) * (nf - 1) as f64;
        assert!(timed >= 0.040 && timed <= wall.elapsed().as_secs_f64(), "{tf} {tg} × {}", nf - 1);
    }

    #[test]
    fn the_matmul_reference_times_products_of_the_given_flops() {
        let net = NetConfig { channels: 8, ..tiny_net() };
        let device = pacozero_nn::default_device();
        // One product of [2·64, 72] × [72, 8].
        let per = 2.0 * (2 * net.squares()) as f64 * 72.0 * 8.0;
        let one = matmul_reference(&device, &net, 2, per, Duration::from_millis(20));
        let forty = matmul_reference(&device, &net, 2, 40.0 * per, Duration::from_millis(20));
        assert!(one > 0.0 && one < 0.05, "{one} s");
        assert!(forty > 5.0 * one, "forty products {forty} s, one {one} s");
    }

    #[test]
    fn synthetic_rows_are_valid_rows_of_the_nets_game() {
        let net = tiny_net();
        let (bench, rows) = synthetic_rows(&net, 30, 7);
        assert_eq!((bench.game.as_str(), bench.policy_size, bench.aux_targets.len()), ("bench", 50, 2));
        let (mut ones, mut bits) = (0u32, 0u32);
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(r.legal_actions.len(), 20, "row {i}: 20 distinct actions");
            assert!(r.legal_actions.windows(2).all(|w| w[0] < w[1]) && r.legal_actions.iter().all(|&a| a < 50), "row {i}");
            assert!(r.legal_actions.contains(&(i as u16 % 50)), "row {i}");
            assert_eq!((r.action, r.policy.len()), (r.legal_actions[0], 20));
            assert_eq!(r.result, [1, 0, -1][i % 3]);
            assert_eq!(r.aux_targets, [false, i % 5 == 0], "row {i}: the last target on every fifth row");
            assert_eq!(r.scalars.len(), 1);
            ones += r.planes.iter().map(|w| w.count_ones()).sum::<u32>();
            bits += 64 * r.planes.len() as u32;
        }
        // Each plane bit is the AND of two random ones: a quarter set.
        let density = ones as f64 / bits as f64;
        assert!((0.2..0.3).contains(&density), "{density}");
        pacozero_batch::Batch::build(&bench, &rows, &(0..30).collect::<Vec<u32>>(), 0.0);
    }

    #[test]
    fn a_line_turns_times_into_rates() {
        // 8 positions in 0.5 s, the reference in 0.25 s, 4 GFLOP a batch.
        let l = line("infer", 8, 0.5, 0.25, 4e9);
        assert_eq!((l.kind.as_str(), l.batch), ("infer", 8));
        assert_eq!((l.net_per_sec, l.matmul_per_sec, l.ratio), (16.0, 32.0, 0.5));
        assert_eq!((l.net_gflops, l.matmul_gflops, l.fast_per_sec), (8.0, 16.0, None));
    }

    #[test]
    fn the_reference_plan_rounds_the_flops_to_whole_products() {
        let net = NetConfig { channels: 8, ..tiny_net() };
        let per = 2.0 * 192.0 * 72.0 * 8.0;
        let plan = ReferencePlan::new(&net, 3, 2.6 * per);
        assert_eq!(plan, ReferencePlan { m: 192, k: 72, n: 8, per, reps: 3 });
        // Three products timed at 1.5 s: 2.6 of them take 1.3 s.
        assert!((plan.time_for(1.5, 2.6 * per) - 1.3).abs() < 1e-9);
        // Fewer flops than one product: one, scaled down.
        let small = ReferencePlan::new(&net, 3, 0.25 * per);
        assert_eq!(small.reps, 1);
        assert!((small.time_for(2.0, 0.25 * per) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn the_report_is_a_table_of_its_lines() {
        let line = |kind: &str, fast: Option<f64>| BenchLine {
            kind: kind.into(),
            batch: 8,
            net_per_sec: 250.0,
            matmul_per_sec: 1000.0,
            ratio: 0.25,
            net_gflops: 1.5,
            matmul_gflops: 6.0,
            fast_per_sec: fast,
        };
        let r = BenchReport {
            backend: "flex".into(),
            net: NetConfig { blocks: 3, channels: 16, ..tiny_net() },
            flops_per_position: 2.5e6,
            lines: vec![line("infer", Some(500.0)), line("train", None)],
            fast_precision: NetPrecision::Fp32,
        };
        let text = r.to_string();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 4, "{text}");
        assert_eq!(rows[0], "backend flex | net 3x16 | 2.5 MFLOP/position (forward)");
        assert!(rows[1].starts_with("kind") && rows[1].ends_with("fast/burn"), "{text}");
        let infer: Vec<&str> = rows[2].split_whitespace().collect();
        assert_eq!(infer, ["infer", "8", "250.0", "1000.0", "0.250", "1.50", "6.00", "500.0", "2.00x"]);
        let train: Vec<&str> = rows[3].split_whitespace().collect();
        assert_eq!(train, ["train", "8", "250.0", "1000.0", "0.250", "1.50", "6.00", "-", "-"]);
    }
}
