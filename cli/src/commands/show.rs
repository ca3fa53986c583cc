//! `pacozero show`: the board in the terminal, for any game: its diagram
//! ([`Game::diagram`]; Paco Ŝako shows a union as both pieces, White's in
//! upper case first, `Nb` = white knight with black bishop), then its status.

use super::game_at;
use crate::args::ShowArgs;
use anyhow::Result;
use pacozero_engine::{Game, GameVisitor};

pub fn run(a: ShowArgs) -> Result<()> {
    a.game.visit(Show(&a))
}

struct Show<'a>(&'a ShowArgs);

impl GameVisitor for Show<'_> {
    type Output = Result<()>;
    fn visit<G: Game>(self) -> Result<()> {
        let g: G = game_at(self.0.fen.as_deref(), self.0.actions.as_deref())?;
        print!("{}", g.diagram());
        println!("{} to move; status: {}", g.to_move().title(), g.status_text());
        Ok(())
    }
}
