//! Threat detection through chains: which squares could the opponent dance
//! onto in their next turn? Castling is refused when the king's start, path or
//! destination is threatened, and Ŝako is "my king square is threatened".
//!
//! This follows the reference engine exactly: every non-king piece of the
//! player is lifted; a lone piece threatens its pawn diagonals, knight jumps
//! and the slider rays up to and including the first occupied square; chains
//! are followed by placing into unions (and through promotions, and through
//! en-passant steps), and each released piece threatens from its union square.
//!
//! The search walks every chain state, and in union-heavy positions there can
//! be millions (pieces trade places among the unions in every order). Two
//! exact shortcuts keep it short:
//! * **goals**: a yes/no question (is the king threatened, is a castling path
//!   safe) stops at the first chain that reaches one of its squares;
//! * **ceiling**: once a search grows, it computes every square any piece of
//!   the mover could threaten from any square a chain can put it on (with the
//!   fewest blockers a chain can leave), and stops when it has found all of
//!   them, as nothing more can be added.

use super::tables::{bishop_attacks, queen_attacks, rook_attacks, KING, KNIGHT, PAWN_DIAG_BLACK, PAWN_DIAG_WHITE};
use super::{Action, ActionSet, Hand, Position, Required};
use crate::types::{BitBoard, Color, PieceKind};
use crate::util::U64Set;

/// Squares the side to move of `pos` (a settled position) could dance onto,
/// directly or at the end of any chain.
pub fn threatened_squares(pos: &Position) -> u64 {
    threatened_squares_toward(pos, Goals::NONE)
}

/// When a threat search may stop early: when every non-empty mask of the
/// list has a threatened square. `NONE` asks for the whole set.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct Goals([u64; 2]);

impl Goals {
    pub(crate) const NONE: Goals = Goals([0, 0]);

    /// Stop once one square of `mask` is threatened.
    pub(crate) fn any_of(mask: u64) -> Goals {
        Goals([mask, 0])
    }

    /// Stop once each of the two masks has a threatened square (both castling
    /// options; an empty mask counts as met).
    pub(crate) fn each_of(a: u64, b: u64) -> Goals {
        Goals([a, b])
    }

    #[inline]
    fn met(&self, threats: u64) -> bool {
        self.0 != [0, 0] && self.0.iter().all(|&g| g == 0 || g & threats != 0)
    }
}

/// Squares the side to move of `pos` (settled) could dance onto, stopping as
/// soon as `goals` are met (the answer is then exact for the goal squares only).
pub(crate) fn threatened_squares_toward(pos: &Position, goals: Goals) -> u64 {
    chain_threats(lifted_lone_pieces(pos), false, goals)
}

/// [`threatened_squares`] by its definition: every chain state walked, no
/// shortcut taken. The property tests and the fuzz checks compare the two.
pub fn threatened_squares_exhaustive(pos: &Position) -> u64 {
    chain_threats_with(lifted_lone_pieces(pos), false, Goals::NONE, usize::MAX)
}

/// One starting state per lone piece of the mover (the king aside): that
/// piece lifted.
fn lifted_lone_pieces(pos: &Position) -> Vec<Position> {
    let me = pos.side;
    let lone_own = pos.occ[me.index()] & !pos.occ[me.other().index()] & !pos.king_bb(me.index());
    BitBoard(lone_own)
        .map(|sq| {
            let mut s = *pos;
            s.lift(sq);
            s
        })
        .collect()
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
    chain_threats(vec![*pos], true, Goals::any_of(king)) & king != 0
}

/// Squares reached by the pieces in hand of `stack`'s positions, directly or
/// at the end of any chain they start, or fewer once `goals` are met.
/// `skip_king_chains`: ignore chains the king started (under the vchess rule
/// they end in a draw, not a win).
fn chain_threats(stack: Vec<Position>, skip_king_chains: bool, goals: Goals) -> u64 {
    // Most searches end within a few dozen states, before the ceiling is worth computing.
    chain_threats_with(stack, skip_king_chains, goals, 64)
}

/// [`chain_threats`], computing the ceiling after `ceiling_after` states
/// (`usize::MAX`: never).
fn chain_threats_with(stack: Vec<Position>, skip_king_chains: bool, goals: Goals, ceiling_after: usize) -> u64 {
    // The set of states seen is kept between searches: a new one allocated
    // and zeroed its first 1,024 slots each time, a tenth of the time of
    // the root's two-turn search (which runs this thousands of times).
    thread_local! {
        static SEEN: std::cell::RefCell<U64Set> = std::cell::RefCell::new(U64Set::default());
    }
    // Taken, not borrowed, so that a nested search (none today) would get a set of its own.
    let mut seen = SEEN.with(|s| std::mem::take(&mut *s.borrow_mut()));
    seen.clear();
    let threats = chain_threats_in(stack, skip_king_chains, goals, ceiling_after, &mut seen);
    SEEN.with(|s| *s.borrow_mut() = seen);
    threats
}

/// [`chain_threats_with`] with `seen`, an empty set of the states met.
fn chain_threats_in(mut stack: Vec<Position>, skip_king_chains: bool, goals: Goals, ceiling_after: usize, seen: &mut U64Set) -> u64 {
    let mut threats = 0u64;
    let mut ceiling = u64::MAX;
    let mut walked = 0;
    let ceiling_from = ceiling_inputs(&stack);
    while let Some(s) = stack.pop() {
        if s.promotion.is_none() {
            if let Hand::Single { kind, from } = s.hand {
                threats |= threat_targets(&s, kind, from);
                if goals.met(threats) || threats & ceiling == ceiling {
                    break;
                }
            }
        }
        if walked == ceiling_after {
            if let Some((first, starts, start_kinds)) = &ceiling_from {
                ceiling = threat_ceiling(first, *starts, *start_kinds);
            }
        }
        walked += 1;
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

/// Every square a threat search could still report, from a relaxation of
/// the chains that forgets which piece stands in which union: a piece of kind
/// `k` can be in hand on square `u` if a starting state holds it there, or if
/// `u` is a union some piece in hand can enter and `k` could stand in `u` (it
/// stood there at the start, or some piece of kind `k` could have entered it,
/// or a pawn entering it on its last rank promotes to `k`). Every real chain
/// state is one of these, so the squares they threaten, with only the
/// blockers no chain can move (`starts`, the starting states' squares of
/// pieces in hand, are lifted), are a superset of the real answer. `first` is
/// a starting state; `start_kinds` the kinds in hand at the start. `u64::MAX`
/// (never reached) where an en-passant step could move pieces outside this
/// picture.
fn threat_ceiling(first: &Position, starts: u64, start_kinds: [bool; 6]) -> u64 {
    if first.ep.is_some() {
        return u64::MAX;
    }
    let me = first.side;
    let unions = first.occ[0] & first.occ[1];
    let occ = (first.occ[0] | first.occ[1]) & !starts;
    let last_rank = 0xFFu64 << (8 * if me == Color::White { 7 } else { 0 });
    // reach[k]: squares a piece of kind k can be in hand on;
    // could_stand[k]: unions a piece of kind k can stand in.
    let mut reach = [0u64; 6];
    let mut could_stand = [0u64; 6];
    for k in PieceKind::ALL {
        if start_kinds[k.index()] {
            reach[k.index()] |= starts;
        }
        could_stand[k.index()] = first.bb(me.index(), k) & unions;
    }
    if let Some(sq) = first.promotion {
        for k in PieceKind::PROMOTIONS {
            could_stand[k.index()] |= sq.bb();
        }
    }
    let places = |k: PieceKind, i: usize| -> u64 {
        unions
            & match k {
                PieceKind::Pawn => pawn_diagonals(me, i),
                PieceKind::Knight => KNIGHT[i],
                PieceKind::Bishop => bishop_attacks(i, occ),
                PieceKind::Rook => rook_attacks(i, occ),
                PieceKind::Queen => queen_attacks(i, occ),
                PieceKind::King if first.rules.king_chain_draw => KING[i],
                PieceKind::King => 0,
            }
    };
    loop {
        let before = (reach, could_stand);
        let mut entered = 0;
        for k in PieceKind::ALL {
            for sq in BitBoard(reach[k.index()]) {
                let t = places(k, sq.index());
                entered |= t;
                could_stand[k.index()] |= t;
                if k == PieceKind::Pawn {
                    for p in PieceKind::PROMOTIONS {
                        could_stand[p.index()] |= t & last_rank;
                    }
                }
            }
        }
        for k in PieceKind::ALL {
            reach[k.index()] |= could_stand[k.index()] & entered;
        }
        if (reach, could_stand) == before {
            break;
        }
    }
    let mut ceiling = 0;
    for k in PieceKind::ALL {
        for sq in BitBoard(reach[k.index()]) {
            let i = sq.index();
            ceiling |= match k {
                PieceKind::Pawn => pawn_diagonals(me, i),
                PieceKind::Knight => KNIGHT[i],
                PieceKind::Bishop => bishop_attacks(i, occ),
                PieceKind::Rook => rook_attacks(i, occ),
                PieceKind::Queen => queen_attacks(i, occ),
                PieceKind::King => 0,
            };
        }
    }
    ceiling
}

fn pawn_diagonals(side: Color, i: usize) -> u64 {
    match side {
        Color::White => PAWN_DIAG_WHITE[i],
        Color::Black => PAWN_DIAG_BLACK[i],
    }
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
        chain_threats(vec![*pos], false, Goals::NONE)
    };
    (mover & !lone(me), opponent_threats(pos) & !lone(1 - me))
}

/// Squares the opponent of `pos`'s mover could dance onto if it were its turn
/// on this board; a piece the mover holds in hand is off the board. Castling
/// asks it with the castling king in hand (the king's start, path and
/// destination must not be threatened); the network's threat plane asks it
/// for every position.
pub(crate) fn opponent_threats(pos: &Position) -> u64 {
    opponent_threats_toward(pos, Goals::NONE)
}

/// [`opponent_threats`], stopping once `goals` are met.
pub(crate) fn opponent_threats_toward(pos: &Position, goals: Goals) -> u64 {
    let mut b = *pos;
    b.set_hand(Hand::Empty);
    b.switch_side();
    b.set_required(Required::Lift);
    threatened_squares_toward(&b, goals)
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
    threatened_squares_toward(&b, Goals::any_of(king)) & king != 0
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

/// What [`threat_ceiling`] takes from the starting states of a chain walk:
/// one of them, the squares of their pieces in hand and those pieces' kinds.
/// Every state descends from one of them, so their squares and kinds bound
/// what the chains can do. `None` without a starting state (no bound).
fn ceiling_inputs(stack: &[Position]) -> Option<(Position, u64, [bool; 6])> {
    let first = *stack.first()?;
    let (mut starts, mut start_kinds) = (0u64, [false; 6]);
    for s in stack {
        if let Hand::Single { kind, from } = s.hand {
            starts |= from.bb();
            start_kinds[kind.index()] = true;
        }
    }
    Some((first, starts, start_kinds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Square;

    /// The ceiling bounds everything the exhaustive search finds, on every
    /// position of the reference data with either side to move (computed
    /// before the first state, so that every search uses it).
    #[test]
    fn the_ceiling_is_never_below_the_exhaustive_answer() {
        let mut checked = 0;
        for line in include_str!("../../tests/data/vectors.jsonl").lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["fen_exact"] != true || v["required_action"] != "Lift" {
                continue;
            }
            let fen = v["fen"].as_str().unwrap();
            for side in [" w ", " b "] {
                let Ok(pos) = fen.replacen(" w ", side, 1).replacen(" b ", side, 1).parse::<Position>() else { continue };
                let exhaustive = threatened_squares_exhaustive(&pos);
                let eager = chain_threats_with(lifted_lone_pieces(&pos), false, Goals::NONE, 0);
                assert_eq!(eager, exhaustive, "{}", pos.fen());
                // The bound itself, not only the answer it must not cut
                // short (a ceiling below it can still end with every square
                // found, where the last state walked holds the rest).
                let below = exhaustive & !ceiling_of(&lifted_lone_pieces(&pos));
                assert_eq!(below, 0, "{}: the ceiling leaves out {:?}", pos.fen(), names(below));
                checked += 1;
            }
        }
        assert!(checked > 150, "{checked}");
    }

    /// The ceiling as `chain_threats_with` computes it from its starting
    /// states (none: no bound).
    fn ceiling_of(stack: &[Position]) -> u64 {
        ceiling_inputs(stack).map_or(u64::MAX, |(first, starts, start_kinds)| threat_ceiling(&first, starts, start_kinds))
    }

    fn squares(list: &str) -> u64 {
        list.split_whitespace().fold(0, |b, s| b | Square::parse(s).unwrap().bb())
    }

    fn names(squares: u64) -> Vec<String> {
        BitBoard(squares).map(|s| s.to_string()).collect()
    }

    /// The relaxation's squares, worked out by hand on boards small enough
    /// to follow (a looser ceiling costs only time, a tighter one answers
    /// wrongly; both are caught here):
    /// - The rook a1 (lifted; e1's king blocks its rank) enters the union on
    ///   a5 (a black pawn with the white knight) and may then stand there in
    ///   hand, as the released knight may: the rook's rays from a1 and a5, the
    ///   knight's squares from a5. The king's square is no union to enter.
    /// - The pawn d4 enters the union on e5 (not its last rank: no
    ///   promotion), which releases the knight: the pawn's diagonals from d4
    ///   and e5, the knight's squares from e5.
    /// - The pawn b7 enters the union on a8 (its last rank) and releases the
    ///   knight there; the pawn promotes, so a queen, rook, bishop or knight
    ///   may stand in a8 and be in hand there: every kind's squares from a8,
    ///   the pawn's diagonals from b7.
    /// - Mid-turn, the rook in hand above a8 with the pawn's promotion there
    ///   pending: it enters the union on a5 and releases the rook there,
    ///   which enters a8 and releases the promoted piece, any of the four; a
    ///   queen released there could enter a5 in turn, so its rays from a5
    ///   (the diagonal to e1) count too.
    /// - Mid-turn, the king in hand above e1 under the official rules: a
    ///   king enters no union, so it starts no chain and threatens nothing
    ///   (the knight in the union on e2 stays there).
    #[test]
    fn the_ceiling_is_the_relaxations_squares() {
        let lifted = |fen: &str| lifted_lone_pieces(&fen.parse::<Position>().unwrap());
        let in_hand = |fen: &str| vec![fen.parse::<Position>().unwrap()];
        let cases = [
            (lifted("7k/8/8/d7/8/8/8/R3K3 w 0 - - -"), "a1 a2 a3 a4 a5 a6 a7 a8 b1 c1 d1 e1 b5 c5 d5 e5 f5 g5 h5 b7 c6 c4 b3"),
            (lifted("7k/8/8/4d3/3P4/8/8/K7 w 0 - - -"), "c5 e5 d6 f6 d7 f7 c6 g6 c4 g4 d3 f3"),
            (lifted("o7/1P6/7k/8/8/8/8/4K3 w 0 - - -"), "a8 c8 b6 c7 a1 a2 a3 a4 a5 a6 a7 b8 d8 e8 f8 g8 h8 b7 c6 d5 e4 f3 g2 h1"),
            (
                in_hand("D7/8/7k/c7/8/8/8/4K3^a8R w 0 - - -"),
                "a1 a2 a3 a4 a5 a6 a7 a8 b8 c8 d8 e8 f8 g8 h8 b5 c5 d5 e5 f5 g5 h5 b7 c6 e4 f3 g2 h1 b6 c7 b4 c3 d2 e1",
            ),
            (in_hand("7k/8/8/8/8/8/4d3/8^e1K w 0 - - -"), ""),
        ];
        for (stack, expected) in cases {
            let got = ceiling_of(&stack);
            assert_eq!(names(got), names(squares(expected)), "{}", stack[0].fen());
        }
    }

    /// Small positions where one chain decides the answer: the rook enters
    /// the union on a5 and releases the knight, whose squares (b7, c6, c4,
    /// b3) only a ceiling that follows the union can bound. With the ceiling
    /// computed before the first state, the search must still find them.
    /// In the last one every square the rook reaches is a union, so the
    /// chains go on only through the pieces it releases there.
    #[test]
    fn the_ceiling_follows_chains_through_unions() {
        for fen in ["7k/8/8/d7/8/8/8/R3K3 w 0 - - -", "7k/8/8/d1d5/8/8/8/R3K3 w 0 - - -", "r3k3/8/8/D7/8/8/8/7K b 0 - - -", "7k/8/8/8/8/8/d7/Rs2K3 w 0 - - -"] {
            let pos: Position = fen.parse().unwrap();
            let exhaustive = threatened_squares_exhaustive(&pos);
            let eager = chain_threats_with(lifted_lone_pieces(&pos), false, Goals::NONE, 0);
            assert_eq!(eager, exhaustive, "{fen}");
        }
        let pos: Position = "7k/8/8/d7/8/8/8/R3K3 w 0 - - -".parse().unwrap();
        let knight = ["b7", "c6", "c4", "b3"].iter().fold(0, |b, s| b | Square::parse(s).unwrap().bb());
        assert_eq!(threatened_squares_exhaustive(&pos) & knight, knight);
    }

    /// The chains start from each lone piece of the mover, the king aside:
    /// never from a union, an opponent's piece or an empty square.
    #[test]
    fn each_lone_piece_but_the_king_starts_one_chain() {
        let lifted = |fen: &str| -> Vec<String> {
            let pos: Position = fen.parse().unwrap();
            lifted_lone_pieces(&pos)
                .iter()
                .map(|s| match s.hand {
                    Hand::Single { kind, from } => format!("{kind:?}{from}"),
                    other => panic!("{fen}: {other:?} lifted"),
                })
                .collect()
        };
        assert_eq!(lifted("7k/8/8/d7/8/8/8/R3K3 w 0 - - -"), ["Rooka1"]);
        assert_eq!(lifted("r3k3/8/8/D7/8/8/8/7K b 0 - - -"), ["Rooka8"]);
        let start = lifted(&Position::startpos().fen());
        assert_eq!(start.len(), 15, "{start:?}");
        assert!(!start.iter().any(|s| s.ends_with("e1")), "{start:?}");
    }
}
