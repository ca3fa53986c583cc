//! The legal actions of a position as one set: lifts, places (both a set of
//! squares) or promotions.

use super::Action;
use crate::types::{BitBoard, PieceKind};

/// The kind of actions available in a state, with their targets as a set.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ActionSet {
    None,
    Lifts(BitBoard),
    Places(BitBoard),
    Promotions,
}

impl ActionSet {
    pub fn len(&self) -> usize {
        match self {
            ActionSet::None => 0,
            ActionSet::Lifts(b) | ActionSet::Places(b) => b.len(),
            ActionSet::Promotions => 4,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn contains(&self, a: Action) -> bool {
        match (self, a) {
            (ActionSet::Lifts(b), Action::Lift(s)) | (ActionSet::Places(b), Action::Place(s)) => b.contains(s),
            (ActionSet::Promotions, Action::Promote(k)) => k.promotion_index().is_some(),
            _ => false,
        }
    }
    /// The actions in the reference's order: by square, promotions R, N, B, Q.
    pub fn iter(&self) -> ActionIter {
        ActionIter { set: *self, i: 0 }
    }
}

impl IntoIterator for ActionSet {
    type Item = Action;
    type IntoIter = ActionIter;
    fn into_iter(self) -> ActionIter {
        self.iter()
    }
}

pub struct ActionIter {
    set: ActionSet,
    i: usize,
}

impl Iterator for ActionIter {
    type Item = Action;
    #[inline]
    fn next(&mut self) -> Option<Action> {
        match &mut self.set {
            ActionSet::None => None,
            ActionSet::Lifts(b) => b.next().map(Action::Lift),
            ActionSet::Places(b) => b.next().map(Action::Place),
            ActionSet::Promotions => {
                let k = PieceKind::PROMOTIONS.get(self.i).copied();
                self.i += 1;
                k.map(Action::Promote)
            }
        }
    }
}
