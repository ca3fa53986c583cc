//! Threat detection through chains: which squares could the opponent dance
//! onto in their next turn? Castling is refused when the king's start, path or
//! destination is threatened, and Ŝako is "my king square is threatened".
//!
//! This follows the reference engine exactly: every non-king piece of the
//! player is lifted; a lone piece threatens its pawn diagonals, knight jumps
//! and the slider rays up to and including the first occupied square; chains
//! are followed by placing into unions (and through promotions, and through
//! en-passant steps), and each released piece threatens from its union square.

use super::tables::{bishop_attacks, queen_attacks, rook_attacks, KNIGHT, PAWN_DIAG_BLACK, PAWN_DIAG_WHITE};
use super::{Action, ActionSet, Hand, Position, Required};
use crate::types::{BitBoard, Color, PieceKind};
use crate::util::U64Set;

/// Squares the side to move of `pos` (a settled position) could dance onto,
/// directly or at the end of any chain.
pub fn threatened_squares(pos: &Position) -> u64 {
    let me = pos.side;
    let mut stack: Vec<Position> = Vec::new();
    let lone_own = pos.occ[me.index()] & !pos.occ[me.other().index()] & !pos.king_bb(me.index());
    // Unions lifted as pairs never threaten (they only go to empty squares), so
    // only lone pieces start a threat search.
    for sq in BitBoard(lone_own) {
        let mut s = *pos;
        s.lift(sq);
        stack.push(s);
    }
    chain_threats(stack, false)
}

/// Can the side to move of `pos` unite with the opponent's king before its
/// turn ends? A settled position asks [`in_sako`]; in the middle of a turn
/// only the piece in hand (and the chains it starts) can still reach the king.
/// A win found here is exact, so search can treat the position as won.
pub fn can_unite_with_king(pos: &Position) -> bool {
    let king = pos.king_bb(pos.side.other().index());
    // A chain the king started ends in a draw on the other king (vchess rule).
    if king == 0 || pos.king_chain {
        return false;
    }
    if pos.is_settled() {
        return in_sako(pos, pos.side.other());
    }
    if pos.hand == Hand::Empty {
        // A promotion owed at the start of the turn (the opponent brought a
        // union with our pawn to its last rank): after it the turn starts.
        return PieceKind::PROMOTIONS.iter().any(|&k| {
            let mut n = *pos;
            n.play_unchecked(Action::Promote(k));
            n.side == pos.side && n.is_settled() && in_sako(&n, pos.side.other())
        });
    }
    chain_threats(vec![*pos], true) & king != 0
}

/// Squares reached by the pieces in hand of `stack`'s positions, directly or
/// at the end of any chain they start. `skip_king_chains`: ignore chains the
/// king started (under the vchess rule they end in a draw, not a win).
fn chain_threats(mut stack: Vec<Position>, skip_king_chains: bool) -> u64 {
    let mut threats = 0u64;
    let mut seen = U64Set::default();
    while let Some(s) = stack.pop() {
        if s.promotion.is_none() {
            if let Hand::Single { kind, from } = s.hand {
                threats |= threat_targets(&s, kind, from);
            }
        }
        match s.actions() {
            ActionSet::Places(targets) => {
                let unions = s.occ[0] & s.occ[1];
                let ep_capture = en_passant_capture_possible(&s);
                for t in targets {
                    if unions & t.bb() == 0 && !ep_capture {
                        continue;
                    }
                    let mut n = s;
                    n.play_unchecked(Action::Place(t));
                    if n.hand != Hand::Empty && !(skip_king_chains && n.king_chain) && seen.insert(n.hash) {
                        stack.push(n);
                    }
                }
            }
            ActionSet::Promotions => {
                for k in PieceKind::PROMOTIONS {
                    let mut n = s;
                    n.play_unchecked(Action::Promote(k));
                    if n.hand != Hand::Empty && seen.insert(n.hash) {
                        stack.push(n);
                    }
                }
            }
            _ => {}
        }
    }
    threats
}

/// The two threat planes of the network input: the squares the side to move
/// could still dance onto this turn, and the squares the opponent could dance
/// onto in its next turn if the board stayed as it is.
///
/// Settled positions use [`threatened_squares`] for both sides. In the middle
/// of a turn the mover's squares are those of the piece in hand and the chains
/// it starts (a lifted pair reaches only empty squares: none); the opponent's
/// are computed with the piece in hand off the board, where it is now.
/// Squares of a side's own lone pieces are left out of its set: nobody
/// dances onto its own piece (the threat search counts them as reached).
pub fn reach_for_both_sides(pos: &Position) -> (u64, u64) {
    let me = pos.side.index();
    let lone = |c: usize| pos.occ[c] & !pos.occ[1 - c];
    let mover = if pos.hand == Hand::Empty {
        let mut b = *pos;
        b.set_required(Required::Lift);
        threatened_squares(&b)
    } else {
        chain_threats(vec![*pos], false)
    };
    (mover & !lone(me), opponent_threats(pos) & !lone(1 - me))
}

/// Squares the opponent of `pos`'s mover could dance onto if it were its turn
/// on this board; a piece the mover holds in hand is off the board. Castling
/// asks it with the castling king in hand (the king's start, path and
/// destination must not be threatened); the network's threat plane asks it
/// for every position.
pub(crate) fn opponent_threats(pos: &Position) -> u64 {
    let mut b = *pos;
    b.set_hand(Hand::Empty);
    b.switch_side();
    b.set_required(Required::Lift);
    threatened_squares(&b)
}

/// Is `color`'s king threatened (Ŝako) in this settled position, i.e. could the
/// other side unite with it if it were their turn?
pub fn in_sako(pos: &Position, color: Color) -> bool {
    let king = pos.king_bb(color.index());
    if king == 0 {
        return false;
    }
    let mut b = *pos;
    b.set_hand(Hand::Empty);
    b.set_required(Required::Lift);
    if b.side != color.other() {
        b.switch_side();
    }
    threatened_squares(&b) & king != 0
}

fn threat_targets(s: &Position, kind: PieceKind, from: crate::types::Square) -> u64 {
    let occ = s.occ[0] | s.occ[1];
    let i = from.index();
    match kind {
        PieceKind::Pawn => match s.side {
            Color::White => PAWN_DIAG_WHITE[i],
            Color::Black => PAWN_DIAG_BLACK[i],
        },
        PieceKind::Knight => KNIGHT[i],
        PieceKind::Bishop => bishop_attacks(i, occ),
        PieceKind::Rook => rook_attacks(i, occ),
        PieceKind::Queen => queen_attacks(i, occ),
        PieceKind::King => 0,
    }
}

fn en_passant_capture_possible(s: &Position) -> bool {
    match (s.hand, s.ep) {
        (Hand::Single { kind: PieceKind::Pawn, from }, Some(ep)) => {
            let f = super::position::forward(s.side);
            from.offset(-1, f) == Some(ep) || from.offset(1, f) == Some(ep)
        }
        _ => false,
    }
}
