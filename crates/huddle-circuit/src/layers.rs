//! Multiplicative depth and the layer schedule protocols follow.
//!
//! Interactive gates (AND of any fan-in, MAND, MUL, conversions) add one to
//! the depth of their deepest input; all other gates are free. A MAND gate is
//! one layer as a whole: all its ANDs go out in the same round, so its outputs
//! take the depth of its deepest input plus one.

use crate::model::{Circuit, WireId};

/// Depth information for one circuit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layering {
    /// Depth of every wire (inputs and constants are depth 0).
    pub wire_depth: Vec<u32>,
    /// The layer of every gate: for an interactive gate the round it needs
    /// (1-based); for a free gate the depth of its output.
    pub gate_layer: Vec<u32>,
    /// The largest depth of any output wire: the rounds an evaluation needs.
    pub depth: u32,
}

impl Layering {
    /// Computes the layering of `circuit`.
    pub fn of(circuit: &Circuit) -> Layering {
        let mut wire_depth = vec![0u32; circuit.num_wires()];
        let mut gate_layer = Vec::with_capacity(circuit.gates().len());
        for g in circuit.gates() {
            let deepest = circuit
                .gate_inputs(g)
                .iter()
                .map(|&w| wire_depth[w as usize])
                .max()
                .unwrap_or(0);
            let layer = deepest + u32::from(g.op.is_interactive());
            for &w in circuit.gate_outputs(g) {
                wire_depth[w as usize] = layer;
            }
            gate_layer.push(layer);
        }
        let depth = circuit
            .outputs()
            .iter()
            .flat_map(|v| v.wires.iter())
            .map(|&w: &WireId| wire_depth[w as usize])
            .max()
            .unwrap_or(0);
        Layering {
            wire_depth,
            gate_layer,
            depth,
        }
    }
}

/// Which gates contribute to some output; the others are dead and can be skipped.
pub(crate) fn live_gates(circuit: &Circuit) -> Vec<bool> {
    let mut live_wire = vec![false; circuit.num_wires()];
    for v in circuit.outputs() {
        for &w in &v.wires {
            live_wire[w as usize] = true;
        }
    }
    let mut live = vec![false; circuit.gates().len()];
    for (i, g) in circuit.gates().iter().enumerate().rev() {
        if circuit
            .gate_outputs(g)
            .iter()
            .any(|&w| live_wire[w as usize])
        {
            live[i] = true;
            for &w in circuit.gate_inputs(g) {
                live_wire[w as usize] = true;
            }
        }
    }
    live
}
