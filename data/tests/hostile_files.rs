//! Chunks built to decode to far more than their size on disk are refused
//! before they are decoded, with an error that names the file and the column.

mod common;

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, DictionaryArray, RecordBatch, StringArray, UInt16Array, UInt32Array, UInt64Array};
use arrow::datatypes::{DataType, Field, Int32Type, Schema};
use pacozero_data::{positions_schema, read_games_file, read_positions_file, GameSpec, SCHEMA_VERSION};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::{add_encoded_arrow_schema_to_metadata, ArrowSchemaConverter, ArrowWriter};
use parquet::basic::{Compression, Encoding, Type as PhysicalType, ZstdLevel};
use parquet::column::writer::ColumnWriter;
use parquet::data_type::ByteArray;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::writer::SerializedFileWriter;

/// The peak resident size of this process so far, in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap().trim().trim_end_matches(" kB").trim().parse().unwrap();
    kb * 1024
}

const TWO_GIB: u64 = 2 << 30;

/// Writes a positions file of `rows` rows whose `aux_targets` lists hold
/// `aux_values` values each (the spec's length is 2) with the Parquet
/// writer: RLE-encoded Booleans and levels, so a billion values take a few
/// kilobytes. Every other column holds a valid value.
fn write_rows(path: &Path, spec: &GameSpec, rows: usize, aux_values: usize) {
    let schema = positions_schema(spec);
    let parquet_schema = ArrowSchemaConverter::new().convert(&schema).unwrap();
    let kv: Vec<KeyValue> = spec.to_metadata().into_iter().map(|(k, v)| KeyValue::new(k, v)).collect();
    let mut props = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
        .set_dictionary_enabled(false)
        .set_encoding(Encoding::RLE)
        .set_key_value_metadata(Some(kv))
        .build();
    add_encoded_arrow_schema_to_metadata(&schema, &mut props);
    // RLE is for Booleans only: every other column plain.
    let mut builder = props.into_builder();
    for c in parquet_schema.columns() {
        if c.physical_type() != PhysicalType::BOOLEAN {
            builder = builder.set_column_encoding(c.path().clone(), Encoding::PLAIN);
        }
    }
    let props = Arc::new(builder.build());
    let mut w = SerializedFileWriter::new(File::create(path).unwrap(), parquet_schema.root_schema_ptr(), props).unwrap();
    let mut rg = w.next_row_group().unwrap();
    let mut leaves = parquet_schema.columns().iter();
    while let Some(mut col) = rg.next_column().unwrap() {
        let leaf = leaves.next().unwrap();
        let top = leaf.path().parts()[0].as_str();
        let n = match top {
            "planes" => spec.plane_words(),
            "scalars" => spec.scalars as usize,
            "root_wdl" => 3,
            "aux_targets" => aux_values,
            _ => 1,
        };
        // A row at a time (a write starts a row): a billion values are never in memory.
        for _ in 0..rows {
            let rep: Vec<i16> = (0..n).map(|i| i16::from(i > 0)).collect();
            let def = vec![leaf.max_def_level(); n];
            let (def, rep) = if leaf.max_rep_level() > 0 { (Some(&def[..]), Some(&rep[..])) } else { (None, None) };
            match col.untyped() {
                ColumnWriter::BoolColumnWriter(t) => t.write_batch(&vec![false; n], def, rep).map(drop),
                ColumnWriter::Int32ColumnWriter(t) => {
                    let v = if top == "schema_version" { SCHEMA_VERSION as i32 } else { 0 };
                    t.write_batch(&vec![v; n], def, rep).map(drop)
                }
                ColumnWriter::Int64ColumnWriter(t) => t.write_batch(&vec![0; n], def, rep).map(drop),
                ColumnWriter::FloatColumnWriter(t) => t.write_batch(&vec![if top == "root_wdl" { 1.0 / 3.0 } else { 1.0 }; n], def, rep).map(drop),
                ColumnWriter::ByteArrayColumnWriter(t) => t.write_batch(&vec![ByteArray::from("net"); n], def, rep).map(drop),
                _ => panic!("no such column in a positions file: {top}"),
            }
            .unwrap();
        }
        col.close().unwrap();
    }
    rg.close().unwrap();
    w.close().unwrap();
}

fn spec() -> GameSpec {
    common::spec()
}

#[test]
fn the_hostile_writer_writes_a_valid_row_when_the_list_has_its_length() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ok.positions.parquet");
    write_rows(&path, &spec(), 3, 2);
    let (_, rows) = read_positions_file(&path).unwrap();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r.aux_targets == [false, false]));
}

/// A billion RLE-encoded values in the lists of a thousand rows: a few
/// kilobytes on disk, gigabytes of levels once decoded (one batch holds all
/// the rows). Refused from the footer's counts, within 2 GiB.
#[test]
fn lists_of_a_billion_values_in_a_small_file_are_refused_before_decoding() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.positions.parquet");
    let (rows, per_row) = (1000, 1_000_000);
    write_rows(&path, &spec(), rows, per_row);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 1 << 20, "the hostile file is {size} bytes");
    let before = peak_rss();
    let e = read_positions_file(&path).unwrap_err().to_string();
    let grew = peak_rss().saturating_sub(before);
    assert!(grew < TWO_GIB, "reading it raised the peak resident size by {grew} bytes");
    let want = "row group 0, column `aux_targets`: 1000000000 values declared for 1000 rows, more than the 2 a row may hold";
    assert!(e.contains(path.to_str().unwrap()) && e.contains(want), "{e}");
    eprintln!("a {size}-byte file declaring {} values: {e} (peak resident size grew by {} MiB)", rows * per_row, grew >> 20);
}

/// A games file whose `actions` strings all point to one 512 KiB
/// dictionary entry: 4096 rows decode to 2 GiB from a file of a few
/// kilobytes. Refused page by page, naming the file and the column.
#[test]
fn strings_repeated_through_a_dictionary_past_the_bound_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.games.parquet");
    let rows = 4096;
    let long = "a".repeat(512 << 10);
    let actions = DictionaryArray::<Int32Type>::new(vec![0; rows].into(), Arc::new(StringArray::from(vec![long.as_str()])));
    let text = |s: &str| Arc::new(StringArray::from(vec![s; rows])) as ArrayRef;
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("game_id", Arc::new(UInt64Array::from((0..rows as u64).collect::<Vec<_>>()))),
        ("schema_version", Arc::new(UInt16Array::from(vec![SCHEMA_VERSION; rows]))),
        ("start_fen", text("startpos")),
        ("actions", Arc::new(actions)),
        ("num_decisions", Arc::new(UInt32Array::from(vec![1; rows]))),
        ("result", text("1-0")),
        ("reason", text("checkmate")),
        ("network_id", text("net")),
        ("config_hash", text("")),
        ("seed", Arc::new(UInt64Array::from(vec![1; rows]))),
    ];
    let fields: Vec<Field> = columns.iter().map(|(n, a)| Field::new(*n, a.data_type().clone(), false)).collect();
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns.into_iter().map(|(_, a)| a).collect()).unwrap();
    let kv: Vec<KeyValue> = spec().to_metadata().into_iter().map(|(k, v)| KeyValue::new(k, v)).collect();
    let props = WriterProperties::builder().set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap())).set_key_value_metadata(Some(kv)).build();
    // Without the embedded Arrow schema the dictionary column reads as Utf8, as a games file's.
    let options = ArrowWriterOptions::new().with_properties(props).with_skip_arrow_metadata(true);
    let mut w = ArrowWriter::try_new_with_options(File::create(&path).unwrap(), batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    assert_eq!(batch.schema().field_with_name("actions").unwrap().data_type(), &DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)));
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 1 << 20, "the hostile file is {size} bytes");
    let before = peak_rss();
    let e = read_games_file(&path).unwrap_err().to_string();
    let grew = peak_rss().saturating_sub(before);
    assert!(grew < TWO_GIB, "reading it raised the peak resident size by {grew} bytes");
    let want = "too large to read: row group 0, column `actions`: the row group would decode to more than 1073741824 bytes";
    assert!(e.contains(path.to_str().unwrap()) && e.contains(want), "{e}");
    eprintln!("a {size}-byte games file of {rows} rows: {e} (peak resident size grew by {} MiB)", grew >> 20);
}
