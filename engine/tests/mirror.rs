//! The file mirror (a ↔ h) used for data augmentation is exact: over
//! thousands of positions of seeded random games (official and vchess rules),
//! the legal decisions of the mirrored position are the mirrored legal
//! decisions, mirroring twice gives the position back, and positions with a
//! castling right are not mirrored.

use pacozero_engine::paco::{action_from_index, action_index, fischer_random, mirror_action, GameState, Position, Rules};
use pacozero_engine::Game;

mod common;
use common::Rng;

fn mirrored_legal(g: &GameState) -> Vec<u16> {
    let mover = g.to_move();
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    let mut m: Vec<u16> = legal.iter().map(|&i| action_index(mirror_action(action_from_index(i as usize, mover).unwrap()), mover) as u16).collect();
    m.sort_unstable();
    m
}

#[test]
fn the_file_mirror_maps_legal_decisions_to_legal_decisions() {
    let mut rng = Rng(0x4D49_5252);
    let (mut mirrored, mut refused) = (0, 0);
    let rule_sets = [Rules::OFFICIAL, Rules { no_union_undo: true, one_double_step_per_file: true, king_chain_draw: true }];
    for game in 0..60 {
        let rules = rule_sets[game % 2];
        let start =
            if game % 3 == 0 { Position::from_fen(pacozero_engine::paco::STARTPOS_FEN, rules).unwrap() } else { fischer_random(rng.below(960) as u16, rules) };
        let mut g = GameState::new(start);
        let mut legal = Vec::new();
        for _ in 0..300 {
            if g.outcome().is_some() {
                break;
            }
            let pos = g.position();
            match pos.mirrored_files() {
                None => {
                    assert!(pos.castling() != pacozero_engine::paco::Castling::NONE, "{}", pos.fen());
                    refused += 1;
                }
                Some(m) => {
                    let back = m.mirrored_files().expect("a mirror has no castling rights");
                    assert_eq!(back.hash(), pos.hash(), "mirroring twice: {}", pos.fen());
                    let mut ml = Vec::new();
                    GameState::new(m).legal_actions(&mut ml);
                    assert_eq!(ml, mirrored_legal(&GameState::new(*pos)), "legal decisions of the mirror of {} ({})", pos.fen(), m.fen());
                    mirrored += 1;
                }
            }
            g.legal_actions(&mut legal);
            if legal.is_empty() {
                break;
            }
            g.apply(legal[rng.below(legal.len())]);
        }
    }
    eprintln!("{mirrored} positions mirrored, {refused} refused (castling rights)");
    assert!(mirrored > 3_000 && refused > 100, "{mirrored} mirrored, {refused} refused");
}
