//! `pacozero show`: the board in the terminal, for any game: its diagram
//! ([`Tools::diagram`](pacozero_engine::Tools::diagram); Paco Ŝako shows a union as both pieces, White's in
//! upper case first, `Nb` = white knight with black bishop), then its status.

use super::game_at;
use crate::args::ShowArgs;
use anyhow::Result;
use pacozero_engine::Game;

pub fn run(a: ShowArgs) -> Result<()> {
    pacozero_engine::with_game!(a.game.kind, G => show::<G>(&a))
}

fn show<G: Game>(a: &ShowArgs) -> Result<()> {
    let g: G = game_at(a.fen.as_deref(), a.actions.as_deref())?;
    print!("{}", g.diagram());
    println!("{} to move; status: {}", g.to_move().title(), g.status_text());
    Ok(())
}
