//! [`GameRules`]: what search and self-play need of a game, and how a game ends.

use crate::types::Color;

/// How a finished game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Color),
    Draw,
}

/// The rules of a game, as search, self-play and training need them: who
/// moves, which decisions are playable, what they lead to, and how the
/// game ends. The other traits of [`crate::Game`] extend it.
pub trait GameRules: Clone + Send + Sync + 'static {
    /// Short name (`paco`, `shako`), recorded in data files.
    const NAME: &'static str;
    /// Size of the policy (number of action slots).
    const NUM_ACTIONS: usize;
    const BOARD_HEIGHT: usize;
    const BOARD_WIDTH: usize;
    /// The player who takes the next decision.
    fn to_move(&self) -> Color;
    /// `None` while the game runs.
    fn outcome(&self) -> Option<Outcome>;
    /// The decisions search, self-play and players may take (policy
    /// indices, ascending): the legal decisions after which the turn can
    /// still be completed. Empty for a finished game; a running game with
    /// none is stuck (callers adjudicate).
    fn playable_actions(&self, out: &mut Vec<u16>);
    /// Every decision the rules allow, as the game's reference engine lists
    /// them (policy indices, ascending): Paco Ŝako's platform also lists the
    /// actions that can only lead into a dead-end chain (its player may undo
    /// them), which [`GameRules::playable_actions`] leaves out. This is what
    /// `pacozero legal` and the Python package's `legal_actions` report; the
    /// default, for games without dead ends, is the playable list.
    fn legal_actions(&self, out: &mut Vec<u16>) {
        self.playable_actions(out)
    }
    /// Takes a decision from [`GameRules::legal_actions`] (search takes only
    /// playable ones).
    fn apply(&mut self, action: u16);
    /// Hash of the state (including what decides repetitions).
    fn hash(&self) -> u64;
    /// `true` when the mover is sure to win before the opponent decides again
    /// (Paco Ŝako: it can unite with the opponent's king this turn). Search
    /// treats such a position as won. `false` means "not known", never "no";
    /// always `false` in a finished game.
    fn can_win_this_turn(&self) -> bool {
        false
    }
    /// `true` at a turn start whose position occurred before in this game
    /// (since the last irreversible progress), which the rules do not draw
    /// yet: search may score it as a draw (`SearchConfig::twofold_draws`).
    /// `false` for states without history.
    fn repeats_earlier_position(&self) -> bool {
        false
    }
    /// How often the position occurred before in this game (since the last
    /// irreversible progress): the history that decides repetitions, as far
    /// as states that are otherwise equal can differ. 0 for states without
    /// history.
    fn repetitions(&self) -> usize {
        0
    }
    /// The standard start of a game.
    fn start() -> Self;
    /// Randomised start number `n`, deterministic from `n` (Paco Ŝako: the
    /// Fischer-random setup `n % 960`; Shako: a few random plies from the
    /// standard start). Self-play's `start_positions = "fischer_random"`.
    fn random_start(n: u64) -> Self;
    /// Why a finished game ended, as recorded in data (Paco Ŝako: `"paco"`,
    /// `"repetition"`, `"no_progress"`; Shako: `"checkmate"`, `"stalemate"`,
    /// `"repetition"`, `"fifty_moves"`); `"running"` while it runs.
    fn end_reason(&self) -> &'static str;
    /// Material balance, White minus Black, in pawns, for games where
    /// material changes hands (Shako); `None` where it never does (Paco Ŝako
    /// has no captures). Games cut at their length cap can be adjudicated
    /// with it.
    fn material_balance(&self) -> Option<i32> {
        None
    }
    /// The captures by which the material of the position settles, as a
    /// material-only quiescence search plays them (Shako:
    /// [`crate::shako::quiesce`]), written to `out` as decisions (empty
    /// where the position is quiet), and the material balance at the line's
    /// end for the mover, in pawns (a mate ±10,000). `None`, with `out`
    /// empty, in games without captures (the default). Search may evaluate a
    /// leaf at the line's end instead (`pacozero_search::QuiescentEvaluator`).
    fn capture_line(&self, out: &mut Vec<u16>) -> Option<i32> {
        out.clear();
        None
    }
    /// `true` at the start of a turn (nothing decided yet this turn, or only
    /// what a FEN cannot write). Games whose turn is one decision are always
    /// there; Paco Ŝako is not while a piece is in hand (a pending promotion
    /// with nothing in hand is a turn start).
    fn is_turn_start(&self) -> bool {
        true
    }
    /// Every legal whole turn from here, as its decisions (turn enumeration
    /// for play and tools); the default, for games whose turn is one
    /// decision, is each legal decision alone.
    fn legal_turns(&self) -> Vec<Vec<u16>> {
        let mut legal = Vec::new();
        self.playable_actions(&mut legal);
        legal.into_iter().map(|d| vec![d]).collect()
    }
    /// The same position without the history that decides repetitions (an
    /// opening book's node, searched as if the game started there); the
    /// default, for states that keep no history, is a copy.
    fn without_history(&self) -> Self {
        self.clone()
    }
}
