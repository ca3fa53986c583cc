//! The engine's input: lines read on a thread of their own, and the
//! commands that wait for a search, bounded.

use std::io::BufRead;
use std::sync::mpsc;

use super::command::Command;
use super::{MAX_WAITING_BYTES, MAX_WAITING_COMMANDS};
use crate::lines::{InputLine, LineReader};

/// What the reader thread hands the engine.
pub(super) enum Input {
    Line(String),
    /// A line that could not be read as text (too long, not UTF-8): what is wrong.
    Refused(String),
    End,
    Failed(String),
}

/// Sends each line of `input` (a line too long or not UTF-8 as what is
/// wrong with it, so that it is an error line, not the end), then the end
/// or the failure.
pub(super) fn read_lines<R: BufRead>(input: R, tx: &mpsc::SyncSender<Input>) {
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
pub(super) struct WaitingCommands {
    pub(super) commands: std::collections::VecDeque<(Command, usize)>,
    pub(super) bytes: usize,
}

impl WaitingCommands {
    pub(super) fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    pub(super) fn front(&self) -> Option<&Command> {
        self.commands.front().map(|(c, _)| c)
    }

    pub(super) fn pop_front(&mut self) -> Option<Command> {
        let (command, bytes) = self.commands.pop_front()?;
        self.bytes -= bytes;
        Some(command)
    }

    /// Queues `command`, read from a line of `bytes` bytes; an error that
    /// says why when the queue is full.
    pub(super) fn push(&mut self, command: Command, bytes: usize) -> Result<(), String> {
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
