//! The tactics suite (`data/tactics.jsonl`, written by `pacozero tactics
//! generate`) re-proved: for a sample of its positions the exhaustive search
//! finds the same depth and exactly the same winning first turns.

use pacozero_engine::paco::{Position, Prover};
use std::collections::BTreeSet;

#[test]
fn a_sample_of_the_suite_is_proved_again() {
    let lines: Vec<serde_json::Value> = include_str!("../data/tactics.jsonl").lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.len() >= 300, "the suite has {} positions", lines.len());
    let depth2 = lines.iter().filter(|l| l["depth"] == 2).count();
    assert!(depth2 >= 50, "{depth2} Paco-in-2 positions");
    let mut prover = Prover::default();
    let mut checked = [0; 2];
    // Every 7th position, and every Paco in 2 among the first 200 lines.
    for (i, l) in lines.iter().enumerate().filter(|(i, l)| i % 7 == 0 || (*i < 200 && l["depth"] == 2)) {
        let fen = l["fen"].as_str().unwrap();
        let pos: Position = fen.parse().unwrap();
        let t = prover.prove(&pos, 2).unwrap().unwrap_or_else(|| panic!("line {}: no Paco found in {fen}", i + 1));
        assert_eq!(u64::from(t.depth), l["depth"].as_u64().unwrap(), "line {}: {fen}", i + 1);
        let found: BTreeSet<String> = t.winning_turns.iter().map(|w| w.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(" ")).collect();
        let listed: BTreeSet<String> = l["winning_actions"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
        assert_eq!(found, listed, "line {}: winning turns of {fen}", i + 1);
        if t.depth == 2 {
            // Asked for a Paco in 1 only, the prover stops there.
            assert_eq!(prover.prove(&pos, 1).unwrap(), None, "line {}: {fen} at depth 1", i + 1);
        }
        checked[t.depth as usize - 1] += 1;
    }
    assert!(checked[0] >= 50 && checked[1] >= 10, "checked {checked:?}");
}

#[test]
fn positions_without_a_forced_paco_are_not_proved() {
    let mut prover = Prover::default();
    // The start: nobody can reach a king in two turns.
    assert_eq!(prover.prove(&Position::startpos(), 2).unwrap(), None);
    // A mid-turn position is not a turn start.
    let mut p = Position::startpos();
    p.play("Le2".parse().unwrap()).unwrap();
    assert_eq!(prover.prove(&p, 2).unwrap(), None);
    // Not even when the rest of a winning turn is one place away: the suite's
    // first Paco in 1, its winning piece lifted.
    let line: serde_json::Value =
        include_str!("../data/tactics.jsonl").lines().map(|l| serde_json::from_str(l).unwrap()).find(|l: &serde_json::Value| l["depth"] == 1).unwrap();
    let mut p: Position = line["fen"].as_str().unwrap().parse().unwrap();
    assert!(prover.prove(&p, 1).unwrap().is_some());
    let win = line["winning_actions"][0].as_str().unwrap();
    p.play(win.split(' ').next().unwrap().parse().unwrap()).unwrap();
    assert!(!p.is_settled());
    assert_eq!(prover.prove(&p, 2).unwrap(), None, "{} then {win}", line["fen"]);
}

/// A reply that ends the game refutes a Paco in 2 as surely as one that
/// escapes: near the no-progress limit (98 half-moves), a first turn that
/// forms no union leaves the opponent replies that draw. Every winning turn
/// the prover still finds is checked by playing out each reply; and the limit
/// must have taken winning turns away somewhere, or the check saw no draw.
#[test]
fn a_reply_that_draws_refutes_a_paco_in_2() {
    use pacozero_engine::paco::{can_unite_with_king, FullMoveGen, Rules, Setup, Status};
    let mut prover = Prover::default();
    let mut replies = FullMoveGen::new();
    let mut fewer = 0;
    let lines = include_str!("../data/tactics.jsonl").lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap());
    for l in lines.filter(|l| l["depth"] == 2).take(12) {
        let fen = l["fen"].as_str().unwrap();
        let mut s: Setup = fen.parse().unwrap();
        s.no_progress = 98;
        let pos = Position::from_setup(&s, Rules::OFFICIAL).unwrap();
        let turns = prover.prove(&pos, 2).unwrap().map_or(vec![], |t| t.winning_turns);
        fewer += usize::from(turns.len() < l["winning_actions"].as_array().unwrap().len());
        for turn in &turns {
            let mut r = pos;
            for a in turn {
                r.play(*a).unwrap();
            }
            replies
                .for_each(&r, |q, reply| {
                    let ok = q.status() == Status::Running && can_unite_with_king(q);
                    assert!(ok, "{fen} at 98 half-moves: after {turn:?} the reply {reply:?} leaves {:?}", q.status());
                })
                .unwrap();
        }
    }
    assert!(fewer > 0, "no position lost a winning turn to the no-progress limit");
}

/// The opponent must have a turn to refute: a first turn after which it has
/// none is no Paco in 2 (the rules give such a position no result), however
/// boxed in its king. Here Black has only its king on a8, and every square
/// next to it holds a lone white piece, which a king never enters.
#[test]
fn a_turn_that_leaves_the_opponent_no_turn_is_not_a_paco_in_2() {
    use pacozero_engine::paco::{parse_actions, FullMoveGen};
    let pos: Position = "kN6/NR6/8/8/8/8/8/4K3 w 0 - - -".parse().unwrap();
    let mut gen = FullMoveGen::new();
    let mut replies_after = |turn: &[pacozero_engine::paco::Action]| {
        let mut r = pos;
        for a in turn {
            r.play(*a).unwrap();
        }
        gen.for_each(&r, |_, _| {}).unwrap()
    };
    // White's king steps aside: Black has no turn.
    assert_eq!(replies_after(&parse_actions("Le1 Pe2").unwrap()), 0);
    let found = Prover::default().prove(&pos, 2).unwrap();
    for turn in found.iter().flat_map(|t| &t.winning_turns) {
        assert!(replies_after(turn) > 0, "{turn:?} leaves Black without a turn");
    }
}
