//! What the tools around self-play share about games and data directories:
//! seeds of rounds and generations, the baseline evaluators by name, the
//! data spec of a game, and refusing to mix two games' data.

use anyhow::{bail, Context, Result};
use pacozero_data::GameSpec;
use pacozero_engine::{Game, GameKind, GameVisitor};

use crate::eval::{Evaluator, RolloutEvaluator, UniformEvaluator};
use crate::selfplay::game_spec;

/// A seed derived from a base seed and an index (round, generation), kept to
/// 63 bits so configurations holding it still serialise to TOML.
pub fn derive_seed(base: u64, index: u64) -> u64 {
    let mut z = base ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (z ^ (z >> 29)) & (i64::MAX as u64)
}

/// The baseline evaluator named on a command line: `uniform` or `rollout`.
pub fn baseline_evaluator<G: Game>(name: &str, seed: u64) -> Result<Box<dyn Evaluator<G>>> {
    Ok(match name {
        "uniform" => Box::new(UniformEvaluator),
        "rollout" => Box::new(RolloutEvaluator::new(seed, 1, 400)),
        other => bail!("unknown evaluator '{other}' (expected 'uniform' or 'rollout')"),
    })
}

/// The data spec of a registered game.
pub fn spec_of(kind: GameKind) -> GameSpec {
    struct Spec;
    impl GameVisitor for Spec {
        type Output = GameSpec;
        fn visit<G: Game>(self) -> GameSpec {
            game_spec::<G>()
        }
    }
    kind.visit(Spec)
}

fn same_shape(a: &GameSpec, b: &GameSpec) -> bool {
    (a.board_height, a.board_width, a.bit_planes, a.scalars, a.policy_size) == (b.board_height, b.board_width, b.bit_planes, b.scalars, b.policy_size)
}

/// The spec of the newest chunk of a data directory (`None` if it has none).
pub fn data_spec(dir: &std::path::Path) -> Result<Option<GameSpec>> {
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
pub fn check_data_dir<G: Game>(dir: &std::path::Path) -> Result<()> {
    let want = game_spec::<G>();
    match data_spec(dir)? {
        Some(have) if have.game != want.game || !same_shape(&have, &want) => {
            bail!("{} holds {} data ({have}), not {} ({want}); pass the matching --game", dir.display(), have.game, want.game)
        }
        _ => Ok(()),
    }
}
