//! Files written by this crate are readable by pyarrow (the Python analysis path).

mod common;

use std::process::Command;

use pacozero_data::ChunkWriter;

fn ensure_pyarrow() {
    let ok = Command::new("python3").args(["-c", "import pyarrow"]).status();
    match ok {
        Ok(s) if s.success() => return,
        Ok(_) => {}
        Err(e) => panic!("python3 is needed for this test and could not be started: {e}"),
    }
    let pip = Command::new("python3").args(["-m", "pip", "install", "--quiet", "pyarrow"]).status().expect("could not run `python3 -m pip`");
    let ok = Command::new("python3").args(["-c", "import pyarrow"]).status().map(|s| s.success());
    assert!(
        pip.success() && matches!(ok, Ok(true)),
        "pyarrow is not importable and `python3 -m pip install --quiet pyarrow` failed; \
         install pyarrow (pip install pyarrow) to run this test"
    );
}

#[test]
fn pyarrow_reads_a_chunk() {
    ensure_pyarrow();
    let dir = tempfile::tempdir().unwrap();
    let mut w = ChunkWriter::new(dir.path(), common::spec()).unwrap();
    for id in 7..10 {
        let (g, p) = common::game(id, 12);
        w.push_finished_game(g, p).unwrap();
    }
    let paths = w.flush("pychunk").unwrap();
    let stem = paths.positions.to_str().unwrap().strip_suffix(".positions.parquet").unwrap().to_string();
    let script = format!("{}/tests/read_with_pyarrow.py", manifest_dir());
    let out = Command::new("python3").arg(script).arg(&stem).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "script failed: {}\n{}", stdout, String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let get = |p: &str| j.pointer(p).unwrap_or_else(|| panic!("{p} missing in {stdout}")).clone();
    assert_eq!(get("/positions"), 36);
    assert_eq!(get("/games"), 3);
    assert_eq!(get("/first/game_id"), 7);
    assert_eq!(get("/first/ply"), 0);
    assert_eq!(get("/first/planes_len"), 3);
    assert_eq!(get("/first/network_id"), "gen-0001");
    // (win, draw, loss) of ply 0, in that order: pyarrow reads what the docs say is on disk.
    assert_eq!(get("/first/root_wdl"), serde_json::json!([0.125, 0.03125, 0.84375]));
    assert_eq!(common::root_wdl(0), [0.125, 0.03125, 0.84375]);
    assert_eq!(get("/game0/result"), "1-0");
    assert_eq!(get("/game0/seed"), 49);
    assert_eq!(get("/metadata/board_height"), "8");
    assert_eq!(get("/metadata/policy_size"), "100");
    assert_eq!(get("/metadata/schema_version"), "2");
    assert_eq!(get("/metadata/aux_targets"), "ply_multiple_of_4,ply_multiple_of_7");
    // Ply 0 is a multiple of 4 and of 7; ply 4 only of 4.
    assert_eq!(get("/first/aux_targets"), serde_json::json!([true, true]));
    assert_eq!(get("/fifth_aux_targets"), serde_json::json!([true, false]));
    let err = get("/policy_sum_max_err").as_f64().unwrap();
    assert!(err < 1e-5);
}

/// The package directory of this checkout: cargo sets it when it runs the
/// test. The compile-time value is only a fallback, because a test binary
/// built from another checkout sharing the target directory keeps that
/// checkout's path.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
}
