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
//!
//! The search is split by concern:
//!
//! | file | concern |
//! |---|---|
//! | `mod.rs` | the [`Search`] state machine: simulations, evaluation requests, backup |
//! | `tree.rs` | nodes, value perspectives, tree reuse between decisions |
//! | `select.rs` | PUCT and Gumbel (sequential halving) selection |
//! | `result.rs` | what a finished search says: the move, the policy target, child statistics |
//! | `solver.rs` | proven results (MCTS-solver): what a node's children prove, carried up |
//! | `two_turns.rs` | a win in two turns, found at the root by a full-width search |
//! | `keys.rs` | hash maps keyed by position hashes (no second hashing) |
//! | `noise.rs` | Dirichlet and Gumbel noise, numeric helpers |

use anyhow::Result;
use pacozero_engine::{Color, Encode, GameRules, Outcome};
use rand::Rng;

use crate::config::{Algorithm, SearchConfig};
use crate::eval::{EvalOutput, EvalRequest, Evaluator};

mod keys;
mod noise;
mod result;
mod select;
mod solver;
mod tree;
mod two_turns;

pub use noise::dirichlet;
use noise::{nan_max, sanitize_wdl, softmax_in_place};
pub(crate) use result::winning_actions;
pub use result::{ChildStats, SearchResult};
use solver::NodeProof;
pub use solver::{Proof, Proven};
use tree::{flip_for, outcome_white_wdl, sign, Kind, Node};
pub use two_turns::{two_turn_win, TwoTurnWin, TWO_TURN_BUDGET};
use two_turns::{TwoTurnAnswer, TwoTurnSearch};

const NONE: u32 = u32::MAX;

/// The moment a search of `time` that started at `started` must end;
/// `None` (no time limit: the visits end the search) for a time too far
/// ahead for the system's clock, such as UCI's
/// `go movetime 9223372036854775807`.
pub fn deadline(started: std::time::Instant, time: Option<std::time::Duration>) -> Option<std::time::Instant> {
    started.checked_add(time?)
}

/// A root the search found won before searching: its legal actions, those
/// that start a shortest win, and the win's distance in turn ends (1: this
/// turn, a detected win; 3: a win in two turns, with one such `turn`).
#[derive(Clone, Debug)]
struct ForcedWin {
    legal: Vec<u16>,
    wins: Vec<u16>,
    turns: u32,
    turn: Vec<u16>,
}

/// Tree reuse keeps a subtree of at most this many times the larger
/// simulation budget (visits), which bounds the memory of a game's tree.
pub const REUSE_MAX_VISITS: u32 = 4;

/// A search tree with its in-progress decision search.
pub struct Search<G: GameRules + Encode> {
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
    /// The root's forced win, when it is a detected win or a win in two
    /// turns (the search then stops at once).
    forced_wins: Option<ForcedWin>,
    /// The root's two-turn search is still to run for this decision.
    two_turns_pending: bool,
    /// The two-turn search with its buffers.
    two_turns: TwoTurnSearch<G>,
    /// The root is known to have no win in two turns: a search of it, or
    /// of a root earlier in the same turn, went through and found none
    /// (each turn end from here was among its turn ends).
    two_turns_absent: bool,
    /// End of a timed decision search, checked by [`Search::run`] before each
    /// simulation (also between those that need no evaluation: a tree of
    /// decided positions can run through many of them without returning).
    deadline: Option<std::time::Instant>,
    /// Nodes touched by selection (root to leaf, inclusive), all searches.
    pub node_visits: u64,
    /// Simulations, all searches.
    pub total_simulations: u64,
}

impl<G: GameRules + Encode> Search<G> {
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
            pending_planes: vec![0; G::NUM_BIT_PLANES * G::WORDS_PER_PLANE],
            pending_scalars: vec![0.0; G::NUM_SCALARS],
            gumbel: Vec::new(),
            considered: Vec::new(),
            plan: Vec::new(),
            plan_pos: 0,
            phases: 1,
            scratch: Vec::new(),
            scratch2: Vec::new(),
            forced_wins: None,
            two_turns_pending: false,
            two_turns: TwoTurnSearch::default(),
            two_turns_absent: false,
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

    /// Ends the decision search begun by [`Search::begin`] at `deadline`
    /// (checked by [`Search::run`] before each simulation); `None`: no limit.
    /// [`Search::search_until`] sets its own.
    pub fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.deadline = deadline;
    }

    /// The root is a detected win ([`SearchConfig::win_detection`]): the
    /// search stopped at once, and the tree below the root is not expanded.
    pub fn root_is_detected_win(&self) -> bool {
        self.forced_wins.as_ref().is_some_and(|f| f.turns == 1)
    }

    /// The root's win in two turns, when the search found one
    /// ([`SearchConfig::root_win_in_two`]) and stopped at once: a winning
    /// turn from the root, whole.
    pub fn root_two_turn_win(&self) -> Option<&[u16]> {
        self.forced_wins.as_ref().filter(|f| f.turns == 3).map(|f| f.turn.as_slice())
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
        self.two_turns_absent = false;
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
        self.two_turns_pending = self.cfg.win_detection && self.cfg.root_win_in_two && !self.two_turns_absent;
    }

    /// The root's win in two turns ([`two_turn_win`]), asked once per
    /// decision search ([`Search::begin`] sets it pending), whether the root
    /// is fresh or a reused subtree's: found, it becomes the search's forced
    /// win. Asked only of a root that does not win this turn, so a win in
    /// one stays a win in one: a fresh root asks after win detection, and a
    /// reused, expanded one was a leaf that win detection did not score as
    /// won (a detected win is never expanded). Not asked where the rules or
    /// the tree already decide the root.
    fn find_two_turn_win(&mut self) -> bool {
        if !std::mem::take(&mut self.two_turns_pending) {
            return false;
        }
        let st = self.states[0].as_ref().expect("root state");
        if self.nodes[0].proof.is_some() || st.outcome().is_some() {
            return false;
        }
        let w = match self.two_turns.answer(st, TWO_TURN_BUDGET) {
            TwoTurnAnswer::Win(w) => w,
            TwoTurnAnswer::NoWin => {
                self.two_turns_absent = true;
                return false;
            }
            TwoTurnAnswer::Unknown => return false,
        };
        let mut legal = Vec::new();
        st.playable_actions(&mut legal);
        self.forced_wins = Some(ForcedWin { legal, wins: w.first_actions, turns: 3, turn: w.turn });
        true
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
            st.playable_actions(&mut self.pending_legal);
            if self.pending_legal.is_empty() {
                return false;
            }
            if self.cfg.win_detection && st.can_win_this_turn() {
                let wins = winning_actions(st, &self.pending_legal);
                self.forced_wins = Some(ForcedWin { legal: self.pending_legal.clone(), wins, turns: 1, turn: Vec::new() });
                return false;
            }
            if self.find_two_turn_win() {
                return false;
            }
            let st = self.states[0].as_ref().expect("root state");
            if self.needs_encoding {
                st.encode(&mut self.pending_planes, &mut self.pending_scalars);
            }
            self.path.clear();
            self.path.push(0);
            self.pending_node = 0;
            return true;
        }
        if self.find_two_turn_win() {
            return false;
        }
        if self.setup_pending {
            self.setup_root(rng);
            self.setup_pending = false;
        }
        while self.sims < self.budget {
            // A proven root needs no more search (the result plays the proof).
            if self.nodes[0].proof.is_some() {
                return false;
            }
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
        // Guard against bad priors (NaN, negative, not normalised); flatten
        // them by the policy temperature (`p^(1/T)`, then normalised).
        let inv_t = 1.0 / self.cfg.policy_temperature;
        let tempered = |p: f32| {
            if p.is_finite() && p > 0.0 {
                if inv_t == 1.0 {
                    p
                } else {
                    p.powf(inv_t)
                }
            } else {
                0.0
            }
        };
        let sum: f32 = priors.iter().map(|&p| tempered(p)).sum();
        let k = self.pending_legal.len();
        self.nodes.reserve(k);
        for (&a, &p) in self.pending_legal.iter().zip(priors) {
            let p = if sum > 0.0 && sum.is_finite() { tempered(p) / sum } else { 1.0 / k as f32 };
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
        node.draw = white[1];
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
                // A proven node is not searched: the visit backs up its exact value.
                Kind::Expanded if self.nodes[c as usize].proof.is_some() => {
                    self.node_visits += self.path.len() as u64;
                    let p = self.nodes[c as usize].proof.expect("proven");
                    self.backprop(outcome_white_wdl(p.outcome));
                    self.sims += 1;
                    self.total_simulations += 1;
                    return false;
                }
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
                    // (exact values, White's perspective; the proof where the rules decide)
                    let terminal = match st.outcome() {
                        Some(o) => Some((outcome_white_wdl(o), Some(NodeProof { outcome: o, turns: 0 }))),
                        // A sure win this turn is as good as the win itself.
                        None if self.cfg.win_detection && st.can_win_this_turn() => {
                            Some((flip_for(st.to_move(), [1.0, 0.0, 0.0]), Some(NodeProof { outcome: Outcome::Win(st.to_move()), turns: 1 })))
                        }
                        // The opponent's win in two, proven where the root's turn ends.
                        None if self.asks_reply_win_in_two(&st) => {
                            Some((flip_for(st.to_move(), [1.0, 0.0, 0.0]), Some(NodeProof { outcome: Outcome::Win(st.to_move()), turns: 3 })))
                        }
                        // Checked after the wins: a mover that can win wins, repeated or not.
                        None if self.cfg.twofold_draws && st.repeats_earlier_position() => Some(([0.0, 1.0, 0.0], None)),
                        None => {
                            st.playable_actions(&mut self.pending_legal);
                            // Stuck: adjudicated as a draw.
                            self.pending_legal.is_empty().then_some(([0.0, 1.0, 0.0], None))
                        }
                    };
                    if let Some((t, proof)) = terminal {
                        let proof = proof.filter(|_| self.cfg.solver);
                        let n = &mut self.nodes[c as usize];
                        n.kind = Kind::Terminal;
                        // (`value` and `draw` are read for expanded nodes only.)
                        n.twdl = t;
                        n.to_move = st.to_move();
                        n.proof = proof;
                        self.backprop(t);
                        if proof.is_some() {
                            self.prove_path();
                        }
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

    /// Whether `st`, the fresh leaf at the end of the current path, ends
    /// the root's turn (every node between them has the root's mover, and
    /// `st` the other) and its mover wins in two turns
    /// ([`SearchConfig::reply_win_in_two`]). The budget's "not known"
    /// counts as no.
    fn asks_reply_win_in_two(&mut self, st: &G) -> bool {
        if !(self.cfg.reply_win_in_two && self.cfg.win_detection && self.cfg.solver) {
            return false;
        }
        let root_mover = self.nodes[0].to_move;
        let inner = &self.path[1..self.path.len() - 1];
        if st.to_move() == root_mover || inner.iter().any(|&i| self.nodes[i as usize].to_move != root_mover) {
            return false;
        }
        matches!(self.two_turns.answer(st, TWO_TURN_BUDGET), TwoTurnAnswer::Win(_))
    }

    #[inline]
    fn children(&self, p: u32) -> std::ops::Range<usize> {
        let n = &self.nodes[p as usize];
        n.first_child as usize..(n.first_child + n.num_children) as usize
    }
}

/// Evaluates the pending requests of `searches` in one batch and supplies
/// each search its result; returns how many were evaluated (0: none was
/// waiting, nothing was called). Many searches (self-play games, book
/// positions) share a network call so.
pub fn evaluate_pending<G: GameRules + Encode, E: Evaluator<G> + ?Sized>(
    searches: &mut [&mut Search<G>],
    evaluator: &E,
    out: &mut EvalOutput,
) -> Result<usize> {
    let reqs: Vec<EvalRequest<'_, G>> = searches.iter().filter_map(|s| s.request()).collect();
    if reqs.is_empty() {
        return Ok(0);
    }
    let n = reqs.len();
    evaluator.evaluate(&reqs, out)?;
    drop(reqs);
    if out.wdl.len() != n || out.offsets.len() != n + 1 {
        anyhow::bail!("evaluator returned {} results for {} requests", out.wdl.len(), n);
    }
    let mut k = 0;
    for s in searches.iter_mut() {
        if s.request().is_some() {
            s.supply(out.priors_of(k), out.wdl[k]);
            k += 1;
        }
    }
    Ok(n)
}

/// Runs one complete search of `simulations` from `state` (batch size 1).
pub fn search<G: GameRules + Encode, E: Evaluator<G> + ?Sized, R: Rng>(
    cfg: &SearchConfig,
    state: &G,
    evaluator: &E,
    simulations: u32,
    noise: bool,
    rng: &mut R,
) -> Result<SearchResult> {
    Search::new(cfg.clone(), state.clone(), evaluator.needs_encoding()).search_until(evaluator, simulations, None, noise, rng)
}

impl<G: GameRules + Encode> Search<G> {
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
