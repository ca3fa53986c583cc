//! The training side of the backend choice: autodiff devices. The backend
//! itself (flex, `tch`), inference devices and thread pools are chosen in
//! [`pacozero_nn::backend`]; this needs burn's `autodiff` feature, which only
//! the trainer turns on.

use burn::tensor::Device;
use pacozero_nn::backend::{cpu_pool, set_libtorch_threads};

/// Autodiff (training) version of a device.
pub fn training_device(device: &Device) -> Device {
    if device.is_autodiff() {
        device.clone()
    } else {
        device.clone().autodiff()
    }
}

/// The trainer's threads: a rayon pool of `threads` for flex ([`cpu_pool`],
/// `None` for 0: the global pool), and as many for LibTorch's CPU
/// ([`set_libtorch_threads`]), so `[train] threads` bounds either backend.
pub fn training_pool(threads: usize) -> pacozero_nn::NnResult<Option<std::sync::Arc<rayon::ThreadPool>>> {
    set_libtorch_threads(threads);
    cpu_pool(threads)
}
