//! A game in progress: the board, the columns played, the result, and the
//! [`Game`] implementation search uses.

use super::board::{column_cells, Board, CELLS, HEIGHT, WIDTH};
use super::encode;
use crate::game::{BadNotation, Encode, Encoding, Fact, GameRules, Notation, Outcome, PolicyPlanes, Tools};
use crate::types::Color;

/// The notation of the empty board (every other position is written as
/// the columns played, `4453`).
pub const EMPTY_BOARD: &str = "-";

/// A Connect Four game: White (`x`) drops first, Black (`o`) second.
#[derive(Copy, Clone, Debug)]
pub struct GameState {
    board: Board,
    /// The columns played from the empty board (0-based), in order: the
    /// position as the solvers read it.
    played: [u8; CELLS],
    /// `true` when the last stone completed four.
    won: bool,
}

impl Default for GameState {
    fn default() -> Self {
        GameState { board: Board::default(), played: [0; CELLS], won: false }
    }
}

/// The column a name gives: a digit `1`–`7`, as the solvers write it, or a
/// file letter `a`–`g`.
fn column_of(name: &str) -> Option<usize> {
    match name.as_bytes() {
        [d @ b'1'..=b'7'] => Some((d - b'1') as usize),
        [f @ b'a'..=b'g'] => Some((f - b'a') as usize),
        _ => None,
    }
}

impl GameState {
    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Stones on the board (decisions taken).
    pub fn stones(&self) -> usize {
        self.board.stones() as usize
    }

    /// The columns played, as the solvers read a position: digits `1`–`7`
    /// from the empty board on (`""` for the empty board).
    pub fn solver_position(&self) -> String {
        self.played[..self.stones()].iter().map(|&c| (b'1' + c) as char).collect()
    }

    /// The position after the columns of `moves` (digits `1`–`7`, as the
    /// solvers write them), each checked: the column has room and the game
    /// is not over. The error names the move (1-based) and what is wrong.
    pub fn from_solver_position(moves: &str) -> Result<GameState, BadNotation> {
        let mut g = GameState::default();
        for (i, ch) in moves.chars().enumerate() {
            let bad = |why: String| BadNotation::new(moves, format!("move {} ({ch:?}): {why}", i + 1));
            let c = ch.to_digit(10).filter(|d| (1..=WIDTH as u32).contains(d)).ok_or_else(|| bad("not a column 1-7".to_string()))? as usize - 1;
            if g.outcome().is_some() {
                return Err(bad(format!("the game is already over ({})", g.end_reason())));
            }
            if !g.board.can_play(c) {
                return Err(bad(format!("column {} is full", c + 1)));
            }
            g.drop_stone(c);
        }
        Ok(g)
    }

    /// The columns where the mover completes four now (0-based, ascending).
    pub fn winning_columns(&self) -> Vec<usize> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        let wins = self.board.wins_now(self.board.mover);
        (0..WIDTH).filter(|&c| wins & column_cells(c) != 0).collect()
    }

    fn drop_stone(&mut self, column: usize) {
        let n = self.stones();
        self.played[n] = column as u8;
        self.board.play(column);
        self.won = Board::has_four(self.board.opponent());
    }

    fn mark(stone: Option<bool>, mover: Color) -> char {
        match stone {
            None => '.',
            Some(mine) => {
                let owner = if mine { mover } else { mover.other() };
                if owner == Color::White {
                    'x'
                } else {
                    'o'
                }
            }
        }
    }
}

/// splitmix64's output function: spreads the position key over every bit,
/// as hash tables that use the low bits need.
fn mix(key: u64) -> u64 {
    let mut z = key.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl GameRules for GameState {
    const NAME: &'static str = "connect4";

    const NUM_ACTIONS: usize = encode::NUM_ACTIONS;

    const BOARD_HEIGHT: usize = HEIGHT;

    const BOARD_WIDTH: usize = WIDTH;

    fn to_move(&self) -> Color {
        if self.stones().is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.won {
            Some(Outcome::Win(self.to_move().other()))
        } else if self.stones() == CELLS {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    fn playable_actions(&self, out: &mut Vec<u16>) {
        out.clear();
        if self.outcome().is_none() {
            out.extend((0..WIDTH).filter(|&c| self.board.can_play(c)).map(|c| c as u16));
        }
    }

    fn apply(&mut self, action: u16) {
        let c = action as usize;
        assert!(c < WIDTH && self.board.can_play(c) && self.outcome().is_none(), "column {} is not playable in {}", c + 1, self.notation());
        self.drop_stone(c);
    }

    fn hash(&self) -> u64 {
        mix(self.board.key())
    }

    fn can_win_this_turn(&self) -> bool {
        self.outcome().is_none() && self.board.wins_now(self.board.mover) != 0
    }

    fn start() -> Self {
        GameState::default()
    }

    /// `n % 8` random stones (0 to 7, so no side has four yet), drawn from
    /// a generator seeded with `n`.
    fn random_start(n: u64) -> Self {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n ^ 0x434F_4E4E_4543_5434);
        let mut g = GameState::default();
        let mut legal = Vec::new();
        for _ in 0..n % 8 {
            g.playable_actions(&mut legal);
            g.apply(legal[rng.gen_range(0..legal.len())]);
        }
        g
    }

    fn end_reason(&self) -> &'static str {
        match self.outcome() {
            None => "running",
            Some(Outcome::Win(_)) => "four_in_a_row",
            Some(Outcome::Draw) => "board_full",
        }
    }
}

impl Encode for GameState {
    const NUM_BIT_PLANES: usize = encode::NUM_BIT_PLANES;

    const NUM_SCALARS: usize = encode::NUM_SCALARS;

    const ENCODINGS: &'static [Encoding] = &[encode::ENCODING];

    const ACTION_LAYOUT: &'static str = encode::ACTION_LAYOUT;

    /// `mover_can_win`: the mover can complete four with this stone;
    /// `opponent_threatens`: the opponent could complete four with its next
    /// stone if the mover did not block it (a landing cell it wins on).
    const AUX_TARGETS: &'static [&'static str] = &["mover_can_win", "opponent_threatens"];

    fn encode(&self, planes: &mut [u64], scalars: &mut [f32]) {
        encode::encode(&self.board, planes, scalars);
    }

    /// One plane, a slot at the bottom of each column ([`encode::policy_planes`]).
    fn policy_planes() -> Option<PolicyPlanes> {
        Some(encode::policy_planes())
    }

    fn aux_targets(&self, out: &mut Vec<bool>) -> bool {
        out.clear();
        out.push(self.board.wins_now(self.board.mover) != 0);
        out.push(self.board.wins_now(self.board.opponent()) != 0);
        true
    }

    /// The a ↔ g mirror, a symmetry of every position.
    fn mirror_planes(planes: &mut [u64]) -> bool {
        encode::mirror_planes(planes);
        true
    }

    fn mirror_action_index(a: usize) -> usize {
        WIDTH - 1 - a
    }
}

impl Notation for GameState {
    fn action_name(&self, action: u16) -> String {
        (action + 1).to_string()
    }

    /// The columns played (`4453`), or [`EMPTY_BOARD`].
    fn notation(&self) -> String {
        if self.stones() == 0 {
            EMPTY_BOARD.to_string()
        } else {
            self.solver_position()
        }
    }

    /// The columns played (digits `1`–`7`), or [`EMPTY_BOARD`] (or nothing)
    /// for the empty board.
    fn from_notation(s: &str) -> Result<Self, BadNotation> {
        match s.trim() {
            EMPTY_BOARD | "" => Ok(GameState::default()),
            moves => GameState::from_solver_position(moves).map_err(|e| BadNotation::new(s, e.message)),
        }
    }

    fn parse_action(&self, name: &str) -> Option<u16> {
        let c = column_of(name.trim())?;
        (self.outcome().is_none() && self.board.can_play(c)).then_some(c as u16)
    }

    fn read_action(&self, name: &str) -> Result<u16, String> {
        column_of(name.trim()).map(|c| c as u16).ok_or_else(|| format!("`{}` is not a column (1-7 or a-g)", name.trim()))
    }
}

impl Tools for GameState {
    /// Positions labelled by perfect solvers others wrote (docs/connect4.md).
    const SOLVED_SUITE: Option<&'static str> = Some(include_str!("../../tests/data/connect4-solved.jsonl"));

    /// The board rebuilt from the columns played.
    fn recomputed_hash(&self) -> u64 {
        let mut b = Board::default();
        for &c in &self.played[..self.stones()] {
            b.play(c as usize);
        }
        mix(b.key())
    }

    fn diagram(&self) -> String {
        let mover = self.to_move();
        let mut s = String::new();
        for r in (0..HEIGHT).rev() {
            let row: Vec<String> = (0..WIDTH).map(|c| Self::mark(self.board.at(c, r), mover).to_string()).collect();
            s.push_str(&row.join(" "));
            s.push('\n');
        }
        s.push_str("1 2 3 4 5 6 7\n");
        s.push_str(&format!("moves: {}\n", self.notation()));
        s
    }

    /// `x.` for the first player's stones, `.o` for the second's.
    fn board_cells(&self) -> String {
        let mover = self.to_move();
        let mut s = String::with_capacity(2 * CELLS);
        for r in (0..HEIGHT).rev() {
            for c in 0..WIDTH {
                match Self::mark(self.board.at(c, r), mover) {
                    'x' => s.push_str("x."),
                    'o' => s.push_str(".o"),
                    _ => s.push_str(".."),
                }
            }
        }
        s
    }

    fn fast_perft(&self, depth: u32, _whole_turns: bool) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.outcome().is_some() {
            return 0;
        }
        let mut total = 0;
        for c in 0..WIDTH {
            if self.board.can_play(c) {
                let mut next = *self;
                next.drop_stone(c);
                total += if depth == 1 { 1 } else { next.fast_perft(depth - 1, false) };
            }
        }
        total
    }

    fn facts(&self) -> Vec<(&'static str, Fact)> {
        vec![
            ("solver_position", Fact::Text(self.solver_position())),
            ("winning_columns", Fact::List(self.winning_columns().iter().map(|c| (c + 1).to_string()).collect())),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(moves: &str) -> GameState {
        GameState::from_solver_position(moves).unwrap()
    }

    #[test]
    fn four_in_a_row_wins_in_each_direction_and_a_full_board_draws() {
        for (moves, reason) in [("1212121", "vertical"), ("1122334", "horizontal"), ("12234334744", "diagonal"), ("76654554144", "other diagonal")] {
            let g = play(moves);
            assert_eq!(g.outcome(), Some(Outcome::Win(Color::White)), "{reason}: {moves}");
            assert_eq!(g.end_reason(), "four_in_a_row");
            let before = play(&moves[..moves.len() - 1]);
            assert!(before.outcome().is_none() && before.can_win_this_turn(), "{reason}: one before");
            assert!(before.winning_columns().contains(&((moves.as_bytes()[moves.len() - 1] - b'1') as usize)));
        }
        // Exactly the columns that complete four: x on 1-3 of the bottom row
        // wins at 4 only; x on 2-4 wins at 1 and 5 (o's three in column 7
        // are o's, not the mover's).
        assert_eq!(play("112233").winning_columns(), vec![3]);
        assert_eq!(play("273747").winning_columns(), vec![0, 4]);
        assert_eq!(play("1727").winning_columns(), Vec::<usize>::new());
        assert_eq!(play("").winning_columns(), Vec::<usize>::new());
        // A full board without four (found by random filling, checked by a
        // direct scan in Python): a draw, and no column is left.
        let g = play("256426457127755361771411454217542236336633");
        assert_eq!((g.outcome(), g.end_reason(), g.stones()), (Some(Outcome::Draw), "board_full", 42));
        let mut legal = vec![0];
        g.playable_actions(&mut legal);
        assert!(legal.is_empty());
        let e = GameState::from_solver_position("12121212").unwrap_err().to_string();
        assert!(e.contains("move 8") && e.contains("already over"), "{e}");
        let e = GameState::from_solver_position("1111111").unwrap_err().to_string();
        assert!(e.contains("move 7") && e.contains("full"), "{e}");
        let e = GameState::from_solver_position("128").unwrap_err().to_string();
        assert!(e.contains("move 3") && e.contains("'8'"), "{e}");
    }

    #[test]
    fn the_notation_is_the_columns_played_and_reads_back() {
        let g = play("4453");
        assert_eq!((g.notation(), g.solver_position()), ("4453".to_string(), "4453".to_string()));
        assert_eq!(GameState::start().notation(), EMPTY_BOARD);
        assert_eq!(GameState::from_notation(" - ").unwrap().stones(), 0);
        assert_eq!(GameState::from_notation("4453").unwrap().hash(), g.hash());
        // Transpositions: other columns orders, the same position and hash.
        assert_eq!(play("5344").hash(), g.hash());
        assert_ne!(play("4435").hash(), g.hash());
        assert_eq!(g.parse_action("d"), Some(3));
        assert_eq!(g.parse_action("4"), Some(3));
        assert_eq!(g.parse_action("8"), None);
        assert!(g.read_action("h").unwrap_err().contains("not a column"));
    }
}
