//! The one place where the compute backend is chosen.
//!
//! * Default build: burn's **flex** backend (pure Rust CPU, nothing to download).
//! * Feature `tch`: LibTorch through burn's tch backend, on CPU (`"tch"` /
//!   `"tch-cpu"`) or CUDA (`"tch-cuda"` / `"tch-cuda:N"`). Building it needs a
//!   libtorch folder: set `LIBTORCH=/path/to/libtorch` (a folder with `lib/` and
//!   `include/`; `scripts/setup-libtorch.sh` prepares one from PyPI's `torch`
//!   wheel) and, at run time, add `$LIBTORCH/lib` to `LD_LIBRARY_PATH`.
//!
//! Threads: flex parallelises with rayon. [`cpu_pool`] builds a dedicated
//! rayon pool of `n` threads; [`crate::Network`] (and the trainer) run their
//! tensor work inside their pool (`pool.install`, see [`in_pool`]), so a thread
//! count set in their config applies to them only. With `threads = 0` the rayon global pool
//! is used, which honours `RAYON_NUM_THREADS` (default: one thread per core).

use burn::tensor::Device;

use crate::error::{NnError, NnResult};

/// Backend names accepted by [`device_from_name`].
pub const BACKEND_NAMES: &[&str] = &["flex", "tch", "tch-cpu", "tch-cuda", "tch-cuda:N"];

/// The backend `PACOZERO_BACKEND` names (`flex` when it is unset or empty).
pub fn backend_name() -> String {
    match std::env::var("PACOZERO_BACKEND") {
        Ok(name) if !name.is_empty() => name,
        _ => "flex".to_string(),
    }
}

/// This process's provenance, computing on [`backend_name`]: what runs and
/// model files record as having made them.
pub fn provenance() -> pacozero_data::Provenance {
    pacozero_data::Provenance::here(&backend_name())
}

/// Checks `PACOZERO_BACKEND`: an unknown backend, one this build lacks, or a
/// bad GPU index is an error naming it. Programs call this once at start, so
/// that [`default_device`] never has to fall back.
pub fn check_backend() -> NnResult<()> {
    device_from_name(&backend_name()).map(|_| ()).map_err(|e| {
        let why = match e {
            NnError::Config(m) => m,
            other => other.to_string(),
        };
        NnError::Config(format!("PACOZERO_BACKEND={}: {why}", backend_name()))
    })
}

/// The default device: flex (CPU), unless `PACOZERO_BACKEND` names another.
/// A bad name falls back to flex with a warning; [`check_backend`] refuses
/// it instead (the `pacozero` binary checks at start).
pub fn default_device() -> Device {
    match std::env::var("PACOZERO_BACKEND") {
        Ok(name) if !name.is_empty() => device_from_name(&name).unwrap_or_else(|e| {
            eprintln!("warning: PACOZERO_BACKEND: {e}; using flex");
            Device::flex()
        }),
        _ => Device::flex(),
    }
}

/// Device for a backend name: `flex`, or with feature `tch`: `tch`/`tch-cpu`,
/// `tch-cuda`, `tch-cuda:N`.
pub fn device_from_name(name: &str) -> NnResult<Device> {
    match name {
        "flex" | "cpu" | "default" => Ok(Device::flex()),
        #[cfg(feature = "tch")]
        "tch" | "tch-cpu" =>
        {
            #[allow(deprecated)]
            Ok(Device::libtorch())
        }
        #[cfg(feature = "tch")]
        n if n == "tch-cuda" || n.starts_with("tch-cuda:") => {
            let idx: usize = match n.strip_prefix("tch-cuda:") {
                None => 0,
                Some(i) => i.parse().map_err(|_| NnError::Config(format!("backend `{n}`: `{i}` is not a GPU index (tch-cuda:0, tch-cuda:1, ...)")))?,
            };
            #[allow(deprecated)]
            Ok(Device::libtorch_cuda(idx))
        }
        n if n.starts_with("tch") => Err(NnError::Config(format!("backend `{n}` needs pacozero-nn built with `--features tch` (and LIBTORCH set)"))),
        n => Err(NnError::Config(format!("unknown backend `{n}`; expected one of {BACKEND_NAMES:?}"))),
    }
}

/// Inference (no autodiff) version of a device.
pub fn inference_device(device: &Device) -> Device {
    if device.is_autodiff() {
        device.clone().inner()
    } else {
        device.clone()
    }
}

/// Whether `device` computes on this machine's CPU: flex, or LibTorch's CPU
/// device. There [`crate::FastNet`] stands in for burn's forward pass (a
/// loop can train on LibTorch's CPU, faster than flex, and search with
/// FastNet, faster than either).
pub fn is_cpu(device: &Device) -> bool {
    #[cfg(feature = "tch")]
    #[allow(deprecated)]
    if *device == Device::libtorch() {
        return true;
    }
    *device == Device::flex()
}

/// Bounds LibTorch's CPU threads to `threads` (0: its default, one a
/// core). LibTorch has one pool for the whole process; flex is bounded by
/// the rayon pools of [`cpu_pool`] instead. Without the `tch` feature this
/// does nothing.
pub fn set_libtorch_threads(threads: usize) {
    #[cfg(feature = "tch")]
    if threads > 0 {
        tch::set_num_threads(i32::try_from(threads).unwrap_or(i32::MAX));
    }
    #[cfg(not(feature = "tch"))]
    let _ = threads;
}

/// A rayon pool of `threads` threads, or `None` for `threads == 0` (use the global pool).
pub fn cpu_pool(threads: usize) -> NnResult<Option<std::sync::Arc<rayon::ThreadPool>>> {
    if threads == 0 {
        return Ok(None);
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("pacozero-nn-{i}"))
        .build()
        .map(|p| Some(std::sync::Arc::new(p)))
        .map_err(|e| NnError::Other(format!("cannot build a rayon pool of {threads} threads: {e}")))
}

/// Run `f` inside `pool` if there is one.
pub fn in_pool<R: Send>(pool: &Option<std::sync::Arc<rayon::ThreadPool>>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(p) => p.install(f),
        None => f(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flex_goes_by_three_names_and_other_names_are_refused_naming_them() {
        for name in ["flex", "cpu", "default"] {
            assert_eq!(device_from_name(name).unwrap(), Device::flex(), "{name}");
        }
        let e = device_from_name("gpu").unwrap_err().to_string();
        assert_eq!(e, r#"invalid configuration: unknown backend `gpu`; expected one of ["flex", "tch", "tch-cpu", "tch-cuda", "tch-cuda:N"]"#);
        let e = device_from_name("").unwrap_err().to_string();
        assert!(e.starts_with("invalid configuration: unknown backend ``;"), "{e}");
        #[cfg(not(feature = "tch"))]
        for name in ["tch", "tch-cpu", "tch-cuda", "tch-cuda:1", "tchx"] {
            let e = device_from_name(name).unwrap_err().to_string();
            assert_eq!(e, format!("invalid configuration: backend `{name}` needs pacozero-nn built with `--features tch` (and LIBTORCH set)"));
        }
    }

    #[test]
    fn flex_and_libtorchs_cpu_are_the_cpu() {
        assert!(is_cpu(&Device::flex()));
        assert!(is_cpu(&inference_device(&Device::flex())));
        #[cfg(feature = "tch")]
        {
            assert!(is_cpu(&device_from_name("tch-cpu").unwrap()));
            assert!(!is_cpu(&device_from_name("tch-cuda:0").unwrap()));
        }
    }

    #[cfg(feature = "tch")]
    #[test]
    fn libtorch_gets_the_threads_asked_for() {
        set_libtorch_threads(1);
        assert_eq!(tch::get_num_threads(), 1);
        set_libtorch_threads(0);
        assert_eq!(tch::get_num_threads(), 1, "0 leaves it");
    }

    #[test]
    fn an_inference_device_is_the_device_without_autodiff() {
        assert_eq!(inference_device(&Device::flex()), Device::flex());
        assert!(!inference_device(&Device::flex()).is_autodiff());
    }

    #[test]
    fn a_pool_of_n_threads_runs_the_work_and_zero_means_the_global_pool() {
        assert!(cpu_pool(0).unwrap().is_none());
        let pool = cpu_pool(3).unwrap();
        assert_eq!(pool.as_ref().map(|p| p.current_num_threads()), Some(3));
        // Inside the pool the work sees its threads; without one, the caller's.
        assert_eq!(in_pool(&pool, rayon::current_num_threads), 3);
        let name = in_pool(&pool, || std::thread::current().name().map(String::from));
        assert!(name.is_some_and(|n| n.starts_with("pacozero-nn-")));
        assert_eq!(in_pool(&None, || 7), 7);
        assert_eq!(in_pool(&None, || std::thread::current().id()), std::thread::current().id());
    }
}
