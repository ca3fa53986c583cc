//! Human notation for whole turns (chains included).
//!
//! | turn | notation |
//! |---|---|
//! | pawn to an empty square | `e2-e4` |
//! | piece (or the union it leads) to an empty square | `Nb1-c3` |
//! | onto an occupied square (new union, or entering a union) | `Bf3xe4` |
//! | the released piece goes on (a chain) | `Bf3xe4>c3>c6` |
//! | promotion where it happens | `e7-e8=Q`, `e7xd8=N>c6` |
//! | promotion of a pawn the opponent carried home, then the turn | `=Q Nb1-c3` |
//! | the promotion left of a turn (a lone pawn on its last rank) | `=Q` |
//! | castling (king side / queen side) | `0-0`, `0-0-0` |
//!
//! Piece letters are the mover's piece (P omitted). Reading is tolerant: the
//! piece letter and the `-`/`x` separator are checked against the position,
//! and `O-O` is accepted for castling.

use super::{Action, Hand, Position};
use crate::types::{PieceKind, Square};
use std::fmt;

/// A turn that could not be read or is not legal here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotationError {
    pub input: String,
    /// 0-based character position of the problem.
    pub column: usize,
    pub message: String,
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read move '{}' at character {}: {}", self.input, self.column + 1, self.message)
    }
}
impl std::error::Error for NotationError {}

/// Writes a complete turn (its atomic actions, played from `pos`) in chain notation.
pub fn turn_to_string(pos: &Position, actions: &[Action]) -> String {
    let mut p = *pos;
    let mut s = String::new();
    // Whether a piece was placed yet: the first place is written `-e4` or
    // `xe4` (or is castling), the chain's next ones `>e4`.
    let mut placed = false;
    for &a in actions {
        match a {
            Action::Promote(k) => {
                s.push('=');
                s.push(k.letter());
                if !placed {
                    s.push(' ');
                }
            }
            Action::Lift(sq) => {
                if let Some(k) = p.kind_at(p.side_to_move(), sq) {
                    if k != PieceKind::Pawn {
                        s.push(k.letter());
                    }
                }
                s.push_str(&sq.to_string());
            }
            Action::Place(t) => {
                let castles = match p.hand() {
                    Hand::Single { kind: PieceKind::King, from } => p.castle_side(from, t),
                    _ => None,
                };
                if let Some(side) = castles {
                    // Replace "Ke1" written at the lift.
                    let cut = s.rfind('K').unwrap_or(s.len());
                    s.truncate(cut);
                    s.push_str(if side == 1 { "0-0" } else { "0-0-0" });
                } else {
                    s.push(if placed {
                        '>'
                    } else if lands_on_piece(&p, t) {
                        'x'
                    } else {
                        '-'
                    });
                    s.push_str(&t.to_string());
                }
                placed = true;
            }
        }
        p.play_unchecked(a);
    }
    // A turn that is only a promotion (`=Q`) has no move after the space.
    s.truncate(s.trim_end().len());
    s
}

/// Does the piece in hand land on a piece at `t` (en passant included)?
fn lands_on_piece(p: &Position, t: Square) -> bool {
    p.at(t) != (None, None) || (matches!(p.hand(), Hand::Single { kind: PieceKind::Pawn, .. }) && p.en_passant() == Some(t))
}

/// Reads a turn in chain notation and returns its actions, checked against
/// `pos` (every action must be legal, and the turn must be complete).
pub fn parse_turn(pos: &Position, input: &str) -> Result<Vec<Action>, NotationError> {
    let err = |column: usize, message: String| NotationError { input: input.to_string(), column, message };
    let chars: Vec<char> = input.chars().collect();
    let mut i = 0;
    let mut p = *pos;
    let mut out = Vec::new();
    let play = |p: &mut Position, out: &mut Vec<Action>, a: Action, col: usize| -> Result<(), NotationError> {
        p.play(a).map_err(|e| err(col, e.to_string()))?;
        out.push(a);
        Ok(())
    };
    // The turn is over once the other side is to move or the game has ended.
    let turn_ended = |p: &Position| p.side_to_move() != pos.side_to_move() || p.status().is_over();
    let skip_ws = |i: &mut usize| {
        // Counted, not stepped one by one: a wrong step cannot loop (a
        // mutation test's `+=` as `*=` did).
        *i += chars[*i..].iter().take_while(|c| c.is_whitespace()).count();
    };
    skip_ws(&mut i);
    // Promotion gifted by the opponent.
    if i < chars.len() && chars[i] == '=' {
        let k = promo_at(&chars, i + 1).ok_or_else(|| err(i + 1, "expected R, N, B or Q after '='".into()))?;
        play(&mut p, &mut out, Action::Promote(k), i)?;
        i += 2;
        skip_ws(&mut i);
        if turn_ended(&p) {
            // The promotion was all that was left of the turn.
            if i < chars.len() {
                return Err(err(i, "unexpected text after the move: the promotion ended the turn".into()));
            }
            return Ok(out);
        }
    }
    let rest: String = chars[i..].iter().collect();
    let castle = rest.replace('O', "0");
    if castle.trim_end() == "0-0" || castle.trim_end() == "0-0-0" {
        let side = usize::from(castle.trim_end() == "0-0");
        let me = p.side_to_move();
        let c = p.castling();
        if !c.has(me, side) {
            return Err(err(i, "no castling right on that side".into()));
        }
        let g = c.geometry(me, side);
        play(&mut p, &mut out, Action::Lift(g.king_from), i)?;
        // Under the vchess king rule the king placed on a rook's square that
        // holds a union takes it over where castling is not open: that place
        // is written with the king's square, not as castling.
        if p.castle_side(g.king_from, g.target) != Some(side) {
            return Err(err(i, "castling is not open here (the king's path is blocked or threatened)".into()));
        }
        play(&mut p, &mut out, Action::Place(g.target), i)?;
        return Ok(out);
    }
    // Optional piece letter, then the square lifted.
    let mut letter = None;
    if i < chars.len() && "KQRBNP".contains(chars[i]) {
        letter = PieceKind::from_letter(chars[i]);
        i += 1;
    }
    let from = square_at(&chars, i).ok_or_else(|| err(i, "expected the square of the piece to move (e.g. e2)".into()))?;
    let actual = p.kind_at(p.side_to_move(), from);
    match (actual, letter) {
        (None, _) => return Err(err(i, format!("no piece of the side to move on {from}"))),
        (Some(k), Some(l)) if k != l => return Err(err(i - 1, format!("{from} holds a {:?}, not a {:?}", k, l))),
        (Some(k), None) if k != PieceKind::Pawn => return Err(err(i, format!("{from} holds a {:?}: write its letter ({}{from})", k, k.letter()))),
        _ => {}
    }
    play(&mut p, &mut out, Action::Lift(from), i)?;
    i += 2;
    let mut first = true;
    loop {
        if i >= chars.len() || chars[i].is_whitespace() {
            break;
        }
        let sep = chars[i];
        match (first, sep) {
            (true, '-') | (true, 'x') | (false, '>') => {}
            (true, _) => return Err(err(i, "expected '-' (to an empty square) or 'x' (onto a piece)".into())),
            (false, _) => return Err(err(i, "expected '>' before the next square of the chain, or '=' for a promotion".into())),
        }
        let to = square_at(&chars, i + 1).ok_or_else(|| err(i + 1, "expected a square".into()))?;
        if first {
            let occupied = lands_on_piece(&p, to);
            if sep == '-' && occupied {
                return Err(err(i, format!("{to} is occupied: write 'x'")));
            }
            if sep == 'x' && !occupied {
                return Err(err(i, format!("{to} is empty: write '-'")));
            }
        }
        play(&mut p, &mut out, Action::Place(to), i + 1)?;
        i += 3;
        first = false;
        if i < chars.len() && chars[i] == '=' {
            let k = promo_at(&chars, i + 1).ok_or_else(|| err(i + 1, "expected R, N, B or Q after '='".into()))?;
            play(&mut p, &mut out, Action::Promote(k), i)?;
            i += 2;
        }
    }
    skip_ws(&mut i);
    if i < chars.len() {
        return Err(err(i, "unexpected text after the move".into()));
    }
    if !turn_ended(&p) {
        return Err(err(chars.len(), format!("the turn is not complete: next required action is {}", p.required().name())));
    }
    Ok(out)
}

fn square_at(chars: &[char], i: usize) -> Option<Square> {
    let s: String = chars.get(i..i + 2)?.iter().collect();
    Square::parse(&s)
}

fn promo_at(chars: &[char], i: usize) -> Option<PieceKind> {
    let c = *chars.get(i)?;
    PieceKind::from_letter(c).filter(|k| k.promotion_index().is_some() && c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paco::Rules;

    /// Each way a turn can be misread, from the start position, with the
    /// column (0-based) each error must point at.
    #[test]
    fn bad_turns_name_the_character_at_fault() {
        let start = Position::startpos();
        let refused = |input: &str| parse_turn(&start, input).expect_err(input);
        for (input, column, message) in [
            ("", 0, "expected the square of the piece to move (e.g. e2)"),
            ("  Ne2-e4", 2, "e2 holds a Pawn, not a Knight"),
            ("e3-e4", 0, "no piece of the side to move on e3"),
            (" g1-f3", 1, "g1 holds a Knight: write its letter (Ng1)"),
            ("e2e4", 2, "expected '-' (to an empty square) or 'x' (onto a piece)"),
            ("e2-e9", 3, "expected a square"),
            ("e2xe4", 2, "e4 is empty: write '-'"),
            ("e2-e4  x", 7, "unexpected text after the move"),
            ("e2-e4-e5", 5, "expected '>' before the next square of the chain, or '=' for a promotion"),
            ("=K", 1, "expected R, N, B or Q after '='"),
            ("e2-e4=K", 6, "expected R, N, B or Q after '='"),
        ] {
            let e = refused(input);
            assert_eq!((e.input.as_str(), e.column, e.message.as_str()), (input, column, message), "{input:?}");
        }
        // Actions the position refuses: the column of the square or the '='.
        for (input, column) in [("e2-e5", 3), ("e2-e4>e5", 6), ("=Q", 0), ("Nb1-b3", 4)] {
            let e = refused(input);
            assert!(e.column == column && !e.message.is_empty(), "{input:?}: {e}");
        }
        assert_eq!(refused("Ne2").to_string(), "cannot read move 'Ne2' at character 1: e2 holds a Pawn, not a Knight");
        // A pawn the opponent carried home: its promotion alone is the turn,
        // and a move written after it is refused where it starts.
        let promotion_ends = Position::from_fen("3Pk3/8/8/8/8/8/8/4K3 w 0 - - -", Rules::OFFICIAL).unwrap();
        assert_eq!(parse_turn(&promotion_ends, " =Q ").unwrap(), vec![Action::Promote(PieceKind::Queen)]);
        let e = parse_turn(&promotion_ends, "=Q Ke1-e2").unwrap_err();
        assert_eq!((e.column, e.message.as_str()), (3, "unexpected text after the move: the promotion ended the turn"));
    }

    #[test]
    fn turns_read_with_their_letters_and_surrounding_space() {
        let start = Position::startpos();
        let sq = |s: &str| Square::parse(s).unwrap();
        assert_eq!(parse_turn(&start, " e2-e4 ").unwrap(), vec![Action::Lift(sq("e2")), Action::Place(sq("e4"))]);
        assert_eq!(parse_turn(&start, "Pe2-e4").unwrap(), vec![Action::Lift(sq("e2")), Action::Place(sq("e4"))]);
        assert_eq!(parse_turn(&start, "Ng1-f3").unwrap(), vec![Action::Lift(sq("g1")), Action::Place(sq("f3"))]);
    }
}
