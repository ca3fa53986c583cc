//! The network on Shako: a tiny untrained network reads Shako positions
//! through the search and self-play.

use pacozero_data::game_spec;
use pacozero_engine::prelude::*;
use pacozero_engine::shako::GameState;
use pacozero_nn::{default_device, EvalInput, ModelInfo, NetConfig, Network, NetworkEvaluator};
use pacozero_search::{search, Algorithm, SearchConfig};
use pacozero_selfplay::{run_selfplay, SelfplayConfig, StartPositions};
use rand::SeedableRng;

/// A tiny untrained network reads Shako positions (10x10, 3,656 policy
/// slots); FastNet (the CPU path) agrees with burn's forward pass.
#[test]
fn shako_network_evaluator_and_fastnet_agree_with_burn() {
    let spec = game_spec::<GameState>();
    let net = NetConfig::tiny_for(&spec);
    let device = default_device();
    let make = || {
        let model = net.init(&device).unwrap();
        Network::from_model(model, net.clone(), ModelInfo::untrained("shako-test"), &device, 1).unwrap()
    };
    let mut net_a = make();
    let mut states = vec![GameState::start()];
    states.extend((0..5).map(GameState::random_start));
    let encoded: Vec<(Vec<u64>, Vec<f32>)> = states
        .iter()
        .map(|s| {
            let mut planes = vec![0u64; spec.plane_words()];
            let mut scalars = vec![0f32; spec.scalars as usize];
            s.encode(&mut planes, &mut scalars);
            (planes, scalars)
        })
        .collect();
    let inputs: Vec<EvalInput<'_>> = encoded.iter().map(|(p, s)| EvalInput { planes: p, scalars: s }).collect();
    net_a.set_fastnet(true);
    let fast = net_a.evaluate_batch(&inputs).unwrap();
    net_a.set_fastnet(false);
    let burn = net_a.evaluate_batch(&inputs).unwrap();
    for (f, b) in fast.iter().zip(&burn) {
        assert_eq!(f.policy_logits.len(), 3656);
        let max_diff = f.policy_logits.iter().zip(&b.policy_logits).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
        assert!(max_diff < 1e-3, "policy logits differ by {max_diff}");
        for k in 0..3 {
            assert!((f.wdl[k] - b.wdl[k]).abs() < 1e-4, "{:?} vs {:?}", f.wdl, b.wdl);
        }
    }

    let ev = NetworkEvaluator { net: make(), id: "shako-test".into() };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let r = search(&SearchConfig::default(), &GameState::start(), &ev, 16, true, &mut rng).unwrap();
    assert_eq!(r.simulations, 16);
    assert_eq!(r.legal.len(), 58);
    let dir = tempfile::tempdir().unwrap();
    // The configuration of selfplay/tests/shako_selfplay.rs (Gumbel, standard start), cut at 12 decisions.
    let cfg = SelfplayConfig {
        seed: 5,
        threads: 2,
        games_per_thread: 2,
        games_per_chunk: 2,
        max_decisions: 12,
        full_search_fraction: 0.5,
        start_positions: StartPositions::Standard,
        search: SearchConfig { algorithm: Algorithm::Gumbel, full_simulations: 8, cheap_simulations: 4, ..SearchConfig::default() },
        ..SelfplayConfig::default()
    };
    let s = run_selfplay::<GameState, _>(&cfg, &ev, dir.path(), 2, false).unwrap();
    assert_eq!(s.games, 2);
    let chunks = pacozero_data::list_chunks(dir.path()).unwrap();
    let (read_spec, rows, _) = pacozero_data::read_chunk(&chunks[0]).unwrap();
    assert_eq!(read_spec, spec);
    assert!(rows.iter().all(|r| r.network_id == "shako-test"));
}
