//! Test support: shell scripts that speak enough UCI for a game, to test
//! the external-engine player and the matches it plays in.

use std::path::{Path, PathBuf};

/// A shell script engine in `dir`: it appends every line it reads to `log`,
/// offers `options` (each the rest of an `option name ` line), and answers
/// `go` with the shell commands `on_go`.
pub fn fake_engine(dir: &Path, log: &Path, options: &[&str], on_go: &str) -> PathBuf {
    let path = dir.join(format!("engine-{}", std::fs::read_dir(dir).unwrap().count()));
    let offered: String = options.iter().map(|o| format!(" echo 'option name {o}';")).collect();
    let script = format!(
        "#!/bin/sh\nwhile read line; do\n  echo \"$line\" >> '{}'\n  case \"$line\" in\n    uci) echo 'id name fake';{offered} echo uciok;;\n    isready) echo readyok;;\n    go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n",
        log.display()
    );
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}
