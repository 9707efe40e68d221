//! What a caller chooses when reading: the [`Format`] (or detection), and
//! the limits applied to untrusted files ([`ReadOptions`]).

/// Which format to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// Arithmetic format if the file starts with `ring`; old Bristol if the
    /// second header line is `<n1> <n2> <n3>` with n1 != 2; else Bristol Fashion.
    #[default]
    Auto,
    /// Bristol Fashion, with arithmetic extensions when the file starts with `ring`.
    Bristol,
    /// The old Bristol format: at most two Boolean inputs and one output.
    OldBristol,
}

/// Limits applied while reading untrusted files.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    /// The format to read, or [`Format::Auto`] to detect it.
    pub format: Format,
    /// The largest wire count accepted from a header.
    pub max_wires: u64,
    /// The file's length, if known: a header that declares more gate outputs
    /// than the file could possibly spell out is rejected before any allocation.
    pub file_len: Option<u64>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            format: Format::Auto,
            max_wires: 1 << 30,
            file_len: None,
        }
    }
}
