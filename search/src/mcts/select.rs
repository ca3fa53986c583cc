//! Selection: PUCT (with first-play urgency) and Gumbel (sequential halving
//! at the root, the improved policy inside the tree).

use super::noise::sample_gumbel;
use super::*;

/// What [`Search::completed_q`] finds besides the completed Q values.
struct Completed {
    /// The children's visits in all.
    sum_n: u32,
    /// The smallest completed Q, and the spread to the largest (at least 1e-8).
    lo: f32,
    range: f32,
    /// sigma's factor `(c_visit + most visits of a child) * c_scale`.
    scale: f32,
}

impl<G: GameRules + Encode> Search<G> {
    /// Interior selection.
    pub(super) fn pick(&mut self, p: u32) -> u32 {
        match self.cfg.algorithm {
            Algorithm::Puct => self.pick_puct(p, self.cfg.fpu_reduction),
            Algorithm::Gumbel => self.pick_gumbel_interior(p),
        }
    }

    pub(super) fn pick_root(&mut self) -> u32 {
        match self.cfg.algorithm {
            Algorithm::Puct => self.pick_puct(0, self.cfg.fpu_reduction_root),
            Algorithm::Gumbel => {
                if self.plan_pos >= self.plan.len() {
                    self.next_phase();
                }
                let off = self.plan[self.plan_pos];
                self.plan_pos += 1;
                self.nodes[0].first_child + off
            }
        }
    }

    pub(super) fn pick_puct(&self, p: u32, fpu_reduction: f32) -> u32 {
        let pn = &self.nodes[p as usize];
        let mover = pn.to_move;
        let parent_q = self.q_for(p as usize, mover);
        let fpu = parent_q - fpu_reduction;
        let sqrt_n = (pn.n as f32).sqrt();
        let c = self.cfg.c_puct * sqrt_n.max(1.0);
        let mut best = pn.first_child;
        let mut best_score = f32::NEG_INFINITY;
        for i in self.children(p) {
            let ch = &self.nodes[i];
            // (An unproven node has a child that is not a proven loss.)
            if self.proven_loss_for(i, mover) {
                continue;
            }
            let q = if ch.n > 0 { self.q_for(i, mover) } else { fpu };
            let score = q + c * ch.prior / (1.0 + ch.n as f32);
            if score > best_score {
                best_score = score;
                best = i as u32;
            }
        }
        best
    }

    /// Fills `out` with the completed Q of `p`'s children for `p`'s mover
    /// (a visited child's own Q, read once; an unvisited one's the mix of
    /// `p`'s raw value and its visited children's prior-weighted Q), and
    /// returns what Gumbel's transform of them needs.
    fn completed_q(&self, p: u32, out: &mut Vec<f32>) -> Completed {
        let mover = self.nodes[p as usize].to_move;
        let (mut sum_n, mut max_n) = (0u32, 0u32);
        let (mut sum_prior_visited, mut sum_pq) = (0f32, 0f32);
        out.clear();
        for i in self.children(p) {
            let ch = &self.nodes[i];
            if ch.n > 0 {
                let q = self.q_for(i, mover);
                sum_n += ch.n;
                max_n = max_n.max(ch.n);
                sum_prior_visited += ch.prior;
                sum_pq += ch.prior * q;
                out.push(q);
            } else {
                out.push(0.0);
            }
        }
        let raw = self.raw_for_mover(p as usize);
        let v_mix = if sum_n == 0 {
            raw
        } else {
            let wq = if sum_prior_visited > 1e-12 { sum_pq / sum_prior_visited } else { 0.0 };
            (raw + sum_n as f32 * wq) / (1.0 + sum_n as f32)
        };
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for (o, i) in out.iter_mut().zip(self.children(p)) {
            if self.nodes[i].n == 0 {
                *o = v_mix;
            }
            lo = lo.min(*o);
            hi = hi.max(*o);
        }
        let scale = (self.cfg.gumbel_c_visit + max_n as f32) * self.cfg.gumbel_c_scale;
        Completed { sum_n, lo, range: (hi - lo).max(1e-8), scale }
    }

    /// Fills `out` with `log prior + sigma(completed, normalised Q)` of `p`'s children.
    pub(super) fn transformed_logits(&self, p: u32, out: &mut Vec<f32>) {
        let c = self.completed_q(p, out);
        for (o, i) in out.iter_mut().zip(self.children(p)) {
            let qn = (*o - c.lo) / c.range;
            *o = (self.nodes[i].prior.max(1e-30)).ln() + c.scale * qn;
        }
    }

    /// Fills `out` with the improved policy of `p`'s children,
    /// `softmax(log prior + sigma(completed, normalised Q))`, computed as
    /// `prior * exp(sigma - scale)` normalised (`scale` is the largest
    /// sigma can be): the same distribution as
    /// [`Search::transformed_logits`] then a softmax, without a logarithm a
    /// child. Returns the children's visits in all.
    pub(super) fn improved_policy(&self, p: u32, out: &mut Vec<f32>) -> u32 {
        let c = self.completed_q(p, out);
        let mut sum = 0.0;
        for (o, i) in out.iter_mut().zip(self.children(p)) {
            *o = self.nodes[i].prior.max(1e-30) * (c.scale * ((*o - c.lo) / c.range - 1.0)).exp();
            sum += *o;
        }
        out.iter_mut().for_each(|o| *o /= sum);
        c.sum_n
    }

    pub(super) fn pick_gumbel_interior(&mut self, p: u32) -> u32 {
        let mut t = std::mem::take(&mut self.scratch);
        let sum_n = self.improved_policy(p, &mut t);
        let denom = 1.0 + sum_n as f32;
        let mover = self.nodes[p as usize].to_move;
        let range = self.children(p);
        let mut best = range.start;
        let mut best_score = f32::NEG_INFINITY;
        for (k, i) in range.enumerate() {
            if self.proven_loss_for(i, mover) {
                continue;
            }
            let score = t[k] - self.nodes[i].n as f32 / denom;
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        self.scratch = t;
        best as u32
    }

    /// Root noise and the Gumbel plan, once the root is expanded.
    pub(super) fn setup_root<R: Rng>(&mut self, rng: &mut R) {
        let range = self.children(0);
        let k = range.len();
        match self.cfg.algorithm {
            Algorithm::Puct => {
                if self.noise && self.cfg.dirichlet_epsilon > 0.0 && k > 1 {
                    let noise = dirichlet(rng, self.cfg.dirichlet_alpha, k);
                    let eps = self.cfg.dirichlet_epsilon;
                    for (i, x) in range.zip(noise) {
                        let n = &mut self.nodes[i];
                        n.prior = (1.0 - eps) * n.prior + eps * x;
                    }
                }
            }
            Algorithm::Gumbel => {
                self.gumbel.clear();
                let use_noise = self.noise && self.cfg.gumbel_noise;
                for _ in 0..k {
                    self.gumbel.push(if use_noise { sample_gumbel(rng) } else { 0.0 });
                }
                let m = (self.cfg.gumbel_max_considered as usize).min(k).max(1);
                let mut order: Vec<u32> = (0..k as u32).collect();
                let first = self.nodes[0].first_child as usize;
                let score = |o: u32| self.gumbel[o as usize] + self.nodes[first + o as usize].prior.max(1e-30).ln();
                order.sort_by(|&a, &b| score(b).total_cmp(&score(a)).then(a.cmp(&b)));
                order.truncate(m);
                self.considered = order;
                self.phases = (m as f32).log2().ceil().max(1.0) as u32;
                self.plan.clear();
                self.plan_pos = 0;
                self.make_plan();
            }
        }
    }

    /// Visits of the current sequential-halving phase.
    pub(super) fn make_plan(&mut self) {
        let k = self.considered.len() as u32;
        let remaining = self.budget.saturating_sub(self.sims).max(1);
        let per = if k <= 2 { remaining.div_ceil(k) } else { (self.budget / (self.phases * k)).max(1) };
        self.plan.clear();
        self.plan_pos = 0;
        for _ in 0..per {
            self.plan.extend_from_slice(&self.considered);
        }
    }

    /// Halves the considered actions (keeping the best by `g + logit + sigma(q)`) and plans the next phase.
    pub(super) fn next_phase(&mut self) {
        let k = self.considered.len();
        if k > 1 {
            let scores = self.root_scores();
            let mut c = std::mem::take(&mut self.considered);
            c.sort_by(|&a, &b| scores[b as usize].total_cmp(&scores[a as usize]).then(a.cmp(&b)));
            c.truncate(k.div_ceil(2));
            self.considered = c;
        }
        self.make_plan();
    }

    /// `g + log prior + sigma(completed Q)` of every root child; minus
    /// infinity for a child proven lost for the root's mover, so that
    /// halving drops those first.
    pub(super) fn root_scores(&mut self) -> Vec<f32> {
        let mut t = std::mem::take(&mut self.scratch2);
        self.transformed_logits(0, &mut t);
        let mover = self.nodes[0].to_move;
        let first = self.nodes[0].first_child as usize;
        let out =
            t.iter().zip(&self.gumbel).enumerate().map(|(k, (a, g))| if self.proven_loss_for(first + k, mover) { f32::NEG_INFINITY } else { a + g }).collect();
        self.scratch2 = t;
        out
    }
}

#[cfg(test)]
mod tests {
    pub(super) use super::*;
    pub(super) use crate::eval::{EvalOutput, EvalRequest};
    pub(super) use crate::mcts::ChildStats;
    use pacozero_engine::paco::{GameState, Position};
    use rand::SeedableRng;

    /// Priors and a value that differ from action to action and position
    /// to position.
    pub(super) struct Varied;

    impl Varied {
        /// The value of `g` for its mover.
        pub(super) fn value(g: &GameState) -> f32 {
            let w = (g.hash() % 61) as f32 / 100.0;
            w - (0.8 - w)
        }
    }

    impl Evaluator<GameState> for Varied {
        fn name(&self) -> String {
            "varied".into()
        }
        fn needs_encoding(&self) -> bool {
            false
        }
        fn evaluate(&self, batch: &[EvalRequest<'_, GameState>], out: &mut EvalOutput) -> Result<()> {
            out.reset(batch);
            for (i, r) in batch.iter().enumerate() {
                let p = out.priors_of_mut(i);
                for (k, x) in p.iter_mut().enumerate() {
                    *x = 1.0 + (k % 5) as f32;
                }
                let s: f32 = p.iter().sum();
                p.iter_mut().for_each(|x| *x /= s);
                let w = (r.state.hash() % 61) as f32 / 100.0;
                out.wdl[i] = [w, 0.2, 0.8 - w];
            }
            Ok(())
        }
    }

    pub(super) fn config(algorithm: Algorithm) -> SearchConfig {
        SearchConfig {
            algorithm,
            dirichlet_epsilon: 0.0,
            gumbel_noise: false,
            win_detection: false,
            fpu_reduction_root: 0.3,
            c_puct: 1.7,
            ..SearchConfig::default()
        }
    }

    /// The statistics of every expanded node, by the path to it.
    pub(super) fn snapshot(s: &Search<GameState>) -> std::collections::HashMap<Vec<u16>, Vec<ChildStats>> {
        let mut out = std::collections::HashMap::new();
        let mut stack = vec![Vec::new()];
        while let Some(path) = stack.pop() {
            if let Some(children) = s.children_at(&path) {
                for c in children.iter().filter(|c| c.expanded) {
                    let mut p = path.clone();
                    p.push(c.action);
                    stack.push(p);
                }
                out.insert(path, children);
            }
        }
        out
    }

    /// PUCT's choice by its definition: `q + c_puct * sqrt(N) * P / (1 + n)`,
    /// values for the node's mover less its draw cost (`contempt` for the
    /// root's mover, `-contempt` for the other), an unvisited child's `q`
    /// the node's own less the reduction, the first of equal scores.
    fn puct_choice(children: &[ChildStats], n: u32, q_node: f32, cost: f32, fpu_reduction: f32, cfg: &SearchConfig) -> usize {
        let c = cfg.c_puct * (n as f32).sqrt().max(1.0);
        let mut best = (0, f32::NEG_INFINITY);
        for (k, ch) in children.iter().enumerate() {
            let q = if ch.visits > 0 { ch.wdl[0] - ch.wdl[2] - cost * ch.wdl[1] } else { q_node - fpu_reduction };
            let score = q + c * ch.prior / (1.0 + ch.visits as f32);
            if score > best.1 {
                best = (k, score);
            }
        }
        best.0
    }

    #[test]
    fn puct_picks_by_its_formula_at_every_node_of_every_simulation() {
        for contempt in [0.0, 0.3] {
            let cfg = SearchConfig { contempt, ..config(Algorithm::Puct) };
            let root = GameState::new(Position::startpos());
            let me = root.to_move();
            let mut s = Search::new(cfg.clone(), root.clone(), false);
            s.begin(120, false);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
            let mut out = EvalOutput::default();
            let (mut checked, mut deep) = (0, 0);
            while s.run(&mut rng) {
                let before = snapshot(&s);
                let (root_n, root_wdl) = (s.root_visits(), s.result().root_wdl);
                evaluate_pending(&mut [&mut s], &Varied, &mut out).unwrap();
                // Down the path of this simulation: where a visit was added.
                let (mut path, mut state) = (Vec::new(), root.clone());
                let (mut n, mut wdl) = (root_n, root_wdl);
                while let Some(children) = before.get(&path) {
                    let mover = state.to_move();
                    let cost = if mover == me { contempt } else { -contempt };
                    let q_node = wdl[0] - wdl[2] - cost * wdl[1];
                    let reduction = if path.is_empty() { cfg.fpu_reduction_root } else { cfg.fpu_reduction };
                    let now = s.children_at(&path).unwrap();
                    let chosen = (0..now.len()).find(|&k| now[k].visits > children[k].visits).expect("a child visited");
                    let want = puct_choice(children, n, q_node, cost, reduction, &cfg);
                    assert_eq!(chosen, want, "contempt {contempt}, simulation {checked}, path {path:?}: {children:?}");
                    let c = &children[chosen];
                    state.apply(c.action);
                    path.push(c.action);
                    n = c.visits;
                    // The child's values for its own mover.
                    wdl = if state.to_move() == mover { c.wdl } else { [c.wdl[2], c.wdl[1], c.wdl[0]] };
                    deep += usize::from(path.len() > 2);
                }
                checked += 1;
            }
            assert!(checked > 100 && deep > 20, "{checked} simulations, {deep} choices below the first turn");
        }
    }

    /// Gumbel's improved policy by its definition (Danihelka et al. 2022):
    /// completed Q (a visited child's mean value, else the mixed value of
    /// the root's network value and the prior-weighted visited values),
    /// min-max normalised, scaled by `(c_visit + max n) * c_scale`, added to
    /// the log priors, softmaxed.
    pub(super) fn improved_policy(children: &[ChildStats], raw: f32, cfg: &SearchConfig) -> Vec<f32> {
        let visited: Vec<&ChildStats> = children.iter().filter(|c| c.visits > 0).collect();
        let sum_n: u32 = visited.iter().map(|c| c.visits).sum();
        let max_n = visited.iter().map(|c| c.visits).max().unwrap_or(0);
        let p_visited: f32 = visited.iter().map(|c| c.prior).sum();
        let pq: f32 = visited.iter().map(|c| c.prior * (c.wdl[0] - c.wdl[2])).sum();
        let v_mix = if sum_n == 0 { raw } else { (raw + sum_n as f32 * pq / p_visited) / (1.0 + sum_n as f32) };
        let q: Vec<f32> = children.iter().map(|c| if c.visits > 0 { c.wdl[0] - c.wdl[2] } else { v_mix }).collect();
        let (lo, hi) = q.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        let scale = (cfg.gumbel_c_visit + max_n as f32) * cfg.gumbel_c_scale;
        let logits: Vec<f32> = children.iter().zip(&q).map(|(c, &x)| c.prior.ln() + scale * (x - lo) / (hi - lo).max(1e-8)).collect();
        let m = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f32> = logits.iter().map(|l| (l - m).exp()).collect();
        let z: f32 = e.iter().sum();
        e.iter().map(|x| x / z).collect()
    }

    #[test]
    fn the_gumbel_policy_target_is_the_improved_policy() {
        let cfg = config(Algorithm::Gumbel);
        for sims in [1, 16, 64] {
            let root = GameState::new(Position::startpos());
            let mut s = Search::new(cfg.clone(), root.clone(), false);
            let r = s.search_until(&Varied, sims, None, false, &mut rand_chacha::ChaCha8Rng::seed_from_u64(0)).unwrap();
            let w = (root.hash() % 61) as f32 / 100.0;
            let raw = w - (0.8 - w);
            let want = improved_policy(&s.children_at(&[]).unwrap(), raw, &cfg);
            for (k, (a, b)) in r.policy.iter().zip(&want).enumerate() {
                assert!((a - b).abs() < 1e-5, "{sims} simulations, child {k}: {a} vs {b}");
            }
        }
    }
}

#[cfg(test)]
mod gumbel_tests {
    use super::tests::*;
    use super::*;
    use pacozero_engine::paco::{GameState, Position};
    use rand::SeedableRng;

    /// Sequential halving at the root: the `m` best by log prior (no noise;
    /// the first of equals) get `budget / (phases * m)` visits each, then
    /// the better half the rest of the budget (two left: shared evenly).
    #[test]
    fn sequential_halving_considers_the_best_priors_and_halves_them() {
        let cfg = SearchConfig { gumbel_max_considered: 4, ..config(Algorithm::Gumbel) };
        let root = GameState::new(Position::startpos());
        let mut s = Search::new(cfg, root, false);
        s.search_until(&Varied, 16, None, false, &mut rand_chacha::ChaCha8Rng::seed_from_u64(0)).unwrap();
        let children = s.children_at(&[]).unwrap();
        let mut by_prior: Vec<usize> = (0..children.len()).collect();
        by_prior.sort_by(|&a, &b| children[b].prior.total_cmp(&children[a].prior).then(a.cmp(&b)));
        let considered = &by_prior[..4];
        let mut visits: Vec<u32> = considered.iter().map(|&k| children[k].visits).collect();
        visits.sort_unstable();
        assert_eq!(visits, [2, 2, 6, 6], "{children:?}");
        assert!((0..children.len()).filter(|k| !considered.contains(k)).all(|k| children[k].visits == 0));
        // Eight of 48: three phases of 48 / (3 * 8) = 2, then 48 / (3 * 4) = 4
        // visits each, then the two left share the 16 remaining.
        let cfg = SearchConfig { gumbel_max_considered: 8, ..config(Algorithm::Gumbel) };
        let mut s = Search::new(cfg, GameState::new(Position::startpos()), false);
        s.search_until(&Varied, 48, None, false, &mut rand_chacha::ChaCha8Rng::seed_from_u64(0)).unwrap();
        let mut visits: Vec<u32> = s.children_at(&[]).unwrap().iter().map(|c| c.visits).filter(|&n| n > 0).collect();
        visits.sort_unstable();
        assert_eq!(visits, [2, 2, 2, 2, 6, 6, 14, 14]);
    }

    /// The halving's scores: the transformed logits plus the root's Gumbel noise.
    #[test]
    fn halving_scores_add_the_gumbel_noise_to_the_logits() {
        let cfg = SearchConfig { gumbel_noise: true, ..config(Algorithm::Gumbel) };
        let mut s = Search::new(cfg, GameState::new(Position::startpos()), false);
        s.search_until(&Varied, 24, None, true, &mut rand_chacha::ChaCha8Rng::seed_from_u64(1)).unwrap();
        assert!(s.gumbel.iter().any(|&g| g != 0.0));
        let mut t = Vec::new();
        s.transformed_logits(0, &mut t);
        let scores = s.root_scores();
        for (k, score) in scores.iter().enumerate() {
            assert!((score - (t[k] + s.gumbel[k])).abs() < 1e-6, "{k}");
        }
    }

    /// The improved policy computed without logarithms is the softmax of
    /// the transformed logits, at the root and at every expanded node of a
    /// searched tree, with its visits in all.
    #[test]
    fn the_improved_policy_is_the_softmax_of_the_transformed_logits() {
        let mut s = Search::new(config(Algorithm::Gumbel), GameState::new(Position::startpos()), false);
        s.search_until(&Varied, 300, None, true, &mut rand_chacha::ChaCha8Rng::seed_from_u64(3)).unwrap();
        let (mut policy, mut logits, mut checked) = (Vec::new(), Vec::new(), 0);
        for p in 0..s.nodes.len() as u32 {
            if s.children(p).is_empty() {
                continue;
            }
            let visits = s.improved_policy(p, &mut policy);
            s.transformed_logits(p, &mut logits);
            softmax_in_place(&mut logits);
            assert_eq!(visits, s.children(p).map(|i| s.nodes[i].n).sum::<u32>());
            for (k, (a, b)) in policy.iter().zip(&logits).enumerate() {
                assert!((a - b).abs() <= 1e-6 + 1e-5 * b, "node {p} child {k}: {a} vs {b}");
            }
            checked += 1;
        }
        assert!(checked > 20, "{checked} expanded nodes");
    }

    #[test]
    fn gumbel_picks_inside_the_tree_by_the_improved_policy_less_the_visit_share() {
        let cfg = config(Algorithm::Gumbel);
        let root = GameState::new(Position::startpos());
        let mut s = Search::new(cfg.clone(), root.clone(), false);
        s.begin(200, false);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        let mut out = EvalOutput::default();
        let mut checked = 0;
        while s.run(&mut rng) {
            let before = snapshot(&s);
            evaluate_pending(&mut [&mut s], &Varied, &mut out).unwrap();
            let (mut path, mut state) = (Vec::new(), root.clone());
            while let Some(children) = before.get(&path) {
                let now = s.children_at(&path).unwrap();
                let chosen = (0..now.len()).find(|&k| now[k].visits > children[k].visits).expect("a child visited");
                if !path.is_empty() {
                    let policy = improved_policy(children, Varied::value(&state), &cfg);
                    let denom = 1.0 + children.iter().map(|c| c.visits).sum::<u32>() as f32;
                    let mut best = (0, f32::NEG_INFINITY);
                    for (k, c) in children.iter().enumerate() {
                        let score = policy[k] - c.visits as f32 / denom;
                        if score > best.1 {
                            best = (k, score);
                        }
                    }
                    assert_eq!(chosen, best.0, "path {path:?}: {children:?}");
                    checked += 1;
                }
                state.apply(children[chosen].action);
                path.push(children[chosen].action);
            }
        }
        assert!(checked > 100, "{checked} choices inside the tree");
    }
}
