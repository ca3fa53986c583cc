//! `pacozero.data`: the training data as the trainer sees it. The window is
//! the trainer's (`TrainConfig::window_size` of the positions on disk, read by
//! `read_positions_window`), the order is the trainer's (one
//! `pacozero_batch::permutation` per pass, its seed drawn from a ChaCha8
//! generator seeded with `train.seed`, as `Trainer` draws it), and each batch
//! is built by `pacozero_batch::Batch::build`, the function of the training
//! step.

use std::path::{Path, PathBuf};

use numpy::ndarray::Array;
use numpy::IntoPyArray;
use pacozero_batch::{permutation, Batch, TrainConfig};
use pacozero_data::{list_chunks, read_games_file, read_positions_window, GameSpec, PositionRow};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use crate::games::value_error;

/// The `[train]` table of a TOML file (other tables are ignored: a loop
/// configuration works too).
#[derive(Deserialize)]
struct TrainTable {
    #[serde(default)]
    train: TrainConfig,
}

pub fn train_config(path: Option<&str>) -> PyResult<TrainConfig> {
    let Some(path) = path else { return Ok(TrainConfig::default()) };
    let text = std::fs::read_to_string(path).map_err(|e| value_error(format!("{path}: {e}")))?;
    let t: TrainTable = toml::from_str(&text).map_err(|e| value_error(format!("{path}: {e}")))?;
    t.train.validate().map_err(|e| value_error(format!("{path}: {e}")))?;
    Ok(t.train)
}

/// The data directory of a run directory (`<run>/data`), or the directory itself.
pub fn data_dir(path: &str) -> PathBuf {
    pacozero_data::RunDir::data_of(Path::new(path))
}

/// An iterator over batches of position rows (see `pacozero.data.open`).
#[pyclass(module = "pacozero._native")]
pub struct DataIter {
    spec: GameSpec,
    rows: Vec<PositionRow>,
    chunks: Vec<String>,
    order: Vec<u32>,
    cursor: usize,
    batch_size: usize,
    q_mix: f64,
    shuffle: bool,
    drop_last: bool,
    passes_left: u64,
    rng: ChaCha8Rng,
    /// Seed of the current pass's permutation (`None` in file order).
    perm_seed: Option<u64>,
}

impl DataIter {
    fn new_pass(&mut self) {
        self.perm_seed = self.shuffle.then(|| self.rng.next_u64());
        self.order = match self.perm_seed {
            Some(seed) => permutation(self.rows.len(), seed),
            None => (0..self.rows.len() as u32).collect(),
        };
        self.cursor = 0;
    }

    /// The indices of the next batch, `None` at the end.
    fn next_indices(&mut self) -> Option<Vec<u32>> {
        loop {
            let len = self.order.len();
            let bs = self.batch_size.min(len.max(1));
            let take = if self.cursor + bs <= len {
                bs
            } else if !self.drop_last && self.cursor < len {
                len - self.cursor
            } else {
                0
            };
            if take > 0 {
                let idx = self.order[self.cursor..self.cursor + take].to_vec();
                self.cursor += take;
                return Some(idx);
            }
            if self.passes_left <= 1 || self.rows.is_empty() {
                self.passes_left = 0;
                return None;
            }
            self.passes_left -= 1;
            self.new_pass();
        }
    }
}

fn spec_dict<'py>(py: Python<'py>, spec: &GameSpec) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("game", &spec.game)?;
    d.set_item("board_height", spec.board_height)?;
    d.set_item("board_width", spec.board_width)?;
    d.set_item("bit_planes", spec.bit_planes)?;
    d.set_item("scalars", spec.scalars)?;
    d.set_item("policy_size", spec.policy_size)?;
    d.set_item("aux_targets", &spec.aux_targets)?;
    Ok(d)
}

/// The batch of rows `idx` as a dict of NumPy arrays.
pub fn batch_dict<'py>(py: Python<'py>, spec: &GameSpec, rows: &[PositionRow], idx: &[u32], q_mix: f64) -> PyResult<Bound<'py, PyDict>> {
    let b: Batch = py.detach(|| Batch::build(spec, rows, idx, q_mix));
    let (n, c, h, w, p) = (b.n, b.c, b.h, b.w, b.p);
    let s = spec.scalars as usize;
    let d = PyDict::new(py);
    let legal: Vec<bool> = b.mask.iter().map(|&m| m == 0.0).collect();
    let mut scalars = Vec::with_capacity(n * s);
    for &i in idx {
        scalars.extend_from_slice(&rows[i as usize].scalars);
    }
    let shape_err = |e: numpy::ndarray::ShapeError| value_error(e);
    let x = Array::from_shape_vec((n, c, h, w), b.x).map_err(shape_err)?.into_pyarray(py);
    d.set_item("x", x)?;
    d.set_item("scalars", Array::from_shape_vec((n, s), scalars).map_err(shape_err)?.into_pyarray(py))?;
    d.set_item("legal", Array::from_shape_vec((n, p), legal).map_err(shape_err)?.into_pyarray(py))?;
    d.set_item("mask", Array::from_shape_vec((n, p), b.mask).map_err(shape_err)?.into_pyarray(py))?;
    d.set_item("policy", Array::from_shape_vec((n, p), b.policy).map_err(shape_err)?.into_pyarray(py))?;
    d.set_item("policy_weight", b.policy_w.into_pyarray(py))?;
    d.set_item("wdl", Array::from_shape_vec((n, 3), b.wdl).map_err(shape_err)?.into_pyarray(py))?;
    d.set_item("weight", b.row_w.into_pyarray(py))?;
    d.set_item("moves_left", b.moves_left.into_pyarray(py))?;
    d.set_item("moves_left_weight", b.moves_left_w.into_pyarray(py))?;
    let aux = Array::from_shape_vec((n, b.naux), b.aux).map_err(shape_err)?.into_pyarray(py);
    // `sako` is the key of earlier builds (Paco Ŝako's two targets): the same array.
    d.set_item("sako", &aux)?;
    d.set_item("aux", aux)?;
    d.set_item("result", b.result.into_pyarray(py))?;
    d.set_item("game_id", idx.iter().map(|&i| rows[i as usize].game_id).collect::<Vec<u64>>().into_pyarray(py))?;
    d.set_item("ply", idx.iter().map(|&i| rows[i as usize].ply).collect::<Vec<u32>>().into_pyarray(py))?;
    Ok(d)
}

#[pymethods]
impl DataIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(mut slf: PyRefMut<'py, Self>, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(idx) = slf.next_indices() else { return Ok(None) };
        let this = &*slf;
        batch_dict(py, &this.spec, &this.rows, &idx, this.q_mix).map(Some)
    }

    /// Batches left in this pass and the passes after it.
    fn __len__(&self) -> usize {
        let len = self.rows.len();
        let bs = self.batch_size.min(len.max(1));
        let per_pass = if self.drop_last { len / bs } else { len.div_ceil(bs) };
        let left = len.saturating_sub(self.cursor);
        let this_pass = if self.drop_last { left / bs } else { left.div_ceil(bs) };
        this_pass + per_pass * self.passes_left.saturating_sub(1) as usize
    }

    /// Rows in the window.
    #[getter]
    fn rows(&self) -> usize {
        self.rows.len()
    }

    /// Stems of the window's chunks, oldest first.
    #[getter]
    fn chunks(&self) -> Vec<String> {
        self.chunks.clone()
    }

    /// Seed of the current pass's permutation, as the trainer records it in
    /// its checkpoint (`data.perm_seed`); `None` without shuffling.
    #[getter]
    fn perm_seed(&self) -> Option<u64> {
        self.perm_seed
    }

    #[getter]
    fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// The data's game spec: game, board size, planes, scalars, policy size.
    #[getter]
    fn spec<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        spec_dict(py, &self.spec)
    }
}

/// Opens the training window of a data directory (see `pacozero.data.open`).
#[pyfunction]
#[pyo3(signature = (path, *, config=None, batch_size=None, window=None, shuffle=true, seed=None, value_q_mix=None, passes=1, drop_last=None))]
#[allow(clippy::too_many_arguments)]
pub fn open_data(
    py: Python<'_>,
    path: &str,
    config: Option<&str>,
    batch_size: Option<usize>,
    window: Option<usize>,
    shuffle: bool,
    seed: Option<u64>,
    value_q_mix: Option<f64>,
    passes: u64,
    drop_last: Option<bool>,
) -> PyResult<DataIter> {
    let mut cfg = train_config(config)?;
    if let Some(b) = batch_size {
        cfg.batch_size = b;
    }
    if let Some(q) = value_q_mix {
        cfg.value_q_mix = q;
    }
    if let Some(s) = seed {
        cfg.seed = s;
    }
    cfg.validate().map_err(value_error)?;
    let dir = data_dir(path);
    let (spec, rows, chunks) = py
        .detach(|| -> Result<_, String> {
            let all = list_chunks(&dir).map_err(|e| e.to_string())?;
            let mut total = 0u64;
            for c in &all {
                total += c.num_positions().map_err(|e| e.to_string())?;
            }
            if total == 0 {
                return Err(format!("{}: no positions in complete chunks", dir.display()));
            }
            let size = window.unwrap_or_else(|| cfg.window_size(total)).max(1);
            let w = read_positions_window(&dir, size).map_err(|e| e.to_string())?;
            Ok((w.spec, w.rows, w.chunks))
        })
        .map_err(value_error)?;
    let mut it = DataIter {
        spec,
        rows,
        chunks,
        order: Vec::new(),
        cursor: 0,
        batch_size: cfg.batch_size,
        q_mix: cfg.value_q_mix,
        shuffle,
        drop_last: drop_last.unwrap_or(shuffle),
        passes_left: passes,
        rng: ChaCha8Rng::seed_from_u64(cfg.seed),
        perm_seed: None,
    };
    if passes == 0 {
        it.order.clear();
    } else {
        it.new_pass();
    }
    Ok(it)
}

/// The games table of every complete chunk of a data directory, oldest
/// first, as a list of dicts (one per game).
#[pyfunction]
pub fn read_games<'py>(py: Python<'py>, path: &str) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let dir = data_dir(path);
    let games = py
        .detach(|| -> Result<_, String> {
            let mut out = Vec::new();
            for c in list_chunks(&dir).map_err(|e| e.to_string())? {
                let (_, g) = read_games_file(&c.games_path).map_err(|e| e.to_string())?;
                out.extend(g.into_iter().map(|g| (c.stem.clone(), g)));
            }
            Ok(out)
        })
        .map_err(value_error)?;
    games
        .into_iter()
        .map(|(stem, g)| {
            let d = PyDict::new(py);
            d.set_item("chunk", stem)?;
            d.set_item("game_id", g.game_id)?;
            d.set_item("start_fen", g.start_fen)?;
            d.set_item("actions", g.actions)?;
            d.set_item("num_decisions", g.num_decisions)?;
            d.set_item("result", g.result)?;
            d.set_item("reason", g.reason)?;
            d.set_item("network_id", g.network_id)?;
            d.set_item("seed", g.seed)?;
            d.set_item("white", g.white)?;
            d.set_item("black", g.black)?;
            Ok(d)
        })
        .collect()
}
