//! A game's data spec from its [`Game`] hooks, and refusing to mix two
//! games' data in one directory.

use std::path::Path;

use pacozero_engine::{Game, GameKind, GameVisitor};

use crate::{list_chunks, read_file_spec, DataError, GameSpec, Result};

/// The data-schema spec of a game.
pub fn game_spec<G: Game>() -> GameSpec {
    GameSpec::new(
        G::NAME,
        G::BOARD_HEIGHT as u32,
        G::BOARD_WIDTH as u32,
        G::NUM_BIT_PLANES as u32,
        G::NUM_SCALARS as u32,
        G::NUM_ACTIONS as u32,
        G::AUX_TARGETS,
    )
    .expect("the game's dimensions form a valid spec")
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
    (a.board_height, a.board_width, a.bit_planes, a.scalars, a.policy_size, &a.aux_targets)
        == (b.board_height, b.board_width, b.bit_planes, b.scalars, b.policy_size, &b.aux_targets)
}

/// The spec of the newest chunk of a data directory (`None` if it has none).
pub fn data_spec(dir: &Path) -> Result<Option<GameSpec>> {
    if !dir.is_dir() {
        return Ok(None);
    }
    match list_chunks(dir)?.last() {
        Some(c) => Ok(Some(read_file_spec(&c.positions_path)?)),
        None => Ok(None),
    }
}

/// Refuses to add games of `G` to a data directory holding another game's.
pub fn check_data_dir<G: Game>(dir: &Path) -> Result<()> {
    let want = game_spec::<G>();
    match data_spec(dir)? {
        Some(have) if have.game != want.game || !same_shape(&have, &want) => Err(DataError::WrongGame {
            dir: dir.to_path_buf(),
            have_game: have.game.clone(),
            have: have.to_string(),
            want_game: want.game.clone(),
            want: want.to_string(),
        }),
        _ => Ok(()),
    }
}
