//! `pacozero export`: a network as a file for other tools (ONNX, or the
//! platform's bot file).

use crate::args::{ExportArgs, ExportFormat};
use anyhow::{Context, Result};

pub fn run(a: ExportArgs) -> Result<()> {
    let path = pacozero_nn::resolve_model(&a.model)?;
    let (model, net, info) = pacozero_nn::load_model(&path, &pacozero_nn::default_device(), None)?;
    match a.format {
        ExportFormat::Onnx => pacozero_nn::onnx::export_network(&model, &net, &info, &a.out),
        ExportFormat::Platform => pacozero_platform::onnx::export_platform(&model, &net, &info, &a.out),
    }
    .with_context(|| format!("exporting {} to {}", path.display(), a.out.display()))?;
    println!("wrote {} ({} of {})", a.out.display(), info.name, path.display());
    Ok(())
}
