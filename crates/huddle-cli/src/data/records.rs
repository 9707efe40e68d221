//! The lines of a data file as CSV records (the `csv` crate): quoted
//! fields, `#` comment lines, blank lines skipped, fields trimmed. The
//! separator is `--delimiter`'s, or detected from the first line that is
//! neither blank nor a comment (the header, if any): the most frequent of
//! `,` `;` and tab outside quotes; with none of them, runs of spaces.

use std::io::{BufRead, Chain, Cursor, Read};

/// A field separator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delimiter(u8);

/// The separators detection chooses from, in order of preference.
const DETECTED: [u8; 3] = [b',', b';', b'\t'];

impl Delimiter {
    /// How a user names it (in `--delimiter` and in messages).
    fn name(self) -> String {
        match self.0 {
            b'\t' => "tab".into(),
            b' ' => "space".into(),
            d => format!("'{}'", char::from(d)),
        }
    }

    /// What a line "contains" in a hint.
    fn shown(self) -> String {
        match self.0 {
            b'\t' => "tabs".into(),
            b' ' => "spaces".into(),
            d => format!("`{}`", char::from(d)),
        }
    }
}

/// `--delimiter`: `,` `;` `tab` (or a tab character) or `space`.
pub fn parse_delimiter(text: &str) -> Result<Delimiter, String> {
    match text {
        "," | "comma" => Ok(Delimiter(b',')),
        ";" | "semicolon" => Ok(Delimiter(b';')),
        "\t" | "tab" | "\\t" => Ok(Delimiter(b'\t')),
        " " | "space" => Ok(Delimiter(b' ')),
        other => Err(format!(
            "`{other}` is not a separator: give ',', ';', tab or space"
        )),
    }
}

/// The separator of `line` (the first line with data) by the rule above.
fn detect(line: &[u8]) -> Delimiter {
    let mut counts = [0usize; 3];
    let mut spaces = 0;
    let mut quoted = false;
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if !quoted {
            if let Some(i) = DETECTED.iter().position(|&d| d == b) {
                counts[i] += 1;
            }
            spaces += usize::from(b == b' ');
        }
    }
    // The first of the most frequent (max_by_key keeps the last of equals).
    let best = (0..3).rev().max_by_key(|&i| counts[i]).unwrap_or(0);
    match (counts[best], spaces) {
        (0, s) if s > 0 => Delimiter(b' '),
        _ => Delimiter(DETECTED[best]),
    }
}

/// Comment lines (first character other than spaces and tabs `#`) and
/// empty lines made into lines of empty fields (one `delimiter`), and
/// CRLF into LF: csv skips empty lines itself but then numbers the next
/// record from the first line it skipped, and numbers a record after a
/// CRLF from the line before.
struct Uncomment<R> {
    inner: R,
    delimiter: u8,
    line_start: bool,
    comment: bool,
    /// A carriage return not yet passed on (dropped if a newline follows).
    cr: bool,
    /// Transformed bytes not yet read, from `at`.
    pending: Vec<u8>,
    at: usize,
}

impl<R> Uncomment<R> {
    fn new(inner: R, delimiter: u8) -> Self {
        Uncomment {
            inner,
            delimiter,
            line_start: true,
            comment: false,
            cr: false,
            pending: Vec::new(),
            at: 0,
        }
    }

    fn push(&mut self, b: u8) {
        if std::mem::take(&mut self.cr) && b != b'\n' {
            self.accept(b'\r');
        }
        if b == b'\r' {
            self.cr = true;
        } else {
            self.accept(b);
        }
    }

    fn accept(&mut self, b: u8) {
        if self.comment && b != b'\n' {
            return;
        }
        match b {
            b'\n' => {
                if self.line_start {
                    self.pending.push(self.delimiter);
                }
                (self.line_start, self.comment) = (true, false);
            }
            b'#' if self.line_start => {
                self.comment = true;
                return;
            }
            b' ' | b'\t' => {}
            _ => self.line_start = false,
        }
        self.pending.push(b);
    }
}

impl<R: Read> Read for Uncomment<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.pending.len() {
            let mut chunk = [0u8; 8192];
            let n = self.inner.read(&mut chunk)?;
            if n == 0 && !self.cr {
                return Ok(0);
            }
            if n == 0 {
                self.cr = false;
                self.pending.clear();
                self.at = 0;
                self.accept(b'\r');
                continue;
            }
            self.pending.clear();
            self.at = 0;
            chunk[..n].iter().for_each(|&b| self.push(b));
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The records of one file, one at a time.
pub struct Records<R: Read> {
    reader: csv::Reader<Uncomment<Chain<Cursor<Vec<u8>>, R>>>,
    record: csv::ByteRecord,
    delimiter: Delimiter,
}

impl<R: BufRead> Records<R> {
    /// Reads up to the first line with data to choose the separator (if
    /// not `given`); that line and those before it are read again as
    /// records, so line numbers count from the file's start.
    pub fn open(mut reader: R, given: Option<Delimiter>) -> std::io::Result<Records<R>> {
        let mut prefix = Vec::new();
        let mut delimiter = given;
        while delimiter.is_none() {
            let start = prefix.len();
            if reader.read_until(b'\n', &mut prefix)? == 0 {
                break;
            }
            let line = prefix[start..].trim_ascii();
            if !line.is_empty() && !line.starts_with(b"#") {
                delimiter = Some(detect(line));
            }
        }
        let delimiter = delimiter.unwrap_or(Delimiter(b','));
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delimiter.0)
            .trim(csv::Trim::All)
            .from_reader(Uncomment::new(
                Cursor::new(prefix).chain(reader),
                delimiter.0,
            ));
        Ok(Records {
            reader,
            record: csv::ByteRecord::new(),
            delimiter,
        })
    }
}

impl<R: Read> Records<R> {
    /// The next line with data, or None at the end; lines of empty fields
    /// only (blank lines, comments) are skipped.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, String> {
        loop {
            let more = self
                .reader
                .read_byte_record(&mut self.record)
                .map_err(|e| match e.position() {
                    Some(p) => format!("line {}: {e}", p.line()),
                    None => e.to_string(),
                })?;
            if !more {
                return Ok(None);
            }
            if !self.record.iter().all(<[u8]>::is_empty) {
                break;
            }
        }
        Ok(Some(Line {
            number: self.record.position().map_or(0, csv::Position::line),
            record: &self.record,
            delimiter: self.delimiter,
        }))
    }
}

/// One line of a file: its number (from 1) and fields.
pub struct Line<'a> {
    pub number: u64,
    record: &'a csv::ByteRecord,
    delimiter: Delimiter,
}

impl Line<'_> {
    /// The fields as text, in order (a space-separated line's runs of
    /// spaces make no empty fields). A field quoted after a space (`1,
    /// "2"`), which CSV keeps as written, loses its quotes too.
    pub fn fields(&self) -> impl Iterator<Item = Result<&str, String>> {
        let spaces = self.delimiter.0 == b' ';
        self.record
            .iter()
            .filter(move |f| !(spaces && f.is_empty()))
            .map(|f| match f {
                [b'"', inner @ .., b'"'] if !inner.contains(&b'"') => inner,
                _ => f,
            })
            .map(|f| std::str::from_utf8(f).map_err(|_| "not UTF-8 text".to_string()))
    }

    pub fn count(&self) -> usize {
        self.fields().count()
    }

    /// The error for a line of `count` fields where `expected` are: the
    /// counts, and where a field holds another separator, a hint at it.
    pub fn wrong_count(&self, expected: usize, what: &str) -> String {
        let count = self.count();
        let mut message = format!(
            "line {} has {count} field{}, but {expected} {} expected ({what})",
            self.number,
            if count == 1 { "" } else { "s" },
            if expected == 1 { "is" } else { "are" },
        );
        let other = [b',', b';', b'\t', b' ']
            .into_iter()
            .filter(|&d| d != self.delimiter.0)
            .find(|&d| self.record.iter().any(|f| f.contains(&d)));
        if let Some(d) = other {
            let d = Delimiter(d);
            message.push_str(&format!(
                "; it contains {} — is the file {}-separated? (--delimiter {})",
                d.shown(),
                match d.0 {
                    b'\t' | b' ' => d.name(),
                    c => format!("`{}`", char::from(c)),
                },
                d.name()
            ));
        }
        message
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every line's fields as text.
    fn lines(text: &str, given: Option<Delimiter>) -> Vec<(u64, Vec<String>)> {
        let mut records = Records::open(text.as_bytes(), given).expect("opens");
        let mut out = Vec::new();
        while let Some(line) = records.next_line().expect("reads") {
            let fields = line
                .fields()
                .map(|f| f.expect("utf8").to_string())
                .collect();
            out.push((line.number, fields));
        }
        out
    }

    fn owned(fields: &[&str]) -> Vec<String> {
        fields.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn separators_are_detected_from_the_first_line_with_data() {
        let want = vec![(2, owned(&["1", "2", "3"])), (4, owned(&["4", "5", "6"]))];
        for text in [
            "# a comment\n1,2,3\n\n4, 5 ,6\n",
            "# a comment\n1;2;3\n\n4; 5 ;6\n",
            "# a comment\n1\t2\t3\n\n4\t5\t6\n",
            "# a comment\n1 2  3\n   \n 4 5 6\n",
            "# a comment\r\n\"1\",\"2\",3\r\n\r\n4,\"5\",6\r\n",
        ] {
            assert_eq!(lines(text, None), want, "{text:?}");
        }
        // Quotes keep a separator inside a field, and detection skips it.
        assert_eq!(lines("\"a,b\";c\n", None), vec![(1, owned(&["a,b", "c"]))]);
        // Given, it is not detected.
        assert_eq!(
            lines("1,2;3\n", Some(Delimiter(b';'))),
            vec![(1, owned(&["1,2", "3"]))]
        );
        // A quoted field after a space, as people write it.
        assert_eq!(
            lines("1, \"2\" ,3\n", None),
            vec![(1, owned(&["1", "2", "3"]))]
        );
        // Indented comments are comments too.
        assert_eq!(lines("  # x, y\n7\n", None), vec![(2, owned(&["7"]))]);
    }

    #[test]
    fn a_wrong_field_count_hints_at_the_separator() {
        let mut r =
            Records::open("1;2;3;4;5;6;7;8\n".as_bytes(), Some(Delimiter(b','))).expect("opens");
        let line = r.next_line().expect("reads").expect("a line");
        assert_eq!(
            line.wrong_count(8, "one per value"),
            "line 1 has 1 field, but 8 are expected (one per value); it contains `;` — is the \
             file `;`-separated? (--delimiter ';')"
        );
        let mut r = Records::open("a,b\n1 2\n".as_bytes(), None).expect("opens");
        r.next_line().expect("reads");
        let line = r.next_line().expect("reads").expect("a line");
        assert!(line
            .wrong_count(2, "x")
            .ends_with("it contains spaces — is the file space-separated? (--delimiter space)"));
        let mut r = Records::open("1,2\n".as_bytes(), None).expect("opens");
        let line = r.next_line().expect("reads").expect("a line");
        assert_eq!(
            line.wrong_count(3, "x"),
            "line 1 has 2 fields, but 3 are expected (x)"
        );
    }

    #[test]
    fn delimiters_are_named_as_users_write_them() {
        for (text, byte) in [
            (",", b','),
            (";", b';'),
            ("tab", b'\t'),
            ("\t", b'\t'),
            ("space", b' '),
        ] {
            assert_eq!(parse_delimiter(text), Ok(Delimiter(byte)));
        }
        assert!(parse_delimiter("|")
            .expect_err("refused")
            .contains("not a separator"));
    }

    proptest! {
        /// Lines are numbered as an editor numbers them, whatever blank
        /// lines, comments and line ends come before.
        #[test]
        fn line_numbers_count_every_line(kinds in proptest::collection::vec(0u8..4, 1..30), crlf in any::<bool>()) {
            let end = if crlf { "\r\n" } else { "\n" };
            let text: String = kinds.iter().enumerate().map(|(i, k)| match k {
                0 => format!("{i},{i}{end}"),
                1 => end.to_string(),
                2 => format!("  # note {i}{end}"),
                _ => format!("   {end}"),
            }).collect();
            let want: Vec<u64> = kinds.iter().enumerate().filter(|(_, &k)| k == 0).map(|(i, _)| i as u64 + 1).collect();
            let got: Vec<u64> = lines(&text, None).into_iter().map(|l| l.0).collect();
            prop_assert_eq!(got, want);
        }

        /// Fields of any printable text, quoted as CSV writers quote them,
        /// read back as written, with each separator (given or detected).
        #[test]
        fn quoted_fields_read_back(
            rows in proptest::collection::vec(
                proptest::collection::vec("[a-z0-9 ,;\"]{0,6}", 3), 1..5),
            which in 0usize..3,
            given in any::<bool>(),
        ) {
            // A field that is itself one quoted text loses those quotes
            // (see `Line::fields`): not a round trip by design.
            let self_quoted = |f: &String| {
                let t = f.trim();
                t.len() >= 2 && t.starts_with('"') && t.ends_with('"') && !t[1..t.len() - 1].contains('"')
            };
            prop_assume!(!rows.iter().flatten().any(self_quoted));
            let d = DETECTED[which];
            let quote = |f: &str| format!("\"{}\"", f.replace('"', "\"\""));
            let text: String = rows
                .iter()
                .map(|r| r.iter().map(|f| quote(f)).collect::<Vec<_>>().join(&char::from(d).to_string()) + "\n")
                .collect();
            let got = lines(&text, given.then_some(Delimiter(d)));
            let want: Vec<Vec<String>> = rows
                .iter()
                .filter(|r| r.iter().any(|f| !f.trim().is_empty()))
                .map(|r| r.iter().map(|f| f.trim().to_string()).collect())
                .collect();
            prop_assert_eq!(got.into_iter().map(|l| l.1).collect::<Vec<_>>(), want);
        }
    }
}
