//! The opening-book format of the game's platform: one JSON object, read and
//! written exactly, knowing nothing of the rules (replaying its moves is
//! [`crate::book`]'s job).
//!
//! ## Format
//!
//! ```json
//! {"r1bqkb1r/ppp1pppp/2n2n2/3p4/3P1B2/2N2N2/PPP1PPPP/R2QKB1R b 7 AHah - -": [-0.048420716, [[0.0030171957, [3, 103]]]]}
//! ```
//!
//! | part | JSON | meaning |
//! |---|---|---|
//! | key | string | the position, a platform FEN `<board> <w\|b> <half-moves> <castling> <ep> -` at the start of a turn |
//! | `position_value` | number | value of the position for the side to move, in \[-1, 1\] |
//! | moves | array of `[move_value, actions]` | the book's turns at this position |
//! | `move_value` | number | a logit: the platform plays a book move with probability softmax(`move_value`) over the position's moves, so the highest is its preferred move |
//! | `actions` | array of integers | the turn's atomic actions as 1-based policy indices in the mover's frame |
//!
//! | action index | action | square |
//! |---|---|---|
//! | 1–64 | lift | index − 1 |
//! | 65–128 | place | index − 65 |
//! | 129–132 | promote to rook, knight, bishop, queen | — |
//!
//! Squares are a1 = 0 … h8 = 63, ranks mirrored (`square ^ 56`) when Black
//! is to move: Black's Bc8-g4 is `[3, 103]` (c8 = 58 → 2, g4 = 30 → 38). An
//! index is PacoZero's policy index plus one.
//!
//! ## What the reader checks
//!
//! The JSON shape, the numbers (finite; values are kept as `f32`, the
//! precision the platform writes), the action indices (integers in 1..=132),
//! and that no FEN appears twice. Every error names the file and, past the
//! JSON syntax, the FEN, the move (1-based) and the action index at fault.
//! Positions keep the order of the file.
//!
//! ## Writing
//!
//! [`write_platform_book`] writes one position per line, as the platform's
//! Python tools do (`", "` and `": "` separators), numbers in their shortest
//! `f32` form, to `<name>.tmp` then renamed into place
//! ([`pacozero_data::durable::write_atomic`]).

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// Highest action index of the format (promote to queen).
pub const MAX_PLATFORM_ACTION: u8 = 132;

/// One book move: a whole turn.
#[derive(Clone, Debug, PartialEq)]
pub struct PlatformMove {
    /// The softmax logit the platform samples book moves with.
    pub value: f32,
    /// 1-based policy indices in the mover's frame (1..=132).
    pub actions: Vec<u8>,
}

/// One book position.
#[derive(Clone, Debug, PartialEq)]
pub struct PlatformPosition {
    /// The platform FEN, as written in the file.
    pub fen: String,
    /// Value for the side to move.
    pub value: f32,
    pub moves: Vec<PlatformMove>,
}

/// A platform book: its positions in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlatformBook {
    pub positions: Vec<PlatformPosition>,
}

/// A platform book that cannot be read or written; every variant names the
/// file, and past the JSON syntax the FEN.
#[derive(Debug, thiserror::Error)]
pub enum PlatformBookError {
    #[error("{path}: I/O error: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Not JSON, or not a JSON object (serde's message has the line and column).
    #[error("{path}: not a platform book: {message}")]
    Json { path: PathBuf, message: String },
    /// An entry of the wrong shape or with a bad number.
    #[error("{path}: position \"{fen}\": {message}")]
    Entry { path: PathBuf, fen: String, message: String },
    /// An action that is not an integer in 1..=132.
    #[error(
        "{path}: position \"{fen}\", move {move_number}, action {action_number}: index {index} is not a platform action index (1-64 lift, 65-128 place, 129-132 promote)"
    )]
    ActionIndex { path: PathBuf, fen: String, move_number: usize, action_number: usize, index: String },
    /// The same FEN twice (JSON objects may repeat keys; the platform's cannot).
    #[error("{path}: position \"{fen}\" appears twice")]
    Duplicate { path: PathBuf, fen: String },
}

/// Object entries in file order, repeated keys kept (a map type would keep one silently).
struct Entries(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object mapping FENs to [position_value, [[move_value, [action, ...]], ...]]")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    out.push((k, map.next_value::<Value>()?));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(EntriesVisitor)
    }
}

/// Reads a platform book file.
pub fn read_platform_book(path: &Path) -> Result<PlatformBook, PlatformBookError> {
    let text = std::fs::read_to_string(path).map_err(|source| PlatformBookError::Io { path: path.into(), source })?;
    parse_platform_book(path, &text)
}

/// Parses a platform book; `path` is named in errors.
pub fn parse_platform_book(path: &Path, text: &str) -> Result<PlatformBook, PlatformBookError> {
    let json_err = |e: serde_json::Error| PlatformBookError::Json { path: path.into(), message: e.to_string() };
    let mut de = serde_json::Deserializer::from_str(text);
    let Entries(entries) = Entries::deserialize(&mut de).map_err(json_err)?;
    de.end().map_err(json_err)?;
    let mut seen = HashSet::new();
    let mut positions = Vec::with_capacity(entries.len());
    for (fen, v) in entries {
        if !seen.insert(fen.clone()) {
            return Err(PlatformBookError::Duplicate { path: path.into(), fen });
        }
        positions.push(parse_entry(path, fen, &v)?);
    }
    Ok(PlatformBook { positions })
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

fn parse_entry(path: &Path, fen: String, v: &Value) -> Result<PlatformPosition, PlatformBookError> {
    let entry = |message: String| PlatformBookError::Entry { path: path.into(), fen: fen.clone(), message };
    let shape = || entry(format!("expected [position_value, [[move_value, [action, ...]], ...]], found {}", short(v)));
    let [value, moves] = v.as_array().map(Vec::as_slice).ok_or_else(shape)? else { return Err(shape()) };
    let value = number(value).ok_or_else(|| entry(format!("position_value {} is not a finite number", short(value))))?;
    let moves = moves.as_array().ok_or_else(|| entry(format!("the moves {} are not an array", short(moves))))?;
    let mut out = Vec::with_capacity(moves.len());
    for (i, m) in moves.iter().enumerate() {
        let move_number = i + 1;
        let shape = || entry(format!("move {move_number}: expected [move_value, [action, ...]], found {}", short(m)));
        let [mv, actions] = m.as_array().map(Vec::as_slice).ok_or_else(shape)? else { return Err(shape()) };
        let mv = number(mv).ok_or_else(|| entry(format!("move {move_number}: move_value {} is not a finite number", short(mv))))?;
        let actions = actions.as_array().ok_or_else(|| entry(format!("move {move_number}: the actions {} are not an array", short(actions))))?;
        if actions.is_empty() {
            return Err(entry(format!("move {move_number} has no actions")));
        }
        let mut indices = Vec::with_capacity(actions.len());
        for (k, a) in actions.iter().enumerate() {
            match a.as_u64() {
                Some(x @ 1..=132) => indices.push(x as u8),
                _ => return Err(PlatformBookError::ActionIndex { path: path.into(), fen: fen.clone(), move_number, action_number: k + 1, index: short(a) }),
            }
        }
        out.push(PlatformMove { value: mv, actions: indices });
    }
    Ok(PlatformPosition { fen, value, moves: out })
}

/// A finite JSON number as `f32` (one too large for `f32` is not).
fn number(v: &Value) -> Option<f32> {
    let x = v.as_f64()? as f32;
    x.is_finite().then_some(x)
}

/// The book as the platform's JSON text, one position per line.
pub fn platform_book_json(path: &Path, book: &PlatformBook) -> Result<String, PlatformBookError> {
    use fmt::Write;
    let mut s = String::from("{");
    for (i, p) in book.positions.iter().enumerate() {
        let entry = |message: String| PlatformBookError::Entry { path: path.into(), fen: p.fen.clone(), message };
        let num = |x: f32, what: &str| {
            if x.is_finite() {
                Ok(serde_json::to_string(&x).expect("a finite f32 serialises"))
            } else {
                Err(entry(format!("{what} {x} is not finite")))
            }
        };
        s.push_str(if i == 0 { "\n" } else { ",\n" });
        let fen = serde_json::to_string(&p.fen).expect("a string serialises");
        let _ = write!(s, "{fen}: [{}, [", num(p.value, "position_value")?);
        for (j, m) in p.moves.iter().enumerate() {
            if let Some(&a) = m.actions.iter().find(|&&a| !(1..=MAX_PLATFORM_ACTION).contains(&a)) {
                return Err(entry(format!("move {}: index {a} is not a platform action index", j + 1)));
            }
            let actions = m.actions.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ");
            let _ = write!(s, "{}[{}, [{actions}]]", if j == 0 { "" } else { ", " }, num(m.value, &format!("move {}: move_value", j + 1))?);
        }
        s.push_str("]]");
    }
    s.push_str("\n}\n");
    Ok(s)
}

/// Writes a platform book atomically (`<path>.tmp`, sync, rename).
pub fn write_platform_book(path: &Path, book: &PlatformBook) -> Result<(), PlatformBookError> {
    let text = platform_book_json(path, book)?;
    pacozero_data::durable::write_atomic(path, &[text.as_bytes()]).map_err(|e| PlatformBookError::Io { path: e.path, source: e.source })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"{"r1bqkb1r/ppp1pppp/2n2n2/3p4/3P1B2/2N2N2/PPP1PPPP/R2QKB1R b 7 AHah - -": [-0.048420716, [[0.0030171957, [3, 103]]]]}"#;

    fn parse(text: &str) -> Result<PlatformBook, PlatformBookError> {
        parse_platform_book(Path::new("b.json"), text)
    }

    #[test]
    fn reads_the_platform_example_and_writes_it_back() {
        let b = parse(EXAMPLE).unwrap();
        assert_eq!(b.positions.len(), 1);
        let p = &b.positions[0];
        assert_eq!(p.fen, "r1bqkb1r/ppp1pppp/2n2n2/3p4/3P1B2/2N2N2/PPP1PPPP/R2QKB1R b 7 AHah - -");
        assert_eq!(p.value, -0.048420716);
        assert_eq!(p.moves, vec![PlatformMove { value: 0.0030171957, actions: vec![3, 103] }]);
        let text = platform_book_json(Path::new("b.json"), &b).unwrap();
        assert_eq!(text.trim().replace('\n', ""), EXAMPLE, "the shortest f32 forms are the platform's digits");
        assert_eq!(parse(&text).unwrap(), b);
    }

    #[test]
    fn keeps_file_order_and_empty_move_lists() {
        let b = parse(r#"{"z w 0 - - -": [1, []], "a w 0 - - -": [0, [[-2.5, [1]], [3, [65, 129]]]]}"#).unwrap();
        let fens: Vec<&str> = b.positions.iter().map(|p| p.fen.as_str()).collect();
        assert_eq!(fens, ["z w 0 - - -", "a w 0 - - -"]);
        assert!(b.positions[0].moves.is_empty());
        assert_eq!(b.positions[1].moves[1].actions, [65, 129]);
        assert_eq!(parse(&platform_book_json(Path::new("x"), &b).unwrap()).unwrap(), b);
        assert_eq!(parse("{}").unwrap(), PlatformBook::default());
    }

    #[test]
    fn errors_name_the_file_the_fen_the_move_and_the_index() {
        let err = |t: &str| parse(t).unwrap_err().to_string();
        let e = err("[1, 2]");
        assert!(e.starts_with("b.json: not a platform book:") && e.contains("line 1"), "{e}");
        let e = err(r#"{"f w": [0, []]} x"#);
        assert!(e.contains("trailing"), "{e}");
        let e = err(r#"{"f w": [0, []], "f w": [1, []]}"#);
        assert_eq!(e, "b.json: position \"f w\" appears twice");
        let e = err(r#"{"f w": [0]}"#);
        assert!(e.starts_with("b.json: position \"f w\": expected [position_value"), "{e}");
        let e = err(r#"{"f w": ["x", []]}"#);
        assert!(e.contains("position_value \"x\" is not a finite number"), "{e}");
        let e = err(r#"{"f w": [1e50, []]}"#);
        assert!(e.contains("not a finite number"), "{e}");
        let e = err(r#"{"f w": [0, [[0.5, [3, 0]]]]}"#);
        assert!(e.starts_with("b.json: position \"f w\", move 1, action 2: index 0 is not"), "{e}");
        let e = err(r#"{"f w": [0, [[0.5, [3]], [0.1, [133]]]]}"#);
        assert!(e.contains("move 2, action 1: index 133"), "{e}");
        let e = err(r#"{"f w": [0, [[0.5, [2.5]]]]}"#);
        assert!(e.contains("index 2.5"), "{e}");
        let e = err(r#"{"f w": [0, [[0.5, []]]]}"#);
        assert!(e.contains("move 1 has no actions"), "{e}");
        let e = err(r#"{"f w": [0, [[null, [1]]]]}"#);
        assert!(e.contains("move 1: move_value null"), "{e}");
    }

    #[test]
    fn long_values_are_cut_to_sixty_characters_in_errors() {
        let of = |n: usize| Value::String("x".repeat(n - 2));
        assert_eq!(short(&of(60)), format!("\"{}\"", "x".repeat(58)), "60 characters are shown whole");
        assert_eq!(short(&of(61)), format!("\"{}...", "x".repeat(56)), "61 are cut to 57 and an ellipsis");
        let e = parse("[1, 2]").unwrap_err().to_string();
        assert!(e.contains("expected a JSON object mapping FENs to [position_value"), "{e}");
    }

    #[test]
    fn writer_refuses_what_the_reader_would() {
        let mut b = parse(EXAMPLE).unwrap();
        b.positions[0].moves[0].value = f32::NAN;
        let e = platform_book_json(Path::new("o.json"), &b).unwrap_err().to_string();
        assert!(e.starts_with("o.json: position \"r1bqkb1r") && e.contains("move 1: move_value NaN"), "{e}");
        b.positions[0].moves[0] = PlatformMove { value: 0.0, actions: vec![0] };
        assert!(platform_book_json(Path::new("o.json"), &b).is_err());
    }

    #[test]
    fn writes_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.json");
        let b = parse(EXAMPLE).unwrap();
        write_platform_book(&path, &b).unwrap();
        assert_eq!(read_platform_book(&path).unwrap(), b);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
        let e = read_platform_book(&dir.path().join("none.json")).unwrap_err().to_string();
        assert!(e.contains("none.json: I/O error"), "{e}");
    }
}
