//! Castling rights and the squares each castling option uses (standard and Fischer-random).

use crate::types::{Color, Square};

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

const fn file_span(a: u8, b: u8, rank: u8) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let mut out = 0;
    let mut f = lo;
    while f <= hi {
        out |= Square::from_file_rank(f, rank).bb();
        f += 1;
    }
    out
}

/// The geometry of one castling option, from the king's and the rook's files.
const fn compute_geometry(color: usize, side: usize, kf: u8, rf: u8) -> CastleGeometry {
    let rank = if color == 0 { 0 } else { 7 };
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

/// Every castling geometry, `[color][side][king file][rook file]`, built at
/// compile time: move generation asks for it at every lift of a king that
/// still has a right.
const GEOMETRY: [[[[CastleGeometry; 8]; 8]; 2]; 2] = {
    let empty = CastleGeometry {
        king_from: Square::new(0),
        king_to: Square::new(0),
        rook_from: Square::new(0),
        rook_to: Square::new(0),
        target: Square::new(0),
        must_be_empty: 0,
        must_be_safe: 0,
    };
    let mut t = [[[[empty; 8]; 8]; 2]; 2];
    let mut c = 0;
    while c < 2 {
        let mut side = 0;
        while side < 2 {
            let mut kf = 0;
            while kf < 8 {
                let mut rf = 0;
                while rf < 8 {
                    t[c][side][kf as usize][rf as usize] = compute_geometry(c, side, kf, rf);
                    rf += 1;
                }
                kf += 1;
            }
            side += 1;
        }
        c += 1;
    }
    t
};

impl Castling {
    /// The square of the rook of a castling option.
    #[inline(always)]
    pub(crate) fn rook_square(&self, color: Color, side: usize) -> Square {
        Square::from_file_rank(self.rook_file[color.index()][side], color.home_rank())
    }

    #[inline(always)]
    pub(crate) fn geometry(&self, color: Color, side: usize) -> CastleGeometry {
        let c = color.index();
        GEOMETRY[c][side][self.king_file[c] as usize][self.rook_file[c][side] as usize]
    }
}
