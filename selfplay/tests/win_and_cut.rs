//! Win detection in search (a sure win this turn is played at once, and seen
//! as won at leaves) and the scoring of games cut at their length cap
//! (material adjudication for Shako, always a draw for Paco Ŝako), which is
//! only recorded: a cut game's rows are truncated, no training target.

use pacozero_engine::paco::{self, GameState};
use pacozero_engine::prelude::*;
use pacozero_engine::{shako, Color, Outcome};
use pacozero_search::{search, Algorithm, GameLimits, SearchConfig, UniformEvaluator};
use pacozero_selfplay::{play_game, SelfplayConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Turn starts (settled positions) of random playouts where the mover can win this turn.
fn winnable_positions(n: usize) -> Vec<GameState> {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut found = Vec::new();
    let mut legal = Vec::new();
    for setup in 0.. {
        let mut g = GameState::new(paco::fischer_random(setup % 960, paco::Rules::OFFICIAL));
        while g.outcome().is_none() {
            if g.position().is_settled() && g.can_win_this_turn() {
                found.push(g.clone());
                if found.len() == n {
                    return found;
                }
                break;
            }
            g.playable_actions(&mut legal);
            g.apply(legal[rng.gen_range(0..legal.len())]);
        }
    }
    unreachable!()
}

#[test]
fn a_detected_win_is_played_at_once_and_wins_the_turn() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for alg in [Algorithm::Gumbel, Algorithm::Puct] {
        let cfg = SearchConfig { algorithm: alg, ..SearchConfig::default() };
        for start in winnable_positions(30) {
            let mover = start.to_move();
            let mut g = start.clone();
            // Each decision of the turn is a detected win, answered without simulations.
            while g.outcome().is_none() {
                assert_eq!(g.to_move(), mover, "the turn ended without the win: {}", start.notation());
                let r = search(&cfg, &g, &UniformEvaluator, 64, true, &mut rng).unwrap();
                assert_eq!((r.simulations, r.root_q), (0, 1.0));
                let i = r.index_of(r.action).unwrap();
                assert!(r.policy[i] > 0.0 && (r.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
                g.apply(r.action);
            }
            assert_eq!(g.outcome(), Some(Outcome::Win(mover)), "from {}", start.notation());
        }
    }
}

/// The fewest decisions from `g` to its mover's union with the king within
/// the turn (a breadth-first search over the turn's positions), `None` when
/// the mover cannot win this turn.
fn decisions_to_win(g: &GameState) -> Option<usize> {
    let mover = g.to_move();
    let mut seen = std::collections::HashSet::from([g.hash()]);
    let (mut level, mut depth, mut legal) = (vec![g.clone()], 0, Vec::new());
    while !level.is_empty() {
        depth += 1;
        let mut next_level = Vec::new();
        for s in &level {
            s.playable_actions(&mut legal);
            for &a in &legal {
                let mut n = s.clone();
                n.apply(a);
                if n.outcome() == Some(Outcome::Win(mover)) {
                    return Some(depth);
                }
                if n.outcome().is_none() && n.to_move() == mover && seen.insert(n.hash()) {
                    next_level.push(n);
                }
            }
        }
        level = next_level;
    }
    None
}

/// Plays the search's decisions from `start` while its mover moves; the
/// decisions it took and whether they won.
fn play_out_detected_win(start: &GameState, rng: &mut ChaCha8Rng) -> (usize, bool) {
    let (mover, mut g, mut decisions) = (start.to_move(), start.clone(), 0);
    while g.outcome().is_none() && g.to_move() == mover && decisions < 1000 {
        let r = search(&SearchConfig::default(), &g, &UniformEvaluator, 64, true, rng).unwrap();
        assert_eq!(r.simulations, 0, "a detected win is answered at once");
        g.apply(r.action);
        decisions += 1;
    }
    (decisions, g.outcome() == Some(Outcome::Win(mover)))
}

#[test]
fn a_detected_win_takes_the_fewest_decisions_and_cannot_loop() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    // From a quick-loop self-play game: White holds a bishop above f1 with the
    // union with Black's king in reach, but its chain can also go round
    // d2-c4-d2-f2 for ever. Listing every action that keeps the win in hand
    // let the search take that loop until the game's length cap (a draw).
    let looping: GameState = "1b3s1h/3P1kp1/2CEp1P1/2a3F1/p1d3p1/P2c4/3o1fK1/2B5^f1B w 4 - - -".parse::<paco::Position>().map(GameState::new).unwrap();
    assert!(looping.can_win_this_turn());
    let shortest = decisions_to_win(&looping).expect("a win this turn");
    assert_eq!(play_out_detected_win(&looping, &mut rng), (shortest, true), "{}", looping.notation());
    // The analysis tools name the same shortest turn.
    let turn = pacozero_search::turns::winning_turn(&looping).expect("a winning turn");
    let mut g = looping.clone();
    turn.iter().for_each(|&a| g.apply(a));
    assert_eq!((turn.len(), g.outcome()), (shortest, Some(Outcome::Win(Color::White))));
    // Turn starts of random games, and every position along their shortest wins.
    let mut checked = 0;
    for start in winnable_positions(40) {
        let shortest = decisions_to_win(&start).expect("a win this turn");
        assert_eq!(play_out_detected_win(&start, &mut rng), (shortest, true), "{}", start.notation());
        checked += shortest;
    }
    assert!(checked >= 40, "{checked} decisions");
}

#[test]
fn without_win_detection_the_same_positions_are_searched() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let cfg = SearchConfig { win_detection: false, ..SearchConfig::default() };
    for start in winnable_positions(5) {
        let r = search(&cfg, &start, &UniformEvaluator, 32, true, &mut rng).unwrap();
        assert!(r.simulations > 0);
    }
}

#[test]
fn leaves_where_the_opponent_wins_at_once_are_avoided() {
    // At a turn start where some actions end the turn and hand the opponent a
    // sure win, a search that sees those leaves as lost must value them so:
    // every root child whose visits all ended in such leaves has q = -1.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let cfg = SearchConfig { algorithm: Algorithm::Puct, ..SearchConfig::default() };
    let mut lost_children = 0;
    let mut legal = Vec::new();
    let mut g = GameState::new(paco::fischer_random(7, paco::Rules::OFFICIAL));
    let mut play = ChaCha8Rng::seed_from_u64(6);
    for _ in 0..2000 {
        if g.outcome().is_some() {
            g = GameState::new(paco::fischer_random(play.gen_range(0..960), paco::Rules::OFFICIAL));
        }
        g.playable_actions(&mut legal);
        // Look for a decision some of whose actions end the turn into a sure loss.
        let losing: Vec<u16> = legal
            .iter()
            .copied()
            .filter(|&a| {
                let mut n = g.clone();
                n.apply(a);
                n.outcome().is_none() && n.to_move() != g.to_move() && n.can_win_this_turn()
            })
            .collect();
        if !losing.is_empty() && losing.len() < legal.len() && !g.can_win_this_turn() {
            let r = search(&cfg, &g, &UniformEvaluator, 400, false, &mut rng).unwrap();
            for a in &losing {
                let i = r.index_of(*a).unwrap();
                if r.visits[i] > 0 {
                    assert_eq!(r.q[i], -1.0, "{} in {}", g.action_name(*a), g.notation());
                    lost_children += 1;
                }
            }
            assert!(!losing.contains(&r.action), "chose a losing action in {}", g.notation());
        }
        g.apply(legal[play.gen_range(0..legal.len())]);
    }
    assert!(lost_children > 20, "only {lost_children} losing children checked");
}

#[test]
fn cut_games_are_scored_by_material_only_where_material_exists() {
    let limits = |m| GameLimits { max_decisions: 10, adjudicate_material: m };
    // White is a queen and a rook up (14 pawns).
    let up = shako::GameState::from_fen("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq - 0 1").unwrap();
    assert_eq!(up.material_balance(), Some(0));
    assert_eq!(limits(3).cut_winner(&up), None);
    let white_up = shako::GameState::from_fen("c8c/e1nb1kbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQk - 0 1").unwrap();
    assert_eq!(white_up.material_balance(), Some(14));
    assert_eq!(limits(3).cut_winner(&white_up), Some(Color::White));
    assert_eq!(limits(14).cut_winner(&white_up), Some(Color::White));
    assert_eq!(limits(15).cut_winner(&white_up), None);
    assert_eq!(limits(0).cut_winner(&white_up), None, "0 turns adjudication off");
    let black_up = shako::GameState::from_fen("c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/E1NBKQBN1E/C8C w kq - 0 1").unwrap();
    assert_eq!(black_up.material_balance(), Some(-10));
    assert_eq!(limits(3).cut_winner(&black_up), Some(Color::Black));
    // Paco Ŝako has no material to count: cut games stay draws.
    assert_eq!(GameState::start().material_balance(), None);
    assert_eq!(limits(1).cut_winner(&GameState::start()), None);
}

#[test]
fn selfplay_adjudicates_cut_shako_games_by_material() {
    let white_up = shako::GameState::from_fen("c8c/e1nb1kbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQk - 0 1").unwrap();
    let cfg = |m| SelfplayConfig {
        max_decisions: 2,
        adjudicate_material: m,
        search: SearchConfig { full_simulations: 4, cheap_simulations: 2, ..SearchConfig::default() },
        ..SelfplayConfig::default()
    };
    // Two plies cannot undo a 14-pawn lead by more than a queen's 9.
    let r = play_game(&cfg(3), &UniformEvaluator, 0, Some(white_up.clone())).unwrap();
    assert_eq!((r.winner, r.reason.as_str()), (Some(Color::White), "material"));
    // The rows record the adjudicated result, but the game was cut, not
    // won: every row is truncated, so that result is never a value target
    // (the search's root value takes its place, `pacozero_batch::targets`).
    // Until issue 60 this test asserted that the value target followed the
    // adjudication; that was the behaviour removed.
    assert!(r.positions.iter().all(|p| p.result != 0 && p.truncated));
    let r = play_game(&cfg(0), &UniformEvaluator, 0, Some(white_up)).unwrap();
    assert_eq!((r.winner, r.reason.as_str()), (None, "max_length"));
    assert!(r.positions.iter().all(|p| p.truncated), "a cut drawn game is truncated too");
}

/// A Shako game that ends by the rules is decided, not truncated: a mate
/// in one, found at once by win detection, ends it by checkmate.
#[test]
fn a_shako_game_ended_by_mate_is_decided() {
    let mate_in_one = shako::GameState::from_fen("5k4/10/5K4/10/10/10/10/10/10/R9 w - - 0 1").unwrap();
    let cfg = SelfplayConfig {
        max_decisions: 400,
        search: SearchConfig { full_simulations: 4, cheap_simulations: 2, ..SearchConfig::default() },
        ..SelfplayConfig::default()
    };
    let r = play_game(&cfg, &UniformEvaluator, 0, Some(mate_in_one)).unwrap();
    assert_eq!((r.winner, r.reason.as_str(), r.positions.len()), (Some(Color::White), "checkmate", 1));
    assert_eq!(r.game.actions, "a1a10");
    assert!(r.positions.iter().all(|p| p.result == 1 && !p.truncated && p.moves_left == 0));
}

#[test]
fn a_mixed_evaluator_keeps_the_priors_and_blends_the_values() {
    use pacozero_search::{EvalOutput, EvalRequest, Evaluator, MixedEvaluator, RolloutEvaluator};
    let g = GameState::start();
    let mut legal = Vec::new();
    g.playable_actions(&mut legal);
    let req = EvalRequest { state: &g, legal: &legal, planes: &[], scalars: &[] };
    let rollout = RolloutEvaluator::new(9, 8, 400);
    let played = rollout.rollout_wdl(&g);
    for lambda in [0.0f32, 0.3, 1.0] {
        let mixed = MixedEvaluator { inner: UniformEvaluator, rollout: RolloutEvaluator::new(9, 8, 400), lambda };
        let mut out = EvalOutput::default();
        mixed.evaluate(std::slice::from_ref(&req), &mut out).unwrap();
        // Uniform's own value is a sure draw.
        let want = [lambda * played[0], (1.0 - lambda) + lambda * played[1], lambda * played[2]];
        for k in 0..3 {
            assert!((out.wdl[0][k] - want[k]).abs() < 1e-6, "lambda {lambda}: {:?} vs {want:?}", out.wdl[0]);
        }
        assert!(out.priors_of(0).iter().all(|&p| (p - 1.0 / legal.len() as f32).abs() < 1e-6));
    }
}
