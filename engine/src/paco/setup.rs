//! The unchecked setup, and its validation into a [`Position`].
//!
//! Every reader (FEN, union FEN, start positions) produces a [`Setup`]: pieces
//! on squares, side to move, the piece in hand, the required action and the
//! counters, as written, with no promise that any game reaches them.
//! [`Position::from_setup`] is the only way from a setup to a position: it
//! refuses what no game can reach, with a [`PositionError`] naming the field
//! and the square, and computes the hash and the game status once.
//!
//! # What is refused, and why
//!
//! Nothing is ever captured in Paco Ŝako, so a game always has exactly 16
//! pieces a side (on the board, in unions, or in hand). **Fewer pieces are
//! accepted**, for studies and puzzles; what fewer pieces cannot explain is
//! refused:
//!
//! * **board**: two pieces of one colour on a square; a number of kings other
//!   than one per side (unions and the hand count); more than 16 pieces a side;
//!   more than 8 pawns, or more queens, rooks, knights and bishops than the
//!   start's 1, 2, 2, 2 plus one promotion per missing pawn; under the
//!   official rules, both kings in one union, and more than one king in a
//!   union: a king in a union is a won game (the status is derived), with the
//!   loser to move (or the winner, promoting the pawn that won). Under the
//!   vchess king rule kings take over unions, so none of this is refused, and
//!   the board cannot tell a won game from a running one: it reads as running.
//!   A lone pawn on its own first rank (pawns only go back inside
//!   unions, and a pawn released there moves on in the same turn); a pawn on
//!   its last rank other than the pending promotion of the side to move.
//! * **lifted**: a piece in hand that the required action does not expect; a
//!   union lifted from an occupied square; a lone piece in hand above a lone
//!   piece (it was lifted from an empty square, or released from a union); a
//!   pawn lifted from its last rank; a king in a union or released from one,
//!   except under the vchess king rule.
//! * **promotion**: a pending promotion that is not the side to move's pawn on
//!   its last rank, or with the wrong piece in hand.
//! * **castling**: a right whose king is not on its start square (or in hand
//!   above it) or whose rook is not on its square (alone or in a union; a
//!   union standing there castles with it); rook and king files that do not fit.
//! * **en passant**: a square not on the rank a pawn of the side not to move
//!   just skipped, not empty, without that pawn beyond it (or in hand, lifted
//!   in a union), or whose start square is occupied by a lone piece.
//! * **half-moves**: more than 100 (the game is drawn at 100; a settled
//!   position at 100 reads as the draw).
//! * **rules**: state of an optional rule that is off.
//!
//! Pawns inside unions may stand on any rank (the opponent carries them), and
//! a pawn carried to its last rank waits there for its owner's promotion.

use super::position_error::{kind_name, PositionError};
use super::{Castling, Hand, Position, Required, Rules, Status};
use crate::types::{BitBoard, Color, PieceKind, Square};

/// Pieces per side in every game (nothing is ever captured).
pub const PIECES_PER_SIDE: u32 = 16;

/// An unchecked position: what a reader found, before [`Position::from_setup`]
/// decides whether a game can reach it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// `pieces[color][kind]`: the squares holding that colour's piece of that
    /// kind; a union is a square in both colours.
    pub pieces: [[u64; 6]; 2],
    pub side: Color,
    /// The mover's piece (or union) above the board.
    pub hand: Hand,
    pub required: Required,
    /// The square of the pawn that must promote, when `required` is a promotion.
    pub promotion: Option<Square>,
    pub castling: Castling,
    pub en_passant: Option<Square>,
    /// Half-moves without progress (a new union or a promotion).
    pub no_progress: u8,
    /// Optional rule `one_double_step_per_file`: files each colour double-stepped on.
    pub double_steps: [u8; 2],
    /// Optional rule `no_union_undo`: the union move just played (from, to).
    pub last_pair_move: Option<(Square, Square)>,
    /// Optional rule `king_chain_draw`: the chain in progress was started by the king.
    pub king_chain: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Setup::empty()
    }
}

impl Setup {
    /// No pieces, White to move, nothing in hand, no rights.
    pub fn empty() -> Setup {
        Setup {
            pieces: [[0; 6]; 2],
            side: Color::White,
            hand: Hand::Empty,
            required: Required::Lift,
            promotion: None,
            castling: Castling::NONE,
            en_passant: None,
            no_progress: 0,
            double_steps: [0; 2],
            last_pair_move: None,
            king_chain: false,
        }
    }

    /// Adds a piece (no check: a second piece of a colour on a square is
    /// refused by validation).
    pub fn put(&mut self, color: Color, kind: PieceKind, sq: Square) {
        self.pieces[color.index()][kind.index()] |= sq.bb();
    }

    /// Squares with a piece of `color`.
    pub fn occupied(&self, color: Color) -> u64 {
        self.pieces[color.index()].iter().fold(0, |a, b| a | b)
    }

    /// The piece of `color` on `sq` (the first kind found).
    pub fn kind_at(&self, color: Color, sq: Square) -> Option<PieceKind> {
        PieceKind::ALL.into_iter().find(|k| self.pieces[color.index()][k.index()] & sq.bb() != 0)
    }

    /// The position this setup describes, or why no game reaches it.
    pub fn validate(&self, rules: Rules) -> Result<Position, PositionError> {
        Position::from_setup(self, rules)
    }
}

fn err<T>(field: &'static str, square: Option<Square>, message: impl Into<String>) -> Result<T, PositionError> {
    Err(PositionError::new(field, square, message))
}

/// Squares as `a1, b2 in a union, e1 in hand`.
fn square_list(items: &[(Square, &str)]) -> String {
    items.iter().map(|(s, note)| if note.is_empty() { s.to_string() } else { format!("{s} {note}") }).collect::<Vec<_>>().join(", ")
}

/// The rank on which `color`'s pawns promote.
fn last_rank(color: Color) -> u8 {
    color.other().home_rank()
}

/// The X-FEN letter of a castling right.
fn right_letter(color: Color, rook_file: u8) -> char {
    let c = (b'a' + rook_file.min(7)) as char;
    if color == Color::White {
        c.to_ascii_uppercase()
    } else {
        c
    }
}

impl Position {
    /// Validates a setup: the position, with its hash and status, or what makes
    /// it impossible (see the module docs of [`Setup`] for the list).
    pub fn from_setup(s: &Setup, rules: Rules) -> Result<Position, PositionError> {
        let status = check(s, rules)?;
        let mut pos = Position::empty(rules);
        for color in Color::BOTH {
            for kind in PieceKind::ALL {
                for sq in BitBoard(s.pieces[color.index()][kind.index()]) {
                    pos.put(color, kind, sq);
                }
            }
        }
        pos.side = s.side;
        pos.required = s.required;
        pos.hand = s.hand;
        pos.ep = s.en_passant;
        pos.promotion = s.promotion;
        pos.castling = s.castling;
        pos.no_progress = s.no_progress;
        pos.status = status;
        pos.double_steps = s.double_steps;
        pos.last_pair_move = s.last_pair_move;
        pos.king_chain = s.king_chain;
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// The setup of this position (validating it gives the position back, with
    /// the status a setup can show: wins and no-progress draws, not repetitions).
    pub fn to_setup(&self) -> Setup {
        Setup {
            pieces: [0, 1].map(|c| PieceKind::ALL.map(|k| self.bb(c, k))),
            side: self.side,
            hand: self.hand,
            required: self.required,
            promotion: self.promotion,
            castling: self.castling,
            en_passant: self.ep,
            no_progress: self.no_progress,
            double_steps: self.double_steps,
            last_pair_move: self.last_pair_move,
            king_chain: self.king_chain,
        }
    }
}

/// Every check; the status of a valid setup.
fn check(s: &Setup, rules: Rules) -> Result<Status, PositionError> {
    check_board(s)?;
    check_hand(s, rules)?;
    check_material(s)?;
    let status = check_kings(s, rules)?;
    check_pawns(s)?;
    check_castling(s)?;
    check_en_passant(s)?;
    check_counters(s, rules)?;
    if status.is_over() {
        return Ok(status);
    }
    Ok(if s.required == Required::Lift && s.no_progress >= 100 { Status::NoProgressDraw } else { Status::Running })
}

/// At most one piece of a colour on a square.
fn check_board(s: &Setup) -> Result<(), PositionError> {
    for color in Color::BOTH {
        let mut seen = 0u64;
        for k in PieceKind::ALL {
            let b = s.pieces[color.index()][k.index()];
            if let Some(sq) = BitBoard(b & seen).first() {
                let other = PieceKind::ALL.into_iter().find(|o| *o != k && s.pieces[color.index()][o.index()] & sq.bb() != 0).unwrap_or(k);
                return err("board", Some(sq), format!("two {} pieces on {sq} ({} and {})", color.name(), kind_name(other, false), kind_name(k, false)));
            }
            seen |= b;
        }
    }
    Ok(())
}

/// The piece in hand fits the required action and the board below it.
fn check_hand(s: &Setup, rules: Rules) -> Result<(), PositionError> {
    let me = s.side;
    let mover = me.title();
    let occ = [s.occupied(Color::White), s.occupied(Color::Black)];
    let needs = match s.required {
        Required::Place => "Place",
        Required::PromoteThenPlace => "PromoteThenPlace",
        _ => "",
    };
    match (s.hand, needs) {
        (Hand::Empty, "") => return Ok(()),
        (Hand::Empty, n) => return err("lifted", None, format!("the required action is {n}, but no piece is in hand")),
        (h, "") => {
            return err(
                "lifted",
                h.from(),
                format!("a piece is in hand above {}, but the required action is {}", h.from().expect("in hand"), s.required.name()),
            )
        }
        (Hand::Pair { from, .. }, "PromoteThenPlace") => {
            return err("lifted", Some(from), format!("a union is in hand above {from}, but a promotion in a chain leaves a single released piece in hand"))
        }
        _ => {}
    }
    match s.hand {
        Hand::Empty => Ok(()),
        Hand::Pair { kind, partner, from } => {
            if (occ[0] | occ[1]) & from.bb() != 0 {
                return err("lifted", Some(from), format!("a union is lifted from {from}, which is not empty"));
            }
            if partner == PieceKind::King && !rules.king_chain_draw {
                return err("lifted", Some(from), format!("{mover}'s union lifted from {from} holds the opponent's king: that game is over"));
            }
            if kind == PieceKind::King && !rules.king_chain_draw {
                return err(
                    "lifted",
                    Some(from),
                    format!("{mover}'s king is lifted in a union from {from}; kings never unite (only the vchess king rule lets them)"),
                );
            }
            if kind == PieceKind::Pawn && from.rank() == last_rank(me) {
                return err("lifted", Some(from), format!("{mover}'s pawn is lifted from {from}, on its last rank, where it would have promoted"));
            }
            Ok(())
        }
        Hand::Single { kind, from } => {
            let union = occ[0] & occ[1] & from.bb() != 0;
            let lone = (occ[0] ^ occ[1]) & from.bb() != 0;
            if lone {
                return err(
                    "lifted",
                    Some(from),
                    format!(
                        "{mover}'s {} in hand above {from}, where a lone piece stands: a piece is lifted from an empty square or released from a union",
                        kind_name(kind, false)
                    ),
                );
            }
            if kind == PieceKind::King && union && !rules.king_chain_draw {
                return err(
                    "lifted",
                    Some(from),
                    format!("{mover}'s king is in hand above the union on {from}; kings never unite (only the vchess king rule lets them)"),
                );
            }
            if kind == PieceKind::Pawn && from.rank() == last_rank(me) {
                return err("lifted", Some(from), format!("{mover}'s pawn is in hand above {from}, on its last rank, where it would have promoted"));
            }
            Ok(())
        }
    }
}

/// Counts per colour and kind, the hand included.
fn counts(s: &Setup) -> [[u32; 6]; 2] {
    let mut n = s.pieces.map(|kinds| kinds.map(u64::count_ones));
    match s.hand {
        Hand::Empty => {}
        Hand::Single { kind, .. } => n[s.side.index()][kind.index()] += 1,
        Hand::Pair { kind, partner, .. } => {
            n[s.side.index()][kind.index()] += 1;
            n[s.side.other().index()][partner.index()] += 1;
        }
    }
    n
}

/// One king a side; no more pieces than 16 pawns and pieces with their
/// promotions allow.
fn check_material(s: &Setup) -> Result<(), PositionError> {
    let n = counts(s);
    for color in Color::BOTH {
        let c = color.index();
        let name = color.title();
        let kings = n[c][PieceKind::King.index()];
        if kings != 1 {
            let both = s.occupied(Color::White) & s.occupied(Color::Black);
            let mut squares: Vec<(Square, &str)> =
                BitBoard(s.pieces[c][PieceKind::King.index()]).map(|sq| (sq, if both & sq.bb() != 0 { "in a union" } else { "" })).collect();
            match s.hand {
                Hand::Single { kind: PieceKind::King, from } | Hand::Pair { kind: PieceKind::King, from, .. } if s.side == color => {
                    squares.push((from, "in hand"))
                }
                Hand::Pair { partner: PieceKind::King, from, .. } if s.side != color => squares.push((from, "in hand")),
                _ => {}
            }
            // In the FEN's order: rank 8 first.
            squares.sort_by_key(|(sq, _)| (std::cmp::Reverse(sq.rank()), sq.file()));
            let first = squares.first().map(|(sq, _)| *sq);
            return if kings == 0 {
                err("board", None, format!("no {} king", name.to_lowercase()))
            } else {
                err("board", first, format!("{kings} {} kings ({})", name.to_lowercase(), square_list(&squares)))
            };
        }
    }
    for color in Color::BOTH {
        let c = color.index();
        let name = color.title();
        let total: u32 = n[c].iter().sum();
        if total > PIECES_PER_SIDE {
            return err("board", None, format!("{name} has {total} pieces; a side has {PIECES_PER_SIDE}, and nothing is ever captured"));
        }
        let pawns = n[c][PieceKind::Pawn.index()];
        if pawns > 8 {
            return err("board", None, format!("{name} has {pawns} pawns; a side has at most 8"));
        }
        // Pieces beyond the start's, each one a promoted pawn.
        let start = [(PieceKind::Queen, 1), (PieceKind::Rook, 2), (PieceKind::Knight, 2), (PieceKind::Bishop, 2)];
        let promoted: u32 = start.iter().map(|&(k, m)| n[c][k.index()].saturating_sub(m)).sum();
        if promoted > 8 - pawns {
            let have = start.iter().map(|&(k, _)| format!("{} {}", n[c][k.index()], kind_name(k, n[c][k.index()] != 1))).collect::<Vec<_>>().join(", ");
            return err(
                "board",
                None,
                format!("{name} has {have} and {pawns} pawns: {promoted} promoted pieces, but only {} pawns are missing to have promoted", 8 - pawns),
            );
        }
    }
    Ok(())
}

/// Kings in unions: a won game under the official rules (who is to move
/// follows from that), or a king that took over a union under the vchess king
/// rule. The status of the setup.
fn check_kings(s: &Setup, rules: Rules) -> Result<Status, PositionError> {
    let white = s.occupied(Color::White);
    let black = s.occupied(Color::Black);
    let kings = [s.pieces[0][PieceKind::King.index()], s.pieces[1][PieceKind::King.index()]];
    if rules.king_chain_draw {
        // Kings take over unions, even one with the other king.
        return Ok(Status::Running);
    }
    if let Some(sq) = BitBoard(kings[0] & kings[1]).first() {
        return err("board", Some(sq), format!("the two kings are united on {sq}; kings never unite under the official rules"));
    }
    let united: Vec<(Color, Square)> = Color::BOTH.into_iter().filter_map(|c| BitBoard(kings[c.index()] & white & black).first().map(|sq| (c, sq))).collect();
    match united.as_slice() {
        [] => Ok(Status::Running),
        [(loser, sq)] => {
            let winner = loser.other();
            let winner_promotes = s.side == winner && s.required == Required::PromoteThenFinish;
            if s.side != *loser && !winner_promotes {
                return err(
                    "side",
                    Some(*sq),
                    format!(
                        "{}'s king is united on {sq}: {} won with the last move, so {} is to move (or {} promoting the pawn that won)",
                        loser.title(),
                        winner.title(),
                        loser.title(),
                        winner.title()
                    ),
                );
            }
            if s.side == *loser && s.required != Required::Lift {
                return err("side", Some(*sq), format!("{}'s king is united on {sq}: the game is over, so nothing is in hand or to promote", loser.title()));
            }
            Ok(Status::PacoVictory(winner))
        }
        _ => err(
            "board",
            Some(united[0].1),
            format!("both kings are in unions ({} and {}); the first union with a king ends the game", united[0].1, united[1].1),
        ),
    }
}

/// Lone pawns never stand on their first rank; a pawn on its last rank is the
/// pending promotion of the side to move; a pending promotion is such a pawn.
fn check_pawns(s: &Setup) -> Result<(), PositionError> {
    let occ = [s.occupied(Color::White), s.occupied(Color::Black)];
    for color in Color::BOTH {
        let c = color.index();
        let name = color.title();
        let pawns = s.pieces[c][PieceKind::Pawn.index()];
        let lone = occ[c] & !occ[color.other().index()];
        let first = pawns & lone & (0xFF << (8 * color.home_rank()));
        if let Some(sq) = BitBoard(first).first() {
            return err("board", Some(sq), format!("{name}'s lone pawn on {sq} stands on its first rank, which a pawn only reaches inside a union"));
        }
        for sq in BitBoard(pawns & (0xFF << (8 * last_rank(color)))) {
            if s.promotion != Some(sq) || s.side != color {
                let why = if s.side == color {
                    "it must promote, but no promotion is pending there".to_string()
                } else {
                    format!("{name} promotes it before its turn ends")
                };
                return err("board", Some(sq), format!("{name}'s pawn on {sq} stands on its last rank unpromoted: {why}"));
            }
        }
    }
    let me = s.side;
    match (s.promotion, s.required.is_promote()) {
        (None, false) => Ok(()),
        (Some(sq), false) => err("promotion", Some(sq), format!("a promotion on {sq} is pending, but the required action is {}", s.required.name())),
        (None, true) => err("promotion", None, format!("the required action is {}, but no promotion is pending", s.required.name())),
        (Some(sq), true) => {
            if sq.rank() != last_rank(me) || s.pieces[me.index()][PieceKind::Pawn.index()] & sq.bb() == 0 {
                return err("promotion", Some(sq), format!("the promotion pending on {sq} needs {}'s pawn there, on its last rank", me.title()));
            }
            let union = occ[0] & occ[1] & sq.bb() != 0;
            match s.required {
                Required::PromoteThenLift if !union => err(
                    "promotion",
                    Some(sq),
                    format!(
                        "{}'s pawn on {sq} is to be promoted before lifting, but it is not in a union: only the opponent carries a pawn to promote",
                        me.title()
                    ),
                ),
                Required::PromoteThenPlace if s.hand.from() != Some(sq) => {
                    err("promotion", Some(sq), format!("the promotion on {sq} happened in a chain, so the piece in hand must be the one released there"))
                }
                _ => Ok(()),
            }
        }
    }
}

/// Each right has its king and its rook on their squares.
fn check_castling(s: &Setup) -> Result<(), PositionError> {
    let c = &s.castling;
    for color in Color::BOTH {
        let rank = color.home_rank();
        let kf = c.king_file[color.index()];
        for side in 0..2 {
            if !c.has(color, side) {
                continue;
            }
            let rf = c.rook_file[color.index()][side];
            let letter = right_letter(color, rf);
            let name = color.title();
            if kf > 7 || rf > 7 {
                // (Only a hand-built Castling has such files; a FEN names squares.)
                return err("castling", None, format!("{name}'s right has its king on file {kf} and its rook on file {rf}; files run from 0 (a) to 7 (h)"));
            }
            if (side == 0 && rf >= kf) || (side == 1 && rf <= kf) {
                return err(
                    "castling",
                    None,
                    format!("right {letter}: {name}'s rook file must be on the {} side of the king's", if side == 0 { "queen" } else { "king" }),
                );
            }
            let king_sq = Square::from_file_rank(kf, rank);
            let rook_sq = Square::from_file_rank(rf, rank);
            // (In a union only when the opponent just won by uniting with it.)
            let king_here = s.pieces[color.index()][PieceKind::King.index()] & king_sq.bb() != 0;
            let king_lifted =
                s.side == color && s.hand == Hand::Single { kind: PieceKind::King, from: king_sq } && s.occupied(color.other()) & king_sq.bb() == 0;
            if !king_here && !king_lifted {
                return err("castling", Some(king_sq), format!("right {letter}: {name}'s king is not on {king_sq}"));
            }
            if s.pieces[color.index()][PieceKind::Rook.index()] & rook_sq.bb() == 0 {
                return err("castling", Some(rook_sq), format!("right {letter}: {name}'s rook is missing from {rook_sq}"));
            }
        }
    }
    Ok(())
}

/// The en passant square is the one a pawn of the side not to move just skipped.
fn check_en_passant(s: &Setup) -> Result<(), PositionError> {
    let Some(ep) = s.en_passant else { return Ok(()) };
    let me = s.side;
    let them = me.other();
    let (ep_rank, dir) = match me {
        Color::White => (5u8, -1i8),
        Color::Black => (2u8, 1i8),
    };
    let occ = [s.occupied(Color::White), s.occupied(Color::Black)];
    let all = occ[0] | occ[1];
    let them_name = them.title();
    if ep.rank() != ep_rank {
        return err("en passant", Some(ep), format!("{ep} is not on rank {}, where {them_name}'s pawns skip a square", ep_rank + 1));
    }
    if all & ep.bb() != 0 {
        return err("en passant", Some(ep), format!("{ep} is occupied, but a pawn just skipped it"));
    }
    let beyond = ep.offset(0, dir).expect("inside the board");
    let origin = ep.offset(0, -dir).expect("inside the board");
    let pawn_there = s.pieces[them.index()][PieceKind::Pawn.index()] & beyond.bb() != 0;
    let pawn_in_hand = matches!(s.hand, Hand::Pair { partner: PieceKind::Pawn, from, .. } if from == beyond);
    if !pawn_there && !pawn_in_hand {
        return err("en passant", Some(ep), format!("{ep}: no {} pawn on {beyond} just skipped it", them_name.to_lowercase()));
    }
    if (occ[0] ^ occ[1]) & origin.bb() != 0 {
        return err("en passant", Some(ep), format!("{ep}: {origin}, where the pawn started its double step, holds a lone piece"));
    }
    Ok(())
}

/// The no-progress counter, and the optional rules' state.
fn check_counters(s: &Setup, rules: Rules) -> Result<(), PositionError> {
    if s.no_progress > 100 {
        return err("half-moves", None, format!("{} half-moves without progress; the game is drawn at 100", s.no_progress));
    }
    if s.double_steps != [0, 0] && !rules.one_double_step_per_file {
        return err("rules", None, "files used for double steps are recorded, but the one-double-step-per-file rule is off");
    }
    if let Some((a, b)) = s.last_pair_move {
        if !rules.no_union_undo {
            return err("rules", Some(b), "a union move is recorded, but the no-union-undo rule is off");
        }
        if a == b {
            return err("rules", Some(b), format!("the recorded union move goes from {a} to itself"));
        }
    }
    if s.king_chain {
        if !rules.king_chain_draw {
            return err("rules", None, "a king chain is in progress, but the king-chain-draw rule is off");
        }
        if !matches!(s.hand, Hand::Single { .. }) {
            return err("rules", None, "a king chain is in progress, but no released piece is in hand");
        }
    }
    Ok(())
}
