//! The file mirror (a ↔ h) used for data augmentation is exact: over
//! thousands of positions of seeded random games (official and vchess rules),
//! the legal decisions of the mirrored position are the mirrored legal
//! decisions, mirroring twice gives the position back, the mirrored
//! encoding and policy indices (what training augments with) are those of
//! the mirrored position, and positions with a castling right are not
//! mirrored.

use pacozero_engine::paco::{
    action_from_index, action_index, fischer_random, mirror_action, mirror_action_index, mirror_encoded_planes, mirror_platform_planes, GameState, Position,
    Rules, NUM_BIT_PLANES, NUM_SCALARS, PLATFORM_BIT_PLANES, PLATFORM_SCALARS,
};

use crate::common::Rng;
use pacozero_engine::prelude::*;

fn mirrored_legal(g: &GameState) -> Vec<u16> {
    let mover = g.to_move();
    let mut legal = Vec::new();
    g.playable_actions(&mut legal);
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
                    let c = pos.castling();
                    let any_right = [pacozero_engine::Color::White, pacozero_engine::Color::Black].into_iter().any(|s| (0..2).any(|side| c.has(s, side)));
                    assert!(any_right, "refused without a castling right: {}", pos.fen());
                    let (mut planes, mut scalars) = ([0u64; NUM_BIT_PLANES], [0f32; NUM_SCALARS]);
                    pos.encode(g.repetitions(), &mut planes, &mut scalars);
                    let before = planes;
                    assert!(!mirror_encoded_planes(&mut planes) && planes == before, "{}", pos.fen());
                    // The platform's input is refused alike.
                    let (mut planes, mut scalars) = ([0u64; PLATFORM_BIT_PLANES], [0f32; PLATFORM_SCALARS]);
                    pos.encode_platform(&mut planes, &mut scalars);
                    let before = planes;
                    assert!(!mirror_platform_planes(&mut planes) && planes == before, "platform: {}", pos.fen());
                    refused += 1;
                }
                Some(m) => {
                    let back = m.mirrored_files().expect("a mirror has no castling rights");
                    assert_eq!(back.hash(), pos.hash(), "mirroring twice: {}", pos.fen());
                    let mut ml = Vec::new();
                    GameState::new(m).playable_actions(&mut ml);
                    assert_eq!(ml, mirrored_legal(&GameState::new(*pos)), "legal decisions of the mirror of {} ({})", pos.fen(), m.fen());
                    // The training-side mirror: the encoding and the policy indices.
                    let (mut planes, mut scalars) = ([0u64; NUM_BIT_PLANES], [0f32; NUM_SCALARS]);
                    let (mut want_planes, mut want_scalars) = ([0u64; NUM_BIT_PLANES], [0f32; NUM_SCALARS]);
                    pos.encode(g.repetitions(), &mut planes, &mut scalars);
                    m.encode(g.repetitions(), &mut want_planes, &mut want_scalars);
                    assert!(mirror_encoded_planes(&mut planes), "{}", pos.fen());
                    assert_eq!((planes, scalars), (want_planes, want_scalars), "encoding of the mirror of {}", pos.fen());
                    // The platform's input mirrors to the mirror's too.
                    let (mut planes, mut scalars) = ([0u64; PLATFORM_BIT_PLANES], [0f32; PLATFORM_SCALARS]);
                    let (mut want_planes, mut want_scalars) = ([0u64; PLATFORM_BIT_PLANES], [0f32; PLATFORM_SCALARS]);
                    pos.encode_platform(&mut planes, &mut scalars);
                    m.encode_platform(&mut want_planes, &mut want_scalars);
                    assert!(mirror_platform_planes(&mut planes), "platform: {}", pos.fen());
                    assert_eq!((planes, scalars), (want_planes, want_scalars), "platform encoding of the mirror of {}", pos.fen());
                    let mut by_index: Vec<u16> = mirrored_legal(&GameState::new(*pos));
                    let mut legal_here = Vec::new();
                    GameState::new(*pos).playable_actions(&mut legal_here);
                    by_index.clear();
                    by_index.extend(legal_here.iter().map(|&i| mirror_action_index(i as usize) as u16));
                    by_index.sort_unstable();
                    assert_eq!(by_index, ml, "policy indices of the mirror of {}", pos.fen());
                    mirrored += 1;
                }
            }
            g.playable_actions(&mut legal);
            if legal.is_empty() {
                break;
            }
            g.apply(legal[rng.below(legal.len())]);
        }
    }
    eprintln!("{mirrored} positions mirrored, {refused} refused (castling rights)");
    assert!(mirrored > 3_000 && refused > 100, "{mirrored} mirrored, {refused} refused");
}
