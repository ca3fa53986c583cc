//! Tic-tac-toe through the [`Game`] surface: a game small enough to be
//! obviously right, which overrides only what a game must define (and the
//! training-data mirror), so the conformance checks also run the trait's
//! default methods, which neither registered game uses in full.
//!
//! Cells are numbered `3 * rank + file` from a1 (0) to c3 (8); White plays
//! `x` and moves first. Notation: the ranks from 3 down to 1, three cells
//! each (`x`, `o` or `.`), `/` between ranks, then ` x` or ` o` for the mover,
//! as in `x../.o./... x`.

use pacozero_engine::{BadNotation, Color, Encode, Encoding, GameRules, Notation, Outcome, Tools, DEFAULT_ENCODING};

const LINES: [[usize; 3]; 8] = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TicTacToe {
    /// `None` or the player whose mark is in the cell.
    cells: [Option<Color>; 9],
    mover: Color,
    /// Kept up to date move by move: the base-3 number of the cells.
    hash: u64,
}

impl TicTacToe {
    fn winner(&self) -> Option<Color> {
        LINES.iter().find_map(|l| match l.map(|c| self.cells[c]) {
            [Some(a), Some(b), Some(c)] if a == b && b == c => Some(a),
            _ => None,
        })
    }

    fn full(&self) -> bool {
        self.cells.iter().all(Option::is_some)
    }

    fn mark(c: Option<Color>) -> char {
        match c {
            None => '.',
            Some(Color::White) => 'x',
            Some(Color::Black) => 'o',
        }
    }

    fn cell_value(c: Option<Color>) -> u64 {
        match c {
            None => 0,
            Some(Color::White) => 1,
            Some(Color::Black) => 2,
        }
    }
}

/// The file mirror a ↔ c (a symmetry of the rules) on cell indices.
fn mirror_cell(a: usize) -> usize {
    3 * (a / 3) + 2 - a % 3
}

impl GameRules for TicTacToe {
    const NAME: &'static str = "tictactoe";

    const NUM_ACTIONS: usize = 9;

    const BOARD_HEIGHT: usize = 3;

    const BOARD_WIDTH: usize = 3;

    fn to_move(&self) -> Color {
        self.mover
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.winner() {
            Some(c) => Some(Outcome::Win(c)),
            None if self.full() => Some(Outcome::Draw),
            None => None,
        }
    }

    fn playable_actions(&self, out: &mut Vec<u16>) {
        out.clear();
        if self.outcome().is_none() {
            out.extend((0..9u16).filter(|&a| self.cells[a as usize].is_none()));
        }
    }

    fn apply(&mut self, action: u16) {
        let a = action as usize;
        assert!(self.cells[a].is_none(), "cell {a} is taken");
        self.cells[a] = Some(self.mover);
        self.hash += Self::cell_value(Some(self.mover)) * 3u64.pow(a as u32);
        self.mover = self.mover.other();
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn start() -> Self {
        TicTacToe { cells: [None; 9], mover: Color::White, hash: 0 }
    }

    /// White's first mark in cell `n % 9`.
    fn random_start(n: u64) -> Self {
        let mut g = TicTacToe::start();
        g.apply((n % 9) as u16);
        g
    }

    fn end_reason(&self) -> &'static str {
        match self.outcome() {
            None => "running",
            Some(Outcome::Win(_)) => "three_in_a_row",
            Some(Outcome::Draw) => "board_full",
        }
    }
}

impl Encode for TicTacToe {
    const NUM_BIT_PLANES: usize = 2;

    const NUM_SCALARS: usize = 1;

    const ENCODINGS: &'static [Encoding] =
        &[Encoding { name: DEFAULT_ENCODING, version: 1, bit_planes: &["mover_marks", "opponent_marks"], scalars: &["marks_played"] }];

    const ACTION_LAYOUT: &'static str = "the cell to mark, 3 * rank + file (a1 = 0, c3 = 8)";

    const AUX_TARGETS: &'static [&'static str] = &["centre_taken"];

    fn encode(&self, planes: &mut [u64], scalars: &mut [f32]) {
        planes.fill(0);
        for (i, c) in self.cells.iter().enumerate() {
            match c {
                Some(c) if *c == self.mover => planes[0] |= 1 << i,
                Some(_) => planes[1] |= 1 << i,
                None => {}
            }
        }
        scalars[0] = self.cells.iter().filter(|c| c.is_some()).count() as f32 / 9.0;
    }

    fn aux_targets(&self, out: &mut Vec<bool>) -> bool {
        out.clear();
        out.push(self.cells[4].is_some());
        true
    }

    fn mirror_planes(planes: &mut [u64]) -> bool {
        for p in planes.iter_mut() {
            *p = (0..9).filter(|&i| *p >> i & 1 == 1).fold(0, |m, i| m | 1 << mirror_cell(i));
        }
        true
    }

    fn mirror_action_index(a: usize) -> usize {
        mirror_cell(a)
    }
}

impl Notation for TicTacToe {
    fn action_name(&self, action: u16) -> String {
        let a = action as usize;
        format!("{}{}", (b'a' + (a % 3) as u8) as char, a / 3 + 1)
    }

    fn parse_action(&self, name: &str) -> Option<u16> {
        let mut legal = Vec::new();
        self.playable_actions(&mut legal);
        legal.into_iter().find(|&a| self.action_name(a) == name)
    }

    fn notation(&self) -> String {
        let ranks: Vec<String> = (0..3).rev().map(|r| (0..3).map(|f| Self::mark(self.cells[3 * r + f])).collect()).collect();
        format!("{} {}", ranks.join("/"), Self::mark(Some(self.mover)))
    }

    fn from_notation(s: &str) -> Result<Self, BadNotation> {
        let bad = |why: String| BadNotation::new(s, why);
        let (board, mover) = s.trim().split_once(' ').ok_or_else(|| bad("no mover after the board".into()))?;
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != 3 || ranks.iter().any(|r| r.chars().count() != 3) {
            return Err(bad(format!("board {board:?}: not three ranks of three cells")));
        }
        let mut g = TicTacToe::start();
        for (i, rank) in ranks.iter().enumerate() {
            for (f, ch) in rank.chars().enumerate() {
                let cell = match ch {
                    '.' => None,
                    'x' => Some(Color::White),
                    'o' => Some(Color::Black),
                    _ => return Err(bad(format!("cell {}{}: {ch:?} is not x, o or .", (b'a' + f as u8) as char, 3 - i))),
                };
                g.cells[3 * (2 - i) + f] = cell;
            }
        }
        let count = |c| g.cells.iter().filter(|&&x| x == Some(c)).count();
        let (xs, os) = (count(Color::White), count(Color::Black));
        g.mover = match mover {
            "x" if xs == os => Color::White,
            "o" if xs == os + 1 => Color::Black,
            "x" | "o" => return Err(bad(format!("{xs} x and {os} o: not {mover}'s turn"))),
            _ => return Err(bad(format!("mover {mover:?} is not x or o"))),
        };
        g.hash = g.recomputed_hash();
        Ok(g)
    }
}

impl Tools for TicTacToe {
    fn recomputed_hash(&self) -> u64 {
        self.cells.iter().enumerate().map(|(i, &c)| Self::cell_value(c) * 3u64.pow(i as u32)).sum()
    }
}
