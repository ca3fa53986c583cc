//! The network evaluator: a tiny untrained network drives search and
//! self-play; rows carry the model's name.

use pacozero_data::game_spec;
use pacozero_engine::paco::GameState;
use pacozero_nn::{default_device, ModelInfo, NetConfig, Network, NetworkEvaluator};
use pacozero_search::{search, Algorithm, Evaluator, SearchConfig};
use pacozero_selfplay::{bench_mcts, run_selfplay, SelfplayConfig};
use rand::SeedableRng;

fn tiny() -> NetworkEvaluator {
    let spec = game_spec::<GameState>();
    let net = NetConfig::tiny_for(&spec);
    let device = default_device();
    let model = net.init(&device).unwrap();
    let info = ModelInfo::untrained("gen-test");
    NetworkEvaluator { net: Network::from_model(model, net, info, &device, 1).unwrap(), id: "gen-test".into() }
}

#[test]
fn network_evaluator_searches_and_plays() {
    let ev = tiny();
    assert_eq!(Evaluator::<GameState>::name(&ev), "gen-test");
    let g = <GameState as pacozero_engine::GameRules>::start();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let r = search(&SearchConfig { algorithm: Algorithm::Gumbel, ..SearchConfig::default() }, &g, &ev, 16, true, &mut rng).unwrap();
    assert_eq!(r.simulations, 16);
    assert!((r.policy.iter().sum::<f32>() - 1.0).abs() < 1e-3);
    let dir = tempfile::tempdir().unwrap();
    let cfg = SelfplayConfig {
        threads: 2,
        games_per_thread: 4,
        max_decisions: 20,
        search: SearchConfig { full_simulations: 8, cheap_simulations: 2, ..SearchConfig::default() },
        ..SelfplayConfig::default()
    };
    let s = run_selfplay::<GameState, _>(&cfg, &ev, dir.path(), 4, false).unwrap();
    assert_eq!(s.games, 4);
    eprintln!("{s}");
    let chunks = pacozero_data::list_chunks(dir.path()).unwrap();
    let (_, rows, games) = pacozero_data::read_chunk(&chunks[0]).unwrap();
    assert!(rows.iter().all(|r| r.network_id == "gen-test"));
    assert!(games.iter().all(|g| g.network_id == "gen-test"));
}

#[test]
fn network_evaluator_bench() {
    let ev = tiny();
    let r = bench_mcts::<GameState, _>(&SearchConfig::default(), &ev, 2, 32, 3.0).unwrap();
    eprintln!("{r}");
    assert!(r.simulations > 0 && r.eval_fraction > 0.0);
}
