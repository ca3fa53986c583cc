//! Search on crafted positions, for both root algorithms.
//!
//! Win detection and the solver are off in these tests: with them on, the
//! search answers a position where the mover can win this turn from the
//! detector, without a single simulation, and stops as soon as a won
//! terminal proves its root, and these tests would check those instead of
//! MCTS. Every search here asserts that it simulated. The detector has its own
//! tests (`engine/tests/paco/win_detection.rs`, `tests/win_and_cut.rs`), the
//! solver too (`tests/solver.rs`).

use pacozero_engine::paco::{in_sako, GameState, Position};
use pacozero_engine::prelude::*;
use pacozero_engine::{Color, Outcome};
use pacozero_search::{search, Algorithm, EvalOutput, EvalRequest, Evaluator, RolloutEvaluator, Search, SearchConfig, SearchResult, UniformEvaluator};
use pacozero_testkit::Constant;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn state(fen: &str) -> GameState {
    GameState::new(fen.parse::<Position>().unwrap_or_else(|e| panic!("{fen}: {e}")))
}

fn cfg(alg: Algorithm) -> SearchConfig {
    SearchConfig { algorithm: alg, win_detection: false, solver: false, ..SearchConfig::default() }
}

/// One search that must have run MCTS simulations (not answered otherwise).
fn searched<E: Evaluator<GameState>>(c: &SearchConfig, g: &GameState, ev: &E, sims: u32, noise: bool, rng: &mut ChaCha8Rng) -> SearchResult {
    let r = search(c, g, ev, sims, noise, rng).unwrap();
    assert!(r.simulations > 0, "the search of {} answered without a simulation", g.notation());
    r
}

fn apply_names(g: &mut GameState, names: &str) {
    for n in names.split_whitespace() {
        let mut legal = Vec::new();
        g.playable_actions(&mut legal);
        let a = *legal.iter().find(|&&a| g.action_name(a) == n).unwrap_or_else(|| panic!("{n} not legal in {}", g.notation()));
        g.apply(a);
    }
}

/// Plays the searched decisions of the side to move until its turn ends;
/// returns the state after the turn and the decisions taken.
fn play_turn<E: Evaluator<GameState>>(alg: Algorithm, g: &GameState, ev: &E, sims: u32, seed: u64) -> (GameState, Vec<String>) {
    play_turn_with(&cfg(alg), g, ev, sims, seed)
}

/// [`play_turn`] with a given search configuration.
fn play_turn_with<E: Evaluator<GameState>>(c: &SearchConfig, g: &GameState, ev: &E, sims: u32, seed: u64) -> (GameState, Vec<String>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut g = g.clone();
    let me = g.to_move();
    let mut names = Vec::new();
    while g.to_move() == me && g.outcome().is_none() {
        let r = searched(c, &g, ev, sims, false, &mut rng);
        names.push(g.action_name(r.action));
        g.apply(r.action);
        assert!(names.len() < 10, "turn too long: {names:?}");
    }
    (g, names)
}

// White rook e1 unites with the black king on e8 (lift, place: two decisions of one turn).
const DIRECT_WIN: &str = "4k3/8/8/8/8/8/8/4RK2 w 0 - - -";
// Chain: rook a4 joins the union d4 (black pawn + white knight), the released
// knight dances onto the black king on e6.
const CHAIN_WIN: &str = "8/8/4k3/8/R2d4/8/8/4K3 w 0 - - -";

#[test]
fn crafted_positions_are_what_they_claim() {
    let mut g = state(DIRECT_WIN);
    apply_names(&mut g, "Le1 Pe8");
    assert_eq!(g.outcome(), Some(Outcome::Win(Color::White)));
    let mut g = state(CHAIN_WIN);
    apply_names(&mut g, "La4 Pd4 Pe6");
    assert_eq!(g.outcome(), Some(Outcome::Win(Color::White)));
    // No direct (two-decision) win in the chain position.
    let g0 = state(CHAIN_WIN);
    let mut legal = Vec::new();
    g0.playable_actions(&mut legal);
    for &a in &legal {
        let mut g1 = g0.clone();
        g1.apply(a);
        let mut l2 = Vec::new();
        g1.playable_actions(&mut l2);
        for &b in &l2 {
            let mut g2 = g1.clone();
            g2.apply(b);
            assert!(g2.outcome().is_none(), "direct win {} {}", g0.action_name(a), g1.action_name(b));
        }
    }
}

#[test]
fn finds_direct_paco_both_algorithms() {
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        for seed in 0..3 {
            let (g, names) = play_turn(alg, &state(DIRECT_WIN), &UniformEvaluator, 64, seed);
            assert_eq!(g.outcome(), Some(Outcome::Win(Color::White)), "{alg:?}: {names:?}");
        }
    }
}

#[test]
fn finds_chain_paco_both_algorithms() {
    // Uniform priors: the three-decision chain must be found by brute search.
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        for seed in 0..3 {
            let (g, names) = play_turn(alg, &state(CHAIN_WIN), &UniformEvaluator, 400, seed);
            assert_eq!(g.outcome(), Some(Outcome::Win(Color::White)), "{alg:?}: {names:?}");
            assert_eq!(names, ["La4", "Pd4", "Pe6"]);
        }
    }
}

/// Priors like a half-trained network's: `boost` of the mass on the named
/// actions, the rest spread uniformly; value: draw.
struct HintEvaluator {
    hints: Vec<&'static str>,
    boost: f32,
}

impl Evaluator<GameState> for HintEvaluator {
    fn name(&self) -> String {
        "hint".into()
    }
    fn needs_encoding(&self) -> bool {
        false
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, GameState>], out: &mut EvalOutput) -> anyhow::Result<()> {
        out.reset(batch);
        for (i, r) in batch.iter().enumerate() {
            let hinted: Vec<bool> = r.legal.iter().map(|&a| self.hints.contains(&r.state.action_name(a).as_str())).collect();
            let nh = hinted.iter().filter(|&&h| h).count();
            let rest = r.legal.len() - nh;
            let p = out.priors_of_mut(i);
            for (k, &h) in hinted.iter().enumerate() {
                p[k] = match (nh, h) {
                    (0, _) => 1.0 / r.legal.len() as f32,
                    (_, true) => {
                        if rest == 0 {
                            1.0 / nh as f32
                        } else {
                            self.boost / nh as f32
                        }
                    }
                    (_, false) => (1.0 - self.boost) / rest as f32,
                };
            }
        }
        Ok(())
    }
}

#[test]
fn low_simulation_searches_follow_good_priors_to_the_chain_win() {
    // With priors pointing (loosely) at the chain, 16-32 simulations suffice.
    let ev = HintEvaluator { hints: vec!["La4", "Pd4", "Pe6"], boost: 0.5 };
    for (alg, sims) in [(Algorithm::Gumbel, 16), (Algorithm::Gumbel, 32), (Algorithm::Puct, 32)] {
        for seed in 0..3 {
            let (g, names) = play_turn(alg, &state(CHAIN_WIN), &ev, sims, seed);
            assert_eq!(g.outcome(), Some(Outcome::Win(Color::White)), "{alg:?} {sims}: {names:?}");
        }
    }
    // A misleading prior on a quiet move is overruled by search (Gumbel's
    // completed Q; without Gumbel noise, which would sample around it).
    let ev = HintEvaluator { hints: vec!["La1", "Le1", "Pa1"], boost: 0.8 };
    let c = cfg(Algorithm::Gumbel);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut g = state(DIRECT_WIN);
    let r = searched(&c, &g, &ev, 32, false, &mut rng);
    assert_eq!(g.action_name(r.action), "Le1");
    g.apply(r.action);
    let r = searched(&c, &g, &HintEvaluator { hints: vec!["Pe2", "Pe3"], boost: 0.9 }, 16, false, &mut rng);
    assert_eq!(g.action_name(r.action), "Pe8");
    let i = r.index_of(r.action).unwrap();
    assert!(r.policy[i] > 0.5, "improved policy moves mass to the win: {:?}", r.policy);
}

// Black rook e8 eyes the white king e1 through the white rook on e4: moving the
// rook off the e-file (most of its moves) lets Black unite with the king.
const BLOCKER: &str = "k3r3/8/8/8/4R3/8/8/4K3 w 0 - - -";

#[test]
fn avoids_moves_that_lose_at_once_both_algorithms() {
    // The position really is a trap: some White turns allow an immediate Paco.
    let g = state(BLOCKER);
    let mut losing = 0;
    let mut legal = Vec::new();
    g.playable_actions(&mut legal);
    let mut rook = g.clone();
    apply_names(&mut rook, "Le4");
    let mut places = Vec::new();
    rook.playable_actions(&mut places);
    for &p in &places {
        let mut r2 = rook.clone();
        r2.apply(p);
        if in_sako(r2.position(), Color::White) {
            losing += 1;
        }
    }
    assert!(losing >= 5, "only {losing} losing placements");
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        for seed in 0..3 {
            let (after, names) = play_turn(alg, &g, &UniformEvaluator, 128, seed);
            assert_eq!(after.to_move(), Color::Black);
            assert!(!in_sako(after.position(), Color::White), "{alg:?} seed {seed} played {names:?}, allowing Paco");
        }
    }
}

#[test]
fn value_signs_across_multi_decision_turns() {
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        let c = cfg(alg);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        // White to move and winning: the root value is high for White ...
        let g = state(DIRECT_WIN);
        let r = searched(&c, &g, &UniformEvaluator, 64, false, &mut rng);
        assert!(r.root_q > 0.3, "{alg:?} root_q {}", r.root_q);
        let i = r.index_of(r.action).unwrap();
        assert_eq!(g.action_name(r.action), "Le1");
        let best_q = r.q.iter().copied().filter(|q| !q.is_nan()).fold(f32::NEG_INFINITY, f32::max);
        assert!(r.q[i] > 0.3 && r.q[i] == best_q, "{alg:?}: q of Le1 = {} in {:?}", r.q[i], r.q);
        // ... after the lift White still moves (same perspective), value ~ +1.
        let mut g1 = g.clone();
        apply_names(&mut g1, "Le1");
        assert_eq!(g1.to_move(), Color::White);
        let r1 = searched(&c, &g1, &UniformEvaluator, 64, false, &mut rng);
        assert_eq!(g1.action_name(r1.action), "Pe8");
        let i1 = r1.index_of(r1.action).unwrap();
        assert!(r1.q[i1] > 0.99, "{alg:?} q of Pe8 {}", r1.q[i1]);
        assert!(r1.root_q > 0.1, "{alg:?} root_q after lift {}", r1.root_q);
        // The mirrored position with Black to move: the value is Black's.
        let gb = state("4K3/8/8/8/8/8/8/4rk2 b 0 - - -");
        let rb = searched(&c, &gb, &UniformEvaluator, 64, false, &mut rng);
        assert!(rb.root_q > 0.3, "{alg:?} black root_q {}", rb.root_q);
        assert_eq!(gb.action_name(rb.action), "Le1");
        // White to move in the trap position after lifting the blocking rook:
        // placements off the e-file have Q ~ -1 for White (Black's two-decision
        // reply wins), placements on the file do not.
        let mut gt = state(BLOCKER);
        apply_names(&mut gt, "Le4");
        let rt = searched(&c, &gt, &UniformEvaluator, 600, false, &mut rng);
        let mut worst_safe = f32::INFINITY;
        let mut best_losing = f32::NEG_INFINITY;
        for (k, &a) in rt.legal.iter().enumerate() {
            let mut after = gt.clone();
            after.apply(a);
            // Uniform priors: a losing placement needs some visits before the
            // opponent's two-decision reply is found.
            if rt.visits[k] < 30 {
                continue;
            }
            if in_sako(after.position(), Color::White) {
                best_losing = best_losing.max(rt.q[k]);
            } else {
                worst_safe = worst_safe.min(rt.q[k]);
            }
        }
        // Every (searched) losing placement looks worse than every safe one.
        assert!(best_losing < worst_safe, "{alg:?}: best losing q {best_losing} >= worst safe q {worst_safe}: {:?} {:?}", rt.visits, rt.q);
        let chosen = rt.action;
        let mut after = gt.clone();
        after.apply(chosen);
        assert!(!in_sako(after.position(), Color::White), "{alg:?} chose {}", gt.action_name(chosen));
    }
}

#[test]
fn policy_targets_are_distributions_and_budget_is_exact() {
    let g = GameState::new(Position::startpos());
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        for sims in [1u32, 16, 50] {
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            let r = searched(&cfg(alg), &g, &UniformEvaluator, sims, true, &mut rng);
            assert_eq!(r.simulations, sims);
            assert_eq!(r.legal.len(), r.policy.len());
            let s: f32 = r.policy.iter().sum();
            assert!((s - 1.0).abs() < 1e-4, "{alg:?} policy sums to {s}");
            assert!(r.policy.iter().all(|p| p.is_finite() && *p >= 0.0));
            assert!(r.legal.contains(&r.action));
        }
    }
}

#[test]
fn root_noise_only_when_asked() {
    let g = GameState::new(Position::startpos());
    let c = cfg(Algorithm::Puct);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let quiet = searched(&c, &g, &UniformEvaluator, 8, false, &mut rng);
    let k = quiet.priors.len() as f32;
    assert!(quiet.priors.iter().all(|p| (p - 1.0 / k).abs() < 1e-6));
    let noisy = searched(&c, &g, &UniformEvaluator, 8, true, &mut rng);
    assert!(noisy.priors.iter().any(|p| (p - 1.0 / k).abs() > 1e-3));
    assert!((noisy.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    // Epsilon 0 switches Dirichlet noise off.
    let c0 = SearchConfig { dirichlet_epsilon: 0.0, ..c };
    let r = searched(&c0, &g, &UniformEvaluator, 8, true, &mut rng);
    assert!(r.priors.iter().all(|p| (p - 1.0 / k).abs() < 1e-6));
}

#[test]
fn tree_reuse_keeps_the_subtree() {
    let g = state(DIRECT_WIN);
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut s = Search::new(cfg(alg), g.clone(), false);
        s.begin(64, false);
        let ev = UniformEvaluator;
        let mut out = pacozero_search::EvalOutput::default();
        while s.run(&mut rng) {
            let req = s.request().unwrap();
            Evaluator::<GameState>::evaluate(&ev, std::slice::from_ref(&req), &mut out).unwrap();
            let (p, w) = (out.priors_of(0).to_vec(), out.wdl[0]);
            s.supply(&p, w);
        }
        let r = s.result();
        let i = r.index_of(r.action).unwrap();
        let mut g1 = g.clone();
        g1.apply(r.action);
        s.advance(r.action, &g1);
        assert_eq!(s.root_visits(), r.visits[i], "{alg:?}");
        assert_eq!(s.root_state().hash(), g1.hash());
        // Continue searching from the reused root.
        s.begin(16, false);
        while s.run(&mut rng) {
            let req = s.request().unwrap();
            Evaluator::<GameState>::evaluate(&ev, std::slice::from_ref(&req), &mut out).unwrap();
            let (p, w) = (out.priors_of(0).to_vec(), out.wdl[0]);
            s.supply(&p, w);
        }
        let r2 = s.result();
        assert_eq!(g1.action_name(r2.action), "Pe8");
        assert_eq!(s.root_visits(), r.visits[i] + 16);
    }
}

#[test]
fn rollout_evaluator_sees_the_win() {
    let ev = RolloutEvaluator::new(1, 8, 20);
    // After White's lift of the rook, random placements win sometimes.
    let mut g = state(DIRECT_WIN);
    apply_names(&mut g, "Le1");
    let wdl = ev.rollout_wdl(&g);
    assert!(wdl[0] > 0.0, "{wdl:?}");
    assert!((wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    // Deterministic.
    assert_eq!(wdl, ev.rollout_wdl(&g));
    let (after, names) = play_turn(Algorithm::Puct, &state(DIRECT_WIN), &ev, 32, 0);
    assert_eq!(after.outcome(), Some(Outcome::Win(Color::White)), "{names:?}");
}

/// Black is better everywhere (0.6-0.3-0.1 for Black).
const BLACK_IS_BETTER: Constant = Constant { white: [0.1, 0.3, 0.6], black: [0.6, 0.3, 0.1] };

// Two-fold draws: White's rook a1 and Black's king shuffle; after
// `SHUFFLE`, `La1 Pa2` brings back the position after White's first turn.
const SHUFFLE_START: &str = "4k3/8/8/8/8/8/8/R3K3 w 0 - - -";
const SHUFFLE: &str = "La1 Pa2 Le8 Pd8 La2 Pa1 Ld8 Pe8";

#[test]
fn with_twofold_draws_a_repeated_position_below_the_root_is_a_draw_that_the_side_behind_takes() {
    let mut g = state(SHUFFLE_START);
    apply_names(&mut g, SHUFFLE);
    // The start of a game is not in its history, so this is the first occurrence.
    assert_eq!(g.hash(), state(SHUFFLE_START).hash(), "{}", g.notation());
    assert!(!g.repeats_earlier_position(), "{}", g.notation());
    let mut back = g.clone();
    apply_names(&mut back, "La1");
    assert!(!back.repeats_earlier_position(), "the middle of a turn repeats nothing");
    apply_names(&mut back, "Pa2");
    assert!(back.repeats_earlier_position(), "{} came before", back.notation());
    assert_eq!(back.outcome(), None, "the rules draw the third occurrence, not the second");

    let la1 = g.parse_action("La1").unwrap();
    let pa2 = {
        let mut mid = g.clone();
        mid.apply(la1);
        mid.parse_action("Pa2").unwrap()
    };
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        for twofold in [true, false] {
            let c = SearchConfig { twofold_draws: twofold, gumbel_noise: false, ..cfg(alg) };
            let mut s = Search::new(c.clone(), g.clone(), false);
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let r = s.search_until(&BLACK_IS_BETTER, 400, None, false, &mut rng).unwrap();
            assert!(r.simulations > 0);
            let children = s.children_at(&[la1]).unwrap_or_else(|| panic!("{alg:?}: La1 was not expanded"));
            let pa2 = children.iter().find(|c| c.action == pa2).expect("Pa2 is a child of La1");
            assert!(pa2.visits > 0, "{alg:?} twofold={twofold}: Pa2 never visited");
            if twofold {
                // A drawn leaf, never evaluated; White, behind everywhere else, plays into it.
                assert_eq!(pa2.wdl, [0.0, 1.0, 0.0], "{alg:?}");
                assert!(!pa2.expanded, "{alg:?}");
                assert_eq!(g.action_name(r.action), "La1", "{alg:?}: White did not go for the draw");
                let (after, names) = play_turn_with(&c, &g, &BLACK_IS_BETTER, 400, 7);
                assert_eq!(names, ["La1", "Pa2"], "{alg:?}");
                assert!(after.repeats_earlier_position());
            } else {
                assert!(pa2.expanded, "{alg:?}: without two-fold draws Pa2 is evaluated");
                assert!((pa2.wdl[0] - 0.1).abs() < 0.2 && pa2.wdl[2] > 0.4, "{alg:?}: {:?}", pa2.wdl);
            }
        }
    }
}

#[test]
fn with_twofold_draws_a_repeated_root_is_searched_and_the_side_ahead_avoids_repeating() {
    // Black, ahead, to move in a position that occurred before: the root is
    // searched (only positions below it count as drawn), and Black keeps
    // away from the repetitions (draws) its king could make.
    let mut g = state(SHUFFLE_START);
    apply_names(&mut g, &format!("{SHUFFLE} La1 Pa2"));
    assert!(g.repeats_earlier_position());
    let c = SearchConfig { twofold_draws: true, gumbel_noise: false, ..cfg(Algorithm::Puct) };
    let (after, names) = play_turn_with(&c, &g, &BLACK_IS_BETTER, 400, 3);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(!after.repeats_earlier_position(), "Black, ahead, played into a repetition: {names:?}");
}

#[test]
fn contempt_makes_the_searching_side_play_on_instead_of_taking_a_draw() {
    // White, slightly behind everywhere (-0.06), can complete a threefold
    // repetition with `La1 Pa2`: worth more than playing on at no contempt,
    // less at contempt 0.2 (a draw then costs White 0.2, playing on 0.08).
    let mut g = state(SHUFFLE_START);
    apply_names(&mut g, &format!("{SHUFFLE} {SHUFFLE}"));
    let mut drawn = g.clone();
    apply_names(&mut drawn, "La1 Pa2");
    assert_eq!(drawn.outcome(), Some(Outcome::Draw), "La1 Pa2 is the third occurrence");
    let slightly_behind = Constant { white: [0.42, 0.1, 0.48], black: [0.48, 0.1, 0.42] };
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        for contempt in [0.0, 0.2] {
            let c = SearchConfig { contempt, gumbel_noise: false, ..cfg(alg) };
            let (after, names) = play_turn_with(&c, &g, &slightly_behind, 400, 5);
            if contempt == 0.0 {
                assert_eq!(after.outcome(), Some(Outcome::Draw), "{alg:?}: {names:?} did not take the draw");
            } else {
                assert_eq!(after.outcome(), None, "{alg:?}: {names:?} took the draw at contempt {contempt}");
            }
        }
    }
}

/// A search driven by hand: the root's evaluation with the given priors.
fn root_expanded(priors_of: impl Fn(usize) -> Vec<f32>) -> (Search<GameState>, usize) {
    root_expanded_at(1.0, priors_of)
}

/// [`root_expanded`] with the policy temperature `t`.
fn root_expanded_at(t: f32, priors_of: impl Fn(usize) -> Vec<f32>) -> (Search<GameState>, usize) {
    let c = SearchConfig { c_puct: 2.5, dirichlet_epsilon: 0.0, policy_temperature: t, ..cfg(Algorithm::Puct) };
    let mut s = Search::new(c.clone(), GameState::new(Position::startpos()), false);
    assert_eq!(s.config(), &c);
    assert_eq!(s.tree_size(), 1, "the root alone");
    s.begin(8, false);
    assert!(s.run(&mut ChaCha8Rng::seed_from_u64(1)), "the root is evaluated first");
    let k = s.request().unwrap().legal.len();
    s.supply(&priors_of(k), [0.5, 0.3, 0.2]);
    assert_eq!(s.tree_size(), 1 + k, "the root and its children");
    (s, k)
}

#[test]
fn priors_that_are_not_a_distribution_are_cleaned_at_expansion() {
    let (mut s, k) = root_expanded(|k| {
        let mut p = vec![0.0; k];
        p[..5].copy_from_slice(&[f32::NAN, -1.0, 3.0, 1.0, f32::INFINITY]);
        p
    });
    let r = s.result();
    assert_eq!(r.priors[..5], [0.0, 0.0, 0.75, 0.25, 0.0], "NaN, negative and infinite priors count 0, the rest renormalised");
    assert!(r.priors[5..].iter().all(|&p| p == 0.0));
    // Nothing usable: uniform.
    let (mut s, _) = root_expanded(|k| vec![f32::NAN; k]);
    assert!(s.result().priors.iter().all(|&p| p == 1.0 / k as f32));
    let (mut s, _) = root_expanded(|k| vec![0.0; k]);
    assert!(s.result().priors.iter().all(|&p| p == 1.0 / k as f32));
}

/// The policy temperature flattens the priors as `p^(1/T)`, renormalised:
/// at T = 2 priors of 0.81, 0.09, 0.09 and 0.01 become 9, 3, 3 and 1
/// sixteenths; below 1 it sharpens them; the cleaning of bad priors holds.
#[test]
fn the_policy_temperature_flattens_the_priors_at_expansion() {
    let priors = |k: usize| {
        let mut p = vec![0.0; k];
        p[..4].copy_from_slice(&[0.81, 0.09, 0.09, 0.01]);
        p
    };
    let close = |got: &[f32], want: &[f32]| got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6);
    let (mut s, _) = root_expanded_at(2.0, priors);
    let r = s.result();
    assert!(close(&r.priors[..4], &[9.0 / 16.0, 3.0 / 16.0, 3.0 / 16.0, 1.0 / 16.0]), "T = 2: {:?}", &r.priors[..4]);
    assert!(r.priors[4..].iter().all(|&p| p == 0.0), "a zero prior stays zero");
    let (mut s, _) = root_expanded_at(1.0, priors);
    assert!(close(&s.result().priors[..4], &[0.81, 0.09, 0.09, 0.01]), "T = 1 leaves them");
    let (mut s, _) = root_expanded_at(0.5, priors);
    let sharp: Vec<f32> = [0.81f32, 0.09, 0.09, 0.01].iter().map(|p| p * p / 0.6724).collect();
    assert!(close(&s.result().priors[..4], &sharp), "T = 0.5 squares them");
    let (mut s, k) = root_expanded_at(2.0, |k| vec![f32::NAN; k]);
    assert!(s.result().priors.iter().all(|&p| p == 1.0 / k as f32), "nothing usable: uniform");
}

#[test]
fn a_passed_deadline_stops_the_search_before_its_next_simulation() {
    let ev = UniformEvaluator;
    let mut out = EvalOutput::default();
    let run = |deadline: Option<std::time::Instant>, out: &mut EvalOutput| {
        let mut s = Search::new(cfg(Algorithm::Puct), GameState::new(Position::startpos()), false);
        s.begin(50, false);
        s.set_deadline(deadline);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        while s.run(&mut rng) {
            pacozero_search::evaluate_pending(&mut [&mut s], &ev, out).unwrap();
        }
        s.result().simulations
    };
    let past = std::time::Instant::now() - std::time::Duration::from_secs(1);
    assert_eq!(run(Some(past), &mut out), 0, "only the root's own evaluation");
    assert_eq!(run(None, &mut out), 50);
    let later = std::time::Instant::now() + std::time::Duration::from_secs(600);
    assert_eq!(run(Some(later), &mut out), 50);
}

/// The counters the UCI engine reports (nodes and depth) come from:
/// simulations, and nodes touched from the root to each leaf.
#[test]
fn the_counters_count_simulations_and_the_nodes_each_one_touches() {
    // A won position without win detection: most simulations end on the
    // terminal win one step below the root.
    let g = state(DIRECT_WIN);
    let mut s = Search::new(cfg(Algorithm::Puct), g, false);
    s.begin(200, false);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut out = EvalOutput::default();
    while s.run(&mut rng) {
        pacozero_search::evaluate_pending(&mut [&mut s], &UniformEvaluator, &mut out).unwrap();
    }
    assert_eq!(s.total_simulations, 200);
    // Every simulation touches the root and at least one child, and none
    // goes 30 turns deep in 200 simulations.
    assert!((2 * 200..=30 * 200).contains(&s.node_visits), "{} node visits", s.node_visits);
}

/// With win detection, a position whose mover can unite with the king this
/// turn is a decided leaf: every visit to it counts a loss for the side that
/// allowed it, from the first (no evaluation in between).
#[test]
fn win_detection_scores_a_position_the_mover_wins_this_turn_as_won() {
    // White's lone king on the rook's rank: most king moves stay in reach.
    let root = state("4k3/8/8/8/8/8/8/r3K3 w 0 - - -");
    let c = SearchConfig { win_detection: true, ..cfg(Algorithm::Puct) };
    let mut s = Search::new(c, root.clone(), false);
    s.begin(300, false);
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut out = EvalOutput::default();
    while s.run(&mut rng) {
        pacozero_search::evaluate_pending(&mut [&mut s], &UniformEvaluator, &mut out).unwrap();
    }
    let mut legal = Vec::new();
    root.playable_actions(&mut legal);
    assert_eq!(legal.len(), 1, "the king's lift");
    let lifted = {
        let mut g = root.clone();
        g.apply(legal[0]);
        g
    };
    let mut decided = 0;
    for child in s.children_at(&[legal[0]]).expect("the lift is expanded") {
        let mut g = lifted.clone();
        g.apply(child.action);
        if child.visits > 0 && g.to_move() == Color::Black && g.can_win_this_turn() {
            assert_eq!(child.wdl, [0.0, 0.0, 1.0], "{}: {child:?}", lifted.action_name(child.action));
            decided += 1;
        }
    }
    assert!(decided > 0, "no visited place leaves the king in reach");
}

/// One evaluator call for several searches: each gets its own result.
#[test]
fn a_shared_call_hands_each_search_its_own_evaluation() {
    let ev = Constant { white: [0.7, 0.2, 0.1], black: [0.3, 0.3, 0.4] };
    let start = GameState::new(Position::startpos());
    let mut after = start.clone();
    apply_names(&mut after, "Le2 Pe4");
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let (mut a, mut b, mut c) = (
        Search::new(cfg(Algorithm::Puct), start.clone(), false),
        Search::new(cfg(Algorithm::Puct), after, false),
        Search::new(cfg(Algorithm::Puct), start, false),
    );
    for s in [&mut a, &mut b, &mut c] {
        s.begin(4, false);
        assert!(s.run(&mut rng));
    }
    let mut out = EvalOutput::default();
    assert_eq!(pacozero_search::evaluate_pending(&mut [&mut a, &mut b, &mut c], &ev, &mut out).unwrap(), 3);
    assert_eq!(pacozero_search::evaluate_pending(&mut [&mut a, &mut b, &mut c], &ev, &mut out).unwrap(), 0, "nothing waiting");
    assert_eq!((a.result().root_wdl, b.result().root_wdl, c.result().root_wdl), ([0.7, 0.2, 0.1], [0.3, 0.3, 0.4], [0.7, 0.2, 0.1]));

    /// Answers one request too few.
    struct Short;
    impl Evaluator<GameState> for Short {
        fn name(&self) -> String {
            "short".into()
        }
        fn needs_encoding(&self) -> bool {
            false
        }
        fn evaluate(&self, batch: &[EvalRequest<'_, GameState>], out: &mut EvalOutput) -> anyhow::Result<()> {
            out.reset(&batch[1..]);
            Ok(())
        }
    }
    let mut s = Search::new(cfg(Algorithm::Puct), GameState::new(Position::startpos()), false);
    let mut t = Search::new(cfg(Algorithm::Puct), GameState::new(Position::startpos()), false);
    for x in [&mut s, &mut t] {
        x.begin(4, false);
        assert!(x.run(&mut rng));
    }
    let e = pacozero_search::evaluate_pending(&mut [&mut s, &mut t], &Short, &mut out).unwrap_err().to_string();
    assert_eq!(e, "evaluator returned 1 results for 2 requests");
    // The right number of values but not of prior ranges: refused too.
    struct NoPriors;
    impl Evaluator<GameState> for NoPriors {
        fn name(&self) -> String {
            "no-priors".into()
        }
        fn needs_encoding(&self) -> bool {
            false
        }
        fn evaluate(&self, batch: &[EvalRequest<'_, GameState>], out: &mut EvalOutput) -> anyhow::Result<()> {
            out.reset(batch);
            out.offsets.pop();
            Ok(())
        }
    }
    let e = pacozero_search::evaluate_pending(&mut [&mut s, &mut t], &NoPriors, &mut out).unwrap_err().to_string();
    assert_eq!(e, "evaluator returned 2 results for 2 requests");
}

/// Which subtree `advance` keeps: the played child's when it is expanded,
/// holds the position played into and has at most `REUSE_MAX_VISITS` times
/// the larger budget of visits; otherwise a new tree at the new position.
#[test]
fn advance_keeps_only_a_subtree_it_may_keep() {
    let start = GameState::new(Position::startpos());
    // 300 simulations over the start's ten lifts: 30 visits each.
    let searched_with = |full: u32, tree_reuse: bool| {
        let c = SearchConfig { full_simulations: full, cheap_simulations: 2, tree_reuse, ..cfg(Algorithm::Puct) };
        let mut s = Search::new(c, start.clone(), false);
        let mut out = EvalOutput::default();
        s.begin(300, false);
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        while s.run(&mut rng) {
            pacozero_search::evaluate_pending(&mut [&mut s], &UniformEvaluator, &mut out).unwrap();
        }
        let children = s.children_at(&[]).unwrap();
        assert!(children.len() > 2 && children.iter().all(|c| c.visits == 30 && c.expanded), "{children:?}");
        (s, children)
    };
    let searched = |full: u32| searched_with(full, true);
    let after = |a: u16| {
        let mut g = start.clone();
        g.apply(a);
        g
    };
    // Budget 8: subtrees of up to 32 visits are kept (the last child: others
    // before it are expanded too).
    let (mut s, children) = searched(8);
    let last = children.last().unwrap();
    s.advance(last.action, &after(last.action));
    assert_eq!((s.root_visits(), s.root_state().hash()), (30, after(last.action).hash()), "kept");
    assert!(s.tree_size() > 1);
    // Budget 7: up to 28, so a new tree.
    let (mut s, _) = searched(7);
    s.advance(last.action, &after(last.action));
    assert_eq!((s.root_visits(), s.tree_size()), (0, 1), "over the limit: dropped");
    assert_eq!(s.root_state().hash(), after(last.action).hash());
    // A position other than the child's (the caller's game went elsewhere): a new tree there.
    let (mut s, _) = searched(8);
    let other = after(children[0].action);
    s.advance(last.action, &other);
    assert_eq!((s.root_visits(), s.tree_size(), s.root_state().hash()), (0, 1, other.hash()));
    // Without tree reuse: a new tree every time.
    let (mut s, _) = searched_with(8, false);
    s.advance(last.action, &after(last.action));
    assert_eq!((s.root_visits(), s.tree_size()), (0, 1), "no reuse");
}
