//! Opening books: one Parquet file of whole-turn positions with the statistics
//! of their book moves, written by `pacozero book build` and read by
//! `book probe`/`book export` and by self-play (`start_positions = "book"`).
//!
//! The format knows nothing about the game: positions are FEN strings with a
//! 64-bit hash, moves are names plus the atomic actions that play them.
//!
//! ## Positions table (one row per book position)
//!
//! | column | Arrow type | meaning |
//! |---|---|---|
//! | `book_version` | UInt16 | format version, currently `1`; readers refuse other values |
//! | `hash` | UInt64 | the engine's position hash (transpositions share one row; its keys are pinned by `engine/tests/hash_keys.rs`) |
//! | `fen` | Utf8 | the position (always the start of a turn) |
//! | `depth` | UInt32 | turns from the nearest start position of the book (0 = a start position) |
//! | `visits` | UInt32 | book weight: for a start position the visits of its own search, otherwise the sum of the visits its parents' searches gave the moves leading here |
//! | `simulations` | UInt32 | visits of the position's own search (its root) |
//! | `value` | Float32 | root value in \[-1, 1\], mover's perspective |
//! | `wdl` | FixedSizeList\<Float32, 3\> | root (win, draw, loss), mover's perspective |
//! | `move_names` | List\<Utf8\> | book moves (whole turns) in the game's turn notation, most visited first |
//! | `move_actions` | List\<Utf8\> | the same moves as space-separated atomic actions (e.g. `"Le2 Pe4"`) |
//! | `move_children` | List\<UInt64\> | hash of the position each move leads to |
//! | `move_visits` | List\<UInt32\> | visits of each move in the position's search |
//! | `move_priors` | List\<Float32\> | network prior of each move (product over its atomic decisions) |
//! | `move_values` | List\<Float32\> | value of each move, mover's perspective (`win - loss`) |
//! | `move_win`, `move_draw`, `move_loss` | List\<Float32\> | (win, draw, loss) of each move, mover's perspective |
//! | `move_logits` | List\<Float32\> | optional: each move's logit, softmax over a position's logits is the probability the book plays it (a built book: ln of the move's share of the visits; a book imported from the platform: its `move_value`) |
//! | `skipped` | Utf8 | optional: empty for a usable row; otherwise why an imported platform entry cannot be replayed (e.g. `game over`), a row kept only so that export gives it back |
//!
//! All columns are non-null and the `move_*` lists of a row have one length.
//! `move_logits` and `skipped` came after version 1 without a version change:
//! older readers ignore them; for a file without `move_logits` the logits are
//! the visit shares' logs, and without `skipped` every row is usable.
//!
//! A skipped row keeps its entry verbatim: its `fen` as written, its moves'
//! platform action indices as `move_actions` (the actions they name, legal
//! or not; `move_names` the same text), `move_children` 0, no visits. Rows
//! of one position (one `hash`) may repeat when their FENs differ only in
//! the half-move count (the platform keys its books by the whole FEN);
//! readers that need one row per position take the first usable one.
//! The key-value metadata holds `book_version`, `game`, `network` (the model
//! that searched) and `config` (the build configuration as TOML).
//!
//! Files are written to `<name>.tmp`, fsynced and renamed into place, so a
//! reader never sees half a book.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, FixedSizeListBuilder, Float32Builder, ListBuilder, RecordBatch, StringBuilder, UInt16Builder, UInt32Builder, UInt64Builder,
};
use arrow::datatypes::{DataType, Field, Float32Type, Schema, SchemaRef, UInt16Type, UInt32Type, UInt64Type};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use crate::error::{arrow_err, pq_err, DataError, Result};
use crate::schema::item;

/// Book format version written by this build and the only one it reads.
pub const BOOK_VERSION: u16 = 1;

/// One move (a whole turn) of a book position.
#[derive(Clone, Debug, PartialEq)]
pub struct BookMove {
    /// Turn notation, e.g. `"Nb1-c3"` or `"Bf3xe4>c3>c6"`.
    pub name: String,
    /// Space-separated atomic actions, e.g. `"Lb1 Pc3"`.
    pub actions: String,
    /// Hash of the resulting position.
    pub child: u64,
    pub visits: u32,
    pub prior: f32,
    /// (win, draw, loss) for the player making the move.
    pub wdl: [f32; 3],
    /// Softmax over a position's logits gives the probability the book plays
    /// each move (see `move_logits` in the module documentation).
    pub logit: f32,
}

impl BookMove {
    /// `win - loss` for the player making the move.
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

/// The logit of a move with `visits` of a position's `total` move visits:
/// softmax over these reproduces the visit distribution.
pub fn visit_logit(visits: u32, total: u64) -> f32 {
    (visits as f64 / total.max(1) as f64).ln() as f32
}

/// One book position.
#[derive(Clone, Debug, PartialEq)]
pub struct BookPosition {
    pub hash: u64,
    pub fen: String,
    /// Turns from the nearest start position (0 = a start position).
    pub depth: u32,
    /// Book weight (see the module documentation).
    pub visits: u32,
    /// Visits of the position's own search.
    pub simulations: u32,
    /// Root (win, draw, loss) for the player to move.
    pub wdl: [f32; 3],
    /// Book moves: a built book's most visited first, an imported one's in
    /// the platform file's order.
    pub moves: Vec<BookMove>,
    /// Why the row cannot be used (an imported entry kept only for export),
    /// `None` for a usable row.
    pub skipped: Option<String>,
}

impl BookPosition {
    /// `win - loss` for the player to move.
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

/// File-level information of a book.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BookInfo {
    /// Game name (e.g. `"paco"`).
    pub game: String,
    /// Model that searched the positions.
    pub network: String,
    /// Build configuration (TOML).
    pub config: String,
}

const MOVE_LISTS: [&str; 9] =
    ["move_names", "move_actions", "move_children", "move_visits", "move_priors", "move_values", "move_win", "move_draw", "move_loss"];

fn list_field(name: &str, dt: DataType) -> Field {
    Field::new(name, DataType::List(item(dt)), false)
}

/// The Arrow schema of a book file.
pub fn book_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("book_version", DataType::UInt16, false),
        Field::new("hash", DataType::UInt64, false),
        Field::new("fen", DataType::Utf8, false),
        Field::new("depth", DataType::UInt32, false),
        Field::new("visits", DataType::UInt32, false),
        Field::new("simulations", DataType::UInt32, false),
        Field::new("value", DataType::Float32, false),
        Field::new("wdl", DataType::FixedSizeList(item(DataType::Float32), 3), false),
        list_field("move_names", DataType::Utf8),
        list_field("move_actions", DataType::Utf8),
        list_field("move_children", DataType::UInt64),
        list_field("move_visits", DataType::UInt32),
        list_field("move_priors", DataType::Float32),
        list_field("move_values", DataType::Float32),
        list_field("move_win", DataType::Float32),
        list_field("move_draw", DataType::Float32),
        list_field("move_loss", DataType::Float32),
        list_field(MOVE_LOGITS, DataType::Float32),
        Field::new(SKIPPED, DataType::Utf8, false),
    ]))
}

/// The optional columns (see the module documentation).
const MOVE_LOGITS: &str = "move_logits";
const SKIPPED: &str = "skipped";
const OPTIONAL: [&str; 2] = [MOVE_LOGITS, SKIPPED];

/// The columns of `book_schema` whose names `keep` accepts.
fn schema_of(keep: impl Fn(&str) -> bool) -> SchemaRef {
    let full = book_schema();
    Arc::new(Schema::new(full.fields().iter().filter(|f| keep(f.name())).cloned().collect::<Vec<_>>()))
}

fn book_batch(positions: &[BookPosition]) -> arrow::error::Result<RecordBatch> {
    let n = positions.len();
    let mut version = UInt16Builder::with_capacity(n);
    let mut hash = UInt64Builder::with_capacity(n);
    let mut fen = StringBuilder::new();
    let mut depth = UInt32Builder::with_capacity(n);
    let mut visits = UInt32Builder::with_capacity(n);
    let mut sims = UInt32Builder::with_capacity(n);
    let mut value = Float32Builder::with_capacity(n);
    let mut wdl = FixedSizeListBuilder::new(Float32Builder::new(), 3).with_field(item(DataType::Float32));
    let mut names = ListBuilder::new(StringBuilder::new()).with_field(item(DataType::Utf8));
    let mut actions = ListBuilder::new(StringBuilder::new()).with_field(item(DataType::Utf8));
    let mut children = ListBuilder::new(UInt64Builder::new()).with_field(item(DataType::UInt64));
    let mut mvisits = ListBuilder::new(UInt32Builder::new()).with_field(item(DataType::UInt32));
    let float_list = || ListBuilder::new(Float32Builder::new()).with_field(item(DataType::Float32));
    let (mut priors, mut values, mut win, mut draw, mut loss, mut logits) =
        (float_list(), float_list(), float_list(), float_list(), float_list(), float_list());
    let mut skipped = StringBuilder::new();
    for p in positions {
        skipped.append_value(p.skipped.as_deref().unwrap_or(""));
        version.append_value(BOOK_VERSION);
        hash.append_value(p.hash);
        fen.append_value(&p.fen);
        depth.append_value(p.depth);
        visits.append_value(p.visits);
        sims.append_value(p.simulations);
        value.append_value(p.value());
        wdl.values().append_slice(&p.wdl);
        wdl.append(true);
        for m in &p.moves {
            names.values().append_value(&m.name);
            actions.values().append_value(&m.actions);
            children.values().append_value(m.child);
            mvisits.values().append_value(m.visits);
            priors.values().append_value(m.prior);
            values.values().append_value(m.value());
            win.values().append_value(m.wdl[0]);
            draw.values().append_value(m.wdl[1]);
            loss.values().append_value(m.wdl[2]);
            logits.values().append_value(m.logit);
        }
        names.append(true);
        actions.append(true);
        children.append(true);
        mvisits.append(true);
        priors.append(true);
        values.append(true);
        win.append(true);
        draw.append(true);
        loss.append(true);
        logits.append(true);
    }
    let cols: Vec<ArrayRef> = vec![
        Arc::new(version.finish()),
        Arc::new(hash.finish()),
        Arc::new(fen.finish()),
        Arc::new(depth.finish()),
        Arc::new(visits.finish()),
        Arc::new(sims.finish()),
        Arc::new(value.finish()),
        Arc::new(wdl.finish()),
        Arc::new(names.finish()),
        Arc::new(actions.finish()),
        Arc::new(children.finish()),
        Arc::new(mvisits.finish()),
        Arc::new(priors.finish()),
        Arc::new(values.finish()),
        Arc::new(win.finish()),
        Arc::new(draw.finish()),
        Arc::new(loss.finish()),
        Arc::new(logits.finish()),
        Arc::new(skipped.finish()),
    ];
    RecordBatch::try_new(book_schema(), cols)
}

/// Writes a book atomically (`<path>.tmp`, fsync, rename).
pub fn write_book(path: &Path, info: &BookInfo, positions: &[BookPosition]) -> Result<()> {
    let batch = book_batch(positions).map_err(arrow_err(path))?;
    let kv = vec![
        KeyValue::new("book_version".to_string(), BOOK_VERSION.to_string()),
        KeyValue::new("game".to_string(), info.game.clone()),
        KeyValue::new("network".to_string(), info.network.clone()),
        KeyValue::new("config".to_string(), info.config.clone()),
    ];
    let level = ZstdLevel::try_new(3).map_err(pq_err(path))?;
    let props = WriterProperties::builder().set_compression(Compression::ZSTD(level)).set_key_value_metadata(Some(kv)).build();
    let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).map_err(pq_err(path))?;
    w.write(&batch).map_err(pq_err(path))?;
    let bytes = w.into_inner().map_err(pq_err(path))?;
    crate::durable::write_atomic(path, &[&bytes])?;
    Ok(())
}

fn bad(path: &Path, column: &str, row: usize, message: impl Into<String>) -> DataError {
    DataError::BadValue { path: path.into(), column: column.into(), row, message: message.into() }
}

/// Reads a book: its file information and every position, validated
/// (version, non-null values, one length for the `move_*` lists of a row,
/// finite statistics).
pub fn read_book(path: &Path) -> Result<(BookInfo, Vec<BookPosition>)> {
    let file = crate::bounded::BoundedFile::open(path)?;
    let meta = file.key_values();
    match meta.get("book_version") {
        None => return Err(DataError::Metadata { path: path.into(), message: "no `book_version` key: not an opening book".into() }),
        Some(v) if v != &BOOK_VERSION.to_string() => {
            return Err(DataError::SchemaVersion { path: path.into(), found: format!("{v} (book_version)"), oldest: BOOK_VERSION, expected: BOOK_VERSION })
        }
        _ => {}
    }
    let info = BookInfo {
        game: meta.get("game").cloned().unwrap_or_default(),
        network: meta.get("network").cloned().unwrap_or_default(),
        config: meta.get("config").cloned().unwrap_or_default(),
    };
    let required = schema_of(|name| !OPTIONAL.contains(&name));
    crate::reader::check_schema(path, file.schema(), &required)?;
    let mut columns: Vec<&str> = required.fields().iter().map(|f| f.name().as_str()).collect();
    for name in OPTIONAL {
        if file.schema().field_with_name(name).is_ok() {
            crate::reader::check_schema(path, file.schema(), &schema_of(|n| n == name))?;
            columns.push(name);
        }
    }
    // A book's move lists have no length the format bounds: only the
    // decoded bytes of each row group are.
    let mut out = Vec::new();
    file.read(&columns, &|_| None, |batch| read_rows(path, &batch, &mut out))?;
    Ok((info, out))
}

fn column<'a>(path: &Path, batch: &'a RecordBatch, name: &str, base: usize) -> Result<&'a ArrayRef> {
    let col = batch.column_by_name(name).ok_or_else(|| DataError::MissingColumn { path: path.into(), column: name.into() })?;
    if let Some(i) = (0..col.len()).find(|&i| col.is_null(i)) {
        return Err(bad(path, name, base + i, "null value"));
    }
    Ok(col)
}

/// A list column's item array and offsets (items must be non-null).
fn list_column<'a>(path: &Path, batch: &'a RecordBatch, name: &str, base: usize) -> Result<(&'a ArrayRef, &'a [i32])> {
    let list = column(path, batch, name, base)?.as_list::<i32>();
    if list.values().null_count() > 0 {
        return Err(bad(path, name, base, "null list item"));
    }
    Ok((list.values(), list.value_offsets()))
}

fn read_rows(path: &Path, batch: &RecordBatch, out: &mut Vec<BookPosition>) -> Result<()> {
    let base = out.len();
    let version = column(path, batch, "book_version", base)?.as_primitive::<UInt16Type>();
    if let Some((i, v)) = version.values().iter().enumerate().find(|(_, &v)| v != BOOK_VERSION) {
        return Err(DataError::SchemaVersion {
            path: path.into(),
            found: format!("{v} (column book_version, row {})", base + i),
            oldest: BOOK_VERSION,
            expected: BOOK_VERSION,
        });
    }
    let hash = column(path, batch, "hash", base)?.as_primitive::<UInt64Type>().values();
    let fen = column(path, batch, "fen", base)?.as_string::<i32>();
    let depth = column(path, batch, "depth", base)?.as_primitive::<UInt32Type>().values();
    let visits = column(path, batch, "visits", base)?.as_primitive::<UInt32Type>().values();
    let sims = column(path, batch, "simulations", base)?.as_primitive::<UInt32Type>().values();
    let wdl = column(path, batch, "wdl", base)?.as_fixed_size_list();
    let wdl_v = wdl.values().as_primitive::<Float32Type>().values();
    let mut offsets: Vec<&[i32]> = Vec::new();
    let mut items: Vec<&ArrayRef> = Vec::new();
    for name in MOVE_LISTS {
        let (v, o) = list_column(path, batch, name, base)?;
        items.push(v);
        offsets.push(o);
    }
    let names = items[0].as_string::<i32>();
    let actions = items[1].as_string::<i32>();
    let children = items[2].as_primitive::<UInt64Type>().values();
    let mvisits = items[3].as_primitive::<UInt32Type>().values();
    let floats: Vec<&[f32]> = items[4..].iter().map(|a| a.as_primitive::<Float32Type>().values().as_ref()).collect();
    let logits = match batch.column_by_name(MOVE_LOGITS) {
        Some(_) => {
            let (v, o) = list_column(path, batch, MOVE_LOGITS, base)?;
            if o != offsets[0] {
                let i = (0..batch.num_rows()).find(|&i| o[i + 1] - o[i] != offsets[0][i + 1] - offsets[0][i]).unwrap_or(0);
                return Err(bad(path, MOVE_LOGITS, base + i, format!("{} items, but move_names has {}", o[i + 1] - o[i], offsets[0][i + 1] - offsets[0][i])));
            }
            Some(v.as_primitive::<Float32Type>().values().as_ref())
        }
        None => None,
    };
    let skipped = match batch.column_by_name(SKIPPED) {
        Some(_) => Some(column(path, batch, SKIPPED, base)?.as_string::<i32>()),
        None => None,
    };
    for i in 0..batch.num_rows() {
        let row = base + i;
        let (start, end) = (offsets[0][i] as usize, offsets[0][i + 1] as usize);
        for (k, o) in offsets.iter().enumerate().skip(1) {
            if o[i] as usize != start || o[i + 1] as usize != end {
                return Err(bad(path, MOVE_LISTS[k], row, format!("{} items, but move_names has {}", o[i + 1] - o[i], end - start)));
            }
        }
        let w0 = wdl.value_offset_at(i) as usize;
        let pos_wdl = [wdl_v[w0], wdl_v[w0 + 1], wdl_v[w0 + 2]];
        if pos_wdl.iter().any(|x| !x.is_finite()) {
            return Err(bad(path, "wdl", row, "not finite"));
        }
        let f = fen.value(i);
        if f.trim().is_empty() {
            return Err(bad(path, "fen", row, "empty FEN"));
        }
        let mut moves = Vec::with_capacity(end - start);
        let total: u64 = mvisits[start..end].iter().map(|&v| v as u64).sum();
        for j in start..end {
            let m = BookMove {
                name: names.value(j).to_string(),
                actions: actions.value(j).to_string(),
                child: children[j],
                visits: mvisits[j],
                prior: floats[0][j],
                wdl: [floats[2][j], floats[3][j], floats[4][j]],
                logit: logits.map_or_else(|| visit_logit(mvisits[j], total), |l| l[j]),
            };
            if !(m.prior.is_finite() && m.wdl.iter().all(|x| x.is_finite())) {
                return Err(bad(path, "move_priors", row, format!("move {} has a non-finite statistic", m.name)));
            }
            // A logit of -inf (a move without visits in an older file) is a
            // move the book never plays, not a broken file.
            if m.logit.is_nan() || m.logit == f32::INFINITY {
                return Err(bad(path, MOVE_LOGITS, row, format!("move {} has logit {}", m.name, m.logit)));
            }
            moves.push(m);
        }
        let skipped = skipped.map(|s| s.value(i)).filter(|s| !s.is_empty()).map(str::to_string);
        out.push(BookPosition { hash: hash[i], fen: f.to_string(), depth: depth[i], visits: visits[i], simulations: sims[i], wdl: pos_wdl, moves, skipped });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn sample() -> Vec<BookPosition> {
        vec![
            BookPosition {
                hash: 1,
                fen: "start w".into(),
                depth: 0,
                visits: 64,
                simulations: 64,
                wdl: [0.4, 0.3, 0.3],
                moves: vec![
                    BookMove { name: "e2-e4".into(), actions: "Le2 Pe4".into(), child: 2, visits: 40, prior: 0.2, wdl: [0.5, 0.2, 0.3], logit: -0.25 },
                    BookMove { name: "d2-d4".into(), actions: "Ld2 Pd4".into(), child: 3, visits: 20, prior: 0.1, wdl: [0.3, 0.3, 0.4], logit: -1.5 },
                ],
                skipped: None,
            },
            BookPosition { hash: u64::MAX, fen: "leaf b".into(), depth: 1, visits: 40, simulations: 64, wdl: [0.0, 1.0, 0.0], moves: vec![], skipped: None },
            BookPosition {
                hash: 5,
                fen: "over b".into(),
                depth: 0,
                visits: 0,
                simulations: 0,
                wdl: [0.0, 1.0, 0.0],
                moves: vec![],
                skipped: Some("game over".into()),
            },
        ]
    }

    #[test]
    fn round_trip_and_atomic_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.parquet");
        let info = BookInfo { game: "paco".into(), network: "gen-0001".into(), config: "seed = 1".into() };
        write_book(&path, &info, &sample()).unwrap();
        let (i2, p2) = read_book(&path).unwrap();
        assert_eq!(i2, info);
        assert_eq!(p2, sample());
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }

    #[test]
    fn values_are_win_minus_loss_for_the_side_that_chooses() {
        let b = sample();
        assert!((b[0].value() - 0.1).abs() < 1e-6, "{}", b[0].value());
        assert!((b[0].moves[0].value() - 0.2).abs() < 1e-6, "{}", b[0].moves[0].value());
        assert!((b[0].moves[1].value() + 0.1).abs() < 1e-6, "{}", b[0].moves[1].value());
        // Softmax over visit logits gives back the visit shares.
        let l = [visit_logit(40, 60), visit_logit(20, 60)];
        let z: f32 = l.iter().map(|x| x.exp()).sum();
        assert!((l[0].exp() / z - 2.0 / 3.0).abs() < 1e-6 && (l[1].exp() / z - 1.0 / 3.0).abs() < 1e-6);
        assert_eq!(visit_logit(5, 0), 5f64.ln() as f32, "an empty total counts as 1");
    }

    #[test]
    fn a_parquet_file_without_a_book_version_is_no_book() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("other.parquet");
        let batch = book_batch(&sample()).unwrap();
        let mut w = ArrowWriter::try_new(fs::File::create(&path).unwrap(), batch.schema(), None).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let e = read_book(&path).unwrap_err().to_string();
        assert!(e.contains("not an opening book") && e.contains("other.parquet"), "{e}");
        // Another version is refused by number.
        let path2 = dir.path().join("v9.parquet");
        let kv = vec![KeyValue::new("book_version".to_string(), "9".to_string())];
        let props = WriterProperties::builder().set_key_value_metadata(Some(kv)).build();
        let mut w = ArrowWriter::try_new(fs::File::create(&path2).unwrap(), batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let e = read_book(&path2).unwrap_err().to_string();
        assert!(e.contains("9 (book_version)"), "{e}");
    }

    /// A book file written without the optional `columns`, as older writers did.
    fn write_without(path: &Path, columns: &[&str]) {
        let mut batch = book_batch(&sample()).unwrap();
        for c in columns {
            let k = batch.schema().index_of(c).unwrap();
            batch.remove_column(k);
        }
        let kv = vec![KeyValue::new("book_version".to_string(), "1".to_string())];
        let props = WriterProperties::builder().set_key_value_metadata(Some(kv)).build();
        let mut w = ArrowWriter::try_new(fs::File::create(path).unwrap(), batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
    }

    #[test]
    fn a_file_without_logits_reads_the_visit_shares_as_logits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.parquet");
        write_without(&path, &[MOVE_LOGITS]);
        let (_, rows) = read_book(&path).unwrap();
        let logits: Vec<f32> = rows[0].moves.iter().map(|m| m.logit).collect();
        assert_eq!(logits, [(40f64 / 60.0).ln() as f32, (20f64 / 60.0).ln() as f32]);
        let mut expected = sample();
        for (m, l) in expected[0].moves.iter_mut().zip(logits) {
            m.logit = l;
        }
        assert_eq!(rows, expected);
    }

    #[test]
    fn a_file_without_skipped_has_only_usable_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.parquet");
        write_without(&path, &[MOVE_LOGITS, SKIPPED]);
        let (_, rows) = read_book(&path).unwrap();
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(|r| r.skipped.is_none()), "{rows:?}");
        assert_eq!(rows[2].fen, "over b");
    }

    /// A version-1 book file of `positions` with some columns replaced
    /// (nullable, so that they can hold what a broken file holds).
    fn write_with(path: &Path, positions: &[BookPosition], replaced: Vec<(&str, ArrayRef)>) {
        let batch = book_batch(positions).unwrap();
        let (mut fields, mut cols): (Vec<Field>, Vec<ArrayRef>) =
            (batch.schema().fields().iter().map(|f| f.as_ref().clone()).collect(), batch.columns().to_vec());
        for (name, col) in replaced {
            let k = batch.schema().index_of(name).unwrap();
            fields[k] = Field::new(name, col.data_type().clone(), true);
            cols[k] = col;
        }
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), cols).unwrap();
        let kv = vec![KeyValue::new("book_version".to_string(), "1".to_string())];
        let props = WriterProperties::builder().set_key_value_metadata(Some(kv)).build();
        let mut w = ArrowWriter::try_new(fs::File::create(path).unwrap(), batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
    }

    /// A list column of one item type with the given rows (`None`: a null item).
    fn u32_lists(rows: &[&[Option<u32>]]) -> ArrayRef {
        let mut b = ListBuilder::new(UInt32Builder::new()).with_field(Field::new("item", DataType::UInt32, true));
        for r in rows {
            for v in *r {
                b.values().append_option(*v);
            }
            b.append(true);
        }
        Arc::new(b.finish())
    }

    fn read_error(path: &Path) -> String {
        read_book(path).unwrap_err().to_string()
    }

    #[test]
    fn a_null_is_refused_with_its_row_past_the_first_batch() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.parquet");
        // More rows than one read batch (8192), so the row count carries over.
        let rows: Vec<BookPosition> = (0..8195).map(|i| sample()[i % 2].clone()).collect();
        let fens: arrow::array::StringArray = (0..rows.len()).map(|i| (i != 8193).then_some("x w")).collect();
        write_with(&path, &rows, vec![("fen", Arc::new(fens))]);
        assert_eq!(read_error(&path), format!("{}: column `fen`, row 8193: null value", path.display()));
        write_with(&path, &rows, vec![]);
        assert_eq!(read_book(&path).unwrap().1.len(), 8195);
    }

    #[test]
    fn a_null_list_item_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.parquet");
        write_with(&path, &sample(), vec![("move_visits", u32_lists(&[&[Some(40), None], &[], &[]]))]);
        assert!(read_error(&path).ends_with("column `move_visits`, row 0: null list item"), "{}", read_error(&path));
    }

    #[test]
    fn move_lists_of_other_lengths_are_refused_at_their_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.parquet");
        // Row 0 agrees; row 1 (no moves) has one visit count: the list starts
        // where move_names' does and ends elsewhere.
        write_with(&path, &sample(), vec![("move_visits", u32_lists(&[&[Some(40), Some(20)], &[Some(1)], &[]]))]);
        assert!(read_error(&path).ends_with("column `move_visits`, row 1: 1 items, but move_names has 0"), "{}", read_error(&path));
        // Two agreeing rows with moves before the one that does not, so that
        // the row found and the counts said depend on the offsets' differences.
        let rows = vec![sample()[0].clone(), sample()[0].clone(), sample()[1].clone()];
        let logits = {
            let mut b = ListBuilder::new(Float32Builder::new()).with_field(item(DataType::Float32));
            for r in [&[-0.25f32, -1.5][..], &[-0.25, -1.5], &[0.5]] {
                b.values().append_slice(r);
                b.append(true);
            }
            Arc::new(b.finish()) as ArrayRef
        };
        write_with(&path, &rows, vec![(MOVE_LOGITS, logits)]);
        assert!(read_error(&path).ends_with("column `move_logits`, row 2: 1 items, but move_names has 0"), "{}", read_error(&path));
        let visits = u32_lists(&[&[Some(40), Some(20)], &[Some(40), Some(20)], &[Some(1), Some(2), Some(3)]]);
        write_with(&path, &rows, vec![("move_visits", visits)]);
        assert!(read_error(&path).ends_with("column `move_visits`, row 2: 3 items, but move_names has 0"), "{}", read_error(&path));
    }

    #[test]
    fn non_finite_statistics_are_refused_but_a_never_played_move_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.parquet");
        let info = BookInfo::default();
        let with = |f: &dyn Fn(&mut BookMove)| {
            let mut rows = sample();
            f(&mut rows[0].moves[1]);
            rows
        };
        write_book(&path, &info, &with(&|m| m.prior = f32::NAN)).unwrap();
        assert!(read_error(&path).ends_with("column `move_priors`, row 0: move d2-d4 has a non-finite statistic"), "{}", read_error(&path));
        write_book(&path, &info, &with(&|m| m.wdl[2] = f32::INFINITY)).unwrap();
        assert!(read_error(&path).contains("move d2-d4 has a non-finite statistic"), "{}", read_error(&path));
        write_book(&path, &info, &with(&|m| m.logit = f32::NAN)).unwrap();
        assert!(read_error(&path).ends_with("column `move_logits`, row 0: move d2-d4 has logit NaN"), "{}", read_error(&path));
        write_book(&path, &info, &with(&|m| m.logit = f32::INFINITY)).unwrap();
        assert!(read_error(&path).ends_with("move d2-d4 has logit inf"), "{}", read_error(&path));
        write_book(&path, &info, &with(&|m| m.logit = f32::NEG_INFINITY)).unwrap();
        assert_eq!(read_book(&path).unwrap().1[0].moves[1].logit, f32::NEG_INFINITY);
        let mut rows = sample();
        rows[1].wdl[1] = f32::NAN;
        write_book(&path, &info, &rows).unwrap();
        assert!(read_error(&path).ends_with("column `wdl`, row 1: not finite"), "{}", read_error(&path));
        rows[1].wdl[1] = 1.0;
        rows[2].fen = " ".into();
        write_book(&path, &info, &rows).unwrap();
        assert!(read_error(&path).ends_with("column `fen`, row 2: empty FEN"), "{}", read_error(&path));
    }

    #[test]
    fn refuses_other_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.parquet");
        let e = read_book(&path).unwrap_err().to_string();
        assert!(e.contains("x.parquet") && e.contains("I/O"), "{e}");
        fs::write(&path, b"not parquet").unwrap();
        let e = read_book(&path).unwrap_err().to_string();
        assert!(e.contains("x.parquet"), "{e}");
    }
}
