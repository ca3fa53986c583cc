//! Checks and mates in one: whether a move gives check, and whether the side
//! to move has a legal move that checkmates ([`crate::GameRules::can_win_this_turn`],
//! which search asks at every new leaf, so it must cost little more than
//! generating the moves).
//!
//! A move is tested for check without playing it ([`Position::gives_check`]):
//!
//! * the moved piece (the promoted one after a promotion) attacks the enemy
//!   king from its new square, with the occupancy after the move;
//! * or another of the mover's pieces does, with that occupancy: a
//!   discovered check, or a cannon that gains or loses a screen. Only lines
//!   can change what attacks the king (leapers, pawns and the king attack
//!   the same squares whatever moves elsewhere, and the enemy king is not in
//!   check before the move), so this is asked only when the move's from- or
//!   to-square lies on a line from the enemy king that holds one of the
//!   mover's rooks, queens or cannons (orthogonally) or bishops or queens
//!   (diagonally), as legal move generation asks about its own king.
//!
//! Castling and en passant (which move or remove a second piece) are played
//! out. Only a checking move is played, and the reply position searched for
//! any legal move, stopping at the first ([`Position::has_legal_move`]):
//! a checking move after which the opponent has none is a mate.

use super::geometry::{bishop_attacks, cannon_hops, rook_attacks, Bb128, Square10, ELEPHANT, KNIGHT, PAWN_ATTACKS};
use super::movegen::MoveSink;
use super::moves::{Move, MoveKind};
use super::position::{Kind, Position};

/// What the check test of every move of one position shares: the enemy
/// king, the lines from it that hold one of the mover's line pieces, and
/// the squares from which a rook or a bishop attacks it on the current
/// board. (A rook, bishop or queen that gives check from its new square
/// sees the king over the same squares before the move: the square it left
/// could only lie between them if it had given check from there already.
/// Not so a promoted piece, which is tested on the board after the move.)
#[derive(Copy, Clone)]
struct CheckContext {
    king: Square10,
    lines: Bb128,
    rook: Bb128,
    bishop: Bb128,
}

impl Position {
    fn check_context(&self) -> CheckContext {
        let king = self.king_square(self.side_to_move().other());
        let occ = self.occupied();
        CheckContext { king, lines: self.exposed_lines(king, self.side_to_move()), rook: rook_attacks(king, occ), bishop: bishop_attacks(king, occ) }
    }

    /// Whether the legal move `m` puts the opponent in check (the position
    /// after it is [`Position::in_check`]).
    pub fn gives_check(&self, m: Move) -> bool {
        self.gives_check_in(m, self.check_context())
    }

    #[inline]
    fn gives_check_in(&self, m: Move, cx: CheckContext) -> bool {
        let (from, to) = (m.from(), m.to());
        let us = self.side_to_move();
        let king = cx.king;
        let occ = (self.occupied() ^ from.bb()) | to.bb();
        let direct = match m.kind() {
            MoveKind::Normal | MoveKind::DoublePush => match self.piece_at(from).map(|p| p.kind) {
                Some(Kind::Knight) => KNIGHT[king.index()].contains(to),
                Some(Kind::Elephant) => ELEPHANT[king.index()].contains(to),
                // The squares from which a pawn of ours attacks the king.
                Some(Kind::Pawn) => PAWN_ATTACKS[us.other().index()][king.index()].contains(to),
                Some(Kind::Rook) => cx.rook.contains(to),
                Some(Kind::Bishop) => cx.bishop.contains(to),
                Some(Kind::Queen) => (cx.rook | cx.bishop).contains(to),
                // A cannon's screen may be the square it left or the one it takes.
                Some(Kind::Cannon) => cannon_hops(king, occ).contains(to),
                // A legal king move never ends next to the other king.
                Some(Kind::King) | None => false,
            },
            // The pawn that left may have stood between the new piece and
            // the king (d9-d10=Q with the king on d2): the board after it.
            MoveKind::Promotion(kind) => match kind {
                Kind::Knight => KNIGHT[king.index()].contains(to),
                Kind::Elephant => ELEPHANT[king.index()].contains(to),
                Kind::Rook => rook_attacks(king, occ).contains(to),
                Kind::Bishop => bishop_attacks(king, occ).contains(to),
                Kind::Queen => (rook_attacks(king, occ) | bishop_attacks(king, occ)).contains(to),
                Kind::Cannon => cannon_hops(king, occ).contains(to),
                Kind::Pawn | Kind::King => false,
            },
            MoveKind::Castle | MoveKind::EnPassant => {
                let mut next = *self;
                next.play_unchecked(m);
                return next.in_check();
            }
        };
        // The other pieces, the moved one taken off its square.
        direct || (!((from.bb() | to.bb()) & cx.lines).is_empty() && self.is_attacked(king, us, occ, from.bb()))
    }

    /// Whether the legal move `m` checkmates: it gives check and the
    /// opponent has no legal move after it.
    pub fn is_mating_move(&self, m: Move) -> bool {
        self.mates_in(m, self.check_context())
    }

    #[inline]
    fn mates_in(&self, m: Move, cx: CheckContext) -> bool {
        self.gives_check_in(m, cx) && {
            let mut next = *self;
            next.play_unchecked(m);
            !next.has_legal_move()
        }
    }

    /// Whether the side to move has a legal move that checkmates (stops at
    /// the first). Says nothing of the game's other ends (a position that
    /// is already mate, stalemate or drawn has no mate to give: see
    /// `GameState`).
    pub fn has_mate_in_one(&self) -> bool {
        let mut sink = FirstMate { pos: self, cx: self.check_context(), found: false };
        self.generate(&mut sink);
        sink.found
    }

    /// The legal moves that checkmate, in generation order.
    pub fn mating_moves(&self) -> Vec<Move> {
        let cx = self.check_context();
        self.legal_moves_vec().into_iter().filter(|&m| self.mates_in(m, cx)).collect()
    }
}

/// Tests each generated move for mate until one is found, then stops the
/// generation.
struct FirstMate<'a> {
    pos: &'a Position,
    cx: CheckContext,
    found: bool,
}

impl MoveSink for FirstMate<'_> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        if !self.found && self.pos.mates_in(m, self.cx) {
            self.found = true;
        }
    }

    #[inline(always)]
    fn done(&self) -> bool {
        self.found
    }
}
