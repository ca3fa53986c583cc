//! Selection: PUCT (with first-play urgency) and Gumbel (sequential halving
//! at the root, the improved policy inside the tree).

use super::noise::sample_gumbel;
use super::*;

impl<G: Game> Search<G> {
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
            let q = if ch.n > 0 { self.q_for(i, mover) } else { fpu };
            let score = q + c * ch.prior / (1.0 + ch.n as f32);
            if score > best_score {
                best_score = score;
                best = i as u32;
            }
        }
        best
    }

    /// Fills `out` with `log prior + sigma(completed, normalised Q)` of `p`'s children.
    pub(super) fn transformed_logits(&self, p: u32, out: &mut Vec<f32>) {
        let pn = &self.nodes[p as usize];
        let mover = pn.to_move;
        let mut sum_n = 0u32;
        let mut max_n = 0u32;
        let mut sum_prior_visited = 0f32;
        let mut sum_pq = 0f32;
        for i in self.children(p) {
            let ch = &self.nodes[i];
            if ch.n > 0 {
                sum_n += ch.n;
                max_n = max_n.max(ch.n);
                sum_prior_visited += ch.prior;
                sum_pq += ch.prior * self.q_for(i, mover);
            }
        }
        let raw = self.raw_for_mover(p as usize);
        let v_mix = if sum_n == 0 {
            raw
        } else {
            let wq = if sum_prior_visited > 1e-12 { sum_pq / sum_prior_visited } else { 0.0 };
            (raw + sum_n as f32 * wq) / (1.0 + sum_n as f32)
        };
        out.clear();
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for i in self.children(p) {
            let ch = &self.nodes[i];
            let q = if ch.n > 0 { self.q_for(i, mover) } else { v_mix };
            lo = lo.min(q);
            hi = hi.max(q);
            out.push(q);
        }
        let range = (hi - lo).max(1e-8);
        let scale = (self.cfg.gumbel_c_visit + max_n as f32) * self.cfg.gumbel_c_scale;
        for (o, i) in out.iter_mut().zip(self.children(p)) {
            let qn = (*o - lo) / range;
            *o = (self.nodes[i].prior.max(1e-30)).ln() + scale * qn;
        }
    }

    pub(super) fn pick_gumbel_interior(&mut self, p: u32) -> u32 {
        let mut t = std::mem::take(&mut self.scratch);
        self.transformed_logits(p, &mut t);
        softmax_in_place(&mut t);
        let range = self.children(p);
        let sum_n: u32 = range.clone().map(|i| self.nodes[i].n).sum();
        let denom = 1.0 + sum_n as f32;
        let mut best = range.start;
        let mut best_score = f32::NEG_INFINITY;
        for (k, i) in range.enumerate() {
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

    /// `g + log prior + sigma(completed Q)` of every root child.
    pub(super) fn root_scores(&mut self) -> Vec<f32> {
        let mut t = std::mem::take(&mut self.scratch2);
        self.transformed_logits(0, &mut t);
        let out = t.iter().zip(&self.gumbel).map(|(a, g)| a + g).collect();
        self.scratch2 = t;
        out
    }
}
