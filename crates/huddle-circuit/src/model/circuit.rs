//! The finished circuit and its parts: [`Gate`] (an op and a span of the
//! operand pool), the input and output values, input ownership,
//! [`Circuit`] with its accessors, and [`ModelError`], why a circuit is not
//! well formed. Only the assembler (`assembler.rs`) makes a `Circuit` with
//! gates, which is why the fields are visible within the model and no
//! further.

use super::op::{Domain, Op};
use huddle_core::RingWidth;

/// Index of a wire.
pub type WireId = u32;

/// Index of a party.
pub type PartyId = usize;

/// A contiguous run of the operand pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gate {
    pub op: Op,
    pub(super) first: u32,
    pub(super) inputs: u32,
    pub(super) outputs: u32,
}

impl Gate {
    pub fn num_inputs(&self) -> usize {
        self.inputs as usize
    }

    pub fn num_outputs(&self) -> usize {
        self.outputs as usize
    }
}

/// An input value: a run of consecutive wires owned by one party.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputValue {
    pub name: String,
    pub domain: Domain,
    pub first_wire: WireId,
    pub wires: u32,
}

/// An output value: any list of wires of one domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputValue {
    pub name: String,
    pub domain: Domain,
    pub wires: Vec<WireId>,
}

/// The shape of a value before wires are assigned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueSpec {
    pub name: String,
    pub domain: Domain,
    pub wires: u32,
}

impl ValueSpec {
    pub fn bits(name: impl Into<String>, wires: u32) -> Self {
        ValueSpec {
            name: name.into(),
            domain: Domain::Bit,
            wires,
        }
    }

    pub fn ring(name: impl Into<String>, wires: u32) -> Self {
        ValueSpec {
            name: name.into(),
            domain: Domain::Ring,
            wires,
        }
    }
}

/// Which party provides each input value.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum InputOwners {
    /// Input value i belongs to party i mod n.
    #[default]
    RoundRobin,
    /// Input value i belongs to party `owners[i]`.
    Explicit(Vec<PartyId>),
}

/// A well-formed circuit. See the module documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Circuit {
    pub(super) ring: Option<RingWidth>,
    pub(super) domains: Vec<Domain>,
    pub(super) inputs: Vec<InputValue>,
    pub(super) outputs: Vec<OutputValue>,
    pub(super) gates: Vec<Gate>,
    pub(super) operands: Vec<WireId>,
    pub(super) owners: InputOwners,
}

impl Circuit {
    /// The circuit's interface: its values, owners, ring and wire domains,
    /// without gates. For what needs only the values' shapes once the gates
    /// are compiled (a party's inputs and outputs), so that a large circuit's
    /// gates need not stay in memory for the whole run. Its outputs are
    /// computed by nothing: never evaluate it.
    pub fn interface(&self) -> Circuit {
        Circuit {
            ring: self.ring,
            domains: self.domains.clone(),
            inputs: self.inputs.clone(),
            outputs: self.outputs.clone(),
            gates: Vec::new(),
            operands: Vec::new(),
            owners: self.owners.clone(),
        }
    }

    pub fn num_wires(&self) -> usize {
        self.domains.len()
    }

    /// The ring of the arithmetic wires, if the circuit has any.
    pub fn ring(&self) -> Option<RingWidth> {
        self.ring
    }

    pub fn domain(&self, wire: WireId) -> Domain {
        self.domains[wire as usize]
    }

    pub fn inputs(&self) -> &[InputValue] {
        &self.inputs
    }

    pub fn outputs(&self) -> &[OutputValue] {
        &self.outputs
    }

    pub fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// The operands of all gates together (inputs and outputs).
    pub fn num_operands(&self) -> usize {
        self.operands.len()
    }

    pub fn gate_inputs(&self, g: &Gate) -> &[WireId] {
        &self.operands[g.first as usize..][..g.inputs as usize]
    }

    pub fn gate_outputs(&self, g: &Gate) -> &[WireId] {
        &self.operands[(g.first + g.inputs) as usize..][..g.outputs as usize]
    }

    /// Whether the circuit has only Boolean wires.
    pub fn is_boolean(&self) -> bool {
        self.ring.is_none()
    }

    /// Bits of value `wires` wires of `domain` in this circuit (ring wires count k bits each).
    pub fn value_bits(&self, domain: Domain, wires: u32) -> usize {
        match domain {
            Domain::Bit => wires as usize,
            Domain::Ring => wires as usize * self.ring.map_or(0, |r| r.bits() as usize),
        }
    }

    pub fn input_bits(&self, i: usize) -> usize {
        self.value_bits(self.inputs[i].domain, self.inputs[i].wires)
    }

    pub fn output_bits(&self, i: usize) -> usize {
        self.value_bits(self.outputs[i].domain, self.outputs[i].wires.len() as u32)
    }

    pub fn owners(&self) -> &InputOwners {
        &self.owners
    }

    /// The party that provides input value `input` when `parties` parties take part.
    pub fn owner(&self, input: usize, parties: usize) -> PartyId {
        match &self.owners {
            InputOwners::RoundRobin => input % parties.max(1),
            InputOwners::Explicit(owners) => owners[input],
        }
    }

    /// Assigns input values to parties. Fails if the list has the wrong length.
    pub fn set_owners(&mut self, owners: InputOwners) -> Result<(), ModelError> {
        if let InputOwners::Explicit(list) = &owners {
            if list.len() != self.inputs.len() {
                return Err(ModelError::OwnerCount {
                    given: list.len(),
                    inputs: self.inputs.len(),
                });
            }
        }
        self.owners = owners;
        Ok(())
    }
}

/// Why a circuit is not well formed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("wire {wire} is out of range: the circuit has {wires} wires")]
    WireOutOfRange { wire: u64, wires: u64 },
    #[error("wire {wire} is read before it is written")]
    ReadBeforeWrite { wire: WireId },
    #[error("wire {wire} is written twice")]
    WrittenTwice { wire: WireId },
    #[error("{op} expects {expected}, got {inputs} inputs and {outputs} outputs")]
    Arity {
        op: &'static str,
        expected: String,
        inputs: usize,
        outputs: usize,
    },
    #[error("{op} needs {expected} input wires, but wire {wire} is {found}")]
    WrongDomain {
        op: &'static str,
        wire: WireId,
        expected: Domain,
        found: Domain,
    },
    #[error("{op} is an arithmetic gate, but the circuit declares no ring")]
    NoRing { op: &'static str },
    #[error("constant {value} does not fit {what}")]
    ConstantTooLarge { value: u64, what: String },
    #[error("the input values need {needed} wires, but the circuit has {wires}")]
    InputsExceedWires { needed: u64, wires: u64 },
    #[error("output value {name} has no wires")]
    EmptyOutput { name: String },
    #[error("output {name}: wire {wire} is never written")]
    OutputUnwritten { name: String, wire: WireId },
    #[error("output {name} is declared {declared} but wire {wire} is {found}")]
    OutputDomain {
        name: String,
        declared: Domain,
        wire: WireId,
        found: Domain,
    },
    #[error("{written} of the {wires} declared wires are written; every wire must be written exactly once")]
    UnwrittenWires { written: u64, wires: u64 },
    #[error("{given} input owners given for {inputs} input values")]
    OwnerCount { given: usize, inputs: usize },
    #[error("the circuit is too large: {what}")]
    TooLarge { what: String },
}
