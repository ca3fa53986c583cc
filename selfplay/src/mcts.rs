//! Monte-Carlo tree search over atomic decisions, as a resumable state
//! machine so that many games can share one evaluator batch.
//!
//! * Values are stored per node as (White wins, draw, Black wins) sums, so a
//!   node's statistics never depend on whose turn it is; the sign is applied
//!   at selection time from the *parent's* mover. A turn of several decisions
//!   (lift, place, chain places, promotion) therefore needs no special case:
//!   the perspective changes exactly when `to_move()` changes.
//! * Each node owns a clone of its game state (with its repetition history),
//!   so search sees repetition draws; the tree is a tree (no transpositions).
//! * Protocol: [`Search::begin`], then [`Search::run`] until it returns
//!   `false`; each time it returns `true`, evaluate [`Search::request`] and
//!   pass the result to [`Search::supply`]. Then [`Search::result`], and
//!   [`Search::advance`] with the played action (tree reuse).

use anyhow::Result;
use pacozero_engine::{Color, Game, Outcome};
use rand::Rng;

use crate::config::{Algorithm, SearchConfig};
use crate::eval::{EvalOutput, EvalRequest, Evaluator};

const NONE: u32 = u32::MAX;

/// Tree reuse keeps a subtree of at most this many times the larger
/// simulation budget (visits), which bounds the memory of a game's tree.
pub const REUSE_MAX_VISITS: u32 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Not yet reached (no state; a root has its state but no children).
    Fresh,
    Expanded,
    Terminal,
}

#[derive(Clone, Debug)]
struct Node {
    parent: u32,
    first_child: u32,
    num_children: u32,
    state: u32,
    action: u16,
    kind: Kind,
    to_move: Color,
    prior: f32,
    n: u32,
    /// Sums of (White wins, draw, Black wins).
    wdl: [f32; 3],
    /// Raw evaluation (White's perspective, win - loss) of an expanded node,
    /// or the exact value of a terminal one.
    value: f32,
    /// Exact (White, draw, Black) of a terminal node.
    twdl: [f32; 3],
}

impl Node {
    fn fresh(parent: u32, action: u16, prior: f32) -> Node {
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
        }
    }
    #[inline]
    fn white_value(&self) -> f32 {
        (self.wdl[0] - self.wdl[2]) / self.n as f32
    }
}

#[inline]
fn sign(c: Color) -> f32 {
    if c == Color::White {
        1.0
    } else {
        -1.0
    }
}

/// Converts between a mover's (win, draw, loss) and (White, draw, Black).
#[inline]
fn flip_for(c: Color, wdl: [f32; 3]) -> [f32; 3] {
    if c == Color::White {
        wdl
    } else {
        [wdl[2], wdl[1], wdl[0]]
    }
}

fn outcome_white_wdl(o: Outcome) -> [f32; 3] {
    match o {
        Outcome::Win(Color::White) => [1.0, 0.0, 0.0],
        Outcome::Win(Color::Black) => [0.0, 0.0, 1.0],
        Outcome::Draw => [0.0, 1.0, 0.0],
    }
}

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
}

impl SearchResult {
    /// Index in `legal` of an action.
    pub fn index_of(&self, action: u16) -> Option<usize> {
        self.legal.iter().position(|&a| a == action)
    }

    /// Samples an action with probability proportional to `visits^(1/t)`
    /// (`t <= 0`: the search's choice). Gumbel results with `t > 0` sample from
    /// the improved policy raised to `1/t`.
    pub fn choose<R: Rng>(&self, algorithm: Algorithm, temperature: f32, rng: &mut R) -> u16 {
        if temperature <= 1e-6 || self.legal.len() == 1 {
            return self.action;
        }
        let weights: Vec<f64> = match algorithm {
            Algorithm::Puct => self.visits.iter().map(|&n| (n as f64).powf(1.0 / temperature as f64)).collect(),
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

/// A search tree with its in-progress decision search.
pub struct Search<G: Game> {
    cfg: SearchConfig,
    nodes: Vec<Node>,
    states: Vec<Option<G>>,
    needs_encoding: bool,
    // Per decision.
    budget: u32,
    sims: u32,
    noise: bool,
    setup_pending: bool,
    path: Vec<u32>,
    // Pending leaf.
    pending_node: u32,
    pending_state: Option<G>,
    pending_legal: Vec<u16>,
    pending_planes: Vec<u64>,
    pending_scalars: Vec<f32>,
    // Gumbel root state (indexed by child offset).
    gumbel: Vec<f32>,
    considered: Vec<u32>,
    plan: Vec<u32>,
    plan_pos: usize,
    phases: u32,
    scratch: Vec<f32>,
    scratch2: Vec<f32>,
    /// The root's legal and winning actions when the root is a detected win
    /// (the search then stops at once).
    forced_wins: Option<(Vec<u16>, Vec<u16>)>,
    /// End of a timed decision search, checked by [`Search::run`] before each
    /// simulation (also between those that need no evaluation: a tree of
    /// decided positions can run through many of them without returning).
    deadline: Option<std::time::Instant>,
    /// Nodes touched by selection (root to leaf, inclusive), all searches.
    pub node_visits: u64,
    /// Simulations, all searches.
    pub total_simulations: u64,
}

impl<G: Game> Search<G> {
    /// A tree rooted at `root`. `needs_encoding`: requests carry planes/scalars.
    pub fn new(cfg: SearchConfig, root: G, needs_encoding: bool) -> Self {
        let mut s = Search {
            cfg,
            nodes: Vec::new(),
            states: Vec::new(),
            needs_encoding,
            budget: 0,
            sims: 0,
            noise: false,
            setup_pending: false,
            path: Vec::new(),
            pending_node: NONE,
            pending_state: None,
            pending_legal: Vec::new(),
            pending_planes: vec![0; G::NUM_BIT_PLANES * (G::BOARD_HEIGHT * G::BOARD_WIDTH).div_ceil(64)],
            pending_scalars: vec![0.0; G::NUM_SCALARS],
            gumbel: Vec::new(),
            considered: Vec::new(),
            plan: Vec::new(),
            plan_pos: 0,
            phases: 1,
            scratch: Vec::new(),
            scratch2: Vec::new(),
            forced_wins: None,
            deadline: None,
            node_visits: 0,
            total_simulations: 0,
        };
        s.reset(root);
        s
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.cfg
    }

    /// Nodes in the tree.
    pub fn tree_size(&self) -> usize {
        self.nodes.len()
    }

    /// Visits of the root (including its own evaluation).
    pub fn root_visits(&self) -> u32 {
        self.nodes[0].n
    }

    /// The root's state.
    pub fn root_state(&self) -> &G {
        self.states[0].as_ref().expect("root state")
    }

    fn reset(&mut self, root: G) {
        self.nodes.clear();
        self.states.clear();
        let mut n = Node::fresh(NONE, 0, 1.0);
        n.to_move = root.to_move();
        n.state = 0;
        self.nodes.push(n);
        self.states.push(Some(root));
        self.pending_node = NONE;
        self.pending_state = None;
    }

    /// Starts a decision search of `simulations` simulations; `noise` adds root
    /// noise (PUCT: Dirichlet; Gumbel: Gumbel noise if `gumbel_noise`).
    pub fn begin(&mut self, simulations: u32, noise: bool) {
        self.budget = simulations.max(1);
        self.sims = 0;
        self.noise = noise;
        self.setup_pending = true;
        self.pending_node = NONE;
        self.forced_wins = None;
    }

    /// Advances the search. `true`: a leaf awaits evaluation ([`Search::request`],
    /// then [`Search::supply`]); `false`: the search is done.
    pub fn run<R: Rng>(&mut self, rng: &mut R) -> bool {
        assert!(self.pending_node == NONE, "supply the pending evaluation first");
        if self.forced_wins.is_some() {
            return false;
        }
        let root = &self.nodes[0];
        if root.kind != Kind::Expanded {
            let st = self.states[0].as_ref().expect("root state");
            if st.outcome().is_some() {
                return false;
            }
            st.legal_actions(&mut self.pending_legal);
            if self.pending_legal.is_empty() {
                return false;
            }
            if self.cfg.win_detection && st.can_win_this_turn() {
                self.forced_wins = Some((self.pending_legal.clone(), winning_actions(st, &self.pending_legal)));
                return false;
            }
            if self.needs_encoding {
                st.encode(&mut self.pending_planes, &mut self.pending_scalars);
            }
            self.path.clear();
            self.path.push(0);
            self.pending_node = 0;
            return true;
        }
        if self.setup_pending {
            self.setup_root(rng);
            self.setup_pending = false;
        }
        while self.sims < self.budget {
            if self.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return false;
            }
            if self.simulate() {
                return true;
            }
        }
        false
    }

    /// The leaf awaiting evaluation, if any.
    pub fn request(&self) -> Option<EvalRequest<'_, G>> {
        if self.pending_node == NONE {
            return None;
        }
        let state = match &self.pending_state {
            Some(s) => s,
            None => self.states[0].as_ref().expect("root state"),
        };
        let (planes, scalars): (&[u64], &[f32]) = if self.needs_encoding { (&self.pending_planes, &self.pending_scalars) } else { (&[], &[]) };
        Some(EvalRequest { state, legal: &self.pending_legal, planes, scalars })
    }

    /// Supplies the evaluation of the pending leaf: priors aligned with its
    /// legal actions, (win, draw, loss) for its mover.
    pub fn supply(&mut self, priors: &[f32], wdl: [f32; 3]) {
        let idx = self.pending_node;
        assert!(idx != NONE, "no pending evaluation");
        assert_eq!(priors.len(), self.pending_legal.len(), "one prior per legal action");
        self.pending_node = NONE;
        if let Some(st) = self.pending_state.take() {
            self.nodes[idx as usize].state = self.states.len() as u32;
            self.states.push(Some(st));
        }
        let to_move = self.states[self.nodes[idx as usize].state as usize].as_ref().expect("state").to_move();
        let first = self.nodes.len() as u32;
        // Guard against bad priors (NaN, negative, not normalised).
        let mut sum = 0.0;
        for &p in priors {
            if p.is_finite() && p > 0.0 {
                sum += p;
            }
        }
        let k = self.pending_legal.len();
        self.nodes.reserve(k);
        for (&a, &p) in self.pending_legal.iter().zip(priors) {
            let p = if sum > 0.0 {
                if p.is_finite() && p > 0.0 {
                    p / sum
                } else {
                    0.0
                }
            } else {
                1.0 / k as f32
            };
            self.nodes.push(Node::fresh(idx, a, p));
        }
        let wdl = sanitize_wdl(wdl);
        let white = flip_for(to_move, wdl);
        let node = &mut self.nodes[idx as usize];
        node.first_child = first;
        node.num_children = k as u32;
        node.kind = Kind::Expanded;
        node.to_move = to_move;
        node.value = white[0] - white[2];
        self.backprop(white);
        if idx != 0 {
            self.sims += 1;
            self.total_simulations += 1;
        }
    }

    fn backprop(&mut self, white: [f32; 3]) {
        for &i in &self.path {
            let n = &mut self.nodes[i as usize];
            n.n += 1;
            n.wdl[0] += white[0];
            n.wdl[1] += white[1];
            n.wdl[2] += white[2];
        }
    }

    /// One simulation; `true` if it stopped at a leaf needing evaluation.
    fn simulate(&mut self) -> bool {
        self.path.clear();
        self.path.push(0);
        let mut node = 0u32;
        loop {
            let c = if node == 0 { self.pick_root() } else { self.pick(node) };
            self.path.push(c);
            match self.nodes[c as usize].kind {
                Kind::Expanded => node = c,
                Kind::Terminal => {
                    self.node_visits += self.path.len() as u64;
                    let t = self.nodes[c as usize].twdl;
                    self.backprop(t);
                    self.sims += 1;
                    self.total_simulations += 1;
                    return false;
                }
                Kind::Fresh => {
                    self.node_visits += self.path.len() as u64;
                    let parent_state = self.nodes[node as usize].state as usize;
                    let mut st = self.states[parent_state].as_ref().expect("expanded node has a state").clone();
                    st.apply(self.nodes[c as usize].action);
                    let terminal = match st.outcome() {
                        Some(o) => Some(outcome_white_wdl(o)),
                        // A sure win this turn is as good as the win itself.
                        None if self.cfg.win_detection && st.can_win_this_turn() => Some(flip_for(st.to_move(), [1.0, 0.0, 0.0])),
                        None => {
                            st.legal_actions(&mut self.pending_legal);
                            // Stuck: adjudicated as a draw.
                            self.pending_legal.is_empty().then_some([0.0, 1.0, 0.0])
                        }
                    };
                    if let Some(t) = terminal {
                        let n = &mut self.nodes[c as usize];
                        n.kind = Kind::Terminal;
                        n.twdl = t;
                        n.value = t[0] - t[2];
                        n.to_move = st.to_move();
                        self.backprop(t);
                        self.sims += 1;
                        self.total_simulations += 1;
                        return false;
                    }
                    if self.needs_encoding {
                        st.encode(&mut self.pending_planes, &mut self.pending_scalars);
                    }
                    self.pending_state = Some(st);
                    self.pending_node = c;
                    return true;
                }
            }
        }
    }

    #[inline]
    fn children(&self, p: u32) -> std::ops::Range<usize> {
        let n = &self.nodes[p as usize];
        n.first_child as usize..(n.first_child + n.num_children) as usize
    }

    /// Interior selection.
    fn pick(&mut self, p: u32) -> u32 {
        match self.cfg.algorithm {
            Algorithm::Puct => self.pick_puct(p, self.cfg.fpu_reduction),
            Algorithm::Gumbel => self.pick_gumbel_interior(p),
        }
    }

    fn pick_root(&mut self) -> u32 {
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

    fn pick_puct(&self, p: u32, fpu_reduction: f32) -> u32 {
        let pn = &self.nodes[p as usize];
        let s = sign(pn.to_move);
        let parent_q = s * pn.white_value();
        let fpu = parent_q - fpu_reduction;
        let sqrt_n = (pn.n as f32).sqrt();
        let c = self.cfg.c_puct * sqrt_n.max(1.0);
        let mut best = pn.first_child;
        let mut best_score = f32::NEG_INFINITY;
        for i in self.children(p) {
            let ch = &self.nodes[i];
            let q = if ch.n > 0 { s * ch.white_value() } else { fpu };
            let score = q + c * ch.prior / (1.0 + ch.n as f32);
            if score > best_score {
                best_score = score;
                best = i as u32;
            }
        }
        best
    }

    /// Fills `out` with `log prior + sigma(completed, normalised Q)` of `p`'s children.
    fn transformed_logits(&self, p: u32, out: &mut Vec<f32>) {
        let pn = &self.nodes[p as usize];
        let s = sign(pn.to_move);
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
                sum_pq += ch.prior * s * ch.white_value();
            }
        }
        let raw = s * pn.value;
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
            let q = if ch.n > 0 { s * ch.white_value() } else { v_mix };
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

    fn pick_gumbel_interior(&mut self, p: u32) -> u32 {
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
    fn setup_root<R: Rng>(&mut self, rng: &mut R) {
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
    fn make_plan(&mut self) {
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
    fn next_phase(&mut self) {
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
    fn root_scores(&mut self) -> Vec<f32> {
        let mut t = std::mem::take(&mut self.scratch2);
        self.transformed_logits(0, &mut t);
        let out = t.iter().zip(&self.gumbel).map(|(a, g)| a + g).collect();
        self.scratch2 = t;
        out
    }

    /// The outcome of the finished search.
    pub fn result(&mut self) -> SearchResult {
        if let Some((legal, wins)) = &self.forced_wins {
            return forced_win_result(legal, wins);
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
                    *self
                        .considered
                        .iter()
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
        SearchResult { legal, policy, priors, visits, q, action, root_q: wdl[0] - wdl[2], root_wdl: wdl, simulations: self.sims }
    }

    /// Moves the root to the child reached by `action` (kept with its subtree
    /// if `tree_reuse` and it was expanded); `new_state` is the state after
    /// `action` (used when the subtree is not kept).
    ///
    /// A subtree of more than [`REUSE_MAX_VISITS`] × the larger simulation
    /// budget visits is dropped, so a tree never holds more than that plus one
    /// search (a run of forced decisions would otherwise keep growing it).
    pub fn advance(&mut self, action: u16, new_state: &G) {
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
    }

    /// Keeps only the subtree of `r`, renumbered from 0 (breadth first, so
    /// each node's children stay contiguous).
    fn compact(&mut self, r: u32) {
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

/// The actions of `state` (its legal `legal`) after which its mover has won
/// or still surely wins this turn; the mover can win this turn, so there is
/// at least one.
fn winning_actions<G: Game>(state: &G, legal: &[u16]) -> Vec<u16> {
    let mover = state.to_move();
    let wins: Vec<u16> = legal
        .iter()
        .copied()
        .filter(|&a| {
            let mut next = state.clone();
            next.apply(a);
            match next.outcome() {
                Some(o) => o == Outcome::Win(mover),
                None => next.to_move() == mover && next.can_win_this_turn(),
            }
        })
        .collect();
    debug_assert!(!wins.is_empty(), "a detected win has a winning action");
    wins
}

/// The result of a search stopped at a root that is a detected win: the
/// policy target spreads over the winning actions, the first is played.
fn forced_win_result(legal: &[u16], wins: &[u16]) -> SearchResult {
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
    }
}

fn nan_max(x: f32) -> f32 {
    if x.is_nan() {
        f32::NEG_INFINITY
    } else {
        x
    }
}

fn sanitize_wdl(w: [f32; 3]) -> [f32; 3] {
    let w = w.map(|x| if x.is_finite() && x > 0.0 { x } else { 0.0 });
    let s = w[0] + w[1] + w[2];
    if s > 0.0 {
        w.map(|x| x / s)
    } else {
        [0.0, 1.0, 0.0]
    }
}

fn softmax_in_place(v: &mut [f32]) {
    let max = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for x in v.iter_mut() {
        *x = (*x - max).exp();
        sum += *x;
    }
    for x in v.iter_mut() {
        *x /= sum;
    }
}

fn sample_gumbel<R: Rng>(rng: &mut R) -> f32 {
    let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    (-(-u.ln()).ln()) as f32
}

fn sample_normal<R: Rng>(rng: &mut R) -> f64 {
    let u1: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Gamma(alpha, 1) by Marsaglia-Tsang.
fn sample_gamma<R: Rng>(rng: &mut R, alpha: f64) -> f64 {
    if alpha < 1.0 {
        let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
        return sample_gamma(rng, alpha + 1.0) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = sample_normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// A Dirichlet(alpha, ..., alpha) sample of `k` components.
pub fn dirichlet<R: Rng>(rng: &mut R, alpha: f32, k: usize) -> Vec<f32> {
    let g: Vec<f64> = (0..k).map(|_| sample_gamma(rng, alpha as f64)).collect();
    let s: f64 = g.iter().sum();
    if s > 0.0 {
        g.iter().map(|x| (x / s) as f32).collect()
    } else {
        vec![1.0 / k as f32; k]
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
}

impl<G: Game> Search<G> {
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
                    ChildStats { action: c.action, prior: c.prior, visits: c.n, wdl, expanded: c.kind == Kind::Expanded }
                })
                .collect(),
        )
    }
}

/// Runs one complete search of `simulations` from `state` (batch size 1).
pub fn search<G: Game, E: Evaluator<G> + ?Sized, R: Rng>(
    cfg: &SearchConfig,
    state: &G,
    evaluator: &E,
    simulations: u32,
    noise: bool,
    rng: &mut R,
) -> Result<SearchResult> {
    Search::new(cfg.clone(), state.clone(), evaluator.needs_encoding()).search_until(evaluator, simulations, None, noise, rng)
}

impl<G: Game> Search<G> {
    /// One decision search from the current root (with the subtree kept by
    /// [`Search::advance`], if any), batch size 1, stopped after
    /// `max_simulations` or at `deadline` (after at least the root's
    /// evaluation), whichever comes first: players given a time per decision.
    /// Meant for PUCT when timed: Gumbel's sequential halving assumes its
    /// whole budget is spent.
    pub fn search_until<E: Evaluator<G> + ?Sized, R: Rng>(
        &mut self,
        evaluator: &E,
        max_simulations: u32,
        deadline: Option<std::time::Instant>,
        noise: bool,
        rng: &mut R,
    ) -> Result<SearchResult> {
        self.begin(max_simulations, noise);
        self.deadline = deadline;
        let mut out = EvalOutput::default();
        // `run` evaluates an unexpanded root before it looks at the deadline.
        while self.run(rng) {
            let req = self.request().expect("pending request");
            evaluator.evaluate(std::slice::from_ref(&req), &mut out)?;
            let (p, w) = (out.priors_of(0).to_vec(), out.wdl[0]);
            self.supply(&p, w);
        }
        self.deadline = None;
        Ok(self.result())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn dirichlet_is_a_distribution_with_the_right_mean() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        let mut mean = [0f64; 4];
        for _ in 0..4000 {
            let d = dirichlet(&mut rng, 0.3, 4);
            assert!((d.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            assert!(d.iter().all(|x| *x >= 0.0));
            for (m, x) in mean.iter_mut().zip(&d) {
                *m += *x as f64 / 4000.0;
            }
        }
        assert!(mean.iter().all(|m| (m - 0.25).abs() < 0.03), "{mean:?}");
    }

    #[test]
    fn gumbel_samples_have_the_right_mean() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let m: f64 = (0..20000).map(|_| sample_gumbel(&mut rng) as f64).sum::<f64>() / 20000.0;
        assert!((m - 0.5772).abs() < 0.05, "{m}");
    }

    #[test]
    fn wdl_helpers() {
        assert_eq!(flip_for(Color::Black, [0.7, 0.2, 0.1]), [0.1, 0.2, 0.7]);
        assert_eq!(flip_for(Color::White, [0.7, 0.2, 0.1]), [0.7, 0.2, 0.1]);
        assert_eq!(sanitize_wdl([f32::NAN, -1.0, 0.0]), [0.0, 1.0, 0.0]);
        assert_eq!(sanitize_wdl([2.0, 0.0, 2.0]), [0.5, 0.0, 0.5]);
    }
}
