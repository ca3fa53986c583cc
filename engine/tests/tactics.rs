//! The tactics suite (`data/tactics.jsonl`, written by `pacozero tactics
//! generate`) re-proved: for a sample of its positions the exhaustive search
//! finds the same depth and exactly the same winning first turns.

use pacozero_engine::paco::{Position, Prover};
use std::collections::BTreeSet;

#[test]
fn a_sample_of_the_suite_is_proved_again() {
    let lines: Vec<serde_json::Value> = include_str!("data/tactics.jsonl").lines().map(|l| serde_json::from_str(l).unwrap()).collect();
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
        include_str!("data/tactics.jsonl").lines().map(|l| serde_json::from_str(l).unwrap()).find(|l: &serde_json::Value| l["depth"] == 1).unwrap();
    let mut p: Position = line["fen"].as_str().unwrap().parse().unwrap();
    assert!(prover.prove(&p, 1).unwrap().is_some());
    let win = line["winning_actions"][0].as_str().unwrap();
    p.play(win.split(' ').next().unwrap().parse().unwrap()).unwrap();
    assert!(!p.is_settled());
    assert_eq!(prover.prove(&p, 2).unwrap(), None, "{} then {win}", line["fen"]);
}
