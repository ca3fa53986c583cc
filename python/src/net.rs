//! `pacozero.Network` (a `.pzmodel` run through the workers' inference path,
//! `pacozero_nn::Network`, which uses the fast CPU network `FastNet` on
//! the default backend) and `pacozero.analyze` (the search of
//! `pacozero analyze`).

use std::path::{Path, PathBuf};

use numpy::ndarray::Array;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pacozero_data::GameSpec;
use pacozero_engine::prelude::*;
use pacozero_engine::with_state;
use pacozero_nn::NetworkEvaluator;
use pacozero_search::{masked_softmax, turns, Evaluator, Search, SearchResult};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use rand::SeedableRng;

use crate::games::{encode_dense_into, spec_as, value_error, State};

/// A model file, or a run directory whose `models/current` names one.
pub fn resolve_model(path: &Path) -> PyResult<PathBuf> {
    if path.is_dir() {
        pacozero_nn::current_model(path).map_err(|e| value_error(format!("{}: {e}", path.display())))
    } else {
        Ok(path.to_path_buf())
    }
}

/// A trained network (`.pzmodel`) ready to evaluate batches.
#[pyclass(module = "pacozero._native", name = "Network")]
pub struct Network {
    pub ev: NetworkEvaluator,
    path: PathBuf,
}

impl Network {
    fn input_shape(&self) -> (usize, usize, usize) {
        let c = self.ev.net.config();
        (c.input_channels(), c.height as usize, c.width as usize)
    }

    /// Checks that the network takes the inputs and outputs of the game of `spec`.
    pub fn check_game(&self, spec: &GameSpec) -> PyResult<()> {
        let (c, h, w) = self.input_shape();
        if (c, h, w) != (spec.input_channels(), spec.board_height as usize, spec.board_width as usize) || self.ev.net.policy_size() != spec.policy_size as usize
        {
            return Err(value_error(format!(
                "{}: the network takes inputs ({c}, {h}, {w}) and {} policy slots, not a {} network ({}, {}, {}) and {}",
                self.path.display(),
                self.ev.net.policy_size(),
                spec.game,
                spec.input_channels(),
                spec.board_height,
                spec.board_width,
                spec.policy_size
            )));
        }
        Ok(())
    }

    /// Dense inputs of states (all of one game), `[B, C, H, W]` flattened.
    fn encode_states(&self, states: &[Bound<'_, PyAny>]) -> PyResult<Vec<f32>> {
        let (c, h, w) = self.input_shape();
        let n = c * h * w;
        let mut x = vec![0f32; states.len() * n];
        for (i, s) in states.iter().enumerate() {
            let out = &mut x[i * n..(i + 1) * n];
            let st = s.cast::<State>().map_err(|_| value_error(format!("item {i} is not a game state")))?.borrow();
            // The state in the network's input encoding.
            let spec =
                with_state!(&st.st, g => spec_as(g, &self.ev.net.config().encoding)).map_err(|e| value_error(format!("{}: {e}", self.path.display())))?;
            self.check_game(&spec)?;
            encode_dense_into(&spec, &st.st, out).map_err(value_error)?;
        }
        Ok(x)
    }
}

/// `Network.priors`' result: (actions, priors, wdl).
type Priors<'py> = (Vec<u16>, Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<f32>>);

fn is_state(x: &Bound<'_, PyAny>) -> bool {
    x.cast::<State>().is_ok()
}

#[pymethods]
impl Network {
    /// Loads a `.pzmodel` file, or the current model of a run directory
    /// (`<run>/models/current`). `threads`: CPU threads for large batches
    /// (0: rayon's global pool, `RAYON_NUM_THREADS`).
    #[staticmethod]
    #[pyo3(signature = (path, threads=0))]
    fn load(py: Python<'_>, path: PathBuf, threads: usize) -> PyResult<Self> {
        let file = resolve_model(&path)?;
        let f = file.clone();
        let ev = py.detach(move || NetworkEvaluator::load(&f, threads)).map_err(|e| value_error(format!("{e:#}")))?;
        Ok(Network { ev, path: file })
    }

    /// The model file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The model's name (e.g. `gen-0003`).
    #[getter]
    fn name(&self) -> String {
        self.ev.net.info().name.clone()
    }

    /// Training step at export.
    #[getter]
    fn step(&self) -> u64 {
        self.ev.net.info().step
    }

    #[getter]
    fn policy_size(&self) -> usize {
        self.ev.net.policy_size()
    }

    /// `(bit_planes + scalars, H, W)`.
    #[getter(input_shape)]
    fn py_input_shape(&self) -> (usize, usize, usize) {
        self.input_shape()
    }

    /// Whether evaluation runs through the fast CPU network (`FastNet`), as in the workers.
    #[getter]
    fn uses_fastnet(&self) -> bool {
        self.ev.net.uses_fastnet()
    }

    /// Architecture: blocks, channels, and the rest of the `[net]` table.
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.ev.net.config();
        let d = PyDict::new(py);
        d.set_item("blocks", c.blocks)?;
        d.set_item("channels", c.channels)?;
        d.set_item("se_ratio", c.se_ratio)?;
        d.set_item("policy_channels", c.policy_channels)?;
        d.set_item("value_channels", c.value_channels)?;
        d.set_item("value_hidden", c.value_hidden)?;
        d.set_item("value_pool", c.value_pool)?;
        d.set_item("reply_policy", c.reply_policy)?;
        d.set_item("policy_head", c.policy_head.name())?;
        d.set_item("encoding", c.encoding.clone())?;
        Ok(d)
    }

    /// Evaluates positions: `x` is a float array `(B, C, H, W)` (or one
    /// `(C, H, W)` input), a state, or a list of states. Returns
    /// `(policy_logits, wdl)`: raw logits over every policy slot `(B, A)`
    /// (mask illegal slots yourself) and (win, draw, loss) probabilities for
    /// the mover `(B, 3)`, without the batch axis for a single input.
    fn evaluate<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let (c, h, w) = self.input_shape();
        let (data, batch, single) = if is_state(x) {
            (self.encode_states(std::slice::from_ref(x))?, 1, true)
        } else if x.cast::<PyList>().is_ok() || x.cast::<PyTuple>().is_ok() {
            let items: Vec<Bound<'py, PyAny>> = x.try_iter()?.collect::<PyResult<_>>()?;
            if !items.is_empty() && items.iter().all(is_state) {
                let n = items.len();
                (self.encode_states(&items)?, n, false)
            } else {
                self.array_input(py, x, (c, h, w))?
            }
        } else {
            self.array_input(py, x, (c, h, w))?
        };
        let p = self.ev.net.policy_size();
        let net = &self.ev.net;
        let evals = py.detach(|| net.evaluate_dense(data, batch));
        let mut logits = Vec::with_capacity(batch * p);
        let mut wdl = Vec::with_capacity(batch * 3);
        for e in &evals {
            logits.extend_from_slice(&e.policy_logits);
            wdl.extend_from_slice(&e.wdl);
        }
        if single {
            return Ok((logits.into_pyarray(py).into_any(), wdl.into_pyarray(py).into_any()));
        }
        let logits: Bound<'py, PyArray2<f32>> = Array::from_shape_vec((batch, p), logits).map_err(value_error)?.into_pyarray(py);
        let wdl: Bound<'py, PyArray2<f32>> = Array::from_shape_vec((batch, 3), wdl).map_err(value_error)?.into_pyarray(py);
        Ok((logits.into_any(), wdl.into_any()))
    }

    /// Every head's output for a float array `(B, C, H, W)`, as a dict of
    /// arrays named as the ONNX export's outputs: `policy` logits `(B, A)`,
    /// `wdl` probabilities `(B, 3)`, `moves_left` `(B, 1)` (predicted
    /// `ln(1 + decisions left)`), and on burn's forward pass
    /// (`runtime="burn"`) also `aux` logits `(B, T)` and, with the
    /// `reply_policy` head, `reply` logits `(B, A)`. `runtime="fastnet"`
    /// (the default) is the workers' fast CPU network.
    #[pyo3(signature = (x, runtime="fastnet"))]
    fn forward<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>, runtime: &str) -> PyResult<Bound<'py, PyDict>> {
        let fastnet = match runtime {
            "fastnet" => true,
            "burn" => false,
            other => return Err(value_error(format!("runtime {other:?}: expected \"fastnet\" or \"burn\""))),
        };
        let (c, h, w) = self.input_shape();
        let (data, batch, single) = self.array_input(py, x, (c, h, w))?;
        if single || batch == 0 {
            let what = if single { format!("one input ({c}, {h}, {w})") } else { "an empty batch".to_string() };
            return Err(value_error(format!("forward takes a batch (B, {c}, {h}, {w}) with B >= 1, not {what}")));
        }
        let net = &self.ev.net;
        let out = py.detach(|| net.forward_heads(data, batch, fastnet));
        let d = PyDict::new(py);
        let put = |name: &str, v: Vec<f32>| -> PyResult<()> {
            let cols = v.len() / batch;
            let a: Bound<'py, PyArray2<f32>> = Array::from_shape_vec((batch, cols), v).map_err(value_error)?.into_pyarray(py);
            d.set_item(name, a)
        };
        put("policy", out.policy)?;
        put("wdl", out.wdl)?;
        put("moves_left", out.moves_left)?;
        if let Some(aux) = out.aux {
            put("aux", aux)?;
        }
        if let Some(reply) = out.reply {
            put("reply", reply)?;
        }
        Ok(d)
    }

    /// Writes the network as ONNX to `path`: `format="onnx"` what `pacozero
    /// export --format onnx` writes, `format="platform"` the platform's bot
    /// file (a network with `net.encoding = "platform"`); see the book's
    /// chapter "ONNX export".
    #[pyo3(signature = (path, format="onnx"))]
    fn export_onnx(&self, py: Python<'_>, path: PathBuf, format: &str) -> PyResult<()> {
        let net = &self.ev.net;
        let export = match format {
            "onnx" => pacozero_nn::onnx::export_network,
            "platform" => pacozero_platform::onnx::export_platform,
            other => return Err(value_error(format!("format {other:?}: expected \"onnx\" or \"platform\""))),
        };
        py.detach(|| export(net.model(), net.config(), net.info(), &path))
            .map_err(|e| value_error(format!("exporting {} ({format}): {e}", self.path.display())))
    }

    /// The network's priors over a state's legal actions, as search uses
    /// them (softmax of the logits over the legal slots): `(actions, priors, wdl)`.
    fn priors<'py>(&self, py: Python<'py>, state: &Bound<'py, PyAny>) -> PyResult<Priors<'py>> {
        let mut legal = Vec::new();
        with_state!(&state.cast::<State>().map_err(|_| value_error("expected a game state"))?.borrow().st, g => g.playable_actions(&mut legal));
        let x = self.encode_states(std::slice::from_ref(state))?;
        let net = &self.ev.net;
        let e = py.detach(|| net.evaluate_dense(x, 1)).remove(0);
        let mut pri = vec![0f32; legal.len()];
        masked_softmax(&e.policy_logits, &legal, &mut pri);
        Ok((legal, pri.into_pyarray(py), e.wdl.to_vec().into_pyarray(py)))
    }

    fn __repr__(&self) -> String {
        format!("Network({:?}, name={:?}, step={})", self.path.display().to_string(), self.ev.net.info().name, self.ev.net.info().step)
    }
}

impl Network {
    fn array_input(&self, py: Python<'_>, x: &Bound<'_, PyAny>, (c, h, w): (usize, usize, usize)) -> PyResult<(Vec<f32>, usize, bool)> {
        let np = py.import("numpy")?;
        let arr = np.call_method1("ascontiguousarray", (x, "float32"))?;
        let arr = arr.cast::<PyArrayDyn<f32>>().map_err(|e| value_error(e.to_string()))?;
        let shape = arr.shape().to_vec();
        let (batch, single) = match shape.as_slice() {
            [c2, h2, w2] if (*c2, *h2, *w2) == (c, h, w) => (1, true),
            [b, c2, h2, w2] if (*c2, *h2, *w2) == (c, h, w) => (*b, false),
            _ => return Err(value_error(format!("input of shape {shape:?}: the network takes (B, {c}, {h}, {w}) or ({c}, {h}, {w})"))),
        };
        let ro = arr.readonly();
        let v = ro.as_slice().map_err(|e| value_error(e.to_string()))?.to_vec();
        Ok((v, batch, single))
    }
}

fn search_state<G: Game>(py: Python<'_>, g: &G, ev: &NetworkEvaluator, visits: u32) -> PyResult<(Search<G>, SearchResult)> {
    if let Some(o) = g.outcome() {
        return Err(value_error(format!("the game is already over ({o:?}): nothing to analyse")));
    }
    let mut legal = Vec::new();
    g.playable_actions(&mut legal);
    if legal.is_empty() {
        return Err(value_error("the side to move has no legal action"));
    }
    py.detach(|| {
        let mut search = Search::new(pacozero_protocol::analysis::analysis_search_config(visits), g.clone(), Evaluator::<G>::needs_encoding(ev));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        let res = search.search_until(ev, visits, None, false, &mut rng)?;
        anyhow::Ok((search, res))
    })
    .map_err(|e| value_error(format!("{e:#}")))
}

fn turn_dict<'py>(py: Python<'py>, name: String, actions: Vec<u16>, visits: u32, wdl: [f32; 3], prior: f32, pv: Vec<String>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("turn", name)?;
    d.set_item("actions", actions)?;
    d.set_item("visits", visits)?;
    d.set_item("q", wdl[0] - wdl[2])?;
    d.set_item("wdl", (wdl[0], wdl[1], wdl[2]))?;
    d.set_item("prior", prior)?;
    d.set_item("pv", pv)?;
    Ok(d)
}

/// Searches a state with a network (the search of `pacozero analyze`: PUCT,
/// no noise) and returns the root's value and its most visited turns. See
/// `pacozero.analyze`.
#[pyfunction]
#[pyo3(signature = (state, model, visits=pacozero_protocol::analysis::DEFAULT_VISITS, top=None, pv_turns=pacozero_protocol::analysis::DEFAULT_PV_TURNS))]
pub fn analyze<'py>(
    py: Python<'py>,
    state: &Bound<'py, PyAny>,
    model: &Bound<'py, PyAny>,
    visits: u32,
    top: Option<usize>,
    pv_turns: usize,
) -> PyResult<Bound<'py, PyDict>> {
    if visits == 0 {
        return Err(value_error("visits must be at least 1"));
    }
    let loaded;
    let net: PyRef<'_, Network> = match model.cast::<Network>() {
        Ok(n) => n.borrow(),
        Err(_) => {
            let path: PathBuf = model.extract().map_err(|_| value_error("model must be a pacozero.Network or a path"))?;
            loaded = Bound::new(py, Network::load(py, path, 0)?)?;
            loaded.borrow()
        }
    };
    let out = PyDict::new(py);
    let st = state.cast::<State>().map_err(|_| value_error("state must be a pacozero game state"))?.borrow().st.clone();
    let turns_out = with_state!(&st, g => analyze_state(py, &out, g, &net, visits, top.unwrap_or(usize::MAX), pv_turns))?;
    out.set_item("network", net.ev.net.info().name.clone())?;
    out.set_item("turns", turns_out)?;
    Ok(out)
}

fn fill_root<G: Game>(out: &Bound<'_, PyDict>, g: &G, res: &SearchResult) -> PyResult<()> {
    out.set_item("fen", g.notation())?;
    out.set_item("to_move", g.to_move().name())?;
    out.set_item("simulations", res.simulations)?;
    out.set_item("value", res.root_q)?;
    out.set_item("wdl", (res.root_wdl[0], res.root_wdl[1], res.root_wdl[2]))?;
    Ok(())
}

/// Searches `g` and returns its most visited turns (at most
/// `take`) as dictionaries, filling the root's figures into `out`.
fn analyze_state<'py, G: Game>(
    py: Python<'py>,
    out: &Bound<'py, PyDict>,
    g: &G,
    net: &Network,
    visits: u32,
    take: usize,
    pv_turns: usize,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    net.check_game(&spec_as(g, &net.ev.net.config().encoding).map_err(value_error)?)?;
    let (search, res) = search_state(py, g, &net.ev, visits)?;
    let mut turns_out = Vec::new();
    for t in turns::root_turns(&search).into_iter().take(take) {
        let mut pv = vec![t.name.clone()];
        pv.extend(turns::principal_variation(&search, &t.path, &t.state, pv_turns));
        turns_out.push(turn_dict(py, t.name, t.path, t.visits, t.wdl, t.prior, pv)?);
    }
    fill_root(out, g, &res)?;
    Ok(turns_out)
}
