//! Self-play rounds, the one way every caller plays them: the loop's
//! generations, `pacozero selfplay` (with or without a run directory) and
//! the object-store workers.
//!
//! A round is "seed → evaluator → [`run_selfplay`]". Round `i` of a series
//! with base seed `s` plays with seed [`derive_seed`]`(s, i)`, and a round's
//! evaluator is chosen when the round starts, so a series follows a run's
//! newest model.

use std::path::{Path, PathBuf};

use anyhow::Result;
use pacozero_data::check_data_dir_as;
use pacozero_engine::{encoding_index, Game};
use pacozero_search::{baseline_evaluator, derive_seed, Evaluator};
use pacozero_selfplay::{run_selfplay, SelfplayConfig, Summary};

/// What plays a round's games.
#[derive(Clone, Debug, PartialEq)]
pub enum SelfplayPlayer {
    /// A model file, on `threads` threads of its own (0: rayon's global
    /// pool), with the configuration's `playout_mix` of a random playout
    /// mixed into its leaf values.
    Network { model: PathBuf, threads: usize },
    /// A baseline evaluator by name (`uniform` or `rollout`).
    Baseline(String),
}

impl SelfplayPlayer {
    /// The evaluator for a round played with `cfg` (whose seed seeds the
    /// playouts).
    pub fn evaluator<G: Game>(&self, cfg: &SelfplayConfig) -> Result<Box<dyn Evaluator<G>>> {
        match self {
            SelfplayPlayer::Network { model, threads } => pacozero_nn::network_with_playouts::<G>(model, *threads, cfg.playout_mix, 1, None, cfg.seed),
            SelfplayPlayer::Baseline(name) => baseline_evaluator(name, cfg.seed),
        }
    }
}

impl std::fmt::Display for SelfplayPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SelfplayPlayer::Network { model, .. } => write!(f, "model {}", model.file_stem().unwrap_or(model.as_os_str()).to_string_lossy()),
            SelfplayPlayer::Baseline(name) => write!(f, "{name}"),
        }
    }
}

/// A finished round of a series.
#[derive(Clone, Debug)]
pub struct RoundReport {
    /// The round's index in its series (0-based).
    pub index: u64,
    /// Its games.
    pub summary: Summary,
}

/// One round: `games` games of `cfg` with seed `seed` by `player`, written
/// to the data directory `out` (games a killed earlier process already
/// wrote there are skipped, not replayed). `announce` hears the evaluator's
/// name before the games start.
pub fn selfplay_round<G: Game>(
    cfg: &SelfplayConfig,
    seed: u64,
    player: &SelfplayPlayer,
    out: &Path,
    games: u64,
    progress: bool,
    announce: &dyn Fn(&str),
) -> Result<Summary> {
    let cfg = SelfplayConfig { seed, ..cfg.clone() };
    let evaluator = player.evaluator::<G>(&cfg)?;
    // The data is in the network's input encoding (a baseline reads none:
    // then the configuration's), and goes only where data of that encoding is.
    let cfg = SelfplayConfig { encoding: evaluator.encoding().unwrap_or_else(|| cfg.encoding.clone()), ..cfg };
    let encoding = encoding_index::<G>(&cfg.encoding).map_err(|e| anyhow::anyhow!("self-play encoding: {e}"))?;
    check_data_dir_as::<G>(out, encoding)?;
    announce(&evaluator.name());
    run_selfplay::<G, _>(&cfg, evaluator.as_ref(), out, games, progress)
}

/// A series of rounds: `games` games of `cfg` in rounds of one game per
/// worker slot (`threads × games_per_thread`), round `i` seeded
/// `derive_seed(base_seed, i)`.
#[derive(Clone, Copy, Debug)]
pub struct Series<'a> {
    pub cfg: &'a SelfplayConfig,
    pub base_seed: u64,
    pub games: u64,
}

/// Plays a [`Series`] into the data directory `out`. `player` is asked
/// before each round (so a series picks up a newer model), `started` hears
/// of each round before it plays and `finished` after.
pub fn selfplay_rounds<G: Game>(
    series: Series<'_>,
    out: &Path,
    progress: bool,
    mut player: impl FnMut() -> Result<SelfplayPlayer>,
    mut started: impl FnMut(u64, u64, &SelfplayPlayer),
    mut finished: impl FnMut(&RoundReport) -> Result<()>,
) -> Result<()> {
    let Series { cfg, base_seed, games } = series;
    let round = (cfg.effective_threads() * cfg.games_per_thread).max(1) as u64;
    let (mut played, mut index) = (0u64, 0u64);
    while played < games {
        let n = round.min(games - played);
        let who = player()?;
        started(index, n, &who);
        let summary = selfplay_round::<G>(cfg, derive_seed(base_seed, index), &who, out, n, progress, &|_| {})?;
        played += summary.games;
        finished(&RoundReport { index, summary })?;
        index += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::looping::LoopFile;
    use crate::test_support::{tiny_loop, tiny_model_in, TempDir};
    use pacozero_engine::paco::GameState as Paco;
    use std::cell::RefCell;

    /// The miniature loop's self-play: one thread of two games at a time, at most 20 decisions.
    fn tiny_selfplay() -> SelfplayConfig {
        LoopFile::parse(&tiny_loop(&["selfplay.seed=1000"]), "tiny").unwrap().selfplay
    }

    #[test]
    fn a_player_shows_as_its_model_or_its_baseline() {
        assert_eq!(SelfplayPlayer::Network { model: "/runs/r/models/gen-0003.pzmodel".into(), threads: 0 }.to_string(), "model gen-0003");
        assert_eq!(SelfplayPlayer::Baseline("rollout".into()).to_string(), "rollout");
    }

    #[test]
    fn a_round_plays_with_its_own_seed_and_skips_the_games_already_written() {
        let dir = TempDir::new("round-seed");
        let cfg = tiny_selfplay();
        let rollout = SelfplayPlayer::Baseline("rollout".into());
        let heard = RefCell::new(Vec::new());
        let announce = |name: &str| heard.borrow_mut().push(name.to_string());
        let s = selfplay_round::<Paco>(&cfg, 5, &rollout, dir.path(), 2, false, &announce).unwrap();
        assert_eq!((s.games, s.skipped), (2, 0));
        assert_eq!(heard.borrow().len(), 1, "the evaluator is announced once, before the games");
        // The same seed again: the two games are there already (the configuration's seed plays no part).
        let s = selfplay_round::<Paco>(&cfg, 5, &rollout, dir.path(), 2, false, &announce).unwrap();
        assert_eq!((s.games, s.skipped), (0, 2));
        let s = selfplay_round::<Paco>(&cfg, 6, &rollout, dir.path(), 2, false, &announce).unwrap();
        assert_eq!((s.games, s.skipped), (2, 0));
    }

    #[test]
    fn a_round_writes_the_data_in_its_networks_encoding() {
        let dir = TempDir::new("round-encoding");
        // A network of the second Paco encoding, platform; the configuration says the first.
        let model = tiny_model_in::<Paco>(&dir.join("models"), "platform", 1);
        let cfg = tiny_selfplay();
        assert_eq!(cfg.encoding, "pacozero");
        let out = dir.join("data");
        let s = selfplay_round::<Paco>(&cfg, 5, &SelfplayPlayer::Network { model, threads: 1 }, &out, 2, false, &|_| {}).unwrap();
        assert_eq!(s.games, 2);
        pacozero_data::check_data_dir_as::<Paco>(&out, 1).unwrap();
        assert!(pacozero_data::check_data_dir_as::<Paco>(&out, 0).is_err());
    }

    #[test]
    fn a_series_plays_rounds_of_one_game_per_worker_slot_until_its_games_are_played() {
        let dir = TempDir::new("series");
        let cfg = tiny_selfplay();
        let asked = RefCell::new(0);
        let started = RefCell::new(Vec::new());
        let finished = RefCell::new(Vec::new());
        // 5 games in rounds of 1 thread x 2 games: 2, 2, 1.
        selfplay_rounds::<Paco>(
            Series { cfg: &cfg, base_seed: 9, games: 5 },
            dir.path(),
            false,
            || {
                *asked.borrow_mut() += 1;
                Ok(SelfplayPlayer::Baseline("rollout".into()))
            },
            |index, n, who| {
                assert!(index < 10 && started.borrow().len() < 10, "a series of 5 games that never ends");
                started.borrow_mut().push((index, n, who.to_string()));
            },
            |r| {
                finished.borrow_mut().push((r.index, r.summary.games));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(*asked.borrow(), 3, "the player is asked before each round");
        assert_eq!(*started.borrow(), [(0, 2, "rollout".to_string()), (1, 2, "rollout".to_string()), (2, 1, "rollout".to_string())]);
        assert_eq!(*finished.borrow(), [(0, 2), (1, 2), (2, 1)]);
        // Round i is seeded derive_seed(9, i): playing round 1 again by hand skips its games.
        let s = selfplay_round::<Paco>(&cfg, derive_seed(9, 1), &SelfplayPlayer::Baseline("rollout".into()), dir.path(), 2, false, &|_| {}).unwrap();
        assert_eq!((s.games, s.skipped), (0, 2));
    }
}
