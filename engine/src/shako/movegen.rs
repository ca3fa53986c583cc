//! Legal move generation and perft.
//!
//! Moves are generated pseudo-legally and each one is checked by asking
//! whether the own king is attacked on the board after it, with the changed
//! occupancy (cannons make pins unreliable: a piece moving *onto* a line can
//! become a screen and expose its king, and removing a screen can discover a
//! check). The check is skipped when it cannot matter: the side to move is not
//! in check, the move is not by the king, and neither its from- nor its
//! to-square lies on a line from the king that holds an enemy slider or
//! cannon able to attack along it. Only such lines can change what attacks
//! the king; leapers' and pawns' attacks depend only on their own squares.
//!
//! Castling follows Fairy-Stockfish: not out of check, the squares between
//! king and rook empty, the squares the king crosses and lands on not attacked
//! on the current board, and the landing square not attacked once the rook
//! has left its square.

use super::geometry::{
    bishop_attacks, cannon_moves, rook_attacks, Bb128, Square10, BISHOP_DIRECTIONS, ELEPHANT, KING, KNIGHT, PAWN_ATTACKS, RAYS, ROOK_DIRECTIONS,
};
use super::moves::{Move, MoveKind};
use super::position::{Kind, Position, CASTLING_PATHS};
use crate::types::Color;

/// Where generated moves go: a list, a counter, or a test that may stop
/// the generation early.
pub(super) trait MoveSink {
    fn push(&mut self, m: Move);
    /// `true` once the sink needs no more moves: generation stops at the
    /// next piece kind (lists and counters never are).
    #[inline(always)]
    fn done(&self) -> bool {
        false
    }
}

impl MoveSink for Vec<Move> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        Vec::push(self, m);
    }
}

struct Counter(u64);

impl MoveSink for Counter {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
}

/// Whether any move was generated (stops at the first).
struct Any(bool);

impl MoveSink for Any {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 = true;
    }

    #[inline(always)]
    fn done(&self) -> bool {
        self.0
    }
}

/// The per-position context of one generation.
struct Gen<'a> {
    pos: &'a Position,
    them: Color,
    occ: Bb128,
    king: Square10,
    /// Squares whose change of occupancy may expose the king (all when in check).
    lines: Bb128,
}

impl Gen<'_> {
    /// Whether the own king is safe after a non-king move from `from` to `to`
    /// (capturing whatever stands on `to`).
    #[inline(always)]
    fn safe(&self, from: Square10, to: Square10) -> bool {
        if ((from.bb() | to.bb()) & self.lines).is_empty() {
            return true;
        }
        let occ = (self.occ ^ from.bb()) | to.bb();
        !self.pos.is_attacked(self.king, self.them, occ, to.bb())
    }

    #[inline(always)]
    fn piece_moves<S: MoveSink>(&self, from: Square10, targets: Bb128, sink: &mut S) {
        for to in targets {
            if self.safe(from, to) {
                sink.push(Move::new(from, to, MoveKind::Normal));
            }
        }
    }
}

impl Position {
    /// The legal moves (in generation order; sort if needed).
    pub fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        self.generate(out);
    }

    pub fn legal_moves_vec(&self) -> Vec<Move> {
        let mut v = Vec::with_capacity(128);
        self.generate(&mut v);
        v
    }

    /// Number of legal moves, without listing them.
    pub fn count_legal_moves(&self) -> u64 {
        let mut c = Counter(0);
        self.generate(&mut c);
        c.0
    }

    /// Whether the side to move has a legal move (`count_legal_moves() > 0`,
    /// stopping at the first piece kind that has one: king steps first).
    pub fn has_legal_move(&self) -> bool {
        let mut any = Any(false);
        self.generate(&mut any);
        any.0
    }

    /// Lines from `king` (to the board's edge) that hold an enemy piece able
    /// to attack along them: rooks, queens and cannons orthogonally, bishops
    /// and queens diagonally.
    pub(super) fn exposed_lines(&self, king: Square10, them: Color) -> Bb128 {
        let queens = self.pieces(them, Kind::Queen);
        let orth = self.pieces(them, Kind::Rook) | self.pieces(them, Kind::Cannon) | queens;
        let diag = self.pieces(them, Kind::Bishop) | queens;
        let mut lines = Bb128::EMPTY;
        for d in ROOK_DIRECTIONS {
            let ray = RAYS[d][king.index()];
            if !(ray & orth).is_empty() {
                lines |= ray;
            }
        }
        for d in BISHOP_DIRECTIONS {
            let ray = RAYS[d][king.index()];
            if !(ray & diag).is_empty() {
                lines |= ray;
            }
        }
        lines
    }

    /// Every legal move into `sink`, king steps first; stops early, between
    /// piece kinds, once the sink is [`MoveSink::done`].
    pub(super) fn generate<S: MoveSink>(&self, sink: &mut S) {
        let us = self.side_to_move();
        let them = us.other();
        let own = self.color_bb(us);
        let enemy = self.color_bb(them);
        let occ = own | enemy;
        let king = self.king_square(us);
        let in_check = self.is_attacked(king, them, occ, Bb128::EMPTY);
        let lines = if in_check { Bb128::ALL } else { self.exposed_lines(king, them) };
        let g = Gen { pos: self, them, occ, king, lines };

        // King steps: the destination must not be attacked once the king has left its square.
        let without_king = occ ^ king.bb();
        for to in KING[king.index()] & !own {
            if !self.is_attacked(to, them, without_king, to.bb()) {
                sink.push(Move::new(king, to, MoveKind::Normal));
            }
        }
        if sink.done() {
            return;
        }
        if !in_check {
            self.castlings(us, occ, sink);
        }

        for from in self.pieces(us, Kind::Knight) {
            g.piece_moves(from, KNIGHT[from.index()] & !own, sink);
        }
        for from in self.pieces(us, Kind::Elephant) {
            g.piece_moves(from, ELEPHANT[from.index()] & !own, sink);
        }
        if sink.done() {
            return;
        }
        let queens = self.pieces(us, Kind::Queen);
        for from in self.pieces(us, Kind::Bishop) | queens {
            g.piece_moves(from, bishop_attacks(from, occ) & !own, sink);
        }
        for from in self.pieces(us, Kind::Rook) | queens {
            g.piece_moves(from, rook_attacks(from, occ) & !own, sink);
        }
        if sink.done() {
            return;
        }
        for from in self.pieces(us, Kind::Cannon) {
            let (quiet, hops) = cannon_moves(from, occ);
            g.piece_moves(from, quiet | (hops & enemy), sink);
        }
        if sink.done() {
            return;
        }
        self.pawn_moves(&g, us, enemy, sink);
    }

    fn castlings<S: MoveSink>(&self, us: Color, occ: Bb128, sink: &mut S) {
        let them = us.other();
        for path in &CASTLING_PATHS[us.index()] {
            if self.castling_rights() & path.right == 0 || !(occ & path.empty).is_empty() {
                continue;
            }
            if { path.safe }.any(|s| self.is_attacked(s, them, occ, Bb128::EMPTY)) {
                continue;
            }
            // With the rook gone, an enemy piece behind it may see the landing square.
            if self.is_attacked(path.king_to, them, occ ^ path.rook_from.bb(), Bb128::EMPTY) {
                continue;
            }
            sink.push(Move::new(path.king_from, path.king_to, MoveKind::Castle));
        }
    }

    fn pawn_moves<S: MoveSink>(&self, g: &Gen, us: Color, enemy: Bb128, sink: &mut S) {
        let pawns = self.pieces(us, Kind::Pawn);
        let empty = !g.occ;
        let not_a = !Bb128::file(0);
        let not_j = !Bb128::file(9);
        // Shifts towards the opponent, and the rank reached by a first single step from the third rank.
        let (single, west, east, third_plus_one, last) = match us {
            Color::White => {
                (Bb128(pawns.0 << 10) & empty, Bb128((pawns & not_a).0 << 9) & enemy, Bb128((pawns & not_j).0 << 11) & enemy, Bb128::rank(3), Bb128::rank(9))
            }
            Color::Black => {
                (Bb128(pawns.0 >> 10) & empty, Bb128((pawns & not_a).0 >> 11) & enemy, Bb128((pawns & not_j).0 >> 9) & enemy, Bb128::rank(6), Bb128::rank(0))
            }
        };
        let double = match us {
            Color::White => Bb128((single & third_plus_one).0 << 10) & empty,
            Color::Black => Bb128((single & third_plus_one).0 >> 10) & empty,
        };
        // `from = to - delta` for White, `to + delta` for Black.
        let back = |to: Square10, delta: u8| match us {
            Color::White => Square10::new(to.index() as u8 - delta),
            Color::Black => Square10::new(to.index() as u8 + delta),
        };
        for (targets, delta) in [(single, 10), (west, if us == Color::White { 9 } else { 11 }), (east, if us == Color::White { 11 } else { 9 })] {
            for to in targets & !last {
                let from = back(to, delta);
                if g.safe(from, to) {
                    sink.push(Move::new(from, to, MoveKind::Normal));
                }
            }
            for to in targets & last {
                let from = back(to, delta);
                if g.safe(from, to) {
                    for k in Kind::PROMOTIONS {
                        sink.push(Move::new(from, to, MoveKind::Promotion(k)));
                    }
                }
            }
        }
        for to in double {
            let from = back(to, 20);
            if g.safe(from, to) {
                sink.push(Move::new(from, to, MoveKind::DoublePush));
            }
        }
        if let Some(ep) = self.en_passant() {
            for from in PAWN_ATTACKS[us.other().index()][ep.index()] & pawns {
                let captured = Square10::from_file_rank(ep.file(), from.rank());
                let occ = (g.occ ^ from.bb() ^ captured.bb()) | ep.bb();
                if !self.is_attacked(g.king, g.them, occ, captured.bb()) {
                    sink.push(Move::new(from, ep, MoveKind::EnPassant));
                }
            }
        }
    }

    /// Number of move sequences of length `depth` (leaves of the legal move tree).
    pub fn perft(&self, depth: u32) -> u64 {
        let mut buffers: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(128)).collect();
        perft_rec(self, depth, &mut buffers)
    }

    /// Perft below each legal move, in generation order.
    pub fn divide(&self, depth: u32) -> Vec<(Move, u64)> {
        assert!(depth >= 1, "divide needs depth >= 1");
        let mut buffers: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(128)).collect();
        self.legal_moves_vec()
            .into_iter()
            .map(|m| {
                let mut child = *self;
                child.play_unchecked(m);
                (m, perft_rec(&child, depth - 1, &mut buffers))
            })
            .collect()
    }
}

fn perft_rec(pos: &Position, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
            pos.legal_moves(moves);
            let mut total = 0;
            for &m in moves.iter() {
                let mut child = *pos;
                child.play_unchecked(m);
                total += perft_rec(&child, depth - 1, rest);
            }
            total
        }
    }
}
