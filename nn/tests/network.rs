//! [`Network`]: batches of packed positions decoded one by one, each
//! evaluation the heads' outputs of its own position (on the fast path and
//! on burn's), inputs of the wrong shape refused, and a network loaded from
//! a file evaluating as the model it was exported from.

mod common;

use common::{assert_close, inputs, random_net, spec, Rng};
use pacozero_data::{decode_into, GameSpec};
use pacozero_nn::{default_device, export_model, EvalInput, ModelInfo, NetConfig, Network};

fn info() -> ModelInfo {
    ModelInfo { name: "net-a".into(), step: 7, samples_seen: 70, provenance: None }
}

/// A network of random weights on an oblong board: 4x5, 3 bit planes, 2 scalars, 23 policy slots.
fn network(reply_policy: bool) -> (NetConfig, Network) {
    let net = NetConfig { reply_policy, ..NetConfig::tiny_for(&spec(4, 5, 3, 2, 23)) };
    let model = random_net(&net, 21);
    let network = Network::from_model(model, net.clone(), info(), &default_device(), 2).unwrap();
    (net, network)
}

#[test]
fn the_network_knows_its_architecture_name_and_policy_size() {
    let (net, mut network) = network(false);
    assert_eq!(network.config(), &net);
    assert_eq!(network.info(), &info());
    assert_eq!(network.policy_size(), 23);
    // The fast path is the default on the CPU (unless the environment turns it off).
    if std::env::var_os("PACOZERO_FASTNET").is_none() {
        assert!(network.uses_fastnet());
    }
    network.set_fastnet(false);
    assert!(!network.uses_fastnet());
    network.set_fastnet(true);
    assert!(network.uses_fastnet());
}

/// Each evaluation is its own position's row of the heads' outputs, on
/// both paths: policy logits as they are, the WDL probabilities, and the
/// moves left as `exp(output) - 1`, at least 0.
#[test]
fn each_evaluation_holds_the_heads_of_its_own_position() {
    let (net, mut network) = network(false);
    let p = 23;
    for batch in [3, 17] {
        let x = inputs(&net, batch, 5 + batch as u64);
        let mut by_path = Vec::new();
        for fast in [true, false] {
            network.set_fastnet(fast);
            let heads = network.forward_heads(x.clone(), batch, fast);
            let evals = network.evaluate_dense(x.clone(), batch);
            assert_eq!(evals.len(), batch);
            for (i, e) in evals.iter().enumerate() {
                let tag = format!("fast {fast} batch {batch} position {i}");
                assert_close(&format!("{tag} policy"), &e.policy_logits, &heads.policy[i * p..(i + 1) * p], 1e-6);
                assert_close(&format!("{tag} wdl"), &e.wdl, &heads.wdl[3 * i..3 * i + 3], 1e-6);
                let ml = heads.moves_left[i].exp_m1().max(0.0);
                assert_close(&format!("{tag} moves left"), &[e.moves_left], &[ml], 1e-6);
                assert!((e.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{tag}: {:?}", e.wdl);
            }
            // The positions differ, so a row read from another position shows.
            assert!(evals[0].policy_logits != evals[1].policy_logits && evals[1].wdl != evals[2].wdl);
            // FastNet computes no auxiliary heads; burn's forward pass computes them all.
            assert_eq!(heads.aux.as_ref().map(Vec::len), (!fast).then_some(batch * 2));
            assert!(heads.reply.is_none());
            by_path.push(heads);
        }
        assert_close("fast vs burn policy", &by_path[0].policy, &by_path[1].policy, 1e-4);
        assert_close("fast vs burn wdl", &by_path[0].wdl, &by_path[1].wdl, 1e-4);
        assert_close("fast vs burn moves left", &by_path[0].moves_left, &by_path[1].moves_left, 1e-4);
    }
}

#[test]
fn burns_forward_pass_gives_the_reply_head_when_the_network_has_one() {
    let (net, network) = network(true);
    let x = inputs(&net, 2, 3);
    let heads = network.forward_heads(x.clone(), 2, false);
    let reply = heads.reply.unwrap();
    assert_eq!(reply.len(), 2 * 23);
    assert!(reply != heads.policy, "the reply head has weights of its own");
    assert!(network.forward_heads(x, 2, true).reply.is_none());
}

/// Packed positions (bit planes in 64-bit words, scalars) of the network's shape.
fn packed(spec: &GameSpec, n: usize, seed: u64) -> Vec<(Vec<u64>, Vec<f32>)> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| {
            let planes = (0..spec.plane_words()).map(|_| r.next()).collect();
            let scalars = (0..spec.scalars).map(|_| r.range(-1.0, 1.0)).collect();
            (planes, scalars)
        })
        .collect()
}

#[test]
fn a_batch_is_decoded_position_by_position() {
    let (net, network) = network(false);
    let spec = GameSpec::new("any", net.height, net.width, net.bit_planes, net.scalars, net.policy_size, &[]).unwrap();
    assert_eq!(spec.plane_words(), 3, "3 planes of 20 squares, a word each");
    let positions = packed(&spec, 4, 9);
    let batch: Vec<EvalInput> = positions.iter().map(|(p, s)| EvalInput { planes: p, scalars: s }).collect();
    let evals = network.evaluate_batch(&batch).unwrap();
    assert_eq!(evals.len(), 4);
    for (i, (planes, scalars)) in positions.iter().enumerate() {
        let mut x = vec![0.0; spec.input_len()];
        decode_into(&spec, planes, scalars, &mut x);
        let want = network.evaluate_dense(x, 1).remove(0);
        assert_close(&format!("position {i} policy"), &evals[i].policy_logits, &want.policy_logits, 1e-6);
        assert_close(&format!("position {i} wdl"), &evals[i].wdl, &want.wdl, 1e-6);
    }
    assert!(evals[0].policy_logits != evals[3].policy_logits);
    assert!(network.evaluate_batch(&[]).unwrap().is_empty());
}

/// `evaluate_each` hands out what `evaluate_batch` returns, to the bit, on
/// FastNet (buffers kept between batches: a large batch, a small one, a
/// large one again) and on burn; and refuses a wrong input alike.
#[test]
fn evaluate_each_hands_out_what_evaluate_batch_returns() {
    let (net, mut network) = network(false);
    let spec = GameSpec::new("any", net.height, net.width, net.bit_planes, net.scalars, net.policy_size, &[]).unwrap();
    for fast in [true, false] {
        network.set_fastnet(fast);
        for (n, seed) in [(40, 1), (3, 2), (40, 3)] {
            let positions = packed(&spec, n, seed);
            let batch: Vec<EvalInput> = positions.iter().map(|(p, s)| EvalInput { planes: p, scalars: s }).collect();
            let want = network.evaluate_batch(&batch).unwrap();
            let mut seen = 0;
            network
                .evaluate_each(&batch, |i, logits, wdl, moves_left| {
                    assert_eq!(i, seen, "in order");
                    assert_eq!(
                        (logits, wdl, moves_left.to_bits()),
                        (&want[i].policy_logits[..], want[i].wdl, want[i].moves_left.to_bits()),
                        "fast {fast}, batch of {n}: position {i}"
                    );
                    seen += 1;
                })
                .unwrap();
            assert_eq!(seen, n);
        }
        let (planes, scalars) = (vec![1u64; 3], vec![0.5f32; 2]);
        let short = EvalInput { planes: &planes[..2], scalars: &scalars };
        let e = network.evaluate_each(&[short], |_, _, _, _| panic!("nothing to hand out")).unwrap_err().to_string();
        assert_eq!(e, "invalid configuration: input 0: 2 plane words and 2 scalars, the model expects 3 and 2");
    }
}

#[test]
fn an_input_of_the_wrong_shape_is_refused_naming_the_counts() {
    let (_, network) = network(false);
    let (planes, scalars) = (vec![1u64; 3], vec![0.5f32; 2]);
    let good = EvalInput { planes: &planes, scalars: &scalars };
    let short = EvalInput { planes: &planes[..2], scalars: &scalars };
    let e = network.evaluate_batch(&[good, short]).unwrap_err().to_string();
    assert_eq!(e, "invalid configuration: input 1: 2 plane words and 2 scalars, the model expects 3 and 2");
    let few = EvalInput { planes: &planes, scalars: &scalars[..1] };
    let e = network.evaluate_batch(&[few]).unwrap_err().to_string();
    assert_eq!(e, "invalid configuration: input 0: 3 plane words and 1 scalars, the model expects 3 and 2");
}

#[test]
fn a_loaded_network_evaluates_as_the_model_it_was_exported_from() {
    let net = NetConfig::tiny_for(&spec(8, 8, 4, 1, 50));
    let model = random_net(&net, 31);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.pzmodel");
    export_model(&model, &net, &info(), &path).unwrap();
    let x = inputs(&net, 3, 4);
    let want = Network::from_model(model, net.clone(), info(), &default_device(), 1).unwrap().evaluate_dense(x.clone(), 3);
    for loaded in [Network::load(&path, 1).unwrap(), Network::load_on(&path, &default_device(), 0).unwrap()] {
        assert_eq!((loaded.config(), loaded.info()), (&net, &info()));
        assert_eq!(loaded.evaluate_dense(x.clone(), 3), want);
    }
    let e = Network::load(&dir.path().join("none.pzmodel"), 1).err().unwrap().to_string();
    assert!(e.starts_with(&format!("{}: I/O error: ", dir.path().join("none.pzmodel").display())), "{e}");
}
