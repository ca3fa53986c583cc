//! Mirror augmentation in training batches: a Paco Ŝako row mirrored by
//! `Batch::build_mirrored` is the batch row of the mirrored position (its
//! input planes, legal mask and policy target), rows with a castling right
//! and Shako rows are left as they are, and `Batch::build` mirrors nothing.

use pacozero_data::game_spec;
use pacozero_data::PositionRow;
use pacozero_engine::paco::{mirror_action, GameState, Position};
use pacozero_engine::prelude::*;
use pacozero_engine::{shako, Game};
use pacozero_train::{Batch, Targets};

mod common;

/// The row of `g` with a policy target that differs between decisions.
fn row_of<G: Game>(g: &G) -> PositionRow {
    let spec = game_spec::<G>();
    let mut planes = vec![0u64; spec.plane_words()];
    let mut scalars = vec![0f32; G::NUM_SCALARS];
    g.encode(&mut planes, &mut scalars);
    let mut legal = Vec::new();
    g.playable_actions(&mut legal);
    let total: f32 = (1..=legal.len()).map(|i| i as f32).sum();
    let policy = (1..=legal.len()).map(|i| i as f32 / total).collect();
    PositionRow {
        game_id: 1,
        ply: 0,
        side_to_move: 0,
        planes,
        scalars,
        policy,
        action: legal[0],
        legal_actions: legal,
        full_search: true,
        root_q: 0.0,
        root_wdl: [0.4, 0.2, 0.4],
        result: 0,
        moves_left: 10,
        aux_targets: vec![false, false],
        weight: 1.0,
        network_id: "t".into(),
        truncated: false,
    }
}

/// The mirrored position's row, its policy carried over decision by decision.
fn mirrored_row(g: &GameState) -> PositionRow {
    let m = GameState::new(g.position().mirrored_files().expect("no castling right"));
    let mut row = row_of(&m);
    let orig = row_of(g);
    let mover = g.to_move();
    for (a, p) in orig.legal_actions.iter().zip(&orig.policy) {
        let act = pacozero_engine::paco::action_from_index(*a as usize, mover).unwrap();
        let ma = pacozero_engine::paco::action_index(mirror_action(act), mover) as u16;
        let j = row.legal_actions.iter().position(|&x| x == ma).expect("the mirrored decision is legal");
        row.policy[j] = *p;
    }
    row
}

#[test]
fn a_mirrored_batch_row_is_the_mirrored_positions_row() {
    let spec = game_spec::<GameState>();
    // No castling right left, Black to move: the mirror is another position.
    let g = GameState::new("2bqk2r/1pp2pp1/p1n2n2/3Pp2p/4P3/2N2N2/PPP2PPP/R1BQK2R b 4 - - -".parse::<Position>().unwrap());
    let rows = vec![row_of(&g), mirrored_row(&g), row_of(&GameState::new(Position::startpos()))];
    let plain = Batch::build(&spec, &rows, &[0, 1, 2], 0.0);
    let mirrored = Batch::build_mirrored(&spec, &rows, &[0, 1, 2], &Targets::root(0.0), &|k| k == 0 || k == 2);
    let (len, p) = (spec.input_len(), spec.policy_size as usize);
    // Row 0 mirrored equals the mirrored position's row.
    assert_eq!(mirrored.x[..len], plain.x[len..2 * len]);
    assert_eq!(mirrored.mask[..p], plain.mask[p..2 * p]);
    assert_eq!(mirrored.policy[..p], plain.policy[p..2 * p]);
    assert_ne!(plain.x[..len], plain.x[len..2 * len], "the position is not symmetric");
    // The start position has castling rights: left as it is.
    assert_eq!(mirrored.x[2 * len..], plain.x[2 * len..]);
    assert_eq!(mirrored.policy[2 * p..], plain.policy[2 * p..]);
}

#[test]
fn shako_rows_are_never_mirrored() {
    let spec = game_spec::<shako::GameState>();
    let rows = vec![row_of(&shako::GameState::start())];
    let a = Batch::build(&spec, &rows, &[0], 0.0);
    let b = Batch::build_mirrored(&spec, &rows, &[0], &Targets::root(0.0), &|_| true);
    assert_eq!((a.x, a.policy), (b.x, b.policy));
}

/// A mirrored row's reply target is mirrored with it: it is the mirrored
/// reply position's policy.
#[test]
fn a_mirrored_rows_reply_target_is_mirrored_too() {
    let spec = game_spec::<GameState>();
    let g = GameState::new("2bqk2r/1pp2pp1/p1n2n2/3Pp2p/4P3/2N2N2/PPP2PPP/R1BQK2R b 4 - - -".parse::<Position>().unwrap());
    let turn = g.legal_turns().into_iter().max_by_key(|t| t.len()).unwrap();
    // A row for each decision of Black's turn, then White's reply.
    let mut rows = Vec::new();
    let mut g2 = g.clone();
    for &d in &turn {
        let mut r = row_of(&g2);
        (r.ply, r.side_to_move) = (rows.len() as u32, 1);
        rows.push(r);
        g2.apply(d);
    }
    assert_ne!(g2.to_move(), g.to_move());
    let mut reply = row_of(&g2);
    reply.ply = turn.len() as u32;
    rows.push(reply);
    let replies = pacozero_train::targets::reply_rows(&rows);
    assert_eq!(replies[0], Some(turn.len() as u32), "{} decisions in the turn", turn.len());
    let targets = Targets { reply: &replies, ..Targets::root(0.0) };
    let mirrored = Batch::build_mirrored(&spec, &rows, &[0], &targets, &|_| true);
    let plain = Batch::build_mirrored(&spec, &rows, &[0], &targets, &|_| false);
    let want = Batch::build(&spec, &[mirrored_row(&g2)], &[0], 0.0);
    let p = spec.policy_size as usize;
    assert_eq!(mirrored.reply[..p], want.policy[..p]);
    assert_eq!(mirrored.reply_mask[..p], want.mask[..p]);
    assert_ne!(mirrored.reply[..p], plain.reply[..p], "the reply position is not symmetric");
}

/// `mirror_augment` decides alone whether training mirrors: off, a run
/// mirrors nothing (it differs from a run with it on); on, it mirrors some
/// rows, not all (it differs from a run without it on the mirrored rows).
#[test]
fn training_mirrors_only_with_mirror_augment_and_then_only_some_rows() {
    use pacozero_data::ChunkWriter;
    use pacozero_nn::{default_device, NetConfig};
    use pacozero_train::{TrainConfig, Trainer};
    let spec = game_spec::<GameState>();
    // 48 positions without a castling right, from a seeded walk, as they
    // are and mirrored.
    let mut g = GameState::new("2bqk2r/1pp2pp1/p1n2n2/3Pp2p/4P3/2N2N2/PPP2PPP/R1BQK2R b 4 - - -".parse::<Position>().unwrap());
    let (plain, mirrored) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut writers = [ChunkWriter::new(plain.path(), spec.clone()).unwrap(), ChunkWriter::new(mirrored.path(), spec.clone()).unwrap()];
    let mut legal = Vec::new();
    for ply in 0..48u32 {
        assert!(g.outcome().is_none());
        for (w, mut r) in writers.iter_mut().zip([row_of(&g), mirrored_row(&g)]) {
            (r.ply, r.side_to_move) = (ply, g.to_move() as u8);
            w.push_position(r).unwrap();
        }
        g.playable_actions(&mut legal);
        g.apply(legal[(ply as usize * 7) % legal.len()]);
    }
    for mut w in writers {
        w.push_game(common::game_row(1, 48));
        w.flush("chunk-000").unwrap();
    }
    // The first and last steps' losses of three steps.
    let trained = |data: &std::path::Path, mirror_augment: bool| {
        let run = tempfile::tempdir().unwrap();
        let cfg =
            TrainConfig { mirror_augment, batch_size: 16, seed: 3, progress: false, checkpoint_every: 0, plot_every: 0, threads: 1, ..TrainConfig::default() };
        let mut t = Trainer::new(run.path(), NetConfig::tiny_for(&spec), cfg, &default_device()).unwrap();
        let s = t.train_steps(data, 3).unwrap();
        (s.first.loss, s.last.loss)
    };
    let off = trained(plain.path(), false);
    assert_eq!(off, trained(plain.path(), false), "a rerun trains the same");
    assert_ne!(off, trained(plain.path(), true), "mirroring changes what is trained");
    assert_ne!(trained(plain.path(), true), trained(mirrored.path(), false), "not every row is mirrored");
}
