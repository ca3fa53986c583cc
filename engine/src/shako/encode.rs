//! The network's view of Shako: the policy index of each move and the input
//! planes, both in the mover's frame (ranks mirrored when Black is to move,
//! so the mover's pawns always advance towards rank 10).
//!
//! # Policy: 3,656 slots
//!
//! Squares below are in the mover's frame (`sq' = sq` for White, rank
//! mirrored for Black; a1 = 0 … j10 = 99).
//!
//! | slots | moves | index |
//! |---|---|---|
//! | 0–3,515 | every (from, to) pair joined by a queen line (any distance) or a knight jump on the empty 10x10 board: 1,800 orthogonal + 1,140 diagonal + 576 knight pairs | ordered by `from'`, then `to'` |
//! | 3,516–3,655 | under-promotions: 28 pawn steps from rank 9 to rank 10 (straight or diagonal) × 5 pieces `R B N E C` | `3516 + step * 5 + piece`; steps ordered by from-file, then to-file |
//!
//! Every Shako move fits a slot: rook, bishop, queen, cannon and king moves
//! are queen lines, elephant leaps are diagonal lines of length 1 or 2,
//! castling is the king's two-square line move (`f2h2`, `f2d2`), pawn moves
//! (double steps, captures, en passant) are lines too. A promotion to a queen
//! uses its plain (from, to) slot; the other promotions use the under-promotion
//! slots. A slot's move is decided by the piece on its from-square (see
//! [`move_from_action`]).
//!
//! # Policy planes: 95 planes of 100 squares
//!
//! A convolutional policy head ([`policy_planes`], `net.policy_head =
//! "conv"`) writes 95 planes over the board, AlphaZero's layout of chess
//! moves on 10x10: a move is the square it starts from (`from'`) on the
//! plane of its direction and distance.
//!
//! | planes | moves |
//! |---|---|
//! | 0–71 | queen lines: `direction * 9 + distance - 1`, directions N NE E SE S SW W NW (of the mover's frame), distances 1–9 |
//! | 72–79 | knight jumps (file, rank): (1, 2) (2, 1) (2, −1) (1, −2) (−1, −2) (−2, −1) (−2, 1) (−1, 2) |
//! | 80–94 | under-promotions: `80 + (to-file − from-file + 1) * 5 + piece`, pieces R B N E C |
//!
//! # Input: 19 bit planes, 4 scalars
//!
//! Each plane is 100 bits in two `u64` words (square `i = rank * 10 + file`
//! of the mover's frame is bit `i % 64` of word `i / 64`).
//!
//! | plane | content |
//! |---|---|
//! | 0–7 | mover's pieces by kind: P N B R Q K E C |
//! | 8–15 | opponent's pieces by kind |
//! | 16 | en-passant square |
//! | 17 | mover's rooks that may still castle |
//! | 18 | opponent's rooks that may still castle |
//!
//! | scalar | content |
//! |---|---|
//! | 0 | 1 when Black is to move (the frame hides it otherwise) |
//! | 1 | half-moves since the last capture or pawn move / 100 (the 50-move rule) |
//! | 2 | 1 when the position occurred before (a third occurrence draws) |
//! | 3 | constant 1 (lets convolutions see the board edge) |
//!
//! # Input `threats`: 30 bit planes, 5 scalars
//!
//! The second encoding ([`THREATS_ENCODING`], `net.encoding = "threats"`):
//! the 19 planes and 4 scalars above, then what the pieces attack and where
//! checks come from, as Paco Ŝako's reach planes show its threats. A small
//! network would need many games to learn to see a cannon's screen or a
//! long diagonal; with these planes it reads them off the board.
//!
//! | plane | content |
//! |---|---|
//! | 0–18 | as above |
//! | 19 | squares the mover's pieces attack |
//! | 20 | squares two or more of the mover's pieces attack |
//! | 21 | squares the opponent's pieces attack |
//! | 22 | squares two or more of the opponent's pieces attack |
//! | 23 | the opponent's pieces giving check to the mover's king |
//! | 24–29 | check squares: where a mover's pawn, knight, elephant, diagonal piece (bishop, queen), orthogonal piece (rook, queen) or cannon would attack the opponent's king on this board |
//!
//! | scalar | content |
//! |---|---|
//! | 0–3 | as above |
//! | 4 | 1 when the mover is in check |
//!
//! A square is attacked by a side when a piece of the other side standing
//! there could be captured, pins aside ([`Position::attackers`]): the
//! squares a piece defends count, a pawn attacks its two forward diagonals
//! (not the squares it pushes to), a slider stops at the first piece in its
//! way, a cannon attacks the squares beyond its screen up to and including
//! the next piece. The check squares follow the same geometry from the
//! opponent's king.

use super::geometry::{bishop_attacks, rook_attacks, Bb128, Square10, ELEPHANT, KING, KNIGHT, PAWN_ATTACKS, RAYS, ROOK_DIRECTIONS};
use super::moves::{Move, MoveKind};
use super::position::{Kind, Position, CASTLING_PATHS};
use crate::types::Color;

/// Whether (from, to) is a queen line or a knight jump.
const fn is_slot(from: usize, to: usize) -> bool {
    let df = (to % 10) as i32 - (from % 10) as i32;
    let dr = (to / 10) as i32 - (from / 10) as i32;
    let (df, dr) = (df.abs(), dr.abs());
    (df != 0 || dr != 0) && (df == 0 || dr == 0 || df == dr || (df == 1 && dr == 2) || (df == 2 && dr == 1))
}

const fn count_slots() -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < 10_000 {
        if is_slot(i / 100, i % 100) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// Slots of plain (from, to) moves.
pub const NUM_MOVE_SLOTS: usize = count_slots();
/// Pieces of the under-promotion slots, in slot order.
pub const UNDER_PROMOTIONS: [Kind; 5] = [Kind::Rook, Kind::Bishop, Kind::Knight, Kind::Elephant, Kind::Cannon];
/// Pawn steps from rank 9 to rank 10: 10 straight + 18 diagonal.
const NUM_PROMOTION_STEPS: usize = 28;
/// Size of the policy.
pub const NUM_ACTIONS: usize = NUM_MOVE_SLOTS + NUM_PROMOTION_STEPS * UNDER_PROMOTIONS.len();

const NO_SLOT: u16 = u16::MAX;

/// `SLOT_OF[from' * 100 + to']`: the slot of a plain move, or `NO_SLOT`.
static SLOT_OF: [u16; 10_000] = {
    let mut t = [NO_SLOT; 10_000];
    let mut n = 0;
    let mut i = 0;
    while i < 10_000 {
        if is_slot(i / 100, i % 100) {
            t[i] = n;
            n += 1;
        }
        i += 1;
    }
    t
};

/// `SLOT_MOVE[slot] = (from', to')`.
static SLOT_MOVE: [(u8, u8); NUM_MOVE_SLOTS] = {
    let mut t = [(0u8, 0u8); NUM_MOVE_SLOTS];
    let mut n = 0;
    let mut i = 0;
    while i < 10_000 {
        if is_slot(i / 100, i % 100) {
            t[n] = ((i / 100) as u8, (i % 100) as u8);
            n += 1;
        }
        i += 1;
    }
    t
};

/// Index of a promotion step among the 28 (from-file, to-file) pairs.
const fn promotion_step(from_file: u8, to_file: u8) -> usize {
    if from_file == 0 {
        to_file as usize
    } else {
        3 * from_file as usize - 1 + (to_file + 1 - from_file) as usize
    }
}

/// The (from-file, to-file) of a promotion step.
const fn promotion_files(step: usize) -> (u8, u8) {
    if step < 2 {
        (0, step as u8)
    } else {
        let from = ((step + 1) / 3) as u8;
        let to = (step + 1 - 3 * from as usize) as u8 + from - 1;
        (from, to)
    }
}

/// Planes of the convolutional policy head (the module docs' table).
pub const NUM_POLICY_PLANES: usize = 95;

/// Knight jumps (file, rank) in the order of their planes (72–79).
const KNIGHT_JUMPS: [(i32, i32); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];

/// The policy plane of a plain move from `from'` to `to'` (a queen line or
/// a knight jump).
fn move_plane(from: usize, to: usize) -> usize {
    let df = (to % 10) as i32 - (from % 10) as i32;
    let dr = (to / 10) as i32 - (from / 10) as i32;
    if let Some(k) = KNIGHT_JUMPS.iter().position(|&j| j == (df, dr)) {
        return 72 + k;
    }
    // N NE E SE S SW W NW.
    const DIRECTIONS: [(i32, i32); 8] = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];
    let d = DIRECTIONS.iter().position(|&d| d == (df.signum(), dr.signum())).expect("a queen line");
    d * 9 + df.abs().max(dr.abs()) as usize - 1
}

/// The action indices as the planes of a convolutional policy head (the
/// module docs' table): each action is its from-square on the plane of its
/// direction and distance.
pub fn policy_planes() -> crate::game::PolicyPlanes {
    let mut slots = Vec::with_capacity(NUM_ACTIONS);
    for &(from, to) in SLOT_MOVE.iter() {
        slots.push((move_plane(from as usize, to as usize) as u16, Some(from as u16)));
    }
    for step in 0..NUM_PROMOTION_STEPS {
        let (ff, tf) = promotion_files(step);
        let from = Square10::from_file_rank(ff, 8).index() as u16;
        for piece in 0..UNDER_PROMOTIONS.len() {
            slots.push(((80 + (tf + 1 - ff) as usize * UNDER_PROMOTIONS.len() + piece) as u16, Some(from)));
        }
    }
    crate::game::PolicyPlanes { planes: NUM_POLICY_PLANES, slots }
}

#[inline(always)]
fn orient(sq: Square10, mover: Color) -> Square10 {
    match mover {
        Color::White => sq,
        Color::Black => sq.flip_rank(),
    }
}

/// The policy index of a move played by `mover`.
pub fn action_index(m: Move, mover: Color) -> usize {
    let (from, to) = (orient(m.from(), mover), orient(m.to(), mover));
    match m.promotion() {
        Some(k) if k != Kind::Queen => {
            let piece = UNDER_PROMOTIONS.iter().position(|&u| u == k).expect("a promotion piece");
            NUM_MOVE_SLOTS + promotion_step(from.file(), to.file()) * UNDER_PROMOTIONS.len() + piece
        }
        _ => {
            let slot = SLOT_OF[from.index() * 100 + to.index()];
            debug_assert_ne!(slot, NO_SLOT, "{m} has no slot");
            slot as usize
        }
    }
}

/// The move of a policy index in a position, judged by the piece on its
/// from-square; `None` when the index is out of range or no piece of the
/// side to move stands there. The move is not checked for legality.
pub fn move_from_action(pos: &Position, index: usize) -> Option<Move> {
    let mover = pos.side_to_move();
    if index >= NUM_ACTIONS {
        return None;
    }
    if index >= NUM_MOVE_SLOTS {
        let rem = index - NUM_MOVE_SLOTS;
        let (ff, tf) = promotion_files(rem / UNDER_PROMOTIONS.len());
        let from = orient(Square10::from_file_rank(ff, 8), mover);
        let to = orient(Square10::from_file_rank(tf, 9), mover);
        pos.piece_at(from).filter(|p| p.color == mover && p.kind == Kind::Pawn)?;
        return Some(Move::new(from, to, MoveKind::Promotion(UNDER_PROMOTIONS[rem % UNDER_PROMOTIONS.len()])));
    }
    let (f, t) = SLOT_MOVE[index];
    let from = orient(Square10::new(f), mover);
    let to = orient(Square10::new(t), mover);
    let piece = pos.piece_at(from).filter(|p| p.color == mover)?;
    let kind = match piece.kind {
        Kind::Pawn => {
            if orient(to, mover).rank() == 9 {
                MoveKind::Promotion(Kind::Queen)
            } else if from.rank().abs_diff(to.rank()) == 2 {
                MoveKind::DoublePush
            } else if from.file() != to.file() && pos.en_passant() == Some(to) {
                MoveKind::EnPassant
            } else {
                MoveKind::Normal
            }
        }
        Kind::King if from.file().abs_diff(to.file()) == 2 => MoveKind::Castle,
        _ => MoveKind::Normal,
    };
    Some(Move::new(from, to, kind))
}

/// Planes of the input encoding.
pub const NUM_BIT_PLANES: usize = 19;
/// Scalars of the input encoding.
pub const NUM_SCALARS: usize = 4;
/// The encoding [`encode`] writes: the tables of the module docs, by name.
pub const ENCODING: crate::game::Encoding = crate::game::Encoding {
    name: crate::game::DEFAULT_ENCODING,
    version: 1,
    bit_planes: &[
        "mover_pawns",
        "mover_knights",
        "mover_bishops",
        "mover_rooks",
        "mover_queens",
        "mover_king",
        "mover_elephants",
        "mover_cannons",
        "opponent_pawns",
        "opponent_knights",
        "opponent_bishops",
        "opponent_rooks",
        "opponent_queens",
        "opponent_king",
        "opponent_elephants",
        "opponent_cannons",
        "en_passant",
        "mover_castling_rooks",
        "opponent_castling_rooks",
    ],
    scalars: &["black_to_move", "half_moves_since_capture_or_pawn_per_100", "repeated", "constant_one"],
};

/// Bit planes of the `threats` encoding.
pub const THREATS_BIT_PLANES: usize = 30;
/// Scalars of the `threats` encoding.
pub const THREATS_SCALARS: usize = 5;
/// The `threats` encoding [`encode_threats`] writes: [`ENCODING`]'s inputs,
/// then the attack and check planes (the module docs' table), by name.
pub const THREATS_ENCODING: crate::game::Encoding = crate::game::Encoding {
    name: "threats",
    version: 1,
    bit_planes: &[
        "mover_pawns",
        "mover_knights",
        "mover_bishops",
        "mover_rooks",
        "mover_queens",
        "mover_king",
        "mover_elephants",
        "mover_cannons",
        "opponent_pawns",
        "opponent_knights",
        "opponent_bishops",
        "opponent_rooks",
        "opponent_queens",
        "opponent_king",
        "opponent_elephants",
        "opponent_cannons",
        "en_passant",
        "mover_castling_rooks",
        "opponent_castling_rooks",
        "mover_attacks",
        "mover_attacks_twice",
        "opponent_attacks",
        "opponent_attacks_twice",
        "checking_pieces",
        "pawn_check_squares",
        "knight_check_squares",
        "elephant_check_squares",
        "diagonal_check_squares",
        "orthogonal_check_squares",
        "cannon_check_squares",
    ],
    scalars: &["black_to_move", "half_moves_since_capture_or_pawn_per_100", "repeated", "constant_one", "mover_in_check"],
};

/// The policy's action indices in words (the module docs' table).
pub const ACTION_LAYOUT: &str = "3656 slots in the mover's frame (square a1 = 0 ... j10 = 99, rank * 10 + file, ranks mirrored when Black is to move): \
     0-3515 every (from, to) pair joined by a queen line or a knight jump on the empty board, ordered by from, then to \
     (a queen promotion uses its plain slot); 3516-3655 under-promotions 3516 + step * 5 + piece, \
     28 pawn steps from rank 9 to rank 10 ordered by from-file then to-file, pieces R B N E C";

/// `u64` words per bit plane (`ceil(100 / 64)`).
pub const WORDS_PER_PLANE: usize = 2;

/// Writes the input encoding: `planes` holds `NUM_BIT_PLANES * WORDS_PER_PLANE`
/// words, `scalars` `NUM_SCALARS` values. `repeated` says whether the position
/// occurred before in the game.
pub fn encode(pos: &Position, repeated: bool, planes: &mut [u64], scalars: &mut [f32]) {
    assert!(planes.len() >= NUM_BIT_PLANES * WORDS_PER_PLANE && scalars.len() >= NUM_SCALARS);
    let me = pos.side_to_move();
    let them = me.other();
    let frame = |b: Bb128| if me == Color::Black { b.flip_ranks() } else { b };
    let mut set = |plane: usize, b: Bb128| planes[plane * WORDS_PER_PLANE..(plane + 1) * WORDS_PER_PLANE].copy_from_slice(&frame(b).words());
    for kind in Kind::ALL {
        set(kind.index(), pos.pieces(me, kind));
        set(8 + kind.index(), pos.pieces(them, kind));
    }
    set(16, pos.en_passant().map_or(Bb128::EMPTY, Square10::bb));
    for (plane, color) in [(17, me), (18, them)] {
        let rooks = CASTLING_PATHS[color.index()].iter().filter(|p| pos.castling_rights() & p.right != 0).fold(Bb128::EMPTY, |b, p| b | p.rook_from.bb());
        set(plane, rooks);
    }
    scalars[0] = (me == Color::Black) as u8 as f32;
    scalars[1] = pos.halfmove_clock() as f32 / 100.0;
    scalars[2] = repeated as u8 as f32;
    scalars[3] = 1.0;
}

/// The squares a cannon on `sq` attacks: in each orthogonal direction, those
/// beyond the first piece (its screen) up to and including the next piece.
#[inline]
fn cannon_attacks(sq: Square10, occ: Bb128) -> Bb128 {
    let mut out = 0u128;
    for d in ROOK_DIRECTIONS {
        // The first four directions run up the square indices: their nearest
        // piece is the lowest bit, the others' the highest.
        let nearest = |bits: u128| if d < 4 { bits.trailing_zeros() as usize } else { 127 - bits.leading_zeros() as usize };
        let blockers = RAYS[d][sq.index()].0 & occ.0;
        if blockers == 0 {
            continue;
        }
        let beyond = RAYS[d][nearest(blockers)].0;
        let behind = beyond & occ.0;
        out |= if behind == 0 { beyond } else { beyond ^ RAYS[d][nearest(behind)].0 };
    }
    Bb128(out)
}

/// The squares `color`'s pieces attack, and those two or more of them
/// attack (see the module docs).
pub fn attack_maps(pos: &Position, color: Color) -> (Bb128, Bb128) {
    let occ = pos.occupied();
    let (mut once, mut twice) = (Bb128::EMPTY, Bb128::EMPTY);
    let mut add = |a: Bb128| {
        twice |= once & a;
        once |= a;
    };
    let p = |kind| pos.pieces(color, kind);
    // Pawns all at once, each diagonal a shift (off the a- or j-file first).
    const NOT_A: u128 = Bb128::ALL.0 & !Bb128::file(0).0;
    const NOT_J: u128 = Bb128::ALL.0 & !Bb128::file(9).0;
    let pawns = p(Kind::Pawn).0;
    let (west, east) = match color {
        Color::White => ((pawns & NOT_A) << 9, (pawns & NOT_J) << 11),
        Color::Black => ((pawns & NOT_A) >> 11, (pawns & NOT_J) >> 9),
    };
    add(Bb128(west & Bb128::ALL.0));
    add(Bb128(east & Bb128::ALL.0));
    for (kind, table) in [(Kind::Knight, &KNIGHT), (Kind::Elephant, &ELEPHANT), (Kind::King, &KING)] {
        for sq in p(kind) {
            add(table[sq.index()]);
        }
    }
    for sq in p(Kind::Bishop) {
        add(bishop_attacks(sq, occ));
    }
    for sq in p(Kind::Rook) {
        add(rook_attacks(sq, occ));
    }
    for sq in p(Kind::Queen) {
        add(bishop_attacks(sq, occ) | rook_attacks(sq, occ));
    }
    for sq in p(Kind::Cannon) {
        add(cannon_attacks(sq, occ));
    }
    (once, twice)
}

/// The check squares of the side to move (planes 24–29 of `threats`): for
/// a pawn, a knight, an elephant, a diagonal piece, an orthogonal piece and
/// a cannon of the mover, the squares from which it would attack the
/// opponent's king on this board.
pub fn check_squares(pos: &Position) -> [Bb128; 6] {
    let them = pos.side_to_move().other();
    let king = pos.king_square(them);
    let occ = pos.occupied();
    let k = king.index();
    // A mover's pawn attacks the king from where the king, were it a pawn, would attack.
    [PAWN_ATTACKS[them.index()][k], KNIGHT[k], ELEPHANT[k], bishop_attacks(king, occ), rook_attacks(king, occ), cannon_attacks(king, occ)]
}

/// Writes the `threats` encoding: `planes` holds `THREATS_BIT_PLANES *
/// WORDS_PER_PLANE` words, `scalars` `THREATS_SCALARS` values; the first
/// planes and scalars are [`encode`]'s.
pub fn encode_threats(pos: &Position, repeated: bool, planes: &mut [u64], scalars: &mut [f32]) {
    assert!(planes.len() >= THREATS_BIT_PLANES * WORDS_PER_PLANE && scalars.len() >= THREATS_SCALARS);
    encode(pos, repeated, planes, scalars);
    let me = pos.side_to_move();
    let frame = |b: Bb128| if me == Color::Black { b.flip_ranks() } else { b };
    let mut set = |plane: usize, b: Bb128| planes[plane * WORDS_PER_PLANE..(plane + 1) * WORDS_PER_PLANE].copy_from_slice(&frame(b).words());
    let (mine, mine_twice) = attack_maps(pos, me);
    let (theirs, theirs_twice) = attack_maps(pos, me.other());
    set(19, mine);
    set(20, mine_twice);
    set(21, theirs);
    set(22, theirs_twice);
    let checkers = pos.checkers();
    set(23, checkers);
    for (i, b) in check_squares(pos).into_iter().enumerate() {
        set(24 + i, b);
    }
    scalars[4] = (!checkers.is_empty()) as u8 as f32;
}

#[cfg(test)]
mod tests;
