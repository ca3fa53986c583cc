//! Search and self-play on a toy game with two-decision turns (Nim,
//! `pacozero_testkit::nim`): search handles multi-decision turns (value
//! signs) and self-play is generic over the game.

use pacozero_engine::prelude::*;
use pacozero_engine::Color;
use pacozero_search::{search, Algorithm, Search, SearchConfig, UniformEvaluator};
use pacozero_selfplay::{play_game, SelfplayConfig};
use pacozero_testkit::nim::{nim, Nim};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn search_plays_nim_perfectly_with_two_decision_turns() {
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        let cfg = SearchConfig { algorithm: alg, ..SearchConfig::default() };
        for n in 1..=9u8 {
            let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
            let g = nim(n);
            let r = search(&cfg, &g, &UniformEvaluator, 800, false, &mut rng).unwrap();
            if n % 4 == 0 {
                assert!(r.root_q < -0.2, "{alg:?} n={n}: lost position has root_q {}", r.root_q);
                continue;
            }
            assert!(r.root_q > 0.2, "{alg:?} n={n}: won position has root_q {}", r.root_q);
            // Play the whole turn by search: it must leave a multiple of 4 (or win).
            let mut g = g;
            while g.to_move() == Color::White && g.winner.is_none() {
                let r = search(&cfg, &g, &UniformEvaluator, 800, false, &mut rng).unwrap();
                g.apply(r.action);
            }
            assert!(g.winner == Some(Color::White) || g.stones & 3 == 0, "{alg:?} n={n}: left {} stones", g.stones);
        }
    }
}

#[test]
fn a_kept_tree_starts_the_next_decision_with_the_played_subtree() {
    let cfg = SearchConfig { algorithm: Algorithm::Puct, dirichlet_epsilon: 0.0, tree_reuse: true, full_simulations: 4096, ..SearchConfig::default() };
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut g = nim(30);
    let mut s = Search::new(cfg.clone(), g.clone(), false);
    let first = s.search_until(&UniformEvaluator, 300, None, false, &mut rng).unwrap();
    assert_eq!(first.simulations, 300);
    let kept = first.visits[first.legal.iter().position(|&a| a == first.action).unwrap()];
    assert!(kept > 10, "the played decision was searched ({kept} visits)");
    g.apply(first.action);
    s.advance(first.action, &g);
    assert_eq!(s.root_visits(), kept, "the subtree is the new root, with its visits");
    let second = s.search_until(&UniformEvaluator, 100, None, false, &mut rng).unwrap();
    assert_eq!(second.simulations, 100);
    assert_eq!(s.root_visits(), kept + 100);
    // Without reuse the next search starts from nothing.
    let mut fresh = Search::new(SearchConfig { tree_reuse: false, ..cfg }, nim(30), false);
    let r = fresh.search_until(&UniformEvaluator, 300, None, false, &mut rng).unwrap();
    let mut h = nim(30);
    h.apply(r.action);
    fresh.advance(r.action, &h);
    assert_eq!(fresh.root_visits(), 0);
}

#[test]
fn a_timed_search_returns_on_time_in_a_decided_tree() {
    // Two stones: the mover wins at once with every turn, so after the first
    // expansions every simulation ends in a known result and needs no
    // evaluation; the deadline must still stop a budget of a million.
    let cfg = SearchConfig { algorithm: Algorithm::Puct, dirichlet_epsilon: 0.0, win_detection: false, ..SearchConfig::default() };
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let start = std::time::Instant::now();
    let deadline = start + std::time::Duration::from_millis(20);
    let r = Search::new(cfg, nim(2), false).search_until(&UniformEvaluator, 1_000_000_000, Some(deadline), false, &mut rng).unwrap();
    assert!(r.simulations < 1_000_000_000);
    assert!(start.elapsed() < std::time::Duration::from_secs(2), "stopped at the deadline, not after the budget");
}

#[test]
fn selfplay_is_generic_over_the_game() {
    // No resignation: the solver proves the loser's positions lost (a
    // root value of -1), and these games are played to the last stone.
    let cfg = SelfplayConfig {
        threads: 1,
        full_search_fraction: 1.0,
        no_resign_fraction: 1.0,
        search: SearchConfig { full_simulations: 200, ..SearchConfig::default() },
        ..SelfplayConfig::default()
    };
    // Starting from 10 (10 % 4 == 2), White wins with perfect play.
    let rec = play_game::<Nim, _>(&cfg, &UniformEvaluator, 0, None).unwrap();
    assert_eq!(rec.winner, Some(Color::White), "{}", rec.game.actions);
    assert_eq!(rec.game.result, "1-0");
    let dir = tempfile::tempdir().unwrap();
    let s = pacozero_selfplay::run_selfplay::<Nim, _>(&cfg, &UniformEvaluator, dir.path(), 3, false).unwrap();
    assert_eq!(s.games, 3);
    let chunks = pacozero_data::list_chunks(dir.path()).unwrap();
    let (spec, rows, games) = pacozero_data::read_chunk(&chunks[0]).unwrap();
    assert_eq!(spec.game, "nim");
    assert_eq!(games.len(), 3);
    // Values: the winner's rows have result 1, the loser's -1, and moves_left counts down.
    for g in &games {
        let ps: Vec<_> = rows.iter().filter(|p| p.game_id == g.game_id).collect();
        assert_eq!(ps.last().unwrap().result, 1, "the last decision takes the last stone");
        assert_eq!(ps.last().unwrap().moves_left, 0);
    }
}
