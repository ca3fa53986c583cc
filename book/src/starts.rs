//! Start positions drawn from a book: self-play's `start_positions =
//! "book"` and a match's openings from a book.

use std::path::Path;

use anyhow::{bail, Context, Result};
use pacozero_engine::Game;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::entries::lookup_rows;
use crate::read::read_any_book;

/// Book start positions with cumulative weights `visits^(1/T)` (self-play's
/// `start_positions = "book"`, arena openings from a book).
#[derive(Default)]
pub struct BookStarts {
    fens: Vec<String>,
    cumulative: Vec<f64>,
}

impl BookStarts {
    /// The positions of the book at `path` that lookups use
    /// ([`crate::entries`]: no entry kept only for export), every one checked
    /// as a position of `G`, weighted `visits^(1/temperature)`.
    pub fn from_file<G: Game>(path: &Path, temperature: f64) -> Result<Self> {
        let (_, positions) = read_any_book(path)?;
        let mut starts = BookStarts::default();
        let mut total = 0.0;
        for p in lookup_rows(&positions).rows {
            G::from_notation(&p.fen).with_context(|| format!("book {}: bad position {:?}", path.display(), p.fen))?;
            let w = (p.visits as f64).powf(1.0 / temperature);
            if w > 0.0 && w.is_finite() {
                total += w;
                starts.fens.push(p.fen.clone());
                starts.cumulative.push(total);
            }
        }
        if starts.fens.is_empty() {
            bail!("book {} has no position with visits", path.display());
        }
        Ok(starts)
    }

    /// The position at `u` (uniform in [0, 1)) of the weight distribution.
    pub fn pick(&self, u: f64) -> &str {
        let total = self.cumulative.last().copied().unwrap_or(0.0);
        let i = self.cumulative.partition_point(|&c| c <= u * total).min(self.fens.len() - 1);
        &self.fens[i]
    }

    /// Opening `i` drawn from a book's positions (weights `visits^(1/T)`), the
    /// same for both colours of a pair.
    pub fn opening<G: Game>(&self, seed: u64, i: u64) -> G {
        let mut r = ChaCha8Rng::seed_from_u64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        G::from_notation(self.pick(r.gen::<f64>())).expect("BookStarts checked every position when it read the book")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_starts_follow_cumulative_weights() {
        let b = BookStarts { fens: vec!["a".into(), "b".into(), "c".into()], cumulative: vec![1.0, 3.0, 4.0] };
        assert_eq!(b.pick(0.0), "a");
        assert_eq!(b.pick(0.24), "a");
        assert_eq!(b.pick(0.25), "b");
        assert_eq!(b.pick(0.74), "b");
        assert_eq!(b.pick(0.75), "c");
        assert_eq!(b.pick(0.999_999), "c");
    }
}
