//! `pacozero`: one binary, one module per subcommand; errors are printed once, here.

mod args;
mod atomic;
mod commands;
mod turns;

use clap::Parser;

fn main() {
    let cli = args::Cli::parse();
    if let Err(e) = commands::run(cli.command) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
