//! The MCTS-solver: results the tree has proven, carried up in backup.
//!
//! A node is *proven* when the rules decide its game under best play from
//! what the tree holds:
//!
//! | node | proven | result for the node's mover |
//! |---|---|---|
//! | terminal by the rules ([`GameRules::outcome`]) | always | the outcome |
//! | a detected win ([`GameRules::can_win_this_turn`]) | always | a win in this turn |
//! | expanded | some child is proven won for the mover | a win, by the shortest such child |
//! | expanded | every child is proven, none won, some drawn | a draw (by the longest child: the horizon that decides every line) |
//! | expanded | every child is proven lost for the mover | a loss, by the longest such child |
//!
//! Values are absolute (an [`Outcome`]), as the node's statistics are, so
//! the several decisions of one Paco Ŝako turn need no special case: the
//! rules above read "the node's mover", which stays the same inside a turn.
//! A position the search only *scores* as a draw (a two-fold repetition
//! with [`SearchConfig::twofold_draws`](crate::SearchConfig::twofold_draws),
//! a stuck position) is not proven: the rules do not end the game there.
//!
//! Distances count turn ends: 0 at a finished game, 1 where the mover
//! finishes it in this turn, and one more for every turn that ends on the
//! way (a decision that hands the move over, or ends the game). UCI's
//! `mate N` is in the searching side's moves ([`Proof::uci_mate`]).
//!
//! Selection never descends into a proven node (a visit there backs up its
//! exact value), never chooses a child proven lost for the mover while
//! another exists, and the search stops once its root is proven.

use super::*;

/// A result the search proved, for one side (the side the value is for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    pub result: Proven,
    /// Turns until the game ends under best play, this side's current
    /// turn included (0: the game is over).
    pub turns: u32,
}

/// The result of a [`Proof`] for its side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proven {
    Win,
    Draw,
    Loss,
}

impl Proof {
    /// The proof of absolute `outcome` after `turns` turn ends, for `side`.
    pub(super) fn for_side(outcome: Outcome, turns: u32, side: Color) -> Proof {
        let result = match outcome {
            Outcome::Draw => Proven::Draw,
            Outcome::Win(c) if c == side => Proven::Win,
            Outcome::Win(_) => Proven::Loss,
        };
        Proof { result, turns }
    }

    /// UCI's `score mate N` for the side to move: `N` of its own moves to
    /// the win, `-N` the opponent's moves to its loss; `None` for a draw or
    /// a finished game.
    pub fn uci_mate(&self) -> Option<i64> {
        let t = self.turns as i64;
        match self.result {
            Proven::Win if t > 0 => Some((t + 1) / 2),
            Proven::Loss if t > 0 => Some(-(t / 2).max(1)),
            _ => None,
        }
    }

    /// Whether this side wins.
    pub fn is_win(&self) -> bool {
        self.result == Proven::Win
    }

    /// Whether this side loses.
    pub fn is_loss(&self) -> bool {
        self.result == Proven::Loss
    }
}

/// A node's proven result: the outcome under best play and its distance
/// in turn ends (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NodeProof {
    pub(super) outcome: Outcome,
    pub(super) turns: u32,
}

impl<G: GameRules + Encode> Search<G> {
    /// The proof of node `i`, if any, for `side`.
    pub(super) fn proof_for(&self, i: usize, side: Color) -> Option<Proof> {
        self.nodes[i].proof.map(|p| Proof::for_side(p.outcome, p.turns, side))
    }

    /// Whether child `i` is proven lost for `mover` (its parent's mover).
    #[inline]
    pub(super) fn proven_loss_for(&self, i: usize, mover: Color) -> bool {
        matches!(self.nodes[i].proof, Some(NodeProof { outcome: Outcome::Win(c), .. }) if c != mover)
    }

    /// Turn ends from a node whose mover is `mover` through its child `c`:
    /// the child's own, plus one where the decision into it ends the turn
    /// (the move passes, or the game is over).
    pub(super) fn turns_through(&self, c: usize, mover: Color, own: u32) -> u32 {
        let ends_turn = own == 0 || self.nodes[c].to_move != mover;
        own + u32::from(ends_turn)
    }

    /// What the children of expanded node `p` prove about it, if anything.
    pub(super) fn prove(&self, p: u32) -> Option<NodeProof> {
        let node = &self.nodes[p as usize];
        if node.kind != Kind::Expanded {
            return None;
        }
        let mover = node.to_move;
        let (mut win, mut draw, mut loss): (Option<u32>, Option<u32>, Option<u32>) = (None, None, None);
        let mut all = true;
        for i in self.children(p) {
            let Some(proof) = self.nodes[i].proof else {
                all = false;
                continue;
            };
            let t = self.turns_through(i, mover, proof.turns);
            match proof.outcome {
                Outcome::Win(c) if c == mover => win = Some(win.map_or(t, |w| w.min(t))),
                Outcome::Draw => draw = Some(draw.map_or(t, |d| d.max(t))),
                Outcome::Win(_) => loss = Some(loss.map_or(t, |l| l.max(t))),
            }
        }
        if let Some(turns) = win {
            return Some(NodeProof { outcome: Outcome::Win(mover), turns });
        }
        if !all {
            return None;
        }
        match (draw, loss) {
            (Some(d), l) => Some(NodeProof { outcome: Outcome::Draw, turns: d.max(l.unwrap_or(0)) }),
            (None, Some(turns)) => Some(NodeProof { outcome: Outcome::Win(mover.other()), turns }),
            // An expanded node has children.
            (None, None) => None,
        }
    }

    /// Carries a proof found at the end of the current path up: each
    /// ancestor, nearest first, that its children now prove. Stops at the
    /// first that they do not (nothing above it changed).
    pub(super) fn prove_path(&mut self) {
        for k in (0..self.path.len().saturating_sub(1)).rev() {
            let p = self.path[k];
            if self.nodes[p as usize].proof.is_some() {
                continue;
            }
            match self.prove(p) {
                Some(proof) => self.nodes[p as usize].proof = Some(proof),
                None => break,
            }
        }
    }

    /// The root's proven result for its mover, if any (a detected win at
    /// the root is a win in this turn, a two-turn win one at three turn
    /// ends): its search is over.
    pub fn root_proof(&self) -> Option<Proof> {
        if let Some(f) = &self.forced_wins {
            return Some(Proof { result: Proven::Win, turns: f.turns });
        }
        self.proof_for(0, self.nodes[0].to_move)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uci_mate_counts_the_sides_moves() {
        let p = |result, turns| Proof { result, turns };
        // Winning in this turn is mate in 1; in the turn after next, mate in 2.
        assert_eq!(p(Proven::Win, 1).uci_mate(), Some(1));
        assert_eq!(p(Proven::Win, 2).uci_mate(), Some(1));
        assert_eq!(p(Proven::Win, 3).uci_mate(), Some(2));
        // Lost after this turn and the opponent's: mated in 1.
        assert_eq!(p(Proven::Loss, 2).uci_mate(), Some(-1));
        assert_eq!(p(Proven::Loss, 4).uci_mate(), Some(-2));
        assert_eq!(p(Proven::Loss, 1).uci_mate(), Some(-1));
        assert_eq!(p(Proven::Draw, 3).uci_mate(), None);
        assert_eq!(p(Proven::Win, 0).uci_mate(), None);
    }

    #[test]
    fn a_proof_reads_the_outcome_for_either_side() {
        let w = Outcome::Win(Color::White);
        assert_eq!(Proof::for_side(w, 3, Color::White), Proof { result: Proven::Win, turns: 3 });
        assert_eq!(Proof::for_side(w, 3, Color::Black), Proof { result: Proven::Loss, turns: 3 });
        assert_eq!(Proof::for_side(Outcome::Draw, 1, Color::Black).result, Proven::Draw);
    }
}
