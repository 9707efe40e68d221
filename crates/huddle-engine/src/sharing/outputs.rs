//! The outputs of a slice: opened domain by domain ([`reveal_outputs`]),
//! written into the batch's result as each lane opens them
//! ([`OutputSink`]), or, under the protocols secure against malicious
//! parties, held ([`HeldSlice`]) until every lane has passed the
//! [`RevealGate`].

use super::arith::{self, Bits};
use super::channel::Channel;
use super::program::Program;
use super::protocol::Sharing;
use super::shares::{Arenas, Shares};
use super::with_ring;
use crate::error::RunError;
use crate::transport::REVEAL;
use huddle_circuit::{BitMatrix, Circuit, Domain};
use huddle_net::PartyId;

/// The outputs of a party that learns them: one matrix per output value
/// (rows = instances), filled slice by slice as the lanes open them, so a
/// slice's words are dropped at once and the whole batch's outputs are held
/// once, not gathered and converted in further copies.
pub(super) struct OutputSink<'a> {
    circuit: &'a Circuit,
    program: &'a Program,
    matrices: std::sync::Mutex<Vec<BitMatrix>>,
}

impl<'a> OutputSink<'a> {
    pub(super) fn new(circuit: &'a Circuit, program: &'a Program, instances: usize) -> Self {
        OutputSink {
            circuit,
            program,
            matrices: std::sync::Mutex::new(
                (0..circuit.outputs().len())
                    .map(|o| BitMatrix::zeros(instances, circuit.output_bits(o)))
                    .collect(),
            ),
        }
    }

    /// Writes the opened words of the instances `range` (per domain, every
    /// output wire's words over the range, wires in the order of the values).
    pub(super) fn add(&self, range: &std::ops::Range<usize>, opened: &[Vec<u64>; 2]) {
        // A lane that panicked holding the lock fails the run anyway.
        let mut matrices = self.matrices.lock().unwrap_or_else(|e| e.into_inner());
        let mut wire = [0usize; 2];
        for (v, m) in self.circuit.outputs().iter().zip(matrices.iter_mut()) {
            let (d, wires) = (v.domain as usize, v.wires.len());
            let n = domain_range(self.program.lanes(v.domain), range).len();
            let words = &opened[d][wire[d] * n..(wire[d] + wires) * n];
            wire[d] += wires;
            match (v.domain, self.circuit.ring()) {
                (Domain::Ring, Some(r)) => {
                    let (k, lanes) = (r.bits(), self.program.ring_lanes);
                    for j in 0..wires {
                        let (word, shift) = (j * k as usize / 64, j * k as usize % 64);
                        for (at, inst) in range.clone().enumerate() {
                            let e = arith::lane(words[j * n + at / lanes], k, at % lanes);
                            m.row_mut(inst)[word] |= (e & r.mask()) << shift;
                        }
                    }
                }
                _ => {
                    // Bitsliced: word t of a wire holds instances
                    // range.start + 64t.., so 64x64 blocks transpose into rows.
                    let mut block = [0u64; 64];
                    for b in 0..wires.div_ceil(64) {
                        let live = (wires - 64 * b).min(64);
                        for t in 0..n {
                            for (i, slot) in block.iter_mut().enumerate() {
                                *slot = if i < live {
                                    words[(64 * b + i) * n + t]
                                } else {
                                    0
                                };
                            }
                            huddle_core::bits::transpose_64x64(&mut block);
                            let row = range.start + 64 * t;
                            for (i, &w) in block.iter().enumerate().take(range.end - row) {
                                m.row_mut(row + i)[b] = w;
                            }
                        }
                    }
                }
            }
        }
    }

    pub(super) fn into_matrices(self) -> Vec<BitMatrix> {
        self.matrices
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// The words of `lanes` instances each that hold the instances `range`
/// (whose start is a multiple of `lanes`).
pub(super) fn domain_range(lanes: usize, range: &std::ops::Range<usize>) -> std::ops::Range<usize> {
    range.start / lanes..range.end.div_ceil(lanes)
}

/// Where a slice's outputs are opened from, per domain: the shares and the
/// slots of the output wires in them (the slice's arenas, or its held
/// output shares).
type OutputSource<'a> = [(&'a Shares, &'a [u32]); 2];

/// Opens a slice's outputs (of `instances` instances) to `to` (a role;
/// None: every party), domain by domain where the program reveals one: the
/// opened words per domain at a party that learns them.
pub(super) fn reveal_outputs<P: Sharing>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    instances: usize,
    source: OutputSource,
    to: Option<PartyId>,
) -> Result<Option<[Vec<u64>; 2]>, RunError> {
    ch.announce(REVEAL);
    let mut opened: [Vec<u64>; 2] = Default::default();
    let mut learned = false;
    for d in [Domain::Bit, Domain::Ring] {
        if !program.reveals(d) {
            continue;
        }
        let (shares, slots) = source[d as usize];
        ch.set_encoding(program.encoding(d, instances));
        let got = match d {
            Domain::Bit => protocol.reveal::<Bits>(ch, slots, shares, to)?,
            Domain::Ring => with_ring!(program.ring_lanes, R => {
                protocol.reveal::<R>(ch, slots, shares, to)?
            }),
        };
        if let Some(words) = got {
            opened[d as usize] = words;
            learned = true;
        }
    }
    Ok(learned.then_some(opened))
}

/// A slice's output shares, held until every slice and every lane of the
/// batch has shared its inputs and passed verification (the protocols that
/// claim security against malicious parties): only then may any output be
/// opened, so that a cheating party sees no output of the batch before it
/// has committed to all its inputs (a batch is one joint evaluation).
pub(super) struct HeldSlice {
    pub(super) range: std::ops::Range<usize>,
    /// Per domain, every share component of the output wires' slots, in
    /// the order of [`Program::output_slots`] (slot k: output wire k).
    pub(super) shares: [Shares; 2],
}

impl HeldSlice {
    pub(super) fn take(
        program: &Program,
        arenas: &Arenas,
        range: std::ops::Range<usize>,
    ) -> HeldSlice {
        let shares = [Domain::Bit, Domain::Ring].map(|d| {
            let from = arenas.domain(d);
            let slots = if program.reveals(d) {
                program.output_slots(d)
            } else {
                Vec::new()
            };
            let mut held = Shares::new(slots.len(), from.w, from.components());
            for c in 0..from.components() {
                for (k, &slot) in slots.iter().enumerate() {
                    held.set(c, k as u32, from.get(c, slot));
                }
            }
            held
        });
        HeldSlice { range, shares }
    }
}

/// Where the lanes of a party that hold their outputs wait until every lane
/// has evaluated and verified all its slices; a lane that fails (or panics)
/// opens it for the others, which then reveal nothing.
pub(super) struct RevealGate {
    lanes: usize,
    state: std::sync::Mutex<GateState>,
    changed: std::sync::Condvar,
}

#[derive(Default)]
struct GateState {
    arrived: usize,
    failed: bool,
}

impl RevealGate {
    pub(super) fn new(lanes: usize) -> RevealGate {
        RevealGate {
            lanes,
            state: std::sync::Mutex::new(GateState::default()),
            changed: std::sync::Condvar::new(),
        }
    }

    /// Waits until every lane has arrived (true) or one has failed (false).
    fn arrive_and_wait(&self) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        state.arrived += 1;
        self.changed.notify_all();
        while state.arrived < self.lanes && !state.failed {
            state = match self.changed.wait(state) {
                Ok(s) => s,
                Err(_) => return false,
            };
        }
        !state.failed
    }

    fn fail(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.failed = true;
        }
        self.changed.notify_all();
    }
}

/// Fails the gate when dropped before the lane arrived at it (an error
/// returned early, or a panic), so no other lane waits for it forever.
pub(super) struct GateGuard<'a> {
    pub(super) gate: Option<&'a RevealGate>,
    pub(super) arrived: bool,
}

impl GateGuard<'_> {
    /// Arrives; true when every lane has evaluated its slices.
    pub(super) fn pass(&mut self) -> bool {
        self.arrived = true;
        self.gate.is_none_or(RevealGate::arrive_and_wait)
    }
}

impl Drop for GateGuard<'_> {
    fn drop(&mut self) {
        if let (Some(gate), false) = (self.gate, self.arrived) {
            gate.fail();
        }
    }
}
