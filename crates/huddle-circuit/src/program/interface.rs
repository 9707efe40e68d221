//! What a compiled program takes and gives, in the user's terms: every
//! input with its party, type, shape and (for variable-length inputs) its
//! maximum of rows; the public parameters; every output with its
//! receiver. [`Interface`] is serializable (JSON) so that it can travel
//! with the circuit; `data.rs` turns numbers into the circuit's input rows
//! and its output rows back into numbers.

use super::error::{value_error, Result};
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
    /// For an output to one party that the run reveals to every party (the
    /// outputs go to different receivers): the circuit input value of that
    /// party's one-time pad, which the circuit adds to the output before
    /// revealing it (see `receivers.rs`).
    pub mask: Option<usize>,
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

    /// The SHA-256 of [`Interface::to_json`], as 64 lowercase hex digits.
    /// Two programs may compile to the same circuit yet read its numbers
    /// differently (`u32` or `i32`, other names or receivers): a party's
    /// hello carries this digest beside the circuit's hash, so that hosts
    /// holding different interfaces stop at connect.
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        Sha256::digest(self.to_json().as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The interface in `json` (as [`Interface::to_json`] writes it), checked:
    /// every circuit input value belongs to an existing party, every input,
    /// public copy and pad to the party that gives it, outputs numbered in
    /// order, and no output to one party revealed to others unmasked
    /// ([`Interface::reveal_to`]). An interface read from a file is data.
    pub fn from_json(json: &str) -> Result<Interface> {
        let iface: Interface = serde_json::from_str(json)
            .or_else(|e| value_error(format!("the interface is not valid: {e}")))?;
        iface.check()?;
        Ok(iface)
    }

    fn check(&self) -> Result<()> {
        let bad = |what: String| value_error(format!("the interface is not valid: {what}"));
        if let Some(&p) = self.owners.iter().find(|&&p| p >= self.parties) {
            return bad(format!(
                "party {p} gives an input, of {} parties",
                self.parties
            ));
        }
        let owned = |i: usize, p: usize| self.owners.get(i) == Some(&p);
        for spec in &self.inputs {
            if spec.values.is_empty() || !spec.values.iter().all(|&i| owned(i, spec.party)) {
                return bad(format!(
                    "input {:?} is not party {}'s",
                    spec.name, spec.party
                ));
            }
        }
        for spec in &self.publics {
            if spec.values.len() != self.parties
                || !spec.values.iter().enumerate().all(|(p, &i)| owned(i, p))
            {
                return bad(format!("public {:?} is not one copy per party", spec.name));
            }
        }
        if let Some((i, o)) = self.outputs.iter().enumerate().find(|(i, o)| o.value != *i) {
            return bad(format!(
                "output {:?} is numbered {}, not {i}",
                o.name, o.value
            ));
        }
        self.reveal_to().map(|_| ())
    }
}
