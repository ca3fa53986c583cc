//! [`NetworkEvaluator`] as the search's leaf evaluator: the priors are the
//! softmax of the network's logits over each position's legal actions, the
//! WDL is the network's, and a network reading another encoding than the
//! game's own encodes the positions itself.

mod common;

use common::random_net;
use pacozero_data::{spec_of, spec_of_encoding};
use pacozero_engine::paco::GameState;
use pacozero_engine::prelude::*;
use pacozero_engine::GameKind;
use pacozero_nn::{default_device, EvalInput, ModelInfo, NetConfig, Network, NetworkEvaluator};
use pacozero_search::{EvalOutput, EvalRequest, Evaluator};

fn evaluator(net: &NetConfig, seed: u64) -> NetworkEvaluator {
    let info = ModelInfo::untrained("gen-x");
    let network = Network::from_model(random_net(net, seed), net.clone(), info, &default_device(), 1).unwrap();
    NetworkEvaluator { net: network, id: "eval-id".into() }
}

/// The start and a few random starting positions, with their legal actions.
fn states() -> Vec<(GameState, Vec<u16>)> {
    let mut v = vec![GameState::start()];
    v.extend((1..4).map(GameState::random_start));
    v.into_iter()
        .map(|s| {
            let mut legal = Vec::new();
            s.legal_actions(&mut legal);
            (s, legal)
        })
        .collect()
}

/// `softmax(logits[legal])`, by hand.
fn softmax_over(logits: &[f32], legal: &[u16]) -> Vec<f32> {
    let max = legal.iter().map(|&a| logits[a as usize]).fold(f32::MIN, f32::max);
    let e: Vec<f32> = legal.iter().map(|&a| (logits[a as usize] - max).exp()).collect();
    let s: f32 = e.iter().sum();
    e.iter().map(|x| x / s).collect()
}

/// The evaluator's output for `states` against the network's own
/// evaluation of each position encoded in `encoding` (an index of the
/// game's encodings); `encode` says whether the requests carry the game's
/// own encoding (as search does when the evaluator needs it).
fn check(ev: &NetworkEvaluator, encoding: usize, encode: bool) {
    let states = states();
    let spec = spec_of(GameKind::Paco);
    let own: Vec<(Vec<u64>, Vec<f32>)> = states
        .iter()
        .map(|(s, _)| {
            let (mut planes, mut scalars) = (vec![0u64; spec.plane_words()], vec![0f32; spec.scalars as usize]);
            if encode {
                s.encode(&mut planes, &mut scalars);
            }
            (planes, scalars)
        })
        .collect();
    let requests: Vec<EvalRequest<GameState>> =
        states.iter().zip(&own).map(|((state, legal), (planes, scalars))| EvalRequest { state, legal, planes, scalars }).collect();
    let mut out = EvalOutput::default();
    ev.evaluate(&requests, &mut out).unwrap();
    assert_eq!(out.wdl.len(), states.len());
    let e = &GameState::ENCODINGS[encoding];
    for (i, (state, legal)) in states.iter().enumerate() {
        let (mut planes, mut scalars) = (vec![0u64; e.num_bit_planes()], vec![0f32; e.num_scalars()]);
        state.encode_as(encoding, &mut planes, &mut scalars);
        let want = ev.net.evaluate_batch(&[EvalInput { planes: &planes, scalars: &scalars }]).unwrap().remove(0);
        let priors = out.priors_of(i);
        assert_eq!(priors.len(), legal.len());
        let by_hand = softmax_over(&want.policy_logits, legal);
        for (k, (p, q)) in priors.iter().zip(&by_hand).enumerate() {
            assert!((p - q).abs() < 1e-5, "position {i} action {k}: {p} vs {q}");
        }
        assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        for k in 0..3 {
            assert!((out.wdl[i][k] - want.wdl[k]).abs() < 1e-5, "position {i}: {:?} vs {:?}", out.wdl[i], want.wdl);
        }
    }
    // The priors are not uniform: they follow the logits.
    let first = out.priors_of(0);
    assert!(first.iter().cloned().fold(f32::MIN, f32::max) - first.iter().cloned().fold(f32::MAX, f32::min) > 1e-4);
}

#[test]
fn a_network_of_the_games_own_encoding_reads_the_searchs_inputs() {
    let net = NetConfig::tiny_for(&spec_of(GameKind::Paco));
    let ev = evaluator(&net, 41);
    assert_eq!(Evaluator::<GameState>::name(&ev), "eval-id");
    assert!(Evaluator::<GameState>::needs_encoding(&ev));
    assert_eq!(Evaluator::<GameState>::encoding(&ev).as_deref(), Some("pacozero"));
    check(&ev, 0, true);
}

#[test]
fn a_network_of_the_platforms_encoding_encodes_the_positions_itself() {
    let net = NetConfig::tiny_for(&spec_of_encoding(GameKind::Paco, "platform").unwrap());
    let ev = evaluator(&net, 42);
    assert!(!Evaluator::<GameState>::needs_encoding(&ev));
    assert_eq!(Evaluator::<GameState>::encoding(&ev).as_deref(), Some("platform"));
    // The requests carry no encoding (all zeros): the evaluator's own is used.
    check(&ev, 1, false);
}

#[test]
fn a_network_of_an_encoding_the_game_lacks_is_refused() {
    let net = NetConfig { encoding: "other".into(), ..NetConfig::tiny_for(&spec_of(GameKind::Paco)) };
    let ev = evaluator(&net, 43);
    assert!(!Evaluator::<GameState>::needs_encoding(&ev));
    let (state, legal) = &states()[0];
    let request = EvalRequest { state, legal, planes: &[], scalars: &[] };
    let e = ev.evaluate(&[request], &mut EvalOutput::default()).unwrap_err().to_string();
    assert_eq!(e, r#"network eval-id: paco has no input encoding "other" (it has: pacozero, platform)"#);
}
