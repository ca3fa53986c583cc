//! The registry of the engine's games and its dispatch: generic
//! code runs for a game chosen at run time (by name, from a network, a book
//! or a configuration) through [`with_game!`](crate::with_game), which
//! evaluates an expression with a type alias for the game a [`GameKind`]
//! names, and [`with_state!`](crate::with_state), which runs one on the
//! state inside an [`AnyState`]. Adding a game means one directory under
//! `engine/src/` implementing the game traits and one line in the
//! `registry!` call below, which generates the enums, [`GameKind::ALL`],
//! the dispatch and the names; `engine/tests/conformance.rs` then runs it through the checks
//! every game passes. The registry depends on the games; the games depend
//! only on the traits of [`Game`](crate::Game) (`crate::game`).

use crate::GameKind;
use std::fmt;

/// Generates the registry from one line a game: its variant (with its
/// doc), its module and its type. Invoked at the crate root, so that it
/// also declares each game's module (`engine/src/<module>/`). `$d` is a
/// `$` passed in, so that the generated `with_game!` and `with_state!` can
/// have metavariables of their own.
macro_rules! registry {
    ($d:tt $( $(#[$doc:meta])* $kind:ident => $module:ident :: $ty:ident ),+ $(,)?) => {
        $( pub mod $module; )+

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

            /// The game's [`GameRules::NAME`](crate::GameRules::NAME).
            pub fn name(self) -> &'static str {
                match self {
                    $( GameKind::$kind => <crate::$module::$ty as crate::game::GameRules>::NAME, )+
                }
            }
        }

        /// A state of any registered game, for code that chooses the game at
        /// run time and keeps states (the Python package's `State`).
        /// [`with_state!`](crate::with_state) runs code on the game's own
        /// type inside it.
        #[derive(Clone)]
        pub enum AnyState {
            $( $(#[$doc])* $kind(crate::$module::$ty), )+
        }

        impl AnyState {
            /// The state's game.
            pub fn kind(&self) -> GameKind {
                match self {
                    $( AnyState::$kind(_) => GameKind::$kind, )+
                }
            }
        }

        $( impl From<crate::$module::$ty> for AnyState {
            fn from(state: crate::$module::$ty) -> AnyState {
                AnyState::$kind(state)
            }
        } )+

        /// Runs an expression on the state inside an [`AnyState`], bound to
        /// `g` as its game's own type: `with_state!(&any, g => g.notation())`
        /// (`&mut any` binds `g` mutably). The expression is written once and
        /// compiled once per game.
        #[macro_export]
        macro_rules! with_state {
            ($d state:expr, $d g:ident => $d body:expr) => {
                match $d state {
                    $( $crate::AnyState::$kind($d g) => $d body, )+
                }
            };
        }

        /// Runs an expression with a type alias for the game a [`GameKind`]
        /// names: `with_game!(kind, G => run::<G>(args))`. The expression is
        /// written once and compiled once per game.
        #[macro_export]
        macro_rules! with_game {
            ($d kind_value:expr, $d g:ident => $d body:expr) => {
                match { let kind: $crate::GameKind = $d kind_value; kind } {
                    $( $crate::GameKind::$kind => {
                        type $d g = $crate::$module::$ty;
                        $d body
                    } )+
                }
            };
        }
    };
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
    use crate::prelude::*;

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
}
