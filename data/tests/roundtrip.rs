mod common;

use std::fs;

use pacozero_data::*;

fn write_games(dir: &std::path::Path, stem: &str, ids: std::ops::Range<u64>, plies: u32) -> ChunkPaths {
    let mut w = ChunkWriter::new(dir, common::spec()).unwrap();
    for id in ids {
        let (g, p) = common::game(id, plies);
        w.push_finished_game(g, p).unwrap();
    }
    w.flush(stem).unwrap()
}

#[test]
fn roundtrip_all_columns_equal() {
    let dir = tempfile::tempdir().unwrap();
    let spec = common::spec();
    let mut w = ChunkWriter::new(dir.path(), spec.clone()).unwrap();
    let mut all_pos = Vec::new();
    let mut all_games = Vec::new();
    for id in 0..5 {
        let (g, p) = common::game(id, 37);
        all_pos.extend(p.clone());
        all_games.push(g.clone());
        w.push_finished_game(g, p).unwrap();
    }
    assert_eq!(w.num_positions(), 185);
    let paths = w.flush("0000000000001-w000-000000").unwrap();
    assert_eq!(w.num_positions(), 0);
    assert!(paths.positions.is_file() && paths.games.is_file());
    let chunks = list_chunks(dir.path()).unwrap();
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0].num_positions().unwrap(), 185);
    let (s, pos, games) = read_chunk(&chunks[0]).unwrap();
    assert_eq!(s, spec);
    assert_eq!(pos, all_pos);
    assert_eq!(games, all_games);
    assert_eq!(read_file_spec(&paths.games).unwrap(), spec);
    // On disk, `root_wdl` is (win, draw, loss) in that order (docs/DATA.md),
    // read here with the Parquet reader alone, not through ours.
    let file = fs::File::open(&paths.positions).unwrap();
    let batches: Vec<_> = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap().map(|b| b.unwrap()).collect();
    use arrow::array::{Array, AsArray};
    let mut on_disk = Vec::new();
    for b in &batches {
        let col = b.column_by_name("root_wdl").unwrap().as_fixed_size_list();
        let v = col.values().as_primitive::<arrow::datatypes::Float32Type>();
        for i in 0..col.len() {
            let o = col.value_offset_at(i);
            on_disk.push([v.value(o), v.value(o + 1), v.value(o + 2)]);
        }
    }
    let written: Vec<[f32; 3]> = all_pos.iter().map(|r| r.root_wdl).collect();
    assert_eq!(on_disk, written);
    assert_eq!(written[1], common::root_wdl(1));
    assert!(written.iter().all(|w| w[0] != w[1] && w[1] != w[2] && w[0] != w[2]));
}

#[test]
fn roundtrip_10x10_spec_and_decoder() {
    let dir = tempfile::tempdir().unwrap();
    let spec = GameSpec::new("paco10", 10, 10, 2, 1, 5000, common::AUX_TARGETS).unwrap();
    assert_eq!(spec.words_per_plane(), 2);
    let mut row = common::position(&spec, 1, 2);
    // Plane 0: square 0 (a1) and square 99 (last square); plane 1: square 64.
    row.planes = vec![1, 1 << 35, 0, 1];
    row.scalars = vec![0.25];
    write_chunk(dir.path(), "a", &spec, &[row.clone()], &[]).unwrap();
    let w = read_positions_window(dir.path(), 10).unwrap();
    assert_eq!(w.spec, spec);
    assert_eq!(w.rows, vec![row.clone()]);
    let x = decode_position(&spec, &row);
    assert_eq!(x.len(), 3 * 100);
    let ones: Vec<usize> = x[..200].iter().enumerate().filter(|(_, &v)| v == 1.0).map(|(i, _)| i).collect();
    assert_eq!(ones, vec![0, 99, 100 + 64]);
    assert!(x[200..].iter().all(|&v| v == 0.25));
}

#[test]
fn window_takes_most_recent_positions_in_order() {
    let dir = tempfile::tempdir().unwrap();
    write_games(dir.path(), "c1", 0..2, 10); // 20 positions
    write_games(dir.path(), "c2", 2..3, 10); // 10
    write_games(dir.path(), "c3", 3..5, 10); // 20
    let w = read_positions_window(dir.path(), 25).unwrap();
    assert_eq!(w.total_positions, 50);
    assert_eq!(w.rows.len(), 25);
    assert_eq!(w.chunks, vec!["c2".to_string(), "c3".to_string()]);
    // Oldest row kept: game 2, ply 5.
    assert_eq!((w.rows[0].game_id, w.rows[0].ply), (2, 5));
    assert_eq!((w.rows[24].game_id, w.rows[24].ply), (4, 9));
    let w = read_positions_window(dir.path(), 1000).unwrap();
    assert_eq!(w.rows.len(), 50);
}

#[test]
fn leftover_tmp_files_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    write_games(dir.path(), "good", 0..1, 5);
    // A crashed writer: tmp files, and a positions file whose games file never appeared.
    fs::write(dir.path().join("crash.positions.parquet.tmp"), b"partial").unwrap();
    fs::write(dir.path().join("crash.games.parquet.tmp"), b"partial").unwrap();
    let p = write_games(dir.path(), "half", 1..2, 5);
    fs::rename(&p.games, dir.path().join("half.games.parquet.tmp")).unwrap();
    let chunks = list_chunks(dir.path()).unwrap();
    let stems: Vec<_> = chunks.iter().map(|c| c.stem.as_str()).collect();
    assert_eq!(stems, vec!["good"]);
    let w = read_positions_window(dir.path(), 100).unwrap();
    assert_eq!(w.rows.len(), 5);
}

#[test]
fn truncated_file_gives_error_naming_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_games(dir.path(), "trunc", 0..3, 20);
    let bytes = fs::read(&p.positions).unwrap();
    for cut in [bytes.len() / 2, bytes.len() - 3, 10] {
        fs::write(&p.positions, &bytes[..cut]).unwrap();
        let err = read_positions_file(&p.positions).unwrap_err().to_string();
        assert!(err.contains("trunc.positions.parquet"), "{err}");
        let err = read_positions_window(dir.path(), 100).unwrap_err().to_string();
        assert!(err.contains("trunc.positions.parquet"), "{err}");
    }
}

/// Rewrite a positions file with a modified schema_version (metadata and/or column).
fn rewrite_version(path: &std::path::Path, meta_version: &str, column_version: u16) {
    use arrow::array::{ArrayRef, UInt16Array};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;
    use parquet::file::metadata::KeyValue;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;
    let f = fs::File::open(path).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(f).unwrap().build().unwrap();
    let batches: Vec<_> = reader.map(|b| b.unwrap()).collect();
    let mut meta = common::spec().to_metadata();
    meta.insert("schema_version".into(), meta_version.into());
    let schema = Arc::new(arrow::datatypes::Schema::new_with_metadata(batches[0].schema().fields().clone(), meta.clone()));
    let kv = meta.into_iter().map(|(k, v)| KeyValue::new(k, v)).collect();
    let props = WriterProperties::builder().set_key_value_metadata(Some(kv)).build();
    let out = fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(out, schema.clone(), Some(props)).unwrap();
    for b in batches {
        let mut cols: Vec<ArrayRef> = b.columns().to_vec();
        cols[0] = Arc::new(UInt16Array::from(vec![column_version; b.num_rows()]));
        w.write(&arrow::record_batch::RecordBatch::try_new(schema.clone(), cols).unwrap()).unwrap();
    }
    w.close().unwrap();
}

#[test]
fn wrong_schema_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_games(dir.path(), "v", 0..1, 4);
    // A later version than this build writes.
    let later = (SCHEMA_VERSION + 1).to_string();
    rewrite_version(&p.positions, &later, SCHEMA_VERSION + 1);
    let err = read_positions_file(&p.positions).unwrap_err();
    assert!(matches!(err, DataError::SchemaVersion { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("v.positions.parquet") && msg.contains(&format!("schema_version {later}")), "{msg}");
    // Version 0 never existed.
    rewrite_version(&p.positions, "0", 0);
    assert!(matches!(read_positions_file(&p.positions).unwrap_err(), DataError::SchemaVersion { .. }));
    // Metadata says this version but a row says 3: also refused, naming the column.
    rewrite_version(&p.positions, &SCHEMA_VERSION.to_string(), 3);
    let msg = read_positions_file(&p.positions).unwrap_err().to_string();
    assert!(msg.contains("schema_version 3") && msg.contains("column schema_version"), "{msg}");
}

#[test]
fn missing_column_and_wrong_type_are_reported() {
    use arrow::array::{ArrayRef, Float64Array};
    use arrow::datatypes::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::file::metadata::KeyValue;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.positions.parquet");
    let meta = common::spec().to_metadata();
    let write = |fields: Vec<Field>, cols: Vec<ArrayRef>| {
        let schema = Arc::new(Schema::new_with_metadata(fields, meta.clone()));
        let kv = meta.clone().into_iter().map(|(k, v)| KeyValue::new(k, v)).collect();
        let props = WriterProperties::builder().set_key_value_metadata(Some(kv)).build();
        let mut w = ArrowWriter::try_new(fs::File::create(&path).unwrap(), schema.clone(), Some(props)).unwrap();
        w.write(&arrow::record_batch::RecordBatch::try_new(schema, cols).unwrap()).unwrap();
        w.close().unwrap();
    };
    // Only one column: schema_version is missing.
    write(vec![Field::new("root_q", DataType::Float64, false)], vec![Arc::new(Float64Array::from(vec![0.5]))]);
    let msg = read_positions_file(&path).unwrap_err().to_string();
    assert!(msg.contains("bad.positions.parquet") && msg.contains("missing column `schema_version`"), "{msg}");
    // All columns of the right schema but root_q as Float64.
    let good = positions_schema(&common::spec());
    let mut fields: Vec<Field> = good.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields[9] = Field::new("root_q", DataType::Float64, false);
    let cols: Vec<ArrayRef> = fields.iter().map(|f| arrow::array::new_empty_array(f.data_type())).collect();
    write(fields, cols);
    let msg = read_positions_file(&path).unwrap_err().to_string();
    assert!(msg.contains("column `root_q` has type Float64, expected Float32"), "{msg}");
}

#[test]
fn writer_rejects_rows_that_do_not_fit_the_spec() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = ChunkWriter::new(dir.path(), common::spec()).unwrap();
    let mut row = common::position(&common::spec(), 0, 0);
    row.planes.pop();
    let msg = w.push_position(row).unwrap_err().to_string();
    assert!(msg.contains("planes has"), "{msg}");
    let mut row = common::position(&common::spec(), 0, 1);
    row.policy.push(0.0);
    assert!(w.push_position(row).is_err());
}

#[test]
fn chunk_stems_sort_chronologically() {
    let a = chunk_stem(1, 5);
    std::thread::sleep(std::time::Duration::from_millis(2));
    let b = chunk_stem(0, 0);
    assert!(a < b, "{a} {b}");
}

/// Rewrites a positions file with its rows in one batch and the column
/// `name` replaced by what `f` makes of it (the field and the values).
fn rewrite_column(
    path: &std::path::Path,
    name: &str,
    f: impl FnOnce(&arrow::datatypes::Field, &arrow::array::ArrayRef) -> (arrow::datatypes::Field, arrow::array::ArrayRef),
) {
    use arrow::datatypes::Schema;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;
    let builder = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(path).unwrap()).unwrap();
    let kv: Vec<_> = builder.metadata().file_metadata().key_value_metadata().unwrap().iter().filter(|e| e.key != "ARROW:schema").cloned().collect();
    let schema = builder.schema().clone();
    let batches: Vec<_> = builder.build().unwrap().map(|b| b.unwrap()).collect();
    let batch = arrow::compute::concat_batches(&schema, &batches).unwrap();
    let k = schema.index_of(name).unwrap();
    let (field, col) = f(schema.field(k), batch.column(k));
    let mut fields: Vec<_> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields[k] = field;
    let mut cols = batch.columns().to_vec();
    cols[k] = col;
    let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let props = WriterProperties::builder().set_key_value_metadata(Some(kv)).build();
    let mut w = ArrowWriter::try_new(fs::File::create(path).unwrap(), schema.clone(), Some(props)).unwrap();
    w.write(&arrow::record_batch::RecordBatch::try_new(schema, cols).unwrap()).unwrap();
    w.close().unwrap();
}

/// `list`'s offsets and values under another item field (name, nullability, type).
fn relisted(list: &arrow::array::ArrayRef, item: arrow::datatypes::Field, values: arrow::array::ArrayRef) -> arrow::array::ArrayRef {
    use arrow::array::{AsArray, ListArray};
    let l = list.as_list::<i32>();
    std::sync::Arc::new(ListArray::new(std::sync::Arc::new(item), l.offsets().clone(), values, None))
}

#[test]
fn nested_field_names_do_not_matter_but_item_types_and_sizes_do() {
    use arrow::array::{Array, AsArray, FixedSizeListArray, Int64Array};
    use arrow::datatypes::{DataType, Field, UInt64Type};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let p = write_games(dir.path(), "n", 0..2, 6).positions;
    let expected = read_positions_file(&p).unwrap().1;
    // Other writers name list items `element` and make them nullable.
    rewrite_column(&p, "planes", |f, c| {
        let values = c.as_list::<i32>().values().clone();
        (
            Field::new(f.name(), DataType::List(Arc::new(Field::new("element", DataType::UInt64, true))), false),
            relisted(c, Field::new("element", DataType::UInt64, true), values),
        )
    });
    rewrite_column(&p, "root_wdl", |f, c| {
        let l = c.as_fixed_size_list();
        let item = Arc::new(Field::new("element", DataType::Float32, true));
        (Field::new(f.name(), DataType::FixedSizeList(item.clone(), 3), false), Arc::new(FixedSizeListArray::new(item, 3, l.values().clone(), None)))
    });
    assert_eq!(read_positions_file(&p).unwrap().1, expected);
    // Items of another type.
    rewrite_column(&p, "planes", |f, c| {
        let values: Int64Array = c.as_list::<i32>().values().as_primitive::<UInt64Type>().values().iter().map(|&v| v as i64).collect();
        let item = Field::new("item", DataType::Int64, false);
        (Field::new(f.name(), DataType::List(Arc::new(item.clone())), false), relisted(c, item, Arc::new(values)))
    });
    let msg = read_positions_file(&p).unwrap_err().to_string();
    assert!(msg.contains("column `planes` has type List(") && msg.contains("Int64"), "{msg}");
    // root_wdl of four values a row.
    let p = write_games(dir.path(), "m", 0..2, 6).positions;
    rewrite_column(&p, "root_wdl", |f, c| {
        let l = c.as_fixed_size_list();
        let item = Arc::new(Field::new("item", DataType::Float32, false));
        let values: arrow::array::ArrayRef = Arc::new(arrow::array::Float32Array::from(vec![0.25f32; 4 * l.len()]));
        (Field::new(f.name(), DataType::FixedSizeList(item.clone(), 4), false), Arc::new(FixedSizeListArray::new(item, 4, values, None)))
    });
    let msg = read_positions_file(&p).unwrap_err().to_string();
    assert!(msg.contains("column `root_wdl` has type FixedSizeList(4"), "{msg}");
}

#[test]
fn nulls_are_refused_naming_the_column_and_the_row() {
    use arrow::array::{AsArray, BooleanArray, FixedSizeListArray, Float32Array, UInt64Array};
    use arrow::datatypes::{DataType, Field, Float32Type};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let p = write_games(dir.path(), "n", 0..1, 6).positions;
    rewrite_column(&p, "root_q", |f, c| {
        let v: Float32Array = c.as_primitive::<Float32Type>().iter().enumerate().map(|(i, x)| if i == 2 { None } else { x }).collect();
        (Field::new(f.name(), DataType::Float32, true), Arc::new(v))
    });
    let msg = read_positions_file(&p).unwrap_err().to_string();
    assert!(msg.ends_with("column `root_q`, row 2: null value"), "{msg}");
    let p = write_games(dir.path(), "l", 0..1, 6).positions;
    rewrite_column(&p, "planes", |f, c| {
        let v: UInt64Array =
            c.as_list::<i32>().values().as_primitive::<arrow::datatypes::UInt64Type>().iter().enumerate().map(|(i, x)| if i == 4 { None } else { x }).collect();
        let item = Field::new("item", DataType::UInt64, true);
        (Field::new(f.name(), DataType::List(Arc::new(item.clone())), false), relisted(c, item, Arc::new(v)))
    });
    let msg = read_positions_file(&p).unwrap_err().to_string();
    assert!(msg.contains("column `planes`") && msg.ends_with("null list item"), "{msg}");
    let p = write_games(dir.path(), "a", 0..1, 6).positions;
    rewrite_column(&p, "aux_targets", |f, c| {
        let l = c.as_fixed_size_list();
        let v: BooleanArray = l.values().as_boolean().iter().enumerate().map(|(i, x)| if i == 3 { None } else { x }).collect();
        let item = Arc::new(Field::new("item", DataType::Boolean, true));
        (Field::new(f.name(), DataType::FixedSizeList(item.clone(), 2), false), Arc::new(FixedSizeListArray::new(item, 2, Arc::new(v), None)))
    });
    let msg = read_positions_file(&p).unwrap_err().to_string();
    assert!(msg.ends_with("column `aux_targets`, row 0: null list item"), "{msg}");
}

#[test]
fn a_bad_row_past_the_first_batch_is_named_by_its_row() {
    use arrow::array::{AsArray, UInt8Array};
    use arrow::datatypes::UInt8Type;
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    // More rows than one read batch (8192).
    let p = write_games(dir.path(), "big", 0..206, 40).positions;
    rewrite_column(&p, "side_to_move", |f, c| {
        let v: UInt8Array = c.as_primitive::<UInt8Type>().values().iter().enumerate().map(|(i, &x)| if i == 8193 { 5 } else { x }).collect();
        (f.clone(), Arc::new(v))
    });
    let msg = read_positions_file(&p).unwrap_err().to_string();
    assert!(msg.ends_with("column `side_to_move`, row 8193: side_to_move = 5, must be 0 or 1"), "{msg}");
}

#[test]
fn a_window_refuses_chunks_of_two_specs_and_says_why_it_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    write_games(dir.path(), "c1", 0..1, 4);
    let msg = read_positions_window(dir.path(), 0).unwrap_err().to_string();
    assert!(msg.contains("window of 0 positions requested"), "{msg}");
    let empty = tempfile::tempdir().unwrap();
    let msg = read_positions_window(empty.path(), 10).unwrap_err().to_string();
    assert!(msg.contains("no complete chunk in directory"), "{msg}");
    // A chunk of another spec written beside (a writer would refuse it).
    let other = GameSpec::new("pacosako", 8, 8, 4, 2, 100, common::AUX_TARGETS).unwrap();
    let (_, rows) = common::game(1, 4);
    let rows: Vec<PositionRow> = rows
        .into_iter()
        .map(|mut r| {
            r.planes.push(0);
            r
        })
        .collect();
    let extra = tempfile::tempdir().unwrap();
    let w = write_chunk(extra.path(), "c2", &other, &rows, &[]).unwrap();
    fs::rename(&w.positions, dir.path().join("c2.positions.parquet")).unwrap();
    fs::rename(&w.games, dir.path().join("c2.games.parquet")).unwrap();
    let msg = read_positions_window(dir.path(), 100).unwrap_err().to_string();
    assert!(msg.contains("c2.positions.parquet") && msg.contains("differs from"), "{msg}");
}

#[test]
fn a_writer_counts_what_it_buffers_and_refuses_bad_stems() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = ChunkWriter::new(dir.path(), common::spec()).unwrap();
    for g in 0..2 {
        let (game, positions) = common::game(g, 3 + g as u32);
        w.push_finished_game(game, positions).unwrap();
    }
    assert_eq!((w.num_games(), w.num_positions()), (2, 7));
    for bad in ["", "a/b", "c.tmp"] {
        let e = w.flush(bad).unwrap_err().to_string();
        assert!(e.contains("bad chunk stem") && e.contains(&format!("`{bad}`")), "{bad}: {e}");
        assert_eq!((w.num_games(), w.num_positions()), (2, 7), "kept after a failed write");
    }
    w.flush("a.b").unwrap();
    assert_eq!((w.num_games(), w.num_positions()), (0, 0));
    assert_eq!(list_chunks(dir.path()).unwrap().len(), 1);
}
