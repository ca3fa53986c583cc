//! What the position asks for next ([`Required`]) and whether the game is over ([`Status`]).

use crate::types::Color;
use std::fmt;

/// What the player to move must do next.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Required {
    /// Pick up a piece (or a union) to start a turn.
    Lift = 0,
    /// Put down the piece in hand (possibly continuing a chain).
    Place = 1,
    /// Promote a pawn the opponent carried to its last rank, then lift.
    PromoteThenLift = 2,
    /// Promote the pawn that reached the last rank inside a chain, then place the released piece.
    PromoteThenPlace = 3,
    /// Promote the pawn that ended the turn on the last rank; the turn then passes.
    PromoteThenFinish = 4,
}

impl Required {
    pub const ALL: [Required; 5] = [Required::Lift, Required::Place, Required::PromoteThenLift, Required::PromoteThenPlace, Required::PromoteThenFinish];

    pub fn is_promote(self) -> bool {
        matches!(self, Required::PromoteThenLift | Required::PromoteThenPlace | Required::PromoteThenFinish)
    }

    pub fn name(self) -> &'static str {
        match self {
            Required::Lift => "Lift",
            Required::Place => "Place",
            Required::PromoteThenLift => "PromoteThenLift",
            Required::PromoteThenPlace => "PromoteThenPlace",
            Required::PromoteThenFinish => "PromoteThenFinish",
        }
    }
}

/// Game status.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Running,
    /// The given colour united with the opponent's king.
    PacoVictory(Color),
    /// Threefold repetition (tracked by [`super::GameState`], which owns the history).
    RepetitionDraw,
    /// 100 half-moves without a new union or a promotion.
    NoProgressDraw,
    /// Optional rule: a chain started by a king ended on the other king.
    KingChainDraw,
}

impl Status {
    pub fn is_over(self) -> bool {
        self != Status::Running
    }

    pub fn winner(self) -> Option<Color> {
        match self {
            Status::PacoVictory(c) => Some(c),
            _ => None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Running => write!(f, "Running"),
            Status::PacoVictory(c) => write!(f, "PacoVictory({c})"),
            Status::RepetitionDraw => write!(f, "RepetitionDraw"),
            Status::NoProgressDraw => write!(f, "NoProgressDraw"),
            Status::KingChainDraw => write!(f, "KingChainDraw"),
        }
    }
}
