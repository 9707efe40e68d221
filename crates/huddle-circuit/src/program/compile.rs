//! Compiling a [`Program`] into a [`CompiledProgram`]: the checked
//! [`Circuit`] (inputs owned as declared, outputs in reveal order) and its
//! [`Interface`]; statistics, the fan-in optimizer and the canonical form
//! on top.

use super::declare::PUBLIC_OK;
use super::error::{usage_error, value_error, Result};
use super::interface::{Interface, OutputSpec};
use super::types::{Shape, Type};
use super::value::Receiver;
use super::Program;
use crate::model::{Circuit, Domain, InputOwners, WireId};
use crate::stats::Stats;
use std::io::{self, Write};

/// A program compiled to a circuit, with its interface.
#[derive(Clone, Debug)]
pub struct CompiledProgram {
    pub(super) circuit: Circuit,
    pub(super) interface: Interface,
}

impl Program {
    /// The circuit of the program and its interface. Building the same
    /// program again gives the same circuit, gate for gate.
    pub fn compile(mut self) -> Result<CompiledProgram> {
        if self.outputs.is_empty() {
            return usage_error("the program reveals nothing: reveal at least one value");
        }
        let mut outputs = std::mem::take(&mut self.outputs);
        if self.parties > 1 && !self.publics.is_empty() {
            self.gate_on_public_agreement(&mut outputs);
        }
        let interface = Interface {
            parties: self.parties,
            ring_bits: self.builder.ring().map(|r| r.bits()),
            inputs: std::mem::take(&mut self.inputs),
            publics: std::mem::take(&mut self.publics),
            outputs: outputs.iter().map(|(spec, _)| spec.clone()).collect(),
            owners: self.owners.clone(),
        };
        for (spec, wires) in outputs {
            match spec.ty.domain() {
                Domain::Bit => self.builder.output(&spec.name, wires),
                Domain::Ring => self.builder.ring_output(&spec.name, wires),
            }
        }
        let mut circuit = self.builder.finish();
        circuit
            .set_owners(InputOwners::Explicit(self.owners))
            .or_else(|e| value_error(format!("compile: {e}")))?;
        Ok(CompiledProgram { circuit, interface })
    }

    /// Adds the output [`PUBLIC_OK`] (every party's copy of every public
    /// parameter equals party 0's) and makes every output 0 unless it is 1.
    fn gate_on_public_agreement(&mut self, outputs: &mut Vec<(OutputSpec, Vec<WireId>)>) {
        let copies = std::mem::take(&mut self.public_copies);
        let mut agree = Vec::new();
        for copies in &copies {
            for other in &copies[1..] {
                agree.push(self.all_equal(&copies[0], other));
            }
        }
        let ok = self.builder.and_all(&agree);
        for (spec, wires) in outputs.iter_mut() {
            for w in wires.iter_mut() {
                *w = match spec.ty.domain() {
                    Domain::Bit => super::bits::and(&mut self.builder, ok, *w),
                    Domain::Ring => self.builder.bits_times(&[ok], *w),
                };
            }
        }
        // The flag goes to whoever learns outputs.
        let first = outputs[0].0.to;
        let to = if outputs.iter().all(|(o, _)| o.to == first) {
            first
        } else {
            Receiver::All
        };
        let spec = OutputSpec {
            name: PUBLIC_OK.into(),
            to,
            ty: Type::Bit,
            shape: Shape::Scalar,
            value: outputs.len(),
        };
        outputs.push((spec, vec![ok]));
    }
}

impl CompiledProgram {
    /// The circuit.
    pub fn circuit(&self) -> &Circuit {
        &self.circuit
    }

    /// The interface.
    pub fn interface(&self) -> &Interface {
        &self.interface
    }

    /// The circuit and the interface.
    pub fn into_parts(self) -> (Circuit, Interface) {
        (self.circuit, self.interface)
    }

    /// The circuit's statistics: gates by operation and fan-in, AND-depth,
    /// ring operations.
    pub fn stats(&self) -> Stats {
        Stats::of(&self.circuit)
    }

    /// The program with its Boolean circuit rewritten by
    /// [`crate::optimize::optimize`] to ANDs of up to `fan_in` inputs
    /// (lower AND-depth); the interface is unchanged. Programs with ring
    /// values cannot be rewritten.
    pub fn optimize(&self, fan_in: usize) -> Result<CompiledProgram> {
        let mut circuit = crate::optimize::optimize(&self.circuit, fan_in, None)
            .or_else(|e| value_error(format!("optimize: {e}")))?;
        circuit
            .set_owners(self.circuit.owners().clone())
            .or_else(|e| value_error(format!("optimize: {e}")))?;
        Ok(CompiledProgram {
            circuit,
            interface: self.interface.clone(),
        })
    }

    /// Writes the circuit's canonical form ([`crate::write_canonical`])
    /// followed by the interface's JSON: everything that decides what the
    /// program computes and how its numbers are read, so that two parties
    /// holding the same bytes run the same program.
    pub fn write_canonical(&self, out: &mut impl Write) -> io::Result<()> {
        super::parts::write_canonical_parts(&self.circuit, &self.interface, out)
    }
}
