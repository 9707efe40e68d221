//! huddle's circuit layer: the circuit model ([`Circuit`], built only through
//! the checking [`CircuitAssembler`]), its file formats, layering by
//! multiplicative depth, statistics, hex value encoding, the compiled
//! [`Schedule`] every interpreter walks and the bitsliced plaintext evaluator
//! that is the oracle for every protocol. On top of the model: the
//! [`builder::Builder`] for writing circuits in code, the generators built
//! with it ([`gen`], [`aes`], [`sha256`], [`apps`], [`aggregates`]), typed
//! secret programs compiled with it ([`program`]), the
//! fan-in rewrites ([`rewrite`], [`optimize`]) and seeded random circuits
//! and the public known-answer collection for tests ([`random`], [`corpus`]).
//! The only I/O is reading and writing circuit files and loading the collection.
#![warn(missing_docs, unreachable_pub)]

pub mod format;
pub mod model;

pub use format::{
    read_circuit, read_circuit_file, read_circuit_with, write_canonical, write_circuit, Format,
    ReadError, ReadOptions,
};
pub use model::{
    Circuit, CircuitAssembler, Domain, Gate, InputOwners, ModelError, Op, PartyId, ValueSpec,
    WireId,
};

pub mod hex;
mod layers;
mod schedule;
mod stats;

pub use layers::Layering;
pub use schedule::{Order, Schedule, ScheduleOptions, SlotGate, Storage};
pub use stats::{ArithmeticStats, Stats};
pub mod eval;
pub mod reference;

pub use eval::{EvalError, EvalOptions, PlainEvaluator, Program};
pub mod corpus;
pub mod random;
pub use huddle_core::BitMatrix;
pub mod aes;
pub mod aggregates;
pub mod apps;
pub mod builder;
mod carry;
pub mod gen;
pub mod optimize;
pub mod program;
pub mod rewrite;
pub mod sha256;
