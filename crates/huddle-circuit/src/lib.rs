//! huddle's circuit layer: the circuit model, its file formats, layering by
//! multiplicative depth, statistics, hex value encoding and the bitsliced
//! plaintext evaluator that is the oracle for every protocol.

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
pub mod layers;
pub mod schedule;
pub mod stats;

pub use layers::Layering;
pub use schedule::{Order, Schedule, ScheduleOptions, SlotGate, Storage};
pub use stats::Stats;
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
pub mod rewrite;
pub mod sha256;
