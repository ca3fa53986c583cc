//! A JSON-lines analysis engine (`pacozero analysis`), in the conventions of
//! KataGo's: queries come in one JSON object per line, answers go out one
//! JSON object per line in the order the searches finish. Many queries are
//! searched at once and their leaves share each network call.
//!
//! ## Queries
//!
//! | field | type | meaning |
//! |---|---|---|
//! | `id` | string or number | required; echoed in the answer |
//! | `game` | string | `paco` or `shako`; must be the network's game (default: that game) |
//! | `fen` | string | the position to analyse (the game's notation) |
//! | `start_fen` | string | a game's start, followed by `actions` or `moves` (default: the standard start) |
//! | `actions` | list of strings | decisions played from the start, by name (Paco Ŝako: `Le2`, `Pe4`) |
//! | `moves` | list of strings | whole turns played from the start (Paco Ŝako: chain notation `e2-e4`, `Bf3xe4>c3`) |
//! | `max_visits` | integer | simulations (default `--visits`; at most `--visit-cap`) |
//! | `max_time_ms` | integer | search time; with `max_visits` too, whichever ends first |
//! | `top_moves` | integer | turns reported (default `--top-moves`; 0: all the search completed) |
//! | `pv_turns` | integer | turns of each principal variation after its first (default 8) |
//! | `include_policy` | bool | add the network's prior of every root decision |
//! | `rules` | object | optional rules turned on, e.g. `{"no_union_undo": true}` (Paco Ŝako: `no_union_undo`, `one_double_step_per_file`, `king_chain_draw`) |
//!
//! Other lines: `{"action": "terminate", "id": X}` stops query `X` and
//! answers it with what its search has (`"terminated": true`);
//! `{"action": "terminate_all", "id": Y}` stops every query, queued ones too.
//! A terminate for an id that is not pending is answered with a `warning`.
//!
//! ## Answers
//!
//! | field | meaning |
//! |---|---|
//! | `id`, `game`, `fen`, `to_move`, `network` | the query and the position searched |
//! | `visits` | visits of the root (tree reuse never applies: each query has its own tree) |
//! | `simulations` | simulations this search ran |
//! | `value`, `wdl` | the root's value in [-1, 1] and (win, draw, loss), for the side to move |
//! | `proven` | present when the search proved the root's result (the MCTS-solver): `result` (`"win"`, `"draw"`, `"loss"` for the side to move), `turns` (turns to the end under best play, this one included) and, for a win or a loss, `mate` as UCI's `score mate N` (`N` of the mover's turns to its win; `-N` of the opponent's to its loss) |
//! | `top_moves` | whole turns, proven wins first (the shortest first), then most visited, proven losses last: `move` (turn notation), `actions` (decision names), `visits`, `q`, `wdl` (for the side making the turn), `prior` (product of the decisions' priors), `pv` (turn notation, the turn itself first; an unfinished last turn is its decisions in brackets), `proven` (as the root's, for the side making the turn, counted from the root) when the search proved the turn |
//! | `policy` | with `include_policy`: `[{action, prior}]` over the root's decisions |
//! | `forced_win` | present (`true`) when the side to move can win this turn (Paco Ŝako: unite with the king; Shako: mate in one): the search stops at once and `top_moves` holds the engine's winning turn |
//! | `terminated`, `time_ms` | stopped by a terminate line; wall time from the start of the search |
//!
//! A line that is not a valid request is answered `{"id": ..., "error": "..."}`
//! (the id when one could be read, else `null`), naming the line and the
//! field; the engine goes on with the others. So is a line longer than
//! [`MAX_LINE_BYTES`](crate::lines::MAX_LINE_BYTES) (1 MiB; it is read to its
//! end without being kept) and a line that is not UTF-8. At the end of the
//! input the pending queries finish, then [`serve`] returns.
//!
//! ## How it runs
//!
//! A reader thread parses lines and sends them to the search loop, which
//! keeps up to [`ServeOptions::max_concurrent`] searches going (the rest
//! wait in arrival order, at most [`MAX_QUEUED_QUERIES`] of them; see
//! there for what a full queue does). Each round, every search runs until it needs a
//! leaf evaluated or finishes; the waiting leaves go to the network as one
//! batch ([`pacozero_search::evaluate_pending`]). With one search at a time the batch
//! is one leaf, so throughput grows with the number of concurrent queries.

mod bench;
mod query;
mod response;

use anyhow::{Context, Result};
use pacozero_engine::Game;
use rand::SeedableRng;
use serde_json::Value;
use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::time::Instant;

use crate::lines::{InputLine, LineReader};
pub use bench::{bench_analysis, bench_queries, BenchLine};
use pacozero_search::config::{Algorithm, SearchConfig};
use pacozero_search::eval::{EvalOutput, Evaluator};
use pacozero_search::mcts::{evaluate_pending, Search};
pub use query::{parse_line, Line, LineError, Query};

/// Defaults and limits of an analysis engine.
/// The search budget every analysing command and the Python package use when
/// none is given: visits of the root (`analyze --visits`, `analysis`'s
/// `max_visits`, `book compare --visits`, `tactics solve --visits`,
/// `pacozero.analyze(visits=...)`).
pub const DEFAULT_VISITS: u32 = 800;
/// Whole turns of a principal variation when none is asked for.
pub const DEFAULT_PV_TURNS: usize = 8;
/// Queries that may wait for a search slot. When this many wait, the
/// search loop stops taking lines from the reader thread, whose channel
/// (`LINES_AHEAD` lines) then fills, and the reader stops reading: the
/// writer is held back by the pipe, and memory stays bounded. Nothing is
/// lost: every search ends on its own budget (visits, at most the visit
/// cap, or time), a slot frees, and reading resumes, so a `terminate`
/// behind a full queue is read late, never dropped.
pub const MAX_QUEUED_QUERIES: usize = 1024;
/// Parsed lines the reader thread may hand on ahead of the search loop.
const LINES_AHEAD: usize = 64;

#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Simulations of a query that gives neither `max_visits` nor `max_time_ms`.
    pub default_visits: u32,
    /// The most simulations a query may ask for (also the budget of a query
    /// limited only by time).
    pub visit_cap: u32,
    pub default_top_moves: usize,
    pub default_pv_turns: usize,
    /// Searches run at once (their leaves share a network call).
    pub max_concurrent: usize,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions { default_visits: DEFAULT_VISITS, visit_cap: 1_000_000, default_top_moves: 5, default_pv_turns: DEFAULT_PV_TURNS, max_concurrent: 64 }
    }
}

/// What a run of the engine did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServeStats {
    /// Queries answered with a search (terminated ones included).
    pub answered: usize,
    /// Lines answered with an error.
    pub errors: usize,
    /// Network calls and the leaves they evaluated.
    pub batches: u64,
    pub evaluated: u64,
    /// The most queries that waited for a search slot at once (at most
    /// [`MAX_QUEUED_QUERIES`]).
    pub most_queued: usize,
}

impl ServeStats {
    /// Mean leaves per network call.
    pub fn mean_batch(&self) -> f64 {
        if self.batches == 0 {
            0.0
        } else {
            self.evaluated as f64 / self.batches as f64
        }
    }
}

/// The search settings of analysis: PUCT without noise, as `pacozero analyze`.
pub fn analysis_search_config(simulations: u32) -> SearchConfig {
    SearchConfig {
        algorithm: Algorithm::Puct,
        full_simulations: simulations,
        cheap_simulations: simulations,
        dirichlet_epsilon: 0.0,
        // Tree reuse (the default) serves the UCI engine's continued positions.
        ..SearchConfig::default()
    }
}

/// A query being searched.
struct Job<G: Game> {
    query: Query<G>,
    search: Search<G>,
    started: Instant,
    done: bool,
    terminated: bool,
}

/// What the reader thread hands the search loop.
enum Msg<G: Game> {
    Line(Line<G>),
    Error(LineError),
}

impl<G: Game> Msg<G> {
    /// The message of a parsed line; `None` for a blank one.
    fn of(parsed: Result<Line<G>, LineError>) -> Option<Msg<G>> {
        match parsed {
            Ok(Line::Blank) => None,
            Ok(l) => Some(Msg::Line(l)),
            Err(e) => Some(Msg::Error(e)),
        }
    }
}

/// Serves the queries read from `input` with `evaluator` until the input
/// ends and every query is answered; answers go to `output`, one line each,
/// flushed as written.
pub fn serve<G, E, R, W>(input: R, output: &mut W, evaluator: &E, opts: &ServeOptions) -> Result<ServeStats>
where
    G: Game,
    E: Evaluator<G> + ?Sized,
    R: BufRead + Send,
    W: Write,
{
    let (tx, rx) = mpsc::sync_channel::<Msg<G>>(LINES_AHEAD);
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || -> std::io::Result<()> {
            let mut lines = LineReader::new(input);
            while let Some((number, line)) = lines.next_line()? {
                let parsed = match line {
                    InputLine::Text(text) => parse_line::<G>(&text, number, opts),
                    bad => Err(LineError { id: Value::Null, message: bad.problem(number).expect("a line that is not text has a problem") }),
                };
                let Some(msg) = Msg::of(parsed) else { continue };
                if tx.send(msg).is_err() {
                    break; // the search loop stopped (an output error)
                }
            }
            Ok(())
        });
        let served = Server::new(evaluator, opts).run(&rx, output);
        drop(rx);
        let read = reader.join().expect("the reader thread does not panic");
        let stats = served?;
        read.context("reading the queries")?;
        Ok(stats)
    })
}

/// Serves the query lines of `text` with every line already read when
/// the first search starts, so the first `max_concurrent` queries start
/// together. `pacozero bench analysis` measures the searches and their
/// batching this way: with [`serve`], how far the reader thread runs ahead
/// of the searches depends on the machine's load.
pub(crate) fn serve_read<G, E, W>(text: &str, output: &mut W, evaluator: &E, opts: &ServeOptions) -> Result<ServeStats>
where
    G: Game,
    E: Evaluator<G> + ?Sized,
    W: Write,
{
    let (tx, rx) = mpsc::channel::<Msg<G>>();
    for msg in text.lines().enumerate().filter_map(|(i, line)| Msg::of(parse_line::<G>(line, i + 1, opts))) {
        tx.send(msg).expect("the receiver is alive");
    }
    drop(tx);
    Server::new(evaluator, opts).run(&rx, output)
}

struct Server<'a, G: Game, E: ?Sized> {
    evaluator: &'a E,
    opts: &'a ServeOptions,
    network: String,
    queued: VecDeque<Query<G>>,
    active: Vec<Job<G>>,
    stats: ServeStats,
    out: EvalOutput,
    rng: rand_chacha::ChaCha8Rng,
}

impl<'a, G: Game, E: Evaluator<G> + ?Sized> Server<'a, G, E> {
    fn new(evaluator: &'a E, opts: &'a ServeOptions) -> Self {
        Server {
            evaluator,
            opts,
            network: evaluator.name(),
            queued: VecDeque::new(),
            active: Vec::new(),
            stats: ServeStats::default(),
            out: EvalOutput::default(),
            // PUCT without noise draws nothing; the seed only fixes the type.
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(0),
        }
    }

    fn run<W: Write>(mut self, rx: &mpsc::Receiver<Msg<G>>, output: &mut W) -> Result<ServeStats> {
        let mut input_open = true;
        loop {
            // Block for input only when there is nothing to search.
            if input_open && self.active.is_empty() && self.queued.is_empty() {
                match rx.recv() {
                    Ok(msg) => self.handle(msg, output)?,
                    Err(_) => input_open = false,
                }
            }
            while input_open && self.queued.len() < MAX_QUEUED_QUERIES {
                match rx.try_recv() {
                    Ok(msg) => self.handle(msg, output)?,
                    Err(mpsc::TryRecvError::Empty) => break,
                    Err(mpsc::TryRecvError::Disconnected) => input_open = false,
                }
            }
            self.start_queued();
            if !input_open && self.active.is_empty() {
                return Ok(self.stats);
            }
            self.step()?;
            self.answer_finished(output)?;
        }
    }

    fn handle<W: Write>(&mut self, msg: Msg<G>, output: &mut W) -> Result<()> {
        match msg {
            Msg::Error(e) => {
                self.stats.errors += 1;
                write_line(output, &response::error(&e.id, &e.message))
            }
            Msg::Line(Line::Query(q)) => {
                if self.is_pending(&q.id) {
                    self.stats.errors += 1;
                    let message = format!("a query with id {} is already pending", q.id);
                    return write_line(output, &response::error(&q.id, &message));
                }
                self.queued.push_back(*q);
                self.stats.most_queued = self.stats.most_queued.max(self.queued.len());
                Ok(())
            }
            Msg::Line(Line::Terminate(id)) => {
                if let Some(job) = self.active.iter_mut().find(|j| j.query.id == id) {
                    job.terminated = true;
                    job.done = true;
                } else if let Some(i) = self.queued.iter().position(|q| q.id == id) {
                    let q = self.queued.remove(i).expect("found");
                    self.active.push(self.job(q, true));
                } else {
                    let warning = format!("no query with id {id} is pending (answered already, or never sent)");
                    write_line(output, &serde_json::json!({"id": id, "action": "terminate", "warning": warning}))?;
                }
                Ok(())
            }
            Msg::Line(Line::TerminateAll) => {
                for job in &mut self.active {
                    job.terminated = true;
                    job.done = true;
                }
                while let Some(q) = self.queued.pop_front() {
                    self.active.push(self.job(q, true));
                }
                Ok(())
            }
            Msg::Line(Line::Blank) => Ok(()),
        }
    }

    fn is_pending(&self, id: &Value) -> bool {
        self.active.iter().any(|j| &j.query.id == id) || self.queued.iter().any(|q| &q.id == id)
    }

    /// A job for `query`; `terminated`: answered without searching.
    fn job(&self, query: Query<G>, terminated: bool) -> Job<G> {
        let mut search = Search::new(analysis_search_config(query.max_visits), query.state.clone(), self.evaluator.needs_encoding());
        search.begin(query.max_visits, false);
        let started = Instant::now();
        search.set_deadline(pacozero_search::mcts::deadline(started, query.max_time));
        Job { query, search, started, done: terminated, terminated }
    }

    fn start_queued(&mut self) {
        while self.active.len() < self.opts.max_concurrent.max(1) {
            let Some(q) = self.queued.pop_front() else { break };
            let job = self.job(q, false);
            self.active.push(job);
        }
    }

    /// Runs every live search to its next leaf, then evaluates the leaves
    /// in one batch.
    fn step(&mut self) -> Result<()> {
        for job in self.active.iter_mut().filter(|j| !j.done) {
            if !job.search.run(&mut self.rng) {
                job.done = true;
            }
        }
        let mut waiting: Vec<&mut Search<G>> = self.active.iter_mut().filter(|j| !j.done).map(|j| &mut j.search).collect();
        let n = evaluate_pending(&mut waiting, self.evaluator, &mut self.out)?;
        if n > 0 {
            self.stats.batches += 1;
            self.stats.evaluated += n as u64;
        }
        Ok(())
    }

    fn answer_finished<W: Write>(&mut self, output: &mut W) -> Result<()> {
        let mut i = 0;
        while i < self.active.len() {
            if !self.active[i].done {
                i += 1;
                continue;
            }
            let mut job = self.active.swap_remove(i);
            job.search.set_deadline(None);
            let ms = job.started.elapsed().as_secs_f64() * 1e3;
            let answer = response::response(&job.query, &mut job.search, &self.network, ms, job.terminated);
            self.stats.answered += 1;
            write_line(output, &answer)?;
        }
        Ok(())
    }
}

fn write_line<W: Write>(output: &mut W, v: &Value) -> Result<()> {
    serde_json::to_writer(&mut *output, v).context("writing an answer")?;
    output.write_all(b"\n").context("writing an answer")?;
    output.flush().context("writing an answer")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::LongLine;
    use pacozero_engine::paco::GameState;
    use pacozero_search::eval::UniformEvaluator;
    use serde_json::json;

    fn opts() -> ServeOptions {
        ServeOptions { default_visits: 20, visit_cap: 1000, default_top_moves: 1, default_pv_turns: 1, max_concurrent: 4 }
    }

    /// The answers to `input`, and the engine's statistics.
    fn answers_to(input: impl std::io::Read + Send, opts: &ServeOptions) -> (Vec<Value>, ServeStats) {
        let mut out = Vec::new();
        let stats = serve::<GameState, _, _, _>(std::io::BufReader::new(input), &mut out, &UniformEvaluator, opts).unwrap();
        let answers = String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (answers, stats)
    }

    #[test]
    fn a_hundred_megabyte_line_gets_one_error_and_the_next_query_is_answered() {
        let input = LongLine::new(100_000_000, b'{', b"{\"id\": \"next\"}\n");
        let (answers, stats) = answers_to(input, &opts());
        assert_eq!((stats.errors, stats.answered), (1, 1), "{answers:?}");
        let message = "input line 1 is 100000000 bytes long, over the limit of 1048576 bytes; the line is ignored";
        assert_eq!(answers[0], json!({"id": null, "error": message}));
        assert_eq!(answers[1]["id"], "next");
        assert_eq!(answers[1]["simulations"], 20, "{}", answers[1]);
    }

    #[test]
    fn a_line_that_is_not_utf8_gets_one_error_and_the_session_goes_on() {
        let input = std::io::Cursor::new(b"{\"id\": \"a\xffb\"}\n{\"id\": 2}\n".to_vec());
        let (answers, stats) = answers_to(input, &opts());
        assert_eq!((stats.errors, stats.answered), (1, 1), "{answers:?}");
        assert_eq!(answers[0], json!({"id": null, "error": "input line 1 is not UTF-8 (byte 9 is not); the line is ignored"}));
        assert_eq!(answers[1]["id"], 2);
    }

    #[test]
    fn at_most_a_bounded_number_of_queries_wait_and_a_terminate_behind_them_is_read() {
        let opts = ServeOptions { max_concurrent: 1, ..opts() };
        let total = MAX_QUEUED_QUERIES + 200;
        let slow = MAX_QUEUED_QUERIES + 50;
        let (tx, rx) = mpsc::sync_channel(total + 1);
        for i in 0..total {
            let visits = if i == slow { 1000 } else { 1 };
            let text = json!({"id": i, "max_visits": visits}).to_string();
            tx.send(Msg::Line(parse_line::<GameState>(&text, i + 1, &opts).unwrap())).unwrap();
        }
        let terminate = json!({"id": slow, "action": "terminate"}).to_string();
        tx.send(Msg::Line(parse_line::<GameState>(&terminate, total + 1, &opts).unwrap())).unwrap();
        drop(tx);
        let mut out = Vec::new();
        let stats = Server::new(&UniformEvaluator, &opts).run(&rx, &mut out).unwrap();
        assert_eq!((stats.answered, stats.errors, stats.most_queued), (total, 0, MAX_QUEUED_QUERIES));
        // The terminate was read while its query still waited: answered unsearched.
        let answers: Vec<Value> = String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let stopped = answers.iter().find(|a| a["id"] == slow).unwrap();
        assert_eq!((&stopped["terminated"], &stopped["simulations"]), (&json!(true), &json!(0)), "{stopped}");
    }

    #[test]
    fn a_query_time_past_the_system_clock_is_no_deadline() {
        let input = std::io::Cursor::new(json!({"id": 1, "max_time_ms": u64::MAX, "max_visits": 30}).to_string().into_bytes());
        let (answers, _) = answers_to(input, &opts());
        assert_eq!(answers[0]["simulations"], 30, "{}", answers[0]);
    }

    #[test]
    fn analysis_searches_puct_without_noise_at_the_given_budget() {
        let c = analysis_search_config(7);
        assert_eq!((c.algorithm, c.full_simulations, c.cheap_simulations, c.dirichlet_epsilon), (Algorithm::Puct, 7, 7, 0.0));
        assert!(c.tree_reuse && c.win_detection);
        c.validate().unwrap();
    }
}
