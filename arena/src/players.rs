//! The players of a match: specs, and how each one chooses its decisions.
//!
//! Player specs:
//!
//! | spec | player |
//! |---|---|
//! | `random` | uniform random choice among the decisions that can complete a turn |
//! | `greedy` | one ply: wins at once if it can, otherwise avoids turns that let the opponent win at once (Paco: unite with its king; Shako: mate) |
//! | `uniform:<budget>` | MCTS with uniform priors and terminal values only |
//! | `rollout:<budget>` | MCTS with random-playout values (the baseline) |
//! | `net:<model file>[:<budget>[:mix=<w>][:playouts=<k>][:precision=<p>][:quiesce=true][:material=<m>][:search.<key>=<value>...]]` | MCTS with a trained network; with `mix`, each leaf's value is `(1 − w)·network + w·(mean of k random playouts)` (k = 1 by default); `precision` (`fp32`, `int8`, `auto`) is the arithmetic of its network's tower, for the process's own otherwise (`--precision`); `quiesce=true` takes each leaf's value at the end of its capture line (Shako's material-only quiescence search, [`pacozero_search::QuiescentEvaluator`]), and `material=<m>` also mixes that line's material balance into it with weight `m`; `search.<key>=<value>` changes a key of match play's search (`[search]` of the configurations, e.g. `search.root_win_in_two=false`), for equal-time ablations |
//! | `ref:<name>[:<budget>[:mix=<w>][:playouts=<k>][:precision=<p>][:quiesce=true][:material=<m>][:search.<key>=<value>...]]` | the same with a reference network of `models/reference/` by name (e.g. `ref:quick-199eb03-gen28:50ms`) |
//! | `uci:<command>[,<Option>=<value>...]:<budget>[:timeout=<ms>]` | an external UCI engine, one process per game, every move checked (e.g. `uci:fairy-stockfish,UCI_Variant=shako:nodes=1000`; see [`crate::uci_player`]) |
//!
//! A budget is a number of simulations per decision (`rollout:64`, the
//! default is 64) or a time per decision in milliseconds (`rollout:50ms`):
//! time budgets compare players at equal time, whatever their speed. Every
//! MCTS player searches with PUCT and keeps its tree through the game: each
//! decision starts from the subtree of the decision just played (its own or
//! its opponent's), so a Paco turn's later decisions (the place after a lift,
//! the chain after a place) start from the visits the first one gave them.
//!
//! Everything is generic over the engine's [`Game`] (Paco Ŝako and Shako): openings
//! are the game's standard start or its [`GameRules::random_start`](pacozero_engine::GameRules::random_start)
//! (`fischer_random`: Fischer-random setups for Paco, a few random plies
//! from the standard start for Shako), or positions of an opening book
//! (`pacozero_book::BookStarts::opening`; a built book or one imported from the platform).

use anyhow::{bail, Context, Result};
use pacozero_engine::{Game, Outcome};
use pacozero_nn::NetPrecision;

use crate::budget::Budget;
use crate::given::Given;
use crate::uci_player::{check_engine, Forfeit, UciProcess, UciSpec};
use pacozero_search::{Algorithm, Evaluator, QuiescentEvaluator, RolloutEvaluator, Search, SearchConfig, UniformEvaluator};
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// A parsed player spec. [`PlayerSpec::parse`] (or `str::parse`) reads it,
/// and `Display` writes the spec that reads back to it: a `ref:` name as
/// its model file, a `uci:` program as named and its timeout written out.
/// Reading a spec touches no file: a missing model or program is found when
/// the player is made ([`Player::from_spec`]).
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    Random,
    Greedy,
    Mcts {
        kind: EvalKind,
        budget: Budget,
        /// Keys of match play's search this player changes.
        search: SearchOverrides,
    },
    /// An external UCI engine.
    Uci(UciSpec),
}

#[derive(Clone, Debug, PartialEq)]
pub enum EvalKind {
    Uniform,
    Rollout,
    /// A model file, and how it runs (the random playouts mixed into its
    /// value, its tower's precision).
    Net(PathBuf, NetOptions),
}

/// How a network player runs its network: the `mix=`, `playouts=` and
/// `precision=` options of its spec.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NetOptions {
    /// Random playouts mixed into its leaf values.
    pub mix: PlayoutMix,
    /// The arithmetic of its tower; `None`: the process's
    /// (`pacozero_nn::precision::process_precision`).
    pub precision: Option<NetPrecision>,
    /// Each leaf's value taken at the end of its capture line
    /// ([`pacozero_search::QuiescentEvaluator`]; Shako's material-only
    /// quiescence search, nothing in games without captures).
    pub quiesce: bool,
    /// Weight of the capture line's material balance mixed into each leaf's
    /// value (0..=1; above 0 implies `quiesce`).
    pub material: f32,
}

impl NetOptions {
    /// Reads the options of a network spec after its budget (the
    /// `search.` ones taken out): `precision=<p>` here, the rest as
    /// [`PlayoutMix`] reads them.
    fn parse(spec: &str, options: &[&str]) -> Result<NetOptions> {
        let mut precision = None;
        let mut quiesce = false;
        let mut material = 0.0;
        let mut rest = Vec::new();
        for (i, o) in options.iter().enumerate() {
            let key = o.split('=').next().unwrap_or(o);
            if options[..i].iter().any(|p| p.split('=').next() == Some(key)) {
                bail!("player '{spec}': '{key}' is given twice");
            }
            if let Some(p) = o.strip_prefix("precision=") {
                let p: NetPrecision = p.parse().map_err(|e| anyhow::anyhow!("player '{spec}': {e}"))?;
                precision = Some(p);
            } else if let Some(q) = o.strip_prefix("quiesce=") {
                quiesce = q.parse().map_err(|_| anyhow::anyhow!("player '{spec}': '{o}' should be quiesce=<true|false>"))?;
            } else if let Some(m) = o.strip_prefix("material=") {
                material = m
                    .parse::<f32>()
                    .ok()
                    .filter(|m| (0.0..=1.0).contains(m))
                    .ok_or_else(|| anyhow::anyhow!("player '{spec}': '{o}' should be material=<weight of the material balance in the value, 0..=1>"))?;
            } else {
                rest.push(*o);
            }
        }
        Ok(NetOptions { mix: PlayoutMix::parse(spec, &rest)?, precision, quiesce: quiesce || material > 0.0, material })
    }
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

impl Default for PlayoutMix {
    fn default() -> Self {
        PlayoutMix::NONE
    }
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
                bail!("player '{spec}': unknown option '{o}' (expected mix=<weight of random playouts in the value, 0..=1>, playouts=<random playouts per leaf, 1..=1024>, precision=<fp32|int8|auto>, quiesce=<true|false> or material=<weight of the material balance in the value, 0..=1>)");
            }
        }
        if mix.weight == 0.0 && mix.playouts > 1 {
            bail!("player '{spec}': playouts={} without mix=<weight> would never be used", mix.playouts);
        }
        Ok(mix)
    }
}

/// Keys of match play's search that a player spec changes
/// (`search.<key>=<value>` options), in order: the same keys and checks as
/// a configuration's `[search]` table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchOverrides(Vec<(String, String)>);

impl SearchOverrides {
    /// Splits `options` into the `search.<key>=<value>` ones (read and
    /// checked against match play's search) and the rest.
    fn parse<'a>(spec: &str, options: &[&'a str]) -> Result<(SearchOverrides, Vec<&'a str>)> {
        let mut out = SearchOverrides::default();
        let mut rest = Vec::new();
        for o in options {
            match o.strip_prefix("search.") {
                Some(kv) => {
                    let Some((k, v)) = kv.split_once('=') else { bail!("player '{spec}': '{o}' should be search.<key>=<value>") };
                    out.0.push((k.trim().to_string(), v.trim().to_string()));
                }
                None => rest.push(*o),
            }
        }
        out.apply(match_search()).with_context(|| format!("player '{spec}'"))?;
        Ok((out, rest))
    }

    /// `base` with these keys changed, checked as a configuration's
    /// `[search]` table is (an unknown key, a wrong type or a value out of
    /// range is an error naming the key).
    pub fn apply(&self, base: SearchConfig) -> Result<SearchConfig> {
        if self.0.is_empty() {
            return Ok(base);
        }
        let mut table = toml::Table::try_from(&base).context("the search settings as TOML")?;
        for (k, v) in &self.0 {
            // A value is read as TOML (`false`, `0.5`, `"puct"`), or else as a bare word.
            let value =
                toml::from_str::<toml::Table>(&format!("v = {v}")).ok().and_then(|mut t| t.remove("v")).unwrap_or_else(|| toml::Value::String(v.clone()));
            if !table.contains_key(k) {
                bail!("search.{k} is not a search key");
            }
            table.insert(k.clone(), value);
        }
        let cfg: SearchConfig = toml::Value::Table(table).try_into().map_err(|e| anyhow::anyhow!("search settings: {e}"))?;
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Match play's search: PUCT, no root noise, the most visited decision,
/// priors flattened by the play temperature
/// ([`SearchConfig::PLAY_POLICY_TEMPERATURE`]). Each player keeps its tree
/// through the game (the subtree of every decision played, its own and its
/// opponent's), as engines do; the cap on a kept subtree is
/// REUSE_MAX_VISITS x full_simulations visits.
fn match_search() -> SearchConfig {
    SearchConfig {
        algorithm: Algorithm::Puct,
        dirichlet_epsilon: 0.0,
        gumbel_noise: false,
        tree_reuse: true,
        full_simulations: 4096,
        policy_temperature: SearchConfig::PLAY_POLICY_TEMPERATURE,
        ..SearchConfig::default()
    }
}

impl PlayerSpec {
    pub fn parse(s: &str) -> Result<PlayerSpec> {
        if s.starts_with("uci:") {
            return Ok(PlayerSpec::Uci(UciSpec::parse(s)?));
        }
        let parts: Vec<&str> = s.split(':').collect();
        let budget = |p: Option<&&str>| Budget::for_search(s, p.copied());
        Ok(match parts[0] {
            "random" if parts.len() == 1 => PlayerSpec::Random,
            "greedy" if parts.len() == 1 => PlayerSpec::Greedy,
            "uniform" if parts.len() <= 2 => PlayerSpec::Mcts { kind: EvalKind::Uniform, budget: budget(parts.get(1))?, search: SearchOverrides::default() },
            "rollout" if parts.len() <= 2 => PlayerSpec::Mcts { kind: EvalKind::Rollout, budget: budget(parts.get(1))?, search: SearchOverrides::default() },
            "net" | "ref" if parts.len() >= 2 && parts.iter().skip(3).filter(|o| !o.starts_with("search.")).count() <= 5 => {
                let path = if parts[0] == "ref" { pacozero_nn::reference_model(parts[1]).with_context(|| format!("player '{s}'"))? } else { PathBuf::from(parts[1]) };
                let (search, options) = SearchOverrides::parse(s, parts.get(3..).unwrap_or(&[]))?;
                let net = NetOptions::parse(s, &options)?;
                PlayerSpec::Mcts { kind: EvalKind::Net(path, net), budget: budget(parts.get(2))?, search }
            }
            _ => bail!("unknown player spec '{s}' (expected random, greedy, uniform:<budget>, rollout:<budget>, net:<model>[:<budget>[:mix=<w>][:playouts=<k>][:precision=<p>][:quiesce=true][:material=<m>][:search.<key>=<value>...]], ref:<reference name>[...] or uci:<command>[,<Option>=<value>...]:<nodes=N|depth=N|<ms>ms|tc=<s>+<s>>, a budget being simulations (64) or milliseconds (50ms), w the weight of random playouts mixed into the network's value, k the playouts per leaf, p the network's precision)"),
        })
    }
}

impl std::str::FromStr for PlayerSpec {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<PlayerSpec> {
        PlayerSpec::parse(s)
    }
}

impl std::fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayerSpec::Random => f.write_str("random"),
            PlayerSpec::Greedy => f.write_str("greedy"),
            PlayerSpec::Uci(u) => write!(f, "{u}"),
            PlayerSpec::Mcts { kind: EvalKind::Uniform, budget, .. } => write!(f, "uniform:{budget}"),
            PlayerSpec::Mcts { kind: EvalKind::Rollout, budget, .. } => write!(f, "rollout:{budget}"),
            PlayerSpec::Mcts { kind: EvalKind::Net(path, net), budget, search } => {
                write!(f, "net:{}:{budget}", path.display())?;
                if net.mix.weight > 0.0 {
                    write!(f, ":mix={}", net.mix.weight)?;
                }
                if net.mix.playouts > 1 {
                    write!(f, ":playouts={}", net.mix.playouts)?;
                }
                if let Some(p) = net.precision {
                    write!(f, ":precision={p}")?;
                }
                if net.material > 0.0 {
                    write!(f, ":material={}", net.material)?;
                } else if net.quiesce {
                    f.write_str(":quiesce=true")?;
                }
                for (k, v) in &search.0 {
                    write!(f, ":search.{k}={v}")?;
                }
                Ok(())
            }
        }
    }
}

/// `run:DIR[:every=K][:BUDGET]`: every K-th generation of a run's models, as
/// network players of one budget (a league's shorthand; see
/// [`crate::league`]). The directory is everything before the options,
/// so it may hold a colon.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    pub dir: PathBuf,
    /// Every K-th generation (K ≥ 1; 1 by default).
    pub every: u32,
    /// The networks' budget (64 simulations by default).
    pub budget: Budget,
}

impl std::str::FromStr for RunSpec {
    type Err = anyhow::Error;
    fn from_str(spec: &str) -> Result<RunSpec> {
        let Some(rest) = spec.strip_prefix("run:") else { bail!("'{spec}' is not a run: spec (run:DIR[:every=K][:BUDGET])") };
        let mut parts: Vec<&str> = rest.split(':').collect();
        let (mut every, mut budget) = (1u32, Budget::Simulations(64));
        while parts.len() > 1 {
            let last = parts[parts.len() - 1];
            if let Some(k) = last.strip_prefix("every=") {
                every = k.parse().ok().filter(|&k| k >= 1).with_context(|| format!("player '{spec}': '{last}' should be every=<generations, at least 1>"))?;
            } else if let Ok(b @ (Budget::Simulations(_) | Budget::Millis(_))) = last.parse::<Budget>() {
                budget = b;
            } else {
                break;
            }
            parts.pop();
        }
        let dir = parts.join(":");
        if dir.is_empty() {
            bail!("player '{spec}': the run directory is empty (run:DIR[:every=K][:BUDGET])");
        }
        Ok(RunSpec { dir: PathBuf::from(dir), every, budget })
    }
}

impl std::fmt::Display for RunSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "run:{}:every={}:{}", self.dir.display(), self.every, self.budget)
    }
}

/// A player ready to act (evaluators are shared between games and threads).
pub struct Player<G: Game> {
    pub name: String,
    spec: PlayerSpec,
    evaluator: Option<Arc<dyn Evaluator<G>>>,
    search: SearchConfig,
}

impl<G: Game> Player<G> {
    /// The player of a spec as given (see the module docs), named by its text.
    pub fn new(spec: &Given<PlayerSpec>, seed: u64, threads: usize) -> Result<Player<G>> {
        Self::from_spec(spec.text().to_string(), spec.value().clone(), seed, threads)
    }

    /// The player of a typed spec, named `name` (programs that build players,
    /// such as the loop, pass values, never texts to be parsed back: a model
    /// path may hold any character). `seed` seeds its random playouts;
    /// `threads` are its network's own (0: rayon's global pool).
    pub fn from_spec(name: String, spec: PlayerSpec, seed: u64, threads: usize) -> Result<Player<G>> {
        let evaluator: Option<Arc<dyn Evaluator<G>>> = match &spec {
            PlayerSpec::Mcts { kind: EvalKind::Uniform, .. } => Some(Arc::new(UniformEvaluator)),
            PlayerSpec::Mcts { kind: EvalKind::Rollout, .. } => Some(Arc::new(RolloutEvaluator::new(seed, 1, 400))),
            PlayerSpec::Mcts { kind: EvalKind::Net(path, net), .. } => {
                if !path.exists() {
                    bail!("player '{name}': model file {} does not exist", path.display());
                }
                let network: Box<dyn Evaluator<G>> =
                    pacozero_nn::network_with_playouts::<G>(path, threads, net.mix.weight, net.mix.playouts, net.precision, seed)?;
                Some(if net.quiesce { Arc::new(QuiescentEvaluator { inner: network, material: net.material }) } else { Arc::from(network) })
            }
            PlayerSpec::Uci(uci) => {
                check_engine::<G>(&name, uci)?;
                None
            }
            _ => None,
        };
        let search = match &spec {
            PlayerSpec::Mcts { search, .. } => search.apply(match_search()).with_context(|| format!("player '{name}'"))?,
            _ => match_search(),
        };
        Ok(Player { name, spec, evaluator, search })
    }

    /// The next decisions of the mover (a whole turn for the one-ply
    /// players and external engines), and the simulations (an engine's
    /// nodes) searched for them; or the mover's forfeit (an external
    /// engine's illegal move, crash or timeout). `seat`: what this player
    /// keeps through the game (its search tree, rooted at `g` when present;
    /// its engine process); `game`: the game so far.
    pub(crate) fn act(&self, g: &G, seat: &mut Seat<G>, game: &GameSoFar<'_, G>, rng: &mut ChaCha8Rng) -> Result<Act> {
        match &self.spec {
            PlayerSpec::Random => {
                let mut legal = Vec::new();
                g.playable_actions(&mut legal);
                Ok(Act::Decisions(legal.choose(rng).map(|&a| vec![a]).unwrap_or_default(), 0))
            }
            PlayerSpec::Greedy => Ok(Act::Decisions(greedy_turn(g, rng), 0)),
            PlayerSpec::Mcts { budget, .. } => {
                let ev = self.evaluator.as_ref().expect("MCTS players have an evaluator");
                let (sims, deadline) = match *budget {
                    Budget::Simulations(n) => (n, None),
                    Budget::Millis(ms) => (Budget::MAX_TIMED_SIMULATIONS, Some(Instant::now() + std::time::Duration::from_millis(ms))),
                    // Specs refuse these for MCTS players (Budget::for_search).
                    engine_only => bail!("player '{}': an MCTS player cannot search by {engine_only}", self.name),
                };
                let s = seat.tree.get_or_insert_with(|| Search::new(self.search.clone(), g.clone(), ev.needs_encoding()));
                debug_assert_eq!(s.root_state().hash(), g.hash(), "the tree follows the game");
                let r = s.search_until(ev.as_ref(), sims, deadline, false, rng)?;
                Ok(Act::Decisions(vec![r.action], r.simulations))
            }
            PlayerSpec::Uci(spec) => {
                let mut legal = Vec::new();
                g.playable_actions(&mut legal);
                if legal.is_empty() {
                    return Ok(Act::Decisions(Vec::new(), 0)); // stuck: the game is adjudicated a draw
                }
                let mut engine = match seat.engine.take() {
                    Some(e) => e,
                    None => match UciProcess::start::<G>(spec) {
                        Ok(e) => e,
                        Err(f) => return Ok(Act::Forfeit(f)),
                    },
                };
                // A forfeit drops the process (it is ended): it is not asked again.
                match engine.best_turn(spec, game.start, game.moves, g) {
                    Ok((turn, nodes)) => {
                        seat.engine = Some(engine);
                        Ok(Act::Decisions(turn, nodes.min(u32::MAX as u64) as u32))
                    }
                    Err(f) => Ok(Act::Forfeit(f)),
                }
            }
        }
    }
}

/// What a player does on its move.
pub(crate) enum Act {
    /// Decisions to play (empty: the mover is stuck), and the simulations searched.
    Decisions(Vec<u16>, u32),
    /// The mover loses the game.
    Forfeit(Forfeit),
}

/// What a player keeps through one game: its search tree, or the process of its engine.
pub(crate) struct Seat<G: Game> {
    pub(crate) tree: Option<Search<G>>,
    engine: Option<UciProcess>,
}

impl<G: Game> Seat<G> {
    pub(crate) fn new() -> Self {
        Seat { tree: None, engine: None }
    }
}

/// The game so far, for players that are told the whole game (external engines).
pub(crate) struct GameSoFar<'a, G> {
    pub(crate) start: &'a G,
    /// The whole turns played from `start`, one UCI token each.
    pub(crate) moves: &'a [String],
}

/// The `greedy` player's turn (empty when stuck): a whole turn that wins at
/// once if there is one ([`GameRules::legal_turns`](pacozero_engine::GameRules::legal_turns)); otherwise a random turn
/// after which the opponent cannot win at once (it is not sure to win this
/// turn, [`GameRules::can_win_this_turn`](pacozero_engine::GameRules::can_win_this_turn), and no single decision of its wins),
/// or any turn if none is safe. A turn that ends the game in a draw is safe.
pub fn greedy_turn<G: Game>(g: &G, rng: &mut ChaCha8Rng) -> Vec<u16> {
    let me = g.to_move();
    let turns = g.legal_turns();
    if turns.is_empty() {
        return Vec::new();
    }
    let mut replies = Vec::new();
    let mut safe = Vec::new();
    for (i, t) in turns.iter().enumerate() {
        let mut next = g.clone();
        for &d in t {
            next.apply(d);
        }
        match next.outcome() {
            Some(Outcome::Win(c)) if c == me => return t.clone(),
            Some(_) => safe.push(i),
            None => {
                let loses = next.can_win_this_turn() || {
                    next.playable_actions(&mut replies);
                    replies.iter().any(|&r| {
                        let mut after = next.clone();
                        after.apply(r);
                        after.outcome() == Some(Outcome::Win(me.other()))
                    })
                };
                if !loses {
                    safe.push(i);
                }
            }
        }
    }
    let pool: Vec<usize> = if safe.is_empty() { (0..turns.len()).collect() } else { safe };
    let pick = *pool.choose(rng).expect("at least one turn");
    turns[pick].clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_engine::paco;
    use pacozero_engine::prelude::*;
    use rand::{Rng, SeedableRng};

    /// Every kind of spec reads back from what it writes; the text may
    /// differ (a `ref:` name becomes its file, defaults are written out).
    #[test]
    fn player_specs_write_the_spec_that_reads_them_back() {
        let model = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let texts = [
            "random".to_string(),
            "greedy".into(),
            "uniform".into(),
            "uniform:8".into(),
            "rollout:50ms".into(),
            format!("net:{model}"),
            format!("net:{model}:200:precision=int8"),
            format!("net:{model}:50ms:playouts=16:mix=0.3:search.c_puct=2:search.root_win_in_two=false"),
            format!("net:{model}:100ms:quiesce=true:mix=0.3:playouts=2:precision=fp32"),
            format!("net:{model}:100ms:material=0.25"),
            "uci:sh -c true,UCI_Variant=shako,Move Overhead=10:nodes=1000".into(),
            "uci:sh:depth=3:timeout=900".into(),
            "uci:sh:tc=1.5+0.1".into(),
            "uci:sh:250ms".into(),
        ];
        for text in texts {
            let spec: PlayerSpec = text.parse().unwrap();
            let written = spec.to_string();
            assert_eq!(written.parse::<PlayerSpec>().unwrap(), spec, "{text} -> {written}");
        }
        assert_eq!("rollout".parse::<PlayerSpec>().unwrap().to_string(), "rollout:64");
        let e = format!("net:{model}:64:mix=0.1").parse::<PlayerSpec>().unwrap().to_string();
        assert_eq!(e, format!("net:{model}:64:mix=0.1"));
    }

    /// `quiesce=true` puts the quiescent evaluator around the network, and
    /// only then.
    #[test]
    fn a_quiescent_player_evaluates_through_the_capture_line() {
        use pacozero_engine::shako::GameState as Shako;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.pzmodel");
        pacozero_nn::export_untrained(&pacozero_nn::NetConfig::tiny_for(&pacozero_data::game_spec::<Shako>()), "m", &path).unwrap();
        let name = |opts: &str| {
            let spec: PlayerSpec = format!("net:{}:8{opts}", path.display()).parse().unwrap();
            Player::<Shako>::from_spec("p".into(), spec, 1, 1).unwrap().evaluator.unwrap().name()
        };
        assert_eq!((name(""), name(":quiesce=true")), ("m".to_string(), "m+quiescence".to_string()));
        assert_eq!(name(":material=0.5"), "m+quiescence+material0.5");
    }

    #[test]
    fn run_specs_read_their_options_from_the_end_and_write_them_back() {
        let read = |t: &str| t.parse::<RunSpec>().unwrap();
        assert_eq!(read("run:runs/a"), RunSpec { dir: "runs/a".into(), every: 1, budget: Budget::Simulations(64) });
        assert_eq!(read("run:r:every=2:50ms"), RunSpec { dir: "r".into(), every: 2, budget: Budget::Millis(50) });
        assert_eq!(read("run:r:50ms:every=3"), RunSpec { dir: "r".into(), every: 3, budget: Budget::Millis(50) });
        // A directory may hold a colon: only known options are taken off its end.
        assert_eq!(read("run:x:y:8"), RunSpec { dir: "x:y".into(), every: 1, budget: Budget::Simulations(8) });
        for text in ["run:runs/a", "run:x:y:every=4:100ms", "run:64"] {
            let spec = read(text);
            assert_eq!(read(&spec.to_string()), spec, "{text}");
        }
        for (bad, says) in [("run:r:every=0", "every=<generations, at least 1>"), ("run:", "directory is empty"), ("net:x", "not a run: spec")] {
            let e = bad.parse::<RunSpec>().unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    fn after<G: Game>(g: &G, turn: &[u16]) -> G {
        let mut next = g.clone();
        for &d in turn {
            next.apply(d);
        }
        next
    }

    /// A network player reads its model when it is made (a file that is
    /// not one is refused then) and searches with it; an engine player
    /// starts its engine when it is made (one that cannot start is refused
    /// then, naming it); match play searches with PUCT, no root noise, and
    /// keeps its tree.
    #[test]
    fn players_are_checked_when_made_and_search_as_match_play() {
        let dir = tempfile::tempdir().unwrap();
        let spec = pacozero_data::game_spec::<paco::GameState>();
        let model = dir.path().join("tiny.pzmodel");
        pacozero_nn::export_untrained(&pacozero_nn::NetConfig::tiny_for(&spec), "tiny", &model).unwrap();
        let p = Player::<paco::GameState>::new(&format!("net:{}:3", model.display()).parse().unwrap(), 1, 1).unwrap();
        assert!(p.evaluator.is_some());
        let g = paco::GameState::start();
        let so_far = GameSoFar { start: &g, moves: &[] };
        match p.act(&g, &mut Seat::new(), &so_far, &mut ChaCha8Rng::seed_from_u64(1)).unwrap() {
            Act::Decisions(d, sims) => assert_eq!((d.len(), sims), (1, 3)),
            Act::Forfeit(f) => panic!("{f:?}"),
        }
        let not_a_model = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        assert!(Player::<paco::GameState>::new(&format!("net:{not_a_model}:3").parse().unwrap(), 1, 1).is_err());
        // An engine that ends at once, before its handshake.
        let e = Player::<paco::GameState>::new(&"uci:sh -c true:nodes=1".parse().unwrap(), 1, 1).err().expect("refused").to_string();
        assert!(e.starts_with("player 'uci:sh -c true:nodes=1': "), "{e}");
        let s = &p.search;
        assert_eq!((s.algorithm, s.dirichlet_epsilon, s.gumbel_noise, s.tree_reuse, s.full_simulations), (Algorithm::Puct, 0.0, false, true, 4096));
    }

    #[test]
    fn budgets_and_specs_are_read_and_bad_ones_named() {
        assert_eq!("64".parse::<Budget>().unwrap(), Budget::Simulations(64));
        assert_eq!("50ms".parse::<Budget>().unwrap(), Budget::Millis(50));
        for (bad, why) in
            [("0", "at least 1"), ("0ms", "at least 1"), ("fast", "neither a number"), ("-1", "neither a number"), ("nodes=5", "an engine's budget")]
        {
            let e = PlayerSpec::parse(&format!("rollout:{bad}")).unwrap_err().to_string();
            assert!(e.contains(why) && e.contains(&format!("'rollout:{bad}'")), "{bad}: {e}");
        }
        let budget = |spec: &str| match PlayerSpec::parse(spec).unwrap() {
            PlayerSpec::Mcts { kind, budget, .. } => (format!("{kind:?}"), budget),
            other => panic!("{spec}: {other:?}"),
        };
        assert_eq!(budget("rollout"), ("Rollout".into(), Budget::Simulations(64)));
        assert_eq!(budget("uniform:10ms"), ("Uniform".into(), Budget::Millis(10)));
        assert!(matches!(PlayerSpec::parse("random").unwrap(), PlayerSpec::Random));
        assert!(matches!(PlayerSpec::parse("greedy").unwrap(), PlayerSpec::Greedy));
        let model = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        for bad in [
            "random:1",
            "greedy:5",
            "uniform:1:2",
            "rollout:1:2",
            "net",
            &format!("net:{model}:1:mix=0.5:playouts=2:precision=int8:quiesce=true:material=0.5:mix=0.1"),
            "alphazero:5",
        ] {
            let e = PlayerSpec::parse(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("unknown player spec '{bad}'")), "{bad}: {e}");
        }
        let missing = PlayerSpec::parse("net:/no/such/model.pzmodel").unwrap();
        let e = Player::<paco::GameState>::from_spec("net:/no/such/model.pzmodel".into(), missing, 1, 1).err().expect("no model").to_string();
        assert_eq!(e, "player 'net:/no/such/model.pzmodel': model file /no/such/model.pzmodel does not exist");
        assert!(PlayerSpec::parse("ref:no-such-reference-network").unwrap_err().to_string().starts_with("player 'ref:no-such-reference-network'"));
        // Search keys, checked as a configuration's `[search]` table.
        let spec = PlayerSpec::parse(&format!("net:{model}:50ms:search.root_win_in_two=false:mix=0.5:search.c_puct=2")).unwrap();
        let PlayerSpec::Mcts { kind: EvalKind::Net(_, NetOptions { mix, .. }), search, .. } = spec else { panic!("not a network player") };
        let cfg = search.apply(match_search()).unwrap();
        assert_eq!((cfg.root_win_in_two, cfg.c_puct, cfg.algorithm, mix.weight), (false, 2.0, Algorithm::Puct, 0.5));
        assert!(match_search().root_win_in_two, "on by default");
        // Play flattens the priors unless a player says otherwise.
        assert_eq!(match_search().policy_temperature, SearchConfig::PLAY_POLICY_TEMPERATURE);
        assert!(SearchConfig::PLAY_POLICY_TEMPERATURE > SearchConfig::default().policy_temperature);
        let plain = PlayerSpec::parse(&format!("net:{model}:64:search.policy_temperature=1")).unwrap();
        let PlayerSpec::Mcts { search, .. } = plain else { panic!("not a network player") };
        assert_eq!(search.apply(match_search()).unwrap().policy_temperature, 1.0);
        for (opt, why) in [
            ("search.no_such_key=1", "search.no_such_key is not a search key"),
            ("search.c_puct=0", "search.c_puct"),
            ("search.solver=maybe", "solver"),
            ("search.c_puct", "should be search.<key>=<value>"),
        ] {
            let e = format!("{:#}", PlayerSpec::parse(&format!("net:{model}:64:{opt}")).unwrap_err());
            assert!(e.starts_with("player 'net:") && e.contains(why), "{opt}: {e}");
        }
        // The playout mix's bounds.
        let mix = |opts: &str| PlayoutMix::parse("p", &opts.split(':').collect::<Vec<_>>());
        assert_eq!(mix("mix=1:playouts=1024").unwrap(), PlayoutMix { weight: 1.0, playouts: 1024 });
        assert_eq!(mix("mix=0").unwrap(), PlayoutMix::NONE);
        assert_eq!(mix("mix=0:playouts=1").unwrap(), PlayoutMix::NONE);
        for bad in ["mix=-0.1", "playouts=1025:mix=0.5", "mix=0:playouts=2"] {
            assert!(mix(bad).is_err(), "{bad}");
        }
    }

    /// `random` picks uniformly among the playable decisions, one at a time.
    #[test]
    fn the_random_player_picks_any_playable_decision() {
        let g = paco::GameState::start();
        let mut legal = Vec::new();
        g.playable_actions(&mut legal);
        let p = Player::<paco::GameState>::new(&"random".parse().unwrap(), 1, 1).unwrap();
        let mut seen = std::collections::HashSet::new();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..400 {
            let so_far = GameSoFar { start: &g, moves: &[] };
            match p.act(&g, &mut Seat::new(), &so_far, &mut rng).unwrap() {
                Act::Decisions(d, sims) => {
                    assert_eq!((d.len(), sims), (1, 0));
                    assert!(legal.contains(&d[0]));
                    seen.insert(d[0]);
                }
                Act::Forfeit(f) => panic!("{f:?}"),
            }
        }
        assert_eq!(seen.len(), legal.len(), "every one of the {} decisions in 400 picks", legal.len());
    }

    /// An MCTS player keeps its tree in its seat and spends its budget.
    #[test]
    fn an_mcts_player_searches_its_budget_in_its_seat() {
        let g = paco::GameState::start();
        let p = Player::<paco::GameState>::new(&"uniform:16".parse().unwrap(), 1, 1).unwrap();
        let mut seat = Seat::new();
        let so_far = GameSoFar { start: &g, moves: &[] };
        let Act::Decisions(d, sims) = p.act(&g, &mut seat, &so_far, &mut ChaCha8Rng::seed_from_u64(1)).unwrap() else { panic!("forfeit") };
        assert_eq!((d.len(), sims), (1, 16));
        assert!(seat.tree.is_some());
        let timed = Player::<paco::GameState>::new(&"uniform:30ms".parse().unwrap(), 1, 1).unwrap();
        let t = Instant::now();
        let Act::Decisions(_, sims) = timed.act(&g, &mut Seat::new(), &so_far, &mut ChaCha8Rng::seed_from_u64(1)).unwrap() else { panic!("forfeit") };
        assert!(sims > 16 && t.elapsed() >= std::time::Duration::from_millis(30), "{sims} in {:?}", t.elapsed());
    }

    #[test]
    fn paco_greedy_wins_in_one_and_never_hands_the_opponent_a_win_it_can_avoid() {
        // Paco in 1 from the tactics suite (Nc5xd7 unites with the king).
        let g = paco::GameState::from_notation("rn3b1r/3kppp1/ppp2n2/2Np1E2/2P1F1P1/1P2B2p/P1Q1P2P/R2K1BNR w 8 - - -").unwrap();
        for seed in 0..4 {
            let t = greedy_turn(&g, &mut ChaCha8Rng::seed_from_u64(seed));
            assert_eq!(after(&g, &t).outcome(), Some(Outcome::Win(g.to_move())));
        }
        // Along random games: when some turn leaves the opponent no win this
        // turn, greedy's turn is one of them.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut checked = 0;
        for _ in 0..6 {
            let mut g = paco::GameState::start();
            for _ in 0..30 {
                if g.outcome().is_some() {
                    break;
                }
                let turns = g.legal_turns();
                if turns.is_empty() {
                    break;
                }
                let safe_exists = turns.iter().any(|t| !after(&g, t).can_win_this_turn());
                let pick = greedy_turn(&g, &mut rng);
                if safe_exists {
                    assert!(!after(&g, &pick).can_win_this_turn(), "greedy hands over a win in {}", g.notation());
                    checked += 1;
                }
                g = after(&g, &turns[rng.gen_range(0..turns.len())]);
            }
        }
        assert!(checked > 50, "{checked}");
    }
}
