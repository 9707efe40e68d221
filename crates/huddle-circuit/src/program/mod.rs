//! Typed secret programs: the layer a front end (the Python package)
//! wraps, building every operator's circuit here.
//!
//! A [`Program`] declares inputs per party with a [`Type`] and a [`Shape`]
//! ([`Program::input`]), variable-length inputs as a declared maximum of
//! rows and secret validity bits ([`Program::input_rows`], the layout of
//! the CLI's whole-table inputs), public parameters every party gives
//! ([`Program::public`]) and public constants; operators combine
//! [`Value`]s into new ones, and [`Program::reveal`] names outputs and
//! their [`Receiver`]s. [`Program::compile`] gives a [`CompiledProgram`]:
//! the [`crate::Circuit`] and its [`Interface`], which encodes numbers
//! ([`Data`]) into a party's input rows and decodes output rows.
//!
//! **Types.** [`Type::Bit`], [`Type::UInt`] and [`Type::SInt`] of 1 to 64
//! bits live in the Boolean domain (one wire per bit); [`Type::Int`]
//! (signed) and [`Type::Fixed`] (f fractional bits) in the ring Z_2^k,
//! one ring per program: the first ring type fixes it and another width is
//! an error ([`ErrorKind::Ring`]). Arithmetic wraps at the type's width,
//! two's complement for signed types; comparisons of signed types are
//! signed; shifts take public amounts. Conversions ([`Program::convert`])
//! are Rust's `as`, compiled to A2B and weighted B2A.
//!
//! **Fixed point.** A fixed-point product is one DOTTR gate: the exact
//! product of the two raw values, read as a signed k-bit number, divided
//! by 2^f and rounded toward −∞, which the plaintext evaluator computes;
//! protocols truncate probabilistically and may give one unit (2^−f) more.
//! So a product is within 2^−f of the exact product of the encoded
//! operands (within [−2^−f, 0] under the evaluator), provided that
//! product of raw values fits the signed k-bit range; a dot product
//! truncates once, so it has the same bound. Encoding rounds to the
//! nearest multiple of 2^−f (error ≤ 2^−f−1). A product by a public whole
//! number is exact.
//!
//! **Shapes.** Values are scalars, vectors or matrices; operators work
//! elementwise and broadcast scalars; other mismatches are errors
//! ([`ErrorKind::Shape`]). `sum`, `dot`, `matmul`, `min_of`, `max_of`
//! reduce; indexing and stacking move wires only.
//!
//! **Errors.** Every mistake is a [`ProgramError`] naming the operation
//! and the types or shapes; nothing panics on user input.
//!
//! **Public parameters.** Each party gives its copy as its own input; the
//! circuit computes with party 0's and reveals [`PUBLIC_OK`] (whether all
//! copies agree), every other output being 0 unless they do, so no party
//! alone decides a public value.
//!
//! **Determinism.** The circuit depends only on the sequence of calls:
//! building the same program twice gives byte-identical canonical forms.
//!
//! The files: `types.rs` (types, shapes, numbers), `value.rs`, `error.rs`,
//! `declare.rs` (the program: declarations, outputs), `bits.rs` and `ring.rs` (element
//! circuits), `ops.rs` (elementwise operators), `reduce.rs`, `convert.rs`,
//! `shape.rs`, `interface.rs`, `data.rs` (encoding), `compile.rs`, `parts.rs`
//! (a compiled program as circuit and interface apart).

mod bits;
mod compile;
mod convert;
mod data;
mod declare;
mod error;
mod interface;
mod ops;
mod parts;
mod reduce;
mod ring;
mod shape;
mod types;
mod value;

pub use compile::CompiledProgram;
pub use data::{Data, PartyInputs};
pub use declare::{Program, Rows, PUBLIC_OK};
pub use error::{ErrorKind, ProgramError, Result};
pub use interface::{InputSpec, Interface, OutputSpec, PublicSpec};
pub use ops::{BinOp, CmpOp, UnOp};
pub use parts::write_canonical_parts;
pub use types::{Number, Shape, Type};
pub use value::{Operand, Receiver, Value};
