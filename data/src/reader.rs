//! Listing and reading chunk pairs, with errors that name the file and column.

use std::fs;
use std::path::{Path, PathBuf};

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, RecordBatch};
use arrow::datatypes::{DataType, Float32Type, Int8Type, SchemaRef, UInt16Type, UInt32Type, UInt64Type, UInt8Type};

use crate::bounded::BoundedFile;
use crate::error::{io_err, DataError, Result};
use crate::schema::{
    required_games_schema, required_positions_schema, GameRow, GameSpec, PositionRow, OLDEST_READ_VERSION, OPTIONAL_GAME_COLUMNS, OPTIONAL_POSITION_COLUMNS,
    SCHEMA_VERSION, V1_AUX_COLUMNS,
};
use crate::schema::{GAMES_SUFFIX, POSITIONS_SUFFIX};

/// A complete chunk found on disk (its games file exists).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkInfo {
    /// File name without the `.positions.parquet` / `.games.parquet` suffix.
    pub stem: String,
    pub positions_path: PathBuf,
    pub games_path: PathBuf,
}

impl ChunkInfo {
    /// Number of positions, read from the Parquet footer only (cheap).
    ///
    /// The footer is checked first ([`crate::MAX_ROWS_PER_FILE`], row groups
    /// that add up to it), so a count read here is never negative or huge.
    pub fn num_positions(&self) -> Result<u64> {
        Ok(BoundedFile::open(&self.positions_path)?.num_rows())
    }
}

/// Positions of all `chunks` (their footers), summed without wrapping.
pub fn total_positions(chunks: &[ChunkInfo]) -> Result<u64> {
    let counts = chunks.iter().map(ChunkInfo::num_positions).collect::<Result<Vec<u64>>>()?;
    total_positions_of(chunks, &counts)
}

/// Complete chunks of `dir`, ordered by stem (writers use stems whose
/// lexicographic order is chronological, see [`crate::chunk_stem`]).
///
/// A chunk is complete when `<stem>.games.parquet` exists (it is renamed into
/// place after the positions file). `*.tmp` files and chunks without a
/// positions file are ignored. A missing directory is an error.
pub fn list_chunks(dir: &Path) -> Result<Vec<ChunkInfo>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_err(dir))? {
        let entry = entry.map_err(io_err(dir))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(stem) = name.strip_suffix(GAMES_SUFFIX) else { continue };
        let positions_path = dir.join(format!("{stem}{POSITIONS_SUFFIX}"));
        if !positions_path.is_file() {
            continue;
        }
        out.push(ChunkInfo { stem: stem.to_string(), positions_path, games_path: entry.path() });
    }
    out.sort_by(|a, b| a.stem.cmp(&b.stem));
    Ok(out)
}

/// The most recent positions of a directory, oldest first.
#[derive(Clone, Debug)]
pub struct PositionWindow {
    /// Spec shared by all chunks read.
    pub spec: GameSpec,
    /// Rows, oldest first; at most the requested number.
    pub rows: Vec<PositionRow>,
    /// Stems of the chunks read (some rows of the oldest may have been dropped).
    pub chunks: Vec<String>,
    /// Total positions in all complete chunks of the directory.
    pub total_positions: u64,
}

/// Load the most recent `max_positions` positions of the complete chunks of `dir`.
///
/// Chunks are taken newest first (by stem order) until enough rows are
/// available; rows of the oldest chunk read beyond the window are dropped.
/// All chunks read must share one [`GameSpec`].
pub fn read_positions_window(dir: &Path, max_positions: usize) -> Result<PositionWindow> {
    read_positions_window_of(dir, &list_chunks(dir)?, max_positions)
}

/// [`read_positions_window`] over the given chunks of `dir` (in stem order)
/// instead of all of them: the trainer of an overlapped loop reads the chunks
/// that were complete when its generation began, not those self-play is
/// writing meanwhile.
pub fn read_positions_window_of(dir: &Path, chunks: &[ChunkInfo], max_positions: usize) -> Result<PositionWindow> {
    let mut counts = Vec::with_capacity(chunks.len());
    for c in chunks {
        counts.push(c.num_positions()?);
    }
    let total = total_positions_of(chunks, &counts)?;
    let mut take = Vec::new();
    let mut have = 0u64;
    for (c, n) in chunks.iter().zip(&counts).rev() {
        if have >= max_positions as u64 {
            break;
        }
        take.push(c);
        have = have.saturating_add(*n);
    }
    take.reverse();
    let mut spec: Option<GameSpec> = None;
    // Sized by the rows read, not by the footers' counts.
    let mut rows = Vec::new();
    for c in &take {
        let (s, r) = read_positions_file(&c.positions_path)?;
        match &spec {
            None => spec = Some(s),
            Some(prev) if *prev != s => {
                return Err(DataError::SpecMismatch { path: c.positions_path.clone(), expected: prev.to_string(), found: s.to_string() })
            }
            _ => {}
        }
        rows.extend(r);
    }
    if rows.len() > max_positions {
        rows.drain(..rows.len() - max_positions);
    }
    let spec = match spec {
        Some(s) => s,
        None => {
            return Err(DataError::Metadata {
                path: dir.to_path_buf(),
                message: if max_positions == 0 { "window of 0 positions requested".into() } else { "no complete chunk in directory".into() },
            })
        }
    };
    Ok(PositionWindow { spec, rows, chunks: take.iter().map(|c| c.stem.clone()).collect(), total_positions: total })
}

fn total_positions_of(chunks: &[ChunkInfo], counts: &[u64]) -> Result<u64> {
    let mut total = 0u64;
    for (c, &n) in chunks.iter().zip(counts) {
        total = total
            .checked_add(n)
            .ok_or_else(|| DataError::Metadata { path: c.positions_path.clone(), message: format!("{n} positions make the chunks' total overflow") })?;
    }
    Ok(total)
}

/// Read the spec from a file's key-value metadata without reading rows.
pub fn read_file_spec(path: &Path) -> Result<GameSpec> {
    Ok(read_file_spec_version(path)?.0)
}

/// [`read_file_spec`] and the file's schema version (one this build reads).
pub fn read_file_spec_version(path: &Path) -> Result<(GameSpec, u16)> {
    spec_of(path, &BoundedFile::open(path)?)
}

fn spec_of(path: &Path, file: &BoundedFile) -> Result<(GameSpec, u16)> {
    let m = file.key_values();
    Ok((GameSpec::from_metadata(path, &m)?, GameSpec::version_of(path, &m)?))
}

/// The file's batches, spec and schema version; `expected` gives the
/// columns of the version and spec, `optional` those read when there.
/// Only these columns are decoded, each list within its length per row
/// ([`values_per_row`]) and every batch within
/// [`crate::MAX_DECODED_BYTES_PER_ROW_GROUP`].
fn read_batches(path: &Path, expected: impl FnOnce(&GameSpec, u16) -> SchemaRef, optional: &[&str]) -> Result<(Vec<RecordBatch>, GameSpec, u16)> {
    let file = BoundedFile::open(path)?;
    let (spec, version) = spec_of(path, &file)?;
    let expected = expected(&spec, version);
    check_schema(path, file.schema(), &expected)?;
    let mut columns: Vec<&str> = expected.fields().iter().map(|f| f.name().as_str()).collect();
    columns.extend(optional.iter().filter(|c| file.schema().field_with_name(c).is_ok()));
    let mut batches = Vec::new();
    file.read(&columns, &|column| values_per_row(&spec, column), |b| {
        batches.push(b);
        Ok(())
    })?;
    Ok((batches, spec, version))
}

/// Most values one row of a chunk's column holds: a list's length by the
/// spec (`policy` and `legal_actions`: `policy_size`), 1 for the others.
fn values_per_row(spec: &GameSpec, column: &str) -> Option<u64> {
    let n = match column {
        "planes" => spec.plane_words(),
        "scalars" => spec.scalars as usize,
        "legal_actions" | "policy" => spec.policy_size as usize,
        "root_wdl" => 3,
        "aux_targets" => spec.num_aux_targets(),
        _ => 1,
    };
    Some(n as u64)
}

/// Same type up to names/nullability of nested fields.
fn same_type(a: &DataType, b: &DataType) -> bool {
    match (a, b) {
        (DataType::List(x), DataType::List(y)) => same_type(x.data_type(), y.data_type()),
        (DataType::FixedSizeList(x, n), DataType::FixedSizeList(y, m)) => n == m && same_type(x.data_type(), y.data_type()),
        _ => a == b,
    }
}

/// Every column of `expected` is in `found` with the same type (extra columns are fine).
pub(crate) fn check_schema(path: &Path, found: &SchemaRef, expected: &SchemaRef) -> Result<()> {
    for f in expected.fields() {
        match found.field_with_name(f.name()) {
            Err(_) => return Err(DataError::MissingColumn { path: path.into(), column: f.name().clone() }),
            Ok(g) if !same_type(f.data_type(), g.data_type()) => {
                return Err(DataError::WrongType {
                    path: path.into(),
                    column: f.name().clone(),
                    expected: f.data_type().to_string(),
                    found: g.data_type().to_string(),
                })
            }
            _ => {}
        }
    }
    Ok(())
}

struct Cols<'a> {
    path: &'a Path,
    batch: &'a RecordBatch,
}

impl<'a> Cols<'a> {
    fn get(&self, name: &str) -> Result<&'a ArrayRef> {
        let col = self.batch.column_by_name(name).ok_or_else(|| DataError::MissingColumn { path: self.path.into(), column: name.into() })?;
        if col.null_count() > 0 {
            let row = (0..col.len()).find(|&i| col.is_null(i)).unwrap_or(0);
            return Err(DataError::BadValue { path: self.path.into(), column: name.into(), row, message: "null value".into() });
        }
        Ok(col)
    }

    /// A string column that a file may lack ([`crate::schema::OPTIONAL_GAME_COLUMNS`]):
    /// `None` when it does, checked as [`Cols::get`] when it is there.
    fn optional_string(&self, name: &str) -> Result<Option<&'a arrow::array::StringArray>> {
        if self.batch.column_by_name(name).is_none() {
            return Ok(None);
        }
        let col = self.get(name)?;
        let strings = col.as_any().downcast_ref::<arrow::array::StringArray>().ok_or_else(|| DataError::WrongType {
            path: self.path.into(),
            column: name.into(),
            expected: DataType::Utf8.to_string(),
            found: col.data_type().to_string(),
        })?;
        Ok(Some(strings))
    }

    /// A Boolean column that a file may lack
    /// ([`crate::schema::OPTIONAL_POSITION_COLUMNS`]): `None` when it does,
    /// checked as [`Cols::get`] when it is there.
    fn optional_bool(&self, name: &str) -> Result<Option<&'a BooleanArray>> {
        if self.batch.column_by_name(name).is_none() {
            return Ok(None);
        }
        let col = self.get(name)?;
        let bools = col.as_any().downcast_ref::<BooleanArray>().ok_or_else(|| DataError::WrongType {
            path: self.path.into(),
            column: name.into(),
            expected: DataType::Boolean.to_string(),
            found: col.data_type().to_string(),
        })?;
        Ok(Some(bools))
    }

    /// Every row says the file's `version`.
    fn check_version(&self, version: u16, row_base: usize) -> Result<()> {
        let v = self.get("schema_version")?.as_primitive::<UInt16Type>();
        if let Some((i, bad)) = v.values().iter().enumerate().find(|(_, &x)| x != version) {
            return Err(DataError::SchemaVersion {
                path: self.path.into(),
                found: format!("{bad} (column schema_version, row {}; the file says {version})", i + row_base),
                oldest: OLDEST_READ_VERSION,
                expected: SCHEMA_VERSION,
            });
        }
        Ok(())
    }
}

/// Values of a list column as (flat values, offsets); list items must be non-null.
fn list_parts<'a, T: arrow::datatypes::ArrowPrimitiveType>(path: &Path, name: &str, col: &'a ArrayRef) -> Result<(&'a [T::Native], &'a [i32])> {
    let list = col.as_list::<i32>();
    let values = list.values();
    if values.null_count() > 0 {
        return Err(DataError::BadValue { path: path.into(), column: name.into(), row: 0, message: "null list item".into() });
    }
    Ok((values.as_primitive::<T>().values(), list.value_offsets()))
}

fn slice<T: Copy>(vals: &[T], offs: &[i32], i: usize) -> Vec<T> {
    vals[offs[i] as usize..offs[i + 1] as usize].to_vec()
}

/// The auxiliary targets of a batch's rows: schema version 2's
/// `aux_targets` column, or version 1's two columns ([`V1_AUX_COLUMNS`]).
enum AuxCols<'a> {
    List { values: &'a BooleanArray, n: usize },
    V1([&'a BooleanArray; 2]),
}

impl AuxCols<'_> {
    fn row(&self, i: usize) -> Vec<bool> {
        match self {
            AuxCols::List { values, n } => (i * n..(i + 1) * n).map(|j| values.value(j)).collect(),
            AuxCols::V1(cols) => cols.iter().map(|c| c.value(i)).collect(),
        }
    }
}

/// Read every row of a positions file, validating each against the file's
/// spec. Files of every schema version this build reads give today's rows
/// (a file without the optional `truncated` column reads as not truncated).
pub fn read_positions_file(path: &Path) -> Result<(GameSpec, Vec<PositionRow>)> {
    let (batches, spec, version) = read_batches(path, required_positions_schema, &OPTIONAL_POSITION_COLUMNS)?;
    let mut rows = Vec::new();
    for batch in &batches {
        let base = rows.len();
        let c = Cols { path, batch };
        c.check_version(version, base)?;
        let game_id = c.get("game_id")?.as_primitive::<UInt64Type>().values();
        let ply = c.get("ply")?.as_primitive::<UInt32Type>().values();
        let stm = c.get("side_to_move")?.as_primitive::<UInt8Type>().values();
        let (pl_v, pl_o) = list_parts::<UInt64Type>(path, "planes", c.get("planes")?)?;
        let (sc_v, sc_o) = list_parts::<Float32Type>(path, "scalars", c.get("scalars")?)?;
        let (la_v, la_o) = list_parts::<UInt16Type>(path, "legal_actions", c.get("legal_actions")?)?;
        let (po_v, po_o) = list_parts::<Float32Type>(path, "policy", c.get("policy")?)?;
        let full = c.get("full_search")?.as_boolean();
        let root_q = c.get("root_q")?.as_primitive::<Float32Type>().values();
        let wdl = c.get("root_wdl")?.as_fixed_size_list();
        let wdl_v = wdl.values().as_primitive::<Float32Type>().values();
        let action = c.get("action")?.as_primitive::<UInt16Type>().values();
        let result = c.get("result")?.as_primitive::<Int8Type>().values();
        let moves_left = c.get("moves_left")?.as_primitive::<UInt32Type>().values();
        let aux = if version == 1 {
            AuxCols::V1([c.get(V1_AUX_COLUMNS[0])?.as_boolean(), c.get(V1_AUX_COLUMNS[1])?.as_boolean()])
        } else {
            let list = c.get("aux_targets")?.as_fixed_size_list();
            let values = list.values();
            if values.null_count() > 0 {
                return Err(DataError::BadValue { path: path.into(), column: "aux_targets".into(), row: base, message: "null list item".into() });
            }
            // The column's type (its list size) was checked against the spec.
            AuxCols::List { values: values.as_boolean(), n: spec.num_aux_targets() }
        };
        let weight = c.get("weight")?.as_primitive::<Float32Type>().values();
        let net = c.get("network_id")?.as_string::<i32>();
        let truncated = c.optional_bool("truncated")?;
        for i in 0..batch.num_rows() {
            let w0 = wdl.value_offset_at(i);
            let row = PositionRow {
                game_id: game_id[i],
                ply: ply[i],
                side_to_move: stm[i],
                planes: slice(pl_v, pl_o, i),
                scalars: slice(sc_v, sc_o, i),
                legal_actions: slice(la_v, la_o, i),
                policy: slice(po_v, po_o, i),
                full_search: full.value(i),
                root_q: root_q[i],
                root_wdl: [wdl_v[w0], wdl_v[w0 + 1], wdl_v[w0 + 2]],
                action: action[i],
                result: result[i],
                moves_left: moves_left[i],
                aux_targets: aux.row(i),
                weight: weight[i],
                network_id: net.value(i).to_string(),
                truncated: truncated.is_some_and(|t| t.value(i)),
            };
            row.check(&spec).map_err(|message| DataError::BadValue { path: path.into(), column: column_of(&message).into(), row: base + i, message })?;
            rows.push(row);
        }
    }
    Ok((spec, rows))
}

fn column_of(message: &str) -> &str {
    for c in ["planes", "scalars", "policy", "legal action", "action", "side_to_move", "result", "weight", "aux_targets", "root_q", "root_wdl"] {
        if message.starts_with(c) {
            return match c {
                "legal action" => "legal_actions",
                _ => c,
            };
        }
    }
    "?"
}

/// Read every row of a games file.
pub fn read_games_file(path: &Path) -> Result<(GameSpec, Vec<GameRow>)> {
    // The games table is the same in every version; the players' columns
    // may be missing (files written before they existed).
    let (batches, spec, version) = read_batches(path, |spec, _| required_games_schema(spec), &OPTIONAL_GAME_COLUMNS)?;
    let mut rows = Vec::new();
    for batch in &batches {
        let c = Cols { path, batch };
        c.check_version(version, rows.len())?;
        let game_id = c.get("game_id")?.as_primitive::<UInt64Type>().values();
        let fen = c.get("start_fen")?.as_string::<i32>();
        let actions = c.get("actions")?.as_string::<i32>();
        let num = c.get("num_decisions")?.as_primitive::<UInt32Type>().values();
        let result = c.get("result")?.as_string::<i32>();
        let reason = c.get("reason")?.as_string::<i32>();
        let net = c.get("network_id")?.as_string::<i32>();
        let hash = c.get("config_hash")?.as_string::<i32>();
        let seed = c.get("seed")?.as_primitive::<UInt64Type>().values();
        let white = c.optional_string("white")?;
        let black = c.optional_string("black")?;
        for i in 0..batch.num_rows() {
            rows.push(GameRow {
                game_id: game_id[i],
                start_fen: fen.value(i).into(),
                actions: actions.value(i).into(),
                num_decisions: num[i],
                result: result.value(i).into(),
                reason: reason.value(i).into(),
                network_id: net.value(i).into(),
                config_hash: hash.value(i).into(),
                seed: seed[i],
                white: white.map_or_else(String::new, |w| w.value(i).into()),
                black: black.map_or_else(String::new, |b| b.value(i).into()),
            });
        }
    }
    Ok((spec, rows))
}

/// Game ids of every complete chunk of `dir` (from the games files; a
/// missing directory is an error, like [`list_chunks`]).
pub fn game_ids(dir: &Path) -> Result<std::collections::HashSet<u64>> {
    let mut ids = std::collections::HashSet::new();
    for c in list_chunks(dir)? {
        let (_, games) = read_games_file(&c.games_path)?;
        ids.extend(games.iter().map(|g| g.game_id));
    }
    Ok(ids)
}

/// Read both files of a chunk.
pub fn read_chunk(chunk: &ChunkInfo) -> Result<(GameSpec, Vec<PositionRow>, Vec<GameRow>)> {
    let (spec, positions) = read_positions_file(&chunk.positions_path)?;
    let (gspec, games) = read_games_file(&chunk.games_path)?;
    if gspec != spec {
        return Err(DataError::SpecMismatch { path: chunk.games_path.clone(), expected: spec.to_string(), found: gspec.to_string() });
    }
    Ok((spec, positions, games))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_error_names_the_column_its_message_starts_with() {
        let cases = [
            ("planes has 3 words, expected 4", "planes"),
            ("legal action 500 >= policy_size 100", "legal_actions"),
            ("action 500 >= policy_size 100", "action"),
            ("policy has 2 values but legal_actions has 3", "policy"),
            ("weight = -1, must be finite and >= 0", "weight"),
            ("root_q = NaN, must be finite", "root_q"),
            ("root_wdl[1] = inf, must be finite", "root_wdl"),
            ("policy[0] = NaN, must be finite", "policy"),
            ("scalars[3] = -inf, must be finite", "scalars"),
            ("something else", "?"),
        ];
        for (message, column) in cases {
            assert_eq!(column_of(message), column, "{message}");
        }
    }
}
