//! FEN for the 10x10 board, as Fairy-Stockfish writes it for `shako`:
//!
//! `c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq - 0 1`
//!
//! | field | example | meaning |
//! |---|---|---|
//! | board | `c8c/ernbqkbnre/...` | ranks 10..1, files a..j; `P N B R Q K E C` (upper case White), runs of empty squares as numbers 1..10 |
//! | side | `w` / `b` | side to move |
//! | castling | `KQkq`, `-` | `K`/`k`: king f→h with the i-file rook; `Q`/`q`: king f→d with the b-file rook |
//! | en passant | `d7`, `-` | the square skipped by the last double step |
//! | half-moves | `0` | half-moves since the last capture or pawn move (optional, default 0) |
//! | full moves | `1` | move number, starting at 1 (optional, default 1) |
//!
//! Reading validates: a FEN that parses but describes a position no game
//! reaches is refused with the field at fault and the square (see
//! `check_kings`, and the castling, en passant and check rules below);
//! no unvalidated position leaves the reader.

use super::geometry::{Bb128, Square10, SIZE};
use super::position::{Kind, Piece, Position, CASTLING_PATHS};
use crate::types::Color;
use std::fmt;
use std::str::FromStr;

/// The start position.
pub const STARTPOS_FEN: &str = "c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq - 0 1";

/// A FEN that could not be read; names the field at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenError {
    /// `board`, `side`, `castling`, `en passant`, `half-moves`, `full moves` or `position`.
    pub field: &'static str,
    pub message: String,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid FEN {} field: {}", self.field, self.message)
    }
}

impl std::error::Error for FenError {}

fn err(field: &'static str, message: impl Into<String>) -> FenError {
    FenError { field, message: message.into() }
}

const CASTLING_LETTERS: [(char, Color, usize); 4] = [('K', Color::White, 0), ('Q', Color::White, 1), ('k', Color::Black, 0), ('q', Color::Black, 1)];

impl FromStr for Position {
    type Err = FenError;

    fn from_str(input: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = input.split_whitespace().collect();
        if fields.len() < 4 {
            let names = ["board", "side", "castling", "en passant"];
            return Err(err(names[fields.len()], format!("missing (expected at least 4 space-separated fields, found {})", fields.len())));
        }
        if fields.len() > 6 {
            return Err(err("position", format!("too many fields ({}; expected at most 6)", fields.len())));
        }
        let mut pos = Position::empty();
        read_board(&mut pos, fields[0])?;

        let side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(err("side", format!("expected 'w' or 'b', found '{other}'"))),
        };
        pos.set_side(side);

        let mut rights = 0u8;
        if fields[2] != "-" {
            for c in fields[2].chars() {
                let &(_, color, i) = CASTLING_LETTERS
                    .iter()
                    .find(|(l, _, _)| *l == c)
                    .ok_or_else(|| err("castling", format!("unexpected '{c}' (expected letters of KQkq, or -)")))?;
                let path = &CASTLING_PATHS[color.index()][i];
                if rights & path.right != 0 {
                    return Err(err("castling", format!("'{c}' given twice")));
                }
                if pos.piece_at(path.king_from) != Some(Piece::new(color, Kind::King)) || pos.piece_at(path.rook_from) != Some(Piece::new(color, Kind::Rook)) {
                    return Err(err("castling", format!("'{c}' needs the king on {} and a rook on {}", path.king_from, path.rook_from)));
                }
                rights |= path.right;
            }
        }
        pos.set_castling(rights);

        if fields[3] != "-" {
            let ep = Square10::parse(fields[3]).ok_or_else(|| err("en passant", format!("'{}' is not a square a1..j10 or -", fields[3])))?;
            // The skipped square: behind an enemy pawn that just stepped from its third rank.
            let (rank, dir) = match side {
                Color::White => (6, -1i8),
                Color::Black => (3, 1),
            };
            let pawn = ep.offset(0, dir).filter(|&s| pos.piece_at(s) == Some(Piece::new(side.other(), Kind::Pawn)));
            let origin_empty = ep.offset(0, -dir).is_some_and(|s| pos.piece_at(s).is_none());
            if ep.rank() != rank || pos.piece_at(ep).is_some() || pawn.is_none() || !origin_empty {
                return Err(err("en passant", format!("{ep} is not a square a pawn just skipped with {side} to move")));
            }
            pos.set_en_passant(Some(ep));
        }

        let halfmove = match fields.get(4) {
            None => 0,
            Some(s) => s.parse::<u16>().map_err(|_| err("half-moves", format!("'{s}' is not a number 0..65535")))?,
        };
        let fullmove = match fields.get(5) {
            None => 1,
            Some(s) => s.parse::<u16>().ok().filter(|&n| n >= 1).ok_or_else(|| err("full moves", format!("'{s}' is not a number 1..65535")))?,
        };
        pos.set_clocks(halfmove, fullmove);

        check_counts(&pos)?;
        if pos.in_check_of(side.other()) {
            return Err(err("position", format!("the side not to move ({}) is in check", side.other())));
        }
        Ok(pos)
    }
}

fn read_board(pos: &mut Position, board: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != SIZE as usize {
        return Err(err("board", format!("expected 10 ranks separated by '/', found {}", ranks.len())));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = SIZE - 1 - i as u8;
        let mut file = 0u8;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(d) = c.to_digit(10) {
                let mut n = d;
                if let Some(d2) = chars.peek().and_then(|c| c.to_digit(10)) {
                    chars.next();
                    n = n * 10 + d2;
                }
                if n == 0 || n > 10 {
                    return Err(err("board", format!("rank {}: bad run of empty squares {n}", rank + 1)));
                }
                file = file.saturating_add(n as u8);
            } else {
                let p = Piece::from_letter(c).ok_or_else(|| err("board", format!("rank {}: unknown piece letter '{c}'", rank + 1)))?;
                if file >= SIZE {
                    return Err(err("board", format!("rank {} has more than 10 squares", rank + 1)));
                }
                pos.put(Square10::from_file_rank(file, rank), p);
                file += 1;
            }
            if file > SIZE {
                return Err(err("board", format!("rank {} has more than 10 squares", rank + 1)));
            }
        }
        if file != SIZE {
            return Err(err("board", format!("rank {} has {file} squares, expected 10", rank + 1)));
        }
    }
    check_kings(pos)
}

/// Pieces a side starts with, by kind (pawns, knights, bishops, rooks, queen,
/// king, elephants, cannons; [`Kind`] order).
const START_COUNTS: [u32; 8] = [10, 2, 2, 2, 1, 1, 2, 2];

/// What no game reaches on the board alone (the kings here, the rest in
/// [`check_counts`], after castling and en passant): a number of kings other than
/// one a side; more than the 22 pieces a side starts with, more than 10
/// pawns, or more queens, rooks, bishops, knights, elephants and cannons than
/// the start's plus one promotion per missing pawn; a pawn on its last rank
/// (it promotes on arrival) or behind its third rank (pawns start there and
/// only move forward). Fewer pieces are normal: pieces are captured.
fn check_kings(pos: &Position) -> Result<(), FenError> {
    for color in Color::BOTH {
        let name = color.title();
        let kings = pos.pieces(color, Kind::King).count();
        if kings != 1 {
            let squares: Vec<String> = pos.pieces(color, Kind::King).map(|s| s.to_string()).collect();
            let at = if squares.is_empty() { String::new() } else { format!(" ({})", squares.join(", ")) };
            return Err(err("board", format!("{name} has {kings} kings{at}, expected 1")));
        }
    }
    Ok(())
}

/// The rest of what the board alone makes impossible (see [`check_kings`]),
/// checked after the other fields.
fn check_counts(pos: &Position) -> Result<(), FenError> {
    for color in Color::BOTH {
        let name = color.title();
        let (last, behind) = match color {
            Color::White => (9, [0, 1]),
            Color::Black => (0, [9, 8]),
        };
        if let Some(sq) = (pos.pieces(color, Kind::Pawn) & Bb128::rank(last)).first() {
            return Err(err("board", format!("{name}'s pawn on {sq} stands on its last rank unpromoted (pawns promote on arrival)")));
        }
        if let Some(sq) = (pos.pieces(color, Kind::Pawn) & (Bb128::rank(behind[0]) | Bb128::rank(behind[1]))).first() {
            return Err(err("board", format!("{name}'s pawn on {sq} stands behind its third rank, where pawns start and which they never move back from")));
        }
        let n: Vec<u32> = Kind::ALL.iter().map(|&k| pos.pieces(color, k).count()).collect();
        let total: u32 = n.iter().sum();
        let start_total: u32 = START_COUNTS.iter().sum();
        if total > start_total {
            return Err(err("board", format!("{name} has {total} pieces, more than the {start_total} a side starts with")));
        }
        let pawns = n[Kind::Pawn.index()];
        if pawns > START_COUNTS[0] {
            return Err(err("board", format!("{name} has {pawns} pawns; a side has at most {}", START_COUNTS[0])));
        }
        let promoted: u32 = Kind::PROMOTIONS.iter().map(|&k| n[k.index()].saturating_sub(START_COUNTS[k.index()])).sum();
        if promoted > START_COUNTS[0] - pawns {
            return Err(err(
                "board",
                format!("{name} has {promoted} pieces beyond the start's, but only {} pawns are missing to have promoted", START_COUNTS[0] - pawns),
            ));
        }
    }
    Ok(())
}

impl Position {
    /// The board field of the FEN.
    pub fn board_fen(&self) -> String {
        let mut s = String::with_capacity(64);
        for rank in (0..SIZE).rev() {
            let mut empty = 0;
            for file in 0..SIZE {
                match self.piece_at(Square10::from_file_rank(file, rank)) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push(p.letter());
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s
    }

    /// The position's FEN.
    pub fn fen(&self) -> String {
        let mut castling: String =
            CASTLING_LETTERS.iter().filter(|(_, c, i)| self.castling_rights() & CASTLING_PATHS[c.index()][*i].right != 0).map(|(l, _, _)| *l).collect();
        if castling.is_empty() {
            castling.push('-');
        }
        let ep = self.en_passant().map_or_else(|| "-".to_string(), |s| s.to_string());
        format!("{} {} {} {} {} {}", self.board_fen(), self.side_to_move().letter(), castling, ep, self.halfmove_clock(), self.fullmove_number())
    }
}

impl fmt::Display for Position {
    /// A diagram (ranks 10..1) followed by the FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..SIZE).rev() {
            write!(f, "{:>2} ", rank + 1)?;
            for file in 0..SIZE {
                let c = self.piece_at(Square10::from_file_rank(file, rank)).map_or('.', |p| p.letter());
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "    a b c d e f g h i j")?;
        write!(f, "{}", self.fen())
    }
}

impl Position {
    /// The standard start position.
    pub fn startpos() -> Position {
        STARTPOS_FEN.parse().expect("the start FEN is valid")
    }
}
