//! JSON-lines files that runs and leagues append to (`generations.jsonl`,
//! `matches.jsonl`, `league.jsonl`, ...): one record a line, appended whole
//! and synced ([`append_lines`]), read back skipping only a last line cut
//! by a crash ([`read_jsonl`]).

use std::path::{Path, PathBuf};

/// A JSON-lines file that could not be appended to or read; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum JsonlError {
    #[error("appending to {path}: {source}")]
    Append {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A line before the last that is not the record it should be.
    #[error("{path}:{line}: {source}")]
    Line {
        path: PathBuf,
        line: usize,
        #[source]
        source: serde_json::Error,
    },
}

/// Appends `line` and syncs it, whole or not at all (a full disk cuts a half
/// line off again, so the file still ends on a whole line).
pub fn append_line(p: &Path, line: &str) -> Result<(), JsonlError> {
    append_lines(p, &[line.to_string()])
}

/// Appends `lines` in one write, all or none (see [`append_line`]).
pub fn append_lines(p: &Path, lines: &[String]) -> Result<(), JsonlError> {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    crate::durable::append_whole(p, text.as_bytes(), true).map_err(|source| JsonlError::Append { path: p.to_path_buf(), source })
}

/// Reads a JSON-lines file (missing = empty). Only the last line may be cut
/// (a crash while appending); it is skipped with a warning.
pub fn read_jsonl<T: serde::de::DeserializeOwned>(p: &Path) -> Result<Vec<T>, JsonlError> {
    if !p.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(p).map_err(|source| JsonlError::Read { path: p.to_path_buf(), source })?;
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(l) {
            Ok(m) => out.push(m),
            Err(e) if i + 1 == lines.len() && !text.ends_with('\n') => eprintln!("warning: {}:{}: ignoring an incomplete last line ({e})", p.display(), i + 1),
            Err(source) => return Err(JsonlError::Line { path: p.to_path_buf(), line: i + 1, source }),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_skip_a_cut_last_line_and_name_the_line_of_any_other_bad_one() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.jsonl");
        assert!(read_jsonl::<u32>(&p).unwrap().is_empty(), "a missing file is empty");
        append_line(&p, "1").unwrap();
        append_line(&p, "").unwrap();
        append_line(&p, "2").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "1\n\n2\n");
        assert_eq!(read_jsonl::<u32>(&p).unwrap(), [1, 2], "blank lines are skipped");
        // A kill while appending: the cut last line is dropped.
        std::fs::write(&p, "1\n2\n{\"cut").unwrap();
        assert_eq!(read_jsonl::<u32>(&p).unwrap(), [1, 2]);
        // A whole bad last line is an error, with its file and line.
        std::fs::write(&p, "1\n2\nx\n").unwrap();
        let e = read_jsonl::<u32>(&p).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:3: ", p.display())), "{e}");
        // And so is a bad line before the last, cut or not.
        for text in ["1\nx\n2\n", "1\nx\n2"] {
            std::fs::write(&p, text).unwrap();
            let e = read_jsonl::<u32>(&p).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{}:2: ", p.display())), "{text:?}: {e}");
        }
    }
}
