//! `pacozero`: one binary, one module per subcommand; errors are printed once, here.

mod args;
mod atomic;
mod commands;
mod turns;

use clap::{CommandFactory, FromArgMatches};
use pacozero_data::provenance::{set_build, Build};

fn main() {
    set_build(Build { version: env!("CARGO_PKG_VERSION").into(), commit: env!("PACOZERO_GIT_COMMIT").into(), dirty: env!("PACOZERO_GIT_DIRTY") == "true" });
    // `--version` names the build, the backend and the CPUs (what runs and
    // model files record as their provenance).
    let version: &'static str = Box::leak(pacozero_nn::provenance().to_string().into_boxed_str());
    let matches = args::Cli::command().version(version).get_matches();
    let cli = args::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Err(e) = pacozero_nn::check_backend().map_err(anyhow::Error::from).and_then(|()| commands::run(cli.command)) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
