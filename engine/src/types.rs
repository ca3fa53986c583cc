//! Small value types shared by the 8x8 game: colours, piece kinds, squares and bitboards.

use std::fmt;

/// A player colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    #[inline(always)]
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    /// `white` or `black`: the spelling of JSON answers and data.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// `White` or `Black`: the spelling at the start of a sentence.
    pub fn title(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }

    /// `w` or `b`, as in FEN.
    pub fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// The rank (0-based) on which this colour's pieces start.
    #[inline(always)]
    pub fn home_rank(self) -> u8 {
        match self {
            Color::White => 0,
            Color::Black => 7,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// The six kinds of pieces. The order is the reference engine's (pawn, rook,
/// knight, bishop, queen, king); promotion actions are listed in this order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    Pawn = 0,
    Rook = 1,
    Knight = 2,
    Bishop = 3,
    Queen = 4,
    King = 5,
}

impl PieceKind {
    pub const ALL: [PieceKind; 6] = [PieceKind::Pawn, PieceKind::Rook, PieceKind::Knight, PieceKind::Bishop, PieceKind::Queen, PieceKind::King];
    /// The kinds a pawn may promote to, in the order actions are listed.
    pub const PROMOTIONS: [PieceKind; 4] = [PieceKind::Rook, PieceKind::Knight, PieceKind::Bishop, PieceKind::Queen];

    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub fn from_index(i: usize) -> PieceKind {
        PieceKind::ALL[i]
    }

    /// Upper-case letter (P, R, N, B, Q, K).
    pub fn letter(self) -> char {
        match self {
            PieceKind::Pawn => 'P',
            PieceKind::Rook => 'R',
            PieceKind::Knight => 'N',
            PieceKind::Bishop => 'B',
            PieceKind::Queen => 'Q',
            PieceKind::King => 'K',
        }
    }

    /// Parses a piece letter in either case.
    pub fn from_letter(c: char) -> Option<PieceKind> {
        Some(match c.to_ascii_uppercase() {
            'P' => PieceKind::Pawn,
            'R' => PieceKind::Rook,
            'N' => PieceKind::Knight,
            'B' => PieceKind::Bishop,
            'Q' => PieceKind::Queen,
            'K' => PieceKind::King,
            _ => return None,
        })
    }

    /// Index of a promotion kind among [`PieceKind::PROMOTIONS`].
    pub fn promotion_index(self) -> Option<usize> {
        PieceKind::PROMOTIONS.iter().position(|&k| k == self)
    }
}

/// A square of the 8x8 board: a1 = 0, b1 = 1, ..., h8 = 63.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Builds a square from its index; panics if `i >= 64`.
    #[inline(always)]
    pub const fn new(i: u8) -> Square {
        assert!(i < 64);
        Square(i)
    }

    #[inline(always)]
    pub(crate) const fn new_unchecked(i: u8) -> Square {
        Square(i)
    }

    pub fn try_new(i: u8) -> Option<Square> {
        (i < 64).then_some(Square(i))
    }

    #[inline(always)]
    pub const fn from_file_rank(file: u8, rank: u8) -> Square {
        Square::new(rank * 8 + file)
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    #[inline(always)]
    pub const fn bb(self) -> u64 {
        1u64 << self.0
    }

    /// The same square seen from the other side (rank mirrored).
    #[inline(always)]
    pub const fn flip_rank(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// The square in the mirrored file (a ↔ h, b ↔ g, ...), same rank.
    #[inline(always)]
    pub const fn flip_file(self) -> Square {
        Square(self.0 ^ 7)
    }

    /// Moves by (file, rank) offsets, `None` when leaving the board.
    pub fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        ((0..8).contains(&f) && (0..8).contains(&r)).then(|| Square::from_file_rank(f as u8, r as u8))
    }

    /// Parses `e4`-style names.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let f = b[0].wrapping_sub(b'a');
        let r = b[1].wrapping_sub(b'1');
        (f < 8 && r < 8).then(|| Square::from_file_rank(f, r))
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, (b'1' + self.rank()) as char)
    }
}

/// A set of squares.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct BitBoard(pub u64);

impl BitBoard {
    pub const EMPTY: BitBoard = BitBoard(0);

    #[inline(always)]
    pub fn contains(self, sq: Square) -> bool {
        self.0 & sq.bb() != 0
    }
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[inline(always)]
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }
    #[inline(always)]
    pub fn insert(&mut self, sq: Square) {
        self.0 |= sq.bb();
    }
    #[inline(always)]
    pub fn remove(&mut self, sq: Square) {
        self.0 &= !sq.bb();
    }
    /// The lowest square, if any.
    #[inline(always)]
    pub fn first(self) -> Option<Square> {
        (self.0 != 0).then(|| Square::new_unchecked(self.0.trailing_zeros() as u8))
    }
}

impl Iterator for BitBoard {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = Square::new_unchecked(self.0.trailing_zeros() as u8);
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitBoard {}

impl FromIterator<Square> for BitBoard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        let mut b = BitBoard::EMPTY;
        for s in iter {
            b.insert(s);
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_have_their_names_letters_and_home_ranks() {
        let w = Color::White;
        let b = Color::Black;
        assert_eq!((w.other(), b.other()), (b, w));
        assert_eq!((w.index(), b.index()), (0, 1));
        assert_eq!((w.name(), w.title(), w.letter(), w.home_rank()), ("white", "White", 'w', 0));
        assert_eq!((b.name(), b.title(), b.letter(), b.home_rank()), ("black", "Black", 'b', 7));
        assert_eq!(format!("{w}{b}"), "wb");
    }

    #[test]
    fn piece_kinds_read_and_write_their_letters() {
        for (i, (k, letter)) in PieceKind::ALL.into_iter().zip("PRNBQK".chars()).enumerate() {
            assert_eq!((k.index(), PieceKind::from_index(i), k.letter()), (i, k, letter));
            assert_eq!(PieceKind::from_letter(letter), Some(k));
            assert_eq!(PieceKind::from_letter(letter.to_ascii_lowercase()), Some(k));
            let promotion = PieceKind::PROMOTIONS.iter().position(|&p| p == k);
            assert_eq!(k.promotion_index(), promotion);
            assert_eq!(promotion.is_some(), !matches!(k, PieceKind::Pawn | PieceKind::King), "{k:?}");
        }
        assert_eq!(PieceKind::Queen.promotion_index(), Some(3));
        for c in ['x', 'A', '1', ' ', 'é'] {
            assert_eq!(PieceKind::from_letter(c), None, "{c:?}");
        }
    }

    /// Each square's name, file, rank, bit and mirrors from its written-out
    /// name (files a-h, ranks 1-8).
    #[test]
    fn squares_have_their_coordinates_names_and_mirrors() {
        let mut seen = 0u64;
        for (i, sq) in Square::all().enumerate() {
            let (file, rank) = (i % 8, i / 8);
            let name = format!("{}{}", "abcdefgh".as_bytes()[file] as char, rank + 1);
            assert_eq!((sq.index(), sq.file() as usize, sq.rank() as usize), (i, file, rank));
            assert_eq!(sq.bb(), 1u64 << i);
            seen |= sq.bb();
            assert_eq!(sq.to_string(), name);
            assert_eq!(Square::parse(&name), Some(sq));
            assert_eq!((Square::new(i as u8), Square::try_new(i as u8)), (sq, Some(sq)));
            assert_eq!(Square::from_file_rank(file as u8, rank as u8), sq);
            assert_eq!(sq.flip_rank(), Square::from_file_rank(file as u8, 7 - rank as u8));
            assert_eq!(sq.flip_file(), Square::from_file_rank(7 - file as u8, rank as u8));
            for (df, dr) in [(1i8, 0i8), (-1, 0), (0, 1), (0, -1), (2, -1), (-1, 2), (7, 7), (-7, -7)] {
                let (f, r) = (file as i8 + df, rank as i8 + dr);
                let on_board = (0..8).contains(&f) && (0..8).contains(&r);
                let expected = on_board.then(|| Square::from_file_rank(f as u8, r as u8));
                assert_eq!(sq.offset(df, dr), expected, "{sq} + ({df}, {dr})");
            }
        }
        assert_eq!(seen, u64::MAX);
        assert_eq!(Square::all().count(), 64);
        assert_eq!(Square::try_new(64), None);
        for bad in ["", "e", "e44", "i1", "a9", "a0", "`1", "E4", "4e"] {
            assert_eq!(Square::parse(bad), None, "{bad:?}");
        }
        assert!(std::panic::catch_unwind(|| Square::new(64)).is_err());
    }

    /// A bitboard yields each of its squares once, lowest first, and then
    /// stops (taken at most 8, so a walk that never ends fails here rather
    /// than hanging).
    #[test]
    fn a_bitboard_yields_its_squares_once_in_order() {
        let sqs = [Square::new(0), Square::new(2), Square::new(9), Square::new(63)];
        let b: BitBoard = sqs.into_iter().collect();
        assert_eq!(b.len(), 4);
        assert_eq!(b.take(8).collect::<Vec<_>>(), sqs);
        assert_eq!(BitBoard::EMPTY.take(8).count(), 0);
    }

    #[test]
    fn bitboards_hold_sets_of_squares_lowest_first() {
        let sq = |name: &str| Square::parse(name).unwrap();
        let squares = [sq("h8"), sq("a1"), sq("e4"), sq("d5")];
        let b: BitBoard = squares.iter().copied().collect();
        assert_eq!(b, BitBoard(sq("a1").bb() | sq("e4").bb() | sq("d5").bb() | sq("h8").bb()));
        assert_eq!(b.len(), 4);
        assert_eq!(b.size_hint(), (4, Some(4)));
        assert_eq!(b.first(), Some(sq("a1")));
        assert_eq!(b.collect::<Vec<_>>(), vec![sq("a1"), sq("e4"), sq("d5"), sq("h8")]);
        assert!(squares.iter().all(|&s| b.contains(s)));
        assert!(!b.contains(sq("e5")) && !b.is_empty());
        let mut c = b;
        c.remove(sq("a1"));
        c.remove(sq("a2"));
        c.insert(sq("b2"));
        c.insert(sq("e4"));
        assert_eq!(c.collect::<Vec<_>>(), vec![sq("b2"), sq("e4"), sq("d5"), sq("h8")]);
        assert_eq!((BitBoard::EMPTY.first(), BitBoard::EMPTY.len(), BitBoard::EMPTY.is_empty()), (None, 0, true));
        assert_eq!(BitBoard::default(), BitBoard::EMPTY);
        let mut it = BitBoard(u64::MAX);
        assert_eq!(it.len(), 64);
        it.next();
        assert_eq!(it.size_hint(), (63, Some(63)));
        assert_eq!(std::iter::empty::<Square>().collect::<BitBoard>(), BitBoard::EMPTY);
    }
}
