//! Training batches: rows of a window decoded into the host tensors of one
//! training step, with their targets and the game's mirror symmetry. The
//! trainer and the Python package's data iterator build the same batches.

use pacozero_data::{decode_into, GameSpec, PositionRow};
use pacozero_engine::{encoding_index, Game, GameKind, GameVisitor};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::targets::Targets;

/// A game's mirror, from its [`Game`] hooks (a game without one never
/// mirrors a row), for the planes of one of its encodings.
#[derive(Clone, Copy)]
struct Symmetry {
    planes: fn(usize, &mut [u64]) -> bool,
    /// The index in `Game::ENCODINGS` of the rows' encoding.
    encoding: usize,
    action: fn(usize) -> usize,
}

impl Symmetry {
    /// The mirror of the data of `spec`: of the registered game it names,
    /// in its encoding (an unknown game or encoding has none).
    fn of(spec: &GameSpec) -> Option<Symmetry> {
        struct Of<'a>(&'a str);
        impl GameVisitor for Of<'_> {
            type Output = Option<Symmetry>;
            fn visit<G: Game>(self) -> Option<Symmetry> {
                let encoding = encoding_index::<G>(self.0).ok()?;
                Some(Symmetry { planes: G::mirror_planes_as, encoding, action: G::mirror_action_index })
            }
        }
        spec.game.parse::<GameKind>().ok()?.visit(Of(&spec.encoding))
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
    /// game has a mirror for it ([`Game::mirror_planes`]: Paco Ŝako's a ↔ h
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
            for (t, &v) in b.aux[k * naux..(k + 1) * naux].iter_mut().zip(&r.aux_targets) {
                *t = v as u8 as f32;
            }
            b.result[k] = r.result;
        }
        b
    }
}
