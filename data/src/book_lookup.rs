//! Which rows of a book lookups use: the one rule that probing, comparing,
//! loading a book (`pacozero_book::Book`) and drawing book starts share.
//!
//! A book read from the platform may hold rows no lookup can use, kept only
//! so that `book export --format platform` gives every entry back:
//!
//! | row | used by lookups | counted as |
//! |---|---|---|
//! | usable (`skipped` empty), the first row of its position (hash) | yes | — |
//! | usable, a later row of the same position | no (the first one is) | [`SAME_POSITION`] |
//! | `skipped` (an entry that cannot be replayed) | no | its reason, e.g. `game over` |
//!
//! Rows of one position differ only in what the hash leaves out: for the
//! platform's books, the no-progress half-move count in the FEN (it keys its
//! books by the whole FEN). Import writes the row with the smallest
//! half-move count first (the earliest in the file on ties), so that is the
//! row a position's lookup finds; probing by FEN finds the row with exactly
//! that FEN first (see `pacozero_book::Book::probe`).

use std::collections::{BTreeMap, HashSet};

use crate::book::BookPosition;

/// The reason counted for a usable row whose position an earlier row has.
pub const SAME_POSITION: &str = "same position, other half-move count";

/// A book's rows split by the lookup rule.
#[derive(Debug, Default)]
pub struct Lookup<'a> {
    /// The first usable row of each position, in row order.
    pub rows: Vec<&'a BookPosition>,
    /// Rows left out, counted by reason.
    pub left_out: BTreeMap<String, usize>,
}

impl Lookup<'_> {
    /// Rows left out in all.
    pub fn left_out_total(&self) -> usize {
        self.left_out.values().sum()
    }
}

/// The rows lookups use and those they leave out, by reason.
pub fn lookup_rows(rows: &[BookPosition]) -> Lookup<'_> {
    let mut seen = HashSet::new();
    let mut out = Lookup::default();
    for r in rows {
        let reason = match &r.skipped {
            Some(reason) => reason.as_str(),
            None if !seen.insert(r.hash) => SAME_POSITION,
            None => {
                out.rows.push(r);
                continue;
            }
        };
        *out.left_out.entry(reason.to_string()).or_default() += 1;
    }
    out
}

/// "3 left out: 1 game over, 2 same position, ..." (empty when none is).
pub fn left_out_text(left_out: &BTreeMap<String, usize>) -> String {
    let total: usize = left_out.values().sum();
    if total == 0 {
        return String::new();
    }
    let parts: Vec<String> = left_out.iter().map(|(reason, n)| format!("{n} {reason}")).collect();
    format!("{total} left out: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(hash: u64, fen: &str, skipped: Option<&str>) -> BookPosition {
        BookPosition { hash, fen: fen.into(), depth: 0, visits: 0, simulations: 0, wdl: [0.0, 1.0, 0.0], moves: vec![], skipped: skipped.map(Into::into) }
    }

    #[test]
    fn the_first_usable_row_of_a_position_is_used() {
        let rows = [row(1, "a 3", Some("game over")), row(1, "a 1", None), row(1, "a 3", None), row(2, "b", None), row(3, "c", Some("game over"))];
        let l = lookup_rows(&rows);
        let fens: Vec<&str> = l.rows.iter().map(|r| r.fen.as_str()).collect();
        assert_eq!(fens, ["a 1", "b"]);
        assert_eq!(l.left_out, BTreeMap::from([("game over".to_string(), 2), (SAME_POSITION.to_string(), 1)]));
        assert_eq!(l.left_out_total(), 3);
        assert_eq!(left_out_text(&l.left_out), format!("3 left out: 2 game over, 1 {SAME_POSITION}"));
        assert_eq!(left_out_text(&BTreeMap::new()), "");
    }
}
