//! Shako's mate in one in the search: with win detection a root whose mover
//! can mate is answered at once, and the generic `winning_actions` (a
//! breadth-first search over the decisions of the turn; a Shako turn is one
//! decision) lists exactly the mating moves: the policy target spreads over
//! them and the search plays one. Positions: the five mates in one of the
//! Fairy-Stockfish records (`engine/tests/data/shako/`) and hand-made ones
//! that Fairy-Stockfish scores `mate 1` (`engine/tests/shako/mate.rs`).

use pacozero_engine::prelude::*;
use pacozero_engine::shako::GameState;
use pacozero_engine::Outcome;
use pacozero_search::{search, Algorithm, SearchConfig, UniformEvaluator};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// (position, its mating moves in UCI).
const MATES: [(&str, &[&str]); 8] = [
    ("5n3e/3b4R1/3kn2b2/P6P2/9p/2P7/5q4/10/4K2p2/1r8 b - - 0 46", &["d9a6"]),
    ("9r/2n5ke/2C2p4/2e7/5P4/P9/1P2Eb3P/1B8/1R3KN2E/7Q1C w - - 3 39", &["h1h8", "h1h9"]),
    ("4QB2r1/2k7/6pp2/1p7e/8p1/1C1p6/5P1E2/6K1P1/E5BN2/1R2R5 w - - 6 43", &["b1c1", "e1c1"]),
    ("cr8/e1n3rk2/p2p2p1pb/4p2p2/b1K1P5/P1p6q/1P2Pp4/1R8/E1N4N2/10 b - - 1 28", &["a6b5"]),
    ("10/2n2k3e/10/1p8/1q3P1p1p/7P2/10/BR7N/E1N7/4RKb3 b - - 0 37", &["b6f2"]),
    ("5k4/10/5K4/10/10/10/10/10/10/R9 w - - 0 1", &["a1a10"]),
    ("2N2k4/10/5K4/10/10/10/10/10/10/C9 w - - 0 1", &["a1a10"]),
    ("5k4/9P/5K4/10/10/10/10/10/10/10 w - - 0 1", &["j9j10q", "j9j10r"]),
];

fn config(algorithm: Algorithm, win_detection: bool) -> SearchConfig {
    SearchConfig { algorithm, win_detection, dirichlet_epsilon: 0.0, gumbel_noise: false, ..SearchConfig::default() }
}

#[test]
fn a_mate_in_one_is_answered_at_once_with_the_mating_moves() {
    let mut rng = ChaCha8Rng::seed_from_u64(60);
    for (fen, mates) in MATES {
        let g = GameState::from_fen(fen).unwrap();
        assert!(g.can_win_this_turn(), "{fen}");
        let mut want: Vec<String> = mates.iter().map(|s| s.to_string()).collect();
        want.sort();
        for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
            let r = search(&config(algorithm, true), &g, &UniformEvaluator, 64, false, &mut rng).unwrap();
            assert_eq!(r.simulations, 0, "{fen}: answered without a simulation");
            let mut target: Vec<String> = r.legal.iter().zip(&r.policy).filter(|(_, &p)| p > 0.0).map(|(&a, _)| g.action_name(a)).collect();
            target.sort();
            assert_eq!(target, want, "{fen} ({algorithm:?}): the policy target is on the mating moves");
            let total: f32 = r.policy.iter().sum();
            assert!((total - 1.0).abs() < 1e-5, "{fen}: policy sums to {total}");
            let mut after = g.clone();
            after.apply(r.action);
            assert_eq!(after.outcome(), Some(Outcome::Win(g.to_move())), "{fen} ({algorithm:?}): {} does not mate", g.action_name(r.action));
        }
    }
}

/// Without a mate on the board (the king walks out of Ra10+), or with win
/// detection off, the search simulates. The position is a mate in two,
/// which the root's two-turn search answers at once when it is on.
#[test]
fn without_a_mate_or_detection_the_search_simulates() {
    let mut rng = ChaCha8Rng::seed_from_u64(61);
    let escape = GameState::from_fen("5k4/10/4K5/10/10/10/10/10/10/R9 w - - 0 1").unwrap();
    assert!(!escape.can_win_this_turn());
    let one_turn = SearchConfig { root_win_in_two: false, ..config(Algorithm::Puct, true) };
    let r = search(&one_turn, &escape, &UniformEvaluator, 32, false, &mut rng).unwrap();
    assert!(r.simulations > 0);
    let r = search(&config(Algorithm::Puct, true), &escape, &UniformEvaluator, 32, false, &mut rng).unwrap();
    assert_eq!((r.simulations, r.proof.and_then(|p| p.uci_mate())), (0, Some(2)));
    let mate = GameState::from_fen(MATES[5].0).unwrap();
    let r = search(&config(Algorithm::Puct, false), &mate, &UniformEvaluator, 32, false, &mut rng).unwrap();
    assert!(r.simulations > 0);
}

/// The root's two-turn search also answers a root that a previous search
/// left expanded (tree reuse): after each Black move here that leaves White
/// a mate in two, the reused tree's search plays it without a simulation.
#[test]
fn a_reused_tree_answers_a_mate_in_two_at_once() {
    use pacozero_search::{two_turn_win, Search, TWO_TURN_BUDGET};
    let start = GameState::from_fen("9k/10/7K2/10/10/10/10/10/R9/10 b - - 0 1").unwrap();
    let mut legal = Vec::new();
    start.playable_actions(&mut legal);
    let mut answered = 0;
    for (k, &a) in legal.iter().enumerate() {
        let mut after = start.clone();
        after.apply(a);
        if two_turn_win(&after, TWO_TURN_BUDGET).is_none() {
            continue;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(k as u64);
        let mut s = Search::new(config(Algorithm::Puct, true), start.clone(), false);
        // Few simulations: the move's subtree is expanded but not proven.
        s.search_until(&UniformEvaluator, 12, None, false, &mut rng).unwrap();
        s.advance(a, &after);
        assert!(s.children_at(&[]).is_some() && s.root_proof().is_none(), "{}: the subtree of the move is kept, unproven", start.action_name(a));
        let r = s.search_until(&UniformEvaluator, 400, None, false, &mut rng).unwrap();
        assert_eq!((r.simulations, r.proof.and_then(|p| p.uci_mate())), (0, Some(2)), "after {}", start.action_name(a));
        assert!(s.root_two_turn_win().is_some());
        answered += 1;
    }
    assert!(answered > 0, "some Black move leaves a mate in two");
}

/// With `reply_win_in_two`, a root move after which the opponent mates in
/// two is proven lost as soon as the search visits it, exactly the moves
/// that the separate two-turn search says so of (it is checked against
/// exhaustive search in `solver.rs`), and the search plays another. Here
/// one of Black's six moves (a knight move: the knight on a3 holds the
/// rook on a2 back) leaves White a mate in two, the others do not. Off,
/// the same visits prove no unexpanded move lost.
#[test]
fn a_move_that_allows_a_mate_in_two_is_proven_lost_and_avoided() {
    use pacozero_search::{two_turn_win, Search, TWO_TURN_BUDGET};
    let start = GameState::from_fen("9k/10/7K2/10/10/10/10/n9/R9/10 b - - 0 1").unwrap();
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let (mut lost, mut safe) = (0, 0);
        for on in [true, false] {
            let cfg = SearchConfig { reply_win_in_two: on, ..config(algorithm, true) };
            let mut s = Search::new(cfg, start.clone(), false);
            let r = s.search_until(&UniformEvaluator, 200, None, false, &mut ChaCha8Rng::seed_from_u64(62)).unwrap();
            for c in s.children_at(&[]).unwrap() {
                let mut after = start.clone();
                after.apply(c.action);
                let mated = two_turn_win(&after, TWO_TURN_BUDGET).is_some();
                let proven = c.proof.is_some_and(|p| p.is_loss() && p.turns == 4);
                if on && c.visits > 0 {
                    assert_eq!(proven, mated, "{algorithm:?}: {} proven lost in two: {proven}", start.action_name(c.action));
                    lost += usize::from(mated);
                    safe += usize::from(!mated);
                }
                if !on {
                    assert!(!proven || c.expanded, "{algorithm:?}: off, an unexpanded {} is not proven", start.action_name(c.action));
                }
            }
            if on {
                let mut after = start.clone();
                after.apply(r.action);
                let mated = after.can_win_this_turn() || two_turn_win(&after, TWO_TURN_BUDGET).is_some();
                assert!(!mated, "{algorithm:?}: played {}, which allows a mate", start.action_name(r.action));
            }
        }
        assert!(lost > 0 && safe > 0, "{algorithm:?}: {lost} moves lost, {safe} safe");
    }
}
