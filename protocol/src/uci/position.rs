//! The position a `position` command names, read against the game, and a
//! turn written as one UCI token.

use pacozero_engine::Game;

use super::command::PositionCommand;

/// A position: a start and the decisions played from it.
#[derive(Clone)]
pub(super) struct GameLine<G> {
    pub(super) start: G,
    pub(super) decisions: Vec<u16>,
    pub(super) state: G,
}

impl<G: Game> GameLine<G> {
    pub(super) fn start() -> Self {
        GameLine { start: G::start(), decisions: Vec::new(), state: G::start() }
    }
}

/// The position a `position` command names, every move checked: the state
/// the engine would search, or what is wrong. Runs no search (for fuzzing:
/// with [`super::command::parse_command`] it reads a line as the engine does).
pub fn position_of<G: Game>(p: &PositionCommand) -> Result<G, String> {
    read_position::<G>(p).map(|line| line.state)
}

/// The position a `position` command names, every move checked.
pub(super) fn read_position<G: Game>(p: &PositionCommand) -> Result<GameLine<G>, String> {
    let start = match &p.fen {
        None => G::start(),
        Some(fen) => G::from_notation(fen).map_err(|e| format!("position: bad FEN `{fen}`: {}", e.message))?,
    };
    let mut state = start.clone();
    let mut decisions = Vec::new();
    for (i, token) in p.moves.iter().enumerate() {
        if state.outcome().is_some() {
            return Err(format!("position: move {} `{token}`: the game is already over ({})", i + 1, state.end_reason()));
        }
        let turn = state.parse_turn(token).map_err(|e| format!("position: move {} `{token}` is not legal in {}: {}", i + 1, state.notation(), e.message))?;
        for &d in &turn {
            state.apply(d);
        }
        decisions.extend(turn);
    }
    Ok(GameLine { start, decisions, state })
}

/// A whole turn from `from` as one UCI token: its notation without spaces.
pub fn move_token<G: Game>(from: &G, turn: &[u16]) -> String {
    from.turn_notation(turn).split_whitespace().collect()
}
