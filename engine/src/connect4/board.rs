//! The board as two bitboards, in the layout of Pascal Pons' solver
//! (`blog.gamesolver.org`): column `c` holds bits `7c .. 7c + 5`, bottom
//! up, and bit `7c + 6` stays empty as a separator, so a line of four is
//! four bits spaced by one shift: 1 vertically, 7 horizontally, 6 and 8
//! diagonally, and no shift wraps from one column into the next.

/// Columns (files a–g).
pub const WIDTH: usize = 7;
/// Rows (ranks 1–6).
pub const HEIGHT: usize = 6;
/// Cells on the board.
pub const CELLS: usize = WIDTH * HEIGHT;

/// Bits a column takes, its separator included.
const STRIDE: usize = HEIGHT + 1;

/// The bottom cell of every column.
const BOTTOM: u64 = {
    let mut m = 0;
    let mut c = 0;
    while c < WIDTH {
        m |= 1 << (c * STRIDE);
        c += 1;
    }
    m
};

/// Every cell of the board (no separator bit).
pub const BOARD: u64 = BOTTOM * ((1 << HEIGHT) - 1);

/// The bit of the cell in `column` (0-based) and `row` (0 = bottom).
#[inline(always)]
pub const fn cell(column: usize, row: usize) -> u64 {
    1 << (column * STRIDE + row)
}

/// Every cell of `column`.
#[inline(always)]
pub(super) const fn column_cells(column: usize) -> u64 {
    ((1 << HEIGHT) - 1) << (column * STRIDE)
}

/// A position: the stones of the side to move and every stone. Which side
/// moves follows from the number of stones (the first player moves when
/// it is even).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Board {
    /// The stones of the side to move.
    pub mover: u64,
    /// Every stone.
    pub mask: u64,
}

impl Board {
    /// Stones on the board.
    #[inline(always)]
    pub fn stones(&self) -> u32 {
        self.mask.count_ones()
    }

    /// The stones of the side that moved last.
    #[inline(always)]
    pub fn opponent(&self) -> u64 {
        self.mover ^ self.mask
    }

    /// `true` when `column` has room for a stone.
    #[inline(always)]
    pub fn can_play(&self, column: usize) -> bool {
        self.mask & cell(column, HEIGHT - 1) == 0
    }

    /// The cell a stone dropped in each column lands on (one bit a column
    /// with room).
    #[inline(always)]
    pub fn landing_cells(&self) -> u64 {
        (self.mask + BOTTOM) & BOARD
    }

    /// Drops the mover's stone in `column` (which has room); the other side
    /// moves next.
    #[inline(always)]
    pub fn play(&mut self, column: usize) {
        debug_assert!(self.can_play(column), "column {column} is full");
        self.mover ^= self.mask;
        self.mask |= self.mask + cell(column, 0);
    }

    /// The empty cells where a stone of `stones` would complete a line of
    /// four (whether a stone can be dropped there yet or not), in a board
    /// reached by play: no empty cell lies below a stone, so a vertical
    /// four is completed only on top of three.
    pub fn winning_cells_of(&self, stones: u64) -> u64 {
        // Vertical: three stones right below.
        let mut r = (stones << 1) & (stones << 2) & (stones << 3);
        for shift in [STRIDE, STRIDE - 1, STRIDE + 1] {
            // Two stones on one side, and a third on either side of the gap.
            let pair = (stones << shift) & (stones << (2 * shift));
            r |= pair & (stones << (3 * shift));
            r |= pair & (stones >> shift);
            let pair = (stones >> shift) & (stones >> (2 * shift));
            r |= pair & (stones << shift);
            r |= pair & (stones >> (3 * shift));
        }
        r & (BOARD ^ self.mask)
    }

    /// The cells where a stone of `stones` dropped now completes four.
    #[inline(always)]
    pub fn wins_now(&self, stones: u64) -> u64 {
        self.winning_cells_of(stones) & self.landing_cells()
    }

    /// `true` when `stones` hold a line of four.
    pub fn has_four(stones: u64) -> bool {
        [1, STRIDE, STRIDE - 1, STRIDE + 1].into_iter().any(|shift| {
            let m = stones & (stones >> shift);
            m & (m >> (2 * shift)) != 0
        })
    }

    /// The stone in `column`, `row`: `Some(true)` the mover's, `Some(false)`
    /// the opponent's, `None` empty.
    pub fn at(&self, column: usize, row: usize) -> Option<bool> {
        let b = cell(column, row);
        (self.mask & b != 0).then_some(self.mover & b != 0)
    }

    /// Stones in `column`.
    pub fn height(&self, column: usize) -> usize {
        (self.mask & column_cells(column)).count_ones() as usize
    }

    /// Pons' position key: unique for every position of the board (the
    /// mover's stones plus, per column, the bit above its top stone).
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.mover + self.mask + BOTTOM
    }

    /// The board mirrored left to right (a ↔ g), a symmetry of the rules.
    pub fn mirrored(&self) -> Board {
        let flip = |bits: u64| (0..WIDTH).fold(0, |m, c| m | ((bits >> (c * STRIDE)) & ((1 << STRIDE) - 1)) << ((WIDTH - 1 - c) * STRIDE));
        Board { mover: flip(self.mover), mask: flip(self.mask) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of four on the board, by its cells: the rule text's
    /// "four in a row horizontally, vertically or diagonally".
    fn lines() -> Vec<[(usize, usize); 4]> {
        let mut out = Vec::new();
        for c in 0..WIDTH as i32 {
            for r in 0..HEIGHT as i32 {
                for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    let cells: Vec<(i32, i32)> = (0..4).map(|k| (c + k * dc, r + k * dr)).collect();
                    if cells.iter().all(|&(x, y)| (0..WIDTH as i32).contains(&x) && (0..HEIGHT as i32).contains(&y)) {
                        out.push(cells.iter().map(|&(x, y)| (x as usize, y as usize)).collect::<Vec<_>>().try_into().unwrap());
                    }
                }
            }
        }
        out
    }

    fn bits(cells: &[(usize, usize)]) -> u64 {
        cells.iter().fold(0, |m, &(c, r)| m | cell(c, r))
    }

    #[test]
    fn the_board_has_69_lines_of_four_and_each_is_found() {
        let lines = lines();
        assert_eq!(lines.len(), 69, "24 horizontal, 21 vertical, 24 diagonal");
        for l in &lines {
            assert!(Board::has_four(bits(l)), "{l:?}");
            for k in 0..4 {
                let three: Vec<_> = l.iter().enumerate().filter(|&(i, _)| i != k).map(|(_, &c)| c).collect();
                assert!(!Board::has_four(bits(&three)), "three stones of {l:?}");
            }
        }
    }

    #[test]
    fn winning_cells_are_the_empty_cells_that_complete_a_line_by_the_rule_text() {
        // Boards reached by random drops (wins ignored, so lines of every
        // kind occur), for both sides' stones, against the direct
        // definition: an empty cell is winning for `stones` when some line
        // through it has its other three cells in `stones`.
        let lines = lines();
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut found = 0;
        for _ in 0..3000 {
            let mut b = Board::default();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for k in 0..(seed % 40) {
                let free: Vec<usize> = (0..WIDTH).filter(|&c| b.can_play(c)).collect();
                b.play(free[((seed >> (k % 50)) as usize + k as usize) % free.len()]);
            }
            for stones in [b.mover, b.opponent()] {
                let mut expected = 0;
                for c in 0..WIDTH {
                    for r in 0..HEIGHT {
                        let x = cell(c, r);
                        let completes =
                            |l: &&[(usize, usize); 4]| l.contains(&(c, r)) && l.iter().filter(|&&p| p != (c, r)).all(|&(pc, pr)| stones & cell(pc, pr) != 0);
                        if b.mask & x == 0 && lines.iter().any(|l| completes(&l)) {
                            expected |= x;
                        }
                    }
                }
                found += expected.count_ones();
                assert_eq!(b.winning_cells_of(stones), expected, "stones {stones:#x} mask {:#x}", b.mask);
            }
        }
        assert!(found > 1000, "the boards have winning cells to find: {found}");
    }

    #[test]
    fn a_stone_lands_on_the_lowest_empty_cell_and_the_sides_alternate() {
        let mut b = Board::default();
        for (i, &c) in [3, 3, 3, 0, 6].iter().enumerate() {
            let before = b.height(c);
            b.play(c);
            assert_eq!(b.height(c), before + 1);
            assert_eq!(b.stones(), i as u32 + 1);
            // The stone just played belongs to the side that moved last.
            assert!(b.opponent() & cell(c, before) != 0);
        }
        // Black moves: White's d1 and d3 are the opponent's, Black's d2 the mover's.
        assert_eq!((b.at(3, 0), b.at(3, 1), b.at(3, 2), b.at(3, 3)), (Some(false), Some(true), Some(false), None));
        assert_eq!(b.landing_cells(), bits(&[(0, 1), (1, 0), (2, 0), (3, 3), (4, 0), (5, 0), (6, 1)]));
        let m = b.mirrored();
        assert_eq!((m.at(3, 0), m.at(6, 0), m.at(0, 0), m.mirrored()), (Some(false), Some(true), Some(false), b));
    }

    #[test]
    fn a_full_column_takes_no_more_stones_and_keys_tell_positions_apart() {
        let mut b = Board::default();
        let mut keys = std::collections::HashSet::new();
        keys.insert(b.key());
        for _ in 0..HEIGHT {
            assert!(b.can_play(2));
            b.play(2);
            assert!(keys.insert(b.key()));
        }
        assert!(!b.can_play(2) && b.can_play(1));
        // The same stones with the other side to move is another position.
        let swapped = Board { mover: b.opponent(), mask: b.mask };
        assert_ne!(swapped.key(), b.key());
    }
}
