//! Position notation: the platform's extended X-FEN, and the one-letter union
//! FEN of the vchess diagrams.
//!
//! `<board>[^<sq><lifted>] <side> <half-moves without progress> <castling> <en passant> -`
//!
//! | field | example | meaning |
//! |---|---|---|
//! | board | `rnbqkbnr/pppppppp/8/...` | ranks 8..1; lone pieces as in chess (upper case White); a union is one letter from [`UNION_LETTERS`] |
//! | lifted | `^e1K`, `^f3d`, `^c5Rb` | optional: the mover's piece in hand above a square; a union in hand as one union letter or two piece letters |
//! | side | `w` / `b` | side to move |
//! | half-moves | `0` | half-moves without progress (a new union or a promotion), 0..=255 |
//! | castling | `AHah`, `-` | X-FEN rook files with castling rights, upper case White (`KQkq` is read too) |
//! | en passant | `e3`, `-` | the square skipped by the last double step |
//! | last | `-` | always `-` (kept for compatibility); may be omitted when reading |
//!
//! A FEN cannot express a pending promotion; such positions are written
//! without it (as the platform does), and reading infers it from the pawn on
//! its last rank (see [`Setup::from_fen`]).
//!
//! Reading gives an unchecked [`Setup`]; [`Position::from_fen`] and
//! [`position_from_union_fen`] also validate it, refusing positions no game
//! reaches (see [`super::Setup`] for what is refused).

use super::position_error::PositionError;
use super::setup::Setup;
use super::{Castling, Hand, Position, Required, Rules};
use crate::types::{BitBoard, Color, PieceKind, Square};
use std::fmt;
use std::str::FromStr;

pub const STARTPOS_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -";

/// Union letters: `(letter, first kind, second kind)`. Lower case: the first
/// piece is Black's, the second White's; upper case: the first is White's.
pub const UNION_LETTERS: [(char, PieceKind, PieceKind); 21] = {
    use PieceKind::*;
    [
        ('a', Pawn, Pawn),
        ('c', Pawn, Rook),
        ('d', Pawn, Knight),
        ('e', Pawn, Bishop),
        ('f', Pawn, Queen),
        ('g', Pawn, King),
        ('h', Rook, Rook),
        ('i', Rook, Knight),
        ('j', Rook, Bishop),
        ('l', Rook, Queen),
        ('m', Rook, King),
        ('o', Knight, Knight),
        ('s', Knight, Bishop),
        ('t', Knight, Queen),
        ('u', Knight, King),
        ('v', Bishop, Bishop),
        ('w', Bishop, Queen),
        ('x', Bishop, King),
        ('y', Queen, Queen),
        ('z', Queen, King),
        ('_', King, King),
    ]
};

/// What one board letter stands for: `(white piece, black piece)`.
pub fn decode_square_letter(c: char) -> Option<(Option<PieceKind>, Option<PieceKind>)> {
    if let Some(k) = PieceKind::from_letter(c) {
        return Some(if c.is_ascii_uppercase() { (Some(k), None) } else { (None, Some(k)) });
    }
    let lower = c.to_ascii_lowercase();
    let &(_, first, second) = UNION_LETTERS.iter().find(|(l, _, _)| *l == lower)?;
    Some(if c.is_ascii_uppercase() { (Some(first), Some(second)) } else { (Some(second), Some(first)) })
}

/// The letter for a square's content; `None` for an empty square.
pub fn encode_square_letter(white: Option<PieceKind>, black: Option<PieceKind>) -> Option<char> {
    match (white, black) {
        (None, None) => None,
        (Some(w), None) => Some(w.letter()),
        (None, Some(b)) => Some(b.letter().to_ascii_lowercase()),
        (Some(w), Some(b)) => {
            // Lower case preferred (symmetric unions are always written lower case).
            if let Some((l, _, _)) = UNION_LETTERS.iter().find(|(_, f, s)| *f == b && *s == w) {
                Some(*l)
            } else {
                UNION_LETTERS.iter().find(|(_, f, s)| *f == w && *s == b).map(|(l, _, _)| l.to_ascii_uppercase())
            }
        }
    }
}

/// A FEN that could not be read: which field, where, and why; or a FEN that
/// reads, but describes a position no game reaches (`impossible`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenError {
    /// The field (`board`, `lifted`, `side`, `half-moves`, `castling`, `en
    /// passant`, `last`, `position`; for impossible positions also `promotion`
    /// and `rules`).
    pub field: &'static str,
    /// Character offset in the whole input, where known.
    pub column: Option<usize>,
    pub message: String,
    /// Set when the text reads but validation refuses the setup.
    pub impossible: Option<PositionError>,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(e) = &self.impossible {
            return write!(f, "impossible position: {e}");
        }
        match self.column {
            Some(c) => write!(f, "invalid FEN {} field at character {}: {}", self.field, c + 1, self.message),
            None => write!(f, "invalid FEN {} field: {}", self.field, self.message),
        }
    }
}
impl std::error::Error for FenError {}

impl From<PositionError> for FenError {
    fn from(e: PositionError) -> FenError {
        FenError { field: e.field, column: None, message: e.message.clone(), impossible: Some(e) }
    }
}

fn err(field: &'static str, column: Option<usize>, message: impl Into<String>) -> FenError {
    FenError { field, column, message: message.into(), impossible: None }
}

impl FromStr for Position {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Position, FenError> {
        Position::from_fen(s, Rules::OFFICIAL)
    }
}

impl FromStr for Setup {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Setup, FenError> {
        Setup::from_fen(s)
    }
}

impl Position {
    /// Reads the platform's FEN (see the module docs) under the given rules and
    /// validates it ([`Setup::from_fen`], then [`Position::from_setup`]).
    pub fn from_fen(input: &str, rules: Rules) -> Result<Position, FenError> {
        Ok(Position::from_setup(&Setup::from_fen(input)?, rules)?)
    }
}

impl Setup {
    /// Reads the platform's FEN (see the module docs) into an unchecked setup.
    ///
    /// A FEN cannot say that a promotion is pending; where the side to move
    /// has one pawn on its last rank, that pawn's promotion is: in a chain
    /// (`PromoteThenPlace`) when the piece in hand hovers above it, else
    /// `PromoteThenFinish` when the pawn is alone or united with the enemy
    /// king (it moved there itself), else `PromoteThenLift` (the opponent
    /// carried it there in a union; a union the pawn moved into itself, which
    /// the FEN does not tell apart, reads the same way).
    pub fn from_fen(input: &str) -> Result<Setup, FenError> {
        // Split on spaces, remembering where each field starts.
        let mut fields: Vec<(usize, &str)> = Vec::new();
        let mut start = None;
        for (i, ch) in input.char_indices().chain(std::iter::once((input.len(), ' '))) {
            if ch.is_whitespace() {
                if let Some(s0) = start.take() {
                    fields.push((s0, &input[s0..i]));
                }
            } else if start.is_none() {
                start = Some(i);
            }
        }
        if fields.len() < 5 {
            let names = ["board", "side", "half-moves", "castling", "en passant"];
            return Err(err(names[fields.len().min(4)], None, format!("expected at least 5 space-separated fields, found {}", fields.len())));
        }
        if fields.len() > 6 {
            return Err(err("position", Some(fields[6].0), "too many fields (expected 6)"));
        }
        let mut setup = Setup::empty();

        // Board and optional lifted piece.
        let (board_off, board_field) = fields[0];
        let (board, lifted) = match board_field.find('^') {
            Some(i) => (&board_field[..i], Some((board_off + i, &board_field[i + 1..]))),
            None => (board_field, None),
        };
        let mut rank: i32 = 7;
        let mut file: i32 = 0;
        for (i, ch) in board.char_indices() {
            let col = Some(board_off + i);
            if ch == '/' {
                if file != 8 {
                    return Err(err("board", col, format!("rank {} has {} squares, expected 8", rank + 1, file)));
                }
                rank -= 1;
                file = 0;
                if rank < 0 {
                    return Err(err("board", col, "more than 8 ranks"));
                }
                continue;
            }
            if let Some(d) = ch.to_digit(10) {
                if d == 0 || d > 8 {
                    return Err(err("board", col, format!("'{ch}' is not a run of 1-8 empty squares")));
                }
                file += d as i32;
            } else if let Some((w, b)) = decode_square_letter(ch) {
                if file >= 8 {
                    return Err(err("board", col, format!("rank {} has more than 8 squares", rank + 1)));
                }
                let sq = Square::from_file_rank(file as u8, rank as u8);
                if let Some(k) = w {
                    setup.put(Color::White, k, sq);
                }
                if let Some(k) = b {
                    setup.put(Color::Black, k, sq);
                }
                file += 1;
            } else {
                return Err(err("board", col, format!("'{ch}' is not a piece or union letter")));
            }
            if file > 8 {
                return Err(err("board", col, format!("rank {} has more than 8 squares", rank + 1)));
            }
        }
        if rank != 0 || file != 8 {
            return Err(err("board", Some(board_off), format!("expected 8 ranks of 8 squares (ended on rank {} after {} squares)", rank + 1, file)));
        }

        // Side to move.
        let (side_off, side) = fields[1];
        setup.side = match side {
            "w" => Color::White,
            "b" => Color::Black,
            _ => return Err(err("side", Some(side_off), format!("'{side}' is not 'w' or 'b'"))),
        };

        if let Some((off, text)) = lifted {
            let sq = text.get(..2).and_then(Square::parse).ok_or_else(|| err("lifted", Some(off + 1), format!("'{text}' does not start with a square")))?;
            let letters: Vec<char> = text[2..].chars().collect();
            let (w, b) = match letters.as_slice() {
                [c] => decode_square_letter(*c).ok_or_else(|| err("lifted", Some(off + 3), format!("'{c}' is not a piece or union letter")))?,
                [c1, c2] => {
                    let a = decode_square_letter(*c1).filter(|(w, b)| w.is_some() != b.is_some());
                    let z = decode_square_letter(*c2).filter(|(w, b)| w.is_some() != b.is_some());
                    match (a, z) {
                        (Some(a), Some(z)) if a.0.is_some() != z.0.is_some() => (a.0.or(z.0), a.1.or(z.1)),
                        _ => return Err(err("lifted", Some(off + 3), format!("'{c1}{c2}' is not one white and one black piece"))),
                    }
                }
                _ => return Err(err("lifted", Some(off + 3), "expected one union letter or two piece letters after the square")),
            };
            let (mine, theirs) = if setup.side == Color::White { (w, b) } else { (b, w) };
            let Some(kind) = mine else {
                return Err(err("lifted", Some(off + 3), format!("the lifted piece must include a piece of the side to move ({})", setup.side)));
            };
            setup.hand = match theirs {
                None => Hand::Single { kind, from: sq },
                Some(partner) => Hand::Pair { kind, partner, from: sq },
            };
            setup.required = Required::Place;
        }
        infer_promotion(&mut setup);

        // Half-moves without progress.
        let (hm_off, hm) = fields[2];
        setup.no_progress = hm.parse::<u8>().map_err(|_| err("half-moves", Some(hm_off), format!("'{hm}' is not a number from 0 to 255")))?;

        // Castling.
        let (c_off, cast) = fields[3];
        let mut castling = Castling::NONE;
        for color in Color::BOTH {
            let rank = color.home_rank();
            // The king may be in hand (lifted, about to move or castle).
            let in_hand = match setup.hand {
                Hand::Single { kind: PieceKind::King, from } if setup.side == color => Some(from),
                _ => None,
            };
            if let Some(k) = BitBoard(setup.pieces[color.index()][PieceKind::King.index()]).first().or(in_hand) {
                if k.rank() == rank {
                    castling.king_file[color.index()] = k.file();
                }
            }
        }
        if cast != "-" {
            for (i, ch) in cast.char_indices() {
                let col = Some(c_off + i);
                let color = if ch.is_ascii_uppercase() { Color::White } else { Color::Black };
                let kf = castling.king_file[color.index()];
                let rf = match ch.to_ascii_lowercase() {
                    'k' => 7,
                    'q' => 0,
                    c @ 'a'..='h' => c as u8 - b'a',
                    _ => return Err(err("castling", col, format!("'{ch}' is not a rook file (A-H, a-h), K, Q, k, q or '-'"))),
                };
                // Side 0 is the queen side (the rook on a lower file than the king).
                let side = match rf.cmp(&kf) {
                    std::cmp::Ordering::Less => 0,
                    std::cmp::Ordering::Greater => 1,
                    std::cmp::Ordering::Equal => return Err(err("castling", col, format!("'{ch}' names the king's own file"))),
                };
                let bit = 1 << (color.index() * 2 + side);
                if castling.mask & bit != 0 {
                    return Err(err(
                        "castling",
                        col,
                        format!("'{ch}' gives {color}'s {} right a second time", if side == 0 { "queen-side" } else { "king-side" }),
                    ));
                }
                castling.rook_file[color.index()][side] = rf;
                castling.mask |= bit;
            }
        }
        setup.castling = castling;

        // En passant.
        let (ep_off, ep) = fields[4];
        if ep != "-" {
            let sq = Square::parse(ep).ok_or_else(|| err("en passant", Some(ep_off), format!("'{ep}' is not a square or '-'")))?;
            setup.en_passant = Some(sq);
        }
        if let Some(&(off, last)) = fields.get(5) {
            if last != "-" {
                return Err(err("last", Some(off), format!("'{last}' must be '-'")));
            }
        }
        Ok(setup)
    }
}

/// The pending promotion a FEN cannot write (see [`Setup::from_fen`]).
fn infer_promotion(s: &mut Setup) {
    let me = s.side;
    let last = me.other().home_rank();
    let mut on_last = BitBoard(s.pieces[me.index()][PieceKind::Pawn.index()] & (0xFF << (8 * last)));
    let (Some(sq), None) = (on_last.next(), on_last.next()) else { return };
    let them = me.other();
    let partner = s.kind_at(them, sq);
    s.required = match s.hand {
        Hand::Single { from, .. } if from == sq => Required::PromoteThenPlace,
        Hand::Empty if partner.is_none() || partner == Some(PieceKind::King) => Required::PromoteThenFinish,
        Hand::Empty => Required::PromoteThenLift,
        _ => return,
    };
    s.promotion = Some(sq);
}

impl Position {
    /// Writes the platform's FEN (round-trips with [`Position::from_fen`]).
    pub fn fen(&self) -> String {
        let mut s = String::with_capacity(80);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let sq = Square::from_file_rank(file, rank);
                let (w, b) = self.at(sq);
                match encode_square_letter(w, b) {
                    None => empty += 1,
                    Some(c) => {
                        if empty > 0 {
                            s.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        s.push(c);
                    }
                }
            }
            if empty > 0 {
                s.push((b'0' + empty) as char);
            }
            if rank > 0 {
                s.push('/');
            }
        }
        let mover = self.side;
        match self.hand {
            Hand::Empty => {}
            Hand::Single { kind, from } => {
                let (w, b) = if mover == Color::White { (Some(kind), None) } else { (None, Some(kind)) };
                s.push('^');
                s.push_str(&from.to_string());
                s.push(encode_square_letter(w, b).expect("non-empty"));
            }
            Hand::Pair { kind, partner, from } => {
                let (w, b) = if mover == Color::White { (kind, partner) } else { (partner, kind) };
                s.push('^');
                s.push_str(&from.to_string());
                s.push(encode_square_letter(Some(w), Some(b)).expect("union letter"));
            }
        }
        let ep = self.ep.map_or("-".to_string(), |e| e.to_string());
        format!("{s} {} {} {} {ep} -", self.side, self.no_progress, self.castling.fen())
    }
}

/// Reads a board in the one-letter union FEN of the vchess diagrams (file 001):
/// just the board field, e.g. `4k3/8/2q5/8/4O3/2w2B2/8/5K2`, optionally followed
/// by the usual fields. Missing fields default to White to move, no castling.
pub fn position_from_union_fen(input: &str, rules: Rules) -> Result<Position, FenError> {
    let fields: Vec<&str> = input.split_whitespace().collect();
    if fields.len() >= 5 {
        return Position::from_fen(input, rules);
    }
    let board = fields.first().copied().unwrap_or("");
    let side = fields.get(1).copied().unwrap_or("w");
    Position::from_fen(&format!("{board} {side} 0 - - -"), rules)
}

/// The board field alone (one letter per square, unions as union letters).
pub fn board_to_union_fen(pos: &Position) -> String {
    pos.fen().split(' ').next().unwrap_or_default().split('^').next().unwrap_or_default().to_string()
}

impl Position {
    /// The standard start position.
    pub fn startpos() -> Position {
        STARTPOS_FEN.parse().expect("start FEN parses")
    }
}
