//! [`QuiescentEvaluator`]: the inner evaluator's priors at the leaf, its
//! value at the end of the leaf's capture line, from the leaf mover's side.

use pacozero_engine::prelude::*;
use pacozero_engine::{paco, shako, Game};
use pacozero_search::{EvalOutput, EvalRequest, Evaluator, QuiescentEvaluator};

/// A stand-in network: priors rising with the action index, and the value
/// the material says (won ahead, lost behind, drawn level) for the mover.
struct Material;

impl<G: GameRules> Evaluator<G> for Material {
    fn name(&self) -> String {
        "material".into()
    }
    fn needs_encoding(&self) -> bool {
        false
    }
    fn evaluate(&self, batch: &[EvalRequest<'_, G>], out: &mut EvalOutput) -> anyhow::Result<()> {
        out.reset(batch);
        for (i, r) in batch.iter().enumerate() {
            let sum: f32 = r.legal.iter().map(|&a| 1.0 + a as f32).sum();
            for (p, &a) in out.priors_of_mut(i).iter_mut().zip(r.legal) {
                *p = (1.0 + a as f32) / sum;
            }
            let white = r.state.material_balance().unwrap_or(0);
            let mover = if r.state.to_move() == pacozero_engine::Color::White { white } else { -white };
            out.wdl[i] = match mover.signum() {
                1 => [1.0, 0.0, 0.0],
                -1 => [0.0, 0.0, 1.0],
                _ => [0.0, 1.0, 0.0],
            };
        }
        Ok(())
    }
}

/// What `evaluator` says of `states`, in one batch.
fn evaluate<G: Game>(evaluator: &impl Evaluator<G>, states: &[G]) -> EvalOutput {
    let legal: Vec<Vec<u16>> = states
        .iter()
        .map(|s| {
            let mut l = Vec::new();
            s.playable_actions(&mut l);
            l
        })
        .collect();
    let batch: Vec<EvalRequest<'_, G>> = states.iter().zip(&legal).map(|(state, legal)| EvalRequest { state, legal, planes: &[], scalars: &[] }).collect();
    let mut out = EvalOutput::default();
    evaluator.evaluate(&batch, &mut out).unwrap();
    out
}

/// The inner evaluator's and the quiescent one's outputs for `states`.
fn both<G: Game>(states: &[G]) -> (EvalOutput, EvalOutput) {
    (evaluate(&Material, states), evaluate(&QuiescentEvaluator { inner: Material, material: 0.0 }, states))
}

fn shako(fen: &str) -> shako::GameState {
    shako::GameState::from_fen(fen).unwrap()
}

#[test]
fn a_leaf_is_valued_where_its_captures_end_and_keeps_its_priors() {
    let states = [
        // Quiet: the start.
        shako::GameState::startpos(),
        // White, a queen down, takes it with a pawn: a pawn up at the end.
        shako("4k5/10/10/10/10/4q5/5P4/10/10/5K4 w - - 0 1"),
        // The same with Black to move: the queen steps away (no capture pays), so
        // the leaf is quiet and Black, ahead, is winning.
        shako("4k5/10/10/10/10/4q5/5P4/10/10/5K4 b - - 0 1"),
        // White's queen is ahead; taking the defended knight would lose it.
        shako("k9/10/4p5/3n6/10/10/10/10/10/3Q1K4 w - - 0 1"),
    ];
    let (plain, quiet) = both(&states);
    assert_eq!(plain.priors, quiet.priors);
    assert_eq!(plain.offsets, quiet.offsets);
    assert_eq!(plain.wdl[1], [0.0, 0.0, 1.0], "before the capture, White is a queen down");
    let want = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
    assert_eq!(quiet.wdl, want);
}

#[test]
fn a_capture_line_that_ends_the_game_gives_its_result() {
    // Black's rook takes the knight on a1 and mates: the other rook holds
    // the second rank, and White has nothing to take or block with.
    let g = shako("k9/10/10/10/10/r9/10/10/1r8/N8K b - - 0 1");
    let mut line = Vec::new();
    g.capture_line(&mut line);
    assert!(!line.is_empty(), "the queen's capture is a line");
    let mut end = g.clone();
    for &a in &line {
        end.apply(a);
    }
    let (_, quiet) = both(std::slice::from_ref(&g));
    match end.outcome() {
        Some(pacozero_engine::Outcome::Win(c)) => {
            assert_eq!(c, pacozero_engine::Color::Black);
            assert_eq!(quiet.wdl[0], [1.0, 0.0, 0.0]);
        }
        other => panic!("the line {line:?} should mate, it ends {other:?} in {}", end.notation()),
    }
}

#[test]
fn games_without_captures_are_evaluated_as_before() {
    let mut states = vec![paco::GameState::start()];
    for n in 0..8 {
        states.push(paco::GameState::random_start(n));
    }
    let (plain, quiet) = both(&states);
    assert_eq!((plain.priors, plain.wdl), (quiet.priors, quiet.wdl));
}

#[test]
fn the_material_weight_mixes_the_lines_balance_into_the_value() {
    use pacozero_search::{material_wdl, MATERIAL_SCALE};
    let states = [shako::GameState::startpos(), shako("4k5/10/10/10/10/4q5/5P4/10/10/5K4 w - - 0 1"), shako("k9/10/10/10/10/r9/10/10/1r8/N8K b - - 0 1")];
    let out = evaluate(&QuiescentEvaluator { inner: Material, material: 0.25 }, &states);
    // The start: level, the network's draw and the material's even odds.
    assert_eq!(out.wdl[0], [0.125, 0.75, 0.125]);
    // A pawn up after the capture: the network's win, the material's tanh(1/3).
    let t = (1.0 / MATERIAL_SCALE).tanh();
    let want = [0.75 + 0.25 * (1.0 + t) / 2.0, 0.0, 0.25 * (1.0 - t) / 2.0];
    for k in 0..3 {
        assert!((out.wdl[1][k] - want[k]).abs() < 1e-6, "{:?} vs {want:?}", out.wdl[1]);
    }
    // A line that mates is the game's result, not a mix.
    assert_eq!(out.wdl[2], [1.0, 0.0, 0.0]);
    assert_eq!((material_wdl(10_000), material_wdl(-10_000)), ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0]));
}
