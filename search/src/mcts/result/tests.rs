use super::*;
use crate::eval::{EvalRequest, UniformEvaluator};
use pacozero_engine::paco::{GameState, Position};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn sample() -> SearchResult {
    SearchResult {
        legal: vec![10, 20, 30],
        policy: vec![0.5, 0.3, 0.2],
        priors: vec![1.0 / 3.0; 3],
        visits: vec![1, 2, 7],
        q: vec![0.0; 3],
        action: 30,
        root_q: 0.0,
        root_wdl: [0.0, 1.0, 0.0],
        simulations: 10,
        proof: None,
    }
}

/// How often each legal action is chosen in 20,000 draws.
fn shares(r: &SearchResult, alg: Algorithm, t: f32) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let mut n = [0usize; 3];
    for _ in 0..20_000 {
        let a = r.choose(alg, t, &mut rng);
        n[r.index_of(a).unwrap()] += 1;
    }
    n.iter().map(|&k| k as f64 / 20_000.0).collect()
}

fn near(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 0.015)
}

#[test]
fn choosing_samples_visits_or_the_policy_at_a_temperature() {
    let r = sample();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    assert_eq!(r.choose(Algorithm::Puct, 0.0, &mut rng), 30, "no temperature: the search's choice");
    assert_eq!(r.choose(Algorithm::Puct, 1e-7, &mut rng), 30);
    let s = shares(&r, Algorithm::Puct, 1.0);
    assert!(near(&s, &[0.1, 0.2, 0.7]), "{s:?}");
    // t = 0.5: visits squared, 1 : 4 : 49.
    let s = shares(&r, Algorithm::Puct, 0.5);
    assert!(near(&s, &[1.0 / 54.0, 4.0 / 54.0, 49.0 / 54.0]), "{s:?}");
    let s = shares(&r, Algorithm::Gumbel, 1.0);
    assert!(near(&s, &[0.5, 0.3, 0.2]), "{s:?}");
    // t = 0.5: the policy squared, 25 : 9 : 4.
    let s = shares(&r, Algorithm::Gumbel, 0.5);
    assert!(near(&s, &[25.0 / 38.0, 9.0 / 38.0, 4.0 / 38.0]), "{s:?}");
    // No temperature is the search's choice even where the visits
    // raised to a huge power stay finite (1 and 0).
    let flat = SearchResult { visits: vec![1, 1, 0], ..sample() };
    assert_eq!(shares(&flat, Algorithm::Puct, 0.0), [0.0, 0.0, 1.0]);
    // Nothing to weigh: the search's choice.
    let none = SearchResult { visits: vec![0; 3], ..sample() };
    assert_eq!(shares(&none, Algorithm::Puct, 1.0), [0.0, 0.0, 1.0]);
    let one = SearchResult { legal: vec![20], visits: vec![3], policy: vec![1.0], action: 20, ..sample() };
    assert_eq!(one.choose(Algorithm::Puct, 1.0, &mut rng), 20);
}

/// Uniform priors and a value that differs from position to position.
struct Hashed;

impl Evaluator<GameState> for Hashed {
    fn name(&self) -> String {
        "hashed".into()
    }
    fn needs_encoding(&self) -> bool {
        false
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, GameState>], out: &mut EvalOutput) -> Result<()> {
        out.reset(batch);
        for (i, r) in batch.iter().enumerate() {
            out.priors_of_mut(i).fill(1.0 / r.legal.len() as f32);
            let w = (r.state.hash() % 61) as f32 / 100.0;
            out.wdl[i] = [w, 0.2, 0.8 - w];
        }
        Ok(())
    }
}

fn searched(alg: Algorithm, sims: u32) -> (Search<GameState>, SearchResult) {
    let cfg = SearchConfig { algorithm: alg, dirichlet_epsilon: 0.0, gumbel_noise: false, win_detection: false, ..SearchConfig::default() };
    let mut s = Search::new(cfg, GameState::new(Position::startpos()), false);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let r = s.search_until(&Hashed, sims, None, false, &mut rng).unwrap();
    (s, r)
}

/// The result against the tree it reads (`children_at`).
#[test]
fn a_puct_result_is_the_visit_distribution_and_the_most_visited_best_valued_child() {
    for sims in [5, 40, 300] {
        let (s, r) = searched(Algorithm::Puct, sims);
        let children = s.children_at(&[]).unwrap();
        let total: u32 = r.visits.iter().sum();
        assert_eq!(total, sims);
        for (k, c) in children.iter().enumerate() {
            assert_eq!((r.legal[k], r.visits[k]), (c.action, c.visits));
            assert!((r.policy[k] - c.visits as f32 / total as f32).abs() < 1e-6);
            if c.visits > 0 {
                assert!((r.q[k] - (c.wdl[0] - c.wdl[2])).abs() < 1e-5, "{k}: {} vs {:?}", r.q[k], c.wdl);
            } else {
                assert!(r.q[k].is_nan());
                assert_eq!(c.wdl, [0.0; 3], "an unvisited child has no values");
            }
        }
        // The most visited, the best valued of those, the first of equals.
        let most = *r.visits.iter().max().unwrap();
        let best_q = (0..r.legal.len()).filter(|&k| r.visits[k] == most).map(|k| r.q[k]).fold(f32::NEG_INFINITY, f32::max);
        let expected = (0..r.legal.len()).find(|&k| r.visits[k] == most && r.q[k] == best_q).unwrap();
        assert_eq!(r.action, r.legal[expected], "{sims} simulations: {:?} {:?}", r.visits, r.q);
        // The root's (win, draw, loss): the mean over its visits, its own included.
        let root_n = sims + 1;
        let mut mean = [0f32; 3];
        mean[0] = (0.01 * (s.root_state().hash() % 61) as f32) / root_n as f32;
        for c in &children {
            for (m, w) in mean.iter_mut().zip(c.wdl) {
                *m += w * c.visits as f32 / root_n as f32;
            }
        }
        let own = (s.root_state().hash() % 61) as f32 / 100.0;
        let expected_wdl = [mean[0], mean[1] + 0.2 / root_n as f32, mean[2] + (0.8 - own) / root_n as f32];
        for j in 0..3 {
            assert!((r.root_wdl[j] - expected_wdl[j]).abs() < 1e-4, "{:?} vs {expected_wdl:?}", r.root_wdl);
        }
        assert!((r.root_q - (r.root_wdl[0] - r.root_wdl[2])).abs() < 1e-6);
        assert_eq!(r.simulations, sims);
    }
}

/// Children 0, 1 and 2 of a searched tree set to equal top visits.
fn tied(q: [f32; 3]) -> Search<GameState> {
    let (mut s, _) = searched(Algorithm::Puct, 40);
    let range = s.children(0);
    let top = range.clone().map(|i| s.nodes[i].n).max().unwrap() + 1;
    for (k, i) in range.take(3).enumerate() {
        let n = &mut s.nodes[i];
        n.n = top;
        // White to move at the root: the mover's q is White's value.
        n.wdl = [(1.0 + q[k]) / 2.0 * top as f32, 0.0, (1.0 - q[k]) / 2.0 * top as f32];
    }
    s
}

#[test]
fn equal_top_visits_go_to_the_best_value_then_to_the_first() {
    let mut s = tied([0.1, 0.5, 0.5]);
    let r = s.result();
    assert_eq!(r.action, r.legal[1], "{:?} {:?}", r.visits, r.q);
    let mut s = tied([0.2, 0.2, -0.3]);
    let r = s.result();
    assert_eq!(r.action, r.legal[0], "{:?} {:?}", r.visits, r.q);
}

#[test]
fn a_result_before_any_simulation_is_the_prior_and_the_first_action() {
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        // Nothing evaluated yet: no actions, an even root.
        let cfg = SearchConfig { algorithm: alg, ..SearchConfig::default() };
        let mut fresh = Search::new(cfg.clone(), GameState::new(Position::startpos()), false);
        let r = fresh.result();
        assert!(r.legal.is_empty() && r.policy.is_empty(), "{alg:?}");
        assert_eq!((r.root_wdl, r.action), ([0.0, 1.0, 0.0], 0), "{alg:?}");
        // A passed deadline: the root is evaluated and expanded, no child visited.
        let mut s = Search::new(cfg, GameState::new(Position::startpos()), false);
        let past = std::time::Instant::now();
        let r = s.search_until(&Hashed, 100, Some(past), false, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        assert_eq!(r.simulations, 0, "{alg:?}");
        assert!(r.visits.iter().all(|&n| n == 0) && r.q.iter().all(|q| q.is_nan()), "{alg:?}");
        let own = (s.root_state().hash() % 61) as f32 / 100.0;
        let expected = [own, 0.2, 0.8 - own];
        assert!(r.root_wdl.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-6), "{alg:?}: {:?} vs {expected:?}", r.root_wdl);
        if alg == Algorithm::Puct {
            assert_eq!(r.policy, r.priors, "no visits: the priors are the target");
            assert_eq!(r.action, r.legal[0], "no visits: the first action");
        }
    }
}

#[test]
fn gumbel_plays_the_most_visited_considered_action_of_the_highest_logit_plus_noise() {
    let cfg = SearchConfig { algorithm: Algorithm::Gumbel, dirichlet_epsilon: 0.0, gumbel_noise: true, win_detection: false, ..SearchConfig::default() };
    let (mut ties, mut fewer) = (0, 0);
    for sims in [31, 32, 40, 41] {
        let mut s = Search::new(cfg.clone(), GameState::new(Position::startpos()), false);
        s.search_until(&Hashed, sims, None, true, &mut ChaCha8Rng::seed_from_u64(4)).unwrap();
        let considered = s.considered.clone();
        assert!(considered.len() >= 2, "{considered:?}");
        let visits = s.result().visits;
        let most = considered.iter().map(|&k| visits[k as usize]).max().unwrap();
        let top: Vec<u32> = considered.iter().copied().filter(|&k| visits[k as usize] == most).collect();
        ties += usize::from(top.len() > 1);
        for &k in &considered {
            s.gumbel.iter_mut().for_each(|g| *g = 0.0);
            s.gumbel[k as usize] = 100.0;
            let r = s.result();
            if top.contains(&k) {
                assert_eq!(r.action, r.legal[k as usize], "{sims}: noise 100 on most visited considered action {k}");
            } else {
                // Fewer visits: never played, whatever its noise.
                fewer += 1;
                assert_ne!(r.action, r.legal[k as usize], "{sims}: noise 100 on considered action {k} of fewer visits {visits:?}");
            }
            if top.len() > 1 {
                s.gumbel[k as usize] = -100.0;
                assert_ne!(s.result().action, r.legal[k as usize], "{sims}: noise -100 on considered action {k}");
            }
        }
    }
    assert!(ties > 0 && fewer > 0, "{ties} searches ending in a tie, {fewer} less visited considered actions");
}

#[test]
fn a_cheap_gumbel_search_plays_only_a_most_visited_considered_move() {
    // 8 simulations over more considered moves (the start's lifts): the
    // first halving phase is cut short, and some are never visited.
    let (mut s, r) = searched(Algorithm::Gumbel, 8);
    let visited: Vec<usize> = s.considered.iter().map(|&k| k as usize).filter(|&k| r.visits[k] > 0).collect();
    let unvisited: Vec<usize> = s.considered.iter().map(|&k| k as usize).filter(|&k| r.visits[k] == 0).collect();
    assert!(s.considered.len() > 8 && visited.len() == 8 && !unvisited.is_empty(), "{:?} {:?}", s.considered, r.visits);
    assert!(visited.contains(&r.index_of(r.action).unwrap()));
    // An unvisited move with the best prior (and noise) by far: its
    // completed Q is the mixed value, and mctx never plays it.
    let first = s.nodes[0].first_child as usize;
    for &k in &unvisited {
        s.nodes.iter_mut().skip(first).take(r.legal.len()).for_each(|n| n.prior = 0.01);
        s.nodes[first + k].prior = 0.9;
        s.gumbel.iter_mut().for_each(|g| *g = 0.0);
        s.gumbel[k] = 50.0;
        let again = s.result();
        let played = again.index_of(again.action).unwrap();
        assert!(visited.contains(&played), "played {played}, unvisited {k}: {:?}", again.visits);
        assert!(again.policy[k] > again.policy[played], "the target still prefers the prior: {:?}", again.policy);
    }
}

#[test]
fn a_gumbel_result_with_unvisited_children_averages_over_the_visited_ones() {
    let (s, r) = searched(Algorithm::Gumbel, 4);
    let children = s.children_at(&[]).unwrap();
    assert!(children.iter().any(|c| c.visits == 0) && children.iter().any(|c| c.visits > 0));
    let (mut acc, mut mass) = ([0f32; 3], 0f32);
    for (k, c) in children.iter().enumerate().filter(|(_, c)| c.visits > 0) {
        for (a, w) in acc.iter_mut().zip(c.wdl) {
            *a += r.policy[k] * w;
        }
        mass += r.policy[k];
    }
    assert!(mass < 0.99, "{mass}");
    for j in 0..3 {
        assert!((r.root_wdl[j] - acc[j] / mass).abs() < 1e-5, "{:?} vs {:?}", r.root_wdl, acc.map(|x| x / mass));
    }
}

#[test]
fn a_gumbel_result_values_the_root_by_its_improved_policy() {
    let (s, r) = searched(Algorithm::Gumbel, 64);
    let children = s.children_at(&[]).unwrap();
    let (mut acc, mut mass) = ([0f32; 3], 0f32);
    for (k, c) in children.iter().enumerate() {
        if c.visits > 0 {
            for (a, w) in acc.iter_mut().zip(c.wdl) {
                *a += r.policy[k] * w;
            }
            mass += r.policy[k];
        }
    }
    for j in 0..3 {
        assert!((r.root_wdl[j] - acc[j] / mass).abs() < 1e-5, "{:?} vs {:?}", r.root_wdl, acc.map(|x| x / mass));
    }
    assert!((r.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    // Played: the best by the improved policy of the actions that
    // survived sequential halving (the most visited ones).
    let k = r.index_of(r.action).unwrap();
    let most = *r.visits.iter().max().unwrap();
    assert_eq!(r.visits[k], most, "{:?}", r.visits);
    assert!((0..r.legal.len()).filter(|&i| r.visits[i] == most).all(|i| r.policy[i] <= r.policy[k]), "{:?} {:?}", r.policy, r.visits);
}

/// The fewest decisions to the win from `g` (its mover winning this
/// turn), by trying every line of up to `depth` decisions.
fn shortest_win(g: &GameState, depth: usize) -> Option<usize> {
    if g.outcome() == Some(Outcome::Win(Color::White)) {
        return Some(0);
    }
    if depth == 0 || g.outcome().is_some() || g.to_move() != Color::White {
        return None;
    }
    let mut legal = Vec::new();
    g.playable_actions(&mut legal);
    legal
        .iter()
        .filter_map(|&a| {
            let mut next = g.clone();
            next.apply(a);
            shortest_win(&next, depth - 1).map(|d| d + 1)
        })
        .min()
}

#[test]
fn winning_actions_are_the_first_steps_of_the_shortest_wins() {
    // White to move: a direct union with the king, one through a chain,
    // and both (only the direct one is shortest); at 99 half-moves
    // without progress, where every other turn ends in a draw.
    for fen in [
        "4k3/8/8/8/8/8/8/4RK2 w 0 - - -",
        "8/8/4k3/8/R2d4/8/4R3/4K3 w 99 - - -",
        "8/8/4k3/8/R2d4/8/8/4K3 w 0 - - -",
        "8/8/4k3/8/R2d4/8/4R3/4K3 w 0 - - -",
        "rn3b1r/3kppp1/ppp2n2/2Np1E2/2P1F1P1/1P2B2p/P1Q1P2P/R2K1BNR w 8 - - -",
    ] {
        let g = GameState::new(fen.parse().unwrap());
        let mut legal = Vec::new();
        g.playable_actions(&mut legal);
        let best = shortest_win(&g, 4).unwrap_or_else(|| panic!("{fen}: no win in 4 decisions"));
        let expected: Vec<u16> = legal
            .iter()
            .copied()
            .filter(|&a| {
                let mut next = g.clone();
                next.apply(a);
                shortest_win(&next, best - 1) == Some(best - 1)
            })
            .collect();
        assert_eq!(winning_actions(&g, &legal), expected, "{fen}");
    }
}

#[test]
fn a_forced_win_spreads_its_target_over_the_winning_actions() {
    let r = forced_win_result(&[1, 3, 5, 7], &[3, 7], 1);
    assert_eq!(r.policy, [0.0, 0.5, 0.0, 0.5]);
    assert_eq!((r.action, r.root_q, r.root_wdl, r.simulations), (3, 1.0, [1.0, 0.0, 0.0], 0));
    assert!(r.q[1] == 1.0 && r.q[0].is_nan());
    // A root that is a detected win answers so without a simulation.
    let cfg = SearchConfig { win_detection: true, ..SearchConfig::default() };
    let mut s = Search::new(cfg, GameState::new("4k3/8/8/8/8/8/8/4RK2 w 0 - - -".parse().unwrap()), false);
    let r = s.search_until(&UniformEvaluator, 50, None, false, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
    assert!(s.root_is_detected_win() && r.simulations == 0 && r.root_q == 1.0);
}
