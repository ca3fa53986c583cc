//! Matches between players: paired openings (each start played with both
//! colours), W/D/L and pentanomial counts, Elo with a confidence interval.
//!
//! Player specs:
//!
//! | spec | player |
//! |---|---|
//! | `random` | uniform random choice among the decisions that can complete a turn |
//! | `greedy` | one ply: wins at once if it can, otherwise avoids turns that let the opponent win at once (Paco: unite with its king; Shako: mate) |
//! | `uniform:<budget>` | MCTS with uniform priors and terminal values only |
//! | `rollout:<budget>` | MCTS with random-playout values (the baseline) |
//! | `net:<model file>[:<budget>[:mix=<w>][:playouts=<k>]]` | MCTS with a trained network; with `mix`, each leaf's value is `(1 − w)·network + w·(mean of k random playouts)` (k = 1 by default) |
//! | `ref:<name>[:<budget>[:mix=<w>][:playouts=<k>]]` | the same with a reference network of `models/reference/` by name (e.g. `ref:quick-199eb03-gen28:50ms`) |
//!
//! A budget is a number of simulations per decision (`rollout:64`, the
//! default is 64) or a time per decision in milliseconds (`rollout:50ms`):
//! time budgets compare players at equal time, whatever their speed. Every
//! MCTS player searches with PUCT and keeps its tree through the game: each
//! decision starts from the subtree of the decision just played (its own or
//! its opponent's), so a Paco turn's later decisions (the place after a lift,
//! the chain after a place) start from the visits the first one gave them.
//!
//! Everything is generic over [`ArenaGame`] (Paco Ŝako and Shako): openings
//! are the game's standard start or its [`Game::random_start`]
//! (`fischer_random`: Fischer-random setups for Paco, a few random plies
//! from the standard start for Shako), or positions of an opening book
//! ([`book_opening`]; a built book or one imported from the platform).

use anyhow::{bail, Context, Result};
use pacozero_arena::ratings::{elo_from_score, Pentanomial, Wdl};
use pacozero_engine::paco::{self, in_sako, FullMoveGen};
use pacozero_engine::{shako, Game, Outcome};
use pacozero_selfplay::{Algorithm, BookStarts, Evaluator, GameLimits, RolloutEvaluator, Search, SearchConfig, SelfplayGame, UniformEvaluator};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// A parsed player spec.
#[derive(Clone)]
pub enum PlayerSpec {
    Random,
    Greedy,
    Mcts { kind: EvalKind, budget: Budget },
}

/// How long an MCTS player searches each decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Simulations(u32),
    Millis(u32),
}

impl Budget {
    /// Most simulations of a timed search (it normally stops on time first).
    const MAX_TIMED_SIMULATIONS: u32 = 1_000_000;

    fn parse(spec: &str, text: Option<&&str>) -> Result<Budget> {
        let Some(t) = text else { return Ok(Budget::Simulations(64)) };
        let (digits, timed) = match t.strip_suffix("ms") {
            Some(d) => (d, true),
            None => (*t, false),
        };
        let n: u32 =
            digits.parse().with_context(|| format!("player '{spec}': '{t}' is neither a number of simulations (64) nor a time per decision (50ms)"))?;
        if n == 0 {
            bail!("player '{spec}': the budget must be at least 1");
        }
        Ok(if timed { Budget::Millis(n) } else { Budget::Simulations(n) })
    }
}

#[derive(Clone)]
pub enum EvalKind {
    Uniform,
    Rollout,
    /// A model file, and the random playouts mixed into its value.
    Net(PathBuf, PlayoutMix),
}

/// Random playouts mixed into a network's leaf values (AlphaGo's leaf
/// evaluation): `(1 − weight)·network + weight·playouts`, the playouts' WDL
/// averaged over `playouts` games. A playout costs a small fraction of a
/// network call, so several per leaf keep most of a timed search's simulations
/// and make the playout term far less noisy than one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayoutMix {
    /// 0 = the network alone (0..=1).
    pub weight: f32,
    /// Playouts per leaf (1..=1024).
    pub playouts: u32,
}

impl PlayoutMix {
    pub const NONE: PlayoutMix = PlayoutMix { weight: 0.0, playouts: 1 };

    /// Reads the `mix=<w>` and `playouts=<k>` options of a network spec.
    fn parse(spec: &str, options: &[&str]) -> Result<PlayoutMix> {
        let mut mix = PlayoutMix::NONE;
        for o in options {
            if let Some(w) = o.strip_prefix("mix=") {
                match w.parse::<f32>() {
                    Ok(x) if (0.0..=1.0).contains(&x) => mix.weight = x,
                    _ => bail!("player '{spec}': '{o}' should be mix=<weight of random playouts in the value, 0..=1>"),
                }
            } else if let Some(k) = o.strip_prefix("playouts=") {
                match k.parse::<u32>() {
                    Ok(k) if (1..=1024).contains(&k) => mix.playouts = k,
                    _ => bail!("player '{spec}': '{o}' should be playouts=<random playouts per leaf, 1..=1024>"),
                }
            } else {
                bail!("player '{spec}': unknown option '{o}' (expected mix=<weight of random playouts in the value, 0..=1> or playouts=<random playouts per leaf, 1..=1024>)");
            }
        }
        if mix.weight == 0.0 && mix.playouts > 1 {
            bail!("player '{spec}': playouts={} without mix=<weight> would never be used", mix.playouts);
        }
        Ok(mix)
    }
}

/// Where the reference networks are: `$PACOZERO_REFERENCE_DIR`, or
/// `models/reference/` of the checkout the binary was built from.
pub fn reference_dir() -> PathBuf {
    std::env::var_os("PACOZERO_REFERENCE_DIR").map(PathBuf::from).unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/reference"))
}

/// The model file of the reference network `name`; the error lists the names there are.
pub fn reference_model(name: &str) -> Result<PathBuf> {
    let dir = reference_dir();
    let path = dir.join(format!("{name}.pzmodel"));
    if path.is_file() {
        return Ok(path);
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".pzmodel").map(String::from)).collect())
        .unwrap_or_default();
    names.sort();
    bail!("no reference network '{name}' in {} (there are: {})", dir.display(), if names.is_empty() { "none".to_string() } else { names.join(", ") })
}

impl PlayerSpec {
    pub fn parse(s: &str) -> Result<PlayerSpec> {
        let parts: Vec<&str> = s.split(':').collect();
        let budget = |p: Option<&&str>| Budget::parse(s, p);
        Ok(match parts[0] {
            "random" if parts.len() == 1 => PlayerSpec::Random,
            "greedy" if parts.len() == 1 => PlayerSpec::Greedy,
            "uniform" if parts.len() <= 2 => PlayerSpec::Mcts { kind: EvalKind::Uniform, budget: budget(parts.get(1))? },
            "rollout" if parts.len() <= 2 => PlayerSpec::Mcts { kind: EvalKind::Rollout, budget: budget(parts.get(1))? },
            "net" | "ref" if (2..=5).contains(&parts.len()) => {
                let path = if parts[0] == "ref" { reference_model(parts[1]).with_context(|| format!("player '{s}'"))? } else { PathBuf::from(parts[1]) };
                if !path.exists() {
                    bail!("player '{s}': model file {} does not exist", path.display());
                }
                let mix = PlayoutMix::parse(s, parts.get(3..).unwrap_or(&[]))?;
                PlayerSpec::Mcts { kind: EvalKind::Net(path, mix), budget: budget(parts.get(2))? }
            }
            _ => bail!("unknown player spec '{s}' (expected random, greedy, uniform:<budget>, rollout:<budget>, net:<model>[:<budget>[:mix=<w>][:playouts=<k>]] or ref:<reference name>[...], a budget being simulations (64) or milliseconds (50ms), w the weight of random playouts mixed into the network's value, k the playouts per leaf)"),
        })
    }
}

/// A game the arena plays: self-play's surface plus the `greedy` player.
pub trait ArenaGame: SelfplayGame {
    /// The `greedy` player's whole turn as policy indices (empty when stuck).
    fn greedy_turn(&self, rng: &mut ChaCha8Rng) -> Vec<u16>;
}

thread_local! {
    static FULL_MOVES: RefCell<FullMoveGen> = RefCell::new(FullMoveGen::new());
}

impl ArenaGame for paco::GameState {
    /// A turn is several decisions: the greedy player looks at full moves.
    fn greedy_turn(&self, rng: &mut ChaCha8Rng) -> Vec<u16> {
        FULL_MOVES.with(|gen| paco_greedy_turn(self, &mut gen.borrow_mut(), rng))
    }
}

impl ArenaGame for shako::GameState {
    fn greedy_turn(&self, rng: &mut ChaCha8Rng) -> Vec<u16> {
        one_ply_greedy(self, rng)
    }
}

/// A player ready to act (evaluators are shared between games and threads).
pub struct Player<G: Game> {
    pub name: String,
    spec: PlayerSpec,
    evaluator: Option<Arc<dyn Evaluator<G>>>,
    search: SearchConfig,
}

impl<G: ArenaGame> Player<G> {
    pub fn new(spec_text: &str, seed: u64, threads: usize) -> Result<Player<G>> {
        let spec = PlayerSpec::parse(spec_text)?;
        let evaluator: Option<Arc<dyn Evaluator<G>>> = match &spec {
            PlayerSpec::Mcts { kind: EvalKind::Uniform, .. } => Some(Arc::new(UniformEvaluator)),
            PlayerSpec::Mcts { kind: EvalKind::Rollout, .. } => Some(Arc::new(RolloutEvaluator::new(seed, 1, 400))),
            PlayerSpec::Mcts { kind: EvalKind::Net(path, mix), .. } => {
                Some(Arc::from(crate::commands::selfplay::network_with_playouts::<G>(path, threads, mix.weight, mix.playouts, seed)?))
            }
            _ => None,
        };
        // Match play: PUCT, no root noise, the most visited decision. Each
        // player keeps its tree through the game (the subtree of every decision
        // played, its own and its opponent's), as engines do; the cap on a
        // kept subtree is REUSE_MAX_VISITS x full_simulations visits.
        let search = SearchConfig {
            algorithm: Algorithm::Puct,
            dirichlet_epsilon: 0.0,
            gumbel_noise: false,
            tree_reuse: true,
            full_simulations: 4096,
            ..SearchConfig::default()
        };
        Ok(Player { name: spec_text.to_string(), spec, evaluator, search })
    }

    /// The next decisions of the mover (a whole turn for the one-ply
    /// players), and the simulations searched for them. `tree`: this player's
    /// search tree in this game, rooted at `g` when present.
    fn act(&self, g: &G, tree: &mut Option<Search<G>>, rng: &mut ChaCha8Rng) -> Result<(Vec<u16>, u32)> {
        match &self.spec {
            PlayerSpec::Random => {
                let mut legal = Vec::new();
                g.legal_actions(&mut legal);
                Ok((legal.choose(rng).map(|&a| vec![a]).unwrap_or_default(), 0))
            }
            PlayerSpec::Greedy => Ok((g.greedy_turn(rng), 0)),
            PlayerSpec::Mcts { budget, .. } => {
                let ev = self.evaluator.as_ref().expect("MCTS players have an evaluator");
                let (sims, deadline) = match *budget {
                    Budget::Simulations(n) => (n, None),
                    Budget::Millis(ms) => (Budget::MAX_TIMED_SIMULATIONS, Some(Instant::now() + std::time::Duration::from_millis(ms as u64))),
                };
                let s = tree.get_or_insert_with(|| Search::new(self.search.clone(), g.clone(), ev.needs_encoding()));
                debug_assert_eq!(s.root_state().hash(), g.hash(), "the tree follows the game");
                let r = s.search_until(ev.as_ref(), sims, deadline, false, rng)?;
                Ok((vec![r.action], r.simulations))
            }
        }
    }
}

/// One-ply greedy for Paco: a winning full move if there is one; otherwise a
/// random full move after which the opponent cannot unite with our king at once.
fn paco_greedy_turn(g: &paco::GameState, gen: &mut FullMoveGen, rng: &mut ChaCha8Rng) -> Vec<u16> {
    let me = g.position().side_to_move();
    let moves = g.full_moves(gen);
    if moves.is_empty() {
        return Vec::new();
    }
    let pick = if let Some(win) = moves.iter().find(|(r, _)| r.status().winner() == Some(me)) {
        win
    } else {
        let safe: Vec<_> = moves.iter().filter(|(r, _)| r.status().is_over() || !in_sako(r.position(), me)).collect();
        if safe.is_empty() {
            moves.choose(rng).expect("non-empty")
        } else {
            safe[rng.gen_range(0..safe.len())]
        }
    };
    // Replay the trace to turn actions into policy indices (the mover stays the same).
    pick.1.iter().map(|&a| paco::action_index(a, me) as u16).collect()
}

/// One-ply greedy for a game whose turn is one decision: a winning action if
/// there is one; otherwise a random action after which the opponent has no
/// winning reply (an action that ends the game in a draw counts as safe).
fn one_ply_greedy<G: Game>(g: &G, rng: &mut ChaCha8Rng) -> Vec<u16> {
    let me = g.to_move();
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    let mut replies = Vec::new();
    let mut safe = Vec::new();
    for &a in &legal {
        let mut next = g.clone();
        next.apply(a);
        match next.outcome() {
            Some(Outcome::Win(c)) if c == me => return vec![a],
            Some(_) => safe.push(a),
            None => {
                next.legal_actions(&mut replies);
                let loses = replies.iter().any(|&r| {
                    let mut after = next.clone();
                    after.apply(r);
                    after.outcome() == Some(Outcome::Win(me.other()))
                });
                if !loses {
                    safe.push(a);
                }
            }
        }
    }
    let pool = if safe.is_empty() { &legal } else { &safe };
    pool.choose(rng).map(|&a| vec![a]).unwrap_or_default()
}

/// How a game ended, from White's point of view, and how long it took.
#[derive(Clone, Copy, Debug)]
pub struct GameResult {
    pub outcome: Outcome,
    pub decisions: u32,
    /// Seconds spent, decisions taken and simulations searched by the player
    /// of each colour (White, Black).
    pub seconds: [f64; 2],
    pub decisions_by: [u32; 2],
    pub simulations: [u64; 2],
    /// [`Game::end_reason`] of the final position, `"max_length"` for a cut game.
    pub end_reason: &'static str,
}

/// Plays one game: `white` and `black` alternate by turn (a turn is one or several decisions).
/// A game cut at `limits.max_decisions` is scored by `limits` (a draw, or a
/// material win).
pub fn play<G: ArenaGame>(start: G, white: &Player<G>, black: &Player<G>, limits: GameLimits, seed: u64) -> Result<GameResult> {
    let mut g = start;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut decisions = 0;
    let mut seconds = [0.0; 2];
    let mut decisions_by = [0; 2];
    let mut simulations = [0; 2];
    // Each side's search tree, kept through the game (by colour).
    let mut trees: [Option<Search<G>>; 2] = [None, None];
    while g.outcome().is_none() && decisions < limits.max_decisions {
        let mover = g.to_move();
        let player = if mover == pacozero_engine::Color::White { white } else { black };
        let t = Instant::now();
        let (acts, sims) = player.act(&g, &mut trees[mover.index()], &mut rng)?;
        seconds[mover.index()] += t.elapsed().as_secs_f64();
        simulations[mover.index()] += sims as u64;
        if acts.is_empty() {
            break; // stuck: adjudicated a draw
        }
        for a in acts {
            g.apply(a);
            decisions += 1;
            decisions_by[mover.index()] += 1;
            for tree in trees.iter_mut().flatten() {
                tree.advance(a, &g);
            }
        }
    }
    let (outcome, end_reason) = match g.outcome() {
        Some(o) => (o, g.end_reason()),
        None if decisions >= limits.max_decisions => (limits.cut_winner(&g).map_or(Outcome::Draw, Outcome::Win), "max_length"),
        None => (Outcome::Draw, "stuck"),
    };
    Ok(GameResult { outcome, decisions, seconds, decisions_by, simulations, end_reason })
}

/// Start position of opening `i` (each is played twice, colours swapped).
pub fn opening<G: SelfplayGame>(kind: Openings, seed: u64, i: u64) -> G {
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
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Openings {
    Standard,
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
}

impl MatchResult {
    /// Mean milliseconds and simulations per decision of A (`side` 0) or B (1).
    pub fn per_decision(&self, side: usize) -> (f64, f64) {
        let n = self.decisions_by[side].max(1) as f64;
        (1000.0 * self.seconds[side] / n, self.simulations[side] as f64 / n)
    }

    pub fn elo(&self) -> (f64, f64) {
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
pub fn run_match<G: ArenaGame>(
    a: &Player<G>,
    b: &Player<G>,
    pairs: u32,
    openings: Openings,
    limits: GameLimits,
    seed: u64,
    progress: bool,
) -> Result<MatchResult> {
    run_match_from(a, b, pairs, &|i| opening(openings, seed, i), limits, seed, progress)
}

/// Opening `i` drawn from a book's positions (weights `visits^(1/T)`), the
/// same for both colours of a pair.
pub fn book_opening<G: SelfplayGame>(book: &BookStarts, seed: u64, i: u64) -> G {
    let mut r = ChaCha8Rng::seed_from_u64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    G::from_notation(book.pick(r.gen::<f64>())).expect("BookStarts checked every position when it read the book")
}

/// [`run_match`] with opening `i` (`0..pairs`) given by `start`.
pub fn run_match_from<G: ArenaGame>(
    a: &Player<G>,
    b: &Player<G>,
    pairs: u32,
    start: &(dyn Fn(u64) -> G + Sync),
    limits: GameLimits,
    seed: u64,
    progress: bool,
) -> Result<MatchResult> {
    use rayon::prelude::*;
    let bar = if progress {
        let pb = indicatif::ProgressBar::new(pairs as u64 * 2);
        pb.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg} [{elapsed} < {eta}]").expect("template"));
        pb
    } else {
        indicatif::ProgressBar::hidden()
    };
    let results: Vec<Result<(GameResult, GameResult)>> = (0..pairs as u64)
        .into_par_iter()
        .map(|i| {
            let start: G = start(i);
            let g1 = play(start.clone(), a, b, limits, seed ^ (2 * i + 1))?;
            bar.inc(1);
            let g2 = play(start, b, a, limits, seed ^ (2 * i + 2))?;
            bar.inc(1);
            Ok((g1, g2))
        })
        .collect();
    bar.finish_and_clear();
    let mut m = MatchResult::default();
    for r in results {
        let (g1, g2) = r?;
        // g1: A is White; g2: A is Black.
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
        let (p1, p2) = (pa(&g1, true), pa(&g2, false));
        for p in [p1, p2] {
            match p {
                x if x > 0.75 => m.wdl.wins += 1,
                x if x < 0.25 => m.wdl.losses += 1,
                _ => m.wdl.draws += 1,
            }
        }
        m.pentanomial.add_pair(p1, p2);
        m.games += 2;
        m.decisions += (g1.decisions + g2.decisions) as u64;
        for g in [&g1, &g2] {
            *m.end_reasons.entry(g.end_reason).or_default() += 1;
        }
        // A is White in g1 and Black in g2.
        for (side, (w, b)) in [(0, (&g1, &g2)), (1, (&g2, &g1))] {
            m.seconds[side] += w.seconds[0] + b.seconds[1];
            m.decisions_by[side] += w.decisions_by[0] as u64 + b.decisions_by[1] as u64;
            m.simulations[side] += w.simulations[0] + b.simulations[1];
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shako_greedy_mates_in_one_and_random_starts_are_the_games() {
        let g = shako::GameState::from_fen("9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1").unwrap();
        for seed in 0..4 {
            let t = g.greedy_turn(&mut ChaCha8Rng::seed_from_u64(seed));
            assert_eq!(t.len(), 1);
            assert_eq!(g.action_name(t[0]), "a2a10");
        }
        // Openings: the standard start, or the game's random start (same for both colours of a pair).
        let s: shako::GameState = opening(Openings::Standard, 1, 0);
        assert_eq!(s.notation(), shako::STARTPOS_FEN);
        let (a, b): (shako::GameState, shako::GameState) = (opening(Openings::FischerRandom, 1, 0), opening(Openings::FischerRandom, 1, 1));
        assert_ne!(a.notation(), b.notation());
        let p: paco::GameState = opening(Openings::FischerRandom, 1, 0);
        assert_eq!(p.to_move(), pacozero_engine::Color::White);
    }

    #[test]
    fn net_players_take_a_budget_and_a_playout_mix() {
        // Any existing file passes the spec check (the model is read later).
        let model = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        match PlayerSpec::parse(&format!("net:{model}:50ms:mix=0.25")).unwrap() {
            PlayerSpec::Mcts { kind: EvalKind::Net(_, mix), budget } => {
                assert_eq!((mix, budget), (PlayoutMix { weight: 0.25, playouts: 1 }, Budget::Millis(50)))
            }
            _ => panic!("not a network player"),
        }
        match PlayerSpec::parse(&format!("net:{model}:64")).unwrap() {
            PlayerSpec::Mcts { kind: EvalKind::Net(_, mix), budget } => assert_eq!((mix, budget), (PlayoutMix::NONE, Budget::Simulations(64))),
            _ => panic!("not a network player"),
        }
        // Options in either order.
        for opts in ["mix=0.5:playouts=16", "playouts=16:mix=0.5"] {
            match PlayerSpec::parse(&format!("net:{model}:50ms:{opts}")).unwrap() {
                PlayerSpec::Mcts { kind: EvalKind::Net(_, mix), .. } => assert_eq!(mix, PlayoutMix { weight: 0.5, playouts: 16 }),
                _ => panic!("not a network player"),
            }
        }
        for bad in ["mix=1.5", "mix=x", "blend=0.5", "mix=0.5:playouts=0", "mix=0.5:playouts=2000", "playouts=4"] {
            let e = PlayerSpec::parse(&format!("net:{model}:50ms:{bad}")).err().expect("refused").to_string();
            let named = bad.split(':').any(|o| e.contains(o));
            assert!(named && (e.contains("mix=<weight") || e.contains("playouts=<random") || e.contains("without mix")), "{bad}: {e}");
        }
    }

    #[test]
    fn shako_match_between_search_players() {
        let a = Player::<shako::GameState>::new("rollout:4", 1, 1).unwrap();
        let b = Player::<shako::GameState>::new("greedy", 2, 1).unwrap();
        let m = run_match(&a, &b, 1, Openings::FischerRandom, GameLimits { max_decisions: 30, adjudicate_material: 0 }, 3, false).unwrap();
        assert_eq!(m.games, 2);
        assert_eq!(m.wdl.games(), 2);
        assert!(m.decisions > 0 && m.decisions <= 60);
        // Each game is counted once under how it ended (cut at 30 decisions, or a Shako ending).
        assert_eq!(m.end_reasons.values().sum::<u32>(), 2, "{:?}", m.end_reasons);
        assert!(
            m.end_reasons.keys().all(|k| ["max_length", "checkmate", "stalemate", "repetition", "fifty_moves", "stuck"].contains(k)),
            "{:?}",
            m.end_reasons
        );
    }
}
