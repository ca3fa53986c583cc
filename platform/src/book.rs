//! Paco Ŝako books in the platform's JSON format
//! ([`crate::book_json`]): every position checked and every move
//! replayed by the engine on import, our books' statistics turned into the
//! platform's numbers on export.
//!
//! ## Import: a platform book as one of ours
//!
//! | platform | our book (`pacozero_data::book`) |
//! |---|---|
//! | FEN | `fen` exactly as written, and `hash` (the engine's, of the validated position) |
//! | `position_value` v | `wdl` = (max(v, 0), 1 − \|v\|, max(−v, 0)), so `value` = v exactly |
//! | `move_value` | `logit` (kept exactly, so export gives it back) |
//! | softmax of the `move_value`s, p | `prior` = p; `visits` = max(1, round(p · 10,000)) |
//! | `actions` | replayed: `actions` (`"Lc8 Pg4"`), `name` (`Bc8-g4`), `child` |
//! | — | each move's `wdl` is the position's (the platform gives no value per move) |
//!
//! Moves keep the file's order, `simulations` is the sum of a position's
//! move visits, and `depth` and the book weight `visits` follow the book's
//! own definitions from its start positions: the positions no book move
//! leads to (where moves form a cycle with no such position, the first of
//! the cycle in file order). Self-play's book starts (weights
//! `visits^(1/T)`) and arena openings therefore work on an imported book as
//! on a built one. A position (the board, a pending promotion included,
//! see `GameRules::is_turn_start`) starts a turn when nothing is in hand.
//!
//! ## What import keeps, uses and refuses
//!
//! Every entry becomes one row, so that export gives back every key and
//! value. Lookups and comparisons use the rows [`pacozero_data::book_lookup`] picks:
//!
//! | entry | row | `book import` counts it as |
//! |---|---|---|
//! | replays | usable | — |
//! | the same position as another but for the half-move count (the platform keys by the whole FEN) | usable; lookups use the one with the smallest count (the first in the file on ties) | `same position, other half-move count` |
//! | a finished game that lists moves (e.g. a king already in a union) | skipped, kept verbatim | `game over` |
//! | a piece in hand (`^` in the FEN) | skipped | `piece in hand` |
//! | a move with an illegal action / going on after its turn ended / stopping before / listed twice | skipped | `illegal action` / `turn ends early` / `turn does not end` / `move listed twice` |
//!
//! A skipped entry's moves are kept as the actions their indices name (see
//! `pacozero_data::book`). `book import` prints the count per reason with
//! the first [`EXAMPLES`] entries. Import refuses only a malformed file: the
//! format reader's errors (JSON, shape, numbers, an index outside 1..=132, a
//! FEN twice), a FEN that is no position, a `position_value` outside
//! \[-1, 1\]; each error names the file, the FEN and the field.
//!
//! ## Export: one of our books for the platform
//!
//! `position_value` is the position's value for the side to move and
//! `move_value` the move's logit: for a built book ln(visit share), whose
//! softmax is the visit distribution; for an imported book the platform's own
//! number. Moves without visits in a book written before logits were stored
//! (logit −∞) are left out: the book never plays them.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use crate::book_json::{PlatformBook, PlatformBookError, PlatformMove, PlatformPosition};
use pacozero_data::book::{BookInfo, BookMove, BookPosition};
use pacozero_engine::paco::{action_from_index, action_index, parse_actions, turn_to_string, GameState, Position};
use pacozero_engine::Color;

use pacozero_engine::paco::actions_text;

use pacozero_data::book_lookup::SAME_POSITION;
use pacozero_engine::prelude::*;

/// Total visits an imported position's moves share (rounding: a move of
/// probability p gets round(p · `IMPORT_VISITS`), at least 1).
pub const IMPORT_VISITS: u32 = 10_000;

/// What the engine refuses in a platform book: only a malformed file (the
/// format reader's errors, a FEN that is no position, a value outside
/// \[-1, 1\]); every variant names the file and the FEN.
#[derive(Debug, thiserror::Error)]
pub enum PlatformImportError {
    #[error(transparent)]
    Format(#[from] PlatformBookError),
    #[error("{path}: position \"{fen}\": {message}")]
    Position { path: PathBuf, fen: String, message: String },
}

/// A book move that cannot be replayed: the file, the FEN, the move's number
/// (1-based) and its action indices, and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("{path}: position \"{fen}\", move {move_number} {indices:?}: {problem}")]
pub struct MoveError {
    pub path: PathBuf,
    pub fen: String,
    pub move_number: usize,
    pub indices: Vec<u8>,
    pub problem: MoveProblem,
}

/// What is wrong with a move that cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum MoveProblem {
    #[error("action {action_number}, index {index} ({action}): {reason}")]
    Illegal { action_number: usize, index: u8, action: String, reason: String },
    #[error("the turn ends after action {ended_after}, so index {index} (action {}) is past its end", ended_after + 1)]
    PastTurnEnd { ended_after: usize, index: u8 },
    #[error("does not end the turn (after index {index}, the last, the same side is still to move)")]
    TurnNotEnded { index: u8 },
    #[error("the same actions as move {first}")]
    Duplicate { first: usize },
}

impl MoveProblem {
    /// The reason an entry with this move is skipped.
    fn reason(&self) -> SkipReason {
        match self {
            MoveProblem::Illegal { .. } => SkipReason::IllegalAction,
            MoveProblem::PastTurnEnd { .. } => SkipReason::TurnEndsEarly,
            MoveProblem::TurnNotEnded { .. } => SkipReason::TurnNotEnded,
            MoveProblem::Duplicate { .. } => SkipReason::MoveTwice,
        }
    }
}

/// Why an entry cannot be replayed; its label is the row's `skipped`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    /// The position is a finished game (e.g. a king already in a union), yet
    /// the entry lists moves.
    GameOver,
    /// A piece is in hand (`^` in the FEN): not the start of a turn.
    InHand,
    /// A move takes an illegal action.
    IllegalAction,
    /// A move goes on after its turn ended.
    TurnEndsEarly,
    /// A move stops before its turn ends.
    TurnNotEnded,
    /// Two moves with the same actions.
    MoveTwice,
}

impl SkipReason {
    /// The short reason stored in the row and counted in summaries.
    pub fn label(self) -> &'static str {
        match self {
            SkipReason::GameOver => "game over",
            SkipReason::InHand => "piece in hand",
            SkipReason::IllegalAction => "illegal action",
            SkipReason::TurnEndsEarly => "turn ends early",
            SkipReason::TurnNotEnded => "turn does not end",
            SkipReason::MoveTwice => "move listed twice",
        }
    }
}

/// Entries the import left out of lookups: how many, and the first few.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeftOut {
    pub count: usize,
    /// The first [`EXAMPLES`] entries, each as a message naming its FEN.
    pub examples: Vec<String>,
}

/// Examples kept per reason.
pub const EXAMPLES: usize = 3;

/// A platform book replayed into our book's rows.
#[derive(Debug, Default)]
pub struct PlatformImport {
    /// Every entry, one row each (see [`import_platform_book`] for the order).
    pub rows: Vec<BookPosition>,
    /// Entries left out of lookups, by reason: a [`SkipReason`]'s label, or
    /// [`pacozero_data::book_lookup::SAME_POSITION`].
    pub left_out: BTreeMap<&'static str, LeftOut>,
}

impl PlatformImport {
    fn note(&mut self, reason: &'static str, message: String) {
        let e = self.left_out.entry(reason).or_default();
        e.count += 1;
        if e.examples.len() < EXAMPLES {
            e.examples.push(message);
        }
    }

    /// The summary `book import` prints: one line per reason, with its
    /// first examples (nothing when every entry is used).
    pub fn summary(&self) -> Vec<String> {
        let total: usize = self.left_out.values().map(|l| l.count).sum();
        if total == 0 {
            return Vec::new();
        }
        let mut lines = vec![format!("{total} of {} entries kept for export only, left out of lookups and comparisons:", self.rows.len())];
        for (reason, l) in &self.left_out {
            lines.push(format!("  {reason}: {}", l.count));
            lines.extend(l.examples.iter().map(|e| format!("    e.g. {e}")));
        }
        lines
    }
}

/// What cannot be exported; names the FEN.
#[derive(Debug, thiserror::Error)]
pub enum PlatformExportError {
    #[error("the platform's book format is for Paco Ŝako; this book is for '{0}'")]
    Game(String),
    #[error("position \"{fen}\": {message}")]
    Position { fen: String, message: String },
}

/// A platform book replayed into our book's rows (`path` is named in
/// errors). Every entry gives one row, its FEN as written. The rows lookups
/// use (the first usable row of each position, see [`pacozero_data::book_lookup`])
/// come first, ordered like a saved book: by depth, weight (descending),
/// hash; then the other rows of a position (depth as the used one, no
/// weight), of one position the smallest half-move count first, then file
/// order; the skipped entries last, in file order.
pub fn import_platform_book(path: &Path, book: &PlatformBook) -> Result<PlatformImport, PlatformImportError> {
    let mut import = PlatformImport::default();
    let mut usable: Vec<(BookPosition, u8)> = Vec::new();
    let mut skipped: Vec<BookPosition> = Vec::new();
    for p in &book.positions {
        let (row, half_moves) = import_position(path, p)?;
        match row {
            Ok(row) => usable.push((row, half_moves)),
            Err((row, reason, message)) => {
                // The summary is about this file: its examples need not name it.
                let prefix = format!("{}: ", path.display());
                import.note(reason.label(), message.strip_prefix(&prefix).unwrap_or(&message).to_string());
                skipped.push(row);
            }
        }
    }
    // The used row of each position: the smallest half-move count, the first on ties.
    let mut used: HashMap<u64, usize> = HashMap::new();
    for (i, (r, hm)) in usable.iter().enumerate() {
        let better = used.get(&r.hash).is_none_or(|&k| *hm < usable[k].1);
        if better {
            used.insert(r.hash, i);
        }
    }
    let mut order: Vec<usize> = used.values().copied().collect();
    order.sort_unstable();
    let mut graph: Vec<BookPosition> = order.iter().map(|&i| usable[i].0.clone()).collect();
    set_depths_and_weights(&mut graph);
    let by_hash: HashMap<u64, (u32, u32)> = graph.iter().map(|r| (r.hash, (r.depth, r.visits))).collect();
    let mut rows: Vec<(BookPosition, bool, u8, usize)> = Vec::with_capacity(usable.len());
    for (i, (mut r, hm)) in usable.into_iter().enumerate() {
        let is_used = used[&r.hash] == i;
        let (depth, visits) = by_hash[&r.hash];
        r.depth = depth;
        r.visits = if is_used { visits } else { 0 };
        rows.push((r, is_used, hm, i));
    }
    for (r, is_used, _, _) in &rows {
        if !is_used {
            let message =
                format!("\"{}\" (looked up as \"{}\")", r.fen, rows.iter().find(|(o, u, _, _)| *u && o.hash == r.hash).map_or("", |(o, ..)| o.fen.as_str()));
            import.note(SAME_POSITION, message);
        }
    }
    rows.sort_by(|a, b| {
        b.1.cmp(&a.1).then(a.0.depth.cmp(&b.0.depth)).then(b.0.visits.cmp(&a.0.visits)).then(a.0.hash.cmp(&b.0.hash)).then(a.2.cmp(&b.2)).then(a.3.cmp(&b.3))
    });
    import.rows = rows.into_iter().map(|(r, ..)| r).chain(skipped).collect();
    Ok(import)
}

/// A usable row, or a skipped one with its reason and a message naming the entry.
type Entry = Result<BookPosition, (BookPosition, SkipReason, String)>;

/// One entry as a row, and its position's half-move count; `Err` only for
/// a malformed entry (a FEN that is no position, a value outside \[-1, 1\]).
fn import_position(path: &Path, p: &PlatformPosition) -> Result<(Entry, u8), PlatformImportError> {
    let err = |message: String| PlatformImportError::Position { path: path.into(), fen: p.fen.clone(), message };
    let pos: Position = p.fen.parse().map_err(|e| err(format!("FEN: {e}")))?;
    let v = p.value;
    if !(-1.0..=1.0).contains(&v) {
        return Err(err(format!("position_value {v} is outside [-1, 1]")));
    }
    let wdl = [v.max(0.0), 1.0 - v.abs(), (-v).max(0.0)];
    let start = GameState::new(pos);
    let skip = |reason: SkipReason, message: String| {
        let moves = p.moves.iter().map(|m| verbatim_move(m, pos.side_to_move(), wdl)).collect();
        let row = BookPosition { hash: pos.hash(), fen: p.fen.clone(), depth: 0, visits: 0, simulations: 0, wdl, moves, skipped: Some(reason.label().into()) };
        Ok((Err((row, reason, message)), pos.no_progress_half_moves()))
    };
    if !start.is_turn_start() {
        return skip(SkipReason::InHand, format!("{}: position \"{}\": a piece is in hand: book positions start a turn", path.display(), p.fen));
    }
    if let (Some(_), false) = (start.outcome(), p.moves.is_empty()) {
        let message = format!("{}: position \"{}\": the game is over ({}), yet the entry lists {} moves", path.display(), p.fen, pos.status(), p.moves.len());
        return skip(SkipReason::GameOver, message);
    }
    let mut moves = Vec::with_capacity(p.moves.len());
    let mut seen: HashMap<&[u8], usize> = HashMap::new();
    for (j, m) in p.moves.iter().enumerate() {
        let move_number = j + 1;
        let problem = match seen.get(m.actions.as_slice()) {
            Some(&first) => Err(MoveProblem::Duplicate { first }),
            None => replay(&start, m),
        };
        seen.insert(&m.actions, move_number);
        match problem {
            Ok(mv) => moves.push(mv),
            Err(problem) => {
                let reason = problem.reason();
                let e = MoveError { path: path.into(), fen: p.fen.clone(), move_number, indices: m.actions.clone(), problem };
                return skip(reason, e.to_string());
            }
        }
    }
    // Softmax in f64 from the largest logit, so that no weight overflows.
    let top = moves.iter().map(|m| m.logit as f64).fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = moves.iter().map(|m| (m.logit as f64 - top).exp()).collect();
    let sum: f64 = weights.iter().sum();
    for (m, w) in moves.iter_mut().zip(&weights) {
        let share = w / sum;
        m.prior = share as f32;
        m.visits = ((share * IMPORT_VISITS as f64).round() as u32).max(1);
        m.wdl = wdl;
    }
    let simulations = moves.iter().map(|m| m.visits).sum();
    let row = BookPosition { hash: pos.hash(), fen: p.fen.clone(), depth: 0, visits: 0, simulations, wdl, moves, skipped: None };
    Ok((Ok(row), pos.no_progress_half_moves()))
}

/// One book move replayed from `start` (prior, visits and value are set by the caller).
fn replay(start: &GameState, m: &PlatformMove) -> Result<BookMove, MoveProblem> {
    let pos = *start.position();
    let mover = pos.side_to_move();
    let mut g = start.clone();
    let mut actions = Vec::with_capacity(m.actions.len());
    for (k, &index) in m.actions.iter().enumerate() {
        if g.to_move() != mover || g.outcome().is_some() {
            return Err(MoveProblem::PastTurnEnd { ended_after: k, index });
        }
        let a = action_from_index(index as usize - 1, mover).expect("the format reader checks 1..=132");
        g.play(a).map_err(|e| MoveProblem::Illegal { action_number: k + 1, index, action: a.to_string(), reason: e.to_string() })?;
        actions.push(a);
    }
    if g.to_move() == mover && g.outcome().is_none() {
        return Err(MoveProblem::TurnNotEnded { index: *m.actions.last().expect("the format reader refuses empty moves") });
    }
    Ok(BookMove {
        name: turn_to_string(&pos, &actions),
        actions: actions_text(&actions),
        child: g.position().hash(),
        visits: 0,
        prior: 0.0,
        wdl: [0.0; 3],
        logit: m.value,
    })
}

/// A move of a skipped entry as it is written: the actions its indices name
/// (legal or not), no child, no visits; export gives the indices back.
fn verbatim_move(m: &PlatformMove, mover: Color, wdl: [f32; 3]) -> BookMove {
    let actions: Vec<_> = m.actions.iter().map(|&i| action_from_index(i as usize - 1, mover).expect("the format reader checks 1..=132")).collect();
    let text = actions_text(&actions);
    BookMove { name: text.clone(), actions: text, child: 0, visits: 0, prior: 0.0, wdl, logit: m.value }
}

/// Depth (turns from the nearest start position) and book weight, as a
/// saved book defines them: start positions are those no book move leads
/// to; a cycle of positions none of which is reached from a start gets its
/// first position (in `rows` order) as a start. A start's weight is its
/// `simulations`, every position's weight also the visits of the book moves
/// leading to it.
fn set_depths_and_weights(rows: &mut [BookPosition]) {
    let index: HashMap<u64, usize> = rows.iter().enumerate().map(|(i, r)| (r.hash, i)).collect();
    let children: Vec<Vec<usize>> =
        rows.iter().map(|r| r.moves.iter().filter(|m| m.visits > 0).filter_map(|m| index.get(&m.child).copied()).collect()).collect();
    let mut has_parent = vec![false; rows.len()];
    for (i, cs) in children.iter().enumerate() {
        for &c in cs {
            if c != i {
                has_parent[c] = true;
            }
        }
    }
    let mut depth: Vec<Option<u32>> = vec![None; rows.len()];
    let mut roots: HashSet<usize> = HashSet::new();
    let bfs = |start: usize, depth: &mut Vec<Option<u32>>| {
        let mut queue = VecDeque::from([start]);
        depth[start] = Some(0);
        while let Some(i) = queue.pop_front() {
            let d = depth[i].expect("queued positions have a depth");
            for &c in &children[i] {
                if depth[c].is_none() {
                    depth[c] = Some(d + 1);
                    queue.push_back(c);
                }
            }
        }
    };
    for (i, &with_parent) in has_parent.iter().enumerate() {
        if !with_parent {
            roots.insert(i);
            bfs(i, &mut depth);
        }
    }
    while let Some(i) = depth.iter().position(Option::is_none) {
        roots.insert(i);
        bfs(i, &mut depth);
    }
    let mut weight: Vec<u64> = rows.iter().enumerate().map(|(i, r)| if roots.contains(&i) { r.simulations as u64 } else { 0 }).collect();
    for r in rows.iter() {
        for m in &r.moves {
            if let Some(&c) = index.get(&m.child) {
                weight[c] += m.visits as u64;
            }
        }
    }
    for (i, r) in rows.iter_mut().enumerate() {
        r.depth = depth[i].expect("every position has a depth");
        r.visits = weight[i].min(u32::MAX as u64) as u32;
    }
}

/// Our book's rows in the platform's format (rows in the given order).
pub fn export_platform_book(info: &BookInfo, rows: &[BookPosition]) -> Result<PlatformBook, PlatformExportError> {
    if !info.game.is_empty() && info.game != <GameState as GameRules>::NAME {
        return Err(PlatformExportError::Game(info.game.clone()));
    }
    let mut positions = Vec::with_capacity(rows.len());
    for r in rows {
        let err = |message: String| PlatformExportError::Position { fen: r.fen.clone(), message };
        let pos: Position = r.fen.parse().map_err(|e| err(format!("{e}")))?;
        let mover = pos.side_to_move();
        let mut moves = Vec::with_capacity(r.moves.len());
        for m in r.moves.iter().filter(|m| m.logit != f32::NEG_INFINITY) {
            let actions = parse_actions(&m.actions).map_err(|e| err(format!("move {}: {e}", m.name)))?;
            moves.push(PlatformMove { value: m.logit, actions: actions.iter().map(|&a| (action_index(a, mover) + 1) as u8).collect() });
        }
        positions.push(PlatformPosition { fen: r.fen.clone(), value: r.value(), moves });
    }
    Ok(PlatformBook { positions })
}

/// The header of a book imported from the platform file `path`.
pub fn platform_info(path: &Path) -> BookInfo {
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    BookInfo { game: <GameState as GameRules>::NAME.into(), network: format!("platform:{name}"), config: String::new() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book_json::parse_platform_book;
    use pacozero_engine::paco::Action;

    const FEN: &str = "r1bqkb1r/ppp1pppp/2n2n2/3p4/3P1B2/2N2N2/PPP1PPPP/R2QKB1R b 7 AHah - -";

    fn import_all(text: &str) -> Result<PlatformImport, PlatformImportError> {
        import_platform_book(Path::new("t.json"), &parse_platform_book(Path::new("t.json"), text).unwrap())
    }

    fn import(text: &str) -> Result<Vec<BookPosition>, PlatformImportError> {
        import_all(text).map(|i| i.rows)
    }

    #[test]
    fn the_issue_example_is_black_bishop_c8_g4() {
        let rows = import(&format!(r#"{{"{FEN}": [-0.048420716, [[0.0030171957, [3, 103]]]]}}"#)).unwrap();
        let m = &rows[0].moves[0];
        assert_eq!((m.name.as_str(), m.actions.as_str()), ("Bc8-g4", "Lc8 Pg4"));
        let black = pacozero_engine::Color::Black;
        let lift: Action = "Lc8".parse().unwrap();
        let place: Action = "Pg4".parse().unwrap();
        assert_eq!([action_index(lift, black) + 1, action_index(place, black) + 1], [3, 103]);
        assert_eq!(rows[0].value(), -0.048420716);
        assert_eq!((m.logit, m.prior, m.visits), (0.0030171957, 1.0, IMPORT_VISITS));
        let back = export_platform_book(&BookInfo::default(), &rows).unwrap();
        assert_eq!(back.positions[0].moves, vec![PlatformMove { value: 0.0030171957, actions: vec![3, 103] }]);
        assert_eq!(back.positions[0].fen, FEN);
    }

    /// The skip reason and message of a one-entry book whose moves are `moves`.
    fn skipped(moves: &str) -> (String, String) {
        let i = import_all(&format!(r#"{{"{FEN}": [0, {moves}]}}"#)).unwrap();
        assert_eq!(i.rows.len(), 1, "the entry is kept");
        let (reason, l) = i.left_out.iter().next().expect("one reason");
        assert_eq!((i.rows[0].skipped.as_deref(), l.count), (Some(*reason), 1));
        (reason.to_string(), l.examples[0].clone())
    }

    #[test]
    fn entries_that_cannot_be_replayed_are_kept_and_named() {
        // Lift c8, place on h4 (104 - 65 = 39, mirrored 31): not on the bishop's diagonal.
        let (r, e) = skipped("[[0, [3, 103]], [0, [3, 104]]]");
        assert_eq!(r, "illegal action");
        assert!(e.starts_with(&format!("position \"{FEN}\", move 2 [3, 104]: action 2, index 104 (Ph4): ")), "{e}");
        let (r, e) = skipped("[[0, [3]]]");
        assert!(r == "turn does not end" && e.contains("move 1 [3]: does not end the turn"), "{r}: {e}");
        let (r, e) = skipped("[[0, [3, 103, 1]]]");
        assert_eq!(r, "turn ends early");
        assert!(e.contains("move 1 [3, 103, 1]: the turn ends after action 2, so index 1 (action 3) is past its end"), "{e}");
        let (r, e) = skipped("[[0, [3, 103]], [1, [3, 103]]]");
        assert!(r == "move listed twice" && e.contains("move 2 [3, 103]: the same actions as move 1"), "{r}: {e}");
        // Kept verbatim: the actions the indices name, in the file's order, given back by export.
        let i = import_all(&format!(r#"{{"{FEN}": [0.5, [[0.25, [3, 103]], [-1.5, [3, 104]]]]}}"#)).unwrap();
        let row = &i.rows[0];
        let kept: Vec<(&str, u64, u32, f32)> = row.moves.iter().map(|m| (m.actions.as_str(), m.child, m.visits, m.logit)).collect();
        assert_eq!(kept, [("Lc8 Pg4", 0, 0, 0.25), ("Lc8 Ph4", 0, 0, -1.5)]);
        assert_eq!((row.fen.as_str(), row.value(), row.visits), (FEN, 0.5, 0));
        let back = export_platform_book(&BookInfo::default(), &i.rows).unwrap();
        let moves: Vec<(f32, Vec<u8>)> = back.positions[0].moves.iter().map(|m| (m.value, m.actions.clone())).collect();
        assert_eq!(moves, [(0.25, vec![3, 103]), (-1.5, vec![3, 104])]);
    }

    #[test]
    fn a_finished_game_and_a_piece_in_hand_are_skipped() {
        // The issue's entry: White's bishop already united with Black's king on e8 ('X').
        let over = "rnbqXbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQK1NR b 0 AHah - -";
        let i = import_all(&format!(r#"{{"{over}": [-1.0, [[0.0, [3, 94]]]]}}"#)).unwrap();
        assert_eq!(i.rows[0].skipped.as_deref(), Some("game over"));
        let e = &i.left_out["game over"].examples[0];
        assert!(e.contains(over) && e.contains("the game is over (PacoVictory(w)), yet the entry lists 1 moves"), "{e}");
        // Without moves a finished game is a usable (leaf) position.
        assert!(import(&format!(r#"{{"{over}": [-1.0, []]}}"#)).unwrap()[0].skipped.is_none());
        let lifted = "4k3/8/8/8/8/8/8/8^e1K w 0 - - -";
        let i = import_all(&format!(r#"{{"{lifted}": [0.0, [[0.0, [5, 69]]]]}}"#)).unwrap();
        assert_eq!(i.rows[0].skipped.as_deref(), Some("piece in hand"));
        assert_eq!(i.summary()[1], "  piece in hand: 1");
    }

    #[test]
    fn only_malformed_entries_are_refused() {
        let e = import(r#"{"8/8/8/8/8/8/8/8 w 0 - - -": [0, []]}"#).unwrap_err().to_string();
        assert!(e.starts_with("t.json: position \"8/8/8/8/8/8/8/8 w 0 - - -\": FEN: "), "{e}");
        let e = import(&format!(r#"{{"{FEN}": [1.5, []]}}"#)).unwrap_err().to_string();
        assert!(e.contains("position_value 1.5 is outside [-1, 1]"), "{e}");
    }

    #[test]
    fn positions_differing_only_in_the_half_move_count_are_all_kept() {
        // The issue's pair, and a third spelling (KQkq castling) of the first.
        let three = "rnbqkbnr/ppppp1pp/8/8/5a2/8/PPPP1PPP/RNBQKBNR w 3 AHah - -";
        let one = "rnbqkbnr/ppppp1pp/8/8/5a2/8/PPPP1PPP/RNBQKBNR w 1 AHah - -";
        let same = one.replace("AHah", "KQkq");
        let text = format!(r#"{{"{three}": [0.25, [[0.0, [2, 83]]]], "{one}": [0.5, [[0.0, [7, 86]]]], "{same}": [0.0, []]}}"#);
        let i = import_all(&text).unwrap();
        let fens: Vec<&str> = i.rows.iter().map(|r| r.fen.as_str()).collect();
        assert_eq!(fens, [one, &same, three], "the smallest half-move count first, then file order");
        assert!(i.rows.iter().all(|r| r.skipped.is_none() && r.hash == i.rows[0].hash));
        assert_eq!((i.rows[0].visits > 0, i.rows[1].visits, i.rows[2].visits), (true, 0, 0), "only the used row has weight");
        let l = &i.left_out[SAME_POSITION];
        assert_eq!(l.count, 2);
        assert_eq!(l.examples[0], format!("\"{three}\" (looked up as \"{one}\")"));
        let lookup = pacozero_data::book_lookup::lookup_rows(&i.rows);
        assert_eq!(lookup.rows.len(), 1);
        assert_eq!(lookup.rows[0].fen, one);
        // Export gives every key back with its value.
        let back = export_platform_book(&BookInfo::default(), &i.rows).unwrap();
        let value: std::collections::BTreeMap<&str, f32> = back.positions.iter().map(|p| (p.fen.as_str(), p.value)).collect();
        assert_eq!(value, std::collections::BTreeMap::from([(three, 0.25), (one, 0.5), (same.as_str(), 0.0)]));
    }

    #[test]
    fn softmax_shares_become_visits_and_priors_in_file_order() {
        let rows = import(&format!(r#"{{"{FEN}": [0.25, [[-1.0, [9, 81]], [0.5, [3, 103]], [-20, [16, 88]]]]}}"#)).unwrap();
        let r = &rows[0];
        assert_eq!(r.wdl, [0.25, 0.75, 0.0]);
        let logits: Vec<f32> = r.moves.iter().map(|m| m.logit).collect();
        assert_eq!(logits, [-1.0, 0.5, -20.0]);
        let names: Vec<&str> = r.moves.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["a7-a6", "Bc8-g4", "h7-h6"]);
        let z = 0.5f64.exp() + (-1f64).exp() + (-20f64).exp();
        assert!((r.moves[1].prior as f64 - 0.5f64.exp() / z).abs() < 1e-6);
        let visits: Vec<u32> = r.moves.iter().map(|m| m.visits).collect();
        assert_eq!(visits, [(10_000.0 * (-1f64).exp() / z).round() as u32, (10_000.0 * 0.5f64.exp() / z).round() as u32, 1]);
        assert_eq!(r.simulations, visits.iter().sum::<u32>());
        assert_eq!((r.depth, r.visits), (0, r.simulations));
    }

    #[test]
    fn depths_and_weights_follow_the_book_graph() {
        // Start -> (e2-e4) -> after e4; after e4 is reached, so it is not a start.
        let start = pacozero_engine::paco::STARTPOS_FEN;
        let mut g = GameState::new(Position::startpos());
        for a in parse_actions("Le2 Pe4").unwrap() {
            g.play(a).unwrap();
        }
        let after = g.position().fen();
        // e2-e4 is [13, 93] (e2 = 12, e4 = 28), Nb1-c3 [2, 83]; Black's e7-e5 mirrors e2-e4: [13, 93].
        let rows = import(&format!(r#"{{"{after}": [0, [[0, [13, 93]]]], "{start}": [0, [[0, [13, 93]], [-2, [2, 83]]]]}}"#)).unwrap();
        assert_eq!(rows[0].moves[0].name, "e2-e4");
        assert_eq!(rows[0].moves[1].name, "Nb1-c3");
        assert_eq!(rows[1].moves[0].name, "e7-e5");
        assert_eq!(rows[0].fen, start);
        assert_eq!((rows[0].depth, rows[1].depth), (0, 1));
        assert_eq!(rows[1].visits, rows[0].moves[0].visits, "a child's weight is the visits leading to it");
        assert_eq!(rows[0].visits, rows[0].simulations);
    }
}
