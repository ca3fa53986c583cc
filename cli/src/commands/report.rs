//! `pacozero report`: (re)writes a run directory's plots and report.html.

use crate::args::ReportArgs;
use anyhow::Result;

pub fn run(a: ReportArgs) -> Result<()> {
    let page = pacozero_run::report::write_report(&a.run)?;
    println!("{}", page.display());
    Ok(())
}
