//! huddle's exit codes, in one table: every way a command can end, with its
//! code and what it means. The CLI exits with these, [`RunError`] maps to
//! them, and docs/cli.md shows [`Exit::markdown`] (a test keeps the two equal).
//!
//! [`RunError`]: crate::error::RunError

/// How a command ended ([`Exit::code`] and [`Exit::meaning`] say more).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Success (0).
    Success,
    /// A benchmark or the demo failed (1).
    Other,
    /// Bad input: command line, files, keys, values (2).
    Input,
    /// A protocol check of this party failed (3).
    Abort,
    /// A peer disconnected, went silent or broke the transport's rules (4).
    Network,
    /// A resource of this machine (memory) would be exceeded (5).
    Resource,
    /// A bug in huddle, or no randomness from the OS (6).
    Internal,
    /// The parties disagree on the run (7).
    Mismatch,
    /// The run finished, but its outputs could not be written (8).
    Output,
    /// `--check` found wrong outputs, or a soak or chaos run failed (9).
    Check,
    /// Interrupted by SIGINT or SIGTERM (130).
    Interrupted,
}

struct Row {
    exit: Exit,
    code: u8,
    name: &'static str,
    meaning: &'static str,
}

/// In [`Exit`]'s order (tested).
const TABLE: [Row; 11] = [
    Row {
        exit: Exit::Success,
        code: 0,
        name: "success",
        meaning: "success",
    },
    Row {
        exit: Exit::Other,
        code: 1,
        name: "other",
        meaning: "a benchmark or the demo failed (its message says why)",
    },
    Row {
        exit: Exit::Input,
        code: 2,
        name: "input",
        meaning: "bad input: command line, circuit, parties file, job file, keys, input values, \
                  dealt file; nothing secret was sent",
    },
    Row {
        exit: Exit::Abort,
        code: 3,
        name: "abort",
        meaning: "abort: a protocol check of this party failed (a peer cheated or a message was \
                  tampered with), or a peer broke the transport's rules; no output was released",
    },
    Row {
        exit: Exit::Network,
        code: 4,
        name: "network",
        meaning: "network: a peer disconnected (e.g. it was killed or interrupted), was \
                  unreachable or silent, or stopped the run (its own exit code says why)",
    },
    Row {
        exit: Exit::Resource,
        code: 5,
        name: "resource",
        meaning: "a resource of this machine (memory) would be exceeded",
    },
    Row {
        exit: Exit::Internal,
        code: 6,
        name: "internal",
        meaning: "internal error (a bug in huddle; please report it) or no randomness from the OS",
    },
    Row {
        exit: Exit::Mismatch,
        code: 7,
        name: "mismatch",
        meaning: "the parties disagree on the run: settings, job, circuit, deal, session, party \
                  count or huddle version (found at connect; nothing was sent)",
    },
    Row {
        exit: Exit::Output,
        code: 8,
        name: "output",
        meaning: "the run finished, but its outputs could not be written (an `--outputs` or `-o` \
                  file, or stdout closed)",
    },
    Row {
        exit: Exit::Check,
        code: 9,
        name: "check",
        meaning:
            "`--check`: the outputs differ from the plaintext evaluator's or from `--expect`; \
                  `huddle bench soak` or `chaos`: a run failed, memory grew or a party was not stopped as it must be",
    },
    Row {
        exit: Exit::Interrupted,
        code: 130,
        name: "interrupted",
        meaning: "interrupted by SIGINT or SIGTERM; the other parties are told and stop with 4",
    },
];

impl Exit {
    /// Every way a command can end, in the table's order.
    pub const ALL: [Exit; 11] = [
        Exit::Success,
        Exit::Other,
        Exit::Input,
        Exit::Abort,
        Exit::Network,
        Exit::Resource,
        Exit::Internal,
        Exit::Mismatch,
        Exit::Output,
        Exit::Check,
        Exit::Interrupted,
    ];

    fn row(self) -> &'static Row {
        let row = &TABLE[self as usize];
        debug_assert_eq!(row.exit, self, "TABLE is in Exit's order");
        row
    }

    /// The process exit code.
    pub fn code(self) -> u8 {
        self.row().code
    }

    /// A short name (JSON reports, logs).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// What it means, for the documentation.
    pub fn meaning(self) -> &'static str {
        self.row().meaning
    }

    /// What a party that stops after connecting, for a failure of this
    /// kind, tells its peers (in an authenticated abort): the kind, never
    /// its own error's text, which may name input values.
    pub fn told_to_peers(self) -> &'static str {
        match self {
            Exit::Input => "bad input or settings of its own; its own error says why",
            Exit::Abort => "a check of the protocol failed",
            Exit::Resource => "a resource of its host ran out (memory)",
            Exit::Internal => "an internal error (a bug in huddle)",
            Exit::Mismatch => "the parties disagree on the run",
            Exit::Interrupted => "it was interrupted",
            _ => "an error of its own",
        }
    }

    /// The table as docs/cli.md shows it: a Markdown table, one row per code.
    pub fn markdown() -> String {
        let mut out = String::from("| code | meaning |\n|---|---|\n");
        for e in Exit::ALL {
            out.push_str(&format!("| {} | {} |\n", e.code(), e.meaning()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_enum_order_with_distinct_codes_and_names() {
        for (i, e) in Exit::ALL.into_iter().enumerate() {
            assert_eq!(TABLE[i].exit, e);
            assert_eq!(e as usize, i);
        }
        let mut codes: Vec<u8> = Exit::ALL.map(Exit::code).to_vec();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), Exit::ALL.len());
        let mut names: Vec<&str> = Exit::ALL.map(Exit::name).to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Exit::ALL.len());
    }

    /// docs/cli.md shows the table as the code has it, row for row.
    #[test]
    fn the_documented_table_is_this_table() {
        let doc = include_str!("../../../docs/cli.md");
        let start = doc
            .find("| code | meaning |")
            .expect("docs/cli.md has the exit-code table");
        let shown: Vec<&str> = doc[start..]
            .lines()
            .take_while(|l| l.starts_with('|'))
            .collect();
        let markdown = Exit::markdown();
        let want: Vec<&str> = markdown.lines().collect();
        assert_eq!(shown, want);
    }
}
