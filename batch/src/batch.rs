//! Training batches: rows of a window decoded into the host tensors of one
//! training step, with their targets and the game's mirror symmetry. The
//! trainer and the Python package's data iterator build the same batches.

use pacozero_data::{decode_into, GameSpec, PositionRow};
use pacozero_engine::{encoding_index, Game, GameKind};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::targets::{moves_left_weight, Targets};

/// A game's mirror, from its [`Game`] hooks (a game without one never
/// mirrors a row), for the planes of one of its encodings.
#[derive(Clone, Copy)]
struct Symmetry {
    planes: fn(usize, &mut [u64]) -> bool,
    /// The index in `Encode::ENCODINGS` of the rows' encoding.
    encoding: usize,
    action: fn(usize) -> usize,
}

impl Symmetry {
    /// The mirror of the data of `spec`: of the registered game it names,
    /// in its encoding (an unknown game or encoding has none).
    fn of(spec: &GameSpec) -> Option<Symmetry> {
        fn of<G: Game>(encoding: &str) -> Option<Symmetry> {
            let encoding = encoding_index::<G>(encoding).ok()?;
            Some(Symmetry { planes: G::mirror_planes_as, encoding, action: G::mirror_action_index })
        }
        let kind = spec.game.parse::<GameKind>().ok()?;
        pacozero_engine::with_game!(kind, G => of::<G>(&spec.encoding))
    }
}

/// The order in which the trainer visits the `n` rows of a window: a
/// ChaCha8 shuffle of `0..n` seeded with `seed` (the trainer draws one seed
/// per window from its RNG, itself seeded with `train.seed`).
pub fn permutation(n: usize, seed: u64) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n as u32).collect();
    p.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    p
}

/// A decoded batch on the host: the tensors of one training step (also what
/// the Python package's data iterator yields).
pub struct Batch {
    pub n: usize,
    pub c: usize,
    pub h: usize,
    pub w: usize,
    pub p: usize,
    pub x: Vec<f32>,
    /// 0 on legal slots, -1e9 on illegal ones.
    pub mask: Vec<f32>,
    pub policy: Vec<f32>,
    /// Row weight × full_search.
    pub policy_w: Vec<f32>,
    pub wdl: Vec<f32>,
    pub row_w: Vec<f32>,
    pub moves_left: Vec<f32>,
    /// Row weight × [`crate::targets::moves_left_weight`]: 0 for a
    /// truncated game's rows, whose decisions to the cut are no target.
    pub moves_left_w: Vec<f32>,
    /// Auxiliary targets per row: the game's ([`GameSpec::aux_targets`]).
    pub naux: usize,
    /// The auxiliary targets, `[n, naux]` row-major, 0 or 1.
    pub aux: Vec<f32>,
    pub result: Vec<i8>,
    /// The opponent's reply policy ([`crate::targets::reply_rows`]), its
    /// mask (as `mask`) and its row weight (0 without a reply target).
    pub reply: Vec<f32>,
    pub reply_mask: Vec<f32>,
    pub reply_w: Vec<f32>,
}

impl Batch {
    /// Decodes rows `idx` of `rows`; `q_mix` is `train.value_q_mix`.
    pub fn build(spec: &GameSpec, rows: &[PositionRow], idx: &[u32], q_mix: f64) -> Batch {
        Self::build_mirrored(spec, rows, idx, &Targets::root(q_mix), &|_| false)
    }

    /// [`Batch::build`] where the `k`-th row of the batch is mirrored (its
    /// planes and its policy indices) when `mirror(k)` says so and the row's
    /// game has a mirror for it ([`Encode::mirror_planes`](pacozero_engine::Encode::mirror_planes): Paco Ŝako's a ↔ h
    /// file mirror, for rows without a castling right).
    /// The value targets mix and the reply targets come as `targets` says
    /// ([`crate::targets`]).
    pub fn build_mirrored(spec: &GameSpec, rows: &[PositionRow], idx: &[u32], targets: &Targets, mirror: &dyn Fn(usize) -> bool) -> Batch {
        let n = idx.len();
        let (c, h, w, p) = (spec.input_channels(), spec.board_height as usize, spec.board_width as usize, spec.policy_size as usize);
        let len = spec.input_len();
        let naux = spec.num_aux_targets();
        let mut b = Batch {
            n,
            c,
            h,
            w,
            p,
            x: vec![0.0; n * len],
            mask: vec![-1e9; n * p],
            policy: vec![0.0; n * p],
            policy_w: vec![0.0; n],
            wdl: vec![0.0; n * 3],
            row_w: vec![0.0; n],
            moves_left: vec![0.0; n],
            moves_left_w: vec![0.0; n],
            naux,
            aux: vec![0.0; n * naux],
            result: vec![0; n],
            reply: if targets.reply.is_empty() { Vec::new() } else { vec![0.0; n * p] },
            reply_mask: if targets.reply.is_empty() { Vec::new() } else { vec![-1e9; n * p] },
            reply_w: vec![0.0; n],
        };
        let symmetry = Symmetry::of(spec);
        let mut flipped: Vec<u64> = Vec::new();
        for (k, &i) in idx.iter().enumerate() {
            let r = &rows[i as usize];
            let mirrored = symmetry.is_some_and(|s| {
                mirror(k) && {
                    flipped.clear();
                    flipped.extend_from_slice(&r.planes);
                    (s.planes)(s.encoding, &mut flipped)
                }
            });
            let planes = if mirrored { &flipped } else { &r.planes };
            decode_into(spec, planes, &r.scalars, &mut b.x[k * len..(k + 1) * len]);
            for (&a, &pr) in r.legal_actions.iter().zip(&r.policy) {
                let a = match symmetry {
                    Some(s) if mirrored => (s.action)(a as usize),
                    _ => a as usize,
                };
                b.mask[k * p + a] = 0.0;
                b.policy[k * p + a] = pr;
            }
            b.row_w[k] = r.weight;
            b.policy_w[k] = if r.full_search && !r.legal_actions.is_empty() { r.weight } else { 0.0 };
            b.wdl[k * 3..k * 3 + 3].copy_from_slice(&targets.value(rows, i as usize));
            if let Some(&Some(j)) = targets.reply.get(i as usize) {
                let reply = &rows[j as usize];
                for (&a, &pr) in reply.legal_actions.iter().zip(&reply.policy) {
                    // The reply comes later in the same game: no castling right
                    // can have come back, so it mirrors whenever this row does.
                    let a = match symmetry {
                        Some(s) if mirrored => (s.action)(a as usize),
                        _ => a as usize,
                    };
                    b.reply_mask[k * p + a] = 0.0;
                    b.reply[k * p + a] = pr;
                }
                b.reply_w[k] = r.weight;
            }
            b.moves_left[k] = (r.moves_left as f32).ln_1p();
            b.moves_left_w[k] = r.weight * moves_left_weight(r);
            for (t, &v) in b.aux[k * naux..(k + 1) * naux].iter_mut().zip(&r.aux_targets) {
                *t = v as u8 as f32;
            }
            b.result[k] = r.result;
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of a 2x2 game of one plane and four slots.
    fn row(game_id: u64, ply: u32, truncated: bool) -> PositionRow {
        PositionRow {
            game_id,
            ply,
            side_to_move: (ply % 2) as u8,
            planes: vec![0b1001],
            scalars: Vec::new(),
            legal_actions: vec![0, 2],
            policy: vec![0.25, 0.75],
            full_search: true,
            root_q: 0.3,
            root_wdl: [0.5, 0.3, 0.2],
            action: 2,
            result: 1,
            moves_left: 7,
            aux_targets: Vec::new(),
            weight: 2.0,
            network_id: String::new(),
            truncated,
        }
    }

    /// A batch trains a truncated game's row on its search value and no
    /// moves left, and a decided game's row on its result and its moves
    /// left; everything else alike.
    #[test]
    fn a_truncated_row_trains_its_search_value_and_no_moves_left() {
        let spec = GameSpec::new("g", 2, 2, 1, 0, 4, &[]).unwrap();
        let rows = vec![row(1, 0, false), row(2, 0, true)];
        let b = Batch::build(&spec, &rows, &[0, 1], 0.25);
        assert_eq!(&b.wdl[..3], &[0.75 + 0.25 * 0.5, 0.25 * 0.3, 0.25 * 0.2], "decided: the result, mixed");
        assert_eq!(&b.wdl[3..], &[0.5, 0.3, 0.2], "truncated: the root WDL alone");
        assert_eq!(b.moves_left, [8f32.ln(), 8f32.ln()]);
        assert_eq!(b.moves_left_w, [2.0, 0.0]);
        assert_eq!((b.row_w, b.policy_w), (vec![2.0, 2.0], vec![2.0, 2.0]));
        assert_eq!(&b.policy[..4], &b.policy[4..]);
    }
}
