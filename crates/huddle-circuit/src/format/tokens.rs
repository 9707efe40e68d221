//! The reader's token stream: whitespace-separated tokens read one line at a
//! time with their line numbers and the bytes read so far ([`Tokens`]), and
//! decimal numbers parsed from them with overflow reported
//! ([`parse_u64`]).

use super::error::ReadError;
use std::io::{self, BufRead};

pub(super) fn parse_u64(tok: &[u8], line: usize, what: &str) -> Result<u64, ReadError> {
    let bad = || ReadError::Syntax {
        line,
        cause: format!("expected {what}, found `{}`", String::from_utf8_lossy(tok)),
    };
    if tok.is_empty() {
        return Err(bad());
    }
    let mut v: u64 = 0;
    let mut overflow = false;
    for &d in tok {
        if !d.is_ascii_digit() {
            return Err(bad());
        }
        match v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
        {
            Some(next) => v = next,
            None => overflow = true,
        }
    }
    if overflow {
        return Err(ReadError::Syntax {
            line,
            cause: format!("{what} `{}` is too large", String::from_utf8_lossy(tok)),
        });
    }
    Ok(v)
}

/// Whitespace-separated tokens with line numbers, read one line at a time.
pub(super) struct Tokens<R> {
    reader: R,
    /// The current line.
    buf: Vec<u8>,
    /// Where scanning for the next token resumes in `buf`.
    pos: usize,
    /// The current token is `buf[start..pos]`.
    start: usize,
    line: usize,
    /// Bytes read so far: what the file has shown, against which its claims are checked.
    pub(super) bytes: u64,
}

impl<R: BufRead> Tokens<R> {
    pub(super) fn new(reader: R) -> Self {
        Tokens {
            reader,
            buf: Vec::new(),
            pos: 0,
            start: 0,
            line: 0,
            bytes: 0,
        }
    }

    pub(super) fn line(&self) -> usize {
        self.line
    }

    pub(super) fn current(&self) -> &[u8] {
        &self.buf[self.start..self.pos]
    }

    /// Moves to the next token, reading lines as needed; false at end of input.
    pub(super) fn advance(&mut self) -> io::Result<bool> {
        loop {
            while self.pos < self.buf.len() && self.buf[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.pos < self.buf.len() {
                self.start = self.pos;
                while self.pos < self.buf.len() && !self.buf[self.pos].is_ascii_whitespace() {
                    self.pos += 1;
                }
                return Ok(true);
            }
            self.buf.clear();
            self.pos = 0;
            self.start = 0;
            let read = self.reader.read_until(b'\n', &mut self.buf)?;
            if read == 0 {
                return Ok(false);
            }
            self.bytes += read as u64;
            self.line += 1;
        }
    }

    pub(super) fn expect_more(&mut self, what: &str) -> Result<(), ReadError> {
        if self.advance()? {
            Ok(())
        } else {
            Err(ReadError::Truncated {
                line: self.line,
                expected: what.into(),
            })
        }
    }

    /// The current token as a number.
    pub(super) fn number(&self, what: &str) -> Result<u64, ReadError> {
        parse_u64(self.current(), self.line, what)
    }

    pub(super) fn next_number(&mut self, what: &str) -> Result<u64, ReadError> {
        if let Some(v) = self.next_number_on_line() {
            return Ok(v);
        }
        self.expect_more(what)?;
        self.number(what)
    }

    /// The common case of [`Self::next_number`] in one pass: a number of at
    /// most 19 digits (no overflow possible) later on the current line.
    /// Anything else (a line break, a stray byte, a longer number) is left
    /// to the general path, which reports it.
    fn next_number_on_line(&mut self) -> Option<u64> {
        let buf = &self.buf;
        let mut p = self.pos;
        while p < buf.len() && (buf[p] == b' ' || buf[p] == b'\t') {
            p += 1;
        }
        let start = p;
        let mut v: u64 = 0;
        while p < buf.len() && buf[p].is_ascii_digit() && p - start < 19 {
            v = v * 10 + u64::from(buf[p] - b'0');
            p += 1;
        }
        let ends = p == buf.len() || buf[p].is_ascii_whitespace();
        if p == start || !ends {
            return None;
        }
        self.start = start;
        self.pos = p;
        Some(v)
    }

    /// The current token and the rest of its line, consumed; empty at end of input.
    pub(super) fn rest_of_line(&mut self) -> io::Result<Vec<Vec<u8>>> {
        if self.start == self.pos {
            return Ok(Vec::new());
        }
        let mut out = vec![self.current().to_vec()];
        out.extend(
            self.buf[self.pos..]
                .split(u8::is_ascii_whitespace)
                .filter(|t| !t.is_empty())
                .map(<[u8]>::to_vec),
        );
        self.pos = self.buf.len();
        self.start = self.pos;
        Ok(out)
    }
}
