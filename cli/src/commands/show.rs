//! `pacozero show`: the board in the terminal. A union shows both pieces:
//! White's in upper case first, Black's in lower case second (`Nb` = white
//! knight with black bishop). Shako (`--game shako`) shows its 10x10 board.

use super::game_from;
use crate::args::{GameKind, ShowArgs};
use anyhow::{Context, Result};
use pacozero_engine::paco::{Hand, Position};
use pacozero_engine::{shako, Color, Square};

pub fn run(a: ShowArgs) -> Result<()> {
    match a.game {
        GameKind::Paco => {
            let g = game_from(a.fen.as_deref(), a.actions.as_deref())?;
            print!("{}", render(g.position()));
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

/// Draws the board, rank 8 at the top.
pub fn render(pos: &Position) -> String {
    let mut s = String::new();
    let line = "  +----+----+----+----+----+----+----+----+\n";
    s.push_str(line);
    for rank in (0..8).rev() {
        s.push_str(&format!("{} |", rank + 1));
        for file in 0..8 {
            let sq = Square::from_file_rank(file, rank);
            let (w, b) = pos.at(sq);
            let cell = match (w, b) {
                (None, None) => "  ".to_string(),
                (Some(w), None) => format!("{} ", w.letter()),
                (None, Some(b)) => format!(" {}", b.letter().to_ascii_lowercase()),
                (Some(w), Some(b)) => format!("{}{}", w.letter(), b.letter().to_ascii_lowercase()),
            };
            s.push_str(&format!(" {cell} |"));
        }
        s.push('\n');
        s.push_str(line);
    }
    s.push_str("     a    b    c    d    e    f    g    h\n");
    let mover = if pos.side_to_move() == Color::White { "White" } else { "Black" };
    s.push_str(&format!("{mover} to act: {}", pos.required().name()));
    match pos.hand() {
        Hand::Empty => {}
        Hand::Single { kind, from } => s.push_str(&format!(", holding {} above {from}", kind.letter())),
        Hand::Pair { kind, partner, from } => s.push_str(&format!(", holding union {}+{} above {from}", kind.letter(), partner.letter().to_ascii_lowercase())),
    }
    s.push('\n');
    s.push_str(&format!("fen: {}\n", pos.fen()));
    s
}
