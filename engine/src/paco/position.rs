//! The Paco Ŝako position and its atomic-action state machine.
//!
//! A turn is a sequence of atomic actions by one player: `Lift` a piece (or a
//! whole union), `Place` it; placing a lone piece into a union that holds one
//! of the mover's pieces releases that piece into the hand and the turn goes
//! on (a chain). Promotions are their own action. [`Required`] says what kind
//! of action comes next.
//!
//! Rules follow the platform's reference engine exactly (see
//! `engine/tests/data/README.md`): unions move only to empty squares, kings
//! never unite or chain, Ŝako is not filtered, castling is refused when a
//! square of the king's path is threatened through chains, etc.

use super::tables::{bishop_attacks, queen_attacks, rook_attacks, KING, KNIGHT, PAWN_DIAG_BLACK, PAWN_DIAG_WHITE};
use super::zobrist;
use crate::types::{BitBoard, Color, PieceKind, Square};
use std::fmt;

/// What the player to move must do next.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Required {
    /// Pick up a piece (or a union) to start a turn.
    Lift = 0,
    /// Put down the piece in hand (possibly continuing a chain).
    Place = 1,
    /// Promote a pawn the opponent carried to its last rank, then lift.
    PromoteThenLift = 2,
    /// Promote the pawn that reached the last rank inside a chain, then place the released piece.
    PromoteThenPlace = 3,
    /// Promote the pawn that ended the turn on the last rank; the turn then passes.
    PromoteThenFinish = 4,
}

impl Required {
    pub const ALL: [Required; 5] = [Required::Lift, Required::Place, Required::PromoteThenLift, Required::PromoteThenPlace, Required::PromoteThenFinish];

    pub fn is_promote(self) -> bool {
        matches!(self, Required::PromoteThenLift | Required::PromoteThenPlace | Required::PromoteThenFinish)
    }

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

/// Game status.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Running,
    /// The given colour united with the opponent's king.
    PacoVictory(Color),
    /// Threefold repetition (tracked by [`super::GameState`], which owns the history).
    RepetitionDraw,
    /// 100 half-moves without a new union or a promotion.
    NoProgressDraw,
    /// Optional rule: a chain started by a king ended on the other king.
    KingChainDraw,
}

impl Status {
    pub fn is_over(self) -> bool {
        self != Status::Running
    }

    pub fn winner(self) -> Option<Color> {
        match self {
            Status::PacoVictory(c) => Some(c),
            _ => None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Running => write!(f, "Running"),
            Status::PacoVictory(c) => write!(f, "PacoVictory({c})"),
            Status::RepetitionDraw => write!(f, "RepetitionDraw"),
            Status::NoProgressDraw => write!(f, "NoProgressDraw"),
            Status::KingChainDraw => write!(f, "KingChainDraw"),
        }
    }
}

/// What the mover holds above the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Hand {
    Empty,
    /// One of the mover's pieces, lifted from (or released on) `from`.
    Single {
        kind: PieceKind,
        from: Square,
    },
    /// A whole union: the mover's piece and the opponent's partner.
    Pair {
        kind: PieceKind,
        partner: PieceKind,
        from: Square,
    },
}

impl Hand {
    pub fn from(self) -> Option<Square> {
        match self {
            Hand::Empty => None,
            Hand::Single { from, .. } | Hand::Pair { from, .. } => Some(from),
        }
    }
}

/// An atomic action.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    Lift(Square),
    Place(Square),
    Promote(PieceKind),
}

/// The optional rule set of the vchess implementation (rules file 001). All off
/// by default: the official rules as the platform plays them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Rules {
    /// A union moved from a to b may not be moved straight back from b to a by the opponent.
    pub no_union_undo: bool,
    /// Each player may double-step a pawn at most once per file.
    pub one_double_step_per_file: bool,
    /// vchess kings: a king may take over a union (releasing the piece there,
    /// which goes on as a chain); a chain started by the king that ends by
    /// uniting with the other king is a draw, not a win.
    pub king_chain_draw: bool,
}

impl Rules {
    pub const OFFICIAL: Rules = Rules { no_union_undo: false, one_double_step_per_file: false, king_chain_draw: false };
}

/// Castling rights. Rights are stored per colour and side (queen side = rook
/// on a lower file than the king) with the rook's file, so Fischer-random
/// setups work; the standard setup has rooks on files a and h, king on e.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Castling {
    /// bit `color * 2 + side` (side 0 = queen side, 1 = king side).
    pub(crate) mask: u8,
    pub(crate) rook_file: [[u8; 2]; 2],
    pub(crate) king_file: [u8; 2],
}

impl Castling {
    pub const STANDARD: Castling = Castling { mask: 0b1111, rook_file: [[0, 7], [0, 7]], king_file: [4, 4] };
    pub const NONE: Castling = Castling { mask: 0, rook_file: [[0, 7], [0, 7]], king_file: [4, 4] };

    /// Rights for a [`super::Setup`]: each colour's king file, and the rook
    /// file of each right held, `rook_files[color][side]` (side 0 = queen
    /// side, the rook on a lower file than the king). Validation checks them.
    pub fn new(king_file: [u8; 2], rook_files: [[Option<u8>; 2]; 2]) -> Castling {
        let mut c = Castling { mask: 0, rook_file: [[0, 7], [0, 7]], king_file };
        for (color, files) in rook_files.iter().enumerate() {
            for (side, file) in files.iter().enumerate() {
                if let Some(f) = *file {
                    c.rook_file[color][side] = f;
                    c.mask |= 1 << (color * 2 + side);
                }
            }
        }
        c
    }
    /// The king's file of `color` (meaningful while it has a right).
    pub fn king_file(&self, color: Color) -> u8 {
        self.king_file[color.index()]
    }
    /// The rook file of a right, if `color` holds it.
    pub fn rook_file(&self, color: Color, side: usize) -> Option<u8> {
        self.has(color, side).then_some(self.rook_file[color.index()][side])
    }

    #[inline(always)]
    pub fn has(&self, color: Color, side: usize) -> bool {
        self.mask & (1 << (color.index() * 2 + side)) != 0
    }
    pub fn is_empty(&self) -> bool {
        self.mask == 0
    }
    /// X-FEN style: rook files, uppercase for White.
    pub fn fen(&self) -> String {
        let mut s = String::new();
        for color in Color::BOTH {
            for side in 0..2 {
                if self.has(color, side) {
                    let c = (b'a' + self.rook_file[color.index()][side]) as char;
                    s.push(if color == Color::White { c.to_ascii_uppercase() } else { c });
                }
            }
        }
        if s.is_empty() {
            s.push('-');
        }
        s
    }
}

/// Squares and conditions of one castling option.
#[derive(Copy, Clone, Debug)]
pub(crate) struct CastleGeometry {
    pub king_from: Square,
    pub king_to: Square,
    pub rook_from: Square,
    pub rook_to: Square,
    /// The square the king is placed on to castle.
    pub target: Square,
    pub must_be_empty: u64,
    pub must_be_safe: u64,
}

fn file_span(a: u8, b: u8, rank: u8) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (lo..=hi).fold(0, |acc, f| acc | Square::from_file_rank(f, rank).bb())
}

impl Castling {
    /// The square of the rook of a castling option.
    #[inline(always)]
    pub(crate) fn rook_square(&self, color: Color, side: usize) -> Square {
        Square::from_file_rank(self.rook_file[color.index()][side], color.home_rank())
    }

    pub(crate) fn geometry(&self, color: Color, side: usize) -> CastleGeometry {
        let rank = color.home_rank();
        let kf = self.king_file[color.index()];
        let rf = self.rook_file[color.index()][side];
        let (kt, rt) = if side == 0 { (2u8, 3u8) } else { (6u8, 5u8) };
        let king_from = Square::from_file_rank(kf, rank);
        let rook_from = Square::from_file_rank(rf, rank);
        let must_be_safe = file_span(kf, kt, rank);
        let must_be_empty = (file_span(rf, rt, rank) | must_be_safe) & !king_from.bb() & !rook_from.bb();
        let king_to = Square::from_file_rank(kt, rank);
        // The standard setup castles by placing the king on its destination, as
        // the platform does. Where the destination is next to (or is) the king's
        // square, a king step could go there too, so the king is placed on its
        // own rook instead (never a legal square for a king otherwise).
        let target = if kf.abs_diff(kt) >= 2 { king_to } else { rook_from };
        CastleGeometry { king_from, king_to, rook_from, rook_to: Square::from_file_rank(rt, rank), target, must_be_empty, must_be_safe }
    }

    /// Standard geometry (king on e, rooks on a/h): castling exactly as the reference engine.
    fn is_standard(&self, color: Color) -> bool {
        self.king_file[color.index()] == 4 && self.rook_file[color.index()] == [0, 7]
    }
}

/// A Paco Ŝako position, including mid-turn state (piece in hand, pending promotion).
///
/// The repetition history is not part of the position; [`super::GameState`]
/// keeps it and sets [`Status::RepetitionDraw`].
#[derive(Copy, Clone, Debug)]
pub struct Position {
    /// `pieces[color][kind]`: squares holding that colour's piece of that kind (unions included).
    pub(crate) pieces: [[u64; 6]; 2],
    /// `occ[color]`: every square with a piece of that colour; a union is a square in both.
    pub(crate) occ: [u64; 2],
    pub(crate) side: Color,
    pub(crate) required: Required,
    pub(crate) hand: Hand,
    pub(crate) ep: Option<Square>,
    pub(crate) promotion: Option<Square>,
    pub(crate) castling: Castling,
    pub(crate) no_progress: u8,
    pub(crate) status: Status,
    pub(crate) rules: Rules,
    /// Optional rules state: files on which each colour already double-stepped.
    pub(crate) double_steps: [u8; 2],
    /// Optional rules state: the union move just played (from, to).
    pub(crate) last_pair_move: Option<(Square, Square)>,
    /// Optional rules state: the chain in progress was started by the king.
    pub(crate) king_chain: bool,
    pub(crate) hash: u64,
}

impl PartialEq for Position {
    fn eq(&self, o: &Self) -> bool {
        self.pieces == o.pieces
            && self.side == o.side
            && self.required == o.required
            && self.hand == o.hand
            && self.ep == o.ep
            && self.promotion == o.promotion
            && self.castling == o.castling
            && self.no_progress == o.no_progress
            && self.status == o.status
            && self.rules == o.rules
            && self.double_steps == o.double_steps
            && self.last_pair_move == o.last_pair_move
            && self.king_chain == o.king_chain
    }
}
impl Eq for Position {}

/// The kind of actions available in a state, with their targets as a set.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ActionSet {
    None,
    Lifts(BitBoard),
    Places(BitBoard),
    Promotions,
}

impl ActionSet {
    pub fn len(&self) -> usize {
        match self {
            ActionSet::None => 0,
            ActionSet::Lifts(b) | ActionSet::Places(b) => b.len(),
            ActionSet::Promotions => 4,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn contains(&self, a: Action) -> bool {
        match (self, a) {
            (ActionSet::Lifts(b), Action::Lift(s)) | (ActionSet::Places(b), Action::Place(s)) => b.contains(s),
            (ActionSet::Promotions, Action::Promote(k)) => k.promotion_index().is_some(),
            _ => false,
        }
    }
    /// The actions in the reference's order: by square, promotions R, N, B, Q.
    pub fn iter(&self) -> ActionIter {
        ActionIter { set: *self, i: 0 }
    }
}

impl IntoIterator for ActionSet {
    type Item = Action;
    type IntoIter = ActionIter;
    fn into_iter(self) -> ActionIter {
        self.iter()
    }
}

pub struct ActionIter {
    set: ActionSet,
    i: usize,
}

impl Iterator for ActionIter {
    type Item = Action;
    #[inline]
    fn next(&mut self) -> Option<Action> {
        match &mut self.set {
            ActionSet::None => None,
            ActionSet::Lifts(b) => b.next().map(Action::Lift),
            ActionSet::Places(b) => b.next().map(Action::Place),
            ActionSet::Promotions => {
                let k = PieceKind::PROMOTIONS.get(self.i).copied();
                self.i += 1;
                k.map(Action::Promote)
            }
        }
    }
}

/// Result of applying an action, for callers that track history.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Transition {
    /// The same player acts again (chain, promotion, lifted piece).
    Continues,
    /// The turn ended (or a gifted promotion completed): the reference records
    /// the position here for repetition detection.
    Recorded,
    /// The turn passed to the opponent, who must first promote (nothing recorded yet).
    PassedToPromotion,
}

/// An action that is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalAction {
    pub action: Action,
    pub required: Required,
}

impl fmt::Display for IllegalAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "action {} is not legal here (required: {})", super::action_to_string(self.action), self.required.name())
    }
}
impl std::error::Error for IllegalAction {}

#[inline(always)]
fn promotion_rank(color: Color) -> u8 {
    match color {
        Color::White => 7,
        Color::Black => 0,
    }
}

impl Position {
    /// The standard start position.
    pub fn startpos() -> Position {
        super::fen::STARTPOS_FEN.parse().expect("start FEN parses")
    }

    pub(crate) fn empty(rules: Rules) -> Position {
        Position {
            pieces: [[0; 6]; 2],
            occ: [0; 2],
            side: Color::White,
            required: Required::Lift,
            hand: Hand::Empty,
            ep: None,
            promotion: None,
            castling: Castling::NONE,
            no_progress: 0,
            status: Status::Running,
            rules,
            double_steps: [0; 2],
            last_pair_move: None,
            king_chain: false,
            hash: zobrist::CASTLING[0],
        }
    }

    // ---- accessors -------------------------------------------------------

    pub fn side_to_move(&self) -> Color {
        self.side
    }
    pub fn required(&self) -> Required {
        self.required
    }
    pub fn hand(&self) -> Hand {
        self.hand
    }
    pub fn en_passant(&self) -> Option<Square> {
        self.ep
    }
    pub fn promotion_square(&self) -> Option<Square> {
        self.promotion
    }
    pub fn castling(&self) -> Castling {
        self.castling
    }
    pub fn no_progress_half_moves(&self) -> u8 {
        self.no_progress
    }
    pub fn status(&self) -> Status {
        self.status
    }
    pub fn rules(&self) -> Rules {
        self.rules
    }
    /// Zobrist hash of everything that decides the future of the game (not the history).
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }
    /// True when no piece is in hand and no promotion is pending.
    pub fn is_settled(&self) -> bool {
        self.required == Required::Lift
    }
    /// Squares with a piece of `color` (unions included).
    pub fn occupied(&self, color: Color) -> BitBoard {
        BitBoard(self.occ[color.index()])
    }
    /// Squares holding a union.
    pub fn unions(&self) -> BitBoard {
        BitBoard(self.occ[0] & self.occ[1])
    }
    pub fn pieces(&self, color: Color, kind: PieceKind) -> BitBoard {
        BitBoard(self.pieces[color.index()][kind.index()])
    }
    /// `(white, black)` pieces on a square.
    pub fn at(&self, sq: Square) -> (Option<PieceKind>, Option<PieceKind>) {
        (self.kind_at(Color::White, sq), self.kind_at(Color::Black, sq))
    }
    pub(crate) fn set_status(&mut self, status: Status) {
        self.status = status;
    }

    #[inline(always)]
    pub fn kind_at(&self, color: Color, sq: Square) -> Option<PieceKind> {
        let c = color.index();
        let b = sq.bb();
        if self.occ[c] & b == 0 {
            return None;
        }
        self.pieces[c].iter().position(|&bb| bb & b != 0).map(PieceKind::from_index)
    }

    /// Number of pieces on the board plus those in hand (always 32 from real games).
    pub fn piece_count(&self) -> u32 {
        let hand = match self.hand {
            Hand::Empty => 0,
            Hand::Single { .. } => 1,
            Hand::Pair { .. } => 2,
        };
        self.occ[0].count_ones() + self.occ[1].count_ones() + hand
    }

    /// The hash recomputed from scratch (tests check it equals the incremental one).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for c in 0..2 {
            for k in 0..6 {
                for sq in BitBoard(self.pieces[c][k]) {
                    h ^= zobrist::piece(c, k, sq.index());
                }
            }
        }
        if self.side == Color::Black {
            h ^= zobrist::BLACK_TO_MOVE;
        }
        h ^= self.hand_key(self.hand);
        h ^= square_key(&zobrist::EP, self.ep);
        h ^= square_key(&zobrist::PROMOTION, self.promotion);
        h ^= zobrist::CASTLING[self.castling.mask as usize];
        h ^= zobrist::REQUIRED[self.required as usize];
        h ^= self.option_key();
        if self.king_chain {
            h ^= zobrist::KING_CHAIN;
        }
        h
    }

    #[inline(always)]
    fn hand_key(&self, hand: Hand) -> u64 {
        match hand {
            Hand::Empty => 0,
            Hand::Single { kind, from } => zobrist::HAND_OWN[kind.index() * 64 + from.index()],
            Hand::Pair { kind, partner, from } => {
                zobrist::HAND_OWN[kind.index() * 64 + from.index()] ^ zobrist::HAND_PARTNER[partner.index() * 64 + from.index()]
            }
        }
    }

    fn option_key(&self) -> u64 {
        let mut h = 0;
        for c in 0..2 {
            for f in 0..8 {
                if self.double_steps[c] & (1 << f) != 0 {
                    h ^= zobrist::DOUBLE_STEP[c * 8 + f];
                }
            }
        }
        if let Some((a, b)) = self.last_pair_move {
            h ^= zobrist::LAST_PAIR_FROM[a.index()] ^ zobrist::LAST_PAIR_TO[b.index()];
        }
        h
    }

    // ---- incremental mutation --------------------------------------------

    #[inline(always)]
    pub(crate) fn put(&mut self, color: Color, kind: PieceKind, sq: Square) {
        let (c, k) = (color.index(), kind.index());
        self.pieces[c][k] |= sq.bb();
        self.occ[c] |= sq.bb();
        self.hash ^= zobrist::piece(c, k, sq.index());
    }

    #[inline(always)]
    pub(crate) fn take(&mut self, color: Color, kind: PieceKind, sq: Square) {
        let (c, k) = (color.index(), kind.index());
        self.pieces[c][k] &= !sq.bb();
        self.occ[c] &= !sq.bb();
        self.hash ^= zobrist::piece(c, k, sq.index());
    }

    #[inline(always)]
    pub(crate) fn set_hand(&mut self, hand: Hand) {
        self.hash ^= self.hand_key(self.hand) ^ self.hand_key(hand);
        self.hand = hand;
    }
    #[inline(always)]
    pub(crate) fn set_required(&mut self, r: Required) {
        self.hash ^= zobrist::REQUIRED[self.required as usize] ^ zobrist::REQUIRED[r as usize];
        self.required = r;
    }
    #[inline(always)]
    fn set_ep(&mut self, ep: Option<Square>) {
        self.hash ^= square_key(&zobrist::EP, self.ep) ^ square_key(&zobrist::EP, ep);
        self.ep = ep;
    }
    #[inline(always)]
    fn set_promotion(&mut self, p: Option<Square>) {
        self.hash ^= square_key(&zobrist::PROMOTION, self.promotion) ^ square_key(&zobrist::PROMOTION, p);
        self.promotion = p;
    }
    #[inline(always)]
    fn set_castling_mask(&mut self, mask: u8) {
        self.hash ^= zobrist::CASTLING[self.castling.mask as usize] ^ zobrist::CASTLING[mask as usize];
        self.castling.mask = mask;
    }
    #[inline(always)]
    pub(crate) fn switch_side(&mut self) {
        self.side = self.side.other();
        self.hash ^= zobrist::BLACK_TO_MOVE;
    }
    #[inline(always)]
    fn set_king_chain(&mut self, on: bool) {
        if self.king_chain != on {
            self.king_chain = on;
            self.hash ^= zobrist::KING_CHAIN;
        }
    }
    fn set_last_pair_move(&mut self, m: Option<(Square, Square)>) {
        if let Some((a, b)) = self.last_pair_move {
            self.hash ^= zobrist::LAST_PAIR_FROM[a.index()] ^ zobrist::LAST_PAIR_TO[b.index()];
        }
        if let Some((a, b)) = m {
            self.hash ^= zobrist::LAST_PAIR_FROM[a.index()] ^ zobrist::LAST_PAIR_TO[b.index()];
        }
        self.last_pair_move = m;
    }

    /// Moves everything on `a` to `b` and vice versa (both colours), as the
    /// en-passant step back and castling do.
    fn swap_squares(&mut self, a: Square, b: Square) {
        let at_a = self.at(a);
        let at_b = self.at(b);
        for (color, ka, kb) in [(Color::White, at_a.0, at_b.0), (Color::Black, at_a.1, at_b.1)] {
            if let Some(k) = ka {
                self.take(color, k, a);
            }
            if let Some(k) = kb {
                self.take(color, k, b);
            }
            if let Some(k) = ka {
                self.put(color, k, b);
            }
            if let Some(k) = kb {
                self.put(color, k, a);
            }
        }
    }

    // ---- move generation -------------------------------------------------

    #[inline(always)]
    fn empty_squares(&self) -> u64 {
        !(self.occ[0] | self.occ[1])
    }

    /// Squares holding only a piece of `color` (not in a union).
    #[inline(always)]
    fn lone(&self, color: Color) -> u64 {
        self.occ[color.index()] & !self.occ[color.other().index()]
    }

    #[inline(always)]
    fn double_step_allowed(&self, me: Color, from: Square) -> bool {
        let rank_ok = match me {
            Color::White => from.rank() <= 1,
            Color::Black => from.rank() >= 6,
        };
        rank_ok && (!self.rules.one_double_step_per_file || self.double_steps[me.index()] & (1 << from.file()) == 0)
    }

    /// Forward steps of a pawn (or pawn-led union) of `me` on `from`.
    #[inline(always)]
    fn pawn_pushes(&self, me: Color, from: Square) -> u64 {
        let empty = self.empty_squares();
        let (one, two) = match me {
            Color::White => {
                if from.rank() >= 7 {
                    return 0;
                }
                (from.bb() << 8, from.bb() << 16)
            }
            Color::Black => {
                if from.rank() == 0 {
                    return 0;
                }
                (from.bb() >> 8, from.bb() >> 16)
            }
        };
        if one & empty == 0 {
            return 0;
        }
        if two != 0 && two & empty != 0 && self.double_step_allowed(me, from) {
            one | two
        } else {
            one
        }
    }

    #[inline(always)]
    fn pawn_diagonals(me: Color, from: Square) -> u64 {
        match me {
            Color::White => PAWN_DIAG_WHITE[from.index()],
            Color::Black => PAWN_DIAG_BLACK[from.index()],
        }
    }

    /// Where a lone piece of the mover standing on `from` may be placed
    /// (kings without castling). Targets may be empty squares or hold an
    /// opponent's piece (alone, or in a union with one of the mover's pieces).
    #[inline]
    pub(crate) fn single_targets(&self, kind: PieceKind, from: Square) -> u64 {
        let me = self.side;
        let not_own_lone = !self.lone(me);
        let occ = self.occ[0] | self.occ[1];
        let i = from.index();
        match kind {
            PieceKind::Pawn => {
                let ep = self.ep.map_or(0, |s| s.bb());
                let diag = Self::pawn_diagonals(me, from) & (self.occ[me.other().index()] | ep);
                diag | self.pawn_pushes(me, from)
            }
            PieceKind::Knight => KNIGHT[i] & not_own_lone,
            PieceKind::Bishop => bishop_attacks(i, occ) & not_own_lone,
            PieceKind::Rook => rook_attacks(i, occ) & not_own_lone,
            PieceKind::Queen => queen_attacks(i, occ) & not_own_lone,
            PieceKind::King => {
                if self.rules.king_chain_draw {
                    KING[i] & (self.empty_squares() | (self.occ[0] & self.occ[1]))
                } else {
                    KING[i] & self.empty_squares()
                }
            }
        }
    }

    /// Where a union led by the mover's `kind` on `from` may go: empty squares only.
    #[inline]
    pub(crate) fn pair_targets(&self, kind: PieceKind, from: Square) -> u64 {
        let empty = self.empty_squares();
        let occ = !empty;
        let i = from.index();
        let mut t = match kind {
            PieceKind::Pawn => self.pawn_pushes(self.side, from),
            PieceKind::Knight => KNIGHT[i] & empty,
            PieceKind::Bishop => bishop_attacks(i, occ) & empty,
            PieceKind::Rook => rook_attacks(i, occ) & empty,
            PieceKind::Queen => queen_attacks(i, occ) & empty,
            // Only under the vchess king rules can a king stand in a union.
            PieceKind::King => KING[i] & empty,
        };
        if self.rules.no_union_undo {
            if let Some((a, b)) = self.last_pair_move {
                if b == from {
                    t &= !a.bb();
                }
            }
        }
        t
    }

    /// Squares the mover may lift from: own pieces (alone or in a union) with
    /// at least one square to go to. Chains into dead ends are still allowed,
    /// as on the platform.
    pub fn liftable(&self) -> u64 {
        let me = self.side;
        let them = self.occ[me.other().index()];
        let mut out = 0;
        for k in PieceKind::ALL {
            for sq in BitBoard(self.pieces[me.index()][k.index()]) {
                let t = if them & sq.bb() != 0 { self.pair_targets(k, sq) } else { self.single_targets(k, sq) };
                if t != 0 {
                    out |= sq.bb();
                } else if k == PieceKind::King && self.castling.mask != 0 && them & sq.bb() == 0 && self.castling_paths_clear(sq) {
                    // In the standard setup castling implies a king step (the platform
                    // relies on that); in Fischer-random setups a boxed-in king may
                    // still castle, so look at its castling places.
                    let mut lifted = *self;
                    lifted.lift(sq);
                    if lifted.place_targets() != 0 {
                        out |= sq.bb();
                    }
                }
            }
        }
        out
    }

    /// Is some castling option of the king on `from` free of blocking pieces
    /// (threats aside)? The king's own square counts as empty.
    fn castling_paths_clear(&self, from: Square) -> bool {
        let me = self.side;
        let occupied = (self.occ[0] | self.occ[1]) & !from.bb();
        (0..2).any(|side| {
            self.castling.has(me, side) && {
                let g = self.castling.geometry(me, side);
                g.king_from == from && g.must_be_empty & occupied == 0
            }
        })
    }

    /// Castling places available to the king in hand.
    fn castling_targets(&self, from: Square) -> u64 {
        let me = self.side;
        let mut out = 0;
        let mut threats: Option<u64> = None;
        for side in 0..2 {
            if !self.castling.has(me, side) {
                continue;
            }
            let g = self.castling.geometry(me, side);
            if g.king_from != from || g.must_be_empty & !self.empty_squares() != 0 {
                continue;
            }
            if !self.castling.is_standard(me) {
                // Outside the standard setup the rook must really be there.
                if self.kind_at(me, g.rook_from) != Some(PieceKind::Rook) {
                    continue;
                }
            }
            let t = *threats.get_or_insert_with(|| super::threats::opponent_threats(self));
            if t & g.must_be_safe == 0 {
                out |= g.target.bb();
            }
        }
        out
    }

    /// The legal actions, as the platform lists them (chains into dead ends included).
    pub fn actions(&self) -> ActionSet {
        if self.status.is_over() {
            return ActionSet::None;
        }
        match self.required {
            Required::Lift => ActionSet::Lifts(BitBoard(self.liftable())),
            Required::Place => ActionSet::Places(BitBoard(self.place_targets())),
            _ => ActionSet::Promotions,
        }
    }

    /// Place targets of the piece(s) in hand.
    pub fn place_targets(&self) -> u64 {
        match self.hand {
            Hand::Empty => 0,
            Hand::Single { kind: PieceKind::King, from } => {
                let mut t = self.single_targets(PieceKind::King, from);
                if self.castling.mask != 0 {
                    t |= self.castling_targets(from);
                }
                t
            }
            Hand::Single { kind, from } => self.single_targets(kind, from),
            Hand::Pair { kind, from, .. } => self.pair_targets(kind, from),
        }
    }

    /// True if placing the piece in hand on `t` continues a chain (the square
    /// holds a union with one of the mover's pieces).
    #[inline(always)]
    pub fn place_is_chain(&self, t: Square) -> bool {
        matches!(self.hand, Hand::Single { .. }) && (self.occ[0] & self.occ[1] & t.bb()) != 0
    }

    // ---- applying actions ------------------------------------------------

    /// Plays a legal action; returns an error (and leaves the position
    /// unchanged) if the action is not legal.
    pub fn play(&mut self, a: Action) -> Result<Transition, IllegalAction> {
        if !self.actions().contains(a) {
            return Err(IllegalAction { action: a, required: self.required });
        }
        Ok(self.play_unchecked(a))
    }

    /// Plays an action known to be legal (from [`Position::actions`]).
    /// Illegal input gives an unspecified (but memory-safe) position.
    pub fn play_unchecked(&mut self, a: Action) -> Transition {
        match a {
            Action::Lift(sq) => {
                self.lift(sq);
                Transition::Continues
            }
            Action::Place(sq) => self.place(sq),
            Action::Promote(k) => self.promote(k),
        }
    }

    pub(crate) fn lift(&mut self, sq: Square) {
        let me = self.side;
        let them = me.other();
        self.set_required(Required::Place);
        // The platform counts the half-move at the lift, so that a promotion
        // later in the same turn can reset it.
        self.no_progress = self.no_progress.saturating_add(1);
        let Some(kind) = self.kind_at(me, sq) else {
            return;
        };
        let partner = self.kind_at(them, sq);
        let mut mask = self.castling.mask;
        if mask != 0 {
            // Lifting a rook from its castling square forfeits that right; lifting a
            // union with the opponent's rook on its castling square takes theirs.
            for side in 0..2 {
                if kind == PieceKind::Rook && self.castling.rook_square(me, side) == sq {
                    mask &= !(1 << (me.index() * 2 + side));
                }
                if partner == Some(PieceKind::Rook) && self.castling.rook_square(them, side) == sq {
                    mask &= !(1 << (them.index() * 2 + side));
                }
            }
            self.set_castling_mask(mask);
        }
        self.take(me, kind, sq);
        match partner {
            Some(p) => {
                self.take(them, p, sq);
                self.set_hand(Hand::Pair { kind, partner: p, from: sq });
            }
            None => self.set_hand(Hand::Single { kind, from: sq }),
        }
    }

    fn place(&mut self, t: Square) -> Transition {
        let me = self.side;
        let them = me.other();
        match self.hand {
            Hand::Empty => Transition::Continues,
            Hand::Single { kind, from } => {
                if kind == PieceKind::Pawn && self.ep == Some(t) && Some(t) != from.offset(0, forward(me)) {
                    // En passant: the double-stepped pawn (or pawn-led union) steps back
                    // onto the skipped square first; this also works inside chains.
                    let back = t.offset(0, forward(them)).expect("en passant square is inside the board");
                    self.swap_squares(t, back);
                    self.set_ep(None);
                }
                if kind == PieceKind::Pawn && t.rank() == promotion_rank(me) {
                    self.set_promotion(Some(t));
                }
                if kind == PieceKind::King {
                    // Castling first: in Fischer-random setups the king castles by being
                    // placed on its rook's square, which may hold a union.
                    // Under the vchess king rule the king may also take over the union
                    // there, so the place castles only where castling is open.
                    let castles = (0..2).any(|side| {
                        self.castling.has(me, side) && {
                            let g = self.castling.geometry(me, side);
                            g.king_from == from && g.target == t
                        }
                    }) && (!self.rules.king_chain_draw || self.castling_targets(from) & t.bb() != 0);
                    if castles || self.occ[0] & self.occ[1] & t.bb() == 0 {
                        self.set_ep(None);
                        return self.place_king(from, t, castles);
                    }
                    // vchess kings: taking over a union starts a king chain.
                    self.set_king_chain(true);
                    self.set_castling_mask(self.castling.mask & !(0b11 << (me.index() * 2)));
                }
                let released = self.kind_at(me, t);
                if let Some(r) = released {
                    self.take(me, r, t);
                    if r == PieceKind::Rook && self.castling.mask != 0 {
                        // A rook released from its castling square has moved: the right goes, as when it is lifted.
                        let mut mask = self.castling.mask;
                        for side in 0..2 {
                            if self.castling.rook_square(me, side) == t {
                                mask &= !(1 << (me.index() * 2 + side));
                            }
                        }
                        self.set_castling_mask(mask);
                    }
                }
                self.put(me, kind, t);
                if let Some(r) = released {
                    // A chain: the released piece must be placed next.
                    self.set_hand(Hand::Single { kind: r, from: t });
                    let next = if self.promotion.is_some() { Required::PromoteThenPlace } else { Required::Place };
                    self.set_required(next);
                    return Transition::Continues;
                }
                let partner = self.kind_at(them, t);
                if partner.is_some() {
                    self.no_progress = 0;
                }
                self.set_ep(None);
                self.mark_double_step(kind, from, t);
                self.set_hand(Hand::Empty);
                self.set_last_pair_move(None);
                if partner == Some(PieceKind::King) {
                    self.status = if self.king_chain { Status::KingChainDraw } else { Status::PacoVictory(me) };
                }
                self.set_king_chain(false);
                if self.promotion.is_some() {
                    self.set_required(Required::PromoteThenFinish);
                    Transition::Continues
                } else {
                    self.end_turn();
                    Transition::Recorded
                }
            }
            Hand::Pair { kind, partner, from } => {
                self.set_ep(None);
                self.mark_double_step(kind, from, t);
                self.put(me, kind, t);
                self.put(them, partner, t);
                self.set_hand(Hand::Empty);
                self.set_last_pair_move(if self.rules.no_union_undo { Some((from, t)) } else { None });
                if kind == PieceKind::Pawn && t.rank() == promotion_rank(me) {
                    self.set_promotion(Some(t));
                    self.set_required(Required::PromoteThenFinish);
                    Transition::Continues
                } else if partner == PieceKind::Pawn && t.rank() == promotion_rank(them) {
                    // The opponent's pawn was carried to its last rank: its owner
                    // promotes it first thing in their turn.
                    self.set_promotion(Some(t));
                    self.set_required(Required::PromoteThenLift);
                    self.switch_side();
                    Transition::PassedToPromotion
                } else {
                    self.end_turn();
                    Transition::Recorded
                }
            }
        }
    }

    /// The hash after placing the piece in hand on `t`, without playing it,
    /// when that place simply ends the turn (no chain, no promotion, no en
    /// passant, no double step, no castling); `None` otherwise. Lets full-move
    /// counting deduplicate results without building them.
    #[inline]
    pub(crate) fn simple_place_hash(&self, t: Square) -> Option<u64> {
        let Hand::Single { kind, from } = self.hand else { return None };
        if self.required != Required::Place || kind == PieceKind::King || self.occ[0] & self.occ[1] & t.bb() != 0 {
            return None;
        }
        if kind == PieceKind::Pawn && (t.rank() == promotion_rank(self.side) || self.ep == Some(t) || from.rank().abs_diff(t.rank()) != 1) {
            return None;
        }
        let mut h = self.hash
            ^ zobrist::piece(self.side.index(), kind.index(), t.index())
            ^ zobrist::HAND_OWN[kind.index() * 64 + from.index()]
            ^ zobrist::REQUIRED[Required::Place as usize]
            ^ zobrist::BLACK_TO_MOVE
            ^ square_key(&zobrist::EP, self.ep);
        if let Some((a, b)) = self.last_pair_move {
            h ^= zobrist::LAST_PAIR_FROM[a.index()] ^ zobrist::LAST_PAIR_TO[b.index()];
        }
        if self.king_chain {
            h ^= zobrist::KING_CHAIN;
        }
        Some(h)
    }

    fn mark_double_step(&mut self, kind: PieceKind, from: Square, t: Square) {
        if kind != PieceKind::Pawn || from.rank().abs_diff(t.rank()) != 2 {
            return;
        }
        let me = self.side;
        if self.rules.one_double_step_per_file {
            let bit = 1u8 << from.file();
            if self.double_steps[me.index()] & bit == 0 {
                self.hash ^= zobrist::DOUBLE_STEP[me.index() * 8 + from.file() as usize];
                self.double_steps[me.index()] |= bit;
            }
        }
        let pawn_rank = match me {
            Color::White => 1,
            Color::Black => 6,
        };
        if from.rank() == pawn_rank {
            self.set_ep(from.offset(0, forward(me)));
        }
    }

    fn place_king(&mut self, from: Square, t: Square, castles: bool) -> Transition {
        let me = self.side;
        for side in 0..2 {
            if !castles || !self.castling.has(me, side) {
                continue;
            }
            let g = self.castling.geometry(me, side);
            if g.king_from == from && g.target == t {
                // Castling: whatever stands on the rook's square (a union too) moves with it.
                if g.rook_from != g.rook_to {
                    self.swap_squares(g.rook_from, g.rook_to);
                }
                self.put(me, PieceKind::King, g.king_to);
                self.finish_king_move();
                return Transition::Recorded;
            }
        }
        self.put(me, PieceKind::King, t);
        self.finish_king_move();
        Transition::Recorded
    }

    fn finish_king_move(&mut self) {
        let me = self.side;
        // A chain that gave the king back to the hand ends with the king's own move.
        self.set_king_chain(false);
        self.set_hand(Hand::Empty);
        self.set_last_pair_move(None);
        self.set_castling_mask(self.castling.mask & !(0b11 << (me.index() * 2)));
        self.end_turn();
    }

    /// Passes the turn and records the position (the 100-half-move rule is checked here).
    fn end_turn(&mut self) {
        self.switch_side();
        self.set_required(Required::Lift);
        self.record();
    }

    fn record(&mut self) {
        if self.status == Status::Running && self.no_progress >= 100 {
            self.status = Status::NoProgressDraw;
        }
    }

    fn promote(&mut self, k: PieceKind) -> Transition {
        let Some(sq) = self.promotion else {
            return Transition::Continues;
        };
        let me = self.side;
        if self.kind_at(me, sq) == Some(PieceKind::Pawn) {
            self.take(me, PieceKind::Pawn, sq);
            self.put(me, k, sq);
        }
        self.set_promotion(None);
        self.no_progress = 0;
        match self.required {
            Required::PromoteThenLift => {
                self.set_required(Required::Lift);
                self.record();
                Transition::Recorded
            }
            Required::PromoteThenPlace => {
                self.set_required(Required::Place);
                Transition::Continues
            }
            _ => {
                self.set_ep(None);
                self.end_turn();
                Transition::Recorded
            }
        }
    }
}

/// The key of an optional square (0 for none).
#[inline(always)]
fn square_key(keys: &[u64; 64], sq: Option<Square>) -> u64 {
    sq.map_or(0, |s| keys[s.index()])
}

#[inline(always)]
pub(crate) fn forward(c: Color) -> i8 {
    match c {
        Color::White => 1,
        Color::Black => -1,
    }
}
