//! Whole turns read from a search tree and played by search, on a toy game
//! whose turns have two decisions and whose win detection is partial (known
//! at a turn's second decision only), as a game's may be.

use pacozero_engine::prelude::*;
use pacozero_engine::{Color, Outcome};
use pacozero_search::turns::{root_turns, search_turn, winning_turn};
use pacozero_search::{Algorithm, Search, SearchConfig, UniformEvaluator};
use pacozero_testkit::nim::{nim, Nim};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Without the solver: a proven root would stop the search before every
/// turn these tests read is in the tree.
fn config(win_detection: bool) -> SearchConfig {
    SearchConfig { algorithm: Algorithm::Puct, dirichlet_epsilon: 0.0, win_detection, solver: false, ..SearchConfig::default() }
}

/// The turns of a 300-simulation search from three stones: name, visits,
/// won by the mover.
fn turns_from_three(win_detection: bool) -> (Search<Nim>, Vec<(String, u32, bool)>) {
    let mut s = Search::new(config(win_detection), nim(3), false);
    s.search_until(&UniformEvaluator, 300, None, false, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
    let mut turns: Vec<(String, u32, bool)> =
        root_turns(&s).into_iter().map(|t| (t.name, t.visits, t.state.outcome() == Some(Outcome::Win(Color::White)))).collect();
    turns.sort();
    (s, turns)
}

#[test]
fn a_decision_into_a_detected_win_is_completed_by_the_winning_continuation() {
    let (s, turns) = turns_from_three(true);
    assert!(!s.root_is_detected_win(), "three stones at a turn start: not known");
    let names: Vec<&str> = turns.iter().map(|t| t.0.as_str()).collect();
    // t2 leaves one stone at the second decision: a detected win, not
    // expanded, completed by t1more.
    assert_eq!(names, ["t1 stop", "t1 t1more", "t2 t1more"], "{turns:?}");
    let t2 = s.children_at(&[]).unwrap().into_iter().find(|c| c.action == 1).unwrap();
    assert!(!t2.expanded && t2.visits > 0);
    let won = &turns[2];
    assert!(won.2, "{won:?}");
    assert_eq!(won.1, t2.visits, "the decision's visits");
}

#[test]
fn without_detection_the_expanded_second_decisions_are_walked() {
    let (s, turns) = turns_from_three(false);
    let names: Vec<&str> = turns.iter().map(|t| t.0.as_str()).collect();
    // t1 t1more reaches t2 stop's position (one stone, Black to move): one
    // turn under the more visited name.
    assert_eq!(names, ["t1 stop", "t2 stop", "t2 t1more"], "{turns:?}");
    let t2 = s.children_at(&[1]).expect("t2's node is expanded");
    let visits = |children: &[pacozero_search::ChildStats], a: u16| children.iter().find(|c| c.action == a).unwrap().visits;
    let t1 = s.children_at(&[0]).unwrap();
    // The visits of a turn are those of its last decision.
    assert_eq!(turns[2].1, visits(&t2, 3));
    assert_eq!(turns[1].1, visits(&t2, 2) + visits(&t1, 3));
    assert!(turns[2].2 && !turns[1].2);
}

#[test]
fn a_winning_turn_follows_the_shortest_win_from_a_second_decision() {
    let mut g = nim(3);
    g.apply(1);
    assert_eq!(winning_turn(&g), Some(vec![3]));
    assert_eq!(winning_turn(&nim(3)), None, "not known at a turn start");
    let mut done = g.clone();
    done.apply(3);
    assert_eq!(winning_turn(&done), None, "a finished game");
}

#[test]
fn search_turn_plays_one_whole_turn() {
    // Five stones: leave four (take one, stop); the opponent moves next.
    let mut g = nim(5);
    let turn = search_turn(&mut g, config(true), &UniformEvaluator, 400).unwrap();
    assert_eq!(turn.decisions, [0, 2], "take one, stop");
    assert_eq!((g.stones, g.to_move(), g.outcome()), (4, Color::Black, None));
    assert!(!turn.cut);
    assert!(turn.first_wdl[0] > 0.5, "{:?}", turn.first_wdl);
    // Three stones: take them all.
    let mut g = nim(3);
    let turn = search_turn(&mut g, config(true), &UniformEvaluator, 400).unwrap();
    assert_eq!(turn.decisions, [1, 3]);
    assert_eq!(g.outcome(), Some(Outcome::Win(Color::White)));
    // A finished game: nothing to play.
    let turn = search_turn(&mut g, config(true), &UniformEvaluator, 400).unwrap();
    assert!(turn.decisions.is_empty() && !turn.cut);
}
