//! The check shared by the generated reference pages (`command_reference`,
//! `config_reference`): the committed page must equal what the code renders.

use std::path::Path;

/// Writes `page` to `path` when `PACOZERO_UPDATE_REFERENCE` is set;
/// otherwise fails at the first line where the committed page differs,
/// naming what renders it and the command that regenerates it.
pub fn check_current(path: &Path, page: &str, rendered_by: &str, regenerate: &str) {
    if std::env::var_os("PACOZERO_UPDATE_REFERENCE").is_some() {
        std::fs::write(path, page.as_bytes()).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    if committed != page {
        let line = committed.lines().zip(page.lines()).position(|(a, b)| a != b).unwrap_or_else(|| committed.lines().count().min(page.lines().count()));
        panic!("{} is not the reference {rendered_by} renders (first difference at line {}); regenerate it with\n  {regenerate}", path.display(), line + 1);
    }
}
