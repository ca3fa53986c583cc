//! Standard algebraic notation (SAN) as Fairy-Stockfish writes it for
//! `shako`, for PGN: `e5`, `Nf4`, `Bxe7`, `exd6` (a pawn's capture names
//! its file), `e10=Q` (any of `Q R B N E C`), `O-O` (king f→h) and `O-O-O`
//! (king f→d), a piece named by its file, else its rank, else its square
//! when another of its kind could move to the same square (`Cab1`), then
//! `+` for check and `#` for mate. The PGN replay test checks every move of
//! exported games against pyffish's own SAN.

use super::moves::{Move, MoveKind};
use super::piece::Kind;
use super::position::Position;

impl Position {
    /// `m` (legal here) in standard algebraic notation (see the module docs).
    pub fn san(&self, m: Move) -> String {
        let mut s = String::new();
        let mover = self.piece_at(m.from()).map_or(Kind::Pawn, |p| p.kind);
        let capture = self.piece_at(m.to()).is_some() || m.kind() == MoveKind::EnPassant;
        if m.kind() == MoveKind::Castle {
            s.push_str(if m.to().file() > m.from().file() { "O-O" } else { "O-O-O" });
        } else if mover == Kind::Pawn {
            if capture {
                s.push((b'a' + m.from().file()) as char);
                s.push('x');
            }
            s.push_str(&m.to().to_string());
            if let Some(k) = m.promotion() {
                s.push('=');
                s.push(k.letter());
            }
        } else {
            s.push(mover.letter());
            // The others of its kind that could go to the same square.
            let others: Vec<Move> = self
                .legal_moves_vec()
                .into_iter()
                .filter(|o| o.to() == m.to() && o.from() != m.from() && self.piece_at(o.from()).map(|p| p.kind) == Some(mover))
                .collect();
            if !others.is_empty() {
                let file = (b'a' + m.from().file()) as char;
                let rank = (m.from().rank() + 1).to_string();
                if others.iter().all(|o| o.from().file() != m.from().file()) {
                    s.push(file);
                } else if others.iter().all(|o| o.from().rank() != m.from().rank()) {
                    s.push_str(&rank);
                } else {
                    s.push(file);
                    s.push_str(&rank);
                }
            }
            if capture {
                s.push('x');
            }
            s.push_str(&m.to().to_string());
        }
        let mut after = *self;
        after.play_unchecked(m);
        if after.in_check() {
            s.push(if after.legal_moves_vec().is_empty() { '#' } else { '+' });
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn san_of(fen: &str, uci: &str) -> String {
        let p: Position = fen.parse().unwrap();
        p.san(p.parse_uci(uci).unwrap())
    }

    #[test]
    fn moves_read_as_fairy_stockfish_writes_them() {
        // Pairs from pyffish 0.0.90's get_san on the same positions.
        let start = super::super::STARTPOS_FEN;
        for (uci, san) in [("e3e5", "e5"), ("h2g4", "Ng4"), ("a2c4", "Ec4"), ("a1b1", "Cab1"), ("j1i1", "Cji1"), ("e2d1", "Qd1"), ("f2g1", "Kg1")] {
            assert_eq!(san_of(start, uci), san, "{uci}");
        }
        let castle = "c8c/ernbqk2re/pppppppppp/10/10/10/10/PPPPPPPPPP/ER3K2RE/C8C w KQkq - 0 1";
        assert_eq!((san_of(castle, "f2h2"), san_of(castle, "f2d2")), ("O-O".to_string(), "O-O-O".to_string()));
        assert_eq!(san_of("9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1", "a2a10"), "Ra10#");
        assert_eq!(san_of("10/4P4k/10/10/10/10/10/10/5K4/10 w - - 0 1", "e9e10q"), "e10=Q");
        assert_eq!(san_of("10/4P4k/10/10/10/10/10/10/5K4/10 w - - 0 1", "e9e10c"), "e10=C");
        // A pawn's capture names its file; a check is marked.
        assert_eq!(san_of("9k/10/10/10/3p6/4P5/10/10/5K4/10 w - - 0 1", "e5d6"), "exd6");
        // Another piece of the kind reaching the same square: the file, else
        // the rank, else the square (pyffish 0.0.90 as well).
        let rooks = "9k/10/10/R7R1/10/10/10/R9/10/5K4 w - - 0 1";
        for (uci, san) in [("a7a5", "R7a5"), ("a3a5", "R3a5"), ("a7e7", "Rae7"), ("i7e7", "Rie7")] {
            assert_eq!(san_of(rooks, uci), san, "{uci}");
        }
        let queens = "10/9k/10/10/10/10/10/Q9/10/Q1Q2K4 w - - 0 1";
        for (uci, san) in [("a1b2", "Qa1b2"), ("a3b2", "Q3b2"), ("c1b2", "Qcb2")] {
            assert_eq!(san_of(queens, uci), san, "{uci}");
        }
    }
}
