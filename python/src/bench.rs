//! The Rust side of the Python benchmark (`python -m pacozero.bench`): the
//! same work as the Python loops, done in Rust, so the benchmark reports
//! Python's throughput as a ratio to Rust's.

use std::time::Instant;

use pacozero_batch::{permutation, Batch, TrainConfig};
use pacozero_data::decode_into;
use pacozero_data::game_spec;
use pacozero_engine::{Game, GameKind};
use pyo3::prelude::*;
use rand::{RngCore, SeedableRng};

use crate::data::data_dir;
use crate::games::{encode_packed, value_error};

/// The benchmark playouts' choice among `n` legal actions at decision `k`
/// (the Python loop uses the same formula, so both play the same games).
fn pick(k: u64, n: usize) -> usize {
    ((k.wrapping_mul(2_654_435_761)) & 0xFFFF_FFFF) as usize % n
}

/// `decisions` decisions of playouts from the standard start (a finished or
/// stuck game starts again): legal actions, then apply.
fn playout<G: Game>(decisions: u64) -> f64 {
    let start = G::start();
    let mut g = start.clone();
    let mut legal = Vec::new();
    let t = Instant::now();
    let mut k = 0;
    while k < decisions {
        g.playable_actions(&mut legal);
        if legal.is_empty() {
            g = start.clone();
            continue;
        }
        g.apply(legal[pick(k, legal.len())]);
        k += 1;
    }
    t.elapsed().as_secs_f64()
}

/// Encodes the first `n` states of the same playouts into fresh dense arrays
/// (what `state.encode()` returns); the states are collected untimed.
fn encode<G: Game>(n: u64) -> f64 {
    let start = G::start();
    let mut g = start.clone();
    let mut legal = Vec::new();
    let mut states = Vec::with_capacity(n as usize);
    let mut k = 0;
    while (states.len() as u64) < n {
        g.playable_actions(&mut legal);
        if legal.is_empty() {
            g = start.clone();
            continue;
        }
        states.push(g.clone());
        g.apply(legal[pick(k, legal.len())]);
        k += 1;
    }
    let spec = game_spec::<G>();
    let t = Instant::now();
    let mut sink = 0.0f32;
    for s in &states {
        let (planes, scalars) = encode_packed(s);
        let mut x = vec![0f32; spec.input_len()];
        decode_into(&spec, &planes, &scalars, &mut x);
        sink += x[0];
    }
    std::hint::black_box(sink);
    t.elapsed().as_secs_f64()
}

/// One shuffled pass over a data window in batches (`Batch::build`), as
/// `pacozero.data.open(path, batch_size=...)` iterates it; the window is read
/// untimed. Returns (rows, seconds).
fn data_pass(path: &str, batch_size: usize) -> Result<(u64, f64), String> {
    let cfg = TrainConfig::default();
    let dir = data_dir(path);
    let all = pacozero_data::list_chunks(&dir).map_err(|e| e.to_string())?;
    let mut total = 0;
    for c in &all {
        total += c.num_positions().map_err(|e| e.to_string())?;
    }
    let w = pacozero_data::read_positions_window(&dir, cfg.window_size(total).max(1)).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(cfg.seed);
    let order = permutation(w.rows.len(), rng.next_u64());
    let mut rows = 0u64;
    for idx in order.chunks(batch_size.max(1)) {
        if idx.len() < batch_size {
            break;
        }
        let b = Batch::build(&w.spec, &w.rows, idx, cfg.value_q_mix);
        rows += b.n as u64;
    }
    Ok((rows, t.elapsed().as_secs_f64()))
}

/// The timed game benchmarks, for [`game_bench`].
enum GameBench {
    Playout(u64),
    Encode(u64),
}

/// Runs a timed game benchmark of game `G`: returns seconds.
fn game_bench<G: Game>(bench: GameBench) -> f64 {
    match bench {
        GameBench::Playout(n) => playout::<G>(n),
        GameBench::Encode(n) => encode::<G>(n),
    }
}

/// Runs the Rust side of a benchmark: `what` is `playout` (n decisions),
/// `encode` (n states) or `data` (one pass over the data at `path`);
/// `game` is a registered game's name (default: the registry's default
/// game); returns (items, seconds).
#[pyfunction]
#[pyo3(signature = (what, game=None, n=100_000, path=None, batch_size=256))]
pub fn bench_rust(py: Python<'_>, what: &str, game: Option<&str>, n: u64, path: Option<&str>, batch_size: usize) -> PyResult<(u64, f64)> {
    let kind = match game {
        None => GameKind::default(),
        Some(g) => g.parse().map_err(value_error)?,
    };
    let what = what.to_string();
    let path = path.map(str::to_string);
    py.detach(move || match what.as_str() {
        "playout" => Ok((n, pacozero_engine::with_game!(kind, G => game_bench::<G>(GameBench::Playout(n))))),
        "encode" => Ok((n, pacozero_engine::with_game!(kind, G => game_bench::<G>(GameBench::Encode(n))))),
        "data" => data_pass(path.as_deref().ok_or("the data benchmark needs a path")?, batch_size),
        _ => Err(format!("unknown benchmark {what:?} for game {kind}")),
    })
    .map_err(value_error)
}
