//! The tree: nodes with (White, draw, Black) value sums, the perspective
//! helpers, and tree reuse between decisions.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Not yet reached (no state; a root has its state but no children).
    Fresh,
    Expanded,
    Terminal,
}

#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) parent: u32,
    pub(super) first_child: u32,
    pub(super) num_children: u32,
    pub(super) state: u32,
    pub(super) action: u16,
    pub(super) kind: Kind,
    pub(super) to_move: Color,
    pub(super) prior: f32,
    pub(super) n: u32,
    /// Sums of (White wins, draw, Black wins).
    pub(super) wdl: [f32; 3],
    /// Raw evaluation (White's perspective, win - loss) of an expanded node.
    pub(super) value: f32,
    /// Exact (White, draw, Black) of a terminal node.
    pub(super) twdl: [f32; 3],
    /// Draw probability of an expanded node's raw evaluation.
    pub(super) draw: f32,
    /// The result the tree proves (`solver.rs`), if any.
    pub(super) proof: Option<NodeProof>,
}

impl Node {
    pub(super) fn fresh(parent: u32, action: u16, prior: f32) -> Node {
        Node {
            parent,
            first_child: NONE,
            num_children: 0,
            state: NONE,
            action,
            kind: Kind::Fresh,
            to_move: Color::White,
            prior,
            n: 0,
            wdl: [0.0; 3],
            value: 0.0,
            twdl: [0.0; 3],
            draw: 0.0,
            proof: None,
        }
    }
    #[inline]
    pub(super) fn white_value(&self) -> f32 {
        (self.wdl[0] - self.wdl[2]) / self.n as f32
    }
}

#[inline]
pub(super) fn sign(c: Color) -> f32 {
    if c == Color::White {
        1.0
    } else {
        -1.0
    }
}

/// Converts between a mover's (win, draw, loss) and (White, draw, Black).
#[inline]
pub(super) fn flip_for(c: Color, wdl: [f32; 3]) -> [f32; 3] {
    if c == Color::White {
        wdl
    } else {
        [wdl[2], wdl[1], wdl[0]]
    }
}

pub(super) fn outcome_white_wdl(o: Outcome) -> [f32; 3] {
    match o {
        Outcome::Win(Color::White) => [1.0, 0.0, 0.0],
        Outcome::Win(Color::Black) => [0.0, 0.0, 1.0],
        Outcome::Draw => [0.0, 1.0, 0.0],
    }
}

impl<G: GameRules + Encode> Search<G> {
    /// `v`, a value for `mover`, less what its draw share `draw` costs
    /// `mover` ([`SearchConfig::contempt`] for the root's mover, its
    /// negative for the opponent); `v` itself without contempt.
    #[inline]
    fn at_draw_cost(&self, mover: Color, v: f32, draw: f32) -> f32 {
        let c = self.cfg.contempt;
        if c == 0.0 {
            return v;
        }
        let cost = if mover == self.nodes[0].to_move { c } else { -c };
        v - cost * draw
    }

    /// Mean value of visited node `i` for `mover` (its parent's mover),
    /// draws at their cost; a proven node's exact value.
    #[inline]
    pub(super) fn q_for(&self, i: usize, mover: Color) -> f32 {
        let n = &self.nodes[i];
        if let Some(p) = n.proof {
            let w = outcome_white_wdl(p.outcome);
            return self.at_draw_cost(mover, sign(mover) * (w[0] - w[2]), w[1]);
        }
        self.at_draw_cost(mover, sign(mover) * n.white_value(), n.wdl[1] / n.n as f32)
    }

    /// Raw evaluation of expanded node `i` for its own mover, draws at their cost.
    #[inline]
    pub(super) fn raw_for_mover(&self, i: usize) -> f32 {
        let n = &self.nodes[i];
        self.at_draw_cost(n.to_move, sign(n.to_move) * n.value, n.draw)
    }

    /// Moves the root to the child reached by `action` (kept with its subtree
    /// if `tree_reuse` and it was expanded); `new_state` is the state after
    /// `action` (used when the subtree is not kept).
    ///
    /// A subtree of more than [`REUSE_MAX_VISITS`] × the larger simulation
    /// budget visits is dropped, so a tree never holds more than that plus one
    /// search (a run of forced decisions would otherwise keep growing it).
    pub fn advance(&mut self, action: u16, new_state: &G) {
        // A decision within the turn keeps "no win in two turns" true.
        let absent = self.two_turns_absent && new_state.outcome().is_none() && new_state.to_move() == self.nodes[0].to_move;
        self.pending_node = NONE;
        self.pending_state = None;
        let child = if self.cfg.tree_reuse && self.nodes[0].kind == Kind::Expanded {
            self.children(0).find(|&i| self.nodes[i].action == action && self.nodes[i].kind == Kind::Expanded)
        } else {
            None
        };
        match child {
            Some(c)
                if self.nodes[c].n <= REUSE_MAX_VISITS * self.cfg.full_simulations.max(self.cfg.cheap_simulations)
                    && self.states[self.nodes[c].state as usize].as_ref().map(|s| s.hash()) == Some(new_state.hash()) =>
            {
                self.compact(c as u32)
            }
            _ => self.reset(new_state.clone()),
        }
        self.two_turns_absent = absent;
    }

    /// Keeps only the subtree of `r`, renumbered from 0 (breadth first, so
    /// each node's children stay contiguous).
    pub(super) fn compact(&mut self, r: u32) {
        let (nc, sc) = (self.nodes.capacity(), self.states.capacity());
        let old_nodes = std::mem::replace(&mut self.nodes, Vec::with_capacity(nc));
        let mut old_states = std::mem::replace(&mut self.states, Vec::with_capacity(sc));
        let mut orig: Vec<u32> = vec![r];
        let mut root = old_nodes[r as usize].clone();
        root.parent = NONE;
        self.nodes.push(root);
        let mut i = 0;
        while i < self.nodes.len() {
            let o = orig[i] as usize;
            let st = old_nodes[o].state;
            if st != NONE {
                self.nodes[i].state = self.states.len() as u32;
                self.states.push(old_states[st as usize].take());
            }
            if self.nodes[i].kind == Kind::Expanded {
                let first = self.nodes.len() as u32;
                let (f, k) = (old_nodes[o].first_child, old_nodes[o].num_children);
                for j in f..f + k {
                    let mut ch = old_nodes[j as usize].clone();
                    ch.parent = i as u32;
                    self.nodes.push(ch);
                    orig.push(j);
                }
                self.nodes[i].first_child = first;
            }
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_for_turns_a_movers_wdl_into_whites() {
        assert_eq!(flip_for(Color::Black, [0.7, 0.2, 0.1]), [0.1, 0.2, 0.7]);
        assert_eq!(flip_for(Color::White, [0.7, 0.2, 0.1]), [0.7, 0.2, 0.1]);
    }

    #[test]
    fn contempt_costs_the_roots_mover_its_draws_and_pays_the_opponent_for_them() {
        use crate::eval::UniformEvaluator;
        use pacozero_engine::paco::{GameState, Position};
        use rand::SeedableRng;
        let cfg = SearchConfig { contempt: 0.3, dirichlet_epsilon: 0.0, ..SearchConfig::default() };
        let mut s = Search::new(cfg, GameState::new(Position::startpos()), false);
        s.search_until(&UniformEvaluator, 40, None, false, &mut rand_chacha::ChaCha8Rng::seed_from_u64(0)).unwrap();
        let i = s.children(0).find(|&i| s.nodes[i].n > 0).unwrap();
        let n = &s.nodes[i];
        let (white, draw) = (n.white_value(), n.wdl[1] / n.n as f32);
        assert!(draw > 0.5, "the uniform evaluator's draws: {draw}");
        // White moves at the root.
        assert!((s.q_for(i, Color::White) - (white - 0.3 * draw)).abs() < 1e-6);
        assert!((s.q_for(i, Color::Black) - (-white + 0.3 * draw)).abs() < 1e-6);
        // The root's raw evaluation, for its mover.
        let root = &s.nodes[0];
        assert!((s.raw_for_mover(0) - (root.value - 0.3 * root.draw)).abs() < 1e-6);
    }
}
