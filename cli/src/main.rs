//! `pacozero`: one binary, one module per subcommand; errors are printed once, here.
//!
//! `args`: the command line (clap types, their doc comments the help);
//! `commands`: one module per subcommand, calling the libraries and printing
//! (what a command leaves for the user is written by `pacozero_data::write_atomic`);
//! `turns`: whole turns seen through a search tree (`pacozero_search::turns`).

mod args;
mod commands;
mod turns;

use clap::{CommandFactory, FromArgMatches};
use pacozero_data::provenance::{set_build, Build};

fn main() {
    // The Parquet crate's panics on malformed pages are caught by the
    // readers and reported as one error naming the file; the default hook
    // would print a panic message before that error.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !pacozero_data::decoding_guarded() {
            hook(info)
        }
    }));
    set_build(Build { version: env!("CARGO_PKG_VERSION").into(), commit: env!("PACOZERO_GIT_COMMIT").into(), dirty: env!("PACOZERO_GIT_DIRTY") == "true" });
    // `--version` names the build, the backend and the CPUs (what runs and
    // model files record as their provenance).
    let version: &'static str = Box::leak(pacozero_nn::provenance().to_string().into_boxed_str());
    let matches = args::Cli::command().version(version).get_matches();
    let cli = args::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Some(precision) = cli.precision {
        pacozero_nn::precision::set_from_flag(precision);
    }
    if let Err(e) = pacozero_nn::check_backend().map_err(anyhow::Error::from).and_then(|()| commands::run(cli.command)) {
        eprintln!("error: {}", one_line(&e));
        std::process::exit(1);
    }
}

/// The error and its causes on one line, as `{:#}` joins them, but without
/// a cause whose text is already in the line: many errors print their
/// source in their own message too, and "No space left on device (os error
/// 28)" is better said once.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}
