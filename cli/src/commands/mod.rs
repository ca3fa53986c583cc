mod bench;
mod legal;
mod perft;
mod show;

use crate::args::Command;
use anyhow::{Context, Result};
use pacozero_engine::paco::{parse_actions, GameState, Position};

pub fn run(cmd: Command) -> Result<()> {
    match cmd {
        Command::Perft(a) => perft::run(a),
        Command::Legal(a) => legal::run(a),
        Command::Show(a) => show::run(a),
        Command::Bench(a) => bench::run(a),
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
