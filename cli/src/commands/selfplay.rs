//! `pacozero selfplay`: games to Parquet chunks, with a network or a baseline
//! evaluator; `--game` picks Paco Ŝako or Shako. Also the per-game helpers the
//! loop, training and the arena share: data specs, baseline evaluators and
//! networks checked against the game.

use crate::args::{GameKind, SelfplayArgs};
use anyhow::{bail, Context, Result};
use pacozero_data::GameSpec;
use pacozero_engine::{paco, shako, Game};
use pacozero_selfplay::{game_spec, run_selfplay, Evaluator, RolloutEvaluator, SelfplayConfig, SelfplayGame, UniformEvaluator};
use std::path::{Path, PathBuf};

pub fn load_config(path: Option<&Path>) -> Result<SelfplayConfig> {
    match path {
        Some(p) => SelfplayConfig::from_file(p).with_context(|| format!("reading self-play config {}", p.display())),
        None => Ok(SelfplayConfig::default()),
    }
}

/// The self-play evaluator of a model file: the network, with
/// `cfg.playout_mix` of a random playout mixed into its leaf values when set.
pub fn selfplay_network<G: Game>(path: &Path, cfg: &SelfplayConfig) -> Result<Box<dyn Evaluator<G>>> {
    pacozero_nn::network_with_playouts(path, 0, cfg.playout_mix, 1, cfg.seed)
}

/// The data spec of a game.
pub fn spec_of(game: GameKind) -> GameSpec {
    match game {
        GameKind::Paco => game_spec::<paco::GameState>(),
        GameKind::Shako => game_spec::<shako::GameState>(),
    }
}

/// The baseline evaluator named on the command line.
pub fn baseline_evaluator<G: Game>(name: &str, seed: u64) -> Result<Box<dyn Evaluator<G>>> {
    Ok(match name {
        "uniform" => Box::new(UniformEvaluator),
        "rollout" => Box::new(RolloutEvaluator::new(seed, 1, 400)),
        other => bail!("unknown evaluator '{other}' (expected 'uniform' or 'rollout')"),
    })
}

fn same_shape(a: &GameSpec, b: &GameSpec) -> bool {
    (a.board_height, a.board_width, a.bit_planes, a.scalars, a.policy_size) == (b.board_height, b.board_width, b.bit_planes, b.scalars, b.policy_size)
}

/// The spec of the newest chunk of a data directory (`None` if it has none).
pub fn data_spec(dir: &Path) -> Result<Option<GameSpec>> {
    if !dir.is_dir() {
        return Ok(None);
    }
    let chunks = pacozero_data::list_chunks(dir).with_context(|| format!("listing {}", dir.display()))?;
    match chunks.last() {
        Some(c) => Ok(Some(pacozero_data::read_file_spec(&c.positions_path).with_context(|| format!("reading {}", c.positions_path.display()))?)),
        None => Ok(None),
    }
}

/// Refuses to add games of `G` to a data directory holding another game's.
pub fn check_data_dir<G: Game>(dir: &Path) -> Result<()> {
    let want = game_spec::<G>();
    match data_spec(dir)? {
        Some(have) if have.game != want.game || !same_shape(&have, &want) => {
            bail!("{} holds {} data ({have}), not {} ({want}); pass the matching --game", dir.display(), have.game, want.game)
        }
        _ => Ok(()),
    }
}

pub fn run(a: SelfplayArgs) -> Result<()> {
    if a.store.is_some() {
        return super::store::selfplay(a);
    }
    match a.game {
        GameKind::Paco => run_game::<paco::GameState>(a),
        GameKind::Shako => run_game::<shako::GameState>(a),
    }
}

fn run_game<G: SelfplayGame>(a: SelfplayArgs) -> Result<()> {
    let mut cfg = load_config(a.config.as_deref())?;
    let out: PathBuf = match (&a.out, &a.run) {
        (Some(o), _) => o.clone(),
        (None, Some(r)) => r.join("data"),
        (None, None) => PathBuf::from("selfplay-data"),
    };
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    check_data_dir::<G>(&out)?;
    if let Some(run_dir) = &a.run {
        // Rounds of games; the current model is re-read before each round.
        let round = (cfg.effective_threads() * cfg.games_per_thread).max(1) as u64;
        let base_seed = cfg.seed;
        let mut played = 0;
        let mut index = 0u64;
        while played < a.games {
            let n = round.min(a.games - played);
            cfg.seed = super::derive_seed(base_seed, index);
            let evaluator: Box<dyn Evaluator<G>> = match pacozero_nn::current_model(run_dir) {
                Ok(model) => selfplay_network::<G>(&model, &cfg)?,
                // No pointer yet: the baseline; a broken pointer is an error.
                Err(_) if !pacozero_nn::models_dir(run_dir).join("current").exists() => baseline_evaluator(&a.evaluator, cfg.seed)?,
                Err(e) => bail!("{e}"),
            };
            eprintln!("round {}: {} games with {}", index + 1, n, evaluator.name());
            let summary = run_selfplay::<G, _>(&cfg, evaluator.as_ref(), &out, n, !a.quiet)?;
            println!("{summary}");
            // Games of this round written by an earlier (killed) process are skipped, not counted.
            played += summary.games;
            index += 1;
        }
        return Ok(());
    }
    let evaluator: Box<dyn Evaluator<G>> = match &a.model {
        Some(m) => selfplay_network::<G>(m, &cfg)?,
        None => baseline_evaluator(&a.evaluator, cfg.seed)?,
    };
    let summary = run_selfplay::<G, _>(&cfg, evaluator.as_ref(), &out, a.games, !a.quiet)?;
    println!("{summary}");
    Ok(())
}
