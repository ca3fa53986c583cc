//! `pacozero games export`: the games tables of chunk directories (self-play
//! data, match games) as PGN (`pacozero_data::pgn`).

use crate::args::{GamesArgs, GamesCommand, GamesFormat};
use anyhow::{bail, Context, Result};
use pacozero_engine::GameKind;

pub fn run(a: GamesArgs) -> Result<()> {
    match a.what {
        GamesCommand::Export { dirs, format: GamesFormat::Pgn, out } => {
            let mut text = String::new();
            let mut round = 0;
            for dir in &dirs {
                let chunks = pacozero_data::list_chunks(dir).with_context(|| format!("reading the games of {}", dir.display()))?;
                if chunks.is_empty() {
                    bail!("{}: no complete chunk (<stem>.games.parquet) to export", dir.display());
                }
                for c in chunks {
                    let (spec, rows) = pacozero_data::read_games_file(&c.games_path)?;
                    let kind: GameKind = spec.game.parse().with_context(|| format!("{}", c.games_path.display()))?;
                    for row in rows {
                        round += 1;
                        let pgn = pacozero_data::pgn::pgn_game(kind, &row, round).map_err(|e| anyhow::anyhow!("{}: {e}", c.games_path.display()))?;
                        text.push_str(&pgn);
                    }
                }
            }
            match out {
                Some(path) => {
                    pacozero_data::write_atomic(&path, &[text.as_bytes()])?;
                    eprintln!("games export: {round} games written to {}", path.display());
                }
                None => print!("{text}"),
            }
            Ok(())
        }
    }
}
