//! The one reader of every book format: ours (Parquet, `pacozero_data::book`)
//! and the platform's JSON (`pacozero_platform::book_json`, replayed into our
//! rows by `pacozero_platform::book`), told apart by content.

use std::path::Path;

use anyhow::{Context, Result};
use pacozero_data::book::{read_book, BookInfo, BookPosition};
use pacozero_engine::GameKind;
use pacozero_platform::book::{import_platform_book, platform_info};
use pacozero_platform::book_json::{read_platform_book, PlatformBookError};

/// Is the file a Parquet file (magic `PAR1`) rather than JSON?
fn is_parquet(path: &Path) -> std::io::Result<bool> {
    use std::io::Read;
    let mut magic = [0u8; 4];
    let mut f = std::fs::File::open(path)?;
    let n = f.read(&mut magic)?;
    Ok(n == 4 && &magic == b"PAR1")
}

/// A book of either format, told apart by content: one of ours (Parquet) as
/// it is, a platform book (JSON) imported. The imported book's header names
/// the file as its network. Rows lookups cannot use are among them (see
/// [`crate::entries`]).
pub fn read_any_book(path: &Path) -> Result<(BookInfo, Vec<BookPosition>)> {
    let parquet = is_parquet(path).map_err(|source| PlatformBookError::Io { path: path.into(), source })?;
    if parquet {
        return read_book(path).with_context(|| format!("reading book {}", path.display()));
    }
    let book = read_platform_book(path)?;
    let rows = import_platform_book(path, &book)?.rows;
    Ok((platform_info(path), rows))
}

/// The game a book was built for (the default game, [`GameKind::default`],
/// for books written before games were recorded).
pub fn book_game(info: &BookInfo) -> &str {
    if info.game.is_empty() {
        GameKind::default().name()
    } else {
        &info.game
    }
}
