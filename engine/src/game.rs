//! The surface shared by every game of the engine: what self-play,
//! training, arena and books need, and beside it the hooks of the viewer
//! and the tools (notation, diagrams, suites).
//!
//! Actions are policy indices in the mover's frame (`0..NUM_ACTIONS`), so
//! search never sees a game's own action type.
//!
//! Every per-game hook is a [`Game`] method, implemented in the game's own
//! `game.rs`. The registry of the games (which depends on them) is the
//! `registry` module.

use crate::types::Color;
use std::fmt;

/// How a finished game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Color),
    Draw,
}

/// A network input encoding of a game: its name and version and the names
/// of its inputs, for files that describe the network they hold (the ONNX
/// export's metadata). A network reads the bit planes as `0`/`1` planes,
/// then each scalar broadcast to a constant plane, in the order named here.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Encoding {
    /// The encoding's name (`pacozero` for each game's own).
    pub name: &'static str,
    /// Raised whenever a plane's meaning changes, so a network trained on
    /// the old meaning is not fed the new one unnoticed.
    pub version: u32,
    /// Names of the bit planes, in order (snake_case).
    pub bit_planes: &'static [&'static str],
    /// Names of the scalars, in order (snake_case).
    pub scalars: &'static [&'static str],
}

impl Encoding {
    /// Bit planes of the encoding.
    pub fn num_bit_planes(&self) -> usize {
        self.bit_planes.len()
    }
    /// Scalars of the encoding.
    pub fn num_scalars(&self) -> usize {
        self.scalars.len()
    }
}

/// Where a convolutional policy head reads each action's logit
/// ([`Game::policy_planes`]): the head writes `planes` planes over the
/// board, and an action is one square of one plane (in chess, AlphaZero's
/// 73 planes of moves by their from-square), or a whole plane for an
/// action that belongs to no square (its logit is the plane's mean).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyPlanes {
    /// Planes the head writes.
    pub planes: usize,
    /// For each action index, in order: its plane and its square (the bit
    /// planes' square index, `rank * W + file` of the mover's frame), or
    /// `None` for a plane's mean over the board. No two actions share one.
    pub slots: Vec<(u16, Option<u16>)>,
}

/// The name of each game's own encoding, its first ([`Game::ENCODINGS`]):
/// what files that name none hold.
pub const DEFAULT_ENCODING: &str = "pacozero";

/// The index in [`Game::ENCODINGS`] of the encoding `name`; the error names
/// the game's encodings.
pub fn encoding_index<G: Game>(name: &str) -> Result<usize, String> {
    G::ENCODINGS.iter().position(|e| e.name == name).ok_or_else(|| {
        let names: Vec<&str> = G::ENCODINGS.iter().map(|e| e.name).collect();
        format!("{} has no input encoding {name:?} (it has: {})", G::NAME, names.join(", "))
    })
}

/// A game state as search sees it.
pub trait Game: Clone + Send + Sync + 'static {
    /// Short name (`paco`, `shako`), recorded in data files.
    const NAME: &'static str;
    /// Size of the policy (number of action slots).
    const NUM_ACTIONS: usize;
    const BOARD_HEIGHT: usize;
    const BOARD_WIDTH: usize;
    /// Bit planes of the encoding (each `ceil(H*W/64)` words) and scalars.
    const NUM_BIT_PLANES: usize;
    const NUM_SCALARS: usize;
    /// The `u64` words of one bit plane: a bit per square, `ceil(H*W/64)`.
    const WORDS_PER_PLANE: usize = (Self::BOARD_HEIGHT * Self::BOARD_WIDTH).div_ceil(64);

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
    /// them), which [`Game::playable_actions`] leaves out. This is what
    /// `pacozero legal` and the Python package's `legal_actions` report; the
    /// default, for games without dead ends, is the playable list.
    fn legal_actions(&self, out: &mut Vec<u16>) {
        self.playable_actions(out)
    }
    /// Takes a decision from [`Game::legal_actions`] (search takes only
    /// playable ones).
    fn apply(&mut self, action: u16);
    /// [`Game::apply`] checked, for decisions from outside (the Python
    /// package): takes `action` if the rules allow it here (it is one of
    /// [`Game::legal_actions`]); otherwise leaves the state as it was and
    /// says why (the game is over, the index is out of range, the decision
    /// is not legal). The default checks against `legal_actions`.
    fn try_apply(&mut self, action: u16) -> Result<(), String> {
        ensure_running(self)?;
        let mut legal = Vec::new();
        self.legal_actions(&mut legal);
        if legal.binary_search(&action).is_err() {
            return Err(format!("decision {action} ({}) is not legal in {}", self.action_name(action), self.notation()));
        }
        self.apply(action);
        Ok(())
    }
    /// Writes the network input (see the game's encoding table).
    fn encode(&self, planes: &mut [u64], scalars: &mut [f32]);
    /// The network input encodings of the game; the first, named
    /// [`DEFAULT_ENCODING`], is the one [`Game::encode`] writes
    /// ([`Game::NUM_BIT_PLANES`] bit planes, [`Game::NUM_SCALARS`] scalars,
    /// named there). A run chooses one (`net.encoding`); its data and
    /// networks record it.
    const ENCODINGS: &'static [Encoding];
    /// Writes the input in encoding `ENCODINGS[encoding]` into `planes`
    /// (its bit planes, each `ceil(H*W/64)` words) and `scalars`. The
    /// default, for games with one encoding, is [`Game::encode`].
    fn encode_as(&self, encoding: usize, planes: &mut [u64], scalars: &mut [f32]) {
        assert_eq!(encoding, 0, "{} has one input encoding", Self::NAME);
        self.encode(planes, scalars)
    }
    /// The policy's action indices in words: which decision each slot is and
    /// in which frame (for files that describe the network they hold).
    const ACTION_LAYOUT: &'static str;
    /// The action indices as planes over the board, for a convolutional
    /// policy head (`net.policy_head = "conv"`); `None` for a game without
    /// such a layout (the default), whose networks keep the fully connected
    /// head.
    fn policy_planes() -> Option<PolicyPlanes> {
        None
    }
    /// The game's bundled suite of solved positions (`pacozero solved`: JSON
    /// lines of positions with their exact values and optimal moves, made
    /// by a perfect solver), for games that are solved; `None` (the
    /// default) for the others.
    const SOLVED_SUITE: Option<&'static str> = None;
    /// Hash of the state (including what decides repetitions).
    fn hash(&self) -> u64;
    /// Human-readable name of a decision in this state (e.g. `Le2`).
    fn action_name(&self, action: u16) -> String;
    /// The state in the game's position notation.
    fn notation(&self) -> String;
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
    /// A game from a state in the game's notation ([`Game::notation`] reads
    /// back; surrounding white space is ignored), checked; the error says
    /// what is wrong.
    fn from_notation(s: &str) -> Result<Self, BadNotation>;
    /// `true` when [`Game::notation`] captures everything the hash covers,
    /// so reading it back gives the same hash (a Paco Ŝako FEN cannot hold a
    /// pending promotion's turn or the optional rules' history).
    fn notation_is_complete(&self) -> bool {
        true
    }
    /// The decision named `name` ([`Game::action_name`]) in this state, if legal.
    fn parse_action(&self, name: &str) -> Option<u16>;
    /// The decision `name` names, read without checking that it is legal
    /// here ([`Game::try_apply`] checks that); the error says why the name
    /// does not read. The default reads only legal decisions
    /// ([`Game::parse_action`]).
    fn read_action(&self, name: &str) -> Result<u16, String> {
        self.parse_action(name.trim()).ok_or_else(|| format!("`{}` is not a legal decision in {}", name.trim(), self.notation()))
    }
    /// [`Game::hash`] recomputed from scratch (the incremental one must equal it).
    fn recomputed_hash(&self) -> u64;

    /// Randomised start number `n`, deterministic from `n` (Paco Ŝako: the
    /// Fischer-random setup `n % 960`; Shako: a few random plies from the
    /// standard start). Self-play's `start_positions = "fischer_random"`.
    fn random_start(n: u64) -> Self;
    /// Fischer-random setup number `n` with the optional rules named in
    /// `rules` ([`Game::RULE_OPTIONS`]) on, for games that have such
    /// numbered setups (Paco Ŝako: 0..960, Scharnagl numbering, 518 the
    /// standard start); the error says why there is none. Default: the game
    /// has none.
    fn fischer_random(n: u64, rules: &[&str]) -> Result<Self, String> {
        let _ = (n, rules);
        Err(format!("{} has no Fischer-random setups (its randomised starts are random_start(n))", Self::NAME))
    }
    /// Names of the game's auxiliary training targets: yes/no facts about a
    /// settled position (the start of a turn) that the network learns to
    /// predict beside the policy and the value, and that search never reads.
    /// The data files store their values as one column in this order, and
    /// these names in their metadata (`aux_targets`); the network's
    /// auxiliary head has one logit each. Names are distinct snake_case
    /// words (the conformance test checks them).
    const AUX_TARGETS: &'static [&'static str];
    /// The values of [`Game::AUX_TARGETS`] for this position: clears `out`
    /// and pushes one value per name, in order, and returns `true`; in the
    /// middle of a turn (no settled position) leaves `out` empty and returns
    /// `false`. Self-play reuses `out`, so no call allocates once it has
    /// grown.
    fn aux_targets(&self, out: &mut Vec<bool>) -> bool;
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
    /// Mirrors an encoded position ([`Game::encode`]'s planes) in place by a
    /// symmetry of the rules, for training-data augmentation; `false`, the
    /// planes untouched, where the position has none. Paco Ŝako: the a ↔ h
    /// file mirror, for positions without a castling right. Default: none.
    fn mirror_planes(_planes: &mut [u64]) -> bool {
        false
    }
    /// [`Game::mirror_planes`] for the bit planes of encoding
    /// `ENCODINGS[encoding]` (the same symmetry; a game with one encoding
    /// needs nothing more than `mirror_planes`).
    fn mirror_planes_as(encoding: usize, planes: &mut [u64]) -> bool {
        encoding == 0 && Self::mirror_planes(planes)
    }
    /// The action index that [`Game::mirror_planes`]'s symmetry maps action
    /// index `a` to.
    fn mirror_action_index(a: usize) -> usize {
        a
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
    /// The position drawn as text for a terminal, ending with a newline
    /// (the default: its notation).
    fn diagram(&self) -> String {
        format!("{}\n", self.notation())
    }
    /// The board for a viewer (the run report's sample games): two
    /// characters per square, rank by rank from the last rank down and file
    /// by file from the a-file, White's piece letter (or `.`) then Black's
    /// (or `.`); `BOARD_HEIGHT × BOARD_WIDTH` cells. Paco Ŝako shows both
    /// pieces of a union; in Shako one of the two is always `.`. Default:
    /// every square empty (a game that draws no board).
    fn board_cells(&self) -> String {
        "..".repeat(Self::BOARD_HEIGHT * Self::BOARD_WIDTH)
    }

    /// The same position without the history that decides repetitions (an
    /// opening book's node, searched as if the game started there); the
    /// default, for states that keep no history, is a copy.
    fn without_history(&self) -> Self {
        self.clone()
    }

    /// Names of the game's optional rules, all off by default (Paco Ŝako:
    /// the vchess variants), for tools that take rules as data.
    const RULE_OPTIONS: &'static [&'static str] = &[];
    /// [`Game::from_notation`] with the optional rules named in `rules` (each
    /// one of [`Game::RULE_OPTIONS`]) turned on.
    fn from_notation_with_rules(s: &str, rules: &[&str]) -> Result<Self, BadNotation> {
        match rules.first() {
            Some(r) => Err(BadNotation::new(s, format!("{} has no optional rule `{r}`", Self::NAME))),
            None => Self::from_notation(s),
        }
    }

    /// The notation of `decisions` played from this state: a whole turn in
    /// the game's move notation (Paco Ŝako: chain notation such as
    /// `Bf3xe4>c3` when this state starts a turn). The default, right for
    /// games whose turn is one decision, names the decisions one after the
    /// other, space-separated.
    fn turn_notation(&self, decisions: &[u16]) -> String {
        let mut g = self.clone();
        let mut names = Vec::with_capacity(decisions.len());
        for &d in decisions {
            names.push(g.action_name(d));
            g.apply(d);
        }
        names.join(" ")
    }
    /// A whole turn as a PGN move: one token, no spaces. Shako: standard
    /// algebraic notation as Fairy-Stockfish writes it (`Nf4`, `exd6`,
    /// `e10=Q`, `O-O`, `Ra10#`); the default: [`Game::turn_notation`]
    /// without its spaces (Paco Ŝako: `Bf3xe4>c3`, `=QNb1-c3`), as the UCI
    /// engine writes a move.
    fn pgn_move(&self, decisions: &[u16]) -> String {
        self.turn_notation(decisions).split_whitespace().collect()
    }
    /// The decisions of one whole turn read from `text` ([`Game::turn_notation`]),
    /// checked against this state: each is legal, and after the last the
    /// other side moves or the game is over. The error names the part of
    /// `text` that is wrong.
    fn parse_turn(&self, text: &str) -> Result<Vec<u16>, BadNotation> {
        parse_decision_names(self, text)
    }
    /// Decisions named one after another from this state (space-separated
    /// [`Game::action_name`]s, not necessarily whole turns), each checked
    /// legal where it is taken; the error names the decision that is wrong
    /// and why. Tools that take a line of play (`show --actions`, `legal`)
    /// read it with this.
    fn parse_decisions(&self, text: &str) -> Result<Vec<u16>, BadNotation> {
        let mut g = self.clone();
        let mut out = Vec::new();
        for (i, name) in text.split_whitespace().enumerate() {
            if g.outcome().is_some() {
                return Err(BadNotation::new(text, format!("decision {} ({name}): the game is already over ({})", i + 1, g.end_reason())));
            }
            let d = g.parse_action(name).ok_or_else(|| BadNotation::new(text, format!("decision {} ({name}) is not legal here: {}", i + 1, g.notation())))?;
            g.apply(d);
            out.push(d);
        }
        Ok(out)
    }

    /// The game's fastest perft: the leaves after `depth` decisions, or with
    /// `whole_turns` after `depth` whole turns. It must equal [`perft`] (the
    /// conformance test checks it); the default is that reference.
    fn fast_perft(&self, depth: u32, whole_turns: bool) -> u64 {
        perft(self, depth, whole_turns)
    }
    /// The state of play in words for tools (`Running` while the game runs).
    fn status_text(&self) -> String {
        match self.outcome() {
            None => "Running".to_string(),
            Some(Outcome::Win(c)) => format!("{c:?} won ({})", self.end_reason()),
            Some(Outcome::Draw) => format!("Draw ({})", self.end_reason()),
        }
    }
    /// Game-specific facts about this state that the `legal` tool reports
    /// beside the legal decisions (Paco Ŝako: the kind of decision required
    /// and the number of whole turns; Shako: check and the UCI moves). The
    /// names are JSON field names.
    fn facts(&self) -> Vec<(&'static str, Fact)> {
        Vec::new()
    }
}

/// `Ok` while `g` runs; for a finished game the refusal of any decision
/// ([`Game::try_apply`]'s message).
pub fn ensure_running<G: Game>(g: &G) -> Result<(), String> {
    match g.outcome() {
        None => Ok(()),
        Some(_) => Err(format!("the game is over ({}): no action is legal in {}", g.end_reason(), g.notation())),
    }
}

/// One of [`Game::facts`]' values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fact {
    Flag(bool),
    Count(u64),
    Text(String),
    List(Vec<String>),
}

/// One whole turn given as its decisions' names ([`Game::action_name`]),
/// space-separated, checked against `g`: each is legal, and after the last
/// the other side moves or the game is over.
pub fn parse_decision_names<G: Game>(g: &G, text: &str) -> Result<Vec<u16>, BadNotation> {
    let mover = g.to_move();
    let mut g = g.clone();
    let mut out = Vec::new();
    for name in text.split_whitespace() {
        if g.outcome().is_some() || g.to_move() != mover {
            return Err(BadNotation::new(text, format!("`{name}` comes after the turn has ended")));
        }
        let d = g.parse_action(name).ok_or_else(|| BadNotation::new(text, format!("`{name}` is not a legal decision here")))?;
        g.apply(d);
        out.push(d);
    }
    if out.is_empty() {
        return Err(BadNotation::new(text, "empty move"));
    }
    if g.outcome().is_none() && g.to_move() == mover {
        return Err(BadNotation::new(text, "the turn is not complete (the same side still has to move)"));
    }
    Ok(out)
}

/// Perft of any game through its [`Game`] surface: the leaves after
/// `depth` decisions, or with `whole_turns` after `depth` whole turns
/// ([`Game::legal_turns`], one per distinct result). A finished game has no
/// moves. The games' own perfts are faster; this one is their reference and
/// the perft of a game without one.
pub fn perft<G: Game>(g: &G, depth: u32, whole_turns: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    if g.outcome().is_some() {
        return 0;
    }
    let mut total = 0;
    if whole_turns {
        for t in g.legal_turns() {
            let mut next = g.clone();
            for d in t {
                next.apply(d);
            }
            total += perft(&next, depth - 1, true);
        }
    } else {
        // Atomic perft counts every legal decision, dead ends included (the
        // platform's atomic perft does).
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        for a in legal {
            let mut next = g.clone();
            next.apply(a);
            total += perft(&next, depth - 1, false);
        }
    }
    total
}

/// A state notation that does not read as a valid state of the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadNotation {
    /// The text as given.
    pub notation: String,
    /// What is wrong with it (for positions: the field and the square).
    pub message: String,
}

impl BadNotation {
    pub fn new(notation: &str, message: impl fmt::Display) -> BadNotation {
        BadNotation { notation: notation.to_string(), message: message.to_string() }
    }
}

impl fmt::Display for BadNotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {:?}", self.message, self.notation)
    }
}
impl std::error::Error for BadNotation {}
