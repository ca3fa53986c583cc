//! Opening books: configuration, building by search, loading.
//!
//! ## Book nodes and moves
//!
//! A book node is a position at the start of a turn (nothing in hand; a
//! pending promotion may open the turn, `GameRules::is_turn_start`), keyed by the
//! engine's position hash, so transpositions share one node; repetition
//! history is not part of a node (each node is searched from its FEN). A book
//! read from the platform may hold several rows of a node (FENs differing in
//! the half-move count) and entries that cannot be replayed: [`Book`] uses
//! one row per node by the rule of [`crate::entries`] and keeps the others
//! for export and saving. A book
//! move is a whole turn, named in chain notation (`turn_to_string`: `e2-e4`,
//! `Bf3xe4>c3>c6`, `0-0`) and stored with its atomic actions (`Le2 Pe4`),
//! so the file can be replayed without a notation parser. A move's statistics
//! come from the atomic-decision search tree grouped into turns (see
//! `pacozero_search::turns`). In Shako a turn is one move: its name and its
//! stored form are both the UCI move (`e3e5`). What a book needs of a game
//! comes from the game's hooks ([`BookGame`]); the file records its game, and
//! probing or exporting a book uses that game.
//!
//! ## Expansion (KataGo-genbook-like)
//!
//! Every start position is searched first. Then, repeatedly, the
//! `batch_positions` unsearched positions of highest priority are searched
//! together (one evaluator batch per simulation round), where a position
//! reached by move `m` from searched node `p` has priority
//!
//! ```text
//! reach(p) · share(m) · (uncertainty_floor + sd(m))
//! ```
//!
//! * `share(m)` = visits of `m` / visits of all moves of `p` (how plausible the
//!   move is), `reach(p)` = the largest product of shares over the lines from a
//!   start position to `p` (how plausible the line is);
//! * `sd(m)` = the standard deviation of the game result after `m` under its
//!   WDL, `sqrt(W + L - (W - L)^2)`: 0 for a certain win, draw or loss, 1 for
//!   an even win/loss (how uncertain the value is).
//!
//! Only the `max_moves_per_position` most visited moves of a node with at least
//! `min_move_visits` visits are followed, to `max_depth` turns; finished games
//! are not searched. The book grows until it holds `positions` searched
//! positions (or nothing is left to expand). Ties are broken by hash, searches
//! use PUCT without noise, and every random choice derives from `seed`, so a
//! build is reproducible for a deterministic network.
//!
//! ## Resuming
//!
//! The book is saved atomically every `save_every` positions and at the end.
//! Building into an existing file loads it and continues up to `positions`
//! (a larger `positions`, or more Fischer-random starts, extends it).

use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet, VecDeque};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use pacozero_data::book::{visit_logit, write_book, BookInfo, BookMove, BookPosition};
use pacozero_engine::{parse_decision_names, Game};

use crate::read::{book_game, read_any_book};
use pacozero_search::turns::root_turns;
use pacozero_search::{evaluate_pending, Algorithm, EvalOutput, Evaluator, Search, SearchConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Book building settings (`configs/book.toml`). Every key is optional;
/// unknown keys are errors; [`BookConfig::validate`] names the key at fault.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BookConfig {
    /// Seed of every random choice (Fischer-random starts, search).
    pub seed: u64,
    /// Searched positions the book should hold (1..=10000000; `--positions` overrides).
    pub positions: u32,
    /// Fischer-random start positions besides the standard one (0..=959;
    /// `--fischer-random` overrides).
    pub fischer_random: u32,
    /// Simulations of each position's search (1..=1000000).
    pub simulations: u32,
    /// Positions searched together, their leaves forming one evaluator batch (1..=4096).
    pub batch_positions: u32,
    /// Deepest book node, in turns from its start position (1..=500).
    pub max_depth: u32,
    /// Most visited moves of a node that are followed (1..=1000).
    pub max_moves_per_position: u32,
    /// Visits a move needs to be followed (1..=1000000).
    pub min_move_visits: u32,
    /// Added to a move's uncertainty so that decided lines still get some
    /// priority (0..=10).
    pub uncertainty_floor: f32,
    /// Save the book every this many searched positions (1..=10000000).
    pub save_every: u32,
    /// PUCT exploration constant (> 0, <= 100).
    pub c_puct: f32,
    /// First-play urgency reduction below the root (0..=2).
    pub fpu_reduction: f32,
    /// First-play urgency reduction at the root (0..=2).
    pub fpu_reduction_root: f32,
}

impl Default for BookConfig {
    fn default() -> Self {
        BookConfig {
            seed: 0,
            positions: 200,
            fischer_random: 0,
            simulations: 256,
            batch_positions: 8,
            max_depth: 12,
            max_moves_per_position: 6,
            min_move_visits: 2,
            uncertainty_floor: 0.1,
            save_every: 100,
            c_puct: 1.5,
            fpu_reduction: 0.2,
            fpu_reduction_root: 0.0,
        }
    }
}

fn check<T: PartialOrd + std::fmt::Display>(key: &str, v: T, lo: T, hi: T) -> Result<()> {
    if !(v >= lo && v <= hi) {
        bail!("config key `{key}` = {v} is out of range: must be in {lo}..={hi}");
    }
    Ok(())
}

impl BookConfig {
    /// Reads and validates a TOML file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading book config {}", path.display()))?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    /// Reads and validates a configuration's text (`origin` names it in errors).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self> {
        let cfg: BookConfig = toml::from_str(text).map_err(|e| anyhow::anyhow!("invalid book config {origin}: {e}"))?;
        cfg.validate().with_context(|| format!("in {origin}"))?;
        Ok(cfg)
    }

    /// Range-checks every key; the error names the key.
    pub fn validate(&self) -> Result<()> {
        check("positions", self.positions, 1, 10_000_000)?;
        check("fischer_random", self.fischer_random, 0, 959)?;
        check("simulations", self.simulations, 1, 1_000_000)?;
        check("batch_positions", self.batch_positions, 1, 4096)?;
        check("max_depth", self.max_depth, 1, 500)?;
        check("max_moves_per_position", self.max_moves_per_position, 1, 1000)?;
        check("min_move_visits", self.min_move_visits, 1, 1_000_000)?;
        check("uncertainty_floor", self.uncertainty_floor, 0.0, 10.0)?;
        check("save_every", self.save_every, 1, 10_000_000)?;
        if !(self.c_puct > 0.0 && self.c_puct <= 100.0) {
            bail!("config key `c_puct` = {} is out of range: must be > 0 and <= 100", self.c_puct);
        }
        check("fpu_reduction", self.fpu_reduction, 0.0, 2.0)?;
        check("fpu_reduction_root", self.fpu_reduction_root, 0.0, 2.0)?;
        Ok(())
    }

    /// The search settings of a book position (PUCT, no noise).
    pub fn search_config(&self) -> SearchConfig {
        SearchConfig {
            algorithm: Algorithm::Puct,
            full_simulations: self.simulations,
            cheap_simulations: self.simulations,
            c_puct: self.c_puct,
            fpu_reduction: self.fpu_reduction,
            fpu_reduction_root: self.fpu_reduction_root,
            dirichlet_epsilon: 0.0,
            tree_reuse: false,
            ..SearchConfig::default()
        }
    }
}

/// What a book needs of a game besides search, from the game's hooks:
/// positions at the start of a turn, other start positions, the whole turns
/// found at a searched root, and replaying a stored turn. Paco Ŝako's turns
/// are chains of atomic decisions named in chain notation and stored as
/// their actions (`Le2 Pe4`); a Shako turn is one move, named and stored in
/// UCI. Every game is a book game.
pub trait BookGame: Game {
    /// Reads a position that starts a turn (history dropped).
    fn turn_start(fen: &str) -> Result<Self> {
        let g = Self::from_notation(fen).with_context(|| format!("reading FEN \"{}\"", fen.trim()))?;
        if !g.is_turn_start() {
            bail!("\"{}\" is in the middle of a turn (a piece is in hand); book positions start a turn", fen.trim());
        }
        Ok(g.without_history())
    }
    /// `count` distinct start positions other than the standard one: the
    /// game's random starts ([`GameRules::random_start`](pacozero_engine::GameRules::random_start): Fischer-random setups
    /// for Paco, a few random plies for Shako) numbered by draws of `rng`.
    fn other_starts(count: usize, rng: &mut ChaCha8Rng) -> Vec<Self> {
        let mut seen = HashSet::from([Self::start().hash()]);
        let mut out = Vec::new();
        // Random starts repeat (Paco has 960): give up after many draws rather than loop.
        for _ in 0..count * 50 + 100 {
            if out.len() >= count {
                break;
            }
            let g = Self::random_start(rng.gen()).without_history();
            if seen.insert(g.hash()) {
                out.push(g);
            }
        }
        out
    }
    /// The turns completed below a searched root, most visited first.
    fn root_moves(search: &Search<Self>) -> Vec<RootMove<Self>> {
        root_turns(search)
            .into_iter()
            .map(|t| RootMove { name: t.name, actions: t.actions.join(" "), state: t.state.without_history(), visits: t.visits, wdl: t.wdl, prior: t.prior })
            .collect()
    }
    /// The position after the stored turn `actions` (history dropped).
    fn after(&self, actions: &str) -> Result<Self> {
        let mut g = self.clone();
        for d in parse_decision_names(self, actions).map_err(|e| anyhow!("{e}"))? {
            g.apply(d);
        }
        Ok(g.without_history())
    }
}

impl<G: Game> BookGame for G {}

/// A whole turn at a searched root.
pub struct RootMove<G> {
    pub name: String,
    /// The stored form that [`BookGame::after`] replays.
    pub actions: String,
    /// The position after it.
    pub state: G,
    pub visits: u32,
    /// (win, draw, loss) for the player making it.
    pub wdl: [f32; 3],
    pub prior: f32,
}

/// An opening book in memory.
pub struct Book<G: BookGame> {
    pub info: BookInfo,
    /// Searched positions by hash: the rows lookups use ([`crate::entries`]).
    pub positions: BTreeMap<u64, BookPosition>,
    /// Start positions (searched or not) by hash.
    pub roots: BTreeMap<u64, G>,
    /// The other rows of a book read from the platform, kept for export and
    /// saving: other half-move counts of a position, skipped entries.
    pub others: Vec<BookPosition>,
}

impl<G: BookGame> Book<G> {
    /// Reads a book file; each row's hash must match its FEN (a book written
    /// by an engine with other hash keys is refused).
    pub fn load(path: &Path) -> Result<Book<G>> {
        let (info, rows) = read_any_book(path)?;
        Self::from_rows(path, info, rows)
    }

    /// A book from the header and rows read from `path` (named in errors).
    pub fn from_rows(path: &Path, info: BookInfo, rows: Vec<BookPosition>) -> Result<Book<G>> {
        let game = book_game(&info);
        if game != G::NAME {
            bail!("book {} is for the game '{game}', not '{}'", path.display(), G::NAME);
        }
        let mut positions = BTreeMap::new();
        let mut roots = BTreeMap::new();
        let mut others = Vec::new();
        for (i, p) in rows.into_iter().enumerate() {
            if p.skipped.is_some() {
                others.push(p);
                continue;
            }
            let g = G::turn_start(&p.fen).with_context(|| format!("book {}, row {i}", path.display()))?;
            if g.hash() != p.hash {
                bail!(
                    "book {}, row {i}: stored hash {:016x} differs from the FEN's {:016x} (written by an incompatible engine version?)",
                    path.display(),
                    p.hash,
                    g.hash()
                );
            }
            // A later row of a position is kept, not used (see `crate::entries`).
            if positions.contains_key(&p.hash) {
                others.push(p);
                continue;
            }
            if p.depth == 0 {
                roots.insert(p.hash, g);
            }
            positions.insert(p.hash, p);
        }
        Ok(Book { info, positions, roots, others })
    }

    /// The book position of a FEN, with a clear error when it is not there:
    /// the row with exactly this FEN (after trimming) if one is usable, else
    /// the row lookups use for its position (for a platform book the entry
    /// with the smallest half-move count, see [`crate::entries`]).
    pub fn probe(&self, fen: &str) -> Result<&BookPosition> {
        let g = G::turn_start(fen)?;
        let fen = fen.trim();
        let exact = self.others.iter().find(|r| r.skipped.is_none() && r.fen == fen);
        if let Some(r) = exact.or_else(|| self.positions.get(&g.hash())) {
            return Ok(r);
        }
        let kept: Vec<&str> = self.others.iter().filter(|r| r.hash == g.hash()).filter_map(|r| r.skipped.as_deref()).collect();
        if !kept.is_empty() {
            bail!("position not in book's lookups: {} (its entry is kept for export only: {})", g.notation(), kept.join(", "));
        }
        bail!("position not in book ({} positions): {}", self.positions.len(), g.notation())
    }

    /// The other rows of a position (other half-move counts, skipped entries).
    pub fn other_rows(&self, hash: u64) -> impl Iterator<Item = &BookPosition> {
        self.others.iter().filter(move |r| r.hash == hash)
    }

    /// Depth (turns from the nearest start position, over moves with visits)
    /// and book weight (see `pacozero_data::book`) of every searched position.
    fn depths_and_weights(&self) -> HashMap<u64, (u32, u32)> {
        let mut depth: HashMap<u64, u32> = HashMap::new();
        let mut queue: VecDeque<u64> = VecDeque::new();
        for &r in self.roots.keys() {
            if self.positions.contains_key(&r) && depth.insert(r, 0).is_none() {
                queue.push_back(r);
            }
        }
        while let Some(h) = queue.pop_front() {
            let d = depth[&h];
            for m in &self.positions[&h].moves {
                if m.visits > 0 && self.positions.contains_key(&m.child) && !depth.contains_key(&m.child) {
                    depth.insert(m.child, d + 1);
                    queue.push_back(m.child);
                }
            }
        }
        let mut weight: HashMap<u64, u64> = HashMap::new();
        for (h, p) in &self.positions {
            if self.roots.contains_key(h) {
                *weight.entry(*h).or_default() += p.simulations as u64;
            }
            for m in &p.moves {
                if self.positions.contains_key(&m.child) {
                    *weight.entry(m.child).or_default() += m.visits as u64;
                }
            }
        }
        self.positions
            .keys()
            .map(|h| (*h, (depth.get(h).copied().unwrap_or(u32::MAX), weight.get(h).copied().unwrap_or(0).min(u32::MAX as u64) as u32)))
            .collect()
    }

    /// Rows to write: depth and weight filled in, ordered by depth, weight
    /// (descending), hash; then the other rows as they were read.
    pub fn rows(&self) -> Vec<BookPosition> {
        let dw = self.depths_and_weights();
        let mut rows: Vec<BookPosition> = self
            .positions
            .values()
            .map(|p| {
                let (depth, visits) = dw[&p.hash];
                BookPosition { depth, visits, ..p.clone() }
            })
            .collect();
        rows.sort_by(|a, b| a.depth.cmp(&b.depth).then(b.visits.cmp(&a.visits)).then(a.hash.cmp(&b.hash)));
        rows.extend(self.others.iter().cloned());
        rows
    }

    /// Writes the book atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        write_book(path, &self.info, &self.rows()).with_context(|| format!("writing book {}", path.display()))
    }

    /// Largest product of move shares from a start position to each searched
    /// position (Dijkstra on `-ln share`).
    fn reach(&self) -> HashMap<u64, f64> {
        let mut best: HashMap<u64, f64> = HashMap::new();
        // Max-heap on (-cost) via reversed bits: costs are >= 0, whose f64 bits order like the values.
        let mut heap: BinaryHeap<std::cmp::Reverse<(u64, u64)>> = BinaryHeap::new();
        for &r in self.roots.keys() {
            if self.positions.contains_key(&r) {
                heap.push(std::cmp::Reverse((0f64.to_bits(), r)));
            }
        }
        let mut done: HashSet<u64> = HashSet::new();
        while let Some(std::cmp::Reverse((bits, h))) = heap.pop() {
            if !done.insert(h) {
                continue;
            }
            let cost = f64::from_bits(bits);
            best.insert(h, (-cost).exp());
            let p = &self.positions[&h];
            let total: u64 = p.moves.iter().map(|m| m.visits as u64).sum();
            for m in &p.moves {
                if m.visits == 0 || done.contains(&m.child) || !self.positions.contains_key(&m.child) {
                    continue;
                }
                let c = cost - (m.visits as f64 / total as f64).ln();
                heap.push(std::cmp::Reverse((if c > 0.0 { c.to_bits() } else { 0 }, m.child)));
            }
        }
        best
    }
}

/// Standard deviation of the result (+1/0/-1) under a WDL.
fn result_sd(wdl: [f32; 3]) -> f64 {
    let (w, l) = (wdl[0] as f64, wdl[2] as f64);
    (w + l - (w - l) * (w - l)).max(0.0).sqrt()
}

/// An unsearched position with its expansion priority.
struct Candidate {
    priority: f64,
    hash: u64,
    /// Parent and move to reach it (the parent's FEN plus the move's actions).
    parent: u64,
    move_index: usize,
}

/// The game after a book move, from a fresh state of its parent's FEN.
fn child_state<G: BookGame>(parent: &BookPosition, m: &BookMove) -> Result<G> {
    G::turn_start(&parent.fen)?.after(&m.actions).with_context(|| format!("book move {} of {}", m.name, parent.fen))
}

/// Can the game go on from here (running, with a legal action)?
fn searchable<G: Game>(g: &G) -> bool {
    let mut legal = Vec::new();
    g.playable_actions(&mut legal);
    g.outcome().is_none() && !legal.is_empty()
}

/// Progress of a build, reported after each batch.
pub struct Progress {
    pub positions: usize,
    pub target: usize,
    pub frontier: usize,
}

/// Builds (or extends) the book at `out` with `evaluator`.
pub fn build<G: BookGame, E: Evaluator<G> + ?Sized>(cfg: &BookConfig, evaluator: &E, out: &Path, mut report: impl FnMut(&Progress)) -> Result<Book<G>> {
    cfg.validate()?;
    let mut book = if out.exists() {
        let b = Book::load(out)?;
        if b.info.network != evaluator.name() {
            eprintln!("note: extending a book searched by '{}' with '{}'", b.info.network, evaluator.name());
        }
        b
    } else {
        Book { info: BookInfo::default(), positions: BTreeMap::new(), roots: BTreeMap::new(), others: Vec::new() }
    };
    book.info = BookInfo { game: G::NAME.into(), network: evaluator.name(), config: toml::to_string(cfg).context("serialising the book config")? };
    // Start positions: the standard one and `fischer_random` distinct others drawn from the seed.
    let standard = G::start();
    book.roots.entry(standard.hash()).or_insert(standard);
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    for g in G::other_starts(cfg.fischer_random as usize, &mut rng) {
        book.roots.entry(g.hash()).or_insert(g);
    }
    let target = cfg.positions as usize;
    let search_cfg = cfg.search_config();
    let mut dead: HashSet<u64> = HashSet::new();
    let mut since_save = 0usize;
    while book.positions.len() < target {
        let want = (target - book.positions.len()).min(cfg.batch_positions as usize);
        let (jobs, frontier) = next_batch(&book, cfg, want, &mut dead)?;
        if jobs.is_empty() {
            eprintln!("book: nothing left to expand at {} positions", book.positions.len());
            break;
        }
        let n = jobs.len();
        for p in search_batch(&search_cfg, cfg.seed, evaluator, jobs)? {
            book.positions.insert(p.hash, p);
        }
        since_save += n;
        report(&Progress { positions: book.positions.len(), target, frontier });
        if since_save >= cfg.save_every as usize {
            book.save(out)?;
            since_save = 0;
        }
    }
    book.save(out)?;
    Ok(book)
}

/// The next positions to search: unsearched start positions first, then the
/// candidates of highest priority. Also returns the frontier size.
fn next_batch<G: BookGame>(book: &Book<G>, cfg: &BookConfig, want: usize, dead: &mut HashSet<u64>) -> Result<(Vec<G>, usize)> {
    let mut jobs: Vec<G> = Vec::new();
    for (h, g) in &book.roots {
        if jobs.len() < want && !book.positions.contains_key(h) && !dead.contains(h) {
            if searchable(g) {
                jobs.push(g.clone());
            } else {
                dead.insert(*h);
            }
        }
    }
    let reach = book.reach();
    let depth: HashMap<u64, u32> = book.depths_and_weights().into_iter().map(|(h, (d, _))| (h, d)).collect();
    let mut best: HashMap<u64, Candidate> = HashMap::new();
    for (h, p) in &book.positions {
        let (Some(&r), Some(&d)) = (reach.get(h), depth.get(h)) else { continue };
        if d >= cfg.max_depth {
            continue;
        }
        let total: u64 = p.moves.iter().map(|m| m.visits as u64).sum();
        if total == 0 {
            continue;
        }
        // A built book stores moves most visited first, an imported one in the file's order.
        let mut by_visits: Vec<(usize, &BookMove)> = p.moves.iter().enumerate().collect();
        by_visits.sort_by_key(|(k, m)| (std::cmp::Reverse(m.visits), *k));
        for (k, m) in by_visits.into_iter().take(cfg.max_moves_per_position as usize) {
            if m.visits < cfg.min_move_visits || book.positions.contains_key(&m.child) || dead.contains(&m.child) {
                continue;
            }
            let priority = r * (m.visits as f64 / total as f64) * (cfg.uncertainty_floor as f64 + result_sd(m.wdl));
            let better = best.get(&m.child).is_none_or(|c| priority > c.priority);
            if better {
                best.insert(m.child, Candidate { priority, hash: m.child, parent: *h, move_index: k });
            }
        }
    }
    let frontier = best.len();
    let mut cands: Vec<Candidate> = best.into_values().collect();
    cands.sort_by(|a, b| b.priority.total_cmp(&a.priority).then(a.hash.cmp(&b.hash)));
    for c in cands {
        if jobs.len() >= want {
            break;
        }
        let parent = &book.positions[&c.parent];
        let g: G = child_state(parent, &parent.moves[c.move_index])?;
        if g.hash() != c.hash {
            bail!("book move {} of {} leads to hash {:016x}, the book says {:016x}", parent.moves[c.move_index].name, parent.fen, g.hash(), c.hash);
        }
        if searchable(&g) {
            jobs.push(g);
        } else {
            dead.insert(c.hash);
        }
    }
    Ok((jobs, frontier))
}

/// Searches positions together (their leaf requests form one evaluator
/// batch) and turns each tree into a book position.
fn search_batch<G: BookGame, E: Evaluator<G> + ?Sized>(cfg: &SearchConfig, seed: u64, evaluator: &E, states: Vec<G>) -> Result<Vec<BookPosition>> {
    struct Job<G: Game> {
        search: Search<G>,
        rng: ChaCha8Rng,
        done: bool,
    }
    let mut jobs: Vec<Job<G>> = states
        .into_iter()
        .map(|g| {
            let rng = ChaCha8Rng::seed_from_u64(seed ^ g.hash());
            let mut search = Search::new(cfg.clone(), g, evaluator.needs_encoding());
            search.begin(cfg.full_simulations, false);
            Job { search, rng, done: false }
        })
        .collect();
    let mut out = EvalOutput::default();
    loop {
        for j in jobs.iter_mut().filter(|j| !j.done) {
            if !j.search.run(&mut j.rng) {
                j.done = true;
            }
        }
        let mut live: Vec<&mut Search<G>> = jobs.iter_mut().filter(|j| !j.done).map(|j| &mut j.search).collect();
        if evaluate_pending(&mut live, evaluator, &mut out)? == 0 {
            break;
        }
    }
    Ok(jobs.into_iter().map(|mut j| book_position(&mut j.search)).collect())
}

/// A searched tree as a book position (depth and weight are filled in on saving).
fn book_position<G: BookGame>(search: &mut Search<G>) -> BookPosition {
    let res = search.result();
    let root = search.root_state();
    let turns = G::root_moves(search);
    let total: u64 = turns.iter().map(|t| t.visits as u64).sum();
    let moves = turns
        .into_iter()
        .map(|t| BookMove {
            name: t.name,
            actions: t.actions,
            child: t.state.hash(),
            visits: t.visits,
            prior: t.prior,
            wdl: t.wdl,
            logit: visit_logit(t.visits, total),
        })
        .collect();
    BookPosition { hash: root.hash(), fen: root.notation(), depth: 0, visits: 0, simulations: search.root_visits(), wdl: res.root_wdl, moves, skipped: None }
}
