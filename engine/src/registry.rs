//! The registry of the engine's games and its one dispatch point: generic
//! code runs for a game chosen at run time (by name, from a network, a book
//! or a configuration) through [`GameKind::visit`]. Adding a game means one
//! directory under `engine/src/` with an `impl Game`, one variant here, its
//! name and one arm in `visit`; `engine/tests/conformance.rs` then runs it
//! through the checks every game passes. The registry depends on the games;
//! the games depend only on the [`Game`] trait (`crate::game`).

use crate::game::Game;
use std::fmt;

/// The games of the engine. The default ([`GameKind::default`], the first
/// of [`GameKind::ALL`]) is the game of files and commands that do not say.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum GameKind {
    /// Paco Ŝako.
    #[default]
    Paco,
    /// Shako: 10x10 chess with cannons and elephants.
    Shako,
    /// Connect Four (7x6), solved: networks are judged by perfect play.
    Connect4,
}

/// Generic code to run for the game a [`GameKind`] names.
pub trait GameVisitor {
    type Output;
    fn visit<G: Game>(self) -> Self::Output;
}

impl GameKind {
    pub const ALL: [GameKind; 3] = [GameKind::Paco, GameKind::Shako, GameKind::Connect4];

    /// Runs `v` with the game's type: the one place that maps kinds to types.
    pub fn visit<V: GameVisitor>(self, v: V) -> V::Output {
        match self {
            GameKind::Paco => v.visit::<crate::paco::GameState>(),
            GameKind::Shako => v.visit::<crate::shako::GameState>(),
            GameKind::Connect4 => v.visit::<crate::connect4::GameState>(),
        }
    }

    /// The game's [`Game::NAME`].
    pub fn name(self) -> &'static str {
        struct Name;
        impl GameVisitor for Name {
            type Output = &'static str;
            fn visit<G: Game>(self) -> &'static str {
                G::NAME
            }
        }
        self.visit(Name)
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A game name that no registered game has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownGame(pub String);

impl fmt::Display for UnknownGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
        write!(f, "unknown game {:?} (the games are: {})", self.0, names.join(", "))
    }
}
impl std::error::Error for UnknownGame {}

impl std::str::FromStr for GameKind {
    type Err = UnknownGame;
    fn from_str(s: &str) -> Result<GameKind, UnknownGame> {
        GameKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| UnknownGame(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    #[test]
    fn a_kind_is_written_and_read_as_its_games_name() {
        assert_eq!(GameKind::Paco.to_string(), crate::paco::GameState::NAME);
        assert_eq!(GameKind::Shako.to_string(), crate::shako::GameState::NAME);
        assert_eq!(GameKind::Connect4.to_string(), crate::connect4::GameState::NAME);
        for k in GameKind::ALL {
            assert_eq!(k.to_string().parse::<GameKind>(), Ok(k));
        }
    }
}
