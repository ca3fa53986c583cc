//! Every game of a match, kept: the games table of the training data
//! (`pacozero_data`, `docs/DATA.md`), one chunk per match whose positions
//! file has no rows, each game a row with the players' specs in `white`
//! and `black`.
//!
//! | column | a match game's value |
//! |---|---|
//! | `game_id` | milliseconds since the Unix epoch at the recording × 2²⁰ + the recording's number in the process (mod 16) × 2¹⁶ + the game's index |
//! | `start_fen`, `actions`, `num_decisions` | the start, its decisions by name, their count |
//! | `result`, `reason` | `1-0`/`0-1`/`1/2-1/2`; the game's end reason, `max_length`, `stuck`, or a forfeit (`illegal_move`, `engine_crash`, `engine_timeout`) |
//! | `network_id` | `match` |
//! | `config_hash` | empty |
//! | `seed` | the game's seed |
//! | `white`, `black` | the players' specs |

use anyhow::{Context, Result};
use pacozero_data::{chunk_stem, game_spec, ChunkPaths, ChunkWriter, GameRow};
use pacozero_engine::{Color, Game, Outcome};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::matches::MatchGame;

/// The `network_id` of a match game.
pub const MATCH_NETWORK_ID: &str = "match";

/// The result column's text of an outcome.
pub fn result_text(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win(Color::White) => "1-0",
        Outcome::Win(Color::Black) => "0-1",
        Outcome::Draw => "1/2-1/2",
    }
}

/// The games table's rows of `games`, their ids from `first_id` on.
pub fn game_rows(games: &[MatchGame], first_id: u64) -> Vec<GameRow> {
    games
        .iter()
        .enumerate()
        .map(|(i, g)| GameRow {
            game_id: first_id + i as u64,
            start_fen: g.result.start_fen.clone(),
            actions: g.result.actions.clone(),
            num_decisions: g.result.decisions,
            result: result_text(g.result.outcome).into(),
            reason: g.result.end_reason.into(),
            network_id: MATCH_NETWORK_ID.into(),
            config_hash: String::new(),
            seed: g.seed,
            white: g.white.clone(),
            black: g.black.clone(),
        })
        .collect()
}

/// Writes `games` (of game `G`) as one chunk in `dir` (created if missing;
/// a directory of another game's chunks is refused), named by the clock
/// ([`chunk_stem`]); `None` when there is no game. The chunk is written
/// atomically (temporary names, then renames).
pub fn record_games<G: Game>(dir: &Path, games: &[MatchGame]) -> Result<Option<ChunkPaths>> {
    record_games_as::<G>(dir, None, games)
}

/// [`record_games`] as the chunk `stem` when given: a match played again
/// (the loop's evaluation repeated after a crash) writes the same stem,
/// which replaces the first recording, so its games count once.
pub fn record_games_as<G: Game>(dir: &Path, stem: Option<&str>, games: &[MatchGame]) -> Result<Option<ChunkPaths>> {
    if games.is_empty() {
        return Ok(None);
    }
    // Unique stems and ids in one process; across processes, by the clock.
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let first_id = (ms << 20) | ((seq & 0xf) << 16);
    let mut w = ChunkWriter::new(dir, game_spec::<G>()).with_context(|| format!("recording the match's games in {}", dir.display()))?;
    for row in game_rows(games, first_id) {
        w.push_game(row);
    }
    let stem = stem.map_or_else(|| chunk_stem(0, seq), str::to_string);
    let paths = w.flush(&stem).with_context(|| format!("recording the match's games in {}", dir.display()))?;
    Ok(Some(paths))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{no_progress, run_match, Openings, Player};
    use pacozero_engine::prelude::*;
    use pacozero_engine::shako;
    use pacozero_search::GameLimits;

    #[test]
    fn results_are_written_as_in_pgn() {
        assert_eq!(result_text(Outcome::Win(Color::White)), "1-0");
        assert_eq!(result_text(Outcome::Win(Color::Black)), "0-1");
        assert_eq!(result_text(Outcome::Draw), "1/2-1/2");
    }

    #[test]
    fn a_match_is_recorded_game_by_game_and_reads_back() {
        let a = Player::<shako::GameState>::new(&"rollout:4".parse().unwrap(), 1, 1).unwrap();
        let b = Player::<shako::GameState>::new(&"greedy".parse().unwrap(), 2, 1).unwrap();
        let m = run_match(&a, &b, 2, Openings::FischerRandom, GameLimits { max_decisions: 30, adjudicate_material: 0 }, 3, &no_progress).unwrap();
        assert_eq!(m.played.len(), 4);
        let dir = tempfile::tempdir().unwrap();
        let paths = record_games::<shako::GameState>(dir.path(), &m.played).unwrap().unwrap();
        let (spec, rows) = pacozero_data::read_games_file(&paths.games).unwrap();
        assert_eq!(spec, game_spec::<shako::GameState>());
        assert_eq!(rows.len(), 4);
        // Pairs: A as White, then as Black, from the same start.
        assert_eq!((rows[0].white.as_str(), rows[0].black.as_str()), ("rollout:4", "greedy"));
        assert_eq!((rows[1].white.as_str(), rows[1].black.as_str()), ("greedy", "rollout:4"));
        assert_eq!(rows[0].start_fen, rows[1].start_fen);
        for (row, g) in rows.iter().zip(&m.played) {
            // Every game replays from its start to its recorded end.
            let mut state = shako::GameState::from_notation(&row.start_fen).unwrap();
            for d in state.parse_decisions(&row.actions).unwrap() {
                state.apply(d);
            }
            assert_eq!(row.num_decisions as usize, row.actions.split_whitespace().count());
            assert_eq!(row.result, result_text(g.result.outcome));
            match state.outcome() {
                Some(o) => assert_eq!((result_text(o), state.end_reason()), (row.result.as_str(), row.reason.as_str())),
                None => assert_eq!((row.reason.as_str(), row.num_decisions), ("max_length", 30)),
            }
        }
        // One chunk's ids are consecutive, in the games' order.
        let ids: Vec<u64> = rows.iter().map(|r| r.game_id).collect();
        assert_eq!(ids, (0..4).map(|i| ids[0] + i).collect::<Vec<_>>());
        // A second match in the same directory: a second chunk, other ids.
        record_games::<shako::GameState>(dir.path(), &m.played).unwrap();
        assert_eq!(pacozero_data::game_ids(dir.path()).unwrap().len(), 8);
        // A named chunk recorded twice (a match played again) counts once.
        for _ in 0..2 {
            record_games_as::<shako::GameState>(dir.path(), Some("gen-0001-gating"), &m.played).unwrap();
        }
        assert_eq!(pacozero_data::list_chunks(dir.path()).unwrap().len(), 3);
        assert_eq!(pacozero_data::game_ids(dir.path()).unwrap().len(), 12);
        // Another game's directory is refused.
        let e = record_games::<pacozero_engine::paco::GameState>(dir.path(), &m.played).unwrap_err();
        assert!(format!("{e:#}").contains("shako"), "{e:#}");
    }
}
