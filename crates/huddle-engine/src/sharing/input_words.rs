//! A party's own input values as share-domain words, as every lane of the
//! party reads them (each lane its instances).

use huddle_circuit::{BitMatrix, Circuit, Domain};
use huddle_net::PartyId;

/// The input values of one domain, as every lane sees them.
pub(super) struct DomainValues {
    /// Per value of this domain (in input order), the slot of each wire.
    pub(super) slots: Vec<Vec<u32>>,
    pub(super) owners: Vec<PartyId>,
    /// This party's values.
    pub(super) own: Vec<Option<OwnWords>>,
    /// Words per wire of the whole batch.
    pub(super) total: usize,
}

/// One of this party's input values as share-domain words.
pub(super) enum OwnWords {
    /// Over the whole batch, wire-major (`total` words per wire).
    Whole(Vec<u64>),
    /// Input value `.0`, drawn for each slice when it is shared.
    Drawn(usize, crate::inputs::RandomRows),
}

/// The ring whose elements input value `i`'s words pack, if they do (else
/// they are its rows transposed: a word per wire and 64 instances).
pub(super) fn packed_ring(circuit: &Circuit, i: usize) -> Option<huddle_core::RingWidth> {
    circuit
        .ring()
        .filter(|_| circuit.inputs()[i].domain == Domain::Ring)
}

/// Input value `i` (rows = instances) as share-domain words, wire-major:
/// Boolean wires as bitsliced rows, ring wires as `lanes` elements per word
/// (padding lanes zero).
pub(super) fn to_wire_words(circuit: &Circuit, i: usize, m: BitMatrix, lanes: usize) -> Vec<u64> {
    let wires = circuit.inputs()[i].wires as usize;
    match packed_ring(circuit, i) {
        Some(r) => {
            let k = r.bits() as usize;
            let w = m.rows().div_ceil(lanes);
            let mut out = vec![0u64; wires * w];
            for (j, wire) in out.chunks_exact_mut(w.max(1)).enumerate().take(wires) {
                let (word, shift) = (j * k / 64, j * k % 64);
                for inst in 0..m.rows() {
                    let e = (m.row(inst)[word] >> shift) & r.mask();
                    wire[inst / lanes] |= e << (k * (inst % lanes) % 64);
                }
            }
            out
        }
        None => {
            let t = m.transpose();
            drop(m);
            t.into_words()
        }
    }
}
