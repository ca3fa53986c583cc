mod analysis;
mod analyze;
mod arena;
mod bench;
mod book;
mod legal;
pub mod looprun;
mod perft;
mod play;
mod report;
pub mod selfplay;
mod show;
mod store;
mod tactics;
pub mod train;

use crate::args::Command;

/// The engine's reference vectors (JSON lines), for `bench perft` and `tactics generate`.
const REFERENCE_VECTORS: &str = include_str!("../../../engine/tests/data/vectors.jsonl");
use anyhow::{Context, Result};
use pacozero_engine::paco::{parse_actions, GameState, Position};

pub fn run(cmd: Command) -> Result<()> {
    match cmd {
        Command::Perft(a) => perft::run(a),
        Command::Legal(a) => legal::run(a),
        Command::Show(a) => show::run(a),
        Command::Selfplay(a) => selfplay::run(a),
        Command::Train(a) => train::run(a),
        Command::Arena(a) => arena::run(a),
        Command::Loop(a) => looprun::run(a),
        Command::Book(a) => book::run(a),
        Command::Analyze(a) => analyze::run(a),
        Command::Analysis(a) => analysis::run(a),
        Command::Play(a) => play::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Report(a) => report::run(a),
        Command::Tactics(a) => tactics::run(a),
    }
}

/// A game from an optional FEN (default: start) and optional actions played from it.
pub fn game_from(fen: Option<&str>, actions: Option<&str>) -> Result<GameState> {
    let pos: Position = match fen {
        Some(f) => f.parse().with_context(|| format!("reading FEN \"{f}\""))?,
        None => Position::startpos(),
    };
    let mut g = GameState::new(pos);
    if let Some(acts) = actions {
        for (i, a) in parse_actions(acts)?.into_iter().enumerate() {
            g.play(a).with_context(|| format!("playing action {} ({a})", i + 1))?;
        }
    }
    Ok(g)
}
