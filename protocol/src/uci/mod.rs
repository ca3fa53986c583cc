//! A UCI engine on the network's search (`pacozero uci`), for every game.
//!
//! Shako speaks the protocol as Fairy-Stockfish speaks it for its `shako`
//! variant: UCI moves on the 10×10 board (`a1`–`j10`, a promotion letter
//! after the squares: `e9e10q`; castling as the king's two-square move,
//! `f2h2`), Fairy-Stockfish's FEN. Paco Ŝako uses the same commands with
//! the platform's FEN, and a move is one whole turn in the chain notation of
//! `analyze` and `play` written without spaces (`e2-e4`, `Bf3xe4>c3>c6`,
//! `0-0`, `=QNb1-c3` for the turn `=Q Nb1-c3`).
//!
//! ## Commands
//!
//! | command | answer |
//! |---|---|
//! | `uci` | `id name`, `id author`, the options, `uciok` |
//! | `isready` | `readyok`, at once (also during a search) |
//! | `setoption name <name> [value <value>]` | nothing; a bad name or value: an error line |
//! | `ucinewgame` | nothing (forgets the search tree kept from the last move) |
//! | `position startpos\|fen <FEN> [moves <m1> ...]` | nothing; each move is checked |
//! | `go [wtime/btime/winc/binc/movestogo] [nodes N] [depth D] [movetime T] [infinite]` | `info` lines, then `bestmove <move>` (see [`clock`] for the budgets) |
//! | `stop` | ends the search: its `bestmove` follows within a network call |
//! | `quit` | ends a search (its `bestmove` is still written) and the engine |
//! | `debug on\|off`, `register ...`, `ponderhit` | nothing (accepted and ignored) |
//!
//! A line that is not valid is answered `info string error: <what is wrong>`
//! and changes nothing: an unknown command, a bad FEN, an illegal move in
//! `position` (the position stays what it was), a bad `go` parameter (no
//! search starts), a bad option name or value. The engine goes on reading.
//! `go` on a finished game answers an error line and `bestmove (none)`.
//!
//! During a search, `isready` and `quit` act at once, and so do `stop` and
//! `ponderhit`; other commands (`position`, `go`, `setoption`, ...) wait for
//! the search's `bestmove` and then run in order, as Stockfish's `go` waits
//! for the search before it, so a script may send `go nodes 100` and the
//! next `position` at once (a `stop` sent after a waiting command waits too,
//! and stops the search of a waiting `go` that runs before it).
//! At the end of the input a search with a limit finishes (its `bestmove`
//! is written), `go infinite` stops at once, the waiting commands run, and
//! the engine exits.
//!
//! ## Input limits
//!
//! The input is not trusted to be sane. A line over
//! [`MAX_LINE_BYTES`](crate::lines::MAX_LINE_BYTES) (1 MiB) is read to its
//! end without being kept and answered with one error line, and so is a
//! line that is not UTF-8; the engine goes on with the next line. At most
//! [`MAX_WAITING_COMMANDS`] commands, of at most [`MAX_WAITING_BYTES`] in
//! all, wait for a search; one more is refused with an error line. `stop`
//! is never refused, so a search always ends when asked.
//!
//! ## Options
//!
//! | option | type | meaning |
//! |---|---|---|
//! | `UCI_Variant` | combo | the network's game (`shako` or `paco`), the only value |
//! | `Threads` | spin 1..=512, default 1 | threads of the network's inference (the search itself is one thread) |
//! | `MultiPV` | spin 1..=500, default 1 | turns reported in each round of `info` lines |
//! | `Move Overhead` | spin 0..=5000 ms, default 50 | time kept back from the clock for the interface's latency |
//! | `UCI_ShowWDL` | check, default true | `wdl` in the `info` lines |
//! | `Model` | string | the network (a model file, a run directory or `ref:<name>`); setting it loads it |
//!
//! ## Info lines
//!
//! `info depth D multipv K score cp X wdl W D L nodes N nps R time T pv <moves>`,
//! about once a second during a long search and once at its end, one line
//! per reported turn (`MultiPV`): proven wins first (the shortest first),
//! then the most visited, proven losses last:
//!
//! * `depth`: the mean depth of the search's simulations in decisions (Shako: plies), at least 1;
//! * `score cp`: the turn's value for the side to move as centipawns ([`score`]);
//!   `score mate N` when the search proved the turn wins in `N` of the
//!   mover's turns (`1`: it wins at once), `score mate -N` when it proved
//!   that the opponent then wins in `N` of its turns (the MCTS-solver,
//!   `pacozero_search::mcts`); a proven draw is `cp 0` with `wdl 0 1000 0`;
//! * `wdl`: its (win, draw, loss) in per mille;
//! * `nodes`: simulations of this search; `nps` per second; `time` in ms;
//! * `pv`: the turn and the principal variation after it (whole turns only).
//!
//! `bestmove` is the turn of the first `info` line (a proven win, else the
//! most visited complete turn not proven lost); when the tree completes no turn (a very short search of a Paco
//! chain), the most visited path is completed by a short search of
//! [`COMPLETION_VISITS`] simulations per decision.

mod answer;
pub mod clock;
pub mod command;
pub mod info;
mod input;
mod position;
pub mod score;

use anyhow::{Context, Result};
use pacozero_engine::Game;
use pacozero_search::eval::{EvalOutput, Evaluator};
use pacozero_search::mcts::{evaluate_pending, Search};
use pacozero_search::SearchConfig;
use rand::SeedableRng;
use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::analysis::analysis_search_config;
use answer::{best_turn, info_lines};
use clock::{search_limits, SearchLimits};
use command::{parse_command, Command, GoParams};
use input::{read_lines, Input, WaitingCommands};
pub use position::{move_token, position_of};
use position::{read_position, GameLine};

/// Simulations per decision of the short search that completes a turn the
/// tree does not complete.
pub const COMPLETION_VISITS: u32 = 16;
/// Commands that may wait for a search to end (see `WaitingCommands`).
pub const MAX_WAITING_COMMANDS: usize = 256;
/// Bytes of input lines that may wait for a search to end, all together.
pub const MAX_WAITING_BYTES: usize = 4 << 20;
/// Lines the reader thread may read ahead of the engine. The engine takes
/// every line as it comes, also during a search (it acts on it, queues it
/// or refuses it), so the reader never waits long on a full channel; the
/// bound only keeps a fast writer from filling memory between two looks.
const INPUT_LINES_AHEAD: usize = 16;
/// Seconds between rounds of `info` lines during a search.
const INFO_EVERY: Duration = Duration::from_secs(1);
/// Longest stretch of search between two looks at the input (`stop` and
/// `isready` are answered within it and a network call).
const SLICE: Duration = Duration::from_millis(5);

/// Loads the network of a `Model` value on `Threads` threads.
pub type Loader<'a, G> = dyn Fn(&str, usize) -> Result<Box<dyn Evaluator<G>>> + 'a;

/// The engine's search settings: analysis's, with the `PolicyTemperature`
/// option's flattening of the priors.
fn engine_search_config(simulations: u32, policy_temperature: f32) -> SearchConfig {
    SearchConfig { policy_temperature, ..analysis_search_config(simulations) }
}

/// The engine's settings.
#[derive(Clone, Debug)]
pub struct UciConfig {
    /// `id name` (the network's name follows in parentheses).
    pub name: String,
    /// The `Model` option's value at the start (the network given).
    pub model: String,
    /// The `Threads` option's value at the start (the network given was loaded with them).
    pub threads: usize,
    /// Simulations of a bare `go`.
    pub default_visits: u32,
    /// The most simulations of one search (`go infinite` waits at the cap).
    pub visit_cap: u32,
}

/// Serves the UCI protocol on `input` and `output` with `evaluator` (loaded
/// from `config.model`); `loader` loads another network when `Model` or
/// `Threads` change. Returns at `quit` or at the end of the input; an error
/// only when the output cannot be written or the input cannot be read.
///
/// The input is read on a thread of its own, which `quit` leaves behind
/// (blocked on a read that may never end): the program exits after it.
pub fn serve<G, R, W>(input: R, output: &mut W, evaluator: Box<dyn Evaluator<G>>, loader: &Loader<'_, G>, config: &UciConfig) -> Result<()>
where
    G: Game,
    R: BufRead + Send + 'static,
    W: Write,
{
    let (tx, rx) = mpsc::sync_channel::<Input>(INPUT_LINES_AHEAD);
    std::thread::spawn(move || read_lines(input, &tx));
    Engine::new(output, evaluator, loader, config).run(&rx)
}

/// The search tree of the last `go`, kept for the next one.
struct KeptTree<G: Game> {
    start: String,
    decisions: Vec<u16>,
    search: Search<G>,
}

/// A search in progress.
struct Running<G: Game> {
    search: Search<G>,
    line: GameLine<G>,
    limits: SearchLimits,
    started: Instant,
    last_info: Instant,
    /// The budget or the time is spent (`go infinite` then waits for `stop`).
    exhausted: bool,
    sims_before: u64,
    node_visits_before: u64,
}

/// The option values.
struct Options {
    model: String,
    threads: usize,
    multipv: usize,
    overhead_ms: u64,
    show_wdl: bool,
    /// The search's `policy_temperature` (the priors flattened as `p^(1/T)`).
    policy_temperature: f32,
}

struct Engine<'a, G: Game, W> {
    out: &'a mut W,
    evaluator: Box<dyn Evaluator<G>>,
    loader: &'a Loader<'a, G>,
    config: &'a UciConfig,
    options: Options,
    position: GameLine<G>,
    kept: Option<KeptTree<G>>,
    running: Option<Running<G>>,
    /// Commands received during a search that run after it.
    waiting: WaitingCommands,
    eval_out: EvalOutput,
    rng: rand_chacha::ChaCha8Rng,
}

impl<'a, G: Game, W: Write> Engine<'a, G, W> {
    fn new(out: &'a mut W, evaluator: Box<dyn Evaluator<G>>, loader: &'a Loader<'a, G>, config: &'a UciConfig) -> Self {
        let options = Options {
            model: config.model.clone(),
            threads: config.threads.max(1),
            multipv: 1,
            overhead_ms: 50,
            show_wdl: true,
            policy_temperature: SearchConfig::PLAY_POLICY_TEMPERATURE,
        };
        Engine {
            out,
            evaluator,
            loader,
            config,
            options,
            position: GameLine::start(),
            kept: None,
            running: None,
            waiting: WaitingCommands::default(),
            eval_out: EvalOutput::default(),
            // PUCT without noise draws nothing; the seed only fixes the type.
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(0),
        }
    }

    fn run(&mut self, rx: &mpsc::Receiver<Input>) -> Result<()> {
        let mut input_open = true;
        loop {
            // Commands that waited for the search run once it is over; a
            // `stop` behind a waiting `go` stops that `go`'s search.
            while let Some(next) = self.waiting.front() {
                if self.running.is_some() && *next != Command::Stop {
                    break;
                }
                let c = self.waiting.pop_front().expect("a waiting command");
                if !self.execute(c)? {
                    return self.finish();
                }
            }
            // Wait for input only when there is nothing to search.
            let idle = self.running.as_ref().is_none_or(|r| r.exhausted);
            let input = if !input_open {
                None
            } else if idle {
                Some(rx.recv().unwrap_or(Input::End))
            } else {
                match rx.try_recv() {
                    Ok(i) => Some(i),
                    Err(mpsc::TryRecvError::Empty) => None,
                    Err(mpsc::TryRecvError::Disconnected) => Some(Input::End),
                }
            };
            match input {
                Some(Input::Line(text)) => {
                    if !self.receive(&text)? {
                        return self.finish();
                    }
                    continue;
                }
                Some(Input::Refused(problem)) => {
                    self.error(&problem)?;
                    continue;
                }
                Some(Input::Failed(e)) => {
                    self.finish()?;
                    anyhow::bail!("reading the input: {e}");
                }
                Some(Input::End) => input_open = false,
                None => {}
            }
            if !input_open {
                // The end of the input: a search with a limit finishes, an
                // infinite one stops; then the waiting commands run.
                match &self.running {
                    Some(r) if !r.limits.infinite && !r.exhausted => {}
                    Some(_) => self.finish()?,
                    // Nothing waits: the top of the loop ran what waited
                    // while no search was running.
                    None => return Ok(()),
                }
            }
            self.step()?;
        }
    }

    /// Reads one line; `false` at `quit`. During a search, `isready` and
    /// `quit` act at once, and `stop` too unless commands are waiting; every
    /// other command waits for the end of the search (in order), as a
    /// script that sends `go` then `position` means. The commands that do
    /// nothing (`debug`, `register`, `ponderhit`) never wait.
    fn receive(&mut self, text: &str) -> Result<bool> {
        let command = match parse_command(text) {
            Ok(Some(c)) => c,
            Ok(None) => return Ok(true),
            Err(e) => {
                self.error(&e)?;
                return Ok(true);
            }
        };
        let at_once = match command {
            Command::IsReady | Command::Quit | Command::PonderHit | Command::Debug(_) | Command::Register => true,
            Command::Stop => self.waiting.is_empty(),
            _ => self.running.is_none() && self.waiting.is_empty(),
        };
        if at_once {
            return self.execute(command);
        }
        if let Err(e) = self.waiting.push(command, text.len()) {
            self.error(&e)?;
        }
        Ok(true)
    }

    /// Carries out one command; `false` at `quit`.
    fn execute(&mut self, command: Command) -> Result<bool> {
        match command {
            Command::Uci => self.identify()?,
            Command::IsReady => self.say("readyok")?,
            Command::Debug(_) | Command::Register | Command::PonderHit => {}
            Command::Quit => return Ok(false),
            Command::Stop => self.finish()?,
            Command::SetOption { name, value } => {
                if let Err(e) = self.set_option(&name, value.as_deref()) {
                    self.error(&e)?;
                }
            }
            Command::UciNewGame => self.kept = None,
            Command::Position(p) => match read_position::<G>(&p) {
                Ok(line) => self.position = line,
                Err(e) => self.error(&format!("{e}; the position is unchanged"))?,
            },
            Command::Go(go) => self.go(&go)?,
        }
        Ok(true)
    }

    fn identify(&mut self) -> Result<()> {
        let o = &self.options;
        let lines = [
            format!("id name {} ({})", self.config.name, self.evaluator.name()),
            "id author the PacoZero authors".to_string(),
            String::new(),
            format!("option name UCI_Variant type combo default {0} var {0}", G::NAME),
            format!("option name Threads type spin default {} min 1 max 512", o.threads),
            "option name MultiPV type spin default 1 min 1 max 500".to_string(),
            "option name Move Overhead type spin default 50 min 0 max 5000".to_string(),
            "option name UCI_ShowWDL type check default true".to_string(),
            format!("option name Model type string default {}", o.model),
            format!("option name PolicyTemperature type string default {}", o.policy_temperature),
            "uciok".to_string(),
        ];
        for l in lines {
            self.say(&l)?;
        }
        Ok(())
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let value = value.map(str::trim).unwrap_or("");
        let spin = |min: u64, max: u64| -> Result<u64, String> {
            value
                .parse::<u64>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .ok_or_else(|| format!("option {name}: value `{value}` is not a whole number in {min}..={max}"))
        };
        match name.to_ascii_lowercase().as_str() {
            "uci_variant" => {
                if !value.eq_ignore_ascii_case(G::NAME) {
                    return Err(format!("option UCI_Variant: this engine's network plays {}, not `{value}`", G::NAME));
                }
            }
            "multipv" => self.options.multipv = spin(1, 500)? as usize,
            "move overhead" => self.options.overhead_ms = spin(0, 5000)?,
            "uci_showwdl" => {
                self.options.show_wdl = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("option UCI_ShowWDL: value `{value}` is neither true nor false")),
                }
            }
            "threads" => {
                let threads = spin(1, 512)? as usize;
                if threads != self.options.threads {
                    let model = self.options.model.clone();
                    self.load(&model, threads)?;
                }
            }
            "model" => {
                if value.is_empty() {
                    return Err("option Model: the value is empty (a model file, a run directory or ref:<name>)".into());
                }
                self.load(value, self.options.threads)?;
            }
            "policytemperature" => {
                let t = value.parse::<f32>().ok().filter(|t| (0.1..=10.0).contains(t));
                self.options.policy_temperature = t.ok_or_else(|| format!("option PolicyTemperature: value `{value}` is not a number in 0.1..=10"))?;
                // The kept tree's priors were flattened by the old temperature.
                self.kept = None;
            }
            _ => {
                return Err(format!(
                    "unknown option `{name}` (the options are UCI_Variant, Threads, MultiPV, Move Overhead, UCI_ShowWDL, Model and PolicyTemperature)"
                ))
            }
        }
        Ok(())
    }

    /// Loads the network `model` on `threads` threads; on failure the old one stays.
    fn load(&mut self, model: &str, threads: usize) -> Result<(), String> {
        let evaluator = (self.loader)(model, threads).map_err(|e| format!("option Model: cannot load `{model}`: {e:#}; the network is unchanged"))?;
        self.evaluator = evaluator;
        self.options.model = model.to_string();
        self.options.threads = threads;
        self.kept = None;
        Ok(())
    }

    fn go(&mut self, go: &GoParams) -> Result<()> {
        let line = self.position.clone();
        let state = &line.state;
        let mut legal = Vec::new();
        state.playable_actions(&mut legal);
        // A finished game has no playable action (the `Game` contract).
        if legal.is_empty() {
            let why =
                if state.outcome().is_some() { format!("the game is over ({})", state.end_reason()) } else { "the side to move has no legal move".into() };
            self.error(&format!("go: {why} in {}", state.notation()))?;
            return self.say("bestmove (none)");
        }
        let limits = search_limits(go, state.to_move(), self.options.overhead_ms, self.config.default_visits, self.config.visit_cap);
        let mut search = self.tree_for(&line);
        search.begin(limits.visits, false);
        let started = Instant::now();
        search.set_deadline(clock::deadline(started, limits.time));
        let (sims_before, node_visits_before) = (search.total_simulations, search.node_visits);
        self.running = Some(Running { search, line, limits, started, last_info: started, exhausted: false, sims_before, node_visits_before });
        Ok(())
    }

    /// The kept tree advanced to `line` when `line` continues its position,
    /// else a new tree.
    fn tree_for(&mut self, line: &GameLine<G>) -> Search<G> {
        let config = engine_search_config(self.config.visit_cap, self.options.policy_temperature);
        if let Some(kept) = self.kept.take() {
            if kept.start == line.start.notation() && line.decisions.starts_with(&kept.decisions) {
                let mut search = kept.search;
                let mut g = line.start.clone();
                for &d in &kept.decisions {
                    g.apply(d);
                }
                for &d in &line.decisions[kept.decisions.len()..] {
                    g.apply(d);
                    search.advance(d, &g);
                }
                return search;
            }
        }
        Search::new(config, line.state.clone(), self.evaluator.needs_encoding())
    }

    /// Searches for a slice of time, then writes `info` lines when due and
    /// the `bestmove` when the search is done.
    fn step(&mut self) -> Result<()> {
        let Some(r) = self.running.as_mut() else { return Ok(()) };
        if r.exhausted {
            return Ok(());
        }
        let slice_end = Instant::now() + SLICE;
        while Instant::now() < slice_end {
            if !r.search.run(&mut self.rng) {
                r.exhausted = true;
                break;
            }
            evaluate_pending(&mut [&mut r.search], self.evaluator.as_ref(), &mut self.eval_out)?;
        }
        let (exhausted, infinite, info_due) = (r.exhausted, r.limits.infinite, r.last_info.elapsed() >= INFO_EVERY);
        if exhausted && !infinite {
            return self.finish();
        }
        if info_due || exhausted {
            self.write_info()?;
        }
        Ok(())
    }

    /// Ends the search in progress, if any: its last `info` lines, then `bestmove`.
    fn finish(&mut self) -> Result<()> {
        if self.running.is_none() {
            return Ok(());
        }
        self.write_info()?;
        let mut r = self.running.take().expect("a search is running");
        r.search.set_deadline(None);
        let root = r.line.state.clone();
        let best = match best_turn(&r.search, self.evaluator.as_ref()) {
            Ok(turn) => Some(move_token(&root, &turn)),
            Err(e) => {
                self.error(&format!("go: {e:#}"))?;
                None
            }
        };
        self.kept = Some(KeptTree { start: r.line.start.notation(), decisions: r.line.decisions.clone(), search: r.search });
        self.say(&format!("bestmove {}", best.as_deref().unwrap_or("(none)")))
    }

    /// One round of `info` lines about the search in progress.
    fn write_info(&mut self) -> Result<()> {
        let Some(r) = self.running.as_mut() else { return Ok(()) };
        r.last_info = Instant::now();
        let lines = info_lines(r, self.options.multipv, self.options.show_wdl);
        for l in lines {
            self.say(&l)?;
        }
        Ok(())
    }

    fn error(&mut self, message: &str) -> Result<()> {
        // One line: a message never breaks the protocol's line structure.
        let one_line: String = message.split_whitespace().collect::<Vec<_>>().join(" ");
        self.say(&format!("info string error: {one_line}"))
    }

    fn say(&mut self, line: &str) -> Result<()> {
        writeln!(self.out, "{line}").context("writing to the output")?;
        self.out.flush().context("writing to the output")
    }
}

#[cfg(test)]
mod tests;
