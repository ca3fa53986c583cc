//! The state of a game between two actions, and the platform's FEN for it.

use crate::board::{Board, Color, Kind, Square};
use std::fmt;

/// The optional rules of the vchess implementation (rules file 001); all off
/// is the official game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Rules {
    /// A union moved from a to b may not be moved straight back by the opponent.
    pub no_union_undo: bool,
    /// Each player double-steps a pawn at most once per file.
    pub one_double_step_per_file: bool,
    /// A king may take over a union; a chain the king started that ends on
    /// the other king draws instead of winning.
    pub king_chain_draw: bool,
}

/// What the player to move holds above the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Hand {
    Empty,
    /// One of the mover's pieces, lifted from (or released on) `from`.
    Single {
        kind: Kind,
        from: Square,
    },
    /// A whole union: the mover's piece and the opponent's partner.
    Pair {
        kind: Kind,
        partner: Kind,
        from: Square,
    },
}

/// The kind of action due next.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Required {
    Lift,
    Place,
    /// The opponent carried the mover's pawn to its last rank: the mover
    /// promotes it, then starts the turn.
    PromoteThenLift,
    /// The mover's pawn reached its last rank and released a piece: promote,
    /// then place the released piece.
    PromoteThenPlace,
    /// The mover's pawn reached its last rank and the turn is otherwise over.
    PromoteThenFinish,
}

impl Required {
    pub fn name(self) -> &'static str {
        match self {
            Required::Lift => "Lift",
            Required::Place => "Place",
            Required::PromoteThenLift => "PromoteThenLift",
            Required::PromoteThenPlace => "PromoteThenPlace",
            Required::PromoteThenFinish => "PromoteThenFinish",
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Running,
    PacoVictory(Color),
    RepetitionDraw,
    NoProgressDraw,
    KingChainDraw,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Running => write!(f, "Running"),
            Status::PacoVictory(c) => write!(f, "PacoVictory({})", c.letter()),
            Status::RepetitionDraw => write!(f, "RepetitionDraw"),
            Status::NoProgressDraw => write!(f, "NoProgressDraw"),
            Status::KingChainDraw => write!(f, "KingChainDraw"),
        }
    }
}

/// Everything that decides what may happen next (the repetition history
/// aside, which [`crate::RefGame`] keeps).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub board: Board,
    pub side: Color,
    pub required: Required,
    pub hand: Hand,
    /// The square a pawn skipped with its double step in the turn just played.
    pub en_passant: Option<Square>,
    /// The pawn that must promote.
    pub promotion: Option<Square>,
    /// `castling[color][side]`: the file of the rook that may still castle
    /// (side 0: the rook left of the king, side 1: right of it).
    pub castling: [[Option<i8>; 2]; 2],
    pub no_progress: u8,
    pub status: Status,
    pub rules: Rules,
    /// Optional rule: files each colour has double-stepped a pawn on.
    pub double_steps: [[bool; 8]; 2],
    /// Optional rule: the union move just played, (from, to).
    pub last_pair_move: Option<(Square, Square)>,
    /// Optional rule: the chain in progress was started by the king.
    pub king_chain: bool,
}

/// Union letters of the platform's FEN: (letter, first kind, second kind);
/// upper case means the first piece is White's.
const UNION_LETTERS: [(char, Kind, Kind); 21] = {
    use Kind::*;
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

/// `(white, black)` of a FEN letter.
fn decode(c: char) -> Option<(Option<Kind>, Option<Kind>)> {
    if let Some(k) = Kind::from_letter(c) {
        return Some(if c.is_ascii_uppercase() { (Some(k), None) } else { (None, Some(k)) });
    }
    let &(_, first, second) = UNION_LETTERS.iter().find(|(l, _, _)| *l == c.to_ascii_lowercase())?;
    Some(if c.is_ascii_uppercase() { (Some(first), Some(second)) } else { (Some(second), Some(first)) })
}

/// The FEN letter of a square's content (lower case where a union can be
/// written both ways).
fn encode(white: Option<Kind>, black: Option<Kind>) -> Option<char> {
    match (white, black) {
        (None, None) => None,
        (Some(w), None) => Some(w.letter()),
        (None, Some(b)) => Some(b.letter().to_ascii_lowercase()),
        (Some(w), Some(b)) => UNION_LETTERS
            .iter()
            .find(|(_, f, s)| *f == b && *s == w)
            .map(|(l, _, _)| *l)
            .or_else(|| UNION_LETTERS.iter().find(|(_, f, s)| *f == w && *s == b).map(|(l, _, _)| l.to_ascii_uppercase())),
    }
}

impl State {
    /// Reads the platform's FEN (`board[^<sq><piece(s)>] side half-moves
    /// castling en-passant -`). A pawn of the mover on its last rank is a
    /// promotion the FEN cannot write: it is due now.
    pub fn from_fen(fen: &str, rules: Rules) -> Result<State, String> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() < 5 {
            return Err(format!("expected at least 5 fields, got {}", fields.len()));
        }
        let (board_text, lifted) = match fields[0].split_once('^') {
            Some((b, l)) => (b, Some(l)),
            None => (fields[0], None),
        };
        let mut board = Board::default();
        let ranks: Vec<&str> = board_text.split('/').collect();
        if ranks.len() != 8 {
            return Err(format!("expected 8 ranks, got {}", ranks.len()));
        }
        for (i, text) in ranks.iter().enumerate() {
            let rank = 7 - i as i8;
            let mut file = 0i8;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10) {
                    file += d as i8;
                    continue;
                }
                let (w, b) = decode(c).ok_or_else(|| format!("'{c}' is not a piece or union letter"))?;
                let sq = Square::new(file, rank).ok_or_else(|| format!("rank {} is too long", rank + 1))?;
                board.set(sq, Color::White, w);
                board.set(sq, Color::Black, b);
                file += 1;
            }
            if file != 8 {
                return Err(format!("rank {} has {file} squares", rank + 1));
            }
        }
        let side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            s => return Err(format!("'{s}' is not a side")),
        };
        let mut hand = Hand::Empty;
        let mut required = Required::Lift;
        if let Some(l) = lifted {
            let sq = l.get(..2).and_then(Square::parse).ok_or_else(|| format!("'{l}' does not start with a square"))?;
            let letters: Vec<char> = l[2..].chars().collect();
            let (w, b) = match letters.as_slice() {
                [c] => decode(*c).ok_or_else(|| format!("'{c}' is not a piece letter"))?,
                [c1, c2] => {
                    let (a, z) = (decode(*c1).ok_or("bad lifted letter")?, decode(*c2).ok_or("bad lifted letter")?);
                    (a.0.or(z.0), a.1.or(z.1))
                }
                _ => return Err(format!("'{l}' is not a lifted piece")),
            };
            let (mine, theirs) = if side == Color::White { (w, b) } else { (b, w) };
            let kind = mine.ok_or("the lifted piece is not the mover's")?;
            hand = match theirs {
                None => Hand::Single { kind, from: sq },
                Some(partner) => Hand::Pair { kind, partner, from: sq },
            };
            required = Required::Place;
        }
        let no_progress = fields[2].parse::<u8>().map_err(|_| format!("'{}' is not a half-move count", fields[2]))?;
        let mut castling = [[None; 2]; 2];
        if fields[3] != "-" {
            for c in fields[3].chars() {
                let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
                let rook_file = match c.to_ascii_lowercase() {
                    'k' => 7,
                    'q' => 0,
                    f @ 'a'..='h' => f as i8 - b'a' as i8,
                    _ => return Err(format!("'{c}' is not a castling letter")),
                };
                let king_file =
                    king_home_file(&board, &hand, side, color).ok_or_else(|| format!("{color:?} has a castling right but no king on its home rank"))?;
                castling[color.index()][usize::from(rook_file > king_file)] = Some(rook_file);
            }
        }
        let en_passant = match fields[4] {
            "-" => None,
            s => Some(Square::parse(s).ok_or_else(|| format!("'{s}' is not a square"))?),
        };
        let mut state = State {
            board,
            side,
            required,
            hand,
            en_passant,
            promotion: None,
            castling,
            no_progress,
            status: Status::Running,
            rules,
            double_steps: [[false; 8]; 2],
            last_pair_move: None,
            king_chain: false,
        };
        // A pending promotion: the mover's pawn on its last rank.
        let last = side.last_rank();
        let pawns: Vec<Square> = (0..8).filter_map(|f| Square::new(f, last)).filter(|&s| state.board.get(s, side) == Some(Kind::Pawn)).collect();
        if let [sq] = pawns[..] {
            let partner = state.board.get(sq, side.other());
            let due = match state.hand {
                Hand::Single { from, .. } if from == sq => Some(Required::PromoteThenPlace),
                Hand::Empty if partner.is_none() || partner == Some(Kind::King) => Some(Required::PromoteThenFinish),
                Hand::Empty => Some(Required::PromoteThenLift),
                _ => None,
            };
            if let Some(r) = due {
                state.required = r;
                state.promotion = Some(sq);
            }
        }
        Ok(state)
    }

    /// The platform's FEN (a pending promotion is not written).
    pub fn fen(&self) -> String {
        let mut s = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let sq = Square { file, rank };
                match encode(self.board.get(sq, Color::White), self.board.get(sq, Color::Black)) {
                    None => empty += 1,
                    Some(c) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push(c);
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
        let colored = |k: Kind, c: Color| if c == Color::White { (Some(k), None) } else { (None, Some(k)) };
        match self.hand {
            Hand::Empty => {}
            Hand::Single { kind, from } => {
                let (w, b) = colored(kind, self.side);
                s.push_str(&format!("^{from}{}", encode(w, b).unwrap()));
            }
            Hand::Pair { kind, partner, from } => {
                let (w, b) = if self.side == Color::White { (kind, partner) } else { (partner, kind) };
                s.push_str(&format!("^{from}{}", encode(Some(w), Some(b)).unwrap()));
            }
        }
        let mut rights = String::new();
        for color in Color::BOTH {
            for side in 0..2 {
                if let Some(f) = self.castling[color.index()][side] {
                    let c = (b'a' + f as u8) as char;
                    rights.push(if color == Color::White { c.to_ascii_uppercase() } else { c });
                }
            }
        }
        if rights.is_empty() {
            rights.push('-');
        }
        let ep = self.en_passant.map_or("-".to_string(), |e| e.to_string());
        format!("{s} {} {} {rights} {ep} -", self.side.letter(), self.no_progress)
    }

    /// The same state as a repetition compares it: without the half-move
    /// counter and the status.
    pub fn repetition_key(&self) -> State {
        State { no_progress: 0, status: Status::Running, ..self.clone() }
    }
}

/// The file of `color`'s king if it stands (or is held above) its home rank.
fn king_home_file(board: &Board, hand: &Hand, side: Color, color: Color) -> Option<i8> {
    let on_board = board.king(color);
    let held = match hand {
        Hand::Single { kind: Kind::King, from } if side == color => Some(*from),
        _ => None,
    };
    on_board.or(held).filter(|k| k.rank == color.home_rank()).map(|k| k.file)
}
