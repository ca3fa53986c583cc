//! Programs that stand in for an external UCI engine in the tests of what
//! must not start one (a resumed run or league whose own files name it).

use std::path::{Path, PathBuf};

/// A UCI engine script `dir/x.sh` that leaves the file `marker` when it
/// starts, then forfeits every game at its first move.
pub fn marking_engine(dir: &Path, marker: &Path) -> PathBuf {
    let path = dir.join("x.sh");
    let script = format!(
        "#!/bin/sh\ntouch '{}'\nwhile read line; do\n  case \"$line\" in\n    uci) echo 'id name x'; echo uciok;;\n    isready) echo readyok;;\n    go*) echo 'bestmove zz99';;\n    quit) exit 0;;\n  esac\ndone\n",
        marker.display()
    );
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}
