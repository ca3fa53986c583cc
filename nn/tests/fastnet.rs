//! FastNet (the CPU inference path) against burn's forward pass of the same
//! network, on random networks of several shapes: both convolution routes
//! (direct and im2col), with and without squeeze-excitation and global
//! pooling, square and oblong boards, inputs wider and narrower than the
//! tower, batches run in one piece, in several pieces and split across a
//! thread pool; the fully connected policy head and the conv one.

mod common;

use burn::prelude::*;
use burn::tensor::activation::softmax;
use burn::tensor::TensorData;
use common::{assert_close, inputs, random_net, spec, spread};
use pacozero_data::spec_of_encoding;
use pacozero_engine::GameKind;
use pacozero_nn::{FastNet, NetConfig, PacoNet, PolicyHead};

/// burn's outputs for `x` (`[B, Ci, H, W]`): policy logits, WDL
/// probabilities (softmax of the value head), moves left.
fn burn_forward(model: &PacoNet, net: &NetConfig, x: &[f32], batch: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let (c, h, w) = (net.input_channels(), net.height as usize, net.width as usize);
    let t = Tensor::<4>::from_data(TensorData::new(x.to_vec(), [batch, c, h, w]), &Device::flex()); // [B, Ci, H, W]
    let out = model.forward(t);
    let floats = |t: Tensor<2>| t.into_data().try_into_vec_as::<f32>().unwrap();
    (floats(out.policy), floats(softmax(out.wdl, 1)), floats(out.moves_left))
}

/// A rayon pool of `threads` threads.
fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

/// FastNet and burn agree on `batches` of positions, run on pools of 1 and 3 threads.
fn check(tag: &str, net: &NetConfig, seed: u64, batches: &[usize]) {
    net.validate().unwrap();
    let model = random_net(net, seed).valid();
    let fast = FastNet::from_model(&model, net).unwrap();
    assert_eq!(fast.policy_size(), net.policy_size as usize, "{tag}");
    assert_eq!(fast.input_len(), net.input_channels() * net.squares(), "{tag}");
    for &batch in batches {
        let x = inputs(net, batch, seed * 100 + batch as u64);
        let (policy, wdl, ml) = burn_forward(&model, net, &x, batch);
        for threads in [1, 3] {
            let f = pool(threads).install(|| fast.forward(&x, batch));
            let tag = format!("{tag} batch {batch} threads {threads}");
            assert_close(&format!("{tag} policy"), &f.policy, &policy, 1e-4);
            assert_close(&format!("{tag} wdl"), &f.wdl, &wdl, 1e-4);
            assert_close(&format!("{tag} moves_left"), &f.moves_left, &ml, 1e-4);
        }
        // Not a degenerate comparison: the policy varies across slots, and
        // the value and the policy across positions.
        assert!(spread(&policy) > 1e-3, "{tag}: flat policy");
        if batch > 1 {
            let p = net.policy_size as usize;
            assert!(spread(&[wdl[0], wdl[3]]) > 1e-6 || spread(&[wdl[1], wdl[4]]) > 1e-6, "{tag}: the same value for two positions");
            assert!(spread(&[policy[0], policy[p]]) > 1e-6, "{tag}: the same policy for two positions");
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn arch(h: u32, w: u32, bit_planes: u32, scalars: u32, policy: u32, blocks: u32, channels: u32, se_ratio: u32, pc: u32, vc: u32, vh: u32) -> NetConfig {
    NetConfig {
        blocks,
        channels,
        se_ratio,
        policy_channels: pc,
        value_channels: vc,
        value_hidden: vh,
        ..NetConfig::default_for(&spec(h, w, bit_planes, scalars, policy))
    }
}

#[test]
fn the_direct_convolution_tower_matches_burn() {
    // 16 channels on 8x8: every tower convolution runs conv3x3's direct kernel.
    let net = arch(8, 8, 4, 1, 50, 2, 16, 4, 8, 4, 32);
    check("8x8 2x16 se4", &net, 1, &[1, 3, 17]);
    // 24 channels (three vectors a tile), SE bottleneck of 8.
    let net = arch(8, 8, 5, 1, 30, 1, 24, 3, 4, 5, 16);
    check("8x8 1x24 se3", &net, 2, &[1, 3, 17]);
}

#[test]
fn the_winograd_tower_matches_burn() {
    // Whole vectors of 16 channels, 32 or more: Winograd's F(2x2, 3x3) on
    // Paco Ŝako's board, Shako's, and an odd one (6x7, Connect Four's:
    // tiles that overhang the board).
    let net = arch(8, 8, 4, 1, 50, 2, 32, 4, 8, 4, 32);
    check("8x8 2x32 se4", &net, 10, &[1, 3, 17]);
    let net = arch(10, 10, 6, 2, 60, 1, 48, 0, 8, 4, 32);
    check("10x10 1x48 no se", &net, 11, &[1, 3]);
    let net = arch(6, 7, 2, 0, 7, 1, 64, 2, 4, 3, 16);
    check("6x7 1x64 se2", &net, 12, &[1, 5]);
}

#[test]
fn the_im2col_tower_matches_burn() {
    // 12 channels (not whole vectors) on a 5x7 board (35 squares, not whole
    // tiles of 4), 23 input channels (wider than the tower), no SE.
    let net = arch(5, 7, 20, 3, 37, 2, 12, 0, 3, 2, 10);
    check("5x7 2x12 no se", &net, 3, &[1, 3, 17]);
}

#[test]
fn an_oblong_board_matches_burn() {
    // 4x6: 24 squares, whole tiles; 8 channels, SE without a bottleneck
    // (ratio 1), no scalar inputs.
    let net = arch(4, 6, 2, 0, 20, 2, 8, 1, 5, 5, 12);
    check("4x6 2x8 se1", &net, 4, &[1, 3, 17]);
}

#[test]
fn the_pooled_value_head_matches_burn() {
    // Three value channels: 2*3 = 6 features, unlike 2+3 or 3*64.
    let net = NetConfig { value_pool: true, ..arch(8, 8, 4, 1, 50, 1, 16, 4, 8, 3, 32) };
    check("8x8 pooled", &net, 5, &[1, 3, 17]);
    let net = NetConfig { value_pool: true, ..arch(5, 7, 20, 3, 37, 1, 12, 2, 3, 3, 10) };
    check("5x7 pooled", &net, 6, &[1, 3, 17]);
    let net = NetConfig { value_pool: true, ..arch(4, 6, 2, 0, 20, 1, 8, 1, 5, 5, 12) };
    check("4x6 pooled", &net, 7, &[3]);
}

/// On a board of two squares the pooled and the flat value head have the
/// same number of inputs (2 * Vc = Vc * 2); burn reads such a head flat.
#[test]
fn a_two_square_board_reads_the_value_head_flat() {
    let net = arch(1, 2, 3, 1, 6, 1, 8, 2, 2, 3, 8);
    assert_eq!(net.value_features(), 3 * 2);
    check("1x2", &net, 8, &[1, 3, 17]);
}

#[test]
fn a_wide_tower_runs_in_pieces_and_matches_burn() {
    // 72 channels on 8x8 go through im2col: 64 * 9 * 72 * 4 bytes = 165,888
    // a position, so a piece of 2 MiB holds 12 positions and batches of 17
    // and 30 run in 2 and 3 pieces on one thread.
    let net = arch(8, 8, 6, 1, 40, 1, 72, 8, 8, 4, 32);
    check("8x8 1x72", &net, 9, &[1, 17, 30]);
}

/// The conv policy head (a 3x3 convolution, 1x1 to the game's policy
/// planes, gathered per slot) on both games' boards: Shako's 95 planes of
/// 100 squares in both its encodings, Paco Ŝako's 6 planes whose last four
/// are read as plane means; with and without squeeze-excitation, policy
/// convolutions that run direct (8, 16) and through im2col (5).
#[test]
fn the_conv_policy_head_matches_burn() {
    for (game, encoding, se_ratio, pc, seed) in [
        (GameKind::Shako, "pacozero", 4, 8, 20),
        (GameKind::Shako, "threats", 0, 5, 21),
        (GameKind::Paco, "pacozero", 2, 16, 22),
        (GameKind::Paco, "platform", 0, 5, 23),
    ] {
        let spec = spec_of_encoding(game, encoding).unwrap();
        let net = NetConfig { blocks: 2, se_ratio, policy_channels: pc, policy_head: PolicyHead::Conv, ..NetConfig::tiny_for(&spec) };
        check(&format!("{game} {encoding} conv head"), &net, seed, &[1, 3, 17]);
    }
}

#[test]
fn forward_into_fills_the_callers_buffers_as_forward_does() {
    let net = arch(8, 8, 4, 1, 50, 1, 16, 4, 8, 4, 32);
    let model = random_net(&net, 10).valid();
    let fast = FastNet::from_model(&model, &net).unwrap();
    let batch = 5;
    let x = inputs(&net, batch, 11);
    let want = fast.forward(&x, batch);
    let (mut policy, mut wdl, mut ml) = (vec![f32::NAN; batch * 50], vec![f32::NAN; batch * 3], vec![f32::NAN; batch]);
    fast.forward_into(&x, batch, &mut policy, &mut wdl, &mut ml);
    assert_eq!((policy, wdl, ml), (want.policy.clone(), want.wdl.clone(), want.moves_left.clone()));
    // Each position's WDL is a distribution.
    for row in want.wdl.chunks(3) {
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5 && row.iter().all(|&p| p > 0.0), "{row:?}");
    }
    // An empty batch gives empty outputs.
    let empty = fast.forward(&[], 0);
    assert!(empty.policy.is_empty() && empty.wdl.is_empty() && empty.moves_left.is_empty());
}

#[test]
#[should_panic(expected = "input has the wrong length")]
fn an_input_of_the_wrong_length_is_refused() {
    let net = arch(8, 8, 4, 1, 50, 1, 16, 4, 8, 4, 32);
    let fast = FastNet::from_model(&random_net(&net, 12).valid(), &net).unwrap();
    fast.forward(&vec![0.0; 5 * 64 + 1], 1);
}

#[test]
fn a_network_of_another_architecture_is_refused() {
    let net = arch(8, 8, 4, 1, 50, 1, 16, 4, 8, 4, 32);
    let model = random_net(&net, 13).valid();
    // The weights of 16 channels read as 24 (SE bottleneck 24 / 4 = 6): the
    // message names the first tensor read and both shapes.
    let err = FastNet::from_model(&model, &NetConfig { channels: 24, ..net.clone() }).unwrap_err().to_string();
    assert!(err.contains("parameter `blocks.0.se.fc1.weight` has shape [16, 4], expected [24, 6]"), "{err}");
    // Without SE the first is the block's first convolution.
    let plain = NetConfig { se_ratio: 0, ..net.clone() };
    let model_plain = random_net(&plain, 14).valid();
    let err = FastNet::from_model(&model_plain, &NetConfig { channels: 24, ..plain }).unwrap_err().to_string();
    assert!(err.contains("parameter `blocks.0.a.conv.weight` has shape [16, 16, 3, 3], expected [24, 24, 3, 3]"), "{err}");
    // An invalid architecture is refused before any weight is read.
    let err = FastNet::from_model(&model, &NetConfig { blocks: 0, ..net }).unwrap_err().to_string();
    assert!(err.contains("net.blocks = 0 is out of range 1..=64"), "{err}");
}
