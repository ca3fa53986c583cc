//! Tactics proved by exhaustive search: can the side to move force a union
//! with the opponent's king within one or two of its own turns?
//!
//! * **Paco in 1**: some turn of the mover ends united with the opponent's
//!   king. Its winning turns are all such turns.
//! * **Paco in 2** (and not in 1): some turn leaves a position where the
//!   opponent cannot unite with the mover's king in its turn, has at least one
//!   turn, and after every one of them the mover can unite with the king (a
//!   Paco in 1) in a game that is still running. Its winning turns are all
//!   such first turns.
//!
//! The proof walks every full move ([`FullMoveGen`]), so it is exact for the
//! position as given: a position read from a FEN has no repetition history,
//! so a repetition that a game's history would make cannot be seen here.

use super::{can_unite_with_king, Action, FullMoveGen, FullMoveLimits, LimitExceeded, Position, Status};

/// A proved tactic: its depth in the mover's turns and every winning first turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tactic {
    /// 1 or 2.
    pub depth: u8,
    /// Every first turn that forces the win, as atomic actions.
    pub winning_turns: Vec<Vec<Action>>,
}

/// Scratch space for [`Prover::prove`] (two full-move generators, kept between calls).
pub struct Prover {
    mover: FullMoveGen,
    opponent: FullMoveGen,
}

impl Default for Prover {
    fn default() -> Self {
        Prover::new(FullMoveLimits::default())
    }
}

impl Prover {
    /// Each full-move enumeration may visit at most `limits` chain states.
    pub fn new(limits: FullMoveLimits) -> Prover {
        Prover { mover: FullMoveGen::with_limits(limits), opponent: FullMoveGen::with_limits(limits) }
    }

    /// The shortest Paco (1 or 2 turns) the mover of the settled position
    /// `pos` can force, or `None` (also for a finished game or the middle of
    /// a turn). `max_depth` 1 stops after the Paco-in-1 test.
    pub fn prove(&mut self, pos: &Position, max_depth: u8) -> Result<Option<Tactic>, LimitExceeded> {
        if !pos.is_settled() || pos.status() != Status::Running {
            return Ok(None);
        }
        let me = pos.side_to_move();
        let mut results: Vec<(Position, Vec<Action>)> = Vec::new();
        self.mover.for_each(pos, |r, trace| results.push((*r, trace.to_vec())))?;
        let wins: Vec<Vec<Action>> = results.iter().filter(|(r, _)| r.status() == Status::PacoVictory(me)).map(|(_, t)| t.clone()).collect();
        if !wins.is_empty() {
            return Ok(Some(Tactic { depth: 1, winning_turns: wins }));
        }
        if max_depth < 2 {
            return Ok(None);
        }
        let mut winning = Vec::new();
        for (r, trace) in &results {
            // Both tests only save the opponent's enumeration: a finished
            // game has no replies, and a reply that unites with the mover's
            // king refutes the turn.
            if r.status() != Status::Running || can_unite_with_king(r) {
                continue;
            }
            // A turn that leaves the game running hands the move over.
            debug_assert_ne!(r.side_to_move(), me, "{}", r.fen());
            let mut replies = 0;
            let mut refuted = false;
            self.opponent.for_each(r, |q, _| {
                replies += 1;
                // The mover must still be able to unite with the king, in a running game.
                if refuted || q.status() != Status::Running || !can_unite_with_king(q) {
                    refuted = true;
                }
                debug_assert!(q.status() != Status::Running || q.side_to_move() == me, "{}", q.fen());
            })?;
            if replies > 0 && !refuted {
                winning.push(trace.clone());
            }
        }
        Ok((!winning.is_empty()).then_some(Tactic { depth: 2, winning_turns: winning }))
    }
}
