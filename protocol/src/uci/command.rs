//! Reading one line of the UCI protocol into a [`Command`]; the error names
//! what is wrong. Game-specific parts (a FEN, the moves) stay text here and
//! are read against the game by the server.

/// What one input line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    /// `register ...`: nothing to register; accepted and ignored.
    Register,
    UciNewGame,
    Position(PositionCommand),
    Go(GoParams),
    Stop,
    /// Accepted and ignored: the engine does not ponder.
    PonderHit,
    Quit,
}

/// `position startpos|fen <FEN> [moves <m1> <m2> ...]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionCommand {
    /// The FEN's fields joined by single spaces; `None` for `startpos`.
    pub fen: Option<String>,
    /// The moves, one token each (a whole turn each).
    pub moves: Vec<String>,
}

/// The parameters of `go`. Times are milliseconds (a negative clock, which
/// some interfaces send once a flag has fallen, reads as 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<u64>,
    pub infinite: bool,
}

impl std::fmt::Display for GoParams {
    /// `go` and the parameters set, in the order of the struct: the line
    /// [`parse_command`] reads back to these parameters (a client's `go`,
    /// as the arena sends it to an outside engine).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("go")?;
        let numbers = [
            ("wtime", self.wtime),
            ("btime", self.btime),
            ("winc", self.winc),
            ("binc", self.binc),
            ("movestogo", self.movestogo.map(u64::from)),
            ("depth", self.depth.map(u64::from)),
            ("nodes", self.nodes),
            ("movetime", self.movetime),
        ];
        for (key, value) in numbers {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if self.infinite {
            f.write_str(" infinite")?;
        }
        Ok(())
    }
}

/// Reads one line; `Ok(None)` for a blank one.
pub fn parse_command(line: &str) -> Result<Option<Command>, String> {
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else { return Ok(None) };
    let rest: Vec<&str> = words.collect();
    let no_arguments = |c: Command| if rest.is_empty() { Ok(Some(c)) } else { Err(format!("`{first}` takes no arguments, got `{}`", rest.join(" "))) };
    match first {
        "uci" => no_arguments(Command::Uci),
        "isready" => no_arguments(Command::IsReady),
        "ucinewgame" => no_arguments(Command::UciNewGame),
        "stop" => no_arguments(Command::Stop),
        "ponderhit" => no_arguments(Command::PonderHit),
        "quit" => no_arguments(Command::Quit),
        "register" => Ok(Some(Command::Register)),
        "debug" => match rest.as_slice() {
            ["on"] => Ok(Some(Command::Debug(true))),
            ["off"] => Ok(Some(Command::Debug(false))),
            _ => Err(format!("`debug` takes `on` or `off`, got `{}`", rest.join(" "))),
        },
        "setoption" => parse_setoption(&rest).map(Some),
        "position" => parse_position(&rest).map(|p| Some(Command::Position(p))),
        "go" => parse_go(&rest).map(|g| Some(Command::Go(g))),
        other => Err(format!(
            "unknown command `{other}` (the commands are uci, debug, isready, setoption, register, ucinewgame, position, go, stop, ponderhit and quit)"
        )),
    }
}

/// `setoption name <id> [value <x>]`: the name and the value may hold spaces.
fn parse_setoption(words: &[&str]) -> Result<Command, String> {
    if words.first() != Some(&"name") {
        return Err("`setoption` needs `name <option> [value <value>]`".into());
    }
    let value_at = words.iter().position(|&w| w == "value");
    let name = words[1..value_at.unwrap_or(words.len())].join(" ");
    if name.is_empty() {
        return Err("`setoption`: the option's name is missing after `name`".into());
    }
    let value = value_at.map(|i| words[i + 1..].join(" "));
    Ok(Command::SetOption { name, value })
}

fn parse_position(words: &[&str]) -> Result<PositionCommand, String> {
    let moves_at = words.iter().position(|&w| w == "moves");
    let setup = &words[..moves_at.unwrap_or(words.len())];
    let moves: Vec<String> = moves_at.map(|i| words[i + 1..].iter().map(|m| m.to_string()).collect()).unwrap_or_default();
    let fen = match setup {
        ["startpos"] => None,
        ["fen"] => return Err("`position fen` needs a FEN".into()),
        ["fen", fields @ ..] => Some(fields.join(" ")),
        [] => return Err("`position` needs `startpos` or `fen <FEN>`, then optionally `moves ...`".into()),
        [other, ..] => return Err(format!("`position`: expected `startpos` or `fen <FEN>`, got `{}`", other)),
    };
    Ok(PositionCommand { fen, moves })
}

fn parse_go(words: &[&str]) -> Result<GoParams, String> {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < words.len() {
        let key = words[i];
        let number = |i: usize| -> Result<i64, String> {
            let text = words.get(i + 1).ok_or_else(|| format!("`go {key}` needs a number"))?;
            text.parse::<i64>().map_err(|_| format!("`go {key}` needs a whole number, got `{text}`"))
        };
        let positive = |n: i64| -> Result<u64, String> {
            if n > 0 {
                Ok(n as u64)
            } else {
                Err(format!("`go {key}` must be at least 1, got {n}"))
            }
        };
        match key {
            "infinite" => {
                go.infinite = true;
                i += 1;
                continue;
            }
            "wtime" => go.wtime = Some(number(i)?.max(0) as u64),
            "btime" => go.btime = Some(number(i)?.max(0) as u64),
            "winc" => go.winc = Some(number(i)?.max(0) as u64),
            "binc" => go.binc = Some(number(i)?.max(0) as u64),
            "movestogo" => go.movestogo = Some(positive(number(i)?)?.min(u32::MAX as u64) as u32),
            "depth" => go.depth = Some(positive(number(i)?)?.min(u32::MAX as u64) as u32),
            "nodes" => go.nodes = Some(positive(number(i)?)?),
            "movetime" => go.movetime = Some(positive(number(i)?)?),
            "ponder" => return Err("`go ponder` is not supported: this engine does not ponder".into()),
            "searchmoves" | "mate" => return Err(format!("`go {key}` is not supported")),
            other => {
                return Err(format!("`go`: unknown parameter `{other}` (expected wtime, btime, winc, binc, movestogo, depth, nodes, movetime or infinite)"))
            }
        }
        i += 2;
    }
    Ok(go)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_parameters_written_read_back_the_same() {
        let all = GoParams {
            wtime: Some(1000),
            btime: Some(0),
            winc: Some(10),
            binc: Some(20),
            movestogo: Some(30),
            depth: Some(4),
            nodes: Some(500),
            movetime: Some(60),
            infinite: true,
        };
        assert_eq!(all.to_string(), "go wtime 1000 btime 0 winc 10 binc 20 movestogo 30 depth 4 nodes 500 movetime 60 infinite");
        let clock = GoParams { wtime: Some(734), btime: Some(734), winc: Some(100), binc: Some(100), ..GoParams::default() };
        for go in [all, clock, GoParams { nodes: Some(1), ..GoParams::default() }, GoParams::default()] {
            assert_eq!(parse_command(&go.to_string()), Ok(Some(Command::Go(go.clone()))), "{go}");
        }
    }

    #[test]
    fn commands_read_with_their_arguments() {
        assert_eq!(parse_command("  "), Ok(None));
        assert_eq!(parse_command("uci"), Ok(Some(Command::Uci)));
        assert_eq!(parse_command("debug on"), Ok(Some(Command::Debug(true))));
        assert_eq!(
            parse_command("setoption name Move Overhead value 100"),
            Ok(Some(Command::SetOption { name: "Move Overhead".into(), value: Some("100".into()) }))
        );
        assert_eq!(
            parse_command("setoption name Model value /a b/c.pzmodel"),
            Ok(Some(Command::SetOption { name: "Model".into(), value: Some("/a b/c.pzmodel".into()) }))
        );
        assert_eq!(parse_command("setoption name Clear Hash"), Ok(Some(Command::SetOption { name: "Clear Hash".into(), value: None })));
        assert_eq!(parse_command("position startpos"), Ok(Some(Command::Position(PositionCommand { fen: None, moves: vec![] }))));
        assert_eq!(
            parse_command("position fen 9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1 moves a2a10"),
            Ok(Some(Command::Position(PositionCommand { fen: Some("9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1".into()), moves: vec!["a2a10".into()] })))
        );
        let go = parse_command("go wtime 1000 btime -5 winc 10 binc 10 movestogo 20").unwrap().unwrap();
        assert_eq!(go, Command::Go(GoParams { wtime: Some(1000), btime: Some(0), winc: Some(10), binc: Some(10), movestogo: Some(20), ..GoParams::default() }));
        assert_eq!(parse_command("go infinite"), Ok(Some(Command::Go(GoParams { infinite: true, ..GoParams::default() }))));
        assert_eq!(parse_command("debug off"), Ok(Some(Command::Debug(false))));
        // `infinite` takes no number: what follows it is read on.
        assert_eq!(parse_command("go infinite nodes 100"), Ok(Some(Command::Go(GoParams { infinite: true, nodes: Some(100), ..GoParams::default() }))));
        assert_eq!(parse_command("go nodes 100 movetime 50"), Ok(Some(Command::Go(GoParams { nodes: Some(100), movetime: Some(50), ..GoParams::default() }))));
    }

    #[test]
    fn bad_lines_name_what_is_wrong() {
        for (line, needle) in [
            ("frobnicate", "unknown command `frobnicate`"),
            ("isready now", "takes no arguments"),
            ("debug maybe", "`debug` takes `on` or `off`"),
            ("setoption Threads 2", "needs `name"),
            ("setoption name", "name is missing"),
            ("position", "needs `startpos` or `fen"),
            ("position fen", "needs a FEN"),
            ("position middle moves e2e4", "got `middle`"),
            ("go nodes", "`go nodes` needs a number"),
            ("go nodes ten", "got `ten`"),
            ("go nodes 0", "at least 1"),
            ("go movetime -3", "at least 1"),
            ("go ponder", "does not ponder"),
            ("go fast", "unknown parameter `fast`"),
        ] {
            let e = parse_command(line).expect_err(line);
            assert!(e.contains(needle), "{line}: {e}");
        }
    }
}
