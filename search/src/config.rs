//! Search settings (`[search]` of a self-play, loop or book configuration),
//! read from TOML.
//!
//! Every key is optional (missing keys take the [`Default`] values);
//! unknown keys are errors. [`SearchConfig::validate`] range-checks every key
//! and names it in its error message.

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

/// Root search algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// AlphaZero PUCT with Dirichlet noise at the root and visit-count policy targets.
    Puct,
    /// Gumbel root search with sequential halving and completed-Q improved
    /// policy targets (Danihelka et al. 2022); interior nodes use the
    /// deterministic Gumbel MuZero selection rule.
    Gumbel,
}

/// Search settings (the `[search]` table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// Root algorithm: `"puct"` or `"gumbel"`.
    pub algorithm: Algorithm,
    /// Simulations (leaf evaluations) of a full search (1..=100000).
    pub full_simulations: u32,
    /// Simulations of a cheap search (playout-cap randomisation) (1..=100000).
    pub cheap_simulations: u32,
    /// PUCT exploration constant (> 0, <= 100).
    pub c_puct: f32,
    /// First-play urgency: an unvisited child's Q is the parent's Q minus this
    /// (interior nodes) (0..=2).
    pub fpu_reduction: f32,
    /// First-play urgency reduction at the root (0..=2).
    pub fpu_reduction_root: f32,
    /// Dirichlet noise concentration at the root, PUCT full searches (> 0, <= 10).
    pub dirichlet_alpha: f32,
    /// Weight of the Dirichlet noise mixed into root priors (0..=1; 0 = off).
    pub dirichlet_epsilon: f32,
    /// Gumbel: actions sampled at the root before sequential halving (1..=65536).
    pub gumbel_max_considered: u32,
    /// Gumbel: `c_visit` of the Q transform sigma (>= 0).
    pub gumbel_c_visit: f32,
    /// Gumbel: `c_scale` of the Q transform sigma (> 0, <= 1000; mctx uses 0.1).
    pub gumbel_c_scale: f32,
    /// Gumbel: add Gumbel noise at the root of full searches (`false` = deterministic play).
    pub gumbel_noise: bool,
    /// Keep the subtree of the played action for the next decision.
    pub tree_reuse: bool,
    /// Treat positions where the mover is sure to win this turn
    /// (`GameRules::can_win_this_turn`: Paco Ŝako, uniting with the king through
    /// any chain) as won leaves, and at the root play a winning action at
    /// once without searching.
    pub win_detection: bool,
    /// Score a position below the root that repeats an earlier one of the
    /// game since the last progress
    /// ([`pacozero_engine::GameRules::repeats_earlier_position`]) as a drawn leaf,
    /// instead of only the third occurrence that the rules draw. Stricter than
    /// the two-fold rule of Lc0 and Stockfish, which count only a cycle inside
    /// the search: here a side can reach a "draw" by returning to any position
    /// of the game. Off: in self-play it cut the quick loop's draws from 5-12%
    /// to 1-4% of the games, but the network lost 36% of a match to the
    /// recipe's (-100 +- 62 Elo; docs/ablations.md): the search's root WDL,
    /// half of the value target, then predicted draws the game did not have.
    pub twofold_draws: bool,
    /// What a draw costs the side searching (the root's mover), in units of
    /// win minus loss (Lc0's draw score, negated): its own values count a
    /// node's draw share at `-contempt`, its opponent's at `+contempt`, so
    /// the utility stays zero-sum. Only selection and the move choice see it;
    /// the recorded root WDL is the plain one (0..=1; 0 = off).
    pub contempt: f32,
    /// The MCTS-solver (`mcts/solver.rs`): positions the rules decide
    /// (finished games, detected wins) are proven, proofs are carried up the
    /// tree, selection skips proven subtrees and moves proven lost, and the
    /// search stops once its root is proven, playing the proof.
    pub solver: bool,
    /// Before the tree search, look for a win in two turns of the mover at
    /// the root by a full-width search (`mcts/two_turns.rs`): a turn after
    /// which every reply of the opponent leaves a detected win. Found, the
    /// search stops and plays it, proven (`mate 2`). Only with
    /// `win_detection`, whose hook it asks.
    pub root_win_in_two: bool,
    /// At each position where the root's turn ends (in Shako: each child of
    /// the root), look for the opponent's win in two turns by the same
    /// full-width search. Found, that position is a proven win for the
    /// opponent, so the solver never plays into it while another turn
    /// exists: the defence against a mate in two, as `root_win_in_two` is
    /// the attack. Costs a search per such position (Shako: about a
    /// thousand positions visited, most of them a mate-in-one test). Only
    /// with `win_detection` and `solver`.
    pub reply_win_in_two: bool,
    /// The network's priors at every expanded node are flattened as `p^(1/T)`,
    /// renormalised (Lc0's policy softmax temperature; 1 = as the network
    /// gives them). Above 1 a move the policy all but rules out, such as a
    /// capture a young network has not learnt, still gets visits below the
    /// root (0.1..=10).
    pub policy_temperature: f32,
}

impl SearchConfig {
    /// The policy temperature of play (matches, ladders, the loop's
    /// evaluation, the UCI engine); self-play, the JSON analysis engine and
    /// `tactics solve` keep 1. Measured at equal time: in Shako 19.8%
    /// against 12.8% for T = 1 against Fairy-Stockfish at 100 nodes (300
    /// games each, about +90 Elo), in Paco Ŝako 55.5% over 200 paired games
    /// against T = 1 (+38, +9 to +69); docs/ablations.md.
    pub const PLAY_POLICY_TEMPERATURE: f32 = 2.5;
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            algorithm: Algorithm::Gumbel,
            full_simulations: 64,
            cheap_simulations: 16,
            c_puct: 1.5,
            fpu_reduction: 0.2,
            fpu_reduction_root: 0.0,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            gumbel_max_considered: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 0.1,
            gumbel_noise: true,
            tree_reuse: true,
            win_detection: true,
            twofold_draws: false,
            contempt: 0.0,
            solver: true,
            root_win_in_two: true,
            reply_win_in_two: false,
            policy_temperature: 1.0,
        }
    }
}

/// Refuses `v` outside `lo..=hi`, naming the configuration key.
pub fn check_range<T: PartialOrd + std::fmt::Display>(key: &str, v: T, lo: T, hi: T) -> Result<()> {
    if !(v >= lo && v <= hi) {
        bail!("config key `{key}` = {v} is out of range: must be in {lo}..={hi}");
    }
    Ok(())
}

impl SearchConfig {
    /// Range-checks every key (errors name the key, prefixed `search.`).
    pub fn validate(&self) -> Result<()> {
        check_range("search.full_simulations", self.full_simulations, 1, 100_000)?;
        check_range("search.cheap_simulations", self.cheap_simulations, 1, 100_000)?;
        if !(self.c_puct > 0.0 && self.c_puct <= 100.0) {
            bail!("config key `search.c_puct` = {} is out of range: must be > 0 and <= 100", self.c_puct);
        }
        check_range("search.fpu_reduction", self.fpu_reduction, 0.0, 2.0)?;
        check_range("search.fpu_reduction_root", self.fpu_reduction_root, 0.0, 2.0)?;
        if !(self.dirichlet_alpha > 0.0 && self.dirichlet_alpha <= 10.0) {
            bail!("config key `search.dirichlet_alpha` = {} is out of range: must be > 0 and <= 10", self.dirichlet_alpha);
        }
        check_range("search.dirichlet_epsilon", self.dirichlet_epsilon, 0.0, 1.0)?;
        check_range("search.gumbel_max_considered", self.gumbel_max_considered, 1, 65_536)?;
        check_range("search.gumbel_c_visit", self.gumbel_c_visit, 0.0, 1e6)?;
        check_range("search.contempt", self.contempt, 0.0, 1.0)?;
        check_range("search.policy_temperature", self.policy_temperature, 0.1, 10.0)?;
        if !(self.gumbel_c_scale > 0.0 && self.gumbel_c_scale <= 1e3) {
            bail!("config key `search.gumbel_c_scale` = {} is out of range: must be > 0 and <= 1000", self.gumbel_c_scale);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Set = fn(&mut SearchConfig, f64);

    /// Each range-checked key: its setter, the ends of its range (an open
    /// lower end given as the bound itself, refused) and whether the lower
    /// end is accepted.
    const KEYS: [(&str, Set, f64, f64, bool); 12] = [
        ("full_simulations", |c, v| c.full_simulations = v as u32, 1.0, 100_000.0, true),
        ("cheap_simulations", |c, v| c.cheap_simulations = v as u32, 1.0, 100_000.0, true),
        ("c_puct", |c, v| c.c_puct = v as f32, 0.0, 100.0, false),
        ("fpu_reduction", |c, v| c.fpu_reduction = v as f32, 0.0, 2.0, true),
        ("fpu_reduction_root", |c, v| c.fpu_reduction_root = v as f32, 0.0, 2.0, true),
        ("dirichlet_alpha", |c, v| c.dirichlet_alpha = v as f32, 0.0, 10.0, false),
        ("dirichlet_epsilon", |c, v| c.dirichlet_epsilon = v as f32, 0.0, 1.0, true),
        ("gumbel_max_considered", |c, v| c.gumbel_max_considered = v as u32, 1.0, 65_536.0, true),
        ("gumbel_c_visit", |c, v| c.gumbel_c_visit = v as f32, 0.0, 1e6, true),
        ("contempt", |c, v| c.contempt = v as f32, 0.0, 1.0, true),
        ("policy_temperature", |c, v| c.policy_temperature = v as f32, 0.1, 10.0, true),
        ("gumbel_c_scale", |c, v| c.gumbel_c_scale = v as f32, 0.0, 1e3, false),
    ];

    #[test]
    fn every_key_is_checked_at_both_ends_of_its_range() {
        SearchConfig::default().validate().unwrap();
        for (key, set, lo, hi, lo_ok) in KEYS {
            let with = |v: f64| {
                let mut c = SearchConfig::default();
                set(&mut c, v);
                c.validate()
            };
            let refused = |v: f64| {
                let e = with(v).expect_err(&format!("{key} = {v} accepted")).to_string();
                assert!(e.contains(&format!("`search.{key}`")) && e.contains("out of range"), "{key} = {v}: {e}");
            };
            with(hi).unwrap_or_else(|e| panic!("{key} = {hi}: {e}"));
            refused(hi * 1.5 + 1.0);
            if lo_ok {
                with(lo).unwrap_or_else(|e| panic!("{key} = {lo}: {e}"));
                if lo > 0.0 {
                    refused(lo - 1.0);
                } else {
                    refused(-0.5);
                }
            } else {
                refused(lo);
                refused(-1.0);
                with(lo + 1e-3).unwrap_or_else(|e| panic!("{key} just above {lo}: {e}"));
            }
            if key != "full_simulations" && key != "cheap_simulations" && key != "gumbel_max_considered" {
                refused(f64::NAN);
            }
        }
        assert_eq!(check_range("k", 5, 1, 5).ok(), Some(()));
        assert_eq!(check_range("k", 1, 1, 5).ok(), Some(()));
        assert_eq!(check_range("k", 6, 1, 5).unwrap_err().to_string(), "config key `k` = 6 is out of range: must be in 1..=5");
        assert!(check_range("k", 0, 1, 5).is_err());
    }
}
