//! Matches between players: paired openings (each start played with both
//! colours), W/D/L and pentanomial counts, Elo with a confidence interval.
//! Games run on all cores; progress is reported through a callback (the
//! command line draws the bar).

use anyhow::Result;
use pacozero_engine::{Game, Outcome};
use pacozero_search::GameLimits;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

use crate::players::{Act, GameSoFar, Player, Seat};
use crate::ratings::{elo_from_score, Pentanomial, Sprt, SprtDecision, Wdl};
use crate::uci_player::Forfeit;

/// How a game ended, from White's point of view, how long it took, and
/// its record.
#[derive(Clone, Debug)]
pub struct GameResult {
    pub outcome: Outcome,
    pub decisions: u32,
    /// Seconds spent, decisions taken and simulations searched by the player
    /// of each colour (White, Black).
    pub seconds: [f64; 2],
    pub decisions_by: [u32; 2],
    pub simulations: [u64; 2],
    /// [`GameRules::end_reason`](pacozero_engine::GameRules::end_reason) of the final position, `"max_length"` for a cut
    /// game, `"stuck"`, or the [`Forfeit::reason`] of an external engine's loss.
    pub end_reason: &'static str,
    /// The start position in the game's notation.
    pub start_fen: String,
    /// The decisions played, by name ([`Notation::action_name`](pacozero_engine::Notation::action_name)), space-separated
    /// (the games table's `actions`).
    pub actions: String,
    /// Why the loser forfeited, when an external engine did.
    pub forfeit: Option<Forfeit>,
}

/// Plays one game: `white` and `black` alternate by turn (a turn is one or several decisions).
/// A game cut at `limits.max_decisions` is scored by `limits` (a draw, or a
/// material win); an external engine's forfeit loses it.
pub fn play<G: Game>(start: G, white: &Player<G>, black: &Player<G>, limits: GameLimits, seed: u64) -> Result<GameResult> {
    let first = start.clone();
    let mut g = start;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut decisions = 0;
    let mut seconds = [0.0; 2];
    let mut decisions_by = [0; 2];
    let mut simulations = [0; 2];
    let mut names: Vec<String> = Vec::new();
    // The whole turns so far in UCI notation (external engines are told
    // the game), and the turn in progress.
    let mut turns: Vec<String> = Vec::new();
    let (mut turn_start, mut turn) = (g.clone(), Vec::new());
    let mut forfeit = None;
    // What each side keeps through the game (by colour): its search tree or engine.
    let mut seats: [Seat<G>; 2] = [Seat::new(), Seat::new()];
    while g.outcome().is_none() && decisions < limits.max_decisions {
        let mover = g.to_move();
        let player = if mover == pacozero_engine::Color::White { white } else { black };
        let t = Instant::now();
        let so_far = GameSoFar { start: &first, moves: &turns };
        let act = player.act(&g, &mut seats[mover.index()], &so_far, &mut rng)?;
        seconds[mover.index()] += t.elapsed().as_secs_f64();
        let (acts, sims) = match act {
            Act::Decisions(acts, sims) => (acts, sims),
            Act::Forfeit(f) => {
                forfeit = Some((mover, f));
                break;
            }
        };
        simulations[mover.index()] += sims as u64;
        if acts.is_empty() {
            break; // stuck: adjudicated a draw
        }
        for a in acts {
            names.push(g.action_name(a));
            g.apply(a);
            turn.push(a);
            decisions += 1;
            decisions_by[mover.index()] += 1;
            for tree in seats.iter_mut().filter_map(|s| s.tree.as_mut()) {
                tree.advance(a, &g);
            }
            if g.outcome().is_some() || g.to_move() != mover {
                turns.push(pacozero_protocol::uci::move_token(&turn_start, &turn));
                (turn_start, turn) = (g.clone(), Vec::new());
            }
        }
    }
    let (outcome, end_reason) = match (&forfeit, g.outcome()) {
        (Some((loser, f)), _) => (Outcome::Win(loser.other()), f.reason),
        (None, Some(o)) => (o, g.end_reason()),
        (None, None) if decisions >= limits.max_decisions => (limits.cut_winner(&g).map_or(Outcome::Draw, Outcome::Win), "max_length"),
        (None, None) => (Outcome::Draw, "stuck"),
    };
    let forfeit = forfeit.map(|(loser, f)| {
        let who = if loser == pacozero_engine::Color::White { white } else { black };
        Forfeit { detail: format!("{} ({}) {}: {}", who.name, loser.name(), f.reason, f.detail), ..f }
    });
    Ok(GameResult { outcome, decisions, seconds, decisions_by, simulations, end_reason, start_fen: first.notation(), actions: names.join(" "), forfeit })
}

/// Start position of opening `i` (each is played twice, colours swapped).
pub fn opening<G: Game>(kind: Openings, seed: u64, i: u64) -> G {
    match kind {
        Openings::Standard => G::start(),
        Openings::FischerRandom => {
            let mut r = ChaCha8Rng::seed_from_u64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            G::random_start(r.gen_range(0..960))
        }
    }
}

/// Match openings: the standard start, or the game's random starts
/// (Fischer-random setups for Paco, random opening plies for Shako).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Openings {
    Standard,
    /// `fischer_random` (also read as `fischer-random`, the command line's old spelling).
    #[serde(alias = "fischer-random")]
    FischerRandom,
}

/// Results of a match, from player A's point of view.
#[derive(Clone, Debug, Default)]
pub struct MatchResult {
    pub wdl: Wdl,
    pub pentanomial: Pentanomial,
    pub decisions: u64,
    pub games: u32,
    /// Seconds, decisions and simulations of A and of B.
    pub seconds: [f64; 2],
    pub decisions_by: [u64; 2],
    pub simulations: [u64; 2],
    /// Games by how they ended ([`GameResult::end_reason`]).
    pub end_reasons: std::collections::BTreeMap<&'static str, u32>,
    /// What each external engine's forfeit was ([`Forfeit::detail`]), in game order.
    pub forfeits: Vec<String>,
    /// Every game, in order (pair by pair, A as White first), for its record
    /// ([`crate::records`]).
    pub played: Vec<MatchGame>,
}

/// One game of a match and who played it.
#[derive(Clone, Debug)]
pub struct MatchGame {
    /// The players' names (their specs) as White and as Black.
    pub white: String,
    pub black: String,
    /// The game's seed.
    pub seed: u64,
    pub result: GameResult,
}

impl MatchResult {
    /// Mean milliseconds and simulations per decision of A (`side` 0) or B (1).
    pub fn per_decision(&self, side: usize) -> (f64, f64) {
        let n = self.decisions_by[side].max(1) as f64;
        (1000.0 * self.seconds[side] / n, self.simulations[side] as f64 / n)
    }

    /// Counts one pair: `g1` with A as White, `g2` with A as Black.
    fn add_pair(&mut self, g1: &GameResult, g2: &GameResult) {
        let pa = |g: &GameResult, a_white: bool| match g.outcome {
            Outcome::Draw => 0.5,
            Outcome::Win(c) => {
                if (c == pacozero_engine::Color::White) == a_white {
                    1.0
                } else {
                    0.0
                }
            }
        };
        let (p1, p2) = (pa(g1, true), pa(g2, false));
        for p in [p1, p2] {
            match p {
                x if x > 0.75 => self.wdl.wins += 1,
                x if x < 0.25 => self.wdl.losses += 1,
                _ => self.wdl.draws += 1,
            }
        }
        self.pentanomial.add_pair(p1, p2);
        self.games += 2;
        self.decisions += (g1.decisions + g2.decisions) as u64;
        for g in [g1, g2] {
            *self.end_reasons.entry(g.end_reason).or_default() += 1;
            self.forfeits.extend(g.forfeit.as_ref().map(|f| f.detail.clone()));
        }
        // A is White in g1 and Black in g2.
        for (side, (w, b)) in [(0, (g1, g2)), (1, (g2, g1))] {
            self.seconds[side] += w.seconds[0] + b.seconds[1];
            self.decisions_by[side] += w.decisions_by[0] as u64 + b.decisions_by[1] as u64;
            self.simulations[side] += w.simulations[0] + b.simulations[1];
        }
    }

    /// Elo and the half-width of its 95% interval, from the pentanomial
    /// counts where there are two pairs or more (the pairing of the
    /// openings is in the variance; see [`crate::ratings::PairStats`]),
    /// else from the games ([`MatchResult::elo_trinomial`]). The flag says
    /// which: `true` for the pentanomial figures.
    pub fn elo(&self) -> (f64, f64, bool) {
        match self.pentanomial.stats() {
            Some(p) => (p.elo, p.elo_ci95, true),
            None => {
                let (e, ci) = self.elo_trinomial();
                (e, ci, false)
            }
        }
    }

    /// Elo and its 95% half-width from the per-game variance of the W/D/L
    /// counts, as if the games were independent (they are not: a pair
    /// shares its opening).
    pub fn elo_trinomial(&self) -> (f64, f64) {
        let n = self.wdl.games().max(1) as f64;
        let s = self.wdl.score();
        // Standard error of the mean score from the per-game variance.
        let var = (self.wdl.wins as f64 * (1.0 - s).powi(2) + self.wdl.draws as f64 * (0.5 - s).powi(2) + self.wdl.losses as f64 * s.powi(2)) / n;
        let se = (var / n).sqrt();
        let lo = elo_from_score(s - 1.96 * se);
        let hi = elo_from_score(s + 1.96 * se);
        (elo_from_score(s), (hi - lo) / 2.0)
    }
}

/// Plays `pairs` opening pairs between A and B on all threads.
pub fn run_match<G: Game>(
    a: &Player<G>,
    b: &Player<G>,
    pairs: u32,
    openings: Openings,
    limits: GameLimits,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<MatchResult> {
    run_match_from(a, b, pairs, &|i| opening(openings, seed, i), limits, seed, progress)
}

/// [`run_match`] with opening `i` (`0..pairs`) given by `start`.
pub fn run_match_from<G: Game>(
    a: &Player<G>,
    b: &Player<G>,
    pairs: u32,
    start: &(dyn Fn(u64) -> G + Sync),
    limits: GameLimits,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<MatchResult> {
    run_match_until(a, b, pairs, start, limits, seed, progress, pairs as u64, &|_| false)
}

/// [`run_match_from`] that may stop early: pairs are played in rounds of
/// `round` pairs (each on all threads), and after each round `stop` sees the
/// result so far (a sequential test stops at its first decision). Pair `i`
/// is the same game whichever round plays it, so a stopped match is the
/// first pairs of the full one.
#[allow(clippy::too_many_arguments)]
pub fn run_match_until<G: Game>(
    a: &Player<G>,
    b: &Player<G>,
    max_pairs: u32,
    start: &(dyn Fn(u64) -> G + Sync),
    limits: GameLimits,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
    round: u64,
    stop: &dyn Fn(&MatchResult) -> bool,
) -> Result<MatchResult> {
    use rayon::prelude::*;
    let total = max_pairs as u64 * 2;
    let done = std::sync::atomic::AtomicU64::new(0);
    let game_done = || progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
    let mut m = MatchResult::default();
    let mut next = 0u64;
    while next < max_pairs as u64 {
        let end = (next + round.max(1)).min(max_pairs as u64);
        let results: Vec<Result<(GameResult, GameResult)>> = (next..end)
            .into_par_iter()
            .map(|i| {
                let start: G = start(i);
                let [s1, s2] = pair_seeds(seed, i);
                let g1 = play(start.clone(), a, b, limits, s1)?;
                game_done();
                let g2 = play(start, b, a, limits, s2)?;
                game_done();
                Ok((g1, g2))
            })
            .collect();
        for (i, r) in (next..end).zip(results) {
            let (g1, g2) = r?;
            m.add_pair(&g1, &g2);
            let [s1, s2] = pair_seeds(seed, i);
            m.played.push(MatchGame { white: a.name.clone(), black: b.name.clone(), seed: s1, result: g1 });
            m.played.push(MatchGame { white: b.name.clone(), black: a.name.clone(), seed: s2, result: g2 });
        }
        next = end;
        if stop(&m) {
            break;
        }
    }
    Ok(m)
}

/// The seeds of the two games of pair `i` of a match seeded `seed`: each
/// game's its own.
fn pair_seeds(seed: u64, i: u64) -> [u64; 2] {
    [seed ^ (2 * i + 1), seed ^ (2 * i + 2)]
}

/// A match under a sequential test: rounds of `round` pairs until `test`
/// decides, at most `max_pairs` ([`run_match_until`]); the result and the
/// test's decision on it ([`SprtDecision::Continue`] at the cap).
#[allow(clippy::too_many_arguments)]
pub fn run_match_sprt<G: Game>(
    a: &Player<G>,
    b: &Player<G>,
    max_pairs: u32,
    start: &(dyn Fn(u64) -> G + Sync),
    limits: GameLimits,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
    round: u64,
    test: &Sprt,
) -> Result<(MatchResult, SprtDecision)> {
    let m = run_match_until(a, b, max_pairs, start, limits, seed, progress, round, &|m| test.decide(&m.pentanomial) != SprtDecision::Continue)?;
    let decision = test.decide(&m.pentanomial);
    Ok((m, decision))
}

impl std::str::FromStr for Openings {
    type Err = String;
    fn from_str(s: &str) -> Result<Openings, String> {
        match s {
            "standard" => Ok(Openings::Standard),
            "fischer_random" | "fischer-random" => Ok(Openings::FischerRandom),
            other => Err(format!("unknown openings `{other}` (expected standard or fischer_random)")),
        }
    }
}

/// Progress callback that reports nothing.
pub fn no_progress(_done: u64, _total: u64) {}

#[cfg(test)]
mod tests;
