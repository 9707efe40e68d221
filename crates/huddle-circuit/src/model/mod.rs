//! The circuit model: wires, gates and named input/output values.
//!
//! A circuit is a list of gates in topological order over numbered wires.
//! Each wire carries either one bit (Boolean domain) or one element of the
//! circuit's ring Z_2^k (arithmetic domain). Every gate is stored in one
//! compact shape — an operation plus a span of the shared operand pool
//! holding its input wires followed by its output wires — so that every
//! walker (evaluators, protocols, statistics, writers, optimizers) handles
//! all gates the same way and reading a 100 MB file allocates nothing per gate.
//!
//! Circuits are built only through [`CircuitAssembler`], which checks every
//! gate as it is added; a [`Circuit`] value is therefore always well formed.
//!
//! The parts, each file using only those listed before it: `op.rs` (what
//! wires carry and what gates do, and the limits on gates), `circuit.rs`
//! (the circuit, its values and [`ModelError`]), `assembler.rs` (the checks
//! every gate passes on its way in).

mod assembler;
mod circuit;
mod op;

pub use assembler::CircuitAssembler;
pub use circuit::{
    Circuit, Gate, InputOwners, InputValue, ModelError, OutputValue, PartyId, ValueSpec, WireId,
};
pub use op::{Domain, Op, MAX_DOT_LEN, MAX_FAN_IN, MAX_INJECT_BITS};
