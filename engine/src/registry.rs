//! The registry of the engine's games and its one dispatch point: generic
//! code runs for a game chosen at run time (by name, from a network, a book
//! or a configuration) through [`with_game!`](crate::with_game), which
//! evaluates an expression with a type alias for the game a [`GameKind`]
//! names. Adding a game means one directory under
//! `engine/src/` with an `impl Game` and one line in the `registry!` call
//! below, which generates the enum, [`GameKind::ALL`], the dispatch and the
//! names; `engine/tests/conformance.rs` then runs it through the checks
//! every game passes. The registry depends on the games; the games depend
//! only on the [`Game`] trait (`crate::game`).

use crate::game::Game;
use std::fmt;

/// Generates the registry from one line a game: its variant (with its
/// doc) and its type. `$d` is a `$` passed in, so that the generated
/// `with_game!` can have metavariables of its own.
macro_rules! registry {
    ($d:tt $( $(#[$doc:meta])* $kind:ident => $($ty:ident)::+ ),+ $(,)?) => {
        /// The games of the engine. The default ([`GameKind::default`], the
        /// first of [`GameKind::ALL`]) is the game of files and commands that
        /// do not say.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum GameKind {
            $( $(#[$doc])* $kind, )+
        }

        impl GameKind {
            /// Every game, in registry order.
            pub const ALL: [GameKind; [$(GameKind::$kind),+].len()] = [$(GameKind::$kind),+];

            /// The game's [`Game::NAME`].
            pub fn name(self) -> &'static str {
                match self {
                    $( GameKind::$kind => <crate::$($ty)::+ as Game>::NAME, )+
                }
            }
        }

        /// Runs an expression with a type alias for the game a [`GameKind`]
        /// names: `with_game!(kind, G => run::<G>(args))`. The expression is
        /// written once and compiled once per game.
        #[macro_export]
        macro_rules! with_game {
            ($d kind_value:expr, $d g:ident => $d body:expr) => {
                match { let kind: $crate::GameKind = $d kind_value; kind } {
                    $( $crate::GameKind::$kind => {
                        type $d g = $crate::$($ty)::+;
                        $d body
                    } )+
                }
            };
        }
    };
}

registry! { $
    /// Paco Ŝako.
    Paco => paco::GameState,
    /// Shako: 10x10 chess with cannons and elephants.
    Shako => shako::GameState,
    /// Connect Four (7x6), solved: networks are judged by perfect play.
    Connect4 => connect4::GameState,
}

impl Default for GameKind {
    fn default() -> GameKind {
        GameKind::ALL[0]
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
        assert_eq!(GameKind::default(), GameKind::Paco);
    }

    #[test]
    fn with_game_runs_the_expression_with_the_kinds_type() {
        for k in GameKind::ALL {
            let seen = 7;
            assert_eq!(with_game!(k, G => (G::NAME, seen)), (k.name(), 7));
        }
    }
}
