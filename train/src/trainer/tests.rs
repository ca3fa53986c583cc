use super::*;
use pacozero_engine::paco::{GameState, Position};
use pacozero_engine::prelude::*;

/// 24 rows of a walk from a position without a castling right (each
/// can be mirrored; none is symmetric).
fn mirrorable_rows() -> Vec<PositionRow> {
    let mut g = GameState::new("2bqk2r/1pp2pp1/p1n2n2/3Pp2p/4P3/2N2N2/PPP2PPP/R1BQK2R b 4 - - -".parse::<Position>().unwrap());
    let spec = pacozero_data::game_spec::<GameState>();
    let mut rows = Vec::new();
    for ply in 0..24u32 {
        let mut planes = vec![0u64; spec.plane_words()];
        let mut scalars = vec![0f32; GameState::NUM_SCALARS];
        g.encode(&mut planes, &mut scalars);
        let mut legal = Vec::new();
        g.playable_actions(&mut legal);
        let policy = vec![1.0 / legal.len() as f32; legal.len()];
        let action = legal[(ply as usize * 7) % legal.len()];
        rows.push(PositionRow {
            game_id: 1,
            ply,
            side_to_move: g.to_move() as u8,
            planes,
            scalars,
            policy,
            action,
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
        });
        g.apply(action);
    }
    rows
}

/// Off, a batch is the rows as they are; on, some rows are mirrored
/// and others not, by the coins of the step.
#[test]
fn batches_mirror_rows_only_with_mirror_augment() {
    let rows = mirrorable_rows();
    let spec = pacozero_data::game_spec::<GameState>();
    let net = NetConfig::tiny_for(&spec);
    let idx: Vec<u32> = (0..rows.len() as u32).collect();
    let plain = Batch::build(&spec, &rows, &idx, 0.0);
    let len = spec.input_len();
    let mirrored_rows = |mirror_augment: bool| {
        let run = tempfile::tempdir().unwrap();
        let cfg = TrainConfig { mirror_augment, progress: false, ..TrainConfig::default() };
        let mut t = Trainer::new(run.path(), net.clone(), cfg.clone(), &pacozero_nn::default_device()).unwrap();
        t.window = Some(Window::new(spec.clone(), rows.clone(), idx.clone(), &cfg, &net));
        let b = t.batch_of(&idx);
        (0..rows.len()).filter(|&k| b.x[k * len..(k + 1) * len] != plain.x[k * len..(k + 1) * len]).count()
    };
    assert_eq!(mirrored_rows(false), 0);
    let on = mirrored_rows(true);
    assert!(on > 0 && on < rows.len(), "{on} of {} rows mirrored", rows.len());
}

/// A checkpoint whose data position lies outside its window is refused
/// naming the field: resumed, its cursor plus a batch wrapped around and
/// the slice of the permutation panicked; a window loaded after the
/// checkpoint's step made the step's age underflow.
#[test]
fn a_checkpoint_whose_data_position_is_outside_its_window_is_refused() {
    let run = tempfile::tempdir().unwrap();
    let spec = pacozero_data::game_spec::<GameState>();
    let cfg = TrainConfig { progress: false, ..TrainConfig::default() };
    let path = Trainer::new(run.path(), NetConfig::tiny_for(&spec), cfg, &pacozero_nn::default_device()).unwrap().save_checkpoint().unwrap();
    let data = fs::read(&path).unwrap();
    let (header, sections) = parse_container(&path, &data, CKPT_MAGIC, "checkpoint").unwrap();
    let edited = |field: &str, value: u64| {
        let mut h = header.clone();
        h["data"][field] = value.into();
        let parts: Vec<(&str, &[u8])> = sections.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
        pacozero_nn::modelfile::container_bytes(CKPT_MAGIC, &h, &parts).unwrap()
    };
    let device = training_device(&pacozero_nn::default_device());
    let refusal = |bytes: Vec<u8>| Checkpoint::parse(&path, &bytes, &device).err().map(|e| e.to_string());
    assert_eq!(refusal(edited("cursor", 0)), None);
    let e = refusal(edited("cursor", u64::MAX)).expect("a cursor past the window is refused");
    assert!(e.contains("`data.cursor` = 18446744073709551615 is past the window's 0 rows"), "{e}");
    let e = refusal(edited("loaded_at_step", 5)).expect("a window loaded after the checkpoint's step is refused");
    assert!(e.contains("`data.loaded_at_step` = 5 is after the checkpoint's step 0"), "{e}");
}
