//! `pacozero show`: the board in the terminal (the engine's diagram: a
//! union shows both pieces, White's in upper case first, Black's in lower
//! case second, `Nb` = white knight with black bishop). Shako (`--game
//! shako`) shows its 10x10 board.

use super::game_from;
use crate::args::ShowArgs;
use anyhow::{Context, Result};
use pacozero_engine::GameKind;
use pacozero_engine::{shako, Color};

pub fn run(a: ShowArgs) -> Result<()> {
    match a.game {
        GameKind::Paco => {
            let g = game_from(a.fen.as_deref(), a.actions.as_deref())?;
            print!("{}", pacozero_engine::paco::diagram(g.position()));
            println!("status: {}", g.status());
        }
        GameKind::Shako => {
            let mut g = match a.fen.as_deref() {
                Some(f) => shako::GameState::from_fen(f).with_context(|| format!("reading FEN \"{f}\""))?,
                None => shako::GameState::startpos(),
            };
            for (i, m) in a.actions.as_deref().unwrap_or("").split_whitespace().enumerate() {
                g.play_uci(m).with_context(|| format!("playing move {} ({m})", i + 1))?;
            }
            println!("{}", g.position());
            let mover = if g.position().side_to_move() == Color::White { "White" } else { "Black" };
            println!("{mover} to move; status: {:?}", g.status());
        }
    }
    Ok(())
}
