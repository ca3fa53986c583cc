mod analysis;
mod analyze;
mod arena;
mod bench;
mod book;
mod config;
mod export;
mod games;
mod ladder;
mod league;
mod legal;
pub mod looprun;
mod perft;
mod play;
mod report;
pub mod selfplay;
mod show;
mod solved;
mod store;
mod tactics;
pub mod train;
mod uci;

use crate::args::Command;

use anyhow::{Context, Result};
use pacozero_engine::Game;

pub fn run(cmd: Command) -> Result<()> {
    match cmd {
        Command::Perft(a) => perft::run(a),
        Command::Legal(a) => legal::run(a),
        Command::Show(a) => show::run(a),
        Command::Selfplay(a) => selfplay::run(a),
        Command::Train(a) => train::run(a),
        Command::Arena(a) => arena::run(a),
        Command::League(a) => league::run(a),
        Command::Evaluate(a) => store::evaluate(a),
        Command::Ladder(a) => ladder::run(a),
        Command::Loop(a) => looprun::run(a),
        Command::Book(a) => book::run(a),
        Command::Analyze(a) => analyze::run(a),
        Command::Analysis(a) => analysis::run(a),
        Command::Uci(a) => uci::run(a),
        Command::Play(a) => play::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Report(a) => report::run(a),
        Command::Games(a) => games::run(a),
        Command::Tactics(a) => tactics::run(a),
        Command::Solved(a) => solved::run(a),
        Command::Export(a) => export::run(a),
        Command::Config(a) => config::run(a),
    }
}

/// The game of `G` at `fen` in its notation (default: the standard start),
/// with `decisions` ([`Notation::parse_decisions`](pacozero_engine::Notation::parse_decisions)) played from there.
pub fn game_at<G: Game>(fen: Option<&str>, decisions: Option<&str>) -> Result<G> {
    let mut g = match fen {
        Some(f) => G::from_notation(f).with_context(|| format!("reading FEN \"{f}\""))?,
        None => G::start(),
    };
    if let Some(text) = decisions {
        for d in g.parse_decisions(text)? {
            g.apply(d);
        }
    }
    Ok(g)
}

/// The training settings: `--config`, else the run's own `config.toml` (a
/// loop's run trains as its loop does), else the built-in ones; then the
/// `--set` overrides.
pub fn train_file(a: &crate::args::TrainArgs) -> anyhow::Result<pacozero_train::TrainFile> {
    let own = pacozero_data::RunDir::new(&a.run).config();
    let path = a.config.clone().or_else(|| own.exists().then_some(own));
    let mut file = train_file_at(path.as_deref(), &a.set)?.0;
    file.train.progress &= !a.quiet;
    Ok(file)
}

/// The training file at `path` (the built-in settings without one) with the
/// `--set` overrides, as `pacozero train` reads it, and its name in errors.
pub fn train_file_at(path: Option<&std::path::Path>, sets: &[String]) -> anyhow::Result<(pacozero_train::TrainFile, String)> {
    let (text, origin) = pacozero_run::overrides::config_text(path, pacozero_run::overrides::Fallback::DEFAULTS, sets)?;
    Ok((pacozero_train::TrainFile::from_toml_str(&text, &origin)?, origin))
}

/// The self-play file at `path` (the built-in settings without one) with
/// the `--set` overrides, as `pacozero selfplay` and its store worker read
/// it, and its name in errors.
pub fn selfplay_config_at(path: Option<&std::path::Path>, sets: &[String]) -> Result<(pacozero_selfplay::SelfplayConfig, String)> {
    let (text, origin) = pacozero_run::overrides::config_text(path, pacozero_run::overrides::Fallback::DEFAULTS, sets)?;
    let cfg = pacozero_selfplay::SelfplayConfig::from_toml_str(&text).with_context(|| format!("in {origin}"))?;
    Ok((cfg, origin))
}
