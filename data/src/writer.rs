//! Buffered, atomic writer of chunk pairs.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{
    ArrayRef, BooleanBuilder, FixedSizeListBuilder, Float32Builder, Int8Builder, ListBuilder, StringBuilder, UInt16Builder, UInt32Builder, UInt64Builder,
    UInt8Builder,
};
use arrow::datatypes::{DataType, SchemaRef};
use arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use crate::durable::{crash_point, sync_dir, tmp_path, DiskFile};
use crate::error::{arrow_err, io_err, pq_err, DataError, Result};
use crate::schema::{games_schema, item, positions_schema, GameRow, GameSpec, PositionRow, GAMES_SUFFIX, POSITIONS_SUFFIX, SCHEMA_VERSION, TMP_SUFFIX};

/// Paths of a chunk pair written by [`ChunkWriter::flush`] or [`write_chunk`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkPaths {
    pub positions: PathBuf,
    pub games: PathBuf,
}

/// Buffers rows in memory and writes them as one chunk pair
/// `<dir>/<stem>.positions.parquet` + `<dir>/<stem>.games.parquet`.
///
/// Writing is atomic: each file is written to `<name>.tmp`, fsynced, then
/// renamed; the positions file is renamed first, and the games file last, so a
/// reader that only takes chunks whose games file exists never sees half a chunk.
pub struct ChunkWriter {
    dir: PathBuf,
    spec: GameSpec,
    positions: Vec<PositionRow>,
    games: Vec<GameRow>,
    zstd_level: i32,
}

impl ChunkWriter {
    /// A writer for chunks in `dir` (created if missing).
    ///
    /// Refuses a directory whose newest complete chunk was written with a
    /// schema version this build does not read ([`DataError::SchemaVersion`])
    /// or another game spec ([`DataError::SpecMismatch`]); both errors name
    /// that file. Chunks of an earlier version it reads are continued.
    pub fn new(dir: impl Into<PathBuf>, spec: GameSpec) -> Result<Self> {
        spec.validate()?;
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        if let Some(newest) = crate::reader::list_chunks(&dir)?.last() {
            for path in [&newest.positions_path, &newest.games_path] {
                let found = crate::reader::read_file_spec(path)?;
                if found != spec {
                    return Err(DataError::SpecMismatch { path: path.clone(), expected: spec.to_string(), found: found.to_string() });
                }
            }
        }
        Ok(ChunkWriter { dir, spec, positions: Vec::new(), games: Vec::new(), zstd_level: 3 })
    }

    /// Set the zstd level (1..=22, default 3).
    pub fn with_zstd_level(mut self, level: i32) -> Self {
        self.zstd_level = level;
        self
    }

    /// The game specification written into each file.
    pub fn spec(&self) -> &GameSpec {
        &self.spec
    }

    /// Directory chunks are written to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Buffer one position (validated against the spec).
    pub fn push_position(&mut self, row: PositionRow) -> Result<()> {
        row.check(&self.spec)
            .map_err(|message| DataError::InvalidRow { stem: "<buffer>".into(), message: format!("game {} ply {}: {message}", row.game_id, row.ply) })?;
        self.positions.push(row);
        Ok(())
    }

    /// Buffer one finished game.
    pub fn push_game(&mut self, row: GameRow) {
        self.games.push(row);
    }

    /// Buffer a finished game together with its positions.
    pub fn push_finished_game(&mut self, game: GameRow, positions: Vec<PositionRow>) -> Result<()> {
        for p in positions {
            self.push_position(p)?;
        }
        self.push_game(game);
        Ok(())
    }

    /// Positions buffered so far.
    pub fn num_positions(&self) -> usize {
        self.positions.len()
    }

    /// Games buffered so far.
    pub fn num_games(&self) -> usize {
        self.games.len()
    }

    /// Write the buffered rows as chunk `stem` and clear the buffers.
    /// The buffers are kept if writing fails.
    pub fn flush(&mut self, stem: &str) -> Result<ChunkPaths> {
        let paths = write_chunk_with_level(&self.dir, stem, &self.spec, &self.positions, &self.games, self.zstd_level)?;
        self.positions.clear();
        self.games.clear();
        Ok(paths)
    }
}

/// A stem whose lexicographic order is chronological: milliseconds since the
/// Unix epoch (13 digits), then the worker and a per-worker sequence number.
/// Readers order chunks by stem, so writers should use this (or any name
/// with the same property).
pub fn chunk_stem(worker: u32, seq: u64) -> String {
    let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
    format!("{ms:013}-w{worker:03}-{seq:06}")
}

/// Write one chunk pair atomically (zstd level 3).
pub fn write_chunk(dir: &Path, stem: &str, spec: &GameSpec, positions: &[PositionRow], games: &[GameRow]) -> Result<ChunkPaths> {
    write_chunk_with_level(dir, stem, spec, positions, games, 3)
}

fn write_chunk_with_level(dir: &Path, stem: &str, spec: &GameSpec, positions: &[PositionRow], games: &[GameRow], zstd_level: i32) -> Result<ChunkPaths> {
    if stem.is_empty() || stem.contains('/') || stem.ends_with(TMP_SUFFIX) {
        return Err(DataError::InvalidRow { stem: stem.into(), message: "bad chunk stem".into() });
    }
    for (i, p) in positions.iter().enumerate() {
        p.check(spec)
            .map_err(|message| DataError::InvalidRow { stem: stem.into(), message: format!("position {i} (game {} ply {}): {message}", p.game_id, p.ply) })?;
    }
    let paths = ChunkPaths { positions: dir.join(format!("{stem}{POSITIONS_SUFFIX}")), games: dir.join(format!("{stem}{GAMES_SUFFIX}")) };
    let pos_batch = positions_batch(spec, positions).map_err(arrow_err(&paths.positions))?;
    let games_batch = games_batch(spec, games).map_err(arrow_err(&paths.games))?;
    let pos_tmp = tmp_path(&paths.positions);
    let games_tmp = tmp_path(&paths.games);
    let written = write_parquet(&pos_tmp, &pos_batch, spec, zstd_level).and_then(|()| write_parquet(&games_tmp, &games_batch, spec, zstd_level));
    if let Err(e) = written {
        // A full disk leaves no part of the chunk behind.
        let _ = fs::remove_file(&pos_tmp);
        let _ = fs::remove_file(&games_tmp);
        return Err(e);
    }
    crash_point("chunk-renames");
    // Positions first: a chunk only counts once its games file exists.
    fs::rename(&pos_tmp, &paths.positions).map_err(io_err(&paths.positions))?;
    crash_point("chunk-between-renames");
    fs::rename(&games_tmp, &paths.games).map_err(io_err(&paths.games))?;
    sync_dir(dir);
    Ok(paths)
}

fn write_parquet(path: &Path, batch: &RecordBatch, spec: &GameSpec, zstd_level: i32) -> Result<()> {
    let level = ZstdLevel::try_new(zstd_level).map_err(pq_err(path))?;
    let kv: Vec<KeyValue> = spec.to_metadata().into_iter().map(|(k, v)| KeyValue::new(k, v)).collect();
    let props = WriterProperties::builder().set_compression(Compression::ZSTD(level)).set_key_value_metadata(Some(kv)).build();
    let mut file = DiskFile::create(path).map_err(io_err(path))?;
    let written = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).and_then(|mut w| {
        w.write(batch)?;
        w.into_inner().map(drop)
    });
    if let Err(e) = written {
        // A write that failed (a full disk) is named as the I/O error it is,
        // not as bad Parquet data.
        return Err(match file.take_error() {
            Some(io) => io_err(path)(io),
            None => pq_err(path)(e),
        });
    }
    file.flush().map_err(io_err(path))?;
    file.sync_all().map_err(io_err(path))?;
    Ok(())
}

fn positions_batch(spec: &GameSpec, rows: &[PositionRow]) -> arrow::error::Result<RecordBatch> {
    let schema: SchemaRef = positions_schema(spec);
    let n = rows.len();
    let mut version = UInt16Builder::with_capacity(n);
    let mut game_id = UInt64Builder::with_capacity(n);
    let mut ply = UInt32Builder::with_capacity(n);
    let mut stm = UInt8Builder::with_capacity(n);
    let mut planes = ListBuilder::new(UInt64Builder::new()).with_field(item(DataType::UInt64));
    let mut scalars = ListBuilder::new(Float32Builder::new()).with_field(item(DataType::Float32));
    let mut legal = ListBuilder::new(UInt16Builder::new()).with_field(item(DataType::UInt16));
    let mut policy = ListBuilder::new(Float32Builder::new()).with_field(item(DataType::Float32));
    let mut full = BooleanBuilder::with_capacity(n);
    let mut root_q = Float32Builder::with_capacity(n);
    let mut wdl = FixedSizeListBuilder::new(Float32Builder::new(), 3).with_field(item(DataType::Float32));
    let mut action = UInt16Builder::with_capacity(n);
    let mut result = Int8Builder::with_capacity(n);
    let mut moves_left = UInt32Builder::with_capacity(n);
    let mut aux = FixedSizeListBuilder::new(BooleanBuilder::new(), spec.num_aux_targets() as i32).with_field(item(DataType::Boolean));
    let mut weight = Float32Builder::with_capacity(n);
    let mut net = StringBuilder::new();
    let mut truncated = BooleanBuilder::with_capacity(n);
    for r in rows {
        version.append_value(SCHEMA_VERSION);
        game_id.append_value(r.game_id);
        ply.append_value(r.ply);
        stm.append_value(r.side_to_move);
        planes.values().append_slice(&r.planes);
        planes.append(true);
        scalars.values().append_slice(&r.scalars);
        scalars.append(true);
        legal.values().append_slice(&r.legal_actions);
        legal.append(true);
        policy.values().append_slice(&r.policy);
        policy.append(true);
        full.append_value(r.full_search);
        root_q.append_value(r.root_q);
        wdl.values().append_slice(&r.root_wdl);
        wdl.append(true);
        action.append_value(r.action);
        result.append_value(r.result);
        moves_left.append_value(r.moves_left);
        aux.values().append_slice(&r.aux_targets);
        aux.append(true);
        weight.append_value(r.weight);
        net.append_value(&r.network_id);
        truncated.append_value(r.truncated);
    }
    let cols: Vec<ArrayRef> = vec![
        Arc::new(version.finish()),
        Arc::new(game_id.finish()),
        Arc::new(ply.finish()),
        Arc::new(stm.finish()),
        Arc::new(planes.finish()),
        Arc::new(scalars.finish()),
        Arc::new(legal.finish()),
        Arc::new(policy.finish()),
        Arc::new(full.finish()),
        Arc::new(root_q.finish()),
        Arc::new(wdl.finish()),
        Arc::new(action.finish()),
        Arc::new(result.finish()),
        Arc::new(moves_left.finish()),
        Arc::new(aux.finish()),
        Arc::new(weight.finish()),
        Arc::new(net.finish()),
        Arc::new(truncated.finish()),
    ];
    RecordBatch::try_new(schema, cols)
}

fn games_batch(spec: &GameSpec, rows: &[GameRow]) -> arrow::error::Result<RecordBatch> {
    let schema = games_schema(spec);
    let n = rows.len();
    let mut game_id = UInt64Builder::with_capacity(n);
    let mut version = UInt16Builder::with_capacity(n);
    let mut fen = StringBuilder::new();
    let mut actions = StringBuilder::new();
    let mut num = UInt32Builder::with_capacity(n);
    let mut result = StringBuilder::new();
    let mut reason = StringBuilder::new();
    let mut net = StringBuilder::new();
    let mut hash = StringBuilder::new();
    let mut seed = UInt64Builder::with_capacity(n);
    let mut white = StringBuilder::new();
    let mut black = StringBuilder::new();
    for g in rows {
        game_id.append_value(g.game_id);
        version.append_value(SCHEMA_VERSION);
        fen.append_value(&g.start_fen);
        actions.append_value(&g.actions);
        num.append_value(g.num_decisions);
        result.append_value(&g.result);
        reason.append_value(&g.reason);
        net.append_value(&g.network_id);
        hash.append_value(&g.config_hash);
        seed.append_value(g.seed);
        white.append_value(&g.white);
        black.append_value(&g.black);
    }
    let cols: Vec<ArrayRef> = vec![
        Arc::new(game_id.finish()),
        Arc::new(version.finish()),
        Arc::new(fen.finish()),
        Arc::new(actions.finish()),
        Arc::new(num.finish()),
        Arc::new(result.finish()),
        Arc::new(reason.finish()),
        Arc::new(net.finish()),
        Arc::new(hash.finish()),
        Arc::new(seed.finish()),
        Arc::new(white.finish()),
        Arc::new(black.finish()),
    ];
    RecordBatch::try_new(schema, cols)
}
