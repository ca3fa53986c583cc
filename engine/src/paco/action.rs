//! Atomic-action notation and the stable action ⇄ policy-index mapping.
//!
//! | action | notation | index (mover's frame) |
//! |---|---|---|
//! | lift the piece or union on a square | `Le2` | `0 + sq'` |
//! | place the piece in hand on a square | `Pe4` | `64 + sq'` |
//! | promote to rook, knight, bishop, queen | `=R` `=N` `=B` `=Q` | `128..=131` |
//!
//! `sq'` is the square index (a1 = 0 … h8 = 63) with ranks mirrored when
//! Black is to move, so the network always sees the board from the mover's side.

use crate::types::{Color, PieceKind, Square};
use std::fmt;

/// An atomic action.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// Pick up the piece (or the union) on a square.
    Lift(Square),
    /// Put the piece in hand down on a square.
    Place(Square),
    /// Promote the pawn that must promote.
    Promote(PieceKind),
}

/// Number of policy slots: 64 lifts + 64 places + 4 promotions.
pub const NUM_ACTIONS: usize = 132;

/// The reference's notation of an action.
pub fn action_to_string(a: Action) -> String {
    match a {
        Action::Lift(s) => format!("L{s}"),
        Action::Place(s) => format!("P{s}"),
        Action::Promote(k) => format!("={}", k.letter()),
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&action_to_string(*self))
    }
}

/// An action string that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionParseError {
    pub input: String,
    /// 0-based character position of the problem.
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ActionParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid action '{}' at character {}: {}", self.input, self.column + 1, self.message)
    }
}
impl std::error::Error for ActionParseError {}

impl std::str::FromStr for Action {
    type Err = ActionParseError;
    fn from_str(s: &str) -> Result<Action, ActionParseError> {
        let e = |column: usize, message: &str| ActionParseError { input: s.to_string(), column, message: message.to_string() };
        let mut chars = s.chars();
        match chars.next() {
            Some('L') | Some('P') => {
                let rest = &s[1..];
                let sq = Square::parse(rest).ok_or_else(|| e(1, "expected a square a1..h8 after L/P"))?;
                Ok(if s.starts_with('L') { Action::Lift(sq) } else { Action::Place(sq) })
            }
            Some('=') => {
                let rest: Vec<char> = chars.collect();
                match rest.as_slice() {
                    [c] => match PieceKind::from_letter(*c) {
                        Some(k) if k.promotion_index().is_some() && c.is_ascii_uppercase() => Ok(Action::Promote(k)),
                        _ => Err(e(1, "promotion piece must be one of R, N, B, Q")),
                    },
                    _ => Err(e(1, "expected exactly one piece letter after '='")),
                }
            }
            Some(_) => Err(e(0, "an action starts with L (lift), P (place) or = (promote)")),
            None => Err(e(0, "empty action")),
        }
    }
}

/// Parses a space-separated action list (`"Le2 Pe4 Le7 Pe5"`), naming the bad token.
pub fn parse_actions(s: &str) -> Result<Vec<Action>, ActionParseError> {
    let mut out = Vec::new();
    let mut offset = 0;
    for tok in s.split(' ') {
        if !tok.is_empty() {
            out.push(tok.parse::<Action>().map_err(|mut err| {
                err.column += offset;
                err.input = s.to_string();
                err
            })?);
        }
        offset += tok.len() + 1;
    }
    Ok(out)
}

#[inline(always)]
fn frame(sq: Square, mover: Color) -> usize {
    match mover {
        Color::White => sq.index(),
        Color::Black => sq.flip_rank().index(),
    }
}

/// Policy index of an action for the given mover.
#[inline]
pub fn action_index(a: Action, mover: Color) -> usize {
    match a {
        Action::Lift(s) => frame(s, mover),
        Action::Place(s) => 64 + frame(s, mover),
        Action::Promote(k) => 128 + k.promotion_index().expect("promotion kind"),
    }
}

/// The action indices as the planes of a convolutional policy head
/// (`net.policy_head = "conv"`): lifts on plane 0 and places on plane 1,
/// each on its square `sq'`; the four promotions, whose index names no
/// square, are planes 2–5 read whole (their logit is the plane's mean).
pub fn policy_planes() -> crate::game::PolicyPlanes {
    let mut slots: Vec<(u16, Option<u16>)> = (0..64).map(|s| (0, Some(s))).collect();
    slots.extend((0..64).map(|s| (1, Some(s))));
    slots.extend((0..4).map(|k| (2 + k, None)));
    debug_assert_eq!(slots.len(), NUM_ACTIONS);
    crate::game::PolicyPlanes { planes: 6, slots }
}

/// The action of a policy index for the given mover (inverse of [`action_index`]).
pub fn action_from_index(i: usize, mover: Color) -> Option<Action> {
    let sq = |j: usize| {
        let s = Square::new(j as u8);
        if mover == Color::White {
            s
        } else {
            s.flip_rank()
        }
    };
    match i {
        0..=63 => Some(Action::Lift(sq(i))),
        64..=127 => Some(Action::Place(sq(i - 64))),
        128..=131 => Some(Action::Promote(PieceKind::PROMOTIONS[i - 128])),
        _ => None,
    }
}

/// Actions as space-separated text (`"Le2 Pe4"`), the stored form of a turn
/// in books and suites.
pub fn actions_text(actions: &[Action]) -> String {
    actions.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_action() -> Vec<Action> {
        let mut all: Vec<Action> = Square::all().map(Action::Lift).collect();
        all.extend(Square::all().map(Action::Place));
        all.extend(PieceKind::PROMOTIONS.map(Action::Promote));
        all
    }

    /// The table of the module's documentation, written out.
    #[test]
    fn every_action_has_its_text_and_index_for_each_mover() {
        let all = every_action();
        assert_eq!(all.len(), NUM_ACTIONS);
        for mover in Color::BOTH {
            let mut taken = [false; NUM_ACTIONS];
            for &a in &all {
                let (text, index) = match a {
                    Action::Lift(s) => (format!("L{s}"), if mover == Color::White { s.index() } else { s.flip_rank().index() }),
                    Action::Place(s) => (format!("P{s}"), 64 + if mover == Color::White { s.index() } else { s.flip_rank().index() }),
                    Action::Promote(k) => (format!("={}", k.letter()), 128 + "RNBQ".find(k.letter()).unwrap()),
                };
                assert_eq!((a.to_string(), action_to_string(a), action_index(a, mover)), (text.clone(), text.clone(), index), "{a:?}");
                assert_eq!(text.parse::<Action>(), Ok(a));
                assert_eq!(action_from_index(index, mover), Some(a));
                assert!(!std::mem::replace(&mut taken[index], true), "index {index} twice");
            }
            assert_eq!(action_from_index(NUM_ACTIONS, mover), None);
        }
        assert_eq!(action_index(Action::Lift(Square::parse("e2").unwrap()), Color::Black), Square::parse("e7").unwrap().index());
    }

    #[test]
    fn bad_actions_are_refused_with_the_column_at_fault() {
        let err = |s: &str| s.parse::<Action>().unwrap_err();
        for (input, column, message) in [
            ("", 0, "empty action"),
            ("Xe2", 0, "an action starts with L (lift), P (place) or = (promote)"),
            ("le2", 0, "an action starts with L (lift), P (place) or = (promote)"),
            ("L", 1, "expected a square a1..h8 after L/P"),
            ("Pi9", 1, "expected a square a1..h8 after L/P"),
            ("Le22", 1, "expected a square a1..h8 after L/P"),
            ("=", 1, "expected exactly one piece letter after '='"),
            ("=QQ", 1, "expected exactly one piece letter after '='"),
            ("=q", 1, "promotion piece must be one of R, N, B, Q"),
            ("=n", 1, "promotion piece must be one of R, N, B, Q"),
            ("=K", 1, "promotion piece must be one of R, N, B, Q"),
            ("=P", 1, "promotion piece must be one of R, N, B, Q"),
            ("=X", 1, "promotion piece must be one of R, N, B, Q"),
        ] {
            assert_eq!(err(input), ActionParseError { input: input.into(), column, message: message.into() }, "{input:?}");
        }
        assert_eq!(err("=q").to_string(), "invalid action '=q' at character 2: promotion piece must be one of R, N, B, Q");
    }

    #[test]
    fn action_lists_name_the_bad_token_by_its_column_in_the_whole_text() {
        let list = "Le2 Pe4  =Q Ph8";
        let actions = parse_actions(list).unwrap();
        assert_eq!(actions_text(&actions), "Le2 Pe4 =Q Ph8");
        assert_eq!(parse_actions("").unwrap(), vec![]);
        let e = parse_actions("Le2  Pe4 Pz9").unwrap_err();
        assert_eq!((e.input.as_str(), e.column), ("Le2  Pe4 Pz9", 10));
        let e = parse_actions("Le2 Pe4 =k").unwrap_err();
        assert_eq!((e.column, e.message.as_str()), (9, "promotion piece must be one of R, N, B, Q"));
    }
}
