//! A game's data spec from its [`Game`] hooks, and refusing to mix two
//! games' data in one directory.

use std::path::Path;

use pacozero_engine::{Game, GameKind};

use crate::{list_chunks, read_file_spec, DataError, GameSpec, Result};

/// The data-schema spec of a game.
pub fn game_spec<G: Game>() -> GameSpec {
    game_spec_as::<G>(0)
}

/// The data spec of a game whose rows hold input encoding
/// `G::ENCODINGS[encoding]`.
pub fn game_spec_as<G: Game>(encoding: usize) -> GameSpec {
    let e = &G::ENCODINGS[encoding];
    GameSpec::new(
        G::NAME,
        G::BOARD_HEIGHT as u32,
        G::BOARD_WIDTH as u32,
        e.num_bit_planes() as u32,
        e.num_scalars() as u32,
        G::NUM_ACTIONS as u32,
        G::AUX_TARGETS,
    )
    .and_then(|s| s.with_encoding(e.name))
    .expect("the game's dimensions form a valid spec")
}

/// The data spec of game `kind` in its input encoding `encoding` (a name);
/// the error names the game's encodings.
pub fn spec_of_encoding(kind: GameKind, encoding: &str) -> std::result::Result<GameSpec, String> {
    pacozero_engine::with_game!(kind, G => Ok(game_spec_as::<G>(pacozero_engine::encoding_index::<G>(encoding)?)))
}

/// The data spec of a registered game.
pub fn spec_of(kind: GameKind) -> GameSpec {
    pacozero_engine::with_game!(kind, G => game_spec::<G>())
}

/// The registry's spec of the game that `spec` (read from a file) names,
/// in `spec`'s encoding, if `spec` has its sizes: a file's declared sizes
/// are not trusted to size a network or its buffers. The error names the
/// first field that differs.
pub fn registered_spec(spec: &GameSpec) -> std::result::Result<GameSpec, String> {
    let kind: GameKind = spec.game.parse().map_err(|e| format!("game = {:?}: {e}", spec.game))?;
    let want = spec_of_encoding(kind, &spec.encoding).map_err(|e| format!("encoding = {:?}: {e}", spec.encoding))?;
    let sizes = [
        ("board_height", spec.board_height, want.board_height),
        ("board_width", spec.board_width, want.board_width),
        ("bit_planes", spec.bit_planes, want.bit_planes),
        ("scalars", spec.scalars, want.scalars),
        ("policy_size", spec.policy_size, want.policy_size),
    ];
    for (field, have, registered) in sizes {
        if have != registered {
            return Err(format!("{field} = {have}, but {}'s is {registered} ({want})", want.game));
        }
    }
    if spec.aux_targets != want.aux_targets {
        return Err(format!("aux_targets = {:?}, but {}'s are {:?}", spec.aux_targets.join(","), want.game, want.aux_targets.join(",")));
    }
    Ok(want)
}

fn same_shape(a: &GameSpec, b: &GameSpec) -> bool {
    (a.board_height, a.board_width, a.bit_planes, a.scalars, a.policy_size, &a.aux_targets, &a.encoding)
        == (b.board_height, b.board_width, b.bit_planes, b.scalars, b.policy_size, &b.aux_targets, &b.encoding)
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
    check_data_dir_as::<G>(dir, 0)
}

/// Refuses to add games of `G` in input encoding `G::ENCODINGS[encoding]`
/// to a data directory holding another game's, or the same game's in
/// another encoding.
pub fn check_data_dir_as<G: Game>(dir: &Path, encoding: usize) -> Result<()> {
    let want = game_spec_as::<G>(encoding);
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
