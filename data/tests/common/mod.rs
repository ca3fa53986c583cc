#![allow(dead_code)]
use pacozero_data::{GameRow, GameSpec, PositionRow};

pub fn spec() -> GameSpec {
    // 8x8 board, 3 bit planes, 2 scalars, 2 auxiliary targets; also
    // exercised with a 10x10 spec.
    GameSpec::new("pacosako", 8, 8, 3, 2, 100, AUX_TARGETS).unwrap()
}

/// The fixture's auxiliary targets: the ply is a multiple of 4, of 7.
pub const AUX_TARGETS: &[&str] = &["ply_multiple_of_4", "ply_multiple_of_7"];

/// The fixture's auxiliary-target values of a ply.
pub fn aux_targets(ply: u32) -> Vec<bool> {
    vec![ply.is_multiple_of(4), ply.is_multiple_of(7)]
}

pub fn position(spec: &GameSpec, game: u64, ply: u32) -> PositionRow {
    let k = game * 1000 + ply as u64;
    let planes: Vec<u64> = (0..spec.plane_words() as u64).map(|w| (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (w << 7)).rotate_left(w as u32)).collect();
    let legal: Vec<u16> = (0..(ply % 5 + 1) as u16).map(|a| (a * 7 + ply as u16) % spec.policy_size as u16).collect();
    let mut legal = legal;
    legal.sort();
    legal.dedup();
    let n = legal.len();
    PositionRow {
        game_id: game,
        ply,
        side_to_move: (ply % 2) as u8,
        planes,
        scalars: (0..spec.scalars).map(|s| s as f32 * 0.5 + ply as f32 / 100.0).collect(),
        policy: vec![1.0 / n as f32; n],
        action: legal[0],
        legal_actions: legal,
        full_search: !ply.is_multiple_of(3),
        root_q: (ply as f32 / 40.0).min(1.0) - 0.5,
        // Three different numbers that change with the ply, so that a writer
        // or reader that swaps two of them fails the round trips.
        root_wdl: root_wdl(ply),
        result: [(1i8), 0, -1][(ply % 3) as usize],
        moves_left: 40 - ply,
        aux_targets: aux_targets(ply),
        weight: 1.0,
        network_id: format!("gen-{:04}", game % 3),
        // Odd games were cut at their length cap.
        truncated: game % 2 == 1,
    }
}

/// The fixture's root (win, draw, loss) of a ply: three different values.
pub fn root_wdl(ply: u32) -> [f32; 3] {
    let win = 0.125 * (ply % 4 + 1) as f32;
    let draw = 0.03125 * (ply % 3 + 1) as f32;
    [win, draw, 1.0 - win - draw]
}

pub fn game(game_id: u64, plies: u32) -> (GameRow, Vec<PositionRow>) {
    let s = spec();
    let rows = (0..plies).map(|p| position(&s, game_id, p)).collect();
    (
        GameRow {
            game_id,
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -".into(),
            actions: "Pe4 Pe5 Nf3".into(),
            num_decisions: plies,
            result: "1-0".into(),
            reason: "paco".into(),
            network_id: "gen-0001".into(),
            config_hash: "abc123".into(),
            seed: 42 + game_id,
            white: "selfplay:gen-0001".into(),
            black: "selfplay:gen-0001".into(),
        },
        rows,
    )
}
