//! The Python extension module `pacozero._native`, a thin binding over the
//! workspace's crates: the engine's games (`State`, one class for every
//! game of the registry, and `games()`, their names), the training
//! data as the trainer builds it (`open_data`, `read_games`), the inference
//! network (`Network`) and the analysis search (`analyze`). The Python
//! package `pacozero` (python/pacozero/) re-exports them with the
//! conveniences that are plain Python (a class per game, `pacozero.Paco`
//! ..., made from `games()`; `pacozero.data.open`, the torch dataset, the
//! benchmark).
//!
//! Modules: `games` (the game classes), `data` (the training data), `net`
//! (`Network` and `analyze`), `bench` (the Rust side of the benchmark).

use pyo3::prelude::*;

mod bench;
mod data;
mod games;
mod net;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<games::State>()?;
    m.add_function(wrap_pyfunction!(games::games, m)?)?;
    m.add_function(wrap_pyfunction!(games::default_game, m)?)?;
    m.add_function(wrap_pyfunction!(games::game_info, m)?)?;
    m.add_class::<net::Network>()?;
    m.add_class::<data::DataIter>()?;
    m.add_function(wrap_pyfunction!(net::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(data::open_data, m)?)?;
    m.add_function(wrap_pyfunction!(data::read_games, m)?)?;
    m.add_function(wrap_pyfunction!(bench::bench_rust, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
