//! Loading trained networks for search.

use anyhow::Result;
use pacozero_engine::{Game, GameKind, GameVisitor};
use pacozero_nn::NetworkEvaluator;
use std::path::{Path, PathBuf};

/// A model file, or a run directory whose `models/current` pointer names one.
pub fn resolve_model(path: &Path) -> Result<PathBuf> {
    if path.is_dir() {
        Ok(pacozero_nn::current_model(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?)
    } else {
        Ok(path.to_path_buf())
    }
}

/// A network evaluator for a model file (or a run directory's current model).
pub fn load_evaluator(path: &Path, threads: usize) -> Result<NetworkEvaluator> {
    NetworkEvaluator::load(&resolve_model(path)?, threads)
}

/// A network evaluator for `spec`: `ref:<name>` (a reference network, see
/// [`crate::arena::reference_dir`]), a model file or a run directory.
pub fn load_evaluator_spec(spec: &str, threads: usize) -> Result<NetworkEvaluator> {
    match spec.strip_prefix("ref:") {
        Some(name) => NetworkEvaluator::load(&crate::arena::reference_model(name)?, threads),
        None => load_evaluator(Path::new(spec), threads),
    }
}

/// The game whose inputs and policy the network of `ev` (loaded from
/// `label`) has: the one registered game with its shape.
pub fn network_game(ev: &NetworkEvaluator, label: &str) -> Result<GameKind> {
    struct Fits<'a>(&'a pacozero_nn::NetConfig, usize);
    impl GameVisitor for Fits<'_> {
        type Output = bool;
        fn visit<G: Game>(self) -> bool {
            let spec = pacozero_selfplay::game_spec::<G>();
            (self.0.input_channels(), self.0.height, self.0.width, self.1) == (spec.input_channels(), spec.board_height, spec.board_width, G::NUM_ACTIONS)
        }
    }
    let cfg = ev.net.config();
    GameKind::ALL.into_iter().find(|k| k.visit(Fits(cfg, ev.net.policy_size()))).ok_or_else(|| {
        anyhow::anyhow!(
            "{label}: the network's inputs ({} channels, {}x{}) and {} policy slots fit none of the games ({})",
            cfg.input_channels(),
            cfg.height,
            cfg.width,
            ev.net.policy_size(),
            GameKind::ALL.map(|k| k.name()).join(", ")
        )
    })
}
