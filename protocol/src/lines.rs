//! Lines of a protocol's input (UCI, the analysis engine), read with a cap
//! on their length.
//!
//! Whoever writes to an engine's standard input is not trusted to keep its
//! lines short or its bytes UTF-8. A line longer than [`MAX_LINE_BYTES`] is
//! read to its end in the reader's own buffer-sized pieces and thrown away,
//! so it costs no more memory than a line at the cap; a line that is not
//! UTF-8 is reported as such. Either way the reader goes on with the next
//! line, and the caller answers the one bad line with an error.

use std::io::{BufRead, ErrorKind};

/// The longest input line that is read, in bytes, its line ending not
/// counted: 1 MiB, far above any real command (a `position` of a thousand
/// moves is about 6 KB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputLine {
    /// The line's text, without its `\n` or `\r\n`.
    Text(String),
    /// Longer than the cap: read and thrown away. Its length in bytes.
    TooLong { bytes: u64 },
    /// Not UTF-8: the offset of the first byte that is not.
    NotUtf8 { at: usize },
}

impl InputLine {
    /// What is wrong with line `number`; `None` for a readable line.
    pub fn problem(&self, number: usize) -> Option<String> {
        match self {
            InputLine::Text(_) => None,
            InputLine::TooLong { bytes } => {
                Some(format!("input line {number} is {bytes} bytes long, over the limit of {MAX_LINE_BYTES} bytes; the line is ignored"))
            }
            InputLine::NotUtf8 { at } => Some(format!("input line {number} is not UTF-8 (byte {at} is not); the line is ignored")),
        }
    }
}

/// Reads lines from `input`, each at most `max` bytes ([`MAX_LINE_BYTES`]
/// unless a test says otherwise).
pub struct LineReader<R> {
    input: R,
    max: usize,
    /// Lines read so far (the next line's number less one).
    number: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(input: R) -> Self {
        Self::with_limit(input, MAX_LINE_BYTES)
    }

    pub fn with_limit(input: R, max: usize) -> Self {
        LineReader { input, max, number: 0, buf: Vec::new() }
    }

    /// The next line and its number (from 1); `None` at the end of the
    /// input. A last line without a line ending is a line. An error only
    /// when the input cannot be read (an interrupted read is retried).
    pub fn next_line(&mut self) -> std::io::Result<Option<(usize, InputLine)>> {
        self.buf.clear();
        let mut bytes: u64 = 0;
        let mut too_long = false;
        let mut read_any = false;
        loop {
            let available = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                if !read_any {
                    return Ok(None);
                }
                break;
            }
            read_any = true;
            let newline = available.iter().position(|&b| b == b'\n');
            let piece = &available[..newline.unwrap_or(available.len())];
            bytes += piece.len() as u64;
            // One byte over the cap is kept for a `\r` before the `\n`.
            if !too_long && self.buf.len() + piece.len() <= self.max + 1 {
                self.buf.extend_from_slice(piece);
            } else {
                too_long = true;
            }
            let used = piece.len() + usize::from(newline.is_some());
            self.input.consume(used);
            if newline.is_some() {
                break;
            }
        }
        self.number += 1;
        if !too_long && self.buf.last() == Some(&b'\r') {
            self.buf.pop();
            bytes -= 1;
        }
        let line = if too_long || self.buf.len() > self.max {
            InputLine::TooLong { bytes }
        } else {
            match std::str::from_utf8(&self.buf) {
                Ok(text) => InputLine::Text(text.to_owned()),
                Err(e) => InputLine::NotUtf8 { at: e.valid_up_to() },
            }
        };
        Ok(Some((self.number, line)))
    }
}

/// A reader of one long line of `len` bytes of `fill` (then `\n`) followed
/// by `rest`, made as it is read: a test's 100 MB line without 100 MB of
/// memory.
#[cfg(test)]
pub(crate) struct LongLine {
    left: u64,
    fill: u8,
    rest: std::io::Cursor<Vec<u8>>,
}

#[cfg(test)]
impl LongLine {
    pub(crate) fn new(len: u64, fill: u8, rest: &[u8]) -> Self {
        LongLine { left: len, fill, rest: std::io::Cursor::new([b"\n".as_slice(), rest].concat()) }
    }
}

#[cfg(test)]
impl std::io::Read for LongLine {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return self.rest.read(out);
        }
        let n = out.len().min(self.left.min(usize::MAX as u64) as usize);
        out[..n].fill(self.fill);
        self.left -= n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor};

    fn lines_of(input: &[u8], max: usize) -> Vec<InputLine> {
        let mut r = LineReader::with_limit(Cursor::new(input.to_vec()), max);
        let mut out = Vec::new();
        while let Some((n, l)) = r.next_line().unwrap() {
            assert_eq!(n, out.len() + 1);
            out.push(l);
        }
        out
    }

    fn text(s: &str) -> InputLine {
        InputLine::Text(s.into())
    }

    #[test]
    fn lines_end_at_a_newline_or_the_input_and_lose_a_carriage_return() {
        assert_eq!(lines_of(b"uci\r\nisready\n\nquit", 100), [text("uci"), text("isready"), text(""), text("quit")]);
        assert_eq!(lines_of(b"", 100), []);
        assert_eq!(lines_of(b"\n", 100), [text("")]);
    }

    #[test]
    fn a_line_at_the_cap_is_read_and_one_byte_more_is_refused() {
        assert_eq!(
            lines_of(b"abcd\nabcde\nabcd\r\nabcde\r\nok\n", 4),
            [text("abcd"), InputLine::TooLong { bytes: 5 }, text("abcd"), InputLine::TooLong { bytes: 6 }, text("ok")]
        );
        // The cap holds for a line read in many small pieces too.
        let mut r = LineReader::with_limit(BufReader::with_capacity(3, Cursor::new(b"abcdefgh\nab\n".to_vec())), 4);
        assert_eq!(r.next_line().unwrap(), Some((1, InputLine::TooLong { bytes: 8 })));
        assert_eq!(r.next_line().unwrap(), Some((2, text("ab"))));
        assert_eq!(r.next_line().unwrap(), None);
    }

    #[test]
    fn a_hundred_megabyte_line_is_skipped_without_being_kept() {
        let len = 100_000_000;
        let mut r = LineReader::new(BufReader::new(LongLine::new(len, b'x', b"isready\n")));
        assert_eq!(r.next_line().unwrap(), Some((1, InputLine::TooLong { bytes: len })));
        assert!(r.buf.capacity() <= 2 * (MAX_LINE_BYTES + 1), "kept {} bytes", r.buf.capacity());
        assert_eq!(r.next_line().unwrap(), Some((2, text("isready"))));
        let message = InputLine::TooLong { bytes: len }.problem(1).unwrap();
        assert_eq!(message, "input line 1 is 100000000 bytes long, over the limit of 1048576 bytes; the line is ignored");
    }

    #[test]
    fn a_line_that_is_not_utf8_is_reported_and_the_next_one_read() {
        assert_eq!(lines_of(b"go \xff\xfe\nisready\n", 100), [InputLine::NotUtf8 { at: 3 }, text("isready")]);
        assert_eq!(InputLine::NotUtf8 { at: 3 }.problem(4).unwrap(), "input line 4 is not UTF-8 (byte 3 is not); the line is ignored");
        assert_eq!(text("x").problem(1), None);
    }
}
