//! `GameRules::can_win_this_turn` (Paco Ŝako: the mover can unite with the
//! opponent's king before the turn ends) against an exhaustive search of the
//! rest of the turn, on every decision of random playouts under every rule set
//! (with the optional vchess king-chain rule it claims nothing).

use pacozero_engine::paco::{GameState, Rules};
use pacozero_engine::prelude::*;
use pacozero_engine::{Color, Outcome};
use std::collections::HashSet;

/// Does some sequence of the mover's decisions, all in this turn, win?
fn wins_by_search(g: &GameState, mover: Color, seen: &mut HashSet<u64>) -> bool {
    if let Some(o) = g.outcome() {
        return o == Outcome::Win(mover);
    }
    if g.to_move() != mover || !seen.insert(g.hash()) {
        return false;
    }
    let mut legal = Vec::new();
    g.playable_actions(&mut legal);
    legal.iter().any(|&a| {
        let mut n = g.clone();
        n.apply(a);
        wins_by_search(&n, mover, seen)
    })
}

fn winning_line(g: &GameState, mover: Color, seen: &mut HashSet<u64>) -> Option<Vec<String>> {
    if let Some(o) = g.outcome() {
        return (o == Outcome::Win(mover)).then(Vec::new);
    }
    if g.to_move() != mover || !seen.insert(g.hash()) {
        return None;
    }
    let mut legal = Vec::new();
    g.playable_actions(&mut legal);
    for &a in &legal {
        let mut n = g.clone();
        n.apply(a);
        if let Some(mut l) = winning_line(&n, mover, seen) {
            l.insert(0, g.action_name(a));
            return Some(l);
        }
    }
    None
}

/// splitmix64: a tiny deterministic generator for the playouts.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn detected_wins_match_an_exhaustive_search_of_the_turn() {
    // Long chains make the exhaustive search recurse deeply.
    std::thread::Builder::new().stack_size(256 << 20).spawn(check_playouts).unwrap().join().unwrap();
}

fn check_playouts() {
    let (mut checked, mut wins, mut mid_turn_wins) = (0u32, 0u32, 0u32);
    let mut rng = 0x5041_434F_u64;
    for game in 0..240u64 {
        let bits = (game % 8) as u8;
        let rules = Rules { no_union_undo: bits & 1 != 0, one_double_step_per_file: bits & 2 != 0, king_chain_draw: bits & 4 != 0 };
        let mut g = GameState::new(pacozero_engine::paco::fischer_random((game * 37 % 960) as u16, rules));
        let mut legal = Vec::new();
        for _ in 0..400 {
            if g.outcome().is_some() {
                break;
            }
            let detected = g.can_win_this_turn();
            let searched = wins_by_search(&g, g.to_move(), &mut HashSet::new());
            // Under the optional king-chain rule nothing is claimed.
            let expected = searched && !rules.king_chain_draw;
            if detected != expected {
                let line = winning_line(&g, g.to_move(), &mut HashSet::new()).unwrap_or_default();
                panic!("position {} (rules {rules:?}): detected {detected}, search {searched}, line {line:?}", g.notation());
            }
            checked += 1;
            if detected {
                wins += 1;
                if !g.position().is_settled() {
                    mid_turn_wins += 1;
                }
            }
            g.playable_actions(&mut legal);
            if legal.is_empty() {
                break;
            }
            g.apply(legal[(next(&mut rng) % legal.len() as u64) as usize]);
        }
    }
    eprintln!("checked {checked} decisions: {wins} sure wins, {mid_turn_wins} of them mid-turn");
    // The playouts must reach enough wins, at turn starts and mid-turn, to mean something.
    assert!(checked > 20_000 && wins > 500 && mid_turn_wins > 200, "checked {checked}, wins {wins}, mid-turn {mid_turn_wins}");
}
