//! A writer refuses a directory holding chunks of a schema version it does
//! not read or of another game spec, naming the file; `.tmp` leftovers are
//! never chunks. Chunks of schema version 1 (a file the version-1 writer
//! wrote, `tests/data/v1.*`) read into today's rows.

mod common;

use pacozero_data::*;

fn one_game_chunk(dir: &std::path::Path, stem: &str) -> ChunkPaths {
    let mut w = ChunkWriter::new(dir, common::spec()).unwrap();
    let (g, p) = common::game(1, 3);
    w.push_finished_game(g, p).unwrap();
    w.flush(stem).unwrap()
}

/// Rewrites the `schema_version` key-value metadata of a Parquet file from
/// "2" to "3" (Thrift compact encoding: the key, then a 1-byte value string).
fn bump_schema_version(path: &std::path::Path) {
    assert_eq!(SCHEMA_VERSION, 2, "the byte pattern below is of version 2");
    let mut bytes = std::fs::read(path).unwrap();
    let pat = b"schema_version\x18\x012";
    let i = bytes.windows(pat.len()).position(|w| w == pat).expect("schema_version metadata");
    bytes[i + pat.len() - 1] = b'3';
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_writer_refuses_a_directory_of_another_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    let paths = one_game_chunk(dir.path(), "0000000000001-w000-000000");
    assert!(ChunkWriter::new(dir.path(), common::spec()).is_ok(), "same version and spec: accepted");
    bump_schema_version(&paths.positions);
    let e = ChunkWriter::new(dir.path(), common::spec()).err().expect("refused").to_string();
    assert!(e.contains("0000000000001-w000-000000.positions.parquet") && e.contains("schema_version 3"), "{e}");
    // Readers refuse it too.
    let e = read_positions_window(dir.path(), 100).unwrap_err().to_string();
    assert!(e.contains("schema_version 3"), "{e}");
}

#[test]
fn a_writer_refuses_a_directory_of_another_game() {
    let dir = tempfile::tempdir().unwrap();
    one_game_chunk(dir.path(), "0000000000001-w000-000000");
    let other = GameSpec::new("other", 8, 8, 4, 2, 100, common::AUX_TARGETS).unwrap();
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

#[test]
fn a_writer_refuses_another_games_auxiliary_targets() {
    let dir = tempfile::tempdir().unwrap();
    one_game_chunk(dir.path(), "0000000000001-w000-000000");
    let mut other = common::spec();
    other.aux_targets.reverse();
    let e = ChunkWriter::new(dir.path(), other).err().expect("refused").to_string();
    assert!(e.contains("0000000000001-w000-000000") && e.contains("aux_targets=[ply_multiple_of_7,ply_multiple_of_4]"), "{e}");
}

#[test]
fn a_writer_refuses_a_row_with_another_number_of_auxiliary_targets() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = ChunkWriter::new(dir.path(), common::spec()).unwrap();
    let (g, mut p) = common::game(1, 3);
    p[2].aux_targets.push(true);
    let e = w.push_finished_game(g.clone(), p.clone()).unwrap_err().to_string();
    assert!(e.contains("aux_targets has 3 values") && e.contains("ply_multiple_of_4, ply_multiple_of_7"), "{e}");
    let e = write_chunk(dir.path(), "x", &common::spec(), &p, &[g]).unwrap_err().to_string();
    assert!(e.contains("position 2") && e.contains("aux_targets"), "{e}");
}

/// The version-1 chunk of `tests/data`: written before the auxiliary targets
/// became one column, by the version-1 writer, from `common::game(7, 9)`.
fn v1_chunk() -> ChunkInfo {
    let dir = std::path::Path::new(&manifest_dir()).join("tests/data");
    list_chunks(&dir).unwrap().into_iter().find(|c| c.stem == "v1").expect("tests/data/v1.*")
}

#[test]
fn a_version_1_chunk_reads_into_todays_rows() {
    let c = v1_chunk();
    let (spec, version) = read_file_spec_version(&c.positions_path).unwrap();
    assert_eq!(version, 1);
    // Not a registered game: the names are version 1's column names.
    assert_eq!(spec.aux_targets, V1_AUX_COLUMNS);
    assert_eq!(GameSpec { aux_targets: common::spec().aux_targets, ..spec.clone() }, common::spec());
    let (spec2, rows, games) = read_chunk(&c).unwrap();
    assert_eq!(spec2, spec);
    let (want_game, want_rows) = common::game(7, 9);
    // Written before the players' columns: they read as empty.
    assert_eq!(games, [GameRow { white: String::new(), black: String::new(), ..want_game }]);
    // Written before the `truncated` column: every row reads as not truncated
    // (the fixture's game 7 would be).
    assert!(want_rows.iter().all(|r| r.truncated));
    let want_rows: Vec<PositionRow> = want_rows.into_iter().map(|r| PositionRow { truncated: false, ..r }).collect();
    assert_eq!(rows, want_rows, "every field, the auxiliary targets in the order of the old columns");
    assert_eq!(rows.iter().map(|r| r.aux_targets.clone()).collect::<Vec<_>>(), (0..9).map(common::aux_targets).collect::<Vec<_>>());
    // The two values differ on some rows (plies 4 and 7): an order swap fails.
    assert!(rows.iter().any(|r| r.aux_targets[0] != r.aux_targets[1]));
}

#[test]
fn a_writer_continues_a_directory_of_version_1_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let c = v1_chunk();
    for (from, name) in [(&c.positions_path, "0000000000001-w000-000000.positions.parquet"), (&c.games_path, "0000000000001-w000-000000.games.parquet")] {
        std::fs::copy(from, dir.path().join(name)).unwrap();
    }
    let spec = read_file_spec(&dir.path().join("0000000000001-w000-000000.positions.parquet")).unwrap();
    let mut w = ChunkWriter::new(dir.path(), spec.clone()).unwrap();
    let (g, p) = common::game(8, 5);
    w.push_finished_game(g, p).unwrap();
    w.flush("0000000000002-w000-000000").unwrap();
    let window = read_positions_window(dir.path(), 100).unwrap();
    assert_eq!(window.spec, spec);
    assert_eq!(window.rows.len(), 14);
    assert_eq!(window.rows[9..].iter().map(|r| r.aux_targets.clone()).collect::<Vec<_>>(), (0..5).map(common::aux_targets).collect::<Vec<_>>());
}

/// A version-1 file of a registered game names that game's targets.
#[test]
fn a_version_1_file_of_a_registered_game_names_its_targets() {
    use pacozero_engine::{Game, GameKind};
    fn check<G: Game>() {
        let dir = tempfile::tempdir().unwrap();
        let spec = game_spec::<G>();
        let mut m = spec.to_metadata();
        m.insert("schema_version".into(), "1".into());
        m.remove("aux_targets");
        let read = GameSpec::from_metadata(dir.path(), &m).unwrap();
        assert_eq!(read, spec, "{}", G::NAME);
        assert_eq!(read.aux_targets.len(), V1_AUX_COLUMNS.len());
    }
    for kind in GameKind::ALL {
        pacozero_engine::with_game!(kind, G => check::<G>());
    }
}

/// The input encoding is part of a chunk's spec: recorded in the metadata
/// when it is not the game's own (files without the key are), read back, and
/// a directory refuses chunks of the same game in another encoding.
#[test]
fn a_writer_refuses_a_directory_of_another_encoding() {
    let own = common::spec();
    assert_eq!(own.encoding, pacozero_engine::DEFAULT_ENCODING);
    assert!(!own.to_metadata().contains_key("encoding"), "files of the game's own encoding are as before");
    let other = GameSpec { encoding: "platform".into(), ..own.clone() };
    let m = other.to_metadata();
    assert_eq!(m["encoding"], "platform");
    assert_eq!(GameSpec::from_metadata(std::path::Path::new("x"), &m).unwrap(), other);
    assert!(other.to_string().contains("encoding=platform"), "{other}");
    assert!(own.clone().with_encoding("two words").is_err());

    let dir = tempfile::tempdir().unwrap();
    one_game_chunk(dir.path(), "0000000000001-w000-000000");
    let e = ChunkWriter::new(dir.path(), other).err().expect("refused").to_string();
    assert!(e.contains("0000000000001-w000-000000") && e.contains("platform"), "{e}");
}

fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
}

/// `data_spec` reads the newest chunk's spec; `check_data_dir_as` refuses
/// another game, or the same game in another encoding, and accepts its own.
#[test]
fn a_data_directory_is_checked_against_the_game_and_the_encoding() {
    use pacozero_engine::{paco, shako};
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(data_spec(&dir.path().join("none")).unwrap(), None, "no directory");
    assert_eq!(data_spec(dir.path()).unwrap(), None, "no chunk");
    check_data_dir::<shako::GameState>(dir.path()).unwrap();
    let spec = spec_of(pacozero_engine::GameKind::Paco);
    let rows: Vec<PositionRow> = (0..3)
        .map(|ply| {
            let mut r = common::position(&spec, 1, ply);
            r.aux_targets = vec![false; spec.num_aux_targets()];
            r
        })
        .collect();
    write_chunk(dir.path(), "0000000000001-w000-000000", &spec, &rows, &[]).unwrap();
    assert_eq!(data_spec(dir.path()).unwrap(), Some(spec.clone()));
    check_data_dir::<paco::GameState>(dir.path()).unwrap();
    check_data_dir_as::<paco::GameState>(dir.path(), 0).unwrap();
    let e = check_data_dir::<shako::GameState>(dir.path()).unwrap_err().to_string();
    assert!(e.contains("holds paco data") && e.contains("not shako"), "{e}");
    // The same game in the platform's encoding: the name agrees, the shape does not.
    let e = check_data_dir_as::<paco::GameState>(dir.path(), 1).unwrap_err().to_string();
    assert!(e.contains("holds paco data") && e.contains("encoding=platform"), "{e}");
}
