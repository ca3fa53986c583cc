//! Start positions: the standard setup and the 960 Fischer-random setups.

use super::setup::Setup;
use super::{Castling, Position, Rules};
use crate::types::{Color, PieceKind, Square};

/// The back rank of Fischer-random setup `n` (0..960, Scharnagl numbering;
/// 518 is the standard `RNBQKBNR`).
pub fn fischer_random_back_rank(n: u16) -> [PieceKind; 8] {
    assert!(n < 960, "Fischer-random setups are numbered 0..960");
    let mut rank: [Option<PieceKind>; 8] = [None; 8];
    let mut n = n as usize;
    // Light-squared bishop on b, d, f or h; dark-squared bishop on a, c, e or g.
    rank[n % 4 * 2 + 1] = Some(PieceKind::Bishop);
    n /= 4;
    rank[n % 4 * 2] = Some(PieceKind::Bishop);
    n /= 4;
    let place_in_free = |rank: &mut [Option<PieceKind>; 8], nth: usize, k: PieceKind| {
        let idx = (0..8).filter(|&i| rank[i].is_none()).nth(nth).expect("free square");
        rank[idx] = Some(k);
    };
    place_in_free(&mut rank, n % 6, PieceKind::Queen);
    n /= 6;
    // The ten ways to put two knights on the five remaining squares.
    const KNIGHTS: [(usize, usize); 10] = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
    let (a, b) = KNIGHTS[n];
    place_in_free(&mut rank, b, PieceKind::Knight);
    place_in_free(&mut rank, a, PieceKind::Knight);
    // Rook, king, rook on what is left, in that order.
    for k in [PieceKind::Rook, PieceKind::King, PieceKind::Rook] {
        place_in_free(&mut rank, 0, k);
    }
    rank.map(|k| k.expect("all squares filled"))
}

/// A start position with the given back rank (mirrored for Black), pawns on
/// ranks 2 and 7, and full castling rights with the outer rooks.
pub fn position_with_back_rank(back: [PieceKind; 8], rules: Rules) -> Position {
    Position::from_setup(&setup_with_back_rank(back), rules).expect("a start position is valid")
}

/// The setup of [`position_with_back_rank`].
pub fn setup_with_back_rank(back: [PieceKind; 8]) -> Setup {
    let mut s = Setup::empty();
    for (file, &k) in back.iter().enumerate() {
        let f = file as u8;
        s.put(Color::White, k, Square::from_file_rank(f, 0));
        s.put(Color::White, PieceKind::Pawn, Square::from_file_rank(f, 1));
        s.put(Color::Black, PieceKind::Pawn, Square::from_file_rank(f, 6));
        s.put(Color::Black, k, Square::from_file_rank(f, 7));
    }
    let king = back.iter().position(|&k| k == PieceKind::King).expect("a king") as u8;
    let rooks: Vec<u8> = back.iter().enumerate().filter(|(_, &k)| k == PieceKind::Rook).map(|(i, _)| i as u8).collect();
    let mut c = Castling::NONE;
    c.king_file = [king; 2];
    for color in 0..2 {
        c.rook_file[color] = [rooks[0], rooks[1]];
    }
    c.mask = 0b1111;
    s.castling = c;
    s
}

/// Fischer-random setup `n` (0..960).
pub fn fischer_random(n: u16, rules: Rules) -> Position {
    position_with_back_rank(fischer_random_back_rank(n), rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_518_is_the_standard_position() {
        let p = fischer_random(518, Rules::OFFICIAL);
        assert_eq!(p.fen(), super::super::STARTPOS_FEN);
        assert_eq!(p.hash(), Position::startpos().hash());
    }

    #[test]
    fn all_960_setups_are_distinct_and_valid() {
        let mut seen = std::collections::HashSet::new();
        for n in 0..960 {
            let r = fischer_random_back_rank(n);
            let king = r.iter().position(|&k| k == PieceKind::King).unwrap();
            let rooks: Vec<usize> = (0..8).filter(|&i| r[i] == PieceKind::Rook).collect();
            assert!(rooks[0] < king && king < rooks[1], "setup {n}: king between rooks");
            let bishops: Vec<usize> = (0..8).filter(|&i| r[i] == PieceKind::Bishop).collect();
            assert_ne!(bishops[0] % 2, bishops[1] % 2, "setup {n}: bishops on both colours");
            assert!(seen.insert(r));
            let p = fischer_random(n, Rules::OFFICIAL);
            // The FEN round-trips, castling rights included.
            let back: Position = p.fen().parse().unwrap();
            assert_eq!(back, p, "setup {n}: {}", p.fen());
            assert!(!p.actions().is_empty());
        }
    }
}
