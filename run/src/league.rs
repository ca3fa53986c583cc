//! A league: many players, one schedule of paired games (a round robin, or a
//! gauntlet of one player against the rest), one rating list over all of it
//! ([`pacozero_arena::rating_list`]). It is resumable: every finished pair is
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
//! | `games/` | every game, in the games table of the training data (one chunk per round of pairs, positions empty; `white`/`black` the players' specs; [`pacozero_arena::records`]); `pacozero games export --format pgn` reads it |
//! | `ratings.csv`, `ratings.json`, `ratings.md` | the rating list ([`pacozero_arena::rating_list::RatingList`]) |
//! | `ratings.svg`, `report.html` | the list as an error-bar plot; the page with the plot, the list and the cross table |
//!
//! Pair `p` of every matchup starts from the same opening (opening `p` of
//! the league's seed), so every player meets the same starts.

use anyhow::{bail, Context, Result};
use pacozero_arena::rating_list::{rating_list, Anchor, Matchup, RatingList};
use pacozero_arena::ratings::{Pentanomial, Wdl};
use pacozero_arena::records::record_games_as;
use pacozero_arena::{opening, play, Budget, EvalKind, MatchGame, NetOptions, Openings, Player, PlayerSpec};
use pacozero_engine::{Color, Game, GameKind, Outcome};
use pacozero_search::{derive_seed, GameLimits};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::files::{append_lines, generation_of, model_name, read_jsonl, write_atomic};
use crate::report::svg::{rating_bars, RatingBar};

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

/// One player of a league: its name and the spec it was made from.
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
    pub specs: Vec<String>,
    /// The gauntlet's player: a spec of `specs` or a player's name; `None` = round robin.
    pub gauntlet: Option<String>,
    pub pairs: u32,
    pub openings: Openings,
    pub seed: u64,
    pub limits: GameLimits,
}

/// The players a spec stands for: itself, or a run's generations.
pub fn expand_spec(spec: &str) -> Result<Vec<LeaguePlayer>> {
    let Some(rest) = spec.strip_prefix("run:") else {
        PlayerSpec::parse(spec)?;
        return Ok(vec![LeaguePlayer { name: spec.to_string(), spec: spec.to_string(), model: None, budget: None }]);
    };
    // run:DIR[:every=K][:BUDGET]; the directory is everything before the options.
    let mut parts: Vec<&str> = rest.split(':').collect();
    let mut every = 1u32;
    let mut budget = "64".to_string();
    while parts.len() > 1 {
        let last = parts[parts.len() - 1];
        if let Some(k) = last.strip_prefix("every=") {
            every = k.parse().ok().filter(|&k| k >= 1).with_context(|| format!("player '{spec}': '{last}' should be every=<generations, at least 1>"))?;
        } else if last.parse::<Budget>().is_ok() {
            budget = last.to_string();
        } else {
            break;
        }
        parts.pop();
    }
    let dir = PathBuf::from(parts.join(":"));
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
        .map(|(g, path)| LeaguePlayer {
            name: format!("{label}/{}", model_name(g)),
            spec: format!("net:{}:{budget}", path.display()),
            model: Some(path),
            budget: Some(budget.clone()),
        })
        .collect())
}

impl LeaguePlayer {
    fn player<G: Game>(&self, seed: u64) -> Result<Player<G>> {
        match (&self.model, &self.budget) {
            (Some(model), Some(budget)) => {
                let spec = PlayerSpec::Mcts { kind: EvalKind::Net(model.clone(), NetOptions::default()), budget: budget.parse()?, search: Default::default() };
                Player::from_spec(self.name.clone(), spec, seed, 0)
            }
            _ => Player::from_spec(self.name.clone(), PlayerSpec::parse(&self.spec)?, seed, 0),
        }
    }
}

impl LeagueHeader {
    fn of(cfg: &LeagueConfig) -> Result<LeagueHeader> {
        let mut players: Vec<LeaguePlayer> = Vec::new();
        for s in &cfg.specs {
            for p in expand_spec(s)? {
                if players.iter().any(|q| q.name == p.name) {
                    bail!("two players are named {} (from '{s}'): give each player once", p.name);
                }
                players.push(p);
            }
        }
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
        Ok(LeagueHeader {
            league: 1,
            game: cfg.game.name().to_string(),
            specs: cfg.specs.clone(),
            players,
            schedule,
            pairs: cfg.pairs,
            openings: cfg.openings,
            seed: cfg.seed,
            max_decisions: cfg.limits.max_decisions,
            adjudicate_material: cfg.limits.adjudicate_material,
        })
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
fn players_of_command_line(path: &Path, file: &LeagueHeader, wanted: &LeagueHeader) -> Result<Vec<LeaguePlayer>> {
    let mut players = Vec::new();
    let mut strangers = Vec::new();
    for p in &file.players {
        match wanted.players.iter().find(|w| *w == p) {
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
    let wanted = LeagueHeader::of(cfg)?;
    let path = dir.join(LEAGUE_FILE);
    let (header, done) = match read_league(dir)? {
        Some(f) => {
            let diff = f.header.differences(&wanted);
            if !diff.is_empty() {
                bail!("{} is another league ({} differ): resume it with the same settings, or give a new directory", path.display(), diff.join(", "));
            }
            let header = LeagueHeader { players: players_of_command_line(&path, &f.header, &wanted)?, ..f.header };
            // Rewritten without a cut last line, so that appends start on a line of their own.
            let mut text = serde_json::to_string(&header)? + "\n";
            for p in &f.pairs {
                text += &(serde_json::to_string(p)? + "\n");
            }
            write_atomic(&path, text.as_bytes())?;
            (header, f.pairs)
        }
        None => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            write_atomic(&path, (serde_json::to_string(&wanted)? + "\n").as_bytes())?;
            (wanted, Vec::new())
        }
    };
    if header.game != G::NAME {
        bail!("{} is a league of {}, not {}", path.display(), header.game, G::NAME);
    }
    let players: Vec<Player<G>> = header.players.iter().enumerate().map(|(i, p)| p.player::<G>(derive_seed(header.seed, i as u64))).collect::<Result<_>>()?;
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

/// Writes the league's rating list (CSV, JSON, Markdown), its plot and its
/// page into `dir`; returns the Markdown table.
pub fn write_league_outputs(dir: &Path, league: &LeagueFile, list: &RatingList) -> Result<String> {
    let md = list.to_markdown();
    // The list's files have the names a run directory gives its own.
    let files = pacozero_data::RunDir::new(dir);
    write_atomic(&files.ratings_csv(), list.to_csv().as_bytes())?;
    write_atomic(&dir.join("ratings.json"), serde_json::to_string_pretty(&list.to_json())?.as_bytes())?;
    write_atomic(&files.ratings_md(), md.as_bytes())?;
    let title = format!("League of {} players, {} pairs played ({})", league.header.players.len(), league.pairs.len(), league.header.game);
    let bars: Vec<RatingBar> = list.ratings.iter().map(|r| RatingBar { name: r.name.clone(), elo: r.elo, ci95: r.ci95 }).collect();
    let svg = rating_bars(&title, &format!("Elo ({}; 95% intervals from the pairs)", list.anchor), &bars);
    write_atomic(&dir.join("ratings.svg"), svg.as_bytes())?;
    let page = crate::report::league_page(&title, &svg, list, &league.matchups());
    write_atomic(&files.report(), page.as_bytes())?;
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{err_text, tiny_model_in, TempDir};
    use pacozero_engine::paco::GameState as Paco;
    use std::sync::Mutex;

    #[test]
    fn every_game_of_a_league_has_its_own_seed_from_every_bit_of_the_leagues() {
        let mut seen = std::collections::HashSet::new();
        for (a, b) in [(0, 1), (1, 0), (0, 2), (2, 1), (3, 0)] {
            for pair in 0..8 {
                for seed in game_seeds(99, a, b, pair) {
                    assert!(seen.insert(seed), "players {a} and {b}, pair {pair}: seed {seed} twice");
                }
            }
        }
        for bit in 0..64 {
            assert_ne!(game_seeds(99 ^ (1 << bit), 1, 2, 3), game_seeds(99, 1, 2, 3), "bit {bit}");
        }
    }

    fn player(name: &str) -> LeaguePlayer {
        LeaguePlayer { name: name.into(), spec: name.into(), model: None, budget: None }
    }

    fn config(specs: &[&str], gauntlet: Option<&str>, pairs: u32) -> LeagueConfig {
        LeagueConfig {
            game: GameKind::Paco,
            specs: specs.iter().map(|s| s.to_string()).collect(),
            gauntlet: gauntlet.map(str::to_string),
            pairs,
            openings: Openings::FischerRandom,
            seed: 3,
            limits: GameLimits { max_decisions: 10, adjudicate_material: 0 },
        }
    }

    fn header(players: &[&str], schedule: Schedule, pairs: u32) -> LeagueHeader {
        LeagueHeader {
            league: 1,
            game: "paco".into(),
            specs: players.iter().map(|s| s.to_string()).collect(),
            players: players.iter().map(|p| player(p)).collect(),
            schedule,
            pairs,
            openings: Openings::FischerRandom,
            seed: 3,
            max_decisions: 10,
            adjudicate_material: 0,
        }
    }

    fn pair(a: usize, b: usize, pair: u32, points: [f64; 2]) -> PairLine {
        PairLine { a, b, pair, points, decisions: [10, 10], end_reasons: ["max_length".into(), "max_length".into()] }
    }

    /// A run directory `dir/<name>` whose `models/` holds empty files named `files`.
    fn run_with_files(dir: &TempDir, name: &str, files: &[&str]) -> PathBuf {
        let run = dir.join(name);
        std::fs::create_dir_all(run.join("models")).unwrap();
        for f in files {
            std::fs::write(run.join("models").join(f), b"").unwrap();
        }
        run
    }

    #[test]
    fn a_spec_is_one_player_named_by_it() {
        assert_eq!(expand_spec("rollout:8").unwrap(), [player("rollout:8")]);
        assert!(err_text(expand_spec("bogus:1")).contains("unknown player spec 'bogus:1'"));
    }

    #[test]
    fn a_run_spec_is_every_kth_generation_of_the_run_with_its_budget() {
        let dir = TempDir::new("run-spec");
        let files = ["gen-0001.pzmodel", "gen-0002.pzmodel", "gen-0003.pzmodel", "gen-0004.pzmodel", "gen-x.pzmodel", "other.pzmodel", "current"];
        let run = run_with_files(&dir, "run-a", &files);
        let names =
            |spec: &str| -> Vec<(String, String, Option<String>)> { expand_spec(spec).unwrap().into_iter().map(|p| (p.name, p.spec, p.budget)).collect() };
        let entry = |g: u32, budget: &str| {
            let path = run.join(format!("models/gen-{g:04}.pzmodel"));
            (format!("run-a/gen-{g:04}"), format!("net:{}:{budget}", path.display()), Some(budget.to_string()))
        };
        let r = run.display();
        assert_eq!(names(&format!("run:{r}")), [entry(1, "64"), entry(2, "64"), entry(3, "64"), entry(4, "64")]);
        assert_eq!(names(&format!("run:{r}:every=2:50ms")), [entry(2, "50ms"), entry(4, "50ms")]);
        assert_eq!(names(&format!("run:{r}:50ms:every=3")), [entry(3, "50ms")]);
        assert_eq!(expand_spec(&format!("run:{r}:every=4")).unwrap()[0].model, Some(run.join("models/gen-0004.pzmodel")));
        let e = err_text(expand_spec(&format!("run:{r}:every=0")));
        assert!(e.contains("'every=0' should be every=<generations, at least 1>"), "{e}");
        let e = err_text(expand_spec(&format!("run:{r}:every=5")));
        assert!(e.contains("holds no gen-NNNN.pzmodel with a generation divisible by 5"), "{e}");
        // The directory is all before the options, even one named like a budget.
        let e = err_text(expand_spec("run:64"));
        assert!(e.contains("player 'run:64': reading 64/models"), "{e}");
        let colon = run_with_files(&dir, "x:y", &["gen-0007.pzmodel"]);
        assert_eq!(expand_spec(&format!("run:{}", colon.display())).unwrap()[0].name, "x:y/gen-0007");
    }

    #[test]
    fn a_generation_in_a_folder_with_a_colon_plays_from_its_model_file() {
        let dir = TempDir::new("colon");
        tiny_model_in::<Paco>(&dir.join("x:y/models"), "gen-0001", 0);
        let players = expand_spec(&format!("run:{}:8", dir.join("x:y").display())).unwrap();
        let p = players[0].player::<Paco>(1).unwrap();
        assert_eq!(p.name, "x:y/gen-0001");
        assert!(player("greedy").player::<Paco>(1).is_ok());
    }

    #[test]
    fn a_league_header_has_two_players_at_least_each_once_and_a_pair_a_matchup() {
        let e = err_text(LeagueHeader::of(&config(&["greedy"], None, 1)));
        assert!(e.contains("a league needs at least two players, got 1"), "{e}");
        let e = err_text(LeagueHeader::of(&config(&["greedy", "random", "greedy"], None, 1)));
        assert!(e.contains("two players are named greedy (from 'greedy')"), "{e}");
        let e = err_text(LeagueHeader::of(&config(&["greedy", "random"], None, 0)));
        assert!(e.contains("at least one pair of games a matchup"), "{e}");
        let h = LeagueHeader::of(&config(&["greedy", "random"], None, 1)).unwrap();
        assert_eq!(h, header(&["greedy", "random"], Schedule::RoundRobin, 1));
        let h = LeagueHeader::of(&config(&["greedy", "random", "uniform:2"], None, 2)).unwrap();
        assert_eq!(h.players.len(), 3);
    }

    #[test]
    fn the_gauntlets_player_is_found_by_name_or_by_spec() {
        let dir = TempDir::new("gauntlet");
        let run = run_with_files(&dir, "r", &["gen-0001.pzmodel", "gen-0002.pzmodel"]);
        let specs = ["greedy".to_string(), format!("run:{}", run.display()), "random".to_string()];
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        let of = |g: &str| LeagueHeader::of(&config(&specs, Some(g), 1)).map(|h| h.schedule);
        assert_eq!(of("r/gen-0002").unwrap(), Schedule::Gauntlet("r/gen-0002".into()));
        let spec = format!("net:{}:64", run.join("models/gen-0001.pzmodel").display());
        assert_eq!(of(&spec).unwrap(), Schedule::Gauntlet("r/gen-0001".into()));
        assert_eq!(of("random").unwrap(), Schedule::Gauntlet("random".into()));
        let e = err_text(of("uniform:9"));
        assert!(e.contains("the gauntlet's player uniform:9 is not one of the players (greedy, r/gen-0001, r/gen-0002, random)"), "{e}");
    }

    #[test]
    fn a_round_robin_meets_every_pair_once_and_a_gauntlet_only_its_player() {
        let rr = header(&["p0", "p1", "p2", "p3"], Schedule::RoundRobin, 1);
        assert_eq!(rr.matchups(), [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
        let g = header(&["p0", "p1", "p2", "p3"], Schedule::Gauntlet("p2".into()), 1);
        assert_eq!(g.matchups(), [(2, 0), (2, 1), (2, 3)]);
        // Pair 0 of every matchup, then pair 1.
        let h = header(&["p0", "p1", "p2"], Schedule::RoundRobin, 2);
        assert_eq!(h.schedule(), [(0, 1, 0), (0, 2, 0), (1, 2, 0), (0, 1, 1), (0, 2, 1), (1, 2, 1)]);
    }

    #[test]
    fn a_resumed_league_names_every_setting_that_differs() {
        let h = header(&["p0", "p1"], Schedule::RoundRobin, 2);
        assert!(h.differences(&h.clone()).is_empty());
        let changes: [(&str, LeagueHeader); 8] = [
            ("game", LeagueHeader { game: "shako".into(), ..h.clone() }),
            ("players", LeagueHeader { specs: vec!["p0".into(), "p9".into()], ..h.clone() }),
            ("schedule", LeagueHeader { schedule: Schedule::Gauntlet("p0".into()), ..h.clone() }),
            ("pairs", LeagueHeader { pairs: 3, ..h.clone() }),
            ("openings", LeagueHeader { openings: Openings::Standard, ..h.clone() }),
            ("seed", LeagueHeader { seed: 4, ..h.clone() }),
            ("max_decisions", LeagueHeader { max_decisions: 11, ..h.clone() }),
            ("adjudicate_material", LeagueHeader { adjudicate_material: 1, ..h.clone() }),
        ];
        for (name, other) in changes {
            assert_eq!(h.differences(&other), [name]);
        }
        let both = LeagueHeader { pairs: 3, seed: 4, ..h.clone() };
        assert_eq!(h.differences(&both), ["pairs", "seed"]);
    }

    #[test]
    fn a_league_file_is_read_with_its_pairs_and_a_pair_outside_the_league_is_named_by_line() {
        let dir = TempDir::new("read-league");
        assert!(read_league(dir.path()).unwrap().is_none());
        let h = header(&["p0", "p1", "p2"], Schedule::RoundRobin, 2);
        let path = dir.join(LEAGUE_FILE);
        let line = |p: &PairLine| serde_json::to_string(p).unwrap();
        let head = serde_json::to_string(&h).unwrap();
        // The last players and the last pair are inside; a cut last line is dropped.
        let good = pair(1, 2, 1, [1.0, 0.5]);
        std::fs::write(&path, format!("{head}\n{}\n{{\"a\":0,", line(&good))).unwrap();
        let f = read_league(dir.path()).unwrap().unwrap();
        assert_eq!((f.header, f.pairs), (h.clone(), vec![good.clone()]));
        for (bad, what) in [
            (pair(3, 0, 0, [1.0, 1.0]), "pair 0 of players 3 and 0"),
            (pair(0, 3, 0, [1.0, 1.0]), "pair 0 of players 0 and 3"),
            (pair(0, 1, 2, [1.0, 1.0]), "pair 2 of players 0 and 1"),
        ] {
            std::fs::write(&path, format!("{head}\n{}\n{}\n", line(&good), line(&bad))).unwrap();
            let e = err_text(read_league(dir.path()));
            assert_eq!(e, format!("{}:3: {what} is outside the league (3 players, 2 pairs)", path.display()));
        }
        std::fs::write(&path, format!("{head}\n{{\"a\":0}}\n{}\n", line(&good))).unwrap();
        assert!(err_text(read_league(dir.path())).starts_with(&format!("{}:2: not a pair line", path.display())));
        std::fs::write(&path, "{}\n").unwrap();
        assert!(err_text(read_league(dir.path())).starts_with(&format!("{}:1: not a league header", path.display())));
    }

    /// A UCI engine that leaves the file `marker` when it starts, then
    /// forfeits every game at its first move.
    fn marking_engine(dir: &TempDir, marker: &Path) -> PathBuf {
        let path = dir.join("x.sh");
        let script = format!(
            "#!/bin/sh\ntouch '{}'\nwhile read line; do\n  case \"$line\" in\n    uci) echo 'id name x'; echo uciok;;\n    isready) echo readyok;;\n    go*) echo 'bestmove zz99';;\n    quit) exit 0;;\n  esac\ndone\n",
            marker.display()
        );
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn a_resumed_league_starts_no_program_and_reads_no_model_that_only_its_file_names() {
        let dir = TempDir::new("league-untrusted");
        let marker = dir.join("started");
        let program = format!("uci:{}:nodes=1", marking_engine(&dir, &marker).display());
        let outside = tiny_model_in::<Paco>(&dir.join("elsewhere"), "m", 0);
        let cfg = config(&["random", "greedy"], None, 1);
        let league = dir.join("league");
        std::fs::create_dir_all(&league).unwrap();
        let path = league.join(LEAGUE_FILE);
        // The file's specs are the command line's; its second player is not.
        let edited = [
            (LeaguePlayer { name: "greedy".into(), spec: program.clone(), model: None, budget: None }, format!("greedy (the program {program})")),
            (
                LeaguePlayer { name: "greedy".into(), spec: format!("net:{}:8", outside.display()), model: Some(outside.clone()), budget: Some("8".into()) },
                format!("greedy (the model {})", outside.display()),
            ),
        ];
        for (player, named) in edited {
            let mut header = LeagueHeader::of(&cfg).unwrap();
            header.players[1] = player;
            std::fs::write(&path, serde_json::to_string(&header).unwrap() + "\n").unwrap();
            let e = err_text(play_league::<Paco>(&league, &cfg, 2, &Heard::default()));
            assert_eq!(
                e,
                format!(
                    "{} names players that the command line does not give: {named}; a league starts no program and reads no model because its file says so. \
                     Resume it with the players it was started with, or give a new directory",
                    path.display()
                )
            );
            assert!(!marker.exists(), "the program was started");
            assert_eq!(read_league(&league).unwrap().unwrap().header, header, "the file is left as it was");
        }
        // Given on the command line, the program plays (and forfeits).
        let cfg = config(&["random", &program], None, 1);
        std::fs::write(&path, serde_json::to_string(&LeagueHeader::of(&cfg).unwrap()).unwrap() + "\n").unwrap();
        let f = play_league::<Paco>(&league, &cfg, 2, &Heard::default()).unwrap();
        assert!(marker.exists());
        assert_eq!((f.pairs.len(), f.header.players[1].spec.as_str()), (1, program.as_str()));
    }

    #[test]
    fn a_gauntlet_whose_player_is_not_in_the_league_is_refused_at_reading() {
        let dir = TempDir::new("gauntlet-stranger");
        let h = header(&["p0", "p1"], Schedule::Gauntlet("p9".into()), 1);
        std::fs::write(dir.join(LEAGUE_FILE), serde_json::to_string(&h).unwrap() + "\n").unwrap();
        let e = err_text(read_league(dir.path()));
        assert_eq!(e, format!("{}:1: the gauntlet's player p9 is not one of the league's players", dir.join(LEAGUE_FILE).display()));
    }

    #[test]
    fn a_draw_is_half_a_point_and_a_win_a_point_for_the_winners_colour() {
        assert_eq!(points(Outcome::Draw, Color::White), 0.5);
        assert_eq!(points(Outcome::Draw, Color::Black), 0.5);
        assert_eq!(points(Outcome::Win(Color::White), Color::White), 1.0);
        assert_eq!(points(Outcome::Win(Color::White), Color::Black), 0.0);
        assert_eq!(points(Outcome::Win(Color::Black), Color::Black), 1.0);
        assert_eq!(points(Outcome::Win(Color::Black), Color::White), 0.0);
    }

    #[test]
    fn pairs_add_up_by_matchup_to_wins_draws_losses_and_pair_counts() {
        let f = LeagueFile {
            header: header(&["p0", "p1", "p2"], Schedule::RoundRobin, 2),
            pairs: vec![pair(0, 1, 0, [1.0, 0.5]), pair(0, 2, 0, [0.0, 0.0]), pair(0, 1, 1, [1.0, 1.0]), pair(1, 2, 0, [0.5, 0.5])],
        };
        let m = |a: &str, b: &str, w: u32, d: u32, l: u32, p: [u32; 5]| Matchup {
            a: a.into(),
            b: b.into(),
            wdl: Wdl { wins: w, draws: d, losses: l },
            pentanomial: Pentanomial(p),
        };
        // p0-p1: 1 + 0.5 (a pair of 1.5 points) and 1 + 1 (2 points); p0-p2: 0 + 0; p1-p2: 0.5 + 0.5.
        assert_eq!(f.matchups(), [m("p0", "p1", 3, 1, 0, [0, 0, 0, 1, 1]), m("p0", "p2", 0, 0, 2, [1, 0, 0, 0, 0]), m("p1", "p2", 0, 2, 0, [0, 0, 1, 0, 0])]);
    }

    #[test]
    fn the_league_ratings_and_their_files() {
        let dir = TempDir::new("league-outputs");
        // p1 scores 3 of 4 against p0, 4 of 6 with the list's two virtual draws: 400 log10(4 / 2) = +120.4 Elo.
        let f = LeagueFile { header: header(&["p0", "p1"], Schedule::RoundRobin, 2), pairs: vec![pair(0, 1, 0, [0.0, 0.0]), pair(0, 1, 1, [1.0, 0.0])] };
        let list = f.ratings(&Anchor::Player { name: "p0".into(), elo: 0.0 }).unwrap();
        assert_eq!(list.get("p0").unwrap().elo, 0.0);
        assert!((list.get("p1").unwrap().elo - 400.0 * 2f64.log10()).abs() < 0.1, "{list:?}");
        let md = write_league_outputs(dir.path(), &f, &list).unwrap();
        assert_eq!(md, list.to_markdown());
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
        assert_eq!(read("ratings.md"), md);
        assert_eq!(read("ratings.csv"), list.to_csv());
        let json: serde_json::Value = serde_json::from_str(&read("ratings.json")).unwrap();
        assert_eq!(
            (json["anchor"].as_str(), json["ratings"][0]["player"].as_str(), json["ratings"][1]["elo"].as_f64()),
            (Some("p0 at 0"), Some("p1"), Some(0.0))
        );
        let title = "League of 2 players, 2 pairs played (paco)";
        assert!(read("ratings.svg").contains(title) && read("report.html").contains(title));
    }

    /// A league observer that keeps what it hears.
    #[derive(Default)]
    struct Heard {
        started: Mutex<Vec<(usize, usize)>>,
        done: Mutex<Vec<(usize, usize)>>,
    }

    impl LeagueObserver for Heard {
        fn started(&self, _header: &LeagueHeader, done: usize, total: usize) {
            self.started.lock().unwrap().push((done, total));
        }
        fn pair_done(&self, done: usize, total: usize) {
            self.done.lock().unwrap().push((done, total));
        }
    }

    #[test]
    fn a_league_plays_its_schedule_in_rounds_and_a_restart_plays_only_what_is_missing() {
        let dir = TempDir::new("play-league");
        let league = dir.join("league");
        let cfg = config(&["random", "greedy", "uniform:2"], None, 2);
        let heard = Heard::default();
        let f = play_league::<Paco>(&league, &cfg, 2, &heard).unwrap();
        let keys: Vec<(usize, usize, u32)> = f.pairs.iter().map(|p| (p.a, p.b, p.pair)).collect();
        let schedule = [(0, 1, 0), (0, 2, 0), (1, 2, 0), (0, 1, 1), (0, 2, 1), (1, 2, 1)];
        assert_eq!(keys, schedule);
        assert!(f.pairs.iter().all(|p| p.points.iter().all(|x| [0.0, 0.5, 1.0].contains(x)) && p.decisions.iter().all(|&d| d <= 10)), "{:?}", f.pairs);
        assert_eq!(*heard.started.lock().unwrap(), [(0, 6)]);
        let mut done = heard.done.lock().unwrap().clone();
        done.sort();
        assert_eq!(done, (1..=6).map(|d| (d, 6)).collect::<Vec<_>>());
        // One chunk of games per round of two pairs, named by its first pair.
        let stems: Vec<String> = pacozero_data::list_chunks(&league.join(GAMES_DIR)).unwrap().into_iter().map(|c| c.stem).collect();
        assert_eq!(stems, ["league-00000-000-001", "league-00000-001-002", "league-00001-000-002"]);
        let read = read_league(&league).unwrap().unwrap();
        assert_eq!((read.header, read.pairs), (f.header.clone(), f.pairs.clone()));

        // Killed after two pairs, in the middle of the third line: the restart plays the last four.
        let path = league.join(LEAGUE_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        let kept: Vec<&str> = text.lines().take(3).collect();
        std::fs::write(&path, format!("{}\n{{\"a\":1,\"b\"", kept.join("\n"))).unwrap();
        let heard = Heard::default();
        let f = play_league::<Paco>(&league, &cfg, 2, &heard).unwrap();
        let keys: Vec<(usize, usize, u32)> = f.pairs.iter().map(|p| (p.a, p.b, p.pair)).collect();
        assert_eq!(keys, schedule);
        assert_eq!(*heard.started.lock().unwrap(), [(2, 6)]);
        let mut done = heard.done.lock().unwrap().clone();
        done.sort();
        assert_eq!(done, (3..=6).map(|d| (d, 6)).collect::<Vec<_>>());
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 7, "{text}");
        assert!(text.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()), "the cut line is gone: {text}");

        // Another league in the same directory is refused, naming what differs.
        let other = LeagueConfig { pairs: 3, seed: 4, ..cfg.clone() };
        let e = err_text(play_league::<Paco>(&league, &other, 2, &Heard::default()));
        assert_eq!(e, format!("{} is another league (pairs, seed differ): resume it with the same settings, or give a new directory", path.display()));
        // And so is a league of one game played as another.
        let e = err_text(play_league::<pacozero_engine::shako::GameState>(&dir.join("shako"), &cfg, 2, &Heard::default()));
        assert!(e.ends_with("is a league of paco, not shako"), "{e}");
    }
}
