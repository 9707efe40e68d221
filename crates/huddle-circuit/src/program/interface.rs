//! What a compiled program takes and gives, in the user's terms: every
//! input with its party, type, shape and (for variable-length inputs) its
//! maximum of rows; the public parameters; every output with its
//! receiver. [`Interface`] is serializable (JSON) so that it can travel
//! with the circuit; `data.rs` turns numbers into the circuit's input rows
//! and its output rows back into numbers.

use super::error::{usage_error, Result};
use super::types::{Shape, Type};
use super::value::Receiver;
use serde::{Deserialize, Serialize};

/// A secret input of one party.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputSpec {
    /// Its name, unique among inputs and public parameters.
    pub name: String,
    /// The party that gives it.
    pub party: usize,
    /// The type of its elements.
    pub ty: Type,
    /// Its shape; for a variable-length input, (max,) or (max, columns).
    pub shape: Shape,
    /// For a variable-length input, the most rows it takes.
    pub max_rows: Option<usize>,
    /// Its circuit input values: the elements, then (variable length) the
    /// validity bits.
    pub values: Vec<usize>,
}

/// A public parameter: each party gives a copy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicSpec {
    /// Its name, unique among inputs and public parameters.
    pub name: String,
    /// The type of its elements.
    pub ty: Type,
    /// Its shape.
    pub shape: Shape,
    /// The circuit input value of party p's copy at index p.
    pub values: Vec<usize>,
}

/// An output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputSpec {
    /// Its name, unique among outputs.
    pub name: String,
    /// Who learns it.
    pub to: Receiver,
    /// The type of its elements.
    pub ty: Type,
    /// Its shape.
    pub shape: Shape,
    /// Its circuit output value.
    pub value: usize,
}

/// The interface of a compiled program. See the module documentation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interface {
    /// The number of parties.
    pub parties: usize,
    /// k of the ring Z_2^k, if the program computes in one.
    pub ring_bits: Option<u32>,
    /// The secret inputs, in declaration order.
    pub inputs: Vec<InputSpec>,
    /// The public parameters, in declaration order.
    pub publics: Vec<PublicSpec>,
    /// The outputs, in the circuit's order.
    pub outputs: Vec<OutputSpec>,
    /// The party that gives each circuit input value, in order.
    pub owners: Vec<usize>,
}

impl Interface {
    /// The circuit input values `party` gives, in order.
    pub fn owned_by(&self, party: usize) -> Vec<usize> {
        (0..self.owners.len())
            .filter(|&i| self.owners[i] == party)
            .collect()
    }

    /// The input named `name`.
    pub fn input(&self, name: &str) -> Option<&InputSpec> {
        self.inputs.iter().find(|i| i.name == name)
    }

    /// The public parameter named `name`.
    pub fn public(&self, name: &str) -> Option<&PublicSpec> {
        self.publics.iter().find(|p| p.name == name)
    }

    /// The output named `name`.
    pub fn output(&self, name: &str) -> Option<&OutputSpec> {
        self.outputs.iter().find(|o| o.name == name)
    }

    /// The one party every output goes to (`None`: every party), for an
    /// engine that reveals all outputs of a run to the same receivers;
    /// an error naming two outputs if they go to different ones.
    pub fn common_receiver(&self) -> Result<Option<usize>> {
        let Some(first) = self.outputs.first() else {
            return Ok(None);
        };
        if let Some(other) = self.outputs.iter().find(|o| o.to != first.to) {
            return usage_error(format!(
                "outputs go to different receivers ({:?} to {}, {:?} to {}); \
                 a run reveals all its outputs to the same receivers",
                first.name, first.to, other.name, other.to
            ));
        }
        Ok(match first.to {
            Receiver::All => None,
            Receiver::Party(p) => Some(p),
        })
    }

    /// Whether `party` learns output `output`.
    pub fn learns(&self, party: usize, output: usize) -> bool {
        match self.outputs[output].to {
            Receiver::All => true,
            Receiver::Party(p) => p == party,
        }
    }

    /// The interface as JSON: one text per interface, fields in a fixed
    /// order, so that it can be hashed with the circuit.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("an interface serializes")
    }
}
