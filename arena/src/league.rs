//! A league: many players, one schedule of paired games (a round robin, or a
//! gauntlet of one player against the rest), one rating list over all of it
//! ([`crate::rating_list`]). It is resumable: every finished pair is
//! in the league's file, and a restart plays only what is missing.
//!
//! Players are arena specs (`net:…`, `ref:…`, `rollout:50ms`, …) and
//! `run:DIR[:every=K][:BUDGET]`, every K-th generation of a run's
//! `models/gen-NNNN.pzmodel` (K = 1 by default; budget as a network
//! player's, default 64 simulations), named `<run folder>/gen-NNNN`.
//!
//! Files of a league directory:
//!
//! | file | what |
//! |---|---|
//! | `league.jsonl` | line 1: the league ([`LeagueHeader`]: game, players with their specs, schedule, pairs, openings, seed, limits); then one [`PairLine`] per finished pair, appended and fsynced as it ends. A cut last line (a kill while appending) is dropped on resume |
//! | `games/` | every game, in the games table of the training data (one chunk per round of pairs, positions empty; `white`/`black` the players' specs; [`crate::records`]); `pacozero games export --format pgn` reads it |
//! | `ratings.csv`, `ratings.json`, `ratings.md` | the rating list ([`crate::rating_list::RatingList`]), written by `pacozero_run::league` |
//! | `ratings.svg`, `report.html` | the list as an error-bar plot; the page with the plot, the list and the cross table (`pacozero_run::league`) |
//!
//! Pair `p` of every matchup starts from the same opening (opening `p` of
//! the league's seed), so every player meets the same starts.

use crate::rating_list::{rating_list, Anchor, Matchup, RatingList};
use crate::ratings::{Pentanomial, Wdl};
use crate::records::record_games_as;
use crate::{opening, play, EvalKind, Given, MatchGame, NetOptions, Openings, Player, PlayerSpec, RunSpec};
use anyhow::{bail, Context, Result};
use pacozero_engine::{Color, Game, GameKind, Outcome};
use pacozero_search::{derive_seed, GameLimits};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use pacozero_data::jsonl::{append_lines, read_jsonl};
use pacozero_data::run_dir::{generation_of, model_name};

/// The league's file in its directory.
pub const LEAGUE_FILE: &str = "league.jsonl";
/// The league's games (the games table, `pacozero games export` reads it) in its directory.
pub const GAMES_DIR: &str = "games";

/// Who meets whom.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Schedule {
    /// Every player against every other.
    RoundRobin,
    /// The named player against every other (and no one else).
    Gauntlet(String),
}

/// A league's player spec: an arena player, or `run:` for a run's generations.
#[derive(Clone, Debug, PartialEq)]
pub enum LeagueSpec {
    Player(PlayerSpec),
    Run(RunSpec),
}

impl std::str::FromStr for LeagueSpec {
    type Err = anyhow::Error;
    fn from_str(text: &str) -> Result<LeagueSpec> {
        Ok(if text.starts_with("run:") { LeagueSpec::Run(text.parse()?) } else { LeagueSpec::Player(text.parse()?) })
    }
}

/// One player of a league as its file records it: its name and the spec it
/// was made from (text, as the file is read before anything is trusted).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaguePlayer {
    pub name: String,
    /// An arena spec, or `net:<model file>:<budget>` for a run's generation.
    pub spec: String,
    /// For a run's generation, the model file (paths may hold any character,
    /// so it is not parsed back out of `spec`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<String>,
}

/// The first line of `league.jsonl`: what the league is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeagueHeader {
    pub league: u32,
    pub game: String,
    /// The player specs as given (`run:` not yet expanded).
    pub specs: Vec<String>,
    pub players: Vec<LeaguePlayer>,
    pub schedule: Schedule,
    /// Opening pairs per matchup.
    pub pairs: u32,
    pub openings: Openings,
    pub seed: u64,
    pub max_decisions: u32,
    pub adjudicate_material: u32,
}

/// One finished pair: player `a` (index into the players) had White in the
/// first game and Black in the second.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairLine {
    pub a: usize,
    pub b: usize,
    pub pair: u32,
    /// `a`'s points in the two games.
    pub points: [f64; 2],
    pub decisions: [u32; 2],
    pub end_reasons: [String; 2],
}

/// What a league is asked to play (the header before `run:` is expanded).
#[derive(Clone, Debug)]
pub struct LeagueConfig {
    pub game: GameKind,
    pub specs: Vec<Given<LeagueSpec>>,
    /// The gauntlet's player: a spec of `specs` or a player's name; `None` = round robin.
    pub gauntlet: Option<String>,
    pub pairs: u32,
    pub openings: Openings,
    pub seed: u64,
    pub limits: GameLimits,
}

/// A player of the command line: its record in the league's file and the
/// spec it plays by (the command line's, never read back from the file).
#[derive(Clone, Debug)]
pub struct Entrant {
    pub record: LeaguePlayer,
    pub spec: PlayerSpec,
}

impl Entrant {
    fn player<G: Game>(&self, seed: u64) -> Result<Player<G>> {
        Player::from_spec(self.record.name.clone(), self.spec.clone(), seed, 0)
    }
}

/// The players a spec stands for: itself, or a run's generations.
pub fn expand_spec(given: &Given<LeagueSpec>) -> Result<Vec<Entrant>> {
    let spec = given.text();
    let RunSpec { dir, every, budget } = match given.value() {
        LeagueSpec::Player(p) => {
            return Ok(vec![Entrant { record: LeaguePlayer { name: spec.to_string(), spec: spec.to_string(), model: None, budget: None }, spec: p.clone() }])
        }
        LeagueSpec::Run(run) => run.clone(),
    };
    let models = pacozero_data::RunDir::new(&dir).models();
    let entries = std::fs::read_dir(&models).with_context(|| format!("player '{spec}': reading {}", models.display()))?;
    let mut gens: Vec<(u32, PathBuf)> = entries
        .filter_map(|e| {
            let p = e.ok()?.path();
            let g = generation_of(p.file_name()?.to_str()?.strip_suffix(".pzmodel")?)?;
            Some((g, p))
        })
        .filter(|(g, _)| g % every == 0)
        .collect();
    gens.sort();
    if gens.is_empty() {
        bail!("player '{spec}': {} holds no gen-NNNN.pzmodel with a generation divisible by {every}", models.display());
    }
    let label = dir.file_name().and_then(|n| n.to_str()).unwrap_or("run").to_string();
    Ok(gens
        .into_iter()
        .map(|(g, path)| Entrant {
            record: LeaguePlayer {
                name: format!("{label}/{}", model_name(g)),
                spec: format!("net:{}:{budget}", path.display()),
                model: Some(path.clone()),
                budget: Some(budget.to_string()),
            },
            spec: PlayerSpec::Mcts { kind: EvalKind::Net(path, NetOptions::default()), budget, search: Default::default() },
        })
        .collect())
}

impl LeagueHeader {
    /// The header of a new league, and its players as the command line gives them.
    fn of(cfg: &LeagueConfig) -> Result<(LeagueHeader, Vec<Entrant>)> {
        let mut entrants: Vec<Entrant> = Vec::new();
        for s in &cfg.specs {
            for p in expand_spec(s)? {
                if entrants.iter().any(|q| q.record.name == p.record.name) {
                    bail!("two players are named {} (from '{s}'): give each player once", p.record.name);
                }
                entrants.push(p);
            }
        }
        let players: Vec<LeaguePlayer> = entrants.iter().map(|e| e.record.clone()).collect();
        if players.len() < 2 {
            bail!("a league needs at least two players, got {}", players.len());
        }
        let schedule = match &cfg.gauntlet {
            None => Schedule::RoundRobin,
            Some(g) => {
                let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
                let p = players
                    .iter()
                    .find(|p| &p.name == g || &p.spec == g)
                    .with_context(|| format!("the gauntlet's player {g} is not one of the players ({})", names.join(", ")))?;
                Schedule::Gauntlet(p.name.clone())
            }
        };
        if cfg.pairs == 0 {
            bail!("a league needs at least one pair of games a matchup");
        }
        let header = LeagueHeader {
            league: 1,
            game: cfg.game.name().to_string(),
            specs: cfg.specs.iter().map(|s| s.text().to_string()).collect(),
            players,
            schedule,
            pairs: cfg.pairs,
            openings: cfg.openings,
            seed: cfg.seed,
            max_decisions: cfg.limits.max_decisions,
            adjudicate_material: cfg.limits.adjudicate_material,
        };
        Ok((header, entrants))
    }

    /// The matchups (player indices), in schedule order.
    pub fn matchups(&self) -> Vec<(usize, usize)> {
        let n = self.players.len();
        match &self.schedule {
            Schedule::RoundRobin => (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect(),
            Schedule::Gauntlet(name) => {
                let g = self.players.iter().position(|p| &p.name == name).expect("checked when made");
                (0..n).filter(|&j| j != g).map(|j| (g, j)).collect()
            }
        }
    }

    /// Every pair to play, round by round: pair 0 of every matchup, then
    /// pair 1, …, so that a league stopped early is balanced.
    fn schedule(&self) -> Vec<(usize, usize, u32)> {
        let m = self.matchups();
        (0..self.pairs).flat_map(|p| m.iter().map(move |&(a, b)| (a, b, p))).collect()
    }

    /// What differs from `other`, for the resume check.
    fn differences(&self, other: &LeagueHeader) -> Vec<&'static str> {
        let mut d = Vec::new();
        let fields: [(&'static str, bool); 8] = [
            ("game", self.game == other.game),
            ("players", self.specs == other.specs),
            ("schedule", self.schedule == other.schedule),
            ("pairs", self.pairs == other.pairs),
            ("openings", self.openings == other.openings),
            ("seed", self.seed == other.seed),
            ("max_decisions", self.max_decisions == other.max_decisions),
            ("adjudicate_material", self.adjudicate_material == other.adjudicate_material),
        ];
        for (name, same) in fields {
            if !same {
                d.push(name);
            }
        }
        d
    }
}

/// A league's state on disk: its header and the pairs played.
pub struct LeagueFile {
    pub header: LeagueHeader,
    pub pairs: Vec<PairLine>,
}

/// Reads `dir/league.jsonl` (`None` when there is none).
pub fn read_league(dir: &Path) -> Result<Option<LeagueFile>> {
    let path = dir.join(LEAGUE_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let first = text.lines().next().unwrap_or_default();
    let header: LeagueHeader = serde_json::from_str(first).with_context(|| format!("{}:1: not a league header", path.display()))?;
    if let Schedule::Gauntlet(name) = &header.schedule {
        if !header.players.iter().any(|p| &p.name == name) {
            bail!("{}:1: the gauntlet's player {name} is not one of the league's players", path.display());
        }
    }
    // The pair lines (a cut last line is dropped with a warning).
    let lines: Vec<serde_json::Value> = read_jsonl(&path)?;
    let mut pairs = Vec::new();
    for (i, v) in lines.into_iter().enumerate().skip(1) {
        let p: PairLine = serde_json::from_value(v).with_context(|| format!("{}:{}: not a pair line", path.display(), i + 1))?;
        let n = header.players.len();
        if p.a >= n || p.b >= n || p.pair >= header.pairs {
            bail!("{}:{}: pair {} of players {} and {} is outside the league ({n} players, {} pairs)", path.display(), i + 1, p.pair, p.a, p.b, header.pairs);
        }
        pairs.push(p);
    }
    Ok(Some(LeagueFile { header, pairs }))
}

/// The players of a resumed league, built from the command line (`wanted`)
/// and compared with its file (`file`, read from `path`), never taken from
/// it: each of the file's players, in the file's order (the pairs index
/// them), must be one that the command line gives, spec, model and budget
/// alike. A player that only the file names is refused, naming the program
/// it would start or the model it would read. (A run of a `run:` spec may
/// have more generations now than when the league began: those are not in
/// the file, and not played.)
fn players_of_command_line(path: &Path, file: &LeagueHeader, wanted: &[Entrant]) -> Result<Vec<Entrant>> {
    let mut players = Vec::new();
    let mut strangers = Vec::new();
    for p in &file.players {
        match wanted.iter().find(|w| w.record == *p) {
            Some(w) => players.push(w.clone()),
            None => strangers.push(match (&p.model, p.spec.starts_with("uci:")) {
                (Some(model), _) => format!("{} (the model {})", p.name, model.display()),
                (None, true) => format!("{} (the program {})", p.name, p.spec),
                (None, false) => format!("{} ({})", p.name, p.spec),
            }),
        }
    }
    if !strangers.is_empty() {
        bail!(
            "{} names players that the command line does not give: {}; a league starts no program and reads no model because its file says so. \
             Resume it with the players it was started with, or give a new directory",
            path.display(),
            strangers.join(", ")
        );
    }
    Ok(players)
}

/// Progress of a league: pairs done (including those of earlier starts) of all.
pub trait LeagueObserver: Sync {
    fn started(&self, _header: &LeagueHeader, _done: usize, _total: usize) {}
    fn pair_done(&self, _done: usize, _total: usize) {}
}

/// Plays the league of `cfg` in `dir` (creating it, or resuming what is
/// there if it is the same league), `round` pairs at a time on all
/// threads; returns the league's file as it ends.
pub fn play_league<G: Game>(dir: &Path, cfg: &LeagueConfig, round: usize, obs: &dyn LeagueObserver) -> Result<LeagueFile> {
    use rayon::prelude::*;
    let (wanted, entrants) = LeagueHeader::of(cfg)?;
    let path = dir.join(LEAGUE_FILE);
    let (header, entrants, done) = match read_league(dir)? {
        Some(f) => {
            let diff = f.header.differences(&wanted);
            if !diff.is_empty() {
                bail!("{} is another league ({} differ): resume it with the same settings, or give a new directory", path.display(), diff.join(", "));
            }
            let entrants = players_of_command_line(&path, &f.header, &entrants)?;
            let header = LeagueHeader { players: entrants.iter().map(|e| e.record.clone()).collect(), ..f.header };
            // Rewritten without a cut last line, so that appends start on a line of their own.
            let mut text = serde_json::to_string(&header)? + "\n";
            for p in &f.pairs {
                text += &(serde_json::to_string(p)? + "\n");
            }
            pacozero_data::write_atomic(&path, &[text.as_bytes()])?;
            (header, entrants, f.pairs)
        }
        None => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            pacozero_data::write_atomic(&path, &[(serde_json::to_string(&wanted)? + "\n").as_bytes()])?;
            (wanted, entrants, Vec::new())
        }
    };
    if header.game != G::NAME {
        bail!("{} is a league of {}, not {}", path.display(), header.game, G::NAME);
    }
    let players: Vec<Player<G>> = entrants.iter().enumerate().map(|(i, p)| p.player::<G>(derive_seed(header.seed, i as u64))).collect::<Result<_>>()?;
    let limits = GameLimits { max_decisions: header.max_decisions, adjudicate_material: header.adjudicate_material };
    let played: BTreeSet<(usize, usize, u32)> = done.iter().map(|p| (p.a, p.b, p.pair)).collect();
    let todo: Vec<(usize, usize, u32)> = header.schedule().into_iter().filter(|k| !played.contains(k)).collect();
    let total = played.len() + todo.len();
    obs.started(&header, played.len(), total);
    let mut pairs = done;
    let counter = std::sync::atomic::AtomicUsize::new(played.len());
    let games_dir = dir.join(GAMES_DIR);
    for chunk in todo.chunks(round.max(1)) {
        let results: Vec<Result<(PairLine, [MatchGame; 2])>> = chunk
            .par_iter()
            .map(|&(a, b, p)| {
                let start: G = opening(header.openings, header.seed, p as u64);
                let [s1, s2] = game_seeds(header.seed, a, b, p);
                let g1 = play(start.clone(), &players[a], &players[b], limits, s1)?;
                let g2 = play(start, &players[b], &players[a], limits, s2)?;
                let line = PairLine {
                    a,
                    b,
                    pair: p,
                    points: [points(g1.outcome, Color::White), points(g2.outcome, Color::Black)],
                    decisions: [g1.decisions, g2.decisions],
                    end_reasons: [g1.end_reason.to_string(), g2.end_reason.to_string()],
                };
                let (sa, sb) = (header.players[a].spec.clone(), header.players[b].spec.clone());
                let games =
                    [MatchGame { white: sa.clone(), black: sb.clone(), seed: s1, result: g1 }, MatchGame { white: sb, black: sa, seed: s2, result: g2 }];
                obs.pair_done(counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
                Ok((line, games))
            })
            .collect();
        let results: Vec<(PairLine, [MatchGame; 2])> = results.into_iter().collect::<Result<_>>()?;
        // The round's games first, as one chunk named by its first pair: a
        // round killed before its lines are appended is played again on
        // resume as the same first pair, and its chunk is replaced.
        let (a, b, p) = chunk[0];
        let games: Vec<MatchGame> = results.iter().flat_map(|(_, g)| g.iter().cloned()).collect();
        record_games_as::<G>(&games_dir, Some(&format!("league-{p:05}-{a:03}-{b:03}")), &games)?;
        // The round's lines in one append, all or none: a round cut short
        // (a full disk) is played again whole and its chunk replaced, where a
        // part of its lines would leave some of its games in two chunks.
        let lines = results.iter().map(|(line, _)| serde_json::to_string(line)).collect::<Result<Vec<_>, _>>()?;
        append_lines(&path, &lines)?;
        pairs.extend(results.into_iter().map(|(line, _)| line));
    }
    Ok(LeagueFile { header, pairs })
}

/// The points of the player who had `color` in a game that ended `o`.
fn points(o: Outcome, color: Color) -> f64 {
    match o {
        Outcome::Draw => 0.5,
        Outcome::Win(c) if c == color => 1.0,
        Outcome::Win(_) => 0.0,
    }
}

/// The seeds of the two games of pair `pair` between players `a` and `b`
/// (the second with the colours swapped) in a league seeded `league_seed`:
/// every game of a league its own, each from every bit of the league's.
fn game_seeds(league_seed: u64, a: usize, b: usize, pair: u32) -> [u64; 2] {
    let seed = derive_seed(league_seed ^ 0x1EA6, ((pair as u64) << 32) | ((a as u64) << 16) | b as u64);
    [seed, seed ^ 1]
}

impl LeagueFile {
    /// The results by matchup, from the first player's side.
    pub fn matchups(&self) -> Vec<Matchup> {
        let mut by: BTreeMap<(usize, usize), (Wdl, Pentanomial)> = BTreeMap::new();
        for p in &self.pairs {
            let e = by.entry((p.a, p.b)).or_default();
            for s in p.points {
                match s {
                    x if x > 0.75 => e.0.wins += 1,
                    x if x < 0.25 => e.0.losses += 1,
                    _ => e.0.draws += 1,
                }
            }
            e.1.add_pair(p.points[0], p.points[1]);
        }
        let name = |i: usize| self.header.players[i].name.clone();
        by.into_iter().map(|((a, b), (wdl, pentanomial))| Matchup { a: name(a), b: name(b), wdl, pentanomial }).collect()
    }

    /// The rating list of every game played so far.
    pub fn ratings(&self, anchor: &Anchor) -> Result<RatingList> {
        rating_list(&self.matchups(), anchor).map_err(|e| anyhow::anyhow!("{e}"))
    }
}

#[cfg(test)]
mod tests;
