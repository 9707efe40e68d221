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
    /// What the gate computes.
    pub op: Op,
    pub(super) first: u32,
    pub(super) inputs: u32,
    pub(super) outputs: u32,
}

impl Gate {
    /// How many input wires the gate reads.
    pub fn num_inputs(&self) -> usize {
        self.inputs as usize
    }

    /// How many output wires the gate writes.
    pub fn num_outputs(&self) -> usize {
        self.outputs as usize
    }
}

/// An input value: a run of consecutive wires owned by one party.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputValue {
    /// The value's name, as in the file or given by the builder.
    pub name: String,
    /// What each of its wires carries.
    pub domain: Domain,
    /// Its first wire; it holds `first_wire..first_wire + wires`.
    pub first_wire: WireId,
    /// How many wires it holds.
    pub wires: u32,
}

/// An output value: any list of wires of one domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputValue {
    /// The value's name, as in the file or given by the builder.
    pub name: String,
    /// What each of its wires carries.
    pub domain: Domain,
    /// Its wires, in the value's order; never empty.
    pub wires: Vec<WireId>,
}

/// The shape of a value before wires are assigned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueSpec {
    /// The value's name.
    pub name: String,
    /// What each of its wires carries.
    pub domain: Domain,
    /// How many wires it will hold.
    pub wires: u32,
}

impl ValueSpec {
    /// A Boolean value of `wires` bits.
    pub fn bits(name: impl Into<String>, wires: u32) -> Self {
        ValueSpec {
            name: name.into(),
            domain: Domain::Bit,
            wires,
        }
    }

    /// An arithmetic value of `wires` ring elements.
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

    /// How many wires the circuit has, inputs included.
    pub fn num_wires(&self) -> usize {
        self.domains.len()
    }

    /// The ring of the arithmetic wires, if the circuit has any.
    pub fn ring(&self) -> Option<RingWidth> {
        self.ring
    }

    /// What `wire` carries. Panics if `wire` is out of range.
    pub fn domain(&self, wire: WireId) -> Domain {
        self.domains[wire as usize]
    }

    /// The input values, in order; they occupy the first wires.
    pub fn inputs(&self) -> &[InputValue] {
        &self.inputs
    }

    /// The output values, in order.
    pub fn outputs(&self) -> &[OutputValue] {
        &self.outputs
    }

    /// The gates, in topological order.
    pub fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// The operands of all gates together (inputs and outputs).
    pub fn num_operands(&self) -> usize {
        self.operands.len()
    }

    /// The wires gate `g` of this circuit reads.
    pub fn gate_inputs(&self, g: &Gate) -> &[WireId] {
        &self.operands[g.first as usize..][..g.inputs as usize]
    }

    /// The wires gate `g` of this circuit writes.
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

    /// Bits of input value `i`.
    pub fn input_bits(&self, i: usize) -> usize {
        self.value_bits(self.inputs[i].domain, self.inputs[i].wires)
    }

    /// Bits of output value `i`.
    pub fn output_bits(&self, i: usize) -> usize {
        self.value_bits(self.outputs[i].domain, self.outputs[i].wires.len() as u32)
    }

    /// Which party provides each input value.
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
    /// A wire number at or beyond the declared wire count.
    #[error("wire {wire} is out of range: the circuit has {wires} wires")]
    WireOutOfRange {
        /// The offending wire number.
        wire: u64,
        /// The declared wire count.
        wires: u64,
    },
    /// A gate reads a wire no earlier gate or input wrote.
    #[error("wire {wire} is read before it is written")]
    ReadBeforeWrite {
        /// The wire read.
        wire: WireId,
    },
    /// A gate writes a wire already written.
    #[error("wire {wire} is written twice")]
    WrittenTwice {
        /// The wire written again.
        wire: WireId,
    },
    /// A gate has the wrong number of inputs or outputs for its op.
    #[error("{op} expects {expected}, got {inputs} inputs and {outputs} outputs")]
    Arity {
        /// The op's name in circuit files.
        op: &'static str,
        /// The arity the op needs, in words.
        expected: String,
        /// Input wires given.
        inputs: usize,
        /// Output wires given.
        outputs: usize,
    },
    /// A gate reads a wire of the wrong domain.
    #[error("{op} needs {expected} input wires, but wire {wire} is {found}")]
    WrongDomain {
        /// The op's name in circuit files.
        op: &'static str,
        /// The wire read.
        wire: WireId,
        /// The domain the op needs.
        expected: Domain,
        /// The domain the wire carries.
        found: Domain,
    },
    /// An arithmetic gate in a circuit without a ring.
    #[error("{op} is an arithmetic gate, but the circuit declares no ring")]
    NoRing {
        /// The op's name in circuit files.
        op: &'static str,
    },
    /// A constant outside the range of what it is used as.
    #[error("constant {value} does not fit {what}")]
    ConstantTooLarge {
        /// The constant.
        value: u64,
        /// What it must fit, in words.
        what: String,
    },
    /// The input values need more wires than the circuit declares.
    #[error("the input values need {needed} wires, but the circuit has {wires}")]
    InputsExceedWires {
        /// Wires the input values need together.
        needed: u64,
        /// The declared wire count.
        wires: u64,
    },
    /// An output value with no wires.
    #[error("output value {name} has no wires")]
    EmptyOutput {
        /// The output value's name.
        name: String,
    },
    /// An output names a wire that nothing writes.
    #[error("output {name}: wire {wire} is never written")]
    OutputUnwritten {
        /// The output value's name.
        name: String,
        /// The unwritten wire.
        wire: WireId,
    },
    /// An output wire whose domain differs from the output's declared domain.
    #[error("output {name} is declared {declared} but wire {wire} is {found}")]
    OutputDomain {
        /// The output value's name.
        name: String,
        /// The output's declared domain.
        declared: Domain,
        /// The wire in question.
        wire: WireId,
        /// The domain the wire carries.
        found: Domain,
    },
    /// Some declared wires are never written.
    #[error("{written} of the {wires} declared wires are written; every wire must be written exactly once")]
    UnwrittenWires {
        /// Wires written.
        written: u64,
        /// The declared wire count.
        wires: u64,
    },
    /// An explicit owner list whose length differs from the number of input values.
    #[error("{given} input owners given for {inputs} input values")]
    OwnerCount {
        /// Owners given.
        given: usize,
        /// Input values in the circuit.
        inputs: usize,
    },
    /// The circuit exceeds a limit of the compact representation (wire and operand indices are `u32`).
    #[error("the circuit is too large: {what}")]
    TooLarge {
        /// Which limit, in words.
        what: String,
    },
}
