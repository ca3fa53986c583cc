//! Finding and loading networks for search: model files, run directories,
//! the reference networks by name, and the game a network plays.
//!
//! | spec | network |
//! |---|---|
//! | a `.pzmodel` file | that model |
//! | a run directory | the model its `models/current` pointer names |
//! | `ref:<name>` | `<name>.pzmodel` of the reference folder ([`reference_dir`]) |

use anyhow::{anyhow, bail, Result};
use pacozero_data::game_spec_as;
use pacozero_engine::{encoding_index, Game, GameKind};
use pacozero_search::{Evaluator, MixedEvaluator, RolloutEvaluator};
use std::path::{Path, PathBuf};

use crate::{current_model, NetConfig, NetworkEvaluator};

/// The model file a path names: a model file, a run directory whose
/// `models/current` pointer names one, or `ref:<name>`, a reference network
/// (so every command that takes a model takes a reference by name).
pub fn resolve_model(path: &Path) -> Result<PathBuf> {
    if let Some(name) = path.to_str().and_then(|s| s.strip_prefix("ref:")) {
        reference_model(name)
    } else if path.is_dir() {
        current_model(path).map_err(|e| anyhow!("{}: {e}", path.display()))
    } else {
        Ok(path.to_path_buf())
    }
}

/// The reference networks built into the program, so that `ref:<name>`
/// works from an installed binary, away from the checkout it was built from.
const BUILT_IN: &[(&str, &[u8])] = &[
    ("quick-199eb03-gen28", include_bytes!("../../models/reference/quick-199eb03-gen28.pzmodel")),
    ("quick-edd488c-gen71", include_bytes!("../../models/reference/quick-edd488c-gen71.pzmodel")),
    ("quick-0109b14-gen119", include_bytes!("../../models/reference/quick-0109b14-gen119.pzmodel")),
    ("shako-bd70ee01-gen115", include_bytes!("../../models/reference/shako-bd70ee01-gen115.pzmodel")),
];

/// Where the reference networks are: `$PACOZERO_REFERENCE_DIR`, or
/// `models/reference/` of the checkout the program was built from.
pub fn reference_dir() -> PathBuf {
    std::env::var_os("PACOZERO_REFERENCE_DIR").map(PathBuf::from).unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/reference"))
}

/// The model file of the reference network `name`: from [`reference_dir`],
/// else the built-in copy, written once to the temporary directory (the
/// loaders read files). The error lists the names there are.
pub fn reference_model(name: &str) -> Result<PathBuf> {
    // A name, not a path: `ref:../../x` must not reach outside the folder.
    if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\']) || name.contains("..") {
        bail!("'{name}' is not the name of a reference network: a name has no path separators and does not start with a dot");
    }
    let dir = reference_dir();
    let path = dir.join(format!("{name}.pzmodel"));
    if path.is_file() {
        return Ok(path);
    }
    if let Some((_, bytes)) = BUILT_IN.iter().find(|(n, _)| *n == name) {
        return built_in_file(name, bytes);
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".pzmodel").map(String::from)).collect())
        .unwrap_or_default();
    names.extend(BUILT_IN.iter().map(|(n, _)| n.to_string()));
    names.sort();
    names.dedup();
    bail!(
        "no reference network '{name}' in {} or built in (there are: {})",
        dir.display(),
        if names.is_empty() { "none".to_string() } else { names.join(", ") }
    )
}

/// The built-in reference `name` as a file: `<tmp>/pacozero-reference/<name>.pzmodel`,
/// rewritten (temporary name, then rename) unless it already holds these bytes.
/// The temporary name carries the process id, unlike `write_atomic`'s fixed
/// `.tmp`: two programs started at once (an ablation's two arms, a match's
/// two players) may both write the file.
fn built_in_file(name: &str, bytes: &[u8]) -> Result<PathBuf> {
    let dir = std::env::temp_dir().join("pacozero-reference");
    let path = dir.join(format!("{name}.pzmodel"));
    if std::fs::read(&path).is_ok_and(|b| b == bytes) {
        return Ok(path);
    }
    std::fs::create_dir_all(&dir).map_err(|e| anyhow!("{}: {e}", dir.display()))?;
    let tmp = dir.join(format!("{name}.pzmodel.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, &path)).map_err(|e| {
        // A full disk leaves no part of the file behind.
        let _ = std::fs::remove_file(&tmp);
        anyhow!("writing the built-in reference network to {}: {e}", path.display())
    })?;
    Ok(path)
}

/// The model file a spec names (see the table above).
pub fn model_of_spec(spec: &str) -> Result<PathBuf> {
    resolve_model(Path::new(spec))
}

/// A network evaluator for a model file (or a run directory's current model)
/// on `threads` threads (0: rayon's global pool).
pub fn load_evaluator(path: &Path, threads: usize) -> Result<NetworkEvaluator> {
    NetworkEvaluator::load(&resolve_model(path)?, threads)
}

/// A network evaluator for a spec (see the table above).
pub fn load_evaluator_spec(spec: &str, threads: usize) -> Result<NetworkEvaluator> {
    NetworkEvaluator::load(&model_of_spec(spec)?, threads)
}

/// The registered game whose inputs (in the network's encoding) and policy
/// a network of `cfg` has (at most one: the games differ in shape).
pub fn config_game(cfg: &NetConfig) -> Option<GameKind> {
    fn fits<G: Game>(cfg: &NetConfig) -> bool {
        let Ok(e) = encoding_index::<G>(&cfg.encoding) else { return false };
        let spec = game_spec_as::<G>(e);
        (cfg.input_channels(), cfg.height, cfg.width, cfg.policy_size as usize, cfg.aux_targets as usize)
            == (spec.input_channels(), spec.board_height, spec.board_width, G::NUM_ACTIONS, spec.num_aux_targets())
    }
    GameKind::ALL.into_iter().find(|&k| pacozero_engine::with_game!(k, G => fits::<G>(cfg)))
}

/// The game whose inputs and policy the network of `ev` (loaded from
/// `label`) has: the one registered game with its shape.
pub fn network_game(ev: &NetworkEvaluator, label: &str) -> Result<GameKind> {
    let cfg = ev.net.config();
    config_game(cfg).ok_or_else(|| {
        anyhow!(
            "{label}: the network's inputs ({} channels, {}x{}, encoding {}) and {} policy slots fit none of the games ({})",
            cfg.input_channels(),
            cfg.height,
            cfg.width,
            cfg.encoding,
            ev.net.policy_size(),
            GameKind::ALL.map(|k| k.name()).join(", ")
        )
    })
}

/// A network evaluator for a model file (or a run directory's current
/// model), refused unless the model was made for game `G`.
pub fn load_network<G: Game>(path: &Path, threads: usize) -> Result<NetworkEvaluator> {
    let ev = load_evaluator(path, threads)?;
    let not_of_g = |e: String| anyhow!("model {} is not a {} network: {e}", path.display(), G::NAME);
    let encoding = encoding_index::<G>(&ev.net.config().encoding).map_err(not_of_g)?;
    ev.net.config().check_spec(&game_spec_as::<G>(encoding)).map_err(|e| not_of_g(e.to_string()))?;
    Ok(ev)
}

/// The network of a model file for game `G` on `threads` threads, its
/// tower in `precision` (`None`: the process's); with `weight > 0`, the
/// mean of `playouts` random playouts (seeded by `seed`) mixed into its
/// leaf values with that weight.
pub fn network_with_playouts<G: Game>(
    path: &Path,
    threads: usize,
    weight: f32,
    playouts: u32,
    precision: Option<crate::NetPrecision>,
    seed: u64,
) -> Result<Box<dyn Evaluator<G>>> {
    let mut net = load_network::<G>(path, threads)?;
    if let Some(p) = precision {
        net.net.set_precision(p).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    Ok(if weight > 0.0 { Box::new(MixedEvaluator { inner: net, rollout: RolloutEvaluator::new(seed, playouts, 400), lambda: weight }) } else { Box::new(net) })
}
