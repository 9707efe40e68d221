//! Reading and writing circuit files.
//!
//! Three text formats share one gate syntax, `<#in> <#out> <inputs> <outputs> <OP>`:
//!
//! * **Bristol Fashion**, with the multi-input AND extension `k 1 i1 .. ik o AND`
//!   (k = 3..16) and MAND batches `2k k a1..ak b1..bk o1..ok MAND`.
//! * **Old Bristol format**: header `<#gates> <#wires>` then `<n1> <n2> <n3>`
//!   (inputs of n1 and n2 bits, n2 = 0 for one input; one output of n3 bits).
//! * **huddle arithmetic format** for arithmetic and mixed circuits: a first
//!   line `ring K` (K = 8, 16, 32, 64), then Bristol Fashion where a value
//!   width `Nr` means N ring wires (a plain `N` stays N bit wires), plus the
//!   gates documented in `docs/circuit-format.md`.
//!
//! Reading streams the file token by token and checks every gate as it
//! arrives, so a 100 MB file parses in linear time and memory, and the first
//! problem is reported with its line number. Nothing is allocated from a
//! header count before the file has shown it is that large.
//!
//! The parts, each file using only those listed before it: `options.rs`
//! (the format and limits a caller picks), `error.rs` ([`ReadError`]),
//! `tokens.rs` (the token stream), `header.rs` and `gates.rs` (the two
//! halves of a file), `read.rs` (the entry points and the final checks);
//! `write.rs` (every writer) stands apart.

mod error;
mod gates;
mod header;
mod options;
mod read;
mod tokens;
mod write;

pub use error::ReadError;
pub use options::{Format, ReadOptions};
pub use read::{read_circuit, read_circuit_file, read_circuit_with};
pub use write::{write_canonical, write_circuit, write_old_bristol, OldFormatError};
