//! External engines as players: a UCI engine run as a child process, one
//! process per game.
//!
//! Spec: `uci:CMD[,Option=value…]:BUDGET[:timeout=<ms>]`, e.g.
//! `uci:fairy-stockfish,UCI_Variant=shako:nodes=1000`.
//!
//! | part | meaning |
//! |---|---|
//! | `CMD` | the program and its arguments, separated by spaces (`pacozero uci --model m.pzmodel`); a bare name is looked up on `PATH`, then in Debian's games directory `/usr/games` |
//! | `Option=value` | a UCI option set before each game (`setoption name Option value value`); the engine must offer it |
//! | `BUDGET` | `nodes=N` (`go nodes N`), `depth=N` (`go depth N`), `<ms>ms` (`go movetime <ms>`) or a clock `tc=<base s>+<increment s>` (`go wtime/btime/winc/binc`) |
//! | `timeout=<ms>` | how long a move may take before the engine loses the game (default: twice the movetime plus 2 s, or 30 s for nodes and depth; a clock is its own limit) |
//!
//! **A clock** (`tc=1+0.1`: 1 s for the game, 0.1 s more after each move)
//! is kept by the arena for each engine, as a match runner keeps it: the
//! time from `go` to the `bestmove` line is taken off it, then the
//! increment is added. An engine whose clock runs out before its
//! `bestmove` loses on time (`engine_timeout`). The engine is told its own
//! clock as both `wtime` and `btime` (each player's clock lives with its
//! seat; engines plan from their own).
//!
//! No part may hold a `:`, and the command no `,`. When the engine offers
//! `UCI_Variant` and the spec does not set it, it is set to the game's name
//! (`shako`, `paco`), which must be one of its values.
//!
//! Each game starts the engine afresh (`uci`, the options, `isready`,
//! `ucinewgame`) and sends it `position startpos|fen <start> moves ...`
//! with every whole turn of the game so far, then `go`. Our engine checks
//! each `bestmove` it answers: an illegal move, a crash (the process ends
//! or its output closes) or a timeout loses that game, and the reason
//! ([`Forfeit`]) is recorded. The process is ended with the game (`quit`,
//! then killed if it lingers). A spec is checked when its player is made:
//! the program starts, speaks UCI and offers the options.

use crate::budget::Budget;
use anyhow::{bail, Context, Result};
use pacozero_engine::Game;
use pacozero_protocol::uci::info::Info;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Debian's directory of games, where `apt-get install fairy-stockfish` puts it.
pub const GAMES_DIR: &str = "/usr/games";
/// How long an engine may take to start (`uciok`) and to be ready (`readyok`).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// A parsed `uci:` player spec (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct UciSpec {
    /// The program as named: a path, or a bare name looked up on `PATH`,
    /// then in [`GAMES_DIR`], when it starts ([`find_program`]). Reading a
    /// spec touches no file, so a command line parses on any machine.
    pub program: PathBuf,
    pub args: Vec<String>,
    /// UCI options set before each game, in order.
    pub options: Vec<(String, String)>,
    pub budget: Budget,
    /// The longest a move may take.
    pub timeout: Duration,
}

impl UciSpec {
    /// Reads `uci:CMD[,Option=value…]:BUDGET[:timeout=<ms>]` (the whole spec, `uci:` included).
    pub fn parse(spec: &str) -> Result<UciSpec> {
        let parts: Vec<&str> = spec.split(':').collect();
        let usage = "uci:<command>[,<Option>=<value>...]:<budget>[:timeout=<ms>], the budget nodes=<N>, depth=<N> or <ms>ms";
        if parts.first() != Some(&"uci") || !(3..=4).contains(&parts.len()) {
            bail!("player '{spec}': expected {usage}");
        }
        let mut pieces = parts[1].split(',');
        let command: Vec<String> = pieces.next().unwrap_or("").split_whitespace().map(str::to_string).collect();
        let Some((program, args)) = command.split_first() else { bail!("player '{spec}': the command is empty (expected {usage})") };
        let mut options = Vec::new();
        for o in pieces {
            match o.split_once('=') {
                Some((name, value)) if !name.trim().is_empty() => options.push((name.trim().to_string(), value.trim().to_string())),
                _ => bail!("player '{spec}': option '{o}' should be <Option>=<value>"),
            }
        }
        let budget = Budget::for_engine(spec, parts[2])?;
        let timeout = match parts.get(3) {
            None => budget.default_timeout(),
            Some(t) => match t.strip_prefix("timeout=").and_then(|ms| ms.parse::<u64>().ok()).filter(|&ms| ms >= 1) {
                Some(ms) => Duration::from_millis(ms),
                None => bail!("player '{spec}': '{t}' should be timeout=<milliseconds a move may take, at least 1>"),
            },
        };
        Ok(UciSpec { program: PathBuf::from(program), args: args.to_vec(), options, budget, timeout })
    }
}

/// An engine given without a budget (`ladder --engine`, each rung adding
/// its own): the text as given, for names and tables, and the spec it was
/// checked as (a placeholder budget of one node).
#[derive(Clone, Debug)]
pub struct UciEngine {
    text: String,
    spec: UciSpec,
}

impl UciEngine {
    /// The engine's spec at `budget`, with that budget's default timeout.
    pub fn at(&self, budget: Budget) -> UciSpec {
        UciSpec { budget, timeout: budget.default_timeout(), ..self.spec.clone() }
    }
}

impl std::str::FromStr for UciSpec {
    type Err = anyhow::Error;
    fn from_str(text: &str) -> Result<UciSpec> {
        UciSpec::parse(text)
    }
}

impl std::str::FromStr for UciEngine {
    type Err = anyhow::Error;
    /// Checks the engine as a spec with a budget of one node: one with a
    /// budget of its own (`uci:x:nodes=5`) reads as a spec with an option
    /// after its budget, which the parser refuses.
    fn from_str(text: &str) -> Result<UciEngine> {
        let budget = Budget::Nodes(1);
        let spec = UciSpec::parse(&format!("{text}:{budget}"))
            .with_context(|| format!("engine '{text}': expected uci:<command>[,<Option>=<value>...] without a budget (each use adds its own, here :{budget})"))
            // One message with its cause: the argument parser prints only the outer one.
            .map_err(|e| anyhow::anyhow!("{e:#}"))?;
        Ok(UciEngine { text: text.to_string(), spec })
    }
}

impl std::fmt::Display for UciEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::fmt::Display for UciSpec {
    /// `uci:<program>[ <args>][,<Option>=<value>...]:<budget>:timeout=<ms>`:
    /// the program as named, and the timeout written out even when it was
    /// the budget's default, so that [`UciSpec::parse`] reads back this spec.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "uci:{}", self.program.display())?;
        for a in &self.args {
            write!(f, " {a}")?;
        }
        for (name, value) in &self.options {
            write!(f, ",{name}={value}")?;
        }
        write!(f, ":{}:timeout={}", self.budget, self.timeout.as_millis())
    }
}

/// The program a command names: a path as given; a bare name from `PATH`, then [`GAMES_DIR`].
pub fn find_program(name: &str) -> Result<PathBuf, String> {
    if name.contains('/') {
        let p = PathBuf::from(name);
        return if p.is_file() { Ok(p) } else { Err(format!("no program {name}")) };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(std::iter::once(PathBuf::from(GAMES_DIR)))
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("no program `{name}` on PATH or in {GAMES_DIR} (Debian: apt-get install fairy-stockfish)"))
}

/// Why an external engine lost a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    /// The games table's `reason`: `illegal_move`, `engine_crash` or `engine_timeout`.
    pub reason: &'static str,
    /// What happened, for people.
    pub detail: String,
}

impl Forfeit {
    fn crash(detail: impl Into<String>) -> Forfeit {
        Forfeit { reason: "engine_crash", detail: detail.into() }
    }
}

/// An engine process in a game.
pub struct UciProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// The options it offers: name and `type ...` rest of the line.
    offered: Vec<(String, String)>,
    /// What is left on its clock under a [`Budget::Clock`] (unused otherwise).
    clock_left: Duration,
}

impl UciProcess {
    /// Starts the engine of `spec` for game `G` and readies it for a new
    /// game: `uci`, the options (and `UCI_Variant` when it has it and the
    /// spec does not set it), `isready`, `ucinewgame`, `isready`.
    pub fn start<G: Game>(spec: &UciSpec) -> Result<UciProcess, Forfeit> {
        let program = find_program(&spec.program.to_string_lossy()).map_err(Forfeit::crash)?;
        let mut child = Command::new(&program)
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Forfeit::crash(format!("cannot start {}: {e}", spec.program.display())))?;
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let clock_left = match spec.budget {
            Budget::Clock { base, .. } => base,
            _ => Duration::ZERO,
        };
        let mut p = UciProcess { child, stdin, lines, offered: Vec::new(), clock_left };
        p.send("uci")?;
        let intro = p.read_until("uciok", Instant::now() + HANDSHAKE_TIMEOUT, "uciok")?;
        p.offered = intro
            .iter()
            .filter_map(|l| l.strip_prefix("option name "))
            .filter_map(|rest| rest.split_once(" type ").map(|(name, kind)| (name.trim().to_string(), kind.to_string())))
            .collect();
        for (name, value) in p.options_for::<G>(spec)? {
            p.send(&format!("setoption name {name} value {value}"))?;
        }
        p.ready()?;
        p.send("ucinewgame")?;
        p.ready()?;
        Ok(p)
    }

    /// The options to set: the spec's, each offered by the engine, and
    /// `UCI_Variant` = the game's name where the engine offers it and the spec does not set it.
    fn options_for<G: Game>(&self, spec: &UciSpec) -> Result<Vec<(String, String)>, Forfeit> {
        let offered = |name: &str| self.offered.iter().find(|(n, _)| n.eq_ignore_ascii_case(name));
        let mut out = Vec::new();
        for (name, value) in &spec.options {
            if offered(name).is_none() {
                let names: Vec<&str> = self.offered.iter().map(|(n, _)| n.as_str()).collect();
                return Err(Forfeit::crash(format!("the engine has no option `{name}` (it has: {})", names.join(", "))));
            }
            out.push((name.clone(), value.clone()));
        }
        let sets_variant = spec.options.iter().any(|(n, _)| n.eq_ignore_ascii_case("UCI_Variant"));
        if let (Some((name, kind)), false) = (offered("UCI_Variant"), sets_variant) {
            let vars: Vec<&str> = kind.split(" var ").skip(1).map(|v| v.split_whitespace().next().unwrap_or("")).collect();
            if !vars.contains(&G::NAME) {
                return Err(Forfeit::crash(format!("the engine's UCI_Variant has no variant `{}` (it has: {})", G::NAME, vars.join(", "))));
            }
            out.push((name.clone(), G::NAME.to_string()));
        }
        Ok(out)
    }

    fn ready(&mut self) -> Result<(), Forfeit> {
        self.send("isready")?;
        self.read_until("readyok", Instant::now() + HANDSHAKE_TIMEOUT, "readyok").map(|_| ())
    }

    fn send(&mut self, line: &str) -> Result<(), Forfeit> {
        let stdin = self.stdin.as_mut().ok_or_else(|| Forfeit::crash("its input is closed"))?;
        writeln!(stdin, "{line}").and_then(|()| stdin.flush()).map_err(|e| Forfeit::crash(format!("writing `{line}` to it failed: {e} (it ended?)")))
    }

    /// The lines up to the first that starts with `prefix` (included), by `deadline`.
    fn read_until(&mut self, prefix: &str, deadline: Instant, waiting_for: &str) -> Result<Vec<String>, Forfeit> {
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.split_whitespace().next() == Some(prefix);
                    seen.push(line);
                    if done {
                        return Ok(seen);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    return Err(Forfeit { reason: "engine_timeout", detail: format!("no `{waiting_for}` in time") });
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
                    return Err(Forfeit::crash(format!("it ended ({status}) while we waited for `{waiting_for}`")));
                }
            }
        }
    }

    /// The engine's move in `g`, reached from `start` by the whole turns
    /// `moves` (in UCI notation): checked legal. The searched nodes it
    /// reported last come with it (0 if none).
    pub fn best_turn<G: Game>(&mut self, spec: &UciSpec, start: &G, moves: &[String], g: &G) -> Result<(Vec<u16>, u64), Forfeit> {
        let setup = if start.notation() == G::start().notation() { "startpos".to_string() } else { format!("fen {}", start.notation()) };
        let listed = if moves.is_empty() { String::new() } else { format!(" moves {}", moves.join(" ")) };
        self.send(&format!("position {setup}{listed}"))?;
        let asked = Instant::now();
        self.send(&spec.budget.go(self.clock_left).to_string())?;
        let lines = match spec.budget {
            Budget::Clock { increment, .. } => {
                let left = self.clock_left;
                let flag = |used: Duration| Forfeit {
                    reason: "engine_timeout",
                    detail: format!("lost on time: {} ms used with {} ms on its clock", used.as_millis(), left.as_millis()),
                };
                let lines =
                    self.read_until("bestmove", asked + left, "bestmove").map_err(|f| if f.reason == "engine_timeout" { flag(asked.elapsed()) } else { f })?;
                let used = asked.elapsed();
                if used > left {
                    return Err(flag(used));
                }
                self.clock_left = left - used + increment;
                lines
            }
            _ => self.read_until("bestmove", Instant::now() + spec.timeout, "bestmove")?,
        };
        let nodes = lines.iter().rev().find_map(|l| Info::parse(l).and_then(|i| i.nodes)).unwrap_or(0);
        let answer = lines.last().expect("the bestmove line");
        let token = answer.split_whitespace().nth(1).unwrap_or("");
        match g.parse_turn(token) {
            Ok(turn) => Ok((turn, nodes)),
            Err(e) => Err(Forfeit { reason: "illegal_move", detail: format!("`{answer}` in {}: {}", g.notation(), e.message) }),
        }
    }
}

impl Drop for UciProcess {
    fn drop(&mut self) {
        let _ = self.send("quit");
        self.stdin = None;
        let end = Instant::now() + Duration::from_millis(200);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Checks a spec for game `G` before a match: the engine starts, speaks
/// UCI and offers the options (one game's handshake).
pub fn check_engine<G: Game>(spec_text: &str, spec: &UciSpec) -> Result<()> {
    UciProcess::start::<G>(spec).map(drop).map_err(|f| anyhow::anyhow!("player '{spec_text}': {}: {}", spec.program.display(), f.detail))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_engine::prelude::*;

    #[test]
    fn specs_read_the_command_options_budget_and_timeout() {
        let s = UciSpec::parse("uci:sh -c true,UCI_Variant=shako,Move Overhead=10:nodes=1000").unwrap();
        assert!(s.program.ends_with("sh"));
        assert_eq!(s.args, ["-c", "true"]);
        assert_eq!(s.options, [("UCI_Variant".to_string(), "shako".to_string()), ("Move Overhead".to_string(), "10".to_string())]);
        assert_eq!((s.budget, s.timeout), (Budget::Nodes(1000), Duration::from_secs(30)));
        let s = UciSpec::parse("uci:sh:100ms:timeout=5000").unwrap();
        assert_eq!((s.budget, s.timeout), (Budget::Millis(100), Duration::from_secs(5)));
        assert_eq!(UciSpec::parse("uci:sh:depth=3").unwrap().budget.go(Duration::ZERO).to_string(), "go depth 3");
        let clock = UciSpec::parse("uci:sh:tc=1+0.1").unwrap();
        assert_eq!(clock.budget, Budget::Clock { base: Duration::from_secs(1), increment: Duration::from_millis(100) });
        assert_eq!(clock.budget.go(Duration::from_millis(734)).to_string(), "go wtime 734 btime 734 winc 100 binc 100");
        assert_eq!(UciSpec::parse("uci:sh:tc=60").unwrap().budget, Budget::Clock { base: Duration::from_secs(60), increment: Duration::ZERO });
        assert_eq!(Budget::Millis(100).default_timeout(), Duration::from_millis(2200));
        for (bad, needle) in [
            ("uci:sh", "expected uci:<command>"),
            ("uci::nodes=5", "the command is empty"),
            ("uci:sh,Threads:nodes=5", "option 'Threads' should be"),
            ("uci:sh:nodes=0", "budget 'nodes=0'"),
            ("uci:sh:fast", "budget 'fast'"),
            ("uci:sh:nodes=5:timeout=x", "'timeout=x'"),
            ("uci:sh:tc=0+1", "budget 'tc=0+1'"),
            ("uci:sh:tc=1+x", "tc=<base seconds>[+<increment seconds>]"),
            ("uci:sh:tc=-1", "budget 'tc=-1'"),
        ] {
            let e = UciSpec::parse(bad).expect_err(bad).to_string();
            assert!(e.contains(needle), "{bad}: {e}");
        }
        // The program is looked for when it starts, not when the spec is read.
        for (text, needle) in [
            ("uci:no-such-engine-anywhere:nodes=5", "no program `no-such-engine-anywhere` on PATH or in /usr/games"),
            ("uci:/no/such/engine:nodes=5", "no program /no/such/engine"),
        ] {
            let spec = UciSpec::parse(text).unwrap();
            let e = check_engine::<pacozero_engine::paco::GameState>(text, &spec).unwrap_err().to_string();
            assert!(e.starts_with(&format!("player '{text}': ")) && e.contains(needle), "{text}: {e}");
        }
        // An option needs a name.
        let e = UciSpec::parse("uci:sh, =5:nodes=1").unwrap_err().to_string();
        assert!(e.contains("option ' =5' should be <Option>=<value>"), "{e}");
    }

    use crate::fake_engine::fake_engine;
    use pacozero_engine::shako;
    use std::path::Path;

    fn spec(engine: &Path, rest: &str) -> UciSpec {
        UciSpec::parse(&format!("uci:{}{rest}", engine.display())).unwrap()
    }

    fn lines(log: &Path) -> Vec<String> {
        std::fs::read_to_string(log).unwrap_or_default().lines().map(str::to_string).collect()
    }

    const VARIANTS: &str = "UCI_Variant type combo default chess var chess var shako";

    /// The handshake (options, the game's variant), `position` with the
    /// turns so far, `go`, the reported nodes, and a move checked against
    /// the position it was asked in: the same answer one turn later is an
    /// illegal move.
    #[test]
    fn a_game_is_set_up_and_every_answer_checked() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let g0 = shako::GameState::start();
        let first = g0.legal_turns()[0].clone();
        let token = pacozero_protocol::uci::move_token(&g0, &first);
        let engine = fake_engine(
            dir.path(),
            &log,
            &["Hash type spin default 16 min 1 max 64", VARIANTS],
            &format!("echo 'info depth 1 nodes 7'; echo 'info string nodes'; echo 'bestmove {token} ponder x'"),
        );
        let spec = spec(&engine, ",Hash=32:nodes=5");
        let mut p = UciProcess::start::<shako::GameState>(&spec).unwrap();
        assert_eq!(p.best_turn(&spec, &g0, &[], &g0).unwrap(), (first.clone(), 7));
        let mut g1 = g0.clone();
        for &d in &first {
            g1.apply(d);
        }
        let f = p.best_turn(&spec, &g0, std::slice::from_ref(&token), &g1).unwrap_err();
        assert_eq!(f.reason, "illegal_move");
        assert!(f.detail.starts_with(&format!("`bestmove {token} ponder x` in {}: ", g1.notation())), "{f:?}");
        // Another start is sent as a FEN.
        let other = shako::GameState::random_start(5);
        assert_ne!(other.notation(), g0.notation());
        let _ = p.best_turn(&spec, &other, &[], &other);
        drop(p);
        let expected = [
            "uci".to_string(),
            "setoption name Hash value 32".into(),
            "setoption name UCI_Variant value shako".into(),
            "isready".into(),
            "ucinewgame".into(),
            "isready".into(),
            "position startpos".into(),
            "go nodes 5".into(),
            format!("position startpos moves {token}"),
            "go nodes 5".into(),
            format!("position fen {}", other.notation()),
            "go nodes 5".into(),
            "quit".into(),
        ];
        assert_eq!(lines(&log), expected);
    }

    /// Options the engine lacks, a variant it lacks, and a spec that sets
    /// the variant itself (in any case: then none is added).
    #[test]
    fn options_must_be_offered_and_the_variant_known() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let engine = fake_engine(dir.path(), &log, &["Hash type spin default 16 min 1 max 64", VARIANTS], "echo 'bestmove 0000'");
        let f = UciProcess::start::<shako::GameState>(&spec(&engine, ",Threads=2:nodes=5")).err().unwrap();
        assert_eq!((f.reason, f.detail.as_str()), ("engine_crash", "the engine has no option `Threads` (it has: Hash, UCI_Variant)"));
        let without = fake_engine(dir.path(), &log, &["UCI_Variant type combo default chess var chess var crazyhouse"], "echo 'bestmove 0000'");
        let f = UciProcess::start::<shako::GameState>(&spec(&without, ":nodes=5")).err().unwrap();
        assert_eq!(f.detail, "the engine's UCI_Variant has no variant `shako` (it has: chess, crazyhouse)");
        let text = format!("uci:{}:nodes=5", without.display());
        let e = check_engine::<shako::GameState>(&text, &spec(&without, ":nodes=5")).unwrap_err().to_string();
        assert_eq!(e, format!("player '{text}': {}: {}", without.display(), f.detail));
        std::fs::remove_file(&log).unwrap();
        drop(UciProcess::start::<shako::GameState>(&spec(&without, ",uci_variant=chess:nodes=5")).unwrap());
        assert_eq!(lines(&log), ["uci", "setoption name uci_variant value chess", "isready", "ucinewgame", "isready", "quit"]);
        // An engine with neither option gets none.
        std::fs::remove_file(&log).unwrap();
        let bare = fake_engine(dir.path(), &log, &[], "echo 'bestmove 0000'");
        check_engine::<shako::GameState>("bare", &spec(&bare, ":nodes=5")).unwrap();
        assert_eq!(lines(&log), ["uci", "isready", "ucinewgame", "isready", "quit"]);
    }

    /// An engine that does not answer in time, one that ends, one that
    /// never speaks UCI, and one whose clock runs out.
    #[test]
    fn silent_ended_and_slow_engines_forfeit() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let g = shako::GameState::start();
        let silent = fake_engine(dir.path(), &log, &[], ":");
        let s = spec(&silent, ":nodes=5:timeout=300");
        let mut p = UciProcess::start::<shako::GameState>(&s).unwrap();
        let t = Instant::now();
        let f = p.best_turn(&s, &g, &[], &g).unwrap_err();
        assert_eq!((f.reason, f.detail.as_str()), ("engine_timeout", "no `bestmove` in time"));
        assert!(t.elapsed() >= Duration::from_millis(300) && t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        drop(p);

        let ending = fake_engine(dir.path(), &log, &[], "exit 3");
        let s = spec(&ending, ":nodes=5");
        let mut p = UciProcess::start::<shako::GameState>(&s).unwrap();
        let f = p.best_turn(&s, &g, &[], &g).unwrap_err();
        assert_eq!(f.reason, "engine_crash");
        assert!(f.detail.starts_with("it ended (exit status: 3) while we waited for `bestmove`"), "{f:?}");
        drop(p);

        // `head -n1` echoes the `uci` line and ends.
        let mute = UciSpec::parse("uci:head -n1:nodes=5").unwrap();
        let f = UciProcess::start::<shako::GameState>(&mute).err().unwrap();
        assert_eq!(f.reason, "engine_crash");
        assert!(f.detail.contains("while we waited for `uciok`"), "{f:?}");
        let f = UciProcess::start::<shako::GameState>(&UciSpec { program: dir.path().join("none"), ..mute.clone() }).err().unwrap();
        assert!(f.reason == "engine_crash" && f.detail.starts_with("no program "), "{f:?}");
        // A file that is there but cannot run.
        let text = dir.path().join("text");
        std::fs::write(&text, "not a program").unwrap();
        let f = UciProcess::start::<shako::GameState>(&UciSpec { program: text, ..mute }).err().unwrap();
        assert!(f.reason == "engine_crash" && f.detail.starts_with("cannot start "), "{f:?}");

        // 0.3 s on the clock, 0.6 s to answer: lost on time, before the answer.
        let slow = fake_engine(dir.path(), &log, &[], "sleep 0.6; echo 'bestmove 0000'");
        let s = spec(&slow, ":tc=0.3");
        let mut p = UciProcess::start::<shako::GameState>(&s).unwrap();
        let t = Instant::now();
        let f = p.best_turn(&s, &g, &[], &g).unwrap_err();
        assert_eq!(f.reason, "engine_timeout");
        assert!(f.detail.starts_with("lost on time: ") && f.detail.ends_with(" ms used with 300 ms on its clock"), "{f:?}");
        assert!(t.elapsed() < Duration::from_millis(550), "flagged at the clock's end, not at the answer: {:?}", t.elapsed());
    }

    /// Under a clock the engine is told what is left on its own clock:
    /// the base, then the base less the time used plus the increment.
    #[test]
    fn the_clock_loses_the_time_used_and_gains_the_increment() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let g = shako::GameState::start();
        let token = pacozero_protocol::uci::move_token(&g, &g.legal_turns()[0]);
        let engine = fake_engine(dir.path(), &log, &[], &format!("sleep 0.1; echo 'bestmove {token}'"));
        let s = spec(&engine, ":tc=5+1");
        let mut p = UciProcess::start::<shako::GameState>(&s).unwrap();
        for _ in 0..2 {
            p.best_turn(&s, &g, &[], &g).unwrap();
        }
        let left = p.clock_left;
        drop(p);
        // Two moves of at least 0.1 s each (and less than 0.9 s: a loaded machine).
        assert!(left > Duration::from_millis(5_200) && left <= Duration::from_millis(6_800), "{left:?}");
        let gos: Vec<String> = lines(&log).into_iter().filter(|l| l.starts_with("go")).collect();
        assert_eq!(gos[0], "go wtime 5000 btime 5000 winc 1000 binc 1000");
        let words: Vec<&str> = gos[1].split(' ').collect();
        let second: u64 = words[2].parse().unwrap();
        assert_eq!(words, ["go", "wtime", words[2], "btime", words[2], "winc", "1000", "binc", "1000"]);
        assert!((5_100..=5_900).contains(&second), "{second}");
    }

    #[test]
    fn an_engine_without_a_budget_takes_each_rungs() {
        let engine: UciEngine = "uci:sh,UCI_Variant=shako".parse().unwrap();
        assert_eq!(engine.to_string(), "uci:sh,UCI_Variant=shako");
        assert_eq!(engine.at(Budget::Nodes(5)), UciSpec::parse("uci:sh,UCI_Variant=shako:nodes=5").unwrap());
        assert_eq!(engine.at(Budget::Millis(40)), UciSpec::parse("uci:sh,UCI_Variant=shako:40ms").unwrap());
        for bad in ["uci:sh:nodes=5", "uci:sh:timeout=9", "sh", "uci:"] {
            let e = format!("{:#}", bad.parse::<UciEngine>().unwrap_err());
            assert!(e.contains("without a budget"), "{bad}: {e}");
        }
    }

    #[test]
    fn budgets_have_their_go_commands_and_limits() {
        assert_eq!(Budget::Nodes(1000).go(Duration::ZERO).to_string(), "go nodes 1000");
        assert_eq!(Budget::Millis(250).go(Duration::ZERO).to_string(), "go movetime 250");
        assert_eq!(Budget::Nodes(5).default_timeout(), Duration::from_secs(30));
        assert_eq!(Budget::Depth(5).default_timeout(), Duration::from_secs(30));
        assert_eq!(Budget::Clock { base: Duration::from_secs(7), increment: Duration::ZERO }.default_timeout(), Duration::from_secs(7));
        assert_eq!(UciSpec::parse("uci:sh:depth=1000").unwrap().budget, Budget::Depth(1000));
        assert_eq!(UciSpec::parse("uci:sh:tc=86400+0").unwrap().budget, Budget::Clock { base: Duration::from_secs(86_400), increment: Duration::ZERO });
        assert_eq!(UciSpec::parse("uci:sh:1ms:timeout=1").unwrap().timeout, Duration::from_millis(1));
        for bad in [
            "uci:sh:depth=1001",
            "uci:sh:tc=86401",
            "uci:sh:tc=1+86401",
            "uci:sh:tc=inf",
            "uci:sh:0ms",
            "uci:sh:nodes=5:timeout=0",
            "uci:sh:nodes=5:x=1",
            "uci:sh:nodes=5:timeout=1:x",
            "ucx:sh:nodes=5",
        ] {
            assert!(UciSpec::parse(bad).is_err(), "{bad}");
        }
        // A bare name is found on PATH; a path must be a file.
        assert!(find_program("sh").unwrap().is_file());
        assert!(find_program("/").is_err());
    }
}
