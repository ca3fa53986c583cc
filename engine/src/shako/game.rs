//! A game in progress: a position, the repetition history and the result,
//! and the [`Game`] implementation search uses.

use super::encode::{self, action_index, move_from_action};
use super::fen::FenError;
use super::moves::{Move, UciError};
use super::position::{IllegalMove, Position};
use crate::game::{ensure_running, BadNotation, Encode, Encoding, Fact, GameRules, Notation, Outcome, Tools};
use crate::types::Color;
use std::fmt;

/// Half-moves without capture or pawn move that draw the game (the 50-move rule).
pub const FIFTY_MOVE_HALF_MOVES: u16 = 100;

/// Where a game stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Running,
    /// The side to move is mated; the other colour won.
    Checkmate(Color),
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// 100 half-moves without a capture or a pawn move.
    FiftyMoveDraw,
    /// The position occurred for the third time.
    RepetitionDraw,
}

impl Status {
    pub fn is_over(self) -> bool {
        self != Status::Running
    }

    pub fn outcome(self) -> Option<Outcome> {
        match self {
            Status::Running => None,
            Status::Checkmate(winner) => Some(Outcome::Win(winner)),
            Status::Stalemate | Status::FiftyMoveDraw | Status::RepetitionDraw => Some(Outcome::Draw),
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Checkmate(winner) => write!(f, "Checkmate({winner})"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// A position with what decides draws by repetition.
#[derive(Clone, Debug)]
pub struct GameState {
    pos: Position,
    /// Hashes of the positions since the last capture or pawn move, the current one last.
    history: Vec<u64>,
    status: Status,
}

impl GameState {
    pub fn new(pos: Position) -> GameState {
        let mut g = GameState { pos, history: vec![pos.hash()], status: Status::Running };
        g.status = g.compute_status();
        g
    }

    pub fn startpos() -> GameState {
        GameState::new(Position::startpos())
    }

    pub fn from_fen(fen: &str) -> Result<GameState, FenError> {
        Ok(GameState::new(fen.parse()?))
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    pub fn status(&self) -> Status {
        self.status
    }

    /// How often the current position occurred before (0 if new).
    pub fn repetitions(&self) -> usize {
        let h = self.pos.hash();
        self.history.iter().filter(|&&k| k == h).count() - 1
    }

    /// The legal moves (none once the game is over), in generation order.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.status.is_over() {
            return Vec::new();
        }
        self.pos.legal_moves_vec()
    }

    /// Plays a move after checking it is legal and the game is not over.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        if self.status.is_over() {
            return Err(IllegalMove { uci: m.to_string(), fen: self.pos.fen() });
        }
        self.pos.play(m)?;
        self.after_move();
        Ok(())
    }

    /// Plays a UCI move (checked).
    pub fn play_uci(&mut self, uci: &str) -> Result<Move, UciError> {
        let m = self.pos.parse_uci(uci)?;
        self.play(m).map_err(|e| UciError { input: uci.to_string(), message: e.to_string() })?;
        Ok(m)
    }

    /// Plays a move known to be legal.
    pub fn play_unchecked(&mut self, m: Move) {
        self.pos.play_unchecked(m);
        self.after_move();
    }

    fn after_move(&mut self) {
        if self.pos.halfmove_clock() == 0 {
            // A capture or pawn move: earlier positions can never come back.
            self.history.clear();
        }
        self.history.push(self.pos.hash());
        self.status = self.compute_status();
    }

    fn compute_status(&self) -> Status {
        if self.pos.count_legal_moves() == 0 {
            if self.pos.in_check() {
                Status::Checkmate(self.pos.side_to_move().other())
            } else {
                Status::Stalemate
            }
        } else if self.pos.halfmove_clock() >= FIFTY_MOVE_HALF_MOVES {
            Status::FiftyMoveDraw
        } else if self.repetitions() >= 2 {
            Status::RepetitionDraw
        } else {
            Status::Running
        }
    }
}

impl GameRules for GameState {
    const NAME: &'static str = "shako";

    const NUM_ACTIONS: usize = encode::NUM_ACTIONS;

    const BOARD_HEIGHT: usize = 10;

    const BOARD_WIDTH: usize = 10;

    /// The standard start after 2, 4 or 6 (`2 * (1 + n % 3)`) uniformly random
    /// legal plies drawn from a generator seeded with `n`. A line that ends
    /// the game (none is known this short) is redrawn; after 16 such lines the
    /// standard start is used.
    fn random_start(n: u64) -> Self {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n ^ 0x5348_414B_4F5F_5354);
        for _ in 0..16 {
            let mut g = GameState::startpos();
            for _ in 0..random_start_plies(n) {
                let moves = g.legal_moves();
                if moves.is_empty() {
                    break;
                }
                g.play_unchecked(moves[rng.gen_range(0..moves.len())]);
            }
            if !g.status().is_over() {
                return g;
            }
        }
        GameState::startpos()
    }

    fn end_reason(&self) -> &'static str {
        match self.status() {
            Status::Running => "running",
            Status::Checkmate(_) => "checkmate",
            Status::Stalemate => "stalemate",
            Status::RepetitionDraw => "repetition",
            Status::FiftyMoveDraw => "fifty_moves",
        }
    }

    fn without_history(&self) -> Self {
        GameState::new(self.pos)
    }

    fn material_balance(&self) -> Option<i32> {
        let pos = self.position();
        Some(pos.material(Color::White) as i32 - pos.material(Color::Black) as i32)
    }

    fn to_move(&self) -> Color {
        self.pos.side_to_move()
    }

    fn outcome(&self) -> Option<Outcome> {
        self.status.outcome()
    }

    fn playable_actions(&self, out: &mut Vec<u16>) {
        out.clear();
        let mover = self.pos.side_to_move();
        out.extend(self.legal_moves().into_iter().map(|m| action_index(m, mover) as u16));
        out.sort_unstable();
    }

    fn apply(&mut self, action: u16) {
        let m = move_from_action(&self.pos, action as usize).unwrap_or_else(|| panic!("action {action} has no move in {}", self.pos.fen()));
        debug_assert!(self.pos.legal_moves_vec().contains(&m), "action {action} ({m}) is not legal in {}", self.pos.fen());
        self.play_unchecked(m);
    }

    fn repetitions(&self) -> usize {
        GameState::repetitions(self)
    }

    /// The mover has a move that checkmates ([`Position::has_mate_in_one`]):
    /// a checkmate ends the game before the 50-move rule or a repetition
    /// can ([`GameState::status`]), so such a move always wins.
    fn can_win_this_turn(&self) -> bool {
        !self.status.is_over() && self.pos.has_mate_in_one()
    }

    fn capture_line(&self, out: &mut Vec<u16>) -> Option<i32> {
        out.clear();
        if self.status.is_over() {
            return None;
        }
        let (line, score) = self.pos.capture_line();
        let mut pos = self.pos;
        for m in line {
            out.push(action_index(m, pos.side_to_move()) as u16);
            pos.play_unchecked(m);
        }
        Some(score)
    }

    fn hash(&self) -> u64 {
        self.pos.hash()
    }

    fn repeats_earlier_position(&self) -> bool {
        self.repetitions() >= 1
    }

    fn start() -> Self {
        GameState::startpos()
    }
}

impl Encode for GameState {
    /// `mover_in_check`: the mover's king is attacked; `mover_can_check`:
    /// the mover has a legal move that gives check.
    const AUX_TARGETS: &'static [&'static str] = &["mover_in_check", "mover_can_check"];

    const NUM_BIT_PLANES: usize = encode::NUM_BIT_PLANES;

    const NUM_SCALARS: usize = encode::NUM_SCALARS;

    /// `pacozero` ([`Encode::encode`]) and `threats`, which adds attack and
    /// check planes ([`encode::encode_threats`]).
    const ENCODINGS: &'static [Encoding] = &[encode::ENCODING, encode::THREATS_ENCODING];

    const ACTION_LAYOUT: &'static str = encode::ACTION_LAYOUT;

    /// 95 planes: a move on its from-square ([`encode::policy_planes`]).
    fn policy_planes() -> Option<crate::game::PolicyPlanes> {
        Some(encode::policy_planes())
    }

    fn encode_as(&self, encoding: usize, planes: &mut [u64], scalars: &mut [f32]) {
        match encoding {
            0 => self.encode(planes, scalars),
            1 => encode::encode_threats(&self.pos, self.repetitions() > 0, planes, scalars),
            _ => panic!("Shako has no input encoding {encoding}"),
        }
    }

    /// Every Shako position is settled (a turn is one decision).
    fn aux_targets(&self, out: &mut Vec<bool>) -> bool {
        out.clear();
        let pos = self.position();
        let gives_check = self.legal_moves().into_iter().any(|m| {
            let mut next = *pos;
            next.play_unchecked(m);
            next.in_check()
        });
        out.extend([pos.in_check(), gives_check]);
        true
    }

    fn encode(&self, planes: &mut [u64], scalars: &mut [f32]) {
        encode::encode(&self.pos, self.repetitions() > 0, planes, scalars);
    }
}

impl Notation for GameState {
    /// The index must name a move of this position ([`move_from_action`]),
    /// which [`GameState::play`] then checks.
    fn try_apply(&mut self, action: u16) -> Result<(), String> {
        ensure_running(self)?;
        let m = move_from_action(&self.pos, action as usize)
            .ok_or_else(|| format!("action index {action} is no move in {} (policy slots 0..{})", self.pos.fen(), encode::NUM_ACTIONS))?;
        self.play(m).map_err(|e| e.to_string())
    }

    fn action_name(&self, action: u16) -> String {
        move_from_action(&self.pos, action as usize).map_or_else(|| format!("#{action}"), |m| m.to_string())
    }

    fn notation(&self) -> String {
        self.pos.fen()
    }

    fn pgn_move(&self, decisions: &[u16]) -> String {
        match decisions {
            [d] => move_from_action(&self.pos, *d as usize).map_or_else(|| format!("#{d}"), |m| self.pos.san(m)),
            _ => self.turn_notation(decisions),
        }
    }

    fn from_notation(s: &str) -> Result<Self, BadNotation> {
        GameState::from_fen(s.trim()).map_err(|e| BadNotation::new(s, e))
    }

    fn parse_action(&self, name: &str) -> Option<u16> {
        let m = self.pos.parse_uci(name).ok()?;
        self.legal_moves().contains(&m).then(|| action_index(m, self.pos.side_to_move()) as u16)
    }

    /// Any UCI move of this position's pieces, legal or not.
    fn read_action(&self, name: &str) -> Result<u16, String> {
        let m = self.pos.parse_uci(name.trim()).map_err(|e| e.to_string())?;
        Ok(action_index(m, self.pos.side_to_move()) as u16)
    }

    /// UCI moves; a malformed one is named with the parser's reason, an
    /// illegal one with the position's.
    fn parse_decisions(&self, text: &str) -> Result<Vec<u16>, BadNotation> {
        let mut g = self.clone();
        let mut out = Vec::new();
        for (i, name) in text.split_whitespace().enumerate() {
            let mover = g.pos.side_to_move();
            let m = g.play_uci(name).map_err(|e| BadNotation::new(text, format!("move {} ({name}): {e}", i + 1)))?;
            out.push(action_index(m, mover) as u16);
        }
        Ok(out)
    }

    fn status_text(&self) -> String {
        self.status.to_string()
    }
}

impl Tools for GameState {
    fn board_cells(&self) -> String {
        let mut s = String::with_capacity(2 * 100);
        for rank in (0..10).rev() {
            for file in 0..10 {
                match self.pos.piece_at(super::Square10::from_file_rank(file, rank)) {
                    Some(p) if p.color == Color::White => s.extend([p.letter(), '.']),
                    Some(p) => s.extend(['.', p.letter()]),
                    None => s.push_str(".."),
                }
            }
        }
        s
    }

    fn diagram(&self) -> String {
        let mover = self.pos.side_to_move().title();
        format!("{}\n{mover} to move\nfen: {}\n", self.pos, self.pos.fen())
    }

    fn recomputed_hash(&self) -> u64 {
        self.pos.compute_hash()
    }

    /// Legal-move perft of the position (Fairy-Stockfish's `go perft`); a
    /// Shako turn is one decision, so both modes count the same.
    fn fast_perft(&self, depth: u32, _whole_turns: bool) -> u64 {
        if depth > 0 && self.status.is_over() {
            return 0;
        }
        self.pos.perft(depth)
    }

    fn facts(&self) -> Vec<(&'static str, Fact)> {
        let mut moves: Vec<String> = self.pos.legal_moves_vec().iter().map(|m| m.to_string()).collect();
        moves.sort();
        vec![("in_check", Fact::Flag(self.pos.in_check())), ("legal_moves", Fact::List(moves))]
    }
}

/// Random plies of a Shako random start: 2, 4 or 6, so White is to move.
fn random_start_plies(n: u64) -> u64 {
    2 * (1 + n % 3)
}
