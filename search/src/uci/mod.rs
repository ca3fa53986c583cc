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
//!   `crate::mcts`); a proven draw is `cp 0` with `wdl 0 1000 0`;
//! * `wdl`: its (win, draw, loss) in per mille;
//! * `nodes`: simulations of this search; `nps` per second; `time` in ms;
//! * `pv`: the turn and the principal variation after it (whole turns only).
//!
//! `bestmove` is the turn of the first `info` line (a proven win, else the
//! most visited complete turn not proven lost); when the tree completes no turn (a very short search of a Paco
//! chain), the most visited path is completed by a short search of
//! [`COMPLETION_VISITS`] simulations per decision.

pub mod clock;
pub mod command;
pub mod score;

use anyhow::{Context, Result};
use pacozero_engine::{Game, Outcome};
use rand::SeedableRng;
use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::analysis::{analysis_search_config, DEFAULT_PV_TURNS};
use crate::eval::{EvalOutput, Evaluator};
use crate::lines::{InputLine, LineReader};
use crate::mcts::{evaluate_pending, Proven, Search};
use crate::turns::{principal_variation, ranked_turns, search_turn, winning_turn};
use clock::{search_limits, SearchLimits};
use command::{parse_command, Command, GoParams, PositionCommand};

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

/// What the reader thread hands the engine.
enum Input {
    Line(String),
    /// A line that could not be read as text (too long, not UTF-8): what is wrong.
    Refused(String),
    End,
    Failed(String),
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

/// Sends each line of `input` (a line too long or not UTF-8 as what is
/// wrong with it, so that it is an error line, not the end), then the end
/// or the failure.
fn read_lines<R: BufRead>(input: R, tx: &mpsc::SyncSender<Input>) {
    let mut lines = LineReader::new(input);
    loop {
        let input = match lines.next_line() {
            Ok(None) => Input::End,
            Ok(Some((_, InputLine::Text(text)))) => Input::Line(text),
            Ok(Some((number, bad))) => Input::Refused(bad.problem(number).expect("a line that is not text has a problem")),
            Err(e) => Input::Failed(e.to_string()),
        };
        let last = matches!(input, Input::End | Input::Failed(_));
        if tx.send(input).is_err() || last {
            return;
        }
    }
}

/// Commands that wait for the search in progress, bounded in number
/// ([`MAX_WAITING_COMMANDS`]) and in the bytes of their lines
/// ([`MAX_WAITING_BYTES`]), so a writer that never waits for `bestmove`
/// cannot fill memory while a search runs.
///
/// The engine keeps reading while commands wait (a full queue refuses the
/// next command with an error line rather than stopping the reader), so
/// `isready` and `quit` behind a full queue are still answered at once.
/// `stop` is never refused: it is a few bytes, and a second `stop` in a
/// row adds nothing (the first leaves no search to stop), so it is dropped
/// and the queue stays bounded.
#[derive(Default)]
struct WaitingCommands {
    commands: std::collections::VecDeque<(Command, usize)>,
    bytes: usize,
}

impl WaitingCommands {
    fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    fn front(&self) -> Option<&Command> {
        self.commands.front().map(|(c, _)| c)
    }

    fn pop_front(&mut self) -> Option<Command> {
        let (command, bytes) = self.commands.pop_front()?;
        self.bytes -= bytes;
        Some(command)
    }

    /// Queues `command`, read from a line of `bytes` bytes; an error that
    /// says why when the queue is full.
    fn push(&mut self, command: Command, bytes: usize) -> Result<(), String> {
        if command == Command::Stop {
            if self.commands.back().map(|(c, _)| c) != Some(&Command::Stop) {
                self.commands.push_back((command, 0));
            }
            return Ok(());
        }
        if self.commands.len() >= MAX_WAITING_COMMANDS || self.bytes + bytes > MAX_WAITING_BYTES {
            return Err(format!(
                "{} commands ({} bytes) already wait for the search to end, the most allowed ({MAX_WAITING_COMMANDS} commands, {MAX_WAITING_BYTES} bytes); this one is refused (send `stop`, or wait for `bestmove`)",
                self.commands.len(),
                self.bytes
            ));
        }
        self.bytes += bytes;
        self.commands.push_back((command, bytes));
        Ok(())
    }
}

/// A position: a start and the decisions played from it.
#[derive(Clone)]
struct GameLine<G> {
    start: G,
    decisions: Vec<u16>,
    state: G,
}

impl<G: Game> GameLine<G> {
    fn start() -> Self {
        GameLine { start: G::start(), decisions: Vec::new(), state: G::start() }
    }
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
        let options = Options { model: config.model.clone(), threads: config.threads.max(1), multipv: 1, overhead_ms: 50, show_wdl: true };
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
            _ => return Err(format!("unknown option `{name}` (the options are UCI_Variant, Threads, MultiPV, Move Overhead, UCI_ShowWDL and Model)")),
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
        let config = analysis_search_config(self.config.visit_cap);
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

/// The position a `position` command names, every move checked: the state
/// the engine would search, or what is wrong. Runs no search (for fuzzing:
/// with [`command::parse_command`] it reads a line as the engine does).
pub fn position_of<G: Game>(p: &PositionCommand) -> Result<G, String> {
    read_position::<G>(p).map(|line| line.state)
}

/// The position a `position` command names, every move checked.
fn read_position<G: Game>(p: &PositionCommand) -> Result<GameLine<G>, String> {
    let start = match &p.fen {
        None => G::start(),
        Some(fen) => G::from_notation(fen).map_err(|e| format!("position: bad FEN `{fen}`: {}", e.message))?,
    };
    let mut state = start.clone();
    let mut decisions = Vec::new();
    for (i, token) in p.moves.iter().enumerate() {
        if state.outcome().is_some() {
            return Err(format!("position: move {} `{token}`: the game is already over ({})", i + 1, state.end_reason()));
        }
        let turn = state.parse_turn(token).map_err(|e| format!("position: move {} `{token}` is not legal in {}: {}", i + 1, state.notation(), e.message))?;
        for &d in &turn {
            state.apply(d);
        }
        decisions.extend(turn);
    }
    Ok(GameLine { start, decisions, state })
}

/// A whole turn from `from` as one UCI token: its notation without spaces.
pub fn move_token<G: Game>(from: &G, turn: &[u16]) -> String {
    from.turn_notation(turn).split_whitespace().collect()
}

/// The turn `bestmove` names: the engine's win when the root is a detected
/// one, else the most visited complete turn, else the most visited path
/// completed by a short search.
fn best_turn<G: Game>(search: &Search<G>, evaluator: &dyn Evaluator<G>) -> Result<Vec<u16>> {
    let root = search.root_state().clone();
    if search.root_is_detected_win() {
        if let Some(turn) = winning_turn(&root) {
            return Ok(turn);
        }
    }
    if let Some(turn) = search.root_two_turn_win() {
        return Ok(turn.to_vec());
    }
    if let Some(t) = ranked_turns(search).into_iter().next() {
        return Ok(t.path);
    }
    let mover = root.to_move();
    let mut g = root.clone();
    let mut path = Vec::new();
    while g.outcome().is_none() && g.to_move() == mover {
        match search.children_at(&path) {
            Some(children) => {
                let best = children
                    .iter()
                    .max_by(|a, b| a.visits.cmp(&b.visits).then(a.prior.total_cmp(&b.prior)))
                    .expect("an expanded node has children (a stuck one is terminal)");
                g.apply(best.action);
                path.push(best.action);
            }
            None => {
                let config = analysis_search_config(COMPLETION_VISITS);
                let turn = search_turn(&mut g, config, evaluator, COMPLETION_VISITS)?;
                path.extend(turn.decisions);
                break;
            }
        }
    }
    if g.outcome().is_none() && g.to_move() == mover {
        anyhow::bail!("the search could not complete a turn from {}", root.notation());
    }
    Ok(path)
}

/// The `info` lines of a search in progress (none before the root has children).
fn info_lines<G: Game>(r: &Running<G>, multipv: usize, show_wdl: bool) -> Vec<String> {
    let search = &r.search;
    let root = search.root_state();
    let mover = root.to_move();
    let ms = r.started.elapsed().as_millis() as u64;
    let nodes = search.total_simulations - r.sims_before;
    let nps = nodes * 1000 / ms.max(1);
    let depth = if nodes > 0 { ((search.node_visits - r.node_visits_before) as f64 / nodes as f64 - 1.0).round().max(1.0) as u64 } else { 1 };
    let line = |k: usize, score: String, wdl: [f32; 3], pv: &[String]| {
        let wdl = if show_wdl {
            let [w, d, l] = score::wdl_permille(wdl);
            format!(" wdl {w} {d} {l}")
        } else {
            String::new()
        };
        format!("info depth {depth} multipv {k} score {score}{wdl} nodes {nodes} nps {nps} time {ms} pv {}", pv.join(" "))
    };
    if search.root_is_detected_win() {
        return winning_turn(root).map(|t| vec![line(1, "mate 1".into(), [1.0, 0.0, 0.0], &[move_token(root, &t)])]).unwrap_or_default();
    }
    if let Some(t) = search.root_two_turn_win() {
        return vec![line(1, "mate 2".into(), [1.0, 0.0, 0.0], &[move_token(root, t)])];
    }
    let mut out = Vec::new();
    for (i, t) in ranked_turns(search).into_iter().take(multipv.max(1)).enumerate() {
        // A proven result is exact.
        let wdl = match t.proof.map(|p| p.result) {
            Some(Proven::Win) => [1.0, 0.0, 0.0],
            Some(Proven::Draw) => [0.0, 1.0, 0.0],
            Some(Proven::Loss) => [0.0, 0.0, 1.0],
            None => t.wdl,
        };
        let score = match t.proof.and_then(|p| p.uci_mate()) {
            Some(n) => format!("mate {n}"),
            None if t.state.outcome() == Some(Outcome::Win(mover)) => "mate 1".to_string(),
            None => format!("cp {}", score::centipawns(wdl[0] - wdl[2])),
        };
        let mut pv = vec![move_token(root, &t.path)];
        // Whole turns only: an unfinished last turn is shown in brackets by the tree's walk.
        let rest = principal_variation(search, &t.path, &t.state, DEFAULT_PV_TURNS);
        pv.extend(rest.into_iter().take_while(|m| !m.starts_with('[')).map(|m| m.split_whitespace().collect::<String>()));
        out.push(line(i + 1, score, wdl, &pv));
    }
    out
}

#[cfg(test)]
mod tests {
    // Scripted exchanges with the engine on a uniform evaluator (no network),
    // for both games. The timing of `stop` and `isready` during a search is
    // tested on the binary (`cli/tests/uci.rs`).

    use super::*;
    use crate::eval::UniformEvaluator;
    use pacozero_engine::{paco, shako};
    use std::cell::RefCell;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn config() -> UciConfig {
        UciConfig { name: "PacoZero test".into(), model: "uniform".into(), threads: 1, default_visits: 40, visit_cap: 10_000 }
    }

    /// The engine's output for `script` (its input, ended).
    fn exchange<G: Game>(script: &str) -> Vec<String> {
        let loader = |model: &str, _threads: usize| -> Result<Box<dyn Evaluator<G>>> {
            if model == "uniform" {
                Ok(Box::new(UniformEvaluator))
            } else {
                anyhow::bail!("no such network")
            }
        };
        exchange_with::<G>(script, &loader)
    }

    use crate::watchdog::{Watchdog, HANG};

    fn exchange_with<G: Game>(script: &str, loader: &Loader<'_, G>) -> Vec<String> {
        let _watchdog = Watchdog::new(HANG);
        let mut out = Vec::new();
        serve::<G, _, _>(std::io::Cursor::new(script.as_bytes().to_vec()), &mut out, Box::new(UniformEvaluator), loader, &config()).unwrap();
        String::from_utf8(out).unwrap().lines().map(str::to_string).collect()
    }

    /// A reader that is interrupted once, gives a line, fails, then ends.
    struct Flaky(usize);

    impl std::io::Read for Flaky {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0 += 1;
            match self.0 {
                1 => Err(std::io::Error::from(std::io::ErrorKind::Interrupted)),
                2 => {
                    buf[..4].copy_from_slice(b"uci\n");
                    Ok(4)
                }
                3 => Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "broken pipe of test")),
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn an_interrupted_read_is_retried_and_a_failed_one_reported() {
        let (tx, rx) = mpsc::sync_channel(INPUT_LINES_AHEAD);
        read_lines(std::io::BufReader::new(Flaky(0)), &tx);
        let got: Vec<String> = rx
            .try_iter()
            .map(|i| match i {
                Input::Line(l) => format!("line {l:?}"),
                Input::Refused(e) => format!("refused {e}"),
                Input::End => "end".into(),
                Input::Failed(e) => format!("failed {e}"),
            })
            .collect();
        assert_eq!(got, ["line \"uci\"", "failed broken pipe of test"]);
    }

    /// The engine's output for `input`, read as it is made.
    fn exchange_reader<R: std::io::Read + Send + 'static>(input: R) -> Vec<String> {
        let _watchdog = Watchdog::new(HANG);
        let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<shako::GameState>>> { anyhow::bail!("no network") };
        let mut out = Vec::new();
        serve::<shako::GameState, _, _>(std::io::BufReader::new(input), &mut out, Box::new(UniformEvaluator), &loader, &config()).unwrap();
        String::from_utf8(out).unwrap().lines().map(str::to_string).collect()
    }

    #[test]
    fn a_hundred_megabyte_line_gets_one_error_and_the_next_command_is_answered() {
        let input = crate::lines::LongLine::new(100_000_000, b'x', b"isready\nposition startpos\ngo nodes 20\n");
        let out = exchange_reader(input);
        assert_eq!(errors(&out), ["input line 1 is 100000000 bytes long, over the limit of 1048576 bytes; the line is ignored"], "{out:?}");
        assert_eq!(out[1], "readyok", "{out:?}");
        assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
        // A line of exactly the limit is read: `isready` padded with spaces.
        let at_the_limit = format!("isready{}\nisready\n", " ".repeat(crate::lines::MAX_LINE_BYTES - "isready".len()));
        let out = exchange_reader(std::io::Cursor::new(at_the_limit.into_bytes()));
        assert_eq!(out, ["readyok", "readyok"]);
    }

    #[test]
    fn a_line_that_is_not_utf8_gets_one_error_and_the_next_command_is_answered() {
        let out = exchange_reader(std::io::Cursor::new(b"isready\ngo nodes \xff5\nisready\n".to_vec()));
        assert_eq!(out, ["readyok", "info string error: input line 2 is not UTF-8 (byte 9 is not); the line is ignored", "readyok"]);
    }

    #[test]
    fn a_position_line_is_read_without_a_search() {
        let read = |line: &str| match parse_command(line) {
            Ok(Some(Command::Position(p))) => position_of::<shako::GameState>(&p),
            other => panic!("{line}: {other:?}"),
        };
        let mut g = shako::GameState::startpos();
        g.play_uci("e3e5").unwrap();
        assert_eq!(read("position startpos moves e3e5").unwrap().notation(), g.notation());
        assert!(read("position startpos moves e3e5 e3e4").unwrap_err().contains("move 2 `e3e4` is not legal"));
    }

    #[test]
    fn a_stop_behind_a_waiting_go_stops_that_go() {
        let e = Live::start();
        e.send("position startpos");
        e.send("go nodes 3000");
        e.send("go infinite");
        e.send("stop");
        let first = e.until("bestmove");
        assert!(first.iter().any(|l| l.contains(" nodes 3000 ")), "{first:?}");
        // The waiting `go infinite` starts, and the `stop` behind it ends it
        // without more input.
        e.until("bestmove");
        e.send("isready");
        e.until("readyok");
        e.end();
    }

    #[test]
    fn commands_waiting_for_a_search_are_bounded_and_stop_and_quit_still_act() {
        let out = stepping(1_000_000, |e| {
            e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
            for _ in 0..MAX_WAITING_COMMANDS {
                assert!(e.receive("position startpos").unwrap());
            }
            assert!(e.receive("go nodes 10").unwrap(), "refused, not the end");
            assert_eq!(e.waiting.commands.len(), MAX_WAITING_COMMANDS);
            // `stop` and `isready` are never refused; a second stop in a row adds nothing.
            assert!(e.receive("stop").unwrap() && e.receive("stop").unwrap() && e.receive("isready").unwrap());
            assert_eq!(e.waiting.commands.len(), MAX_WAITING_COMMANDS + 1);
            assert!(!e.receive("quit").unwrap(), "quit acts at once");
        });
        let refused = format!(
            "info string error: {MAX_WAITING_COMMANDS} commands ({} bytes) already wait for the search to end, the most allowed ({MAX_WAITING_COMMANDS} commands, {MAX_WAITING_BYTES} bytes); this one is refused (send `stop`, or wait for `bestmove`)",
            MAX_WAITING_COMMANDS * "position startpos".len()
        );
        assert_eq!(out, [refused, "readyok".to_string()]);
        // The bytes are bounded too: four lines of a mebibyte, then a fifth is refused.
        let long = format!("position startpos{}", " ".repeat((1 << 20) - "position startpos".len()));
        let out = stepping(1_000_000, |e| {
            e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
            for _ in 0..5 {
                e.receive(&long).unwrap();
            }
            assert_eq!((e.waiting.commands.len(), e.waiting.bytes), (4, MAX_WAITING_BYTES));
        });
        assert_eq!(out.len(), 1);
        assert!(out[0].contains("4 commands (4194304 bytes) already wait"), "{out:?}");
    }

    #[test]
    fn huge_clocks_and_times_are_clamped_not_overflowed() {
        // The command of issue 61, and its neighbours: a search to the visit cap.
        for go in [
            "go wtime 9223372036854775807 winc 9223372036854775807",
            "go btime 9223372036854775807 binc 9223372036854775807 wtime 9223372036854775807 winc 9223372036854775807 movestogo 9223372036854775807",
            "go wtime 9223372036854775807 btime -9223372036854775808 winc -9223372036854775808 binc 9223372036854775807",
            "go movetime 9223372036854775807",
            "go nodes 9223372036854775807 depth 9223372036854775807",
        ] {
            let out = exchange::<shako::GameState>(&format!("setoption name Move Overhead value 0\nposition startpos\n{go}\n"));
            assert!(errors(&out).is_empty(), "{go}: {out:?}");
            assert_eq!(bestmoves(&out).len(), 1, "{go}: {out:?}");
            assert!(out.iter().any(|l| l.contains(" nodes 10000 ")), "{go}: to the visit cap: {out:?}");
        }
        // Black to move, out of time: no time at all is one visit's search, no panic.
        let out = exchange::<shako::GameState>("position startpos moves e3e5\ngo wtime 9223372036854775807 btime -9223372036854775808\n");
        assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
    }

    /// An engine on a live input: lines sent as the test goes, output
    /// lines received as written.
    struct Live {
        input: Option<mpsc::Sender<String>>,
        output: mpsc::Receiver<String>,
        done: std::thread::JoinHandle<()>,
    }

    struct LiveInput {
        lines: mpsc::Receiver<String>,
        buf: Vec<u8>,
        at: usize,
    }

    impl std::io::Read for LiveInput {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if self.at == self.buf.len() {
                match self.lines.recv() {
                    Ok(l) => (self.buf, self.at) = (format!("{l}\n").into_bytes(), 0),
                    Err(_) => return Ok(0),
                }
            }
            let n = out.len().min(self.buf.len() - self.at);
            out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    struct LiveOutput {
        partial: Vec<u8>,
        lines: mpsc::Sender<String>,
    }

    impl Write for LiveOutput {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.partial.extend_from_slice(b);
            while let Some(k) = self.partial.iter().position(|&c| c == b'\n') {
                let line: Vec<u8> = self.partial.drain(..=k).collect();
                let _ = self.lines.send(String::from_utf8_lossy(&line[..k]).into_owned());
            }
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Live {
        fn start() -> Live {
            let (tx, rx) = mpsc::channel();
            let (otx, orx) = mpsc::channel();
            let done = std::thread::spawn(move || {
                let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<paco::GameState>>> { Ok(Box::new(UniformEvaluator)) };
                let input = std::io::BufReader::new(LiveInput { lines: rx, buf: Vec::new(), at: 0 });
                let mut output = LiveOutput { partial: Vec::new(), lines: otx };
                serve::<paco::GameState, _, _>(input, &mut output, Box::new(UniformEvaluator), &loader, &config()).unwrap();
            });
            Live { input: Some(tx), output: orx, done }
        }

        fn send(&self, line: &str) {
            self.input.as_ref().unwrap().send(line.to_string()).unwrap();
        }

        /// The output lines up to the first that starts with `prefix` (that
        /// one included); fails after 20 s without it.
        fn until(&self, prefix: &str) -> Vec<String> {
            let mut got = Vec::new();
            loop {
                let l = self.output.recv_timeout(std::time::Duration::from_secs(20)).unwrap_or_else(|_| panic!("no `{prefix}` within 20 s; got {got:?}"));
                let hit = l.starts_with(prefix);
                got.push(l);
                if hit {
                    return got;
                }
            }
        }

        fn end(mut self) -> Vec<String> {
            let _watchdog = Watchdog::new(HANG);
            drop(self.input.take());
            self.done.join().unwrap();
            self.output.try_iter().collect()
        }
    }

    #[test]
    fn isready_debug_and_stop_act_during_an_infinite_search() {
        let e = Live::start();
        e.send("position startpos");
        e.send("go infinite");
        std::thread::sleep(std::time::Duration::from_millis(100));
        e.send("isready");
        let before = e.until("readyok");
        assert!(!before.iter().any(|l| l.starts_with("bestmove")), "readyok at once, during the search: {before:?}");
        e.send("debug on");
        e.send("ponderhit");
        e.send("stop");
        e.until("bestmove");
        // Then commands wait for a search: a new position and a go behind one.
        e.send("go nodes 200");
        e.send("position startpos moves e2-e4");
        e.send("go nodes 20");
        let first = e.until("bestmove");
        assert!(first.iter().any(|l| l.contains(" nodes 200 ")), "{first:?}");
        let second = e.until("bestmove");
        assert!(second.iter().any(|l| l.contains(" nodes 20 ")), "the waiting go nodes 20: {second:?}");
        let rest = e.end();
        assert!(rest.iter().all(|l| !l.starts_with("bestmove")), "{rest:?}");
    }

    #[test]
    fn the_end_of_the_input_stops_an_infinite_search_and_finishes_a_limited_one() {
        let out = exchange::<paco::GameState>("position startpos\ngo infinite\n");
        assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
        let nodes: Vec<u64> = out.iter().filter_map(|l| l.split(" nodes ").nth(1)?.split(' ').next()?.parse().ok()).collect();
        assert!(nodes.iter().all(|&n| n < 10_000), "stopped, not run to the visit cap: {out:?}");
        let out = exchange::<paco::GameState>("position startpos\ngo nodes 300\n");
        assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
        assert!(out.iter().any(|l| l.contains(" nodes 300 ")), "run to its limit: {out:?}");
    }

    #[test]
    fn move_overhead_is_an_option_in_its_range() {
        let out = exchange::<paco::GameState>("setoption name Move Overhead value 0\nsetoption name move overhead value 5000\nisready\n");
        assert!(errors(&out).is_empty(), "{out:?}");
        let out = exchange::<paco::GameState>("setoption name Move Overhead value 5001\n");
        assert_eq!(errors(&out), ["option Move Overhead: value `5001` is not a whole number in 0..=5000"]);
    }

    fn bestmoves(out: &[String]) -> Vec<&str> {
        out.iter().filter_map(|l| l.strip_prefix("bestmove ")).collect()
    }

    fn errors(out: &[String]) -> Vec<&str> {
        out.iter().filter_map(|l| l.strip_prefix("info string error: ")).collect()
    }

    #[test]
    fn uci_names_the_engine_and_its_options_then_uciok() {
        let out = exchange::<shako::GameState>("uci\nisready\n");
        assert!(out[0].starts_with("id name PacoZero test (uniform)"), "{out:?}");
        assert_eq!(out[1], "id author the PacoZero authors");
        let options: Vec<&String> = out.iter().filter(|l| l.starts_with("option name ")).collect();
        assert!(options.iter().any(|l| *l == "option name UCI_Variant type combo default shako var shako"), "{out:?}");
        for name in ["Threads", "MultiPV", "Move Overhead", "UCI_ShowWDL", "Model"] {
            assert!(options.iter().any(|l| l.starts_with(&format!("option name {name} type "))), "{name}: {out:?}");
        }
        let uciok = out.iter().position(|l| l == "uciok").expect("uciok");
        assert!(out[..uciok].iter().all(|l| !l.starts_with("readyok")));
        assert_eq!(out.last().map(String::as_str), Some("readyok"));
        let paco = exchange::<paco::GameState>("uci\n");
        assert!(paco.iter().any(|l| l == "option name UCI_Variant type combo default paco var paco"), "{paco:?}");
    }

    #[test]
    fn shako_go_plays_a_legal_move_after_the_position_and_reports_info_lines() {
        let out = exchange::<shako::GameState>("position startpos moves e3e5 e8e6\ngo nodes 60\n");
        let best = bestmoves(&out);
        assert_eq!(best.len(), 1, "{out:?}");
        let mut g = shako::GameState::startpos();
        for m in ["e3e5", "e8e6"] {
            g.play_uci(m).unwrap();
        }
        assert!(g.play_uci(best[0]).is_ok(), "bestmove {} is not legal: {out:?}", best[0]);
        let info = out.iter().rev().find(|l| l.starts_with("info depth")).expect("an info line");
        let words: Vec<&str> = info.split_whitespace().collect();
        let after = |key: &str| words[words.iter().position(|w| *w == key).unwrap_or_else(|| panic!("no {key} in {info}")) + 1];
        assert_eq!(after("multipv"), "1");
        assert_eq!(after("nodes"), "60", "{info}");
        assert_eq!(after("pv"), best[0], "the first info line's first move is the best move: {info}");
        assert_eq!(after("score"), "cp");
        after("cp").parse::<i32>().unwrap();
        let wdl: u32 = (1..=3).map(|k| words[words.iter().position(|w| *w == "wdl").unwrap() + k].parse::<u32>().unwrap()).sum();
        assert_eq!(wdl, 1000, "{info}");
    }

    #[test]
    fn paco_moves_are_whole_turns_in_chain_notation() {
        let out = exchange::<paco::GameState>("position startpos moves e2-e4 d7-d5\ngo nodes 50\n");
        let best = bestmoves(&out);
        assert_eq!(best.len(), 1, "{out:?}");
        assert!(errors(&out).is_empty(), "{out:?}");
        let mut g = paco::GameState::start();
        for m in ["e2-e4", "d7-d5"] {
            for d in g.parse_turn(m).unwrap() {
                g.apply(d);
            }
        }
        let turn = g.parse_turn(best[0]).unwrap_or_else(|e| panic!("bestmove {} is not a whole legal turn: {e}", best[0]));
        assert_eq!(move_token(&g, &turn), best[0]);
        // A union formed by e4xd5 is a capture-like move: the notation round-trips.
        let out = exchange::<paco::GameState>("position startpos moves e2-e4 d7-d5 e4xd5\ngo nodes 30\n");
        assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
        assert!(errors(&out).is_empty(), "{out:?}");
    }

    #[test]
    fn bad_input_gets_one_error_line_and_the_engine_keeps_serving() {
        let script = "\
    frobnicate
    position fen not/a/fen w - - 0 1
    position startpos moves e3e5 e3e4
    position startpos moves e3e5 e8e6 zz99
    go sideways
    setoption name Hash value 16
    setoption name MultiPV value 0
    setoption name UCI_Variant value chess
    setoption name Model value nowhere.pzmodel
    isready
    position startpos moves e3e5
    position startpos moves e3e5 e8e6 e5e4
    go nodes 20
    ";
        let out = exchange::<shako::GameState>(script);
        let errs = errors(&out);
        assert_eq!(errs.len(), 10, "{out:?}");
        for (e, needle) in errs.iter().zip([
            "unknown command `frobnicate`",
            "bad FEN",
            "move 2 `e3e4` is not legal",
            "move 3 `zz99` is not legal",
            "unknown parameter `sideways`",
            "unknown option `Hash`",
            "MultiPV: value `0`",
            "plays shako, not `chess`",
            "cannot load `nowhere.pzmodel`",
            "move 3 `e5e4` is not legal",
        ]) {
            assert!(e.contains(needle), "{e:?} lacks {needle:?}");
        }
        assert!(out.iter().any(|l| l == "readyok"));
        // The last good position (after e3e5) is searched: Black moves.
        let best = bestmoves(&out);
        assert_eq!(best.len(), 1, "{out:?}");
        let mut g = shako::GameState::startpos();
        g.play_uci("e3e5").unwrap();
        assert!(g.play_uci(best[0]).is_ok(), "{out:?}");
    }

    /// The last `info` line of `go nodes N` from `fen`, and the `bestmove`.
    fn searched<G: Game>(fen: &str, nodes: u32) -> (String, String) {
        let out = exchange::<G>(&format!("position fen {fen}\ngo nodes {nodes}\n"));
        let info = out.iter().rev().find(|l| l.starts_with("info depth")).unwrap_or_else(|| panic!("{fen}: {out:?}")).clone();
        (info, bestmoves(&out)[0].to_string())
    }

    #[test]
    fn proven_turns_are_reported_as_mate_n_for_both_sides() {
        // Shako mates in 2 that Fairy-Stockfish 11.1 (variant shako) finds
        // at depth 12, with its first move of each.
        for (fen, fairy) in [
            ("9k/10/7K2/10/10/10/10/10/R9/10 w - - 0 1", "h8i8"),
            ("9k/10/7K2/10/10/10/10/10/10/R9 w - - 0 1", "h8i8"),
            ("8k1/10/7K2/10/10/10/10/10/10/R9 w - - 0 1", "a1j1"),
            ("9k/10/6K3/10/10/10/10/10/10/1R8 w - - 0 1", "g8h9"),
        ] {
            let (info, best) = searched::<shako::GameState>(fen, 3000);
            assert!(info.contains("score mate 2 ") && info.contains(" wdl 1000 0 0 "), "{fen}: {info}");
            // A proven win: the engine's move keeps it (the mate follows).
            let mut g = shako::GameState::from_notation(fen).unwrap();
            for d in g.parse_turn(&best).unwrap() {
                g.apply(d);
            }
            let (reply, _) = searched::<shako::GameState>(&g.notation(), 3000);
            assert!(reply.contains("score mate -1 ") && reply.contains(" wdl 0 0 1000 "), "{fen} then {best} (Fairy-Stockfish: {fairy}): {reply}");
        }
        // Paco in 2 from the tactics suite (proved by exhaustive search).
        let fen = "3b2N1/k2P1b2/2t2q1C/p1p3t1/a1a1P3/3j3c/2K1dN1p/1Q1R1v2 b 5 - - -";
        let (info, best) = searched::<paco::GameState>(fen, 3000);
        assert!(info.contains("score mate 2 "), "{info}");
        assert!(["Qf6-c3", "Bf7xc4>d3>c3", "Bf7xc4>d3>d4"].iter().any(|t| t.split_whitespace().collect::<String>() == best), "{best}");
    }

    #[test]
    fn a_finished_game_has_no_best_move_and_a_win_in_one_is_mate_1() {
        // Black is mated.
        let out = exchange::<shako::GameState>("position fen 9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1 moves a2a10\ngo nodes 10\n");
        assert_eq!(bestmoves(&out), ["(none)"]);
        assert!(errors(&out)[0].contains("the game is over (checkmate)"), "{out:?}");
        // Drawn by the fifty-move rule: moves remain, the game is over all the same.
        let out = exchange::<shako::GameState>("position fen 9k/10/8K1/10/10/10/10/10/R9/10 w - - 100 80\ngo nodes 10\n");
        assert_eq!(bestmoves(&out), ["(none)"], "{out:?}");
        assert!(errors(&out)[0].contains("the game is over"), "{out:?}");
        let out = exchange::<shako::GameState>("position fen 9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1\ngo nodes 200\n");
        assert_eq!(bestmoves(&out), ["a2a10"], "{out:?}");
        let info = out.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
        assert!(info.contains("score mate 1") && info.contains("pv a2a10"), "{info}");
        // Paco in 1: the engine's detected win.
        let out = exchange::<paco::GameState>("position fen rn3b1r/3kppp1/ppp2n2/2Np1E2/2P1F1P1/1P2B2p/P1Q1P2P/R2K1BNR w 8 - - -\ngo nodes 10\n");
        let best = bestmoves(&out);
        let g = paco::GameState::from_notation("rn3b1r/3kppp1/ppp2n2/2Np1E2/2P1F1P1/1P2B2p/P1Q1P2P/R2K1BNR w 8 - - -").unwrap();
        let mut after = g.clone();
        for d in g.parse_turn(best[0]).unwrap() {
            after.apply(d);
        }
        assert_eq!(after.outcome(), Some(Outcome::Win(pacozero_engine::Color::White)), "{out:?}");
        assert!(out.iter().any(|l| l.contains("score mate 1")), "{out:?}");
    }

    #[test]
    fn multipv_reports_several_turns_and_options_reload_the_network() {
        let out = exchange::<shako::GameState>("setoption name MultiPV value 3\nsetoption name UCI_ShowWDL value false\nposition startpos\ngo nodes 100\n");
        let last: Vec<&String> = out.iter().filter(|l| l.starts_with("info depth")).collect();
        let tail = &last[last.len() - 3..];
        for (k, l) in tail.iter().enumerate() {
            assert!(l.contains(&format!(" multipv {} ", k + 1)) && !l.contains(" wdl "), "{l}");
        }
        let loads = RefCell::new(Vec::new());
        let loader = |model: &str, threads: usize| -> Result<Box<dyn Evaluator<shako::GameState>>> {
            loads.borrow_mut().push((model.to_string(), threads));
            Ok(Box::new(UniformEvaluator))
        };
        let out = exchange_with::<shako::GameState>(
            "setoption name Model value other\nsetoption name Threads value 4\nsetoption name Threads value 4\nuci\n",
            &loader,
        );
        // Model loads on the current threads; Threads reloads the current model, once per change.
        assert_eq!(*loads.borrow(), [("other".to_string(), 1), ("other".to_string(), 4)]);
        assert!(out.iter().any(|l| l == "option name Model type string default other"), "{out:?}");
        assert!(out.iter().any(|l| l == "option name Threads type spin default 4 min 1 max 512"), "{out:?}");
    }

    #[test]
    fn garbage_never_stops_the_engine() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let words = [
            "position",
            "fen",
            "startpos",
            "moves",
            "go",
            "nodes",
            "setoption",
            "name",
            "value",
            "e3e5",
            "-1",
            "9999999999999",
            "ucinewgame",
            "é",
            "\u{0}",
            "/",
            "10",
        ];
        let mut script = String::new();
        for _ in 0..400 {
            let n = rng.gen_range(0..8);
            let line: Vec<&str> = (0..n).map(|_| words[rng.gen_range(0..words.len())]).collect();
            script.push_str(&line.join(" "));
            script.push('\n');
        }
        script.push_str("isready\n");
        let mut bytes = script.into_bytes();
        bytes.extend_from_slice(b"\xff\xfe go\nisready\n");
        let mut out = Vec::new();
        let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<shako::GameState>>> { anyhow::bail!("no") };
        serve::<shako::GameState, _, _>(std::io::Cursor::new(bytes.clone()), &mut out, Box::new(UniformEvaluator), &loader, &config()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().filter(|l| *l == "readyok").count(), 2, "{text}");
        let mut out = Vec::new();
        let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<paco::GameState>>> { anyhow::bail!("no") };
        serve::<paco::GameState, _, _>(std::io::Cursor::new(bytes), &mut out, Box::new(UniformEvaluator), &loader, &config()).unwrap();
        assert_eq!(String::from_utf8(out).unwrap().lines().filter(|l| *l == "readyok").count(), 2);
    }

    /// The uniform evaluator, counting the positions it evaluates.
    struct Counting(Arc<AtomicUsize>);

    impl<G: Game> Evaluator<G> for Counting {
        fn name(&self) -> String {
            "counting".into()
        }
        fn needs_encoding(&self) -> bool {
            false
        }
        fn evaluate(&self, batch: &[crate::eval::EvalRequest<'_, G>], out: &mut EvalOutput) -> Result<()> {
            self.0.fetch_add(batch.len(), Ordering::Relaxed);
            Evaluator::<G>::evaluate(&UniformEvaluator, batch, out)
        }
    }

    /// The last `info` line's principal variation of `script`, and the positions evaluated.
    fn counted(script: &str) -> (Vec<String>, usize) {
        let count = Arc::new(AtomicUsize::new(0));
        let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<shako::GameState>>> { anyhow::bail!("no") };
        let mut out = Vec::new();
        serve::<shako::GameState, _, _>(std::io::Cursor::new(script.as_bytes().to_vec()), &mut out, Box::new(Counting(count.clone())), &loader, &config())
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        let info = text.lines().rfind(|l| l.starts_with("info depth")).expect("an info line");
        let pv = info.split(" pv ").nth(1).unwrap().split_whitespace().map(str::to_string).collect();
        (pv, count.load(Ordering::Relaxed))
    }

    #[test]
    fn a_continued_position_reuses_the_tree() {
        let first = "position startpos\ngo nodes 300\n";
        let (pv, before) = counted(first);
        assert!(pv.len() >= 2, "{pv:?}");
        // The position after the principal variation's two moves is in the tree.
        let next = format!("position startpos moves {} {}\ngo nodes 5\n", pv[0], pv[1]);
        let (_, reused) = counted(&format!("{first}{next}"));
        // A kept tree's root is evaluated already: 5 simulations, 5 evaluations;
        // after ucinewgame the new root is evaluated too.
        let (_, fresh) = counted(&format!("{first}ucinewgame\n{next}"));
        assert_eq!((reused - before, fresh - before), (5, 6));
        // Another start (a FEN), even with no moves played: a new tree, whose
        // principal variation starts from that position.
        // (Not a mate in one: that root would be answered without a search.)
        let other = "10/4k5/10/10/10/10/10/10/R9/4K5 w - - 0 1";
        let (pv, other_count) = counted(&format!("{first}position fen {other}\ngo nodes 5\n"));
        assert_eq!(other_count - before, 6, "the new root evaluated too");
        let g = shako::GameState::from_notation(other).unwrap();
        assert!(g.parse_decisions(&pv[0]).is_ok(), "{pv:?} from {other}");
    }

    #[test]
    fn a_move_time_lies_ahead_and_show_wdl_switches_both_ways() {
        // The visit cap (10,000) comes long before two seconds: the deadline
        // lies ahead of the search, not behind it.
        let out = exchange::<paco::GameState>("position startpos\ngo movetime 2000\n");
        assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
        assert!(out.iter().any(|l| l.contains(" nodes 10000 ")), "{out:?}");
        let out = exchange::<paco::GameState>("setoption name UCI_ShowWDL value false\nposition startpos\ngo nodes 30\n");
        assert!(errors(&out).is_empty() && out.iter().any(|l| l.starts_with("info depth")), "{out:?}");
        assert!(out.iter().all(|l| !l.contains(" wdl ")), "{out:?}");
        let out = exchange::<paco::GameState>("setoption name UCI_ShowWDL value false\nsetoption name UCI_ShowWDL value true\ngo nodes 30\n");
        assert!(errors(&out).is_empty() && out.iter().any(|l| l.contains(" wdl ")), "{out:?}");
    }

    /// Priors favour the first action; the positions after it (White lifts
    /// a piece, then places it) are lost for White, every other one is even.
    struct Trap {
        lost: std::collections::HashSet<u64>,
    }

    impl Evaluator<paco::GameState> for Trap {
        fn name(&self) -> String {
            "trap".into()
        }
        fn needs_encoding(&self) -> bool {
            false
        }
        fn evaluate(&self, batch: &[crate::eval::EvalRequest<'_, paco::GameState>], out: &mut EvalOutput) -> Result<()> {
            out.reset(batch);
            for (i, r) in batch.iter().enumerate() {
                let k = r.legal.len() as f32;
                for (j, p) in out.priors_of_mut(i).iter_mut().enumerate() {
                    *p = if j == 0 { 0.5 } else { 0.45 / (k - 1.0) };
                }
                let lost_for = if r.state.to_move() == pacozero_engine::Color::White { [0.0, 0.0, 1.0] } else { [1.0, 0.0, 0.0] };
                out.wdl[i] = if self.lost.contains(&r.state.hash()) { lost_for } else { [0.0, 1.0, 0.0] };
            }
            Ok(())
        }
    }

    #[test]
    fn without_a_visited_turn_bestmove_follows_the_priors() {
        let root = paco::GameState::new(paco::Position::startpos());
        let mut legal = Vec::new();
        root.playable_actions(&mut legal);
        let mut after = root.clone();
        after.apply(legal[0]);
        let mut places = Vec::new();
        after.playable_actions(&mut places);
        let mut lost: std::collections::HashSet<u64> = places
            .iter()
            .map(|&p| {
                let mut g = after.clone();
                g.apply(p);
                g.hash()
            })
            .collect();
        lost.insert(after.hash());
        let trap = Trap { lost };
        // Stopped before any simulation: the root is expanded, no turn visited.
        let mut s = Search::new(analysis_search_config(100), root.clone(), false);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        s.search_until(&trap, 100, Some(Instant::now()), false, &mut rng).unwrap();
        assert!(crate::turns::root_turns(&s).is_empty());
        // The most likely decision (a lift), then the turn completed by a
        // search from there (the place).
        let mut g = after.clone();
        let rest = search_turn(&mut g, analysis_search_config(COMPLETION_VISITS), &trap, COMPLETION_VISITS).unwrap().decisions;
        assert_eq!(rest.len(), 1);
        assert_eq!(best_turn(&s, &trap).unwrap(), [legal[0], rest[0]]);
        // A search of the whole turn plays another (the lift is lost).
        let mut g = root.clone();
        let searched = search_turn(&mut g, analysis_search_config(COMPLETION_VISITS), &trap, COMPLETION_VISITS).unwrap();
        assert_ne!(searched.decisions[0], legal[0]);
        // One simulation: the lift is expanded, no place visited; the tree's
        // most likely place completes the turn, and there the walk stops.
        let mut s = Search::new(analysis_search_config(100), root.clone(), false);
        s.search_until(&trap, 1, None, false, &mut rng).unwrap();
        assert!(crate::turns::root_turns(&s).is_empty() && s.children_at(&[legal[0]]).is_some());
        assert_eq!(best_turn(&s, &trap).unwrap(), [legal[0], places[0]]);
    }

    #[test]
    fn info_reports_the_average_depth_and_the_rate_of_the_search_since_go() {
        let root = paco::GameState::new(paco::Position::startpos());
        let mut search = Search::new(analysis_search_config(2000), root.clone(), false);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        search.search_until(&UniformEvaluator, 300, None, false, &mut rng).unwrap();
        let (sims_before, node_visits_before) = (search.total_simulations, search.node_visits);
        search.search_until(&UniformEvaluator, 1500, None, false, &mut rng).unwrap();
        let started = Instant::now() - Duration::from_millis(1500);
        let limits = SearchLimits { visits: 1500, time: None, infinite: false };
        let line = GameLine { start: root.clone(), decisions: Vec::new(), state: root };
        let nodes = search.total_simulations - sims_before;
        let touched = search.node_visits - node_visits_before;
        let r = Running { search, line, limits, started, last_info: started, exhausted: true, sims_before, node_visits_before };
        let info = &info_lines(&r, 1, false)[0];
        let field = |name: &str| -> u64 {
            let mut it = info.split_whitespace();
            it.find(|w| *w == name).and_then(|_| it.next()).unwrap_or_else(|| panic!("{name} in {info}")).parse().unwrap()
        };
        assert_eq!(field("nodes"), nodes);
        let ms = field("time");
        assert!((1500..3000).contains(&ms), "{info}");
        assert_eq!(field("nps"), nodes * 1000 / ms, "{info}");
        // Nodes touched per simulation, the root not counted.
        let depth = (touched as f64 / nodes as f64 - 1.0).round() as u64;
        assert!(depth >= 2, "a deep enough tree to tell: {depth}");
        assert_eq!(field("depth"), depth, "{info}");
    }

    /// An engine on a uniform evaluator with a cap of `visit_cap` visits, its output.
    fn stepping(visit_cap: u32, test: impl FnOnce(&mut Engine<'_, paco::GameState, Vec<u8>>)) -> Vec<String> {
        let loader = |_: &str, _: usize| -> Result<Box<dyn Evaluator<paco::GameState>>> { anyhow::bail!("no network") };
        let config = UciConfig { visit_cap, ..config() };
        let mut out = Vec::new();
        let mut engine = Engine::new(&mut out, Box::new(UniformEvaluator), &loader, &config);
        let _watchdog = Watchdog::new(HANG);
        test(&mut engine);
        String::from_utf8(out).unwrap().lines().map(str::to_string).collect()
    }

    #[test]
    fn info_lines_come_once_a_second_and_when_an_infinite_search_is_spent() {
        // A step within the second since the last report writes nothing.
        let out = stepping(1_000_000, |e| {
            e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
            e.step().unwrap();
            assert!(!e.running.as_ref().unwrap().exhausted, "a million visits in one slice");
        });
        assert!(out.is_empty(), "{out:?}");
        // One after the second is over.
        let out = stepping(1_000_000, |e| {
            e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
            e.running.as_mut().unwrap().last_info = Instant::now() - INFO_EVERY;
            e.step().unwrap();
        });
        assert_eq!(out.iter().filter(|l| l.starts_with("info depth")).count(), 1, "{out:?}");
        // An infinite search that spends its budget reports at once, then waits for `stop`.
        let out = stepping(50, |e| {
            e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
            while !e.running.as_ref().unwrap().exhausted {
                e.step().unwrap();
            }
            e.step().unwrap();
            assert!(e.running.is_some(), "no bestmove before stop");
        });
        assert_eq!(out.iter().filter(|l| l.starts_with("info depth")).count(), 1, "{out:?}");
        assert!(out.iter().all(|l| !l.starts_with("bestmove")), "{out:?}");
    }
}
