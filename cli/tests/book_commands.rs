//! Every `pacozero` command shown in the book's shell code blocks is checked
//! against the command line: the user chapters (docs/SUMMARY.md's parts
//! before "For contributors") and the README. Each command is parsed by the
//! binary's own clap definitions (`cli/src/args/`), so a misspelt flag or
//! subcommand fails here with the file and line. The commands that take
//! seconds ([`RUN`], and every `--help`) are also run, in a temporary
//! directory with a time limit.
//!
//! A command is what a shell would run: `\` continuations are joined, a
//! `$ ` prompt marks the commands of a block that shows output, and of
//! `FOO=1 pacozero ...`, `... | pacozero ...` or `exec "${PACOZERO:-pacozero}" ...`
//! only the pacozero part is taken. Variables and placeholders get the
//! values of [`VARIABLES`] and [`PLACEHOLDERS`]. A usage line's optional
//! `[--flag X]` is checked with the flag, and each alternative of
//! `(A | B)` and `paco|shako` is checked on its own.

mod common;

#[allow(dead_code)]
#[path = "../src/args/mod.rs"]
mod args;

use clap::{CommandFactory, FromArgMatches};
use common::{bin_path, manifest_dir};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The code blocks checked, by their language.
const SHELLS: &[&str] = &["sh", "bash", "console", "shell"];

/// Paco Ŝako's start position, for `<FEN>` and `F`.
const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -";

/// Values of the shell variables the book's commands use (a variable a
/// block assigns, `REF=...`, has that value instead). A variable in neither
/// fails the test, so that a new one is given a value here on purpose.
const VARIABLES: &[(&str, &str)] =
    &[("HOME", "home"), ("PACOZERO_STORE", "s3://bucket/runs/paco-1"), ("PACOZERO_EVAL_CONFIG", "configs/quick.toml"), ("SLURM_ARRAY_TASK_ID", "0")];

/// The words of the usage lines that stand for a value (`--depth N`), and a
/// value that the command line reads.
const PLACEHOLDERS: &[(&str, &str)] = &[
    ("<FEN>", START_FEN),
    ("F", START_FEN),
    ("N", "2"),
    ("K", "1"),
    ("M", "ref:quick-199eb03-gen28"),
    ("B", "book.parquet"),
    ("REF", "cli/tests/data/platform_book_kinds.json"),
    ("FILE", "out.json"),
];

/// What `$(...)` stands for.
const COMMAND_OUTPUT: &str = "command-output";

/// The subcommands that run for real (each takes seconds on the inputs the
/// book gives them, or on [`FIXTURES`]); the others are only parsed. Every
/// `--help` runs too.
const RUN: &[&str] = &["show", "legal", "perft", "book import", "book probe", "book export", "games export", "config --config"];

/// Deepest `perft --depth` that runs (deeper ones take minutes; they are parsed).
const PERFT_MAX_DEPTH: u32 = 3;

/// How long a command that runs may take.
const TIMEOUT: Duration = Duration::from_secs(180);

/// Inputs the commands that run read, made in their directory when a
/// command names one that is not there: a file's text, or the pacozero
/// command that writes it.
const FIXTURES: &[(&str, Fixture)] = &[
    // The training file the scale-out jobs read: the repository's, copied.
    ("train.toml", Fixture::Text(include_str!("../../configs/train.toml"))),
    ("positions.jsonl", Fixture::Text("{\"fen\": \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -\"}\n")),
    ("book.parquet", Fixture::Made(&["book", "import", "--format", "platform", "cli/tests/data/platform_book_kinds.json", "--out", "book.parquet"])),
    (
        "runs/quick-shako/ladder-games",
        Fixture::Made(&[
            "arena",
            "--game",
            "shako",
            "--players",
            "greedy",
            "greedy",
            "--games",
            "2",
            "--max-decisions",
            "40",
            "--record",
            "runs/quick-shako/ladder-games",
        ]),
    ),
];

/// The checkout's folders that the commands' relative paths name, linked
/// into the directory they run in.
const LINKED: &[&str] = &["cli", "configs", "models"];

/// How a fixture is made.
enum Fixture {
    Text(&'static str),
    Made(&'static [&'static str]),
}

/// A `pacozero` command of the book.
#[derive(Clone, Debug)]
struct BookCommand {
    /// `file:line` of its first line.
    at: String,
    /// `NAME=value` words before it.
    env: Vec<(String, String)>,
    /// Its arguments, after `pacozero`.
    args: Vec<String>,
    /// The file of `< file`.
    stdin: Option<String>,
}

impl BookCommand {
    /// The command as a shell line (arguments with spaces or quotes quoted).
    fn shown(&self) -> String {
        let quoted = |a: &String| if a.is_empty() || a.contains(|c: char| c.is_whitespace() || "'\"$|&;<>".contains(c)) { format!("'{a}'") } else { a.clone() };
        format!("pacozero {}", self.args.iter().map(quoted).collect::<Vec<_>>().join(" "))
    }
}

// --- Finding the commands -----------------------------------------------------

fn repo_root() -> PathBuf {
    manifest_dir().parent().unwrap().to_path_buf()
}

/// The user chapters: the files docs/SUMMARY.md lists before
/// `# For contributors`, and the README; paths from the repository root.
fn user_chapters() -> Vec<String> {
    let summary = std::fs::read_to_string(repo_root().join("docs/SUMMARY.md")).unwrap();
    let user = summary.split("\n# For contributors").next().unwrap();
    assert_ne!(user.len(), summary.len(), "docs/SUMMARY.md has no `# For contributors` part");
    let mut files = vec!["README.md".to_string()];
    for piece in user.split("](").skip(1) {
        let target = piece.split(')').next().unwrap().split('#').next().unwrap();
        let path = format!("docs/{target}");
        if target.ends_with(".md") && !files.contains(&path) {
            files.push(path);
        }
    }
    files
}

/// Every `pacozero` command of the user chapters.
fn book_commands() -> Vec<BookCommand> {
    let mut commands = Vec::new();
    for file in user_chapters() {
        let text = std::fs::read_to_string(repo_root().join(&file)).unwrap_or_else(|e| panic!("reading {file}: {e}"));
        commands.extend(commands_in(&file, &text));
    }
    commands
}

/// The `pacozero` commands of the shell blocks of `text` (the file `file`).
fn commands_in(file: &str, text: &str) -> Vec<BookCommand> {
    let mut commands = Vec::new();
    for (first, block) in shell_blocks(text) {
        let mut vars: Vec<(String, String)> = Vec::new();
        for (offset, line) in logical_lines(&block) {
            let at = format!("{file}:{}", first + offset);
            let line = expand(&strip_comment(&line), &vars);
            for segment in segments(&line.text) {
                if let Some(assigned) = assignments(&segment.words) {
                    vars.extend(assigned);
                    continue;
                }
                let Some(command) = pacozero_command(&at, &segment) else { continue };
                assert!(
                    line.unknown.is_empty(),
                    "{at}: {}: no value for ${}: add it to VARIABLES in cli/tests/book_commands.rs",
                    line.text.trim(),
                    line.unknown.join(", $")
                );
                commands.extend(command);
            }
        }
    }
    commands
}

/// The fenced shell blocks of a Markdown text: the line number of each
/// one's first line and its lines.
fn shell_blocks(text: &str) -> Vec<(usize, Vec<String>)> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, bool, Vec<String>)> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => {
                let language = info.split(|c: char| c == ',' || c == '{' || c.is_whitespace()).next().unwrap_or("");
                open = Some((i + 2, SHELLS.contains(&language), Vec::new()));
            }
            (Some(_), Some(_)) => {
                let (first, shell, lines) = open.take().unwrap();
                if shell {
                    blocks.push((first, lines));
                }
            }
            (Some((_, _, lines)), None) => lines.push(line.to_string()),
            (None, None) => {}
        }
    }
    blocks
}

/// The block's command lines with their `\` continuations joined, each with
/// its first line's offset in the block. In a block with `$ ` prompts only
/// the prompted lines are commands (the others are output).
fn logical_lines(block: &[String]) -> Vec<(usize, String)> {
    let prompted = block.iter().any(|l| l.trim_start().starts_with("$ "));
    let mut lines = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, raw) in block.iter().enumerate() {
        let text = match current.take() {
            Some((start, mut joined)) => {
                joined.push(' ');
                joined.push_str(raw.trim());
                (start, joined)
            }
            None if prompted => match raw.trim_start().strip_prefix("$ ") {
                Some(command) => (i, command.to_string()),
                None => continue,
            },
            None => (i, raw.trim().to_string()),
        };
        match text.1.strip_suffix('\\') {
            Some(open) => current = Some((text.0, open.trim_end().to_string())),
            None => lines.push(text),
        }
    }
    lines.extend(current);
    lines
}

/// The line without its `#` comment (a `#` that starts a word, outside quotes).
fn strip_comment(line: &str) -> String {
    let mut quote = None;
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '#') if previous.is_whitespace() => return line[..i].to_string(),
            _ => {}
        }
        previous = c;
    }
    line.to_string()
}

/// A line with its variables expanded, and the variables that had no value.
struct Expanded {
    text: String,
    unknown: Vec<String>,
}

/// The line with `$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME:?message}`
/// and `$(...)` replaced (outside single quotes). `${NAME:+words}` gives its
/// words: the book's scripts pass optional flags that way, and they are
/// checked too.
fn expand(line: &str, vars: &[(String, String)]) -> Expanded {
    let value = |name: &str| {
        vars.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.clone()).or_else(|| VARIABLES.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string()))
    };
    let chars: Vec<char> = line.chars().collect();
    let (mut text, mut unknown) = (String::new(), Vec::new());
    let (mut i, mut single) = (0, false);
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' && !inside_double_quotes(&chars[..i]) {
            single = !single;
        }
        if c != '$' || single || i + 1 == chars.len() {
            text.push(c);
            i += 1;
            continue;
        }
        let (replacement, end) = match chars[i + 1] {
            '(' => (COMMAND_OUTPUT.to_string(), closing(&chars, i + 1, '(', ')')),
            '{' => {
                let end = closing(&chars, i + 1, '{', '}');
                let inner: String = chars[i + 2..end - 1].iter().collect();
                let name: String = inner.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let rest = &inner[name.len()..];
                let nested = |t: &str, unknown: &mut Vec<String>| {
                    let e = expand(t, vars);
                    unknown.extend(e.unknown);
                    e.text
                };
                let replacement = if let Some(default) = rest.strip_prefix(":-") {
                    value(&name).unwrap_or_else(|| nested(default, &mut unknown))
                } else if let Some(words) = rest.strip_prefix(":+") {
                    nested(words, &mut unknown)
                } else {
                    value(&name).unwrap_or_else(|| {
                        unknown.push(name.clone());
                        String::new()
                    })
                };
                (replacement, end)
            }
            _ => {
                let name: String = chars[i + 1..].iter().take_while(|c| c.is_alphanumeric() || **c == '_').collect();
                if name.is_empty() {
                    text.push(c);
                    i += 1;
                    continue;
                }
                let replacement = value(&name).unwrap_or_else(|| {
                    unknown.push(name.clone());
                    String::new()
                });
                (replacement, i + 1 + name.len())
            }
        };
        text.push_str(&replacement);
        i = end;
    }
    Expanded { text, unknown }
}

fn inside_double_quotes(before: &[char]) -> bool {
    let mut single = false;
    let mut double = false;
    for &c in before {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ => {}
        }
    }
    double
}

/// The index after the bracket that closes the one at `open`.
fn closing(chars: &[char], open: usize, left: char, right: char) -> usize {
    let mut depth = 0;
    for (i, &c) in chars.iter().enumerate().skip(open) {
        if c == left {
            depth += 1;
        } else if c == right {
            depth -= 1;
            if depth == 0 {
                return i + 1;
            }
        }
    }
    panic!("unclosed {left} in {}", chars.iter().collect::<String>())
}

/// A word of a command line. `quoted` if any of it was in quotes; a
/// `marker` is a usage line's `[`, `]`, `(`, `)` or a lone `|` between
/// alternatives.
#[derive(Clone, Debug, PartialEq)]
struct Word {
    text: String,
    quoted: bool,
    marker: bool,
}

/// One simple command: its words, and the file of its `<` redirection.
#[derive(Debug, Default)]
struct Segment {
    words: Vec<Word>,
    stdin: Option<String>,
}

/// Splits a line into simple commands, word by word.
#[derive(Default)]
struct Lexer {
    segments: Vec<Segment>,
    word: String,
    quoted: bool,
    started: bool,
    /// `<` or `>` waiting for its file.
    redirect: Option<char>,
    /// Depth of a usage line's `[` and `(`.
    depth: usize,
}

impl Lexer {
    fn end_word(&mut self) {
        if !self.started {
            return;
        }
        let text = std::mem::take(&mut self.word);
        let segment = self.segments.last_mut().unwrap();
        match self.redirect.take() {
            Some('<') => segment.stdin = Some(text),
            Some(_) => {}
            None => {
                let marker = !self.quoted && self.depth > 0 && text == "|";
                segment.words.push(Word { text, quoted: self.quoted, marker });
            }
        }
        self.quoted = false;
        self.started = false;
    }

    fn marker(&mut self, c: char) {
        self.end_word();
        self.segments.last_mut().unwrap().words.push(Word { text: c.to_string(), quoted: false, marker: true });
    }

    fn push(&mut self, c: char) {
        self.word.push(c);
        self.started = true;
    }
}

/// The simple commands of a line, split at `|`, `||`, `&&`, `;` and `&`
/// outside quotes, with their `<`, `>` and `>>` redirections taken out.
/// A usage line's `[`, `(` (at the start of a word) and their closing
/// brackets are markers; inside them `|` separates alternatives.
fn segments(line: &str) -> Vec<Segment> {
    let mut lex = Lexer { segments: vec![Segment::default()], ..Lexer::default() };
    let chars: Vec<char> = line.chars().collect();
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => lex.push(c),
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    lex.quoted = true;
                    lex.started = true;
                }
                c if c.is_whitespace() => lex.end_word(),
                '[' | '(' if !lex.started => {
                    lex.depth += 1;
                    lex.marker(c);
                }
                ']' | ')' if lex.depth > 0 => {
                    lex.depth -= 1;
                    lex.marker(c);
                }
                '|' if lex.depth > 0 => lex.push(c),
                '|' | '&' | ';' => {
                    lex.end_word();
                    if chars.get(i + 1) == Some(&c) {
                        i += 1;
                    }
                    lex.segments.push(Segment::default());
                }
                '<' | '>' => {
                    lex.end_word();
                    if chars.get(i + 1) == Some(&'>') {
                        i += 1;
                    }
                    lex.redirect = Some(c);
                }
                _ => lex.push(c),
            },
        }
        i += 1;
    }
    lex.end_word();
    lex.segments.retain(|s| !s.words.is_empty());
    lex.segments
}

/// `NAME=value` (the name unquoted).
fn assignment(word: &Word) -> Option<(String, String)> {
    let (name, value) = word.text.split_once('=')?;
    let is_name = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit());
    is_name.then(|| (name.to_string(), value.to_string()))
}

/// The variables a command of only assignments (`REF=...`, `export A=1 B=2`) sets.
fn assignments(words: &[Word]) -> Option<Vec<(String, String)>> {
    let words = if words[0].text == "export" { &words[1..] } else { words };
    words.iter().map(assignment).collect::<Option<Vec<_>>>().filter(|a| !a.is_empty())
}

/// The pacozero commands a simple command stands for (one per alternative
/// of a usage line), or `None` when it runs another program.
fn pacozero_command(at: &str, segment: &Segment) -> Option<Vec<BookCommand>> {
    let mut words = segment.words.as_slice();
    let mut env = Vec::new();
    while let Some(pair) = words.first().and_then(assignment) {
        env.push(pair);
        words = &words[1..];
    }
    if words.first().is_some_and(|w| w.text == "exec") {
        words = &words[1..];
    }
    let program = words.first()?;
    if program.text.rsplit('/').next() != Some("pacozero") {
        return None;
    }
    let commands =
        alternatives(&words[1..]).into_iter().map(|args| BookCommand { at: at.to_string(), env: env.clone(), args, stdin: segment.stdin.clone() }).collect();
    Some(commands)
}

/// A usage line's arguments, one list per choice of its alternatives:
/// `[X]` is taken with X, `(A | B)` and `a|b` give a list for each side;
/// placeholders get their values.
fn alternatives(words: &[Word]) -> Vec<Vec<String>> {
    let Some((first, rest)) = words.split_first() else { return vec![vec![]] };
    let (choices, rest): (Vec<Vec<String>>, &[Word]) = if first.marker && (first.text == "[" || first.text == "(") {
        let end = group_end(words);
        let inner = &words[1..end];
        let choices = inner.split(|w| w.marker && w.text == "|").flat_map(alternatives).collect();
        (choices, &words[end + 1..])
    } else if first.quoted {
        (vec![vec![placeholder(&first.text)]], rest)
    } else {
        (first.text.split('|').map(|a| vec![placeholder(a)]).collect(), rest)
    };
    let tails = alternatives(rest);
    choices.iter().flat_map(|c| tails.iter().map(move |t| c.iter().chain(t).cloned().collect())).collect()
}

/// The index of the marker that closes the group `words[0]` opens.
fn group_end(words: &[Word]) -> usize {
    let mut depth = 0;
    for (i, w) in words.iter().enumerate().filter(|(_, w)| w.marker) {
        match w.text.as_str() {
            "[" | "(" => depth += 1,
            "]" | ")" => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return i;
        }
    }
    panic!("a usage line's {} is not closed", words[0].text)
}

fn placeholder(word: &str) -> String {
    PLACEHOLDERS.iter().find(|(p, _)| *p == word).map_or(word, |(_, v)| v).to_string()
}

// --- Checking them ------------------------------------------------------------

/// clap's error for the arguments, as the binary parses them (`None`: they
/// parse; `--help` and `--version` count as parsing).
fn parse_error(args: &[String]) -> Option<String> {
    let argv = std::iter::once("pacozero".to_string()).chain(args.iter().cloned());
    match args::Cli::command().try_get_matches_from(argv) {
        Ok(matches) => args::Cli::from_arg_matches(&matches).err().map(|e| e.to_string()),
        Err(e) if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion) => None,
        Err(e) => Some(e.to_string()),
    }
}

/// Whether the command runs for real (see [`RUN`]).
fn runs(args: &[String]) -> bool {
    if args.iter().any(|a| a == "--help" || a == "-h") || args.first().is_some_and(|a| a == "help") {
        return true;
    }
    let listed = RUN.iter().any(|r| {
        let words: Vec<&str> = r.split(' ').collect();
        args.len() >= words.len() && args.iter().zip(&words).all(|(a, w)| a == w)
    });
    let depth = args.iter().position(|a| a == "--depth").and_then(|i| args.get(i + 1)).and_then(|d| d.parse::<u32>().ok());
    listed && (args[0] != "perft" || depth.is_some_and(|d| d <= PERFT_MAX_DEPTH))
}

/// A directory to run a chapter's commands in, with the checkout's folders
/// that they name linked into it.
fn run_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in LINKED {
        std::os::unix::fs::symlink(repo_root().join(name), dir.path().join(name)).unwrap();
    }
    dir
}

/// Runs `pacozero args` in `dir` with a time limit; the error says how it failed.
fn run_in(dir: &Path, args: &[String], env: &[(String, String)], stdin: Option<&str>) -> Result<(), String> {
    let log = |name: &str| std::fs::File::create(dir.join(name)).unwrap();
    let input = match stdin {
        Some(file) => Stdio::from(std::fs::File::open(dir.join(file)).map_err(|e| format!("opening its input {file}: {e}"))?),
        None => Stdio::null(),
    };
    let mut child = Command::new(bin_path())
        .args(args)
        .envs(env.iter().cloned())
        .current_dir(dir)
        .stdin(input)
        .stdout(log(".stdout"))
        .stderr(log(".stderr"))
        .spawn()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {} s", TIMEOUT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if status.success() {
        return Ok(());
    }
    let stderr = std::fs::read_to_string(dir.join(".stderr")).unwrap_or_default();
    let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
    Err(format!("{status}: {}", tail.into_iter().rev().collect::<Vec<_>>().join("\n    ")))
}

/// Makes the [`FIXTURES`] that `command` names and `dir` lacks.
fn make_fixtures(dir: &Path, command: &BookCommand) {
    for (path, fixture) in FIXTURES {
        let named = command.args.iter().chain(&command.stdin).any(|a| a == path);
        if !named || dir.join(path).exists() {
            continue;
        }
        match fixture {
            Fixture::Text(text) => std::fs::write(dir.join(path), text).unwrap(),
            Fixture::Made(args) => {
                let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                run_in(dir, &args, &[], None).unwrap_or_else(|e| panic!("making {path} for {}: pacozero {}: {e}", command.at, args.join(" ")));
            }
        }
    }
}

#[test]
fn every_command_of_the_book_parses() {
    let commands = book_commands();
    assert!(commands.len() >= 20, "only {} pacozero commands found in the book's shell blocks: is the extraction broken?", commands.len());
    let failures: Vec<String> =
        commands.iter().filter_map(|c| parse_error(&c.args).map(|e| format!("{}: `{}`:\n    {}", c.at, c.shown(), e.trim().replace('\n', "\n    ")))).collect();
    assert!(failures.is_empty(), "{} of the book's {} pacozero commands do not parse:\n{}", failures.len(), commands.len(), failures.join("\n"));
}

#[test]
fn the_quick_commands_of_the_book_run() {
    let commands: Vec<BookCommand> = book_commands().into_iter().filter(|c| runs(&c.args) && parse_error(&c.args).is_none()).collect();
    assert!(!commands.is_empty(), "none of the book's commands is one that runs (RUN): is the extraction broken?");
    let mut failures = Vec::new();
    // One directory per chapter: a chapter's commands may read what its
    // earlier ones wrote.
    let mut dirs: Vec<(String, tempfile::TempDir)> = Vec::new();
    for command in &commands {
        let file = command.at.split(':').next().unwrap().to_string();
        if dirs.last().is_none_or(|(f, _)| *f != file) {
            dirs.push((file, run_dir()));
        }
        let dir = dirs.last().unwrap().1.path();
        make_fixtures(dir, command);
        eprintln!("{}: running {}", command.at, command.shown());
        if let Err(e) = run_in(dir, &command.args, &command.env, command.stdin.as_deref()) {
            failures.push(format!("{}: `{}`: {e}", command.at, command.shown()));
        }
    }
    assert!(failures.is_empty(), "{} of the {} book commands that run failed:\n{}", failures.len(), commands.len(), failures.join("\n"));
}

// --- The reader itself ----------------------------------------------------------

fn args_of(commands: &[BookCommand]) -> Vec<String> {
    commands.iter().map(|c| format!("{} {}", c.at, c.args.join(" "))).collect()
}

#[test]
fn the_reader_takes_the_pacozero_part_of_shell_lines() {
    let page = r#"Text.

```sh
# a comment naming pacozero
REF=ref.json    # a variable
pacozero book compare --reference $REF \
    --book b.parquet
FOO=1 pacozero show --fen "<FEN>" | head -3 && pacozero perft --depth N [--atomic]
printf '{}\n' | target/release/pacozero legal < in.jsonl > out.txt
exec "${PACOZERO:-pacozero}" selfplay --worker "$SLURM_ARRAY_TASK_ID" ${X:+--quiet}
pacozero analyze --model M [--game paco|shako]
pacozero book compare --reference REF (--model M --visits N | --book B)
pacozero show --fen "<FEN>" [--actions "Le2 Pe4"]
mdbook build docs -d /tmp/pacozero-target/book
```

```text
pacozero not-a-shell-block
```

```console
$ pacozero games export dir \
    --out x.pgn
pacozero output-not-a-command
```
"#;
    let commands = commands_in("page.md", page);
    let fen = START_FEN;
    assert_eq!(
        args_of(&commands),
        [
            "page.md:6 book compare --reference ref.json --book b.parquet".to_string(),
            format!("page.md:8 show --fen {fen}"),
            "page.md:8 perft --depth 2 --atomic".into(),
            "page.md:9 legal".into(),
            "page.md:10 selfplay --worker 0 --quiet".into(),
            "page.md:11 analyze --model ref:quick-199eb03-gen28 --game paco".into(),
            "page.md:11 analyze --model ref:quick-199eb03-gen28 --game shako".into(),
            "page.md:12 book compare --reference cli/tests/data/platform_book_kinds.json --model ref:quick-199eb03-gen28 --visits 2".into(),
            "page.md:12 book compare --reference cli/tests/data/platform_book_kinds.json --book book.parquet".into(),
            format!("page.md:13 show --fen {fen} --actions Le2 Pe4"),
            "page.md:22 games export dir --out x.pgn".into(),
        ]
    );
    assert_eq!(commands[1].env, [("FOO".to_string(), "1".to_string())]);
    assert_eq!(commands[3].stdin.as_deref(), Some("in.jsonl"));
    assert_eq!(commands[9].args.last().map(String::as_str), Some("Le2 Pe4"));
}

/// A misspelt flag fails with the file, the line and clap's message.
#[test]
fn a_misspelt_flag_is_reported_with_its_line() {
    let commands = commands_in("page.md", "```sh\npacozero arena --gamez 20\n```\n");
    let error = parse_error(&commands[0].args).expect("--gamez is no flag");
    assert_eq!(commands[0].at, "page.md:2");
    assert!(error.contains("unexpected argument '--gamez'"), "{error}");
    let args = |line: &str| line.split(' ').map(String::from).collect::<Vec<_>>();
    assert!(parse_error(&args("arena --players rollout:2 greedy --games 20")).is_none());
    assert!(parse_error(&args("arena --games 20")).expect("--players is required").contains("--players"));
    assert!(parse_error(&args("book --help")).is_none());
}

/// A variable without a value is an error naming it, not an empty argument.
#[test]
#[should_panic(expected = "no value for $UNSET")]
fn a_variable_without_a_value_fails() {
    commands_in("page.md", "```sh\npacozero show --fen \"$UNSET\"\n```\n");
}
