//! The platform encoding (`engine/src/paco/platform_encode.rs`, the input
//! the game's platform feeds its own bot) checked against its definition,
//! read square by square from the position's public accessors: over seeded
//! random games (official and vchess rules, Fischer-random starts), at every
//! decision, chains in progress included, each of the 29 bit planes and the
//! scalar hold exactly what the module's table says, seen from the mover.

use pacozero_engine::paco::{fischer_random, GameState, Hand, Position, Rules, PLATFORM_BIT_PLANES, PLATFORM_SCALARS};
use pacozero_engine::{Color, PieceKind, Square};

use crate::common::Rng;
use pacozero_engine::prelude::*;

/// The bit of `sq` in the mover's frame: Black sees the board flipped
/// vertically (rank r as 7 - r, the file kept).
fn frame_bit(sq: Square, mover: Color) -> u64 {
    let rank = match mover {
        Color::White => sq.rank(),
        Color::Black => 7 - sq.rank(),
    };
    1 << (rank * 8 + sq.file())
}

/// The planes and the scalar of `pos` by the module's table.
fn by_definition(pos: &Position) -> (Vec<u64>, f32) {
    let me = pos.side_to_move();
    let them = me.other();
    let mut planes = vec![0u64; PLATFORM_BIT_PLANES];
    for i in 0..64 {
        let sq = Square::new(i);
        for (first, color) in [(0, me), (6, them)] {
            if let Some(k) = pos.kind_at(color, sq) {
                planes[first + k.index()] |= frame_bit(sq, me);
            }
        }
    }
    match pos.hand() {
        Hand::Empty => {}
        Hand::Single { kind, from } => planes[12 + kind.index()] |= frame_bit(from, me),
        Hand::Pair { kind, partner, from } => {
            planes[12 + kind.index()] |= frame_bit(from, me);
            planes[18 + partner.index()] |= frame_bit(from, me);
        }
    }
    if let Some(ep) = pos.en_passant() {
        planes[24] = frame_bit(ep, me);
    }
    let c = pos.castling();
    for (plane, (color, side)) in (25..29).zip([(me, 0), (me, 1), (them, 0), (them, 1)]) {
        planes[plane] = if c.has(color, side) { u64::MAX } else { 0 };
    }
    (planes, f32::from(pos.no_progress_half_moves()) / 100.0)
}

/// How often each part of the table was not empty: the games must reach
/// every part, for both colours, or the test proves nothing there.
#[derive(Default, Debug)]
struct Seen {
    black_to_move: u32,
    singles: u32,
    pairs: u32,
    en_passant: u32,
    opponent_rights: u32,
    no_progress: u32,
    kings_in_unions: u32,
}

#[test]
fn every_plane_holds_what_the_table_says() {
    let mut rng = Rng(0x504C_4154);
    let mut seen = Seen::default();
    let vchess = Rules { no_union_undo: true, one_double_step_per_file: true, king_chain_draw: true };
    let mut legal = Vec::new();
    for game in 0..40 {
        let rules = if game % 2 == 0 { Rules::OFFICIAL } else { vchess };
        let start =
            if game % 4 < 2 { Position::from_fen(pacozero_engine::paco::STARTPOS_FEN, rules).unwrap() } else { fischer_random(rng.below(960) as u16, rules) };
        let mut g = GameState::new(start);
        for _ in 0..400 {
            if g.outcome().is_some() {
                break;
            }
            let pos = *g.position();
            // Stale values in the buffers must be overwritten, not kept.
            let (mut planes, mut scalars) = ([!0u64; PLATFORM_BIT_PLANES], [f32::NAN; PLATFORM_SCALARS]);
            pos.encode_platform(&mut planes, &mut scalars);
            let (want, scalar) = by_definition(&pos);
            assert_eq!(planes.to_vec(), want, "the platform planes of {}", pos.fen());
            assert_eq!(scalars, [scalar], "the platform scalar of {}", pos.fen());

            let me = pos.side_to_move();
            seen.black_to_move += u32::from(me == Color::Black);
            seen.singles += u32::from(matches!(pos.hand(), Hand::Single { .. }));
            seen.pairs += u32::from(matches!(pos.hand(), Hand::Pair { .. }));
            seen.en_passant += u32::from(pos.en_passant().is_some());
            seen.opponent_rights += u32::from((0..2).any(|side| pos.castling().has(me.other(), side)));
            seen.no_progress += u32::from(pos.no_progress_half_moves() > 0);
            seen.kings_in_unions +=
                u32::from((0..64).map(Square::new).any(|sq| pos.kind_at(me, sq) == Some(PieceKind::King) && pos.kind_at(me.other(), sq).is_some()));
            g.playable_actions(&mut legal);
            if legal.is_empty() {
                break;
            }
            g.apply(legal[rng.below(legal.len())]);
        }
    }
    eprintln!("{seen:?}");
    let counts = [seen.black_to_move, seen.singles, seen.pairs, seen.en_passant, seen.opponent_rights, seen.no_progress, seen.kings_in_unions];
    assert!(counts.iter().all(|&n| n >= 10), "every part of the table seen at least 10 times: {seen:?}");
}
