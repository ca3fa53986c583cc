//! What a finished search says about its root: the action to play, the
//! policy target, values, and the children's statistics.

use super::*;

/// What a finished search says about its root.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The root's legal actions (ascending policy indices).
    pub legal: Vec<u16>,
    /// Search policy target aligned with `legal` (PUCT: visit distribution;
    /// Gumbel: completed-Q improved policy), sums to 1.
    pub policy: Vec<f32>,
    /// Prior of each action (after root noise), aligned with `legal`.
    pub priors: Vec<f32>,
    /// Visits of each root child (including visits kept from tree reuse).
    pub visits: Vec<u32>,
    /// Mean value of each child from the mover's perspective (NaN if unvisited).
    pub q: Vec<f32>,
    /// The search's choice: PUCT most visited, Gumbel sequential-halving winner.
    pub action: u16,
    /// Root value in [-1, 1], mover's perspective (PUCT: mean over all
    /// visits; Gumbel: improved-policy-weighted mean of the visited children).
    pub root_q: f32,
    /// Root (win, draw, loss), mover's perspective (same averaging as `root_q`).
    pub root_wdl: [f32; 3],
    /// Simulations run by this search (not counting the root's own evaluation).
    pub simulations: u32,
    /// The root's result when the search proved it (`solver.rs`), for the
    /// mover: the search then plays the proof (the shortest win, a draw, the
    /// longest loss) and the policy target spreads over the moves that keep it.
    pub proof: Option<Proof>,
}

impl SearchResult {
    /// Index in `legal` of an action.
    pub fn index_of(&self, action: u16) -> Option<usize> {
        self.legal.iter().position(|&a| a == action)
    }

    /// Samples an action with probability proportional to `visits^(1/t)`
    /// (`t <= 0`: the search's choice). Gumbel results with `t > 0` sample from
    /// the improved policy raised to `1/t`. Neither samples an action that
    /// the policy target leaves out (one proven lost, or not keeping a proof).
    pub fn choose<R: Rng>(&self, algorithm: Algorithm, temperature: f32, rng: &mut R) -> u16 {
        if temperature <= 1e-6 || self.legal.len() == 1 {
            return self.action;
        }
        let weights: Vec<f64> = match algorithm {
            Algorithm::Puct => {
                self.visits.iter().zip(&self.policy).map(|(&n, &p)| if p > 0.0 { (n as f64).powf(1.0 / temperature as f64) } else { 0.0 }).collect()
            }
            Algorithm::Gumbel => self.policy.iter().map(|&p| (p as f64).powf(1.0 / temperature as f64)).collect(),
        };
        let total: f64 = weights.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            return self.action;
        }
        let mut x = rng.gen::<f64>() * total;
        for (i, w) in weights.iter().enumerate() {
            x -= w;
            if x < 0.0 {
                return self.legal[i];
            }
        }
        self.action
    }
}

impl<G: GameRules + Encode> Search<G> {
    /// The outcome of the finished search.
    pub fn result(&mut self) -> SearchResult {
        if let Some(f) = &self.forced_wins {
            return forced_win_result(&f.legal, &f.wins, f.turns);
        }
        let root = self.nodes[0].clone();
        let range = self.children(0);
        let s = sign(root.to_move);
        let legal: Vec<u16> = range.clone().map(|i| self.nodes[i].action).collect();
        let visits: Vec<u32> = range.clone().map(|i| self.nodes[i].n).collect();
        let priors: Vec<f32> = range.clone().map(|i| self.nodes[i].prior).collect();
        let q: Vec<f32> = range.clone().map(|i| if self.nodes[i].n > 0 { s * self.nodes[i].white_value() } else { f32::NAN }).collect();
        let wdl = if root.n > 0 { flip_for(root.to_move, root.wdl.map(|x| x / root.n as f32)) } else { [0.0, 1.0, 0.0] };
        let mut wdl = wdl;
        let (policy, action) = match self.cfg.algorithm {
            Algorithm::Puct => {
                let total: u32 = visits.iter().sum();
                let policy: Vec<f32> = if total > 0 { visits.iter().map(|&n| n as f32 / total as f32).collect() } else { priors.clone() };
                let mut best = 0;
                for i in 1..legal.len() {
                    let better = visits[i] > visits[best] || (visits[i] == visits[best] && nan_max(q[i]) > nan_max(q[best]));
                    if better {
                        best = i;
                    }
                }
                (policy, legal.get(best).copied().unwrap_or(0))
            }
            Algorithm::Gumbel => {
                let mut t = Vec::new();
                self.transformed_logits(0, &mut t);
                let mut policy = t.clone();
                softmax_in_place(&mut policy);
                let gumbel_ready = self.gumbel.len() == legal.len() && !self.considered.is_empty();
                let best = if gumbel_ready {
                    // Among the most visited of the considered actions, as
                    // mctx's `score_considered`: a budget that ends inside a
                    // halving phase leaves some unvisited, and an unvisited
                    // action is scored on its filled-in value only.
                    let most = self.considered.iter().map(|&a| visits[a as usize]).max().unwrap_or(0);
                    *self
                        .considered
                        .iter()
                        .filter(|&&a| visits[a as usize] == most)
                        .max_by(|&&a, &&b| (t[a as usize] + self.gumbel[a as usize]).total_cmp(&(t[b as usize] + self.gumbel[b as usize])).then(b.cmp(&a)))
                        .expect("considered")
                } else {
                    (0..t.len()).max_by(|&a, &b| t[a].total_cmp(&t[b])).unwrap_or(0) as u32
                };
                // Sequential halving spreads visits evenly over the considered
                // actions, so the visit average undervalues the root: report the
                // value of the improved policy over the visited children instead.
                let mut acc = [0f32; 3];
                let mut mass = 0f32;
                for (k, i) in range.clone().enumerate() {
                    let ch = &self.nodes[i];
                    if ch.n > 0 {
                        let w = flip_for(root.to_move, ch.wdl.map(|x| x / ch.n as f32));
                        for j in 0..3 {
                            acc[j] += policy[k] * w[j];
                        }
                        mass += policy[k];
                    }
                }
                if mass > 0.0 {
                    wdl = acc.map(|x| x / mass);
                }
                (policy, legal.get(best as usize).copied().unwrap_or(0))
            }
        };
        let mut r = SearchResult { legal, policy, priors, visits, q, action, root_q: wdl[0] - wdl[2], root_wdl: wdl, simulations: self.sims, proof: None };
        self.apply_proofs(&mut r);
        r
    }

    /// What the proofs among the root's children change in `r`: a proven
    /// root plays its proof, with the exact value and a target over the moves
    /// that keep it; an unproven one never plays, nor trains towards, a move
    /// proven lost while another exists.
    fn apply_proofs(&self, r: &mut SearchResult) {
        let mover = self.nodes[0].to_move;
        let first = self.nodes[0].first_child as usize;
        let child_proofs: Vec<Option<Proof>> = (0..r.legal.len()).map(|k| self.proof_for(first + k, mover)).collect();
        if child_proofs.iter().all(Option::is_none) {
            return;
        }
        // Turns from the root through child k (its decision may end the turn).
        let through = |k: usize| child_proofs[k].map(|p| self.turns_through(first + k, mover, p.turns));
        let keep: Vec<bool> = match self.proof_for(0, mover) {
            Some(root) => {
                r.proof = Some(root);
                r.root_wdl = match root.result {
                    Proven::Win => [1.0, 0.0, 0.0],
                    Proven::Draw => [0.0, 1.0, 0.0],
                    Proven::Loss => [0.0, 0.0, 1.0],
                };
                r.root_q = r.root_wdl[0] - r.root_wdl[2];
                (0..r.legal.len())
                    .map(|k| child_proofs[k].is_some_and(|p| p.result == root.result) && (root.result == Proven::Draw || through(k) == Some(root.turns)))
                    .collect()
            }
            None => child_proofs.iter().map(|p| !p.is_some_and(|p| p.is_loss())).collect(),
        };
        let mass: f32 = r.policy.iter().zip(&keep).filter(|(_, &k)| k).map(|(p, _)| p).sum();
        let kept = keep.iter().filter(|&&k| k).count() as f32;
        for (p, &k) in r.policy.iter_mut().zip(&keep) {
            *p = match (k, mass > 0.0) {
                (false, _) => 0.0,
                (true, true) => *p / mass,
                (true, false) => 1.0 / kept,
            };
        }
        let chosen = r.index_of(r.action).is_some_and(|k| keep[k]);
        if !chosen {
            // The kept move the search liked best: most visited, then the best target.
            let best = (0..r.legal.len())
                .filter(|&k| keep[k])
                .max_by(|&a, &b| r.visits[a].cmp(&r.visits[b]).then(r.policy[a].total_cmp(&r.policy[b])).then(b.cmp(&a)));
            if let Some(k) = best {
                r.action = r.legal[k];
            }
        }
    }
}

/// The actions of `state` (its legal `legal`) that start a *shortest*
/// winning continuation of the turn: the mover can win this turn, so there
/// is at least one.
///
/// Every decision of a detected win is answered by this list alone, so it
/// must make progress. Listing every action after which the win is still
/// there (the first attempt) let a chain that re-enters unions go round in
/// a loop with the win in hand: self-play games played it until their
/// length cap and scored the won position a draw (about 5% of the quick
/// loop's games, a quarter of its rows). A breadth-first search over the
/// turn's positions, never revisiting one along a first action's paths,
/// finds the fewest decisions to the union with the king; every action
/// that starts such a path is listed, so the next decision is one shorter.
pub(crate) fn winning_actions<G: GameRules>(state: &G, legal: &[u16]) -> Vec<u16> {
    use super::keys::{KeyMap, KeySet};
    let mover = state.to_move();
    // `can_win_this_turn` is a threat search: asked once per position.
    let mut winnable: KeyMap<u64, bool> = KeyMap::default();
    let mut seen: KeySet<(u16, u64)> = KeySet::default();
    let mut wins: Vec<u16> = Vec::new();
    // One decision `a` from `g` on a path that began with `first`: a win is
    // listed, a position of the same turn that still wins goes on.
    let mut step = |first: u16, g: &G, a: u16, wins: &mut Vec<u16>, next_level: &mut Vec<(u16, G)>| {
        let mut next = g.clone();
        next.apply(a);
        match next.outcome() {
            Some(o) if o == Outcome::Win(mover) => wins.push(first),
            Some(_) => {}
            None if next.to_move() == mover => {
                let h = next.hash();
                if seen.insert((first, h)) && *winnable.entry(h).or_insert_with(|| next.can_win_this_turn()) {
                    next_level.push((first, next));
                }
            }
            None => {}
        }
    };
    let mut level = Vec::new();
    for &a in legal {
        step(a, state, a, &mut wins, &mut level);
    }
    let mut actions = Vec::new();
    while wins.is_empty() && !level.is_empty() {
        let mut next_level = Vec::new();
        for (first, g) in &level {
            g.playable_actions(&mut actions);
            for &a in &actions {
                step(*first, g, a, &mut wins, &mut next_level);
            }
        }
        level = next_level;
    }
    wins.sort_unstable();
    wins.dedup();
    debug_assert!(!wins.is_empty(), "a detected win has a winning action");
    wins
}

/// The result of a search stopped at a root it found won in `turns` turn
/// ends: the policy target spreads over the winning actions, the first is
/// played.
pub(super) fn forced_win_result(legal: &[u16], wins: &[u16], turns: u32) -> SearchResult {
    let share = 1.0 / wins.len().max(1) as f32;
    let policy: Vec<f32> = legal.iter().map(|a| if wins.contains(a) { share } else { 0.0 }).collect();
    SearchResult {
        legal: legal.to_vec(),
        priors: policy.clone(),
        policy,
        visits: vec![0; legal.len()],
        q: legal.iter().map(|a| if wins.contains(a) { 1.0 } else { f32::NAN }).collect(),
        action: wins.first().copied().unwrap_or(legal[0]),
        root_q: 1.0,
        root_wdl: [1.0, 0.0, 0.0],
        simulations: 0,
        proof: Some(Proof { result: Proven::Win, turns }),
    }
}

/// Statistics of one child in a search tree, for analysis tools and opening
/// books (see [`Search::children_at`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ChildStats {
    pub action: u16,
    /// Prior (after root noise at the root).
    pub prior: f32,
    pub visits: u32,
    /// Mean (win, draw, loss) for the player choosing `action` (zeros if unvisited).
    pub wdl: [f32; 3],
    /// The child was evaluated and has children of its own.
    pub expanded: bool,
    /// The child's proven result for the player choosing `action`, with the
    /// turns counted from the parent (its decision included).
    pub proof: Option<Proof>,
}

impl<G: GameRules + Encode> Search<G> {
    /// The children of the node reached from the root by the actions `path`;
    /// `None` if that node is not in the tree or has not been expanded.
    /// Read-only: the tree is left as it is.
    pub fn children_at(&self, path: &[u16]) -> Option<Vec<ChildStats>> {
        let mut node = 0u32;
        for &a in path {
            if self.nodes[node as usize].kind != Kind::Expanded {
                return None;
            }
            node = self.children(node).find(|&i| self.nodes[i].action == a)? as u32;
        }
        let p = &self.nodes[node as usize];
        if p.kind != Kind::Expanded {
            return None;
        }
        let mover = p.to_move;
        Some(
            self.children(node)
                .map(|i| {
                    let c = &self.nodes[i];
                    let wdl = if c.n > 0 { flip_for(mover, c.wdl.map(|x| x / c.n as f32)) } else { [0.0; 3] };
                    let proof = self.proof_for(i, mover).map(|p| Proof { turns: self.turns_through(i, mover, p.turns), ..p });
                    ChildStats { action: c.action, prior: c.prior, visits: c.n, wdl, expanded: c.kind == Kind::Expanded, proof }
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests;
