//! Self-play workers: many games per thread with game-level interleaving,
//! one evaluator batch per round, output written as `pacozero_data` chunks.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use pacozero_data::{chunk_stem, game_spec_as, ChunkWriter, GameRow, PositionRow};
use pacozero_engine::{encoding_index, Color, Outcome};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use pacozero_search::seeds::splitmix64;
use pacozero_search::{evaluate_pending, Algorithm, EvalOutput, Evaluator, Search, SearchConfig};

use pacozero_book::BookStarts;

use crate::config::{SelfplayConfig, StartPositions};
use crate::SelfplayGame;

/// Seed of game number `index` of a run with master seed `seed`.
pub fn game_seed(seed: u64, index: u64) -> u64 {
    splitmix64(seed ^ splitmix64(index.wrapping_add(0x5151)))
}

/// Game id of the game played with seed `seed` (see [`game_seed`]): the
/// `game_id` column of its rows.
pub fn game_id_of(seed: u64) -> u64 {
    splitmix64(seed ^ 0xA5A5_5A5A_0F0F_F0F0)
}

/// A finished game: its rows, ready for a [`ChunkWriter`].
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub game: GameRow,
    pub positions: Vec<PositionRow>,
    pub winner: Option<Color>,
    /// `"paco"`, `"repetition"`, `"no_progress"`, `"max_length"`, `"stuck"`, `"resign"`.
    /// The cuts (`"max_length"`, `"material"`) mark the rows truncated
    /// ([`pacozero_data::is_truncation`]).
    pub reason: String,
    /// The game was not allowed to resign.
    pub no_resign: bool,
    /// In a no-resign game: the colour that would have resigned first.
    pub would_resign: Option<Color>,
    pub simulations: u64,
    pub node_visits: u64,
}

struct Draft {
    side: Color,
    planes: Vec<u64>,
    scalars: Vec<f32>,
    legal: Vec<u16>,
    policy: Vec<f32>,
    full: bool,
    root_q: f32,
    root_wdl: [f32; 3],
    action: u16,
    /// The game's auxiliary targets at the last settled position.
    aux: Vec<bool>,
}

/// Static inputs shared by all games of a run.
struct Shared<'a> {
    cfg: &'a SelfplayConfig,
    fens: Vec<String>,
    book: BookStarts,
    config_hash: String,
    network_id: String,
    needs_encoding: bool,
    /// The index in `G::ENCODINGS` of the encoding written to the data.
    encoding: usize,
}

impl<'a> Shared<'a> {
    /// Validates the configuration and gathers what every game of a run shares.
    fn new<G: SelfplayGame, E: Evaluator<G> + ?Sized>(cfg: &'a SelfplayConfig, evaluator: &E) -> Result<Self> {
        cfg.validate()?;
        let encoding = encoding_index::<G>(&cfg.encoding).map_err(|e| anyhow::anyhow!("config key `encoding`: {e}"))?;
        if let Some(reads) = evaluator.encoding() {
            if reads != cfg.encoding {
                bail!("the network {} reads input encoding {reads:?}, but self-play writes {:?} (config key `encoding`)", evaluator.name(), cfg.encoding);
            }
        }
        Ok(Shared {
            encoding,
            cfg,
            fens: load_fens::<G>(cfg)?,
            book: match (cfg.start_positions, &cfg.book_file) {
                (StartPositions::Book, Some(path)) => BookStarts::from_file::<G>(path, cfg.book_temperature).context("config key `book_file`")?,
                _ => BookStarts::default(),
            },
            config_hash: cfg.config_hash(),
            network_id: evaluator.name(),
            needs_encoding: evaluator.needs_encoding(),
        })
    }
}

enum Step {
    NeedEval,
    Finished,
}

/// One game in progress.
struct Runner<G: SelfplayGame> {
    seed: u64,
    rng: ChaCha8Rng,
    start_fen: String,
    state: G,
    search: Search<G>,
    names: Vec<String>,
    drafts: Vec<Draft>,
    no_resign: bool,
    low: [u32; 2],
    would_resign: Option<Color>,
    in_search: bool,
    full: bool,
    /// The auxiliary targets of the last settled position (a decision in
    /// the middle of a turn gets its turn start's), and the buffer the game
    /// writes the current ones into.
    aux: Vec<bool>,
    aux_now: Vec<bool>,
    legal: Vec<u16>,
    end: Option<(Option<Color>, String)>,
    /// The index in `G::ENCODINGS` of the encoding written to the data.
    encoding: usize,
}

impl<G: SelfplayGame> Runner<G> {
    fn new(sh: &Shared<'_>, index: u64, start: Option<G>) -> Result<Self> {
        let seed = game_seed(sh.cfg.seed, index);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let state = match start {
            Some(s) => s,
            None => match sh.cfg.start_positions {
                StartPositions::Standard => G::start(),
                // (No draw without a share: the seeds' games stay as they were.)
                StartPositions::FischerRandom if sh.cfg.standard_fraction > 0.0 && rng.gen::<f64>() < sh.cfg.standard_fraction => G::start(),
                StartPositions::FischerRandom => G::random_start(rng.gen()),
                StartPositions::FenFile => G::from_notation(&sh.fens[rng.gen_range(0..sh.fens.len())])?,
                StartPositions::Book => G::from_notation(sh.book.pick(rng.gen::<f64>()))?,
            },
        };
        let no_resign = rng.gen::<f64>() < sh.cfg.no_resign_fraction;
        let mut aux = Vec::with_capacity(G::AUX_TARGETS.len());
        if !state.aux_targets(&mut aux) {
            aux.resize(G::AUX_TARGETS.len(), false);
        }
        Ok(Runner {
            seed,
            rng,
            start_fen: state.notation(),
            search: Search::new(sh.cfg.search.clone(), state.clone(), sh.needs_encoding),
            state,
            names: Vec::new(),
            drafts: Vec::new(),
            no_resign,
            low: [0; 2],
            would_resign: None,
            in_search: false,
            full: false,
            aux,
            aux_now: Vec::with_capacity(G::AUX_TARGETS.len()),
            legal: Vec::new(),
            end: None,
            encoding: sh.encoding,
        })
    }

    fn finish(&mut self, winner: Option<Color>, reason: &str) -> Step {
        self.end = Some((winner, reason.to_string()));
        Step::Finished
    }

    /// Plays until the game needs a leaf evaluation or is over.
    fn step(&mut self, cfg: &SelfplayConfig) -> Step {
        loop {
            if !self.in_search {
                if let Some(o) = self.state.outcome() {
                    let w = match o {
                        Outcome::Win(c) => Some(c),
                        Outcome::Draw => None,
                    };
                    let reason = self.state.end_reason();
                    return self.finish(w, reason);
                }
                if self.drafts.len() as u32 >= cfg.max_decisions {
                    let winner = cfg.limits().cut_winner(&self.state);
                    return self.finish(winner, if winner.is_some() { "material" } else { "max_length" });
                }
                self.state.playable_actions(&mut self.legal);
                if self.legal.is_empty() {
                    return self.finish(None, "stuck");
                }
                if self.state.aux_targets(&mut self.aux_now) {
                    std::mem::swap(&mut self.aux, &mut self.aux_now);
                }
                self.full = self.legal.len() > 1 && self.rng.gen::<f64>() < cfg.full_search_fraction;
                let sims = if self.full { cfg.search.full_simulations } else { cfg.search.cheap_simulations };
                // Gumbel noise is how Gumbel search samples moves, so every
                // search gets it; Dirichlet noise only in full searches.
                let noise = match cfg.search.algorithm {
                    Algorithm::Puct => self.full,
                    Algorithm::Gumbel => true,
                };
                self.search.begin(sims, noise);
                self.in_search = true;
            }
            if self.search.run(&mut self.rng) {
                return Step::NeedEval;
            }
            self.in_search = false;
            let res = self.search.result();
            let ply = self.drafts.len() as u32;
            let action = match cfg.search.algorithm {
                Algorithm::Gumbel if ply < cfg.gumbel_sample_decisions => res.choose(Algorithm::Gumbel, 1.0, &mut self.rng),
                Algorithm::Gumbel => res.action,
                Algorithm::Puct => {
                    let t = if ply < cfg.temperature_decisions { cfg.temperature } else { cfg.final_temperature };
                    res.choose(Algorithm::Puct, t, &mut self.rng)
                }
            };
            let mover = self.state.to_move();
            let enc = &G::ENCODINGS[self.encoding];
            let mut planes = vec![0u64; enc.num_bit_planes() * G::WORDS_PER_PLANE];
            let mut scalars = vec![0f32; enc.num_scalars()];
            self.state.encode_as(self.encoding, &mut planes, &mut scalars);
            self.names.push(self.state.action_name(action));
            self.drafts.push(Draft {
                side: mover,
                planes,
                scalars,
                legal: res.legal,
                policy: res.policy,
                full: self.full,
                root_q: res.root_q,
                root_wdl: res.root_wdl,
                action,
                aux: self.aux.clone(),
            });
            // Resignation.
            let m = mover.index();
            if res.root_q < cfg.resign_threshold {
                self.low[m] += 1;
            } else {
                self.low[m] = 0;
            }
            if self.low[m] >= cfg.resign_consecutive {
                if !self.no_resign {
                    return self.finish(Some(mover.other()), "resign");
                }
                if self.would_resign.is_none() {
                    self.would_resign = Some(mover);
                }
            }
            self.state.apply(action);
            self.search.advance(action, &self.state);
        }
    }

    fn record(self, sh: &Shared<'_>) -> GameRecord {
        let (winner, reason) = self.end.clone().expect("finished game");
        let n = self.drafts.len() as u32;
        let game_id = game_id_of(self.seed);
        // A game cut at its length cap did not end by its rules: its result
        // (a draw, or material's win) and its length are no targets.
        let truncated = pacozero_data::is_truncation(&reason);
        let positions = self
            .drafts
            .into_iter()
            .enumerate()
            .map(|(i, d)| PositionRow {
                game_id,
                ply: i as u32,
                side_to_move: d.side.index() as u8,
                planes: d.planes,
                scalars: d.scalars,
                legal_actions: d.legal,
                policy: d.policy,
                full_search: d.full,
                root_q: d.root_q,
                root_wdl: d.root_wdl,
                action: d.action,
                result: match winner {
                    None => 0,
                    Some(c) if c == d.side => 1,
                    Some(_) => -1,
                },
                moves_left: n - 1 - i as u32,
                aux_targets: d.aux,
                weight: sh.cfg.weight,
                network_id: sh.network_id.clone(),
                truncated,
            })
            .collect();
        let result = match winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        };
        GameRecord {
            game: GameRow {
                game_id,
                start_fen: self.start_fen,
                actions: self.names.join(" "),
                num_decisions: n,
                result: result.into(),
                reason: reason.clone(),
                network_id: sh.network_id.clone(),
                config_hash: sh.config_hash.clone(),
                seed: self.seed,
                white: format!("selfplay:{}", sh.network_id),
                black: format!("selfplay:{}", sh.network_id),
            },
            positions,
            winner,
            reason,
            no_resign: self.no_resign,
            would_resign: self.would_resign,
            simulations: self.search.total_simulations,
            node_visits: self.search.node_visits,
        }
    }
}

/// Totals of a self-play run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub games: u64,
    pub positions: u64,
    /// Positions with a full search (trained policy targets).
    pub full_search_positions: u64,
    pub simulations: u64,
    pub node_visits: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    /// Games ended by each reason.
    pub reasons: BTreeMap<String, u64>,
    /// Games that were not allowed to resign.
    pub no_resign_games: u64,
    /// No-resign games in which someone would have resigned.
    pub would_resign_games: u64,
    /// ... and the would-be resigner did not lose (false resignations).
    pub false_resignations: u64,
    /// Chunks written (stems).
    pub chunks: Vec<String>,
    pub wall_secs: f64,
    /// Seconds inside the evaluator, summed over workers.
    pub eval_secs: f64,
    pub threads: usize,
    pub batches: u64,
    /// Evaluation requests (all batches).
    pub requests: u64,
    /// Games of the run already in the output directory (same seed and
    /// index, e.g. written before a crash), not played again.
    pub skipped: u64,
}

impl Summary {
    /// Mean decisions per game.
    pub fn avg_length(&self) -> f64 {
        self.positions as f64 / self.games.max(1) as f64
    }
    pub fn positions_per_sec(&self) -> f64 {
        self.positions as f64 / self.wall_secs.max(1e-9)
    }
    pub fn simulations_per_sec(&self) -> f64 {
        self.simulations as f64 / self.wall_secs.max(1e-9)
    }
    /// Share of worker time spent inside the evaluator.
    pub fn eval_fraction(&self) -> f64 {
        self.eval_secs / (self.wall_secs * self.threads.max(1) as f64).max(1e-9)
    }
    /// False resignations / would-be resignations in no-resign games.
    pub fn false_resignation_rate(&self) -> f64 {
        self.false_resignations as f64 / self.would_resign_games.max(1) as f64
    }
    fn add_game(&mut self, r: &GameRecord) {
        self.games += 1;
        self.positions += r.positions.len() as u64;
        self.full_search_positions += r.positions.iter().filter(|p| p.full_search).count() as u64;
        match r.winner {
            Some(Color::White) => self.white_wins += 1,
            Some(Color::Black) => self.black_wins += 1,
            None => self.draws += 1,
        }
        *self.reasons.entry(r.reason.clone()).or_default() += 1;
        if r.no_resign {
            self.no_resign_games += 1;
            if let Some(c) = r.would_resign {
                self.would_resign_games += 1;
                if r.winner != Some(c.other()) {
                    self.false_resignations += 1;
                }
            }
        }
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} games, {} positions ({} full searches), avg length {:.1}, W/D/L (White) {}/{}/{}",
            self.games,
            self.positions,
            self.full_search_positions,
            self.avg_length(),
            self.white_wins,
            self.draws,
            self.black_wins
        )?;
        writeln!(f, "end reasons: {:?}", self.reasons)?;
        writeln!(
            f,
            "{:.1} s wall, {:.0} positions/s, {:.0} simulations/s, {:.0} node visits/s, evaluator {:.1}% of worker time, {} batches (avg {:.1})",
            self.wall_secs,
            self.positions_per_sec(),
            self.simulations_per_sec(),
            self.node_visits as f64 / self.wall_secs.max(1e-9),
            100.0 * self.eval_fraction(),
            self.batches,
            self.requests as f64 / self.batches.max(1) as f64
        )?;
        write!(
            f,
            "resignation: {} no-resign games, {} would have resigned, {} of those falsely; {} chunks",
            self.no_resign_games,
            self.would_resign_games,
            self.false_resignations,
            self.chunks.len()
        )?;
        if self.skipped > 0 {
            write!(f, "; {} games already in the directory (same seed) not played again", self.skipped)?;
        }
        Ok(())
    }
}

/// Counters shared between workers and the progress display.
#[derive(Default)]
struct Live {
    next_game: AtomicU64,
    skipped: AtomicU64,
    simulations: AtomicU64,
    node_visits: AtomicU64,
    abort: AtomicBool,
    summary: Mutex<Summary>,
}

struct WorkerStats {
    eval_secs: f64,
    batches: u64,
    requests: u64,
    chunks: Vec<String>,
}

/// One worker: `games_per_thread` interleaved games until `total` games have
/// been started (or `deadline`), one evaluator call per round.
#[allow(clippy::too_many_arguments)]
fn worker<G: SelfplayGame, E: Evaluator<G> + ?Sized>(
    sh: &Shared<'_>,
    evaluator: &E,
    live: &Live,
    worker_id: u32,
    total: u64,
    out_dir: Option<&Path>,
    deadline: Option<Instant>,
    existing: &HashSet<u64>,
) -> Result<WorkerStats> {
    let cfg = sh.cfg;
    let mut writer = match out_dir {
        Some(d) => Some(ChunkWriter::new(d, game_spec_as::<G>(sh.encoding)).with_context(|| format!("creating chunk writer in {}", d.display()))?),
        None => None,
    };
    let mut stats = WorkerStats { eval_secs: 0.0, batches: 0, requests: 0, chunks: Vec::new() };
    let mut seq = 0u64;
    let mut slots: Vec<Option<Runner<G>>> = (0..cfg.games_per_thread).map(|_| None).collect();
    let mut out = EvalOutput::default();
    let mut counted = vec![(0u64, 0u64); slots.len()];
    let mut exhausted = false;
    loop {
        if live.abort.load(Ordering::Relaxed) {
            break;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            // Benchmarks stop at the deadline, abandoning games in progress.
            break;
        }
        // Advance every game to its next leaf request.
        for (si, slot) in slots.iter_mut().enumerate() {
            loop {
                if slot.is_none() {
                    if exhausted {
                        break;
                    }
                    let idx = live.next_game.fetch_add(1, Ordering::Relaxed);
                    if idx >= total {
                        exhausted = true;
                        break;
                    }
                    if existing.contains(&game_id_of(game_seed(cfg.seed, idx))) {
                        live.skipped.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    *slot = Some(Runner::new(sh, idx, None)?);
                    counted[si] = (0, 0);
                }
                let r = slot.as_mut().expect("runner");
                match r.step(cfg) {
                    Step::NeedEval => break,
                    Step::Finished => {
                        let r = slot.take().expect("runner");
                        let rec = r.record(sh);
                        live.simulations.fetch_add(rec.simulations - counted[si].0, Ordering::Relaxed);
                        live.node_visits.fetch_add(rec.node_visits - counted[si].1, Ordering::Relaxed);
                        counted[si] = (0, 0);
                        live.summary.lock().expect("summary lock").add_game(&rec);
                        if let Some(w) = writer.as_mut() {
                            w.push_finished_game(rec.game, rec.positions)?;
                            if w.num_games() >= cfg.games_per_chunk {
                                let stem = chunk_stem(worker_id, seq);
                                seq += 1;
                                w.flush(&stem).with_context(|| format!("writing chunk {stem}"))?;
                                stats.chunks.push(stem);
                            }
                        }
                    }
                }
            }
        }
        // Evaluate the pending leaves in one batch (the time includes handing
        // the requests and the results over, a small part of it).
        let t0 = Instant::now();
        let mut searches: Vec<&mut Search<G>> = slots.iter_mut().filter_map(|s| s.as_mut().map(|r| &mut r.search)).collect();
        let n = evaluate_pending(&mut searches, evaluator, &mut out)?;
        drop(searches);
        if n == 0 {
            if slots.iter().all(|s| s.is_none()) {
                break;
            }
            continue;
        }
        stats.eval_secs += t0.elapsed().as_secs_f64();
        stats.batches += 1;
        stats.requests += n as u64;
        for (si, slot) in slots.iter_mut().enumerate() {
            if let Some(r) = slot.as_mut() {
                let (s, v) = (r.search.total_simulations, r.search.node_visits);
                live.simulations.fetch_add(s - counted[si].0, Ordering::Relaxed);
                live.node_visits.fetch_add(v - counted[si].1, Ordering::Relaxed);
                counted[si] = (s, v);
            }
        }
    }
    if let Some(w) = writer.as_mut() {
        if w.num_games() > 0 {
            let stem = chunk_stem(worker_id, seq);
            w.flush(&stem).with_context(|| format!("writing chunk {stem}"))?;
            stats.chunks.push(stem);
        }
    }
    Ok(stats)
}

fn load_fens<G: SelfplayGame>(cfg: &SelfplayConfig) -> Result<Vec<String>> {
    if cfg.start_positions != StartPositions::FenFile {
        return Ok(Vec::new());
    }
    let path = cfg.fen_file.as_ref().expect("validated");
    let text = std::fs::read_to_string(path).with_context(|| format!("reading fen_file {}", path.display()))?;
    let mut fens = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        G::from_notation(l).with_context(|| format!("{}:{}: bad start position", path.display(), i + 1))?;
        fens.push(l.to_string());
    }
    if fens.is_empty() {
        bail!("fen_file {} has no positions", path.display());
    }
    Ok(fens)
}

fn run_workers<G: SelfplayGame, E: Evaluator<G> + ?Sized>(
    cfg: &SelfplayConfig,
    evaluator: &E,
    out_dir: Option<&Path>,
    games: u64,
    deadline: Option<Instant>,
    progress: bool,
) -> Result<Summary> {
    let sh = Shared::new::<G, E>(cfg, evaluator)?;
    let threads = cfg.effective_threads();
    let live = Live::default();
    // Games of this seed already written (a run restarted after a crash) are
    // not played again, so every game id is written once.
    let existing = match out_dir {
        Some(d) if d.is_dir() => pacozero_data::game_ids(d).with_context(|| format!("reading the game ids of {}", d.display()))?,
        _ => HashSet::new(),
    };
    let bar = if shows_progress(progress, games) {
        let b = indicatif::ProgressBar::new(games);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} games [{elapsed_precise} < {eta_precise}] {msg}").expect("progress template"),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let start = Instant::now();
    let results: Vec<Result<WorkerStats>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|w| {
                let (sh, live, existing) = (&sh, &live, &existing);
                s.spawn(move || {
                    let r = worker::<G, E>(sh, evaluator, live, w as u32, games, out_dir, deadline, existing);
                    if r.is_err() {
                        live.abort.store(true, Ordering::Relaxed);
                    }
                    r
                })
            })
            .collect();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(200));
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            let sm = live.summary.lock().expect("summary lock").clone();
            bar.set_position(sm.games);
            bar.set_message(format!(
                "{:.0} pos/s, {:.0} sims/s, avg len {:.1}, W/D/L {}/{}/{}",
                sm.positions as f64 / secs,
                live.simulations.load(Ordering::Relaxed) as f64 / secs,
                sm.avg_length(),
                sm.white_wins,
                sm.draws,
                sm.black_wins
            ));
        }
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("self-play worker panicked")))).collect()
    });
    bar.finish_and_clear();
    let mut summary = live.summary.lock().expect("summary lock").clone();
    summary.wall_secs = start.elapsed().as_secs_f64();
    summary.threads = threads;
    summary.simulations = live.simulations.load(Ordering::Relaxed);
    summary.node_visits = live.node_visits.load(Ordering::Relaxed);
    summary.skipped = live.skipped.load(Ordering::Relaxed);
    for r in results {
        let st = r?;
        summary.eval_secs += st.eval_secs;
        summary.batches += st.batches;
        summary.requests += st.requests;
        summary.chunks.extend(st.chunks);
    }
    summary.chunks.sort();
    Ok(summary)
}

/// Whether a run of `games` games shows a progress bar: when asked, and for
/// a count it can show (not none, not the benchmark's unbounded count).
fn shows_progress(progress: bool, games: u64) -> bool {
    progress && games > 0 && games < u64::MAX
}

/// Plays `games` self-play games on `cfg.threads` workers and writes them as
/// chunks (every `cfg.games_per_chunk` games per worker, plus a final partial
/// chunk) into `out_dir`. Shows an indicatif progress bar if `progress`.
///
/// Game `i` (seed `game_seed(cfg.seed, i)`) is skipped when its id is already
/// in `out_dir` ([`Summary::skipped`]): a run restarted after a crash plays
/// only the games it had not written, and never writes a game id twice.
pub fn run_selfplay<G: SelfplayGame, E: Evaluator<G> + ?Sized>(
    cfg: &SelfplayConfig,
    evaluator: &E,
    out_dir: &Path,
    games: u64,
    progress: bool,
) -> Result<Summary> {
    run_workers::<G, E>(cfg, evaluator, Some(out_dir), games, None, progress)
}

/// Plays one game on the calling thread (batch size 1), from `start` or the
/// configured start positions; nothing is written.
pub fn play_game<G: SelfplayGame, E: Evaluator<G> + ?Sized>(cfg: &SelfplayConfig, evaluator: &E, index: u64, start: Option<G>) -> Result<GameRecord> {
    let sh = Shared::new::<G, E>(cfg, evaluator)?;
    let mut r = Runner::new(&sh, index, start)?;
    let mut out = EvalOutput::default();
    loop {
        match r.step(cfg) {
            Step::Finished => return Ok(r.record(&sh)),
            Step::NeedEval => {
                let req = r.search.request().expect("request");
                evaluator.evaluate(std::slice::from_ref(&req), &mut out)?;
                let (p, w) = (out.priors_of(0).to_vec(), out.wdl[0]);
                r.search.supply(&p, w);
            }
        }
    }
}

/// Search throughput figures.
#[derive(Clone, Debug)]
pub struct BenchReport {
    pub evaluator: String,
    pub threads: usize,
    pub games_per_thread: usize,
    pub wall_secs: f64,
    pub simulations: u64,
    pub node_visits: u64,
    pub decisions: u64,
    pub batches: u64,
    pub avg_batch: f64,
    pub simulations_per_sec: f64,
    pub node_visits_per_sec: f64,
    /// Seconds inside the evaluator, summed over threads.
    pub eval_secs: f64,
    /// Share of worker time inside the evaluator.
    pub eval_fraction: f64,
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} threads x {} games, {:.1} s: {:.0} simulations/s, {:.0} node visits/s, {} decisions, avg batch {:.1}, evaluator {:.1}% of worker time",
            self.evaluator,
            self.threads,
            self.games_per_thread,
            self.wall_secs,
            self.simulations_per_sec,
            self.node_visits_per_sec,
            self.decisions,
            self.avg_batch,
            100.0 * self.eval_fraction
        )
    }
}

/// Runs self-play search (every decision a full search of
/// `search.full_simulations`, standard start, no resignation, games cut at 300
/// decisions) for `seconds` on `threads` workers (0 = all cores) with
/// `games_per_thread` interleaved games each, writing nothing.
pub fn bench_mcts<G: SelfplayGame, E: Evaluator<G> + ?Sized>(
    search: &SearchConfig,
    evaluator: &E,
    threads: usize,
    games_per_thread: usize,
    seconds: f64,
) -> Result<BenchReport> {
    let defaults = SelfplayConfig::default();
    let cfg = SelfplayConfig {
        threads,
        games_per_thread,
        max_decisions: 300,
        full_search_fraction: 1.0,
        resign_threshold: -1.0,
        search: search.clone(),
        // The network's own input (a Shako network may read "threats").
        encoding: evaluator.encoding().unwrap_or(defaults.encoding.clone()),
        ..defaults
    };
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let s = run_workers::<G, E>(&cfg, evaluator, None, u64::MAX, Some(deadline), false)?;
    Ok(BenchReport {
        evaluator: evaluator.name(),
        threads: s.threads,
        games_per_thread,
        wall_secs: s.wall_secs,
        simulations: s.simulations,
        node_visits: s.node_visits,
        decisions: s.positions,
        batches: s.batches,
        avg_batch: s.requests as f64 / s.batches.max(1) as f64,
        simulations_per_sec: s.simulations_per_sec(),
        node_visits_per_sec: s.node_visits as f64 / s.wall_secs.max(1e-9),
        eval_secs: s.eval_secs,
        eval_fraction: s.eval_fraction(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resumed run skips game `i` when `game_id_of(game_seed(seed, i))` is
    /// already in the data, so two games of a run must never share an id:
    /// over a million games of one seed none do (a 64-bit id; an id that
    /// kept only 32 of the seed's bits would collide about a hundred times).
    #[test]
    fn a_million_games_of_a_run_have_distinct_ids_and_seeds() {
        let mut ids = std::collections::HashSet::with_capacity(1 << 20);
        let mut seeds = std::collections::HashSet::with_capacity(1 << 20);
        for i in 0..1_000_000u64 {
            let s = game_seed(42, i);
            assert!(seeds.insert(s), "game {i}: seed repeated");
            assert!(ids.insert(game_id_of(s)), "game {i}: id repeated");
        }
        // Another run's seed gives other games.
        assert_ne!(game_seed(43, 0), game_seed(42, 0));
        assert_ne!(game_id_of(game_seed(42, 0)), game_seed(42, 0), "the id is not the seed itself");
    }

    #[test]
    fn progress_is_shown_for_a_bounded_run_when_asked() {
        assert!(shows_progress(true, 1) && shows_progress(true, 1000));
        assert!(!shows_progress(false, 1000) && !shows_progress(true, 0) && !shows_progress(true, u64::MAX));
    }

    #[test]
    fn summary_rates_are_the_counts_over_time_and_games() {
        let s = Summary {
            games: 8,
            positions: 1000,
            simulations: 30_000,
            node_visits: 90_000,
            wall_secs: 4.0,
            eval_secs: 6.0,
            threads: 2,
            would_resign_games: 5,
            false_resignations: 1,
            ..Summary::default()
        };
        assert_eq!(s.avg_length(), 125.0);
        assert_eq!(s.positions_per_sec(), 250.0);
        assert_eq!(s.simulations_per_sec(), 7500.0);
        assert_eq!(s.eval_fraction(), 0.75);
        assert_eq!(s.false_resignation_rate(), 0.2);
        // Nothing played: zeros, not a division by zero.
        let empty = Summary::default();
        assert_eq!((empty.avg_length(), empty.positions_per_sec(), empty.false_resignation_rate()), (0.0, 0.0, 0.0));
        let text = s.to_string();
        assert!(text.contains("avg length 125.0") && text.contains("250 positions/s") && text.contains("7500 simulations/s"), "{text}");
        assert!(text.contains("evaluator 75.0% of worker time"), "{text}");
        assert!(!text.contains("not played again"), "{text}");
        let resumed = Summary { skipped: 3, ..s };
        assert!(resumed.to_string().contains("3 games already in the directory"));
    }
}
