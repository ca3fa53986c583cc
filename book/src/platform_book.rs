//! Paco Ŝako books in the platform's JSON format
//! ([`pacozero_data::platform_book`]): every position checked and every move
//! replayed by the engine on import, our books' statistics turned into the
//! platform's numbers on export.
//!
//! ## Import: a platform book as one of ours
//!
//! | platform | our book (`pacozero_data::book`) |
//! |---|---|
//! | FEN | `fen` (the engine's notation of the validated position) and `hash` |
//! | `position_value` v | `wdl` = (max(v, 0), 1 − \|v\|, max(−v, 0)), so `value` = v exactly |
//! | `move_value` | `logit` (kept exactly, so export gives it back) |
//! | softmax of the `move_value`s, p | `prior` = p; `visits` = max(1, round(p · 10,000)) |
//! | `actions` | replayed: `actions` (`"Lc8 Pg4"`), `name` (`Bc8-g4`), `child` |
//! | — | each move's `wdl` is the position's (the platform gives no value per move) |
//!
//! Moves are stored highest logit first, `simulations` is the sum of a
//! position's move visits, and `depth` and the book weight `visits` follow
//! the book's own definitions from its start positions: the positions no book
//! move leads to (where moves form a cycle with no such position, the first
//! of the cycle in file order). Self-play's book starts (weights
//! `visits^(1/T)`) and arena openings therefore work on an imported book as
//! on a built one.
//!
//! A move is refused, with its FEN, its number and its action index, if an
//! action is illegal, if the turn ends before its last action, or if it does
//! not end the turn (the other side to move, or the game over).
//!
//! ## Export: one of our books for the platform
//!
//! `position_value` is the position's value for the side to move and
//! `move_value` the move's logit: for a built book ln(visit share), whose
//! softmax is the visit distribution; for an imported book the platform's own
//! number. Moves without visits in a book written before logits were stored
//! (logit −∞) are left out: the book never plays them.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use pacozero_data::book::{BookInfo, BookMove, BookPosition};
use pacozero_data::platform_book::{PlatformBook, PlatformBookError, PlatformMove, PlatformPosition};
use pacozero_engine::paco::{action_from_index, action_index, parse_actions, turn_to_string, GameState, Position};
use pacozero_engine::Game;

use pacozero_search::turns::actions_text;

/// Total visits an imported position's moves share (rounding: a move of
/// probability p gets round(p · `IMPORT_VISITS`), at least 1).
pub const IMPORT_VISITS: u32 = 10_000;

/// What the engine refuses in a platform book; every variant names the file
/// and the FEN, and a move's errors its number (1-based) and action index.
#[derive(Debug, thiserror::Error)]
pub enum PlatformImportError {
    #[error(transparent)]
    Format(#[from] PlatformBookError),
    #[error("{path}: position \"{fen}\": {message}")]
    Position { path: PathBuf, fen: String, message: String },
    #[error("{path}: positions \"{first}\" and \"{second}\" are the same position")]
    SamePosition { path: PathBuf, first: String, second: String },
    /// A refused move (boxed: the other variants stay small).
    #[error(transparent)]
    Move(Box<MoveError>),
}

/// A refused book move: the file, the FEN, the move's number (1-based) and
/// its action indices, and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("{path}: position \"{fen}\", move {move_number} {indices:?}: {problem}")]
pub struct MoveError {
    pub path: PathBuf,
    pub fen: String,
    pub move_number: usize,
    pub indices: Vec<u8>,
    pub problem: MoveProblem,
}

/// What is wrong with a refused move.
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

/// What cannot be exported; names the FEN.
#[derive(Debug, thiserror::Error)]
pub enum PlatformExportError {
    #[error("the platform's book format is for Paco Ŝako; this book is for '{0}'")]
    Game(String),
    #[error("position \"{fen}\": {message}")]
    Position { fen: String, message: String },
}

/// A platform book replayed into our book's rows (`path` is named in
/// errors), ordered like a saved book: by depth, weight (descending), hash.
pub fn import_platform_book(path: &Path, book: &PlatformBook) -> Result<Vec<BookPosition>, PlatformImportError> {
    let mut rows: Vec<BookPosition> = Vec::with_capacity(book.positions.len());
    let mut by_hash: HashMap<u64, usize> = HashMap::new();
    for p in &book.positions {
        let row = import_position(path, p)?;
        if let Some(&k) = by_hash.get(&row.hash) {
            return Err(PlatformImportError::SamePosition { path: path.into(), first: book.positions[k].fen.clone(), second: p.fen.clone() });
        }
        by_hash.insert(row.hash, rows.len());
        rows.push(row);
    }
    set_depths_and_weights(&mut rows);
    rows.sort_by(|a, b| a.depth.cmp(&b.depth).then(b.visits.cmp(&a.visits)).then(a.hash.cmp(&b.hash)));
    Ok(rows)
}

fn import_position(path: &Path, p: &PlatformPosition) -> Result<BookPosition, PlatformImportError> {
    let err = |message: String| PlatformImportError::Position { path: path.into(), fen: p.fen.clone(), message };
    let pos: Position = p.fen.parse().map_err(|e| err(format!("{e}")))?;
    let start = GameState::new(pos);
    if !start.is_turn_start() {
        return Err(err("a piece is in hand: book positions start a turn".into()));
    }
    let v = p.value;
    if !(-1.0..=1.0).contains(&v) {
        return Err(err(format!("position_value {v} is outside [-1, 1]")));
    }
    let wdl = [v.max(0.0), 1.0 - v.abs(), (-v).max(0.0)];
    let mover = pos.side_to_move();
    let mut seen: HashMap<&[u8], usize> = HashMap::new();
    let mut moves = Vec::with_capacity(p.moves.len());
    for (j, m) in p.moves.iter().enumerate() {
        let move_number = j + 1;
        let refuse = |problem: MoveProblem| {
            PlatformImportError::Move(Box::new(MoveError { path: path.into(), fen: p.fen.clone(), move_number, indices: m.actions.clone(), problem }))
        };
        if let Some(&first) = seen.get(m.actions.as_slice()) {
            return Err(refuse(MoveProblem::Duplicate { first }));
        }
        seen.insert(&m.actions, move_number);
        let mut g = start.clone();
        let mut actions = Vec::with_capacity(m.actions.len());
        for (k, &index) in m.actions.iter().enumerate() {
            if g.to_move() != mover || g.outcome().is_some() {
                return Err(refuse(MoveProblem::PastTurnEnd { ended_after: k, index }));
            }
            let a = action_from_index(index as usize - 1, mover).expect("the format reader checks 1..=132");
            g.play(a).map_err(|e| refuse(MoveProblem::Illegal { action_number: k + 1, index, action: a.to_string(), reason: e.to_string() }))?;
            actions.push(a);
        }
        if g.to_move() == mover && g.outcome().is_none() {
            let index = *m.actions.last().expect("the format reader refuses empty moves");
            return Err(refuse(MoveProblem::TurnNotEnded { index }));
        }
        moves.push(BookMove {
            name: turn_to_string(&pos, &actions),
            actions: actions_text(&actions),
            child: g.position().hash(),
            visits: 0,
            prior: 0.0,
            wdl,
            logit: m.value,
        });
    }
    // Softmax in f64 from the largest logit, so that no weight overflows.
    let top = moves.iter().map(|m| m.logit as f64).fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = moves.iter().map(|m| (m.logit as f64 - top).exp()).collect();
    let sum: f64 = weights.iter().sum();
    for (m, w) in moves.iter_mut().zip(&weights) {
        let share = w / sum;
        m.prior = share as f32;
        m.visits = ((share * IMPORT_VISITS as f64).round() as u32).max(1);
    }
    moves.sort_by(|a, b| b.logit.total_cmp(&a.logit));
    let simulations = moves.iter().map(|m| m.visits).sum();
    Ok(BookPosition { hash: pos.hash(), fen: pos.fen(), depth: 0, visits: 0, simulations, wdl, moves })
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
    if !info.game.is_empty() && info.game != <GameState as Game>::NAME {
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
    BookInfo { game: <GameState as Game>::NAME.into(), network: format!("platform:{name}"), config: String::new() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_data::platform_book::parse_platform_book;
    use pacozero_engine::paco::Action;

    const FEN: &str = "r1bqkb1r/ppp1pppp/2n2n2/3p4/3P1B2/2N2N2/PPP1PPPP/R2QKB1R b 7 AHah - -";

    fn import(text: &str) -> Result<Vec<BookPosition>, PlatformImportError> {
        import_platform_book(Path::new("t.json"), &parse_platform_book(Path::new("t.json"), text).unwrap())
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

    #[test]
    fn refusals_name_the_fen_the_move_and_the_index() {
        let err = |moves: &str| import(&format!(r#"{{"{FEN}": [0, {moves}]}}"#)).unwrap_err().to_string();
        // Lift c8, place on h4 (104 - 65 = 39, mirrored 31): not on the bishop's diagonal.
        let e = err("[[0, [3, 103]], [0, [3, 104]]]");
        assert!(e.starts_with(&format!("t.json: position \"{FEN}\", move 2 [3, 104]: action 2, index 104 (Ph4): ")), "{e}");
        let e = err("[[0, [3]]]");
        assert!(e.contains("move 1 [3]: does not end the turn"), "{e}");
        let e = err("[[0, [3, 103, 1]]]");
        assert!(e.contains("move 1 [3, 103, 1]: the turn ends after action 2, so index 1 (action 3) is past its end"), "{e}");
        let e = err("[[0, [3, 103]], [1, [3, 103]]]");
        assert!(e.contains("move 2 [3, 103]: the same actions as move 1"), "{e}");
        let e = import(r#"{"8/8/8/8/8/8/8/8 w 0 - - -": [0, []]}"#).unwrap_err().to_string();
        assert!(e.starts_with("t.json: position \"8/8/8/8/8/8/8/8 w 0 - - -\": "), "{e}");
        let e = import(&format!(r#"{{"{FEN}": [1.5, []]}}"#)).unwrap_err().to_string();
        assert!(e.contains("position_value 1.5 is outside [-1, 1]"), "{e}");
        let same = FEN.replace("AHah", "KQkq");
        let e = import(&format!(r#"{{"{FEN}": [0, []], "{same}": [0, []]}}"#)).unwrap_err().to_string();
        assert!(e.contains("are the same position"), "{e}");
    }

    #[test]
    fn softmax_shares_become_visits_and_priors_highest_first() {
        let rows = import(&format!(r#"{{"{FEN}": [0.25, [[-1.0, [9, 81]], [0.5, [3, 103]], [-20, [16, 88]]]]}}"#)).unwrap();
        let r = &rows[0];
        assert_eq!(r.wdl, [0.25, 0.75, 0.0]);
        let logits: Vec<f32> = r.moves.iter().map(|m| m.logit).collect();
        assert_eq!(logits, [0.5, -1.0, -20.0]);
        let names: Vec<&str> = r.moves.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["Bc8-g4", "a7-a6", "h7-h6"]);
        let z = 0.5f64.exp() + (-1f64).exp() + (-20f64).exp();
        assert!((r.moves[0].prior as f64 - 0.5f64.exp() / z).abs() < 1e-6);
        let visits: Vec<u32> = r.moves.iter().map(|m| m.visits).collect();
        assert_eq!(visits, [(10_000.0 * 0.5f64.exp() / z).round() as u32, (10_000.0 * (-1f64).exp() / z).round() as u32, 1]);
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
