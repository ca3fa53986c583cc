//! A material-only quiescence search: the captures by which a position's
//! material settles, when both sides take what pays and stop when it does
//! not.
//!
//! A network evaluating a leaf where a piece hangs, or an exchange is half
//! played, has to see the exchange's end in one glance. Chess engines search
//! such leaves on to a quiet position first. [`Position::capture_line`] finds
//! that line; the search's quiescent evaluator (`pacozero_search`) asks the
//! network about the position at its end.
//!
//! The search, negamax with alpha-beta over material in pawns (P 1, E 2,
//! N 3, B 3, C 4, R 5, Q 9):
//! - out of check, the mover may stand pat on the material as it is, or
//!   play a capture or a promotion;
//! - in check, it must play one of its legal moves (every evasion, captures
//!   or not), and a position with none is mate (or stalemate out of check);
//! - [`QUIESCENCE_PLIES`] bounds the line, after which material stands.
//!
//! Repetitions and the 50-move rule play no part: a line of captures is
//! irreversible.

use super::moves::{Move, MoveKind};
use super::piece::Kind;
use super::position::Position;

/// The longest line searched, in plies.
pub const QUIESCENCE_PLIES: usize = 8;

/// A mate's score, beyond any material balance.
const MATE: i32 = 10_000;

/// Pawn units of a piece kind (the king is never captured).
fn value(kind: Kind) -> i32 {
    match kind {
        Kind::Pawn => 1,
        Kind::Elephant => 2,
        Kind::Knight | Kind::Bishop => 3,
        Kind::Cannon => 4,
        Kind::Rook => 5,
        Kind::Queen => 9,
        Kind::King => 0,
    }
}

/// The material a move wins on the spot: the piece taken (a pawn for en
/// passant) and a promotion's gain over the pawn; 0 for a quiet move.
fn gain(pos: &Position, m: Move) -> i32 {
    let taken = match m.kind() {
        MoveKind::EnPassant => 1,
        _ => pos.piece_at(m.to()).map_or(0, |p| value(p.kind)),
    };
    taken + m.promotion().map_or(0, |k| value(k) - 1)
}

/// Material of the mover minus the opponent's.
fn balance(pos: &Position) -> i32 {
    let us = pos.side_to_move();
    pos.material(us) as i32 - pos.material(us.other()) as i32
}

impl Position {
    /// The line of captures (and check evasions) that a material-only
    /// quiescence search plays from here, best for both sides, and its
    /// score for the mover in pawns. The line is empty when standing pat is
    /// best: the position is quiet as far as material goes. A line that ends
    /// in mate scores ±10,000.
    pub fn capture_line(&self) -> (Vec<Move>, i32) {
        let mut lines = vec![Vec::new(); QUIESCENCE_PLIES + 1];
        let mut moves = vec![Vec::new(); QUIESCENCE_PLIES + 1];
        let score = quiesce(self, -MATE - 1, MATE + 1, 0, QUIESCENCE_PLIES, &mut lines, &mut moves);
        (std::mem::take(&mut lines[0]), score)
    }
}

/// Negamax quiescence from `pos` at `ply`; `lines[ply]` gets the best line
/// from here (empty: stand pat).
fn quiesce(pos: &Position, mut alpha: i32, beta: i32, ply: usize, max_ply: usize, lines: &mut [Vec<Move>], moves: &mut [Vec<Move>]) -> i32 {
    lines[ply].clear();
    let in_check = pos.in_check();
    let mut list = std::mem::take(&mut moves[ply]);
    pos.legal_moves(&mut list);
    if list.is_empty() {
        moves[ply] = list;
        return if in_check { -MATE } else { 0 };
    }
    let stand = balance(pos);
    if ply == max_ply {
        moves[ply] = list;
        return stand;
    }
    let mut best = -MATE - 1;
    if !in_check {
        best = stand;
        if stand >= beta {
            moves[ply] = list;
            return stand;
        }
        alpha = alpha.max(stand);
        list.retain(|&m| gain(pos, m) > 0);
    }
    // Most valuable victim first, least valuable attacker among equals.
    list.sort_by_key(|&m| (-gain(pos, m), pos.piece_at(m.from()).map_or(0, |p| value(p.kind))));
    for &m in &list {
        let mut next = *pos;
        next.play_unchecked(m);
        let score = -quiesce(&next, -beta, -alpha, ply + 1, max_ply, lines, moves);
        if score > best {
            best = score;
            let (here, deeper) = lines.split_at_mut(ply + 1);
            here[ply].clear();
            here[ply].push(m);
            here[ply].extend_from_slice(&deeper[0]);
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    moves[ply] = list;
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shako::GameState;
    use crate::GameRules;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn line(fen: &str) -> (Vec<String>, i32) {
        let pos: Position = fen.parse().unwrap();
        let (line, score) = pos.capture_line();
        (line.iter().map(|m| m.to_string()).collect(), score)
    }

    #[test]
    fn the_start_is_quiet() {
        assert_eq!(line(super::super::STARTPOS_FEN), (vec![], 0));
    }

    #[test]
    fn a_hanging_queen_is_taken() {
        assert_eq!(line("4k5/10/10/10/10/4q5/5P4/10/10/5K4 w - - 0 1"), (vec!["f4e5".to_string()], 1));
    }

    /// Of two captures that end level, the least valuable attacker's is
    /// searched first and kept: the pawn takes the queen, not the rook.
    #[test]
    fn the_least_valuable_attacker_takes_first() {
        assert_eq!(line("k9/10/10/10/10/4q5/5P4/10/10/4RK4 w - - 0 1"), (vec!["f4e5".to_string()], 6));
    }

    #[test]
    fn a_defended_knight_is_left_to_the_queen() {
        assert_eq!(line("k9/10/4p5/3n6/10/10/10/10/10/3Q1K4 w - - 0 1"), (vec![], 5));
    }

    #[test]
    fn a_mated_mover_scores_a_mate() {
        assert_eq!(line("10/10/10/10/10/10/10/2k7/1q8/K9 w - - 0 1"), (vec![], -MATE));
    }

    /// The rule text of the search, without pruning or ordering: every
    /// capture and promotion (or, in check, every move) searched to the
    /// depth bound, the mover taking the best of standing pat and its moves.
    fn reference(pos: &Position, depth_left: usize) -> i32 {
        let moves = pos.legal_moves_vec();
        if moves.is_empty() {
            return if pos.in_check() { -MATE } else { 0 };
        }
        if depth_left == 0 {
            return balance(pos);
        }
        let candidates: Vec<Move> = if pos.in_check() { moves } else { moves.into_iter().filter(|&m| gain(pos, m) > 0).collect() };
        let mut best = if pos.in_check() { i32::MIN } else { balance(pos) };
        for m in candidates {
            let mut next = *pos;
            next.play_unchecked(m);
            best = best.max(-reference(&next, depth_left - 1));
        }
        best
    }

    /// The line's end, from the mover's side: the material there, or the mate.
    fn end_score(pos: &Position, line: &[Move]) -> i32 {
        let mut end = *pos;
        for (i, &m) in line.iter().enumerate() {
            assert!(end.legal_moves_vec().contains(&m), "move {i} of the line, {m}, is not legal in {end:?}");
            end.play_unchecked(m);
        }
        let sign = if line.len().is_multiple_of(2) { 1 } else { -1 };
        if end.legal_moves_vec().is_empty() {
            sign * if end.in_check() { -MATE } else { 0 }
        } else {
            sign * balance(&end)
        }
    }

    /// Positions of random games (every seed its own game), where captures
    /// are plenty: the alpha-beta search must score each as the reference
    /// does, and its line must end where it says.
    #[test]
    fn the_search_agrees_with_the_unpruned_reference() {
        const PLIES: usize = 4;
        let (mut tactical, mut checked) = (0, 0);
        for seed in 0..60u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut g = GameState::startpos();
            let plies = rng.gen_range(10..120);
            let mut legal = Vec::new();
            for _ in 0..plies {
                g.playable_actions(&mut legal);
                if legal.is_empty() {
                    break;
                }
                g.apply(legal[rng.gen_range(0..legal.len())]);
            }
            let pos = *g.position();
            let mut lines = vec![Vec::new(); PLIES + 1];
            let mut moves = vec![Vec::new(); PLIES + 1];
            let score = quiesce(&pos, -MATE - 1, MATE + 1, 0, PLIES, &mut lines, &mut moves);
            assert_eq!(score, reference(&pos, PLIES), "{pos:?}");
            if !lines[0].is_empty() {
                tactical += 1;
                if score.abs() < MATE {
                    assert_eq!(end_score(&pos, &lines[0]), score, "{pos:?}: line {:?}", lines[0]);
                    checked += 1;
                }
            } else if !pos.legal_moves_vec().is_empty() {
                assert_eq!(score, balance(&pos), "{pos:?}: no line, so the material stands");
            }
        }
        assert!(tactical >= 10 && checked >= 10, "only {tactical} positions with a line, {checked} checked: the test sees too few");
    }
}
