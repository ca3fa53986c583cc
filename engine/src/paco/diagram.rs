//! The board as text for a terminal. A union shows both pieces: White's in
//! upper case first, Black's in lower case second (`Nb` = white knight with
//! black bishop).

use super::{Hand, Position};
use crate::types::Square;

/// Draws the board, rank 8 at the top, then who acts, the piece in hand and
/// the FEN.
pub fn diagram(pos: &Position) -> String {
    let mut s = String::new();
    let line = "  +----+----+----+----+----+----+----+----+\n";
    s.push_str(line);
    for rank in (0..8).rev() {
        s.push_str(&format!("{} |", rank + 1));
        for file in 0..8 {
            let sq = Square::from_file_rank(file, rank);
            let cell = match pos.at(sq) {
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
    let mover = pos.side_to_move().title();
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
