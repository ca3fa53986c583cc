//! The checks that the fuzz targets of `fuzz/` run on each input (`config`,
//! `state`, `matches`, `league`, and the protocol lines of the search
//! crate, `uci` and `analysis`, whose readers it tests from here, above
//! it, where both games are at hand), kept here so that `cargo test`
//! replays the committed corpora through the same code (`tests/fuzz_corpus.rs`).
//! Not an API: each function panics when a reader breaks one of its
//! promises: an error names the file (or the `--set`); what is read writes
//! back and reads the same. Each returns whether the reader took the input.

use pacozero_arena::rating_list::Anchor;
use pacozero_data::fuzz_checks::{assert_names_input, scratch_dir};
use pacozero_data::RunDir;
use pacozero_engine::{Color, Game, GameKind};
use pacozero_protocol::analysis::{parse_line, Line, ServeOptions};
use pacozero_protocol::lines::{InputLine, LineReader};
use pacozero_protocol::uci::clock::{deadline, search_limits};
use pacozero_protocol::uci::command::{parse_command, Command, PositionCommand};
use pacozero_protocol::uci::position_of;

use crate::files::{append_match, load_state, read_matches, save_state, write_ratings};
use crate::looping::{named_outside, LoopFile};
use crate::overrides::apply;
use pacozero_arena::league::{read_league, LeagueHeader, LEAGUE_FILE};

/// The most matches or pairs whose ratings a check fits: the fit's work
/// grows with the players, and a check must stay quick.
const MAX_RATED: usize = 16;

/// A loop configuration with `--set` overrides, as `pacozero loop` reads
/// them: each line of the input that starts with `--set ` is an override
/// (in order), the other lines are the file's text. The overrides are
/// applied or refused naming one; the result is read or refused naming the
/// file; a configuration read writes to TOML that reads as the same.
pub fn config_with_sets(data: &[u8]) -> bool {
    let input = String::from_utf8_lossy(data);
    let (sets, lines): (Vec<&str>, Vec<&str>) = input.lines().partition(|l| l.starts_with("--set "));
    let sets: Vec<String> = sets.iter().map(|s| s["--set ".len()..].to_string()).collect();
    let text = match apply(&lines.join("\n"), &sets) {
        Ok(text) => text,
        Err(e) => {
            let message = format!("{e:#}");
            assert!(message.contains("--set") || message.contains("TOML"), "an override's refusal names neither it nor the file's syntax: {message}");
            return false;
        }
    };
    let origin = "fuzz-input.toml";
    let file = match LoopFile::parse(&text, origin) {
        Ok(f) => f,
        Err(e) => {
            assert_names_input(&format!("{e:#}"));
            return false;
        }
    };
    named_outside(&file);
    let written = toml::to_string(&file).unwrap_or_else(|e| panic!("a configuration read cannot be written: {e}"));
    let again = LoopFile::parse(&written, origin).unwrap_or_else(|e| panic!("a written configuration does not read: {e:#}\n{written}"));
    assert_same(&again, &file, "a configuration");
    true
}

fn json<T: serde::Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).expect("serialises")
}

/// Whether two JSON values are the same, numbers to a relative 1e-12:
/// serde_json (without its `float_roundtrip` feature) may read the last
/// bit of a float differently from the float it wrote, so a figure such as
/// `seconds_per_decision` moves by a unit in the last place through a write
/// and a read. Anything more is a change.
fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w))),
        _ => a == b,
    }
}

/// Panics unless `again` (written and read back) is `first`, as [`same_json`] compares.
fn assert_same<T: serde::Serialize>(again: &T, first: &T, what: &str) {
    let (again, first) = (json(again), json(first));
    assert!(same_json(&again, &first), "{what} changed through writing and reading:\n{first}\n{again}");
}

/// A run directory of the scratch space holding only the file `name` with `data`.
fn run_with(name: &str, data: &[u8]) -> std::path::PathBuf {
    run_with_file(|run| run.join(name), data).0
}

/// A run directory of the scratch space holding only the file at
/// `path_in(run)` with `data`; the run and the file's path.
fn run_with_file(path_in: impl FnOnce(&std::path::Path) -> std::path::PathBuf, data: &[u8]) -> (std::path::PathBuf, std::path::PathBuf) {
    let run = scratch_dir().join("fuzz-input");
    let _ = std::fs::remove_dir_all(&run);
    std::fs::create_dir_all(&run).expect("the scratch run directory");
    let path = path_in(&run);
    std::fs::write(&path, data).expect("the scratch file");
    (run, path)
}

/// Any bytes as a run's `state.json`: refused naming the file, or a state
/// that writes back and reads the same.
pub fn state_file(data: &[u8]) -> bool {
    let (run, _) = run_with_file(|run| RunDir::new(run).state(), data);
    let state = match load_state(&run) {
        Ok(s) => s,
        Err(e) => {
            assert_names_input(&format!("{e:#}"));
            return false;
        }
    };
    save_state(&run, &state).unwrap_or_else(|e| panic!("a state read cannot be written: {e:#}"));
    let again = load_state(&run).unwrap_or_else(|e| panic!("a written state does not read: {e:#}"));
    assert_same(&again, &state, "a state");
    true
}

/// Any bytes as a run's `matches.jsonl`: refused naming the file and line,
/// or matches that write back and read the same, and (a few of them) give
/// a rating list or an error, as the loop's ratings do.
pub fn matches_file(data: &[u8]) -> bool {
    let (run, file) = run_with_file(|run| RunDir::new(run).matches(), data);
    let matches = match read_matches(&run) {
        Ok(m) => m,
        Err(e) => {
            assert_names_input(&format!("{e:#}"));
            return false;
        }
    };
    std::fs::remove_file(&file).expect("the scratch file");
    for m in &matches {
        append_match(&run, m).unwrap_or_else(|e| panic!("a match read cannot be written: {e:#}"));
    }
    let again = read_matches(&run).unwrap_or_else(|e| panic!("written matches do not read: {e:#}"));
    assert_same(&again, &matches, "the matches");
    if matches.len() <= MAX_RATED {
        let _ = write_ratings(&run, "gen-0001");
    }
    true
}

/// Any bytes as a league's `league.jsonl`: refused naming the file, or a
/// league whose header writes back the same, whose pairs lie inside it
/// (its schedule and matchups can be made) and whose results (a few of
/// them) give a rating list or an error.
pub fn league_file(data: &[u8]) -> bool {
    let dir = run_with(LEAGUE_FILE, data);
    let league = match read_league(&dir) {
        Ok(Some(l)) => l,
        Ok(None) => panic!("a league file that is there reads as none"),
        Err(e) => {
            assert_names_input(&format!("{e:#}"));
            return false;
        }
    };
    let header = serde_json::to_string(&league.header).expect("a header serialises");
    let again: LeagueHeader = serde_json::from_str(&header).unwrap_or_else(|e| panic!("a written league header does not read: {e}\n{header}"));
    assert_eq!(again, league.header, "a league header changed through writing and reading");
    let players = league.header.players.len();
    for (a, b) in league.header.matchups() {
        assert!(a < players && b < players, "matchup ({a}, {b}) outside the {players} players");
    }
    for p in &league.pairs {
        assert!(p.a < players && p.b < players && p.pair < league.header.pairs, "a pair outside the league was read: {p:?}");
    }
    if league.pairs.len() <= MAX_RATED {
        let _ = league.ratings(&Anchor::Mean(0.0));
    }
    true
}

/// The longest protocol line a check reads: lines above it are refused as
/// the engines refuse lines above [`pacozero_protocol::lines::MAX_LINE_BYTES`],
/// and a fuzzer's input stays small.
const FUZZ_LINE_BYTES: usize = 4096;

/// The text lines of `data` as the engines read them; a line that is too
/// long or not UTF-8 must say what is wrong with it.
fn protocol_lines(data: &[u8]) -> Vec<(usize, String)> {
    let mut reader = LineReader::with_limit(data, FUZZ_LINE_BYTES);
    let mut lines = Vec::new();
    while let Some((number, line)) = reader.next_line().expect("a slice always reads") {
        match line {
            InputLine::Text(text) => lines.push((number, text)),
            refused => assert!(refused.problem(number).is_some_and(|p| p.contains(&format!("line {number}"))), "a refused line {number} without its problem"),
        }
    }
    lines
}

/// Any bytes as the input of `pacozero uci`: each line is refused with a
/// message or read into a command; a `position` is read against both
/// games as the engine reads it; a `go` gives, for either side and move
/// overhead, limits of at least one and at most the cap's visits, no more
/// time than its `movetime` or four fifths of the mover's clock, and a
/// deadline or none (never a panic). Returns whether a line was a command.
pub fn uci_lines(data: &[u8]) -> bool {
    const VISIT_CAP: u32 = 1000;
    let mut commands = false;
    for (_, text) in protocol_lines(data) {
        let command = match parse_command(&text) {
            Ok(Some(c)) => c,
            Ok(None) => continue,
            Err(message) => {
                assert!(!message.is_empty(), "a refused command without a message: {text:?}");
                continue;
            }
        };
        commands = true;
        match command {
            Command::Position(p) => {
                /// Reads the position in one game (any result: it must not panic).
                fn position_in<G: Game>(p: &PositionCommand) {
                    let _ = position_of::<G>(p);
                }
                for kind in GameKind::ALL {
                    pacozero_engine::with_game!(kind, G => position_in::<G>(&p));
                }
            }
            Command::Go(go) => {
                for (mover, clock) in [(Color::White, go.wtime), (Color::Black, go.btime)] {
                    for overhead in [0, 30, u64::MAX] {
                        let limits = search_limits(&go, mover, overhead, 800, VISIT_CAP);
                        assert!((1..=VISIT_CAP).contains(&limits.visits), "{text:?}: {} visits", limits.visits);
                        let ms = limits.time.map(|t| t.as_millis());
                        if let (Some(ms), Some(movetime)) = (ms, go.movetime) {
                            assert!(ms <= u128::from(movetime), "{text:?}: {ms} ms, more than its movetime");
                        }
                        if let (Some(ms), Some(clock)) = (ms, clock) {
                            assert!(ms <= u128::from(clock) * 4 / 5, "{text:?}: {ms} ms of a clock of {clock}");
                        }
                        assert!(!limits.infinite || limits.time.is_none(), "{text:?}: an infinite search with a time");
                        let _ = deadline(std::time::Instant::now(), limits.time);
                    }
                }
            }
            _ => {}
        }
    }
    commands
}

/// Any bytes as the input of `pacozero analysis`: each line is refused
/// with an error that gives its number, or read, for either game, into a
/// query of at least one and at most the cap's visits whose position is
/// not over, a termination, or a blank. Returns whether a line was read as
/// a query or a termination.
pub fn analysis_lines(data: &[u8]) -> bool {
    /// Reads one line in one game: whether it was a query or a termination.
    fn check<G: Game>(text: &str, number: usize, opts: &ServeOptions) -> bool {
        match parse_line::<G>(text, number, opts) {
            Ok(Line::Query(q)) => {
                assert!((1..=opts.visit_cap).contains(&q.max_visits), "{text:?}: {} visits", q.max_visits);
                assert!(q.state.outcome().is_none(), "{text:?}: a query of a finished game");
                true
            }
            Ok(Line::Terminate(_) | Line::TerminateAll) => true,
            Ok(Line::Blank) => false,
            Err(e) => {
                assert!(e.message.contains(&format!("line {number}")), "{text:?}: an error without the line's number: {}", e.message);
                false
            }
        }
    }
    let opts = ServeOptions { visit_cap: 10_000, ..ServeOptions::default() };
    let mut read = false;
    for (number, text) in protocol_lines(data) {
        for kind in GameKind::ALL {
            read |= pacozero_engine::with_game!(kind, G => check::<G>(&text, number, &opts));
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_values_are_the_same_up_to_the_last_bits_of_their_floats() {
        let a = json!({"t": [0.9501024587333332, 2], "n": "x"});
        assert!(same_json(&a, &json!({"t": [0.9501024587333333, 2], "n": "x"})));
        assert!(!same_json(&a, &json!({"t": [0.95010245873, 2], "n": "x"})));
        assert!(!same_json(&a, &json!({"t": [0.9501024587333332, 3], "n": "x"})));
        assert!(!same_json(&a, &json!({"t": [0.9501024587333332, 2], "n": "y"})));
        assert!(!same_json(&a, &json!({"t": [0.9501024587333332, 2]})));
    }
}
