//! The training side of the backend choice: autodiff devices. The backend
//! itself (flex, `tch`), inference devices and thread pools are chosen in
//! [`pacozero_nn::backend`]; this needs burn's `autodiff` feature, which only
//! the trainer turns on.

use burn::tensor::Device;

/// Autodiff (training) version of a device.
pub fn training_device(device: &Device) -> Device {
    if device.is_autodiff() {
        device.clone()
    } else {
        device.clone().autodiff()
    }
}
