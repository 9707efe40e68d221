//! Local work between messages ([`Work`]): what a script says a party
//! computes, in units a host's rates price (`crate::time::Rates`).

use serde::{Deserialize, Serialize};

/// A unit of local work a party does between its messages, as the time
/// model counts it ([`Rates::seconds`](crate::Rates::seconds) prices one).
/// The secret-sharing engine works on words: 64 instances of a Boolean
/// wire, or one (or 64/k packed) ring elements, so its units are per gate
/// and word; garbling's are per gate and instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Work {
    /// One Boolean multiplication (an AND, per input beyond the first of a
    /// multi-fan-in gate) on one word of 64 instances: the local part of a
    /// secret-sharing layer (masks, products, the protocol's own
    /// arithmetic).
    BitGateWord,
    /// One ring multiplication (per input beyond the first) on one word.
    RingGateWord,
    /// One linear gate (XOR, addition, constant) on one word.
    LinearWord,
    /// One Boolean input or output wire on one word of 64 instances:
    /// sharing it (masks drawn, the instances transposed into words) or
    /// opening it (shares combined, transposed back). Every party does it
    /// for every wire, whoever owns or learns it.
    BitIoWord,
    /// One ring input or output wire on one word, shared or opened.
    RingIoWord,
    /// Garbling one AND (or buffer) gate of one instance: a party's share
    /// of the garbled rows (offline and function-dependent phases).
    GarbleGate,
    /// Garbling's handling of one instance, whatever its circuit: its
    /// randomness drawn, its state allocated, its shares encoded
    /// (offline and function-dependent phases).
    GarbleInstance,
    /// Garbling's handling of one wire of one instance: a party's keys
    /// and λ share of it (offline and function-dependent phases; every
    /// wire keeps its slot through every phase).
    GarbleWire,
    /// Evaluating one garbled AND (or buffer) gate of one instance
    /// (online).
    EvaluateGate,
    /// The online handling of one instance, whatever its circuit: its
    /// keys loaded and its outputs decoded.
    EvaluateInstance,
    /// One step of the evaluator's walk over one instance: a free gate,
    /// or the PRF batch of an AND layer.
    EvaluateStep,
    /// One gate of the clear evaluation (the TTP) on one word of 64
    /// instances.
    ClearGateWord,
}

impl Work {
    /// Every unit, in order.
    pub const ALL: [Work; 12] = [
        Work::BitGateWord,
        Work::RingGateWord,
        Work::LinearWord,
        Work::BitIoWord,
        Work::RingIoWord,
        Work::GarbleInstance,
        Work::GarbleGate,
        Work::GarbleWire,
        Work::EvaluateInstance,
        Work::EvaluateGate,
        Work::EvaluateStep,
        Work::ClearGateWord,
    ];

    /// The unit's name, as rates files and explanations spell it.
    pub fn name(self) -> &'static str {
        match self {
            Work::BitGateWord => "bit_gate_word",
            Work::RingGateWord => "ring_gate_word",
            Work::LinearWord => "linear_word",
            Work::BitIoWord => "bit_io_word",
            Work::RingIoWord => "ring_io_word",
            Work::GarbleGate => "garble_gate",
            Work::GarbleInstance => "garble_instance",
            Work::GarbleWire => "garble_wire",
            Work::EvaluateGate => "evaluate_gate",
            Work::EvaluateInstance => "evaluate_instance",
            Work::EvaluateStep => "evaluate_step",
            Work::ClearGateWord => "clear_gate_word",
        }
    }
}
