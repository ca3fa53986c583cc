//! A writer refuses a directory holding chunks of another schema version or
//! another game spec, naming the file; `.tmp` leftovers are never chunks.

mod common;

use pacozero_data::*;

fn one_game_chunk(dir: &std::path::Path, stem: &str) -> ChunkPaths {
    let mut w = ChunkWriter::new(dir, common::spec()).unwrap();
    let (g, p) = common::game(1, 3);
    w.push_finished_game(g, p).unwrap();
    w.flush(stem).unwrap()
}

/// Rewrites the `schema_version` key-value metadata of a Parquet file from
/// "1" to "2" (Thrift compact encoding: the key, then a 1-byte value string).
fn bump_schema_version(path: &std::path::Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let pat = b"schema_version\x18\x011";
    let i = bytes.windows(pat.len()).position(|w| w == pat).expect("schema_version metadata");
    bytes[i + pat.len() - 1] = b'2';
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_writer_refuses_a_directory_of_another_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    let paths = one_game_chunk(dir.path(), "0000000000001-w000-000000");
    assert!(ChunkWriter::new(dir.path(), common::spec()).is_ok(), "same version and spec: accepted");
    bump_schema_version(&paths.positions);
    let e = ChunkWriter::new(dir.path(), common::spec()).err().expect("refused").to_string();
    assert!(e.contains("0000000000001-w000-000000.positions.parquet") && e.contains("schema_version 2"), "{e}");
    // Readers refuse it too.
    let e = read_positions_window(dir.path(), 100).unwrap_err().to_string();
    assert!(e.contains("schema_version 2"), "{e}");
}

#[test]
fn a_writer_refuses_a_directory_of_another_game() {
    let dir = tempfile::tempdir().unwrap();
    one_game_chunk(dir.path(), "0000000000001-w000-000000");
    let other = GameSpec::new("other", 8, 8, 4, 2, 100).unwrap();
    let e = ChunkWriter::new(dir.path(), other).err().expect("refused").to_string();
    assert!(e.contains("0000000000001-w000-000000") && e.contains("other"), "{e}");
}

#[test]
fn tmp_leftovers_are_not_chunks_and_do_not_block_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    one_game_chunk(dir.path(), "0000000000001-w000-000000");
    std::fs::write(dir.path().join("0000000000002-w000-000000.positions.parquet.tmp"), b"half").unwrap();
    std::fs::write(dir.path().join("0000000000002-w000-000000.games.parquet.tmp"), b"half").unwrap();
    std::fs::write(dir.path().join("0000000000003-w000-000000.games.parquet"), b"no positions file").unwrap();
    let chunks = list_chunks(dir.path()).unwrap();
    assert_eq!(chunks.iter().map(|c| c.stem.as_str()).collect::<Vec<_>>(), ["0000000000001-w000-000000"]);
    assert!(ChunkWriter::new(dir.path(), common::spec()).is_ok());
    assert_eq!(game_ids(dir.path()).unwrap().len(), 1);
}
