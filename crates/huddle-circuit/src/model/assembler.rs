//! [`CircuitAssembler`], the one way to build a [`Circuit`] with gates: it
//! checks each gate as it arrives (arity, domains, written inputs, fresh
//! outputs) so a reader can attach a file position to the first problem, and
//! grows its wire table on demand so a hostile header cannot force a large
//! allocation.

use super::circuit::{
    Circuit, Gate, InputOwners, InputValue, ModelError, OutputValue, ValueSpec, WireId,
};
use super::op::{Domain, Op, MAX_DOT_LEN, MAX_FAN_IN, MAX_INJECT_BITS};
use huddle_core::RingWidth;

/// Wire state during assembly: not yet written, or written with a domain.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Unwritten,
    Written(Domain),
}

/// Builds a [`Circuit`] gate by gate, checking each gate as it arrives so a
/// reader can attach a file position to the first problem.
pub struct CircuitAssembler {
    ring: Option<RingWidth>,
    num_wires: u64,
    /// The state of wires from `input_wires` on, grown on demand, so a
    /// hostile header cannot make us allocate up front. Input wires are
    /// written by definition and looked up in `inputs`.
    slots: Vec<Slot>,
    input_wires: u64,
    written: u64,
    inputs: Vec<InputValue>,
    gates: Vec<Gate>,
    operands: Vec<WireId>,
}

impl CircuitAssembler {
    /// Starts a circuit of `num_wires` wires whose first wires are the inputs.
    pub fn new(
        num_wires: u64,
        ring: Option<RingWidth>,
        inputs: Vec<ValueSpec>,
    ) -> Result<Self, ModelError> {
        if num_wires > u64::from(u32::MAX) {
            return Err(ModelError::TooLarge {
                what: format!("{num_wires} wires (at most {})", u32::MAX),
            });
        }
        let needed: u64 = inputs.iter().map(|v| u64::from(v.wires)).sum();
        if needed > num_wires {
            return Err(ModelError::InputsExceedWires {
                needed,
                wires: num_wires,
            });
        }
        if ring.is_none() && inputs.iter().any(|v| v.domain == Domain::Ring) {
            return Err(ModelError::NoRing {
                op: "an arithmetic input value",
            });
        }
        let mut values = Vec::with_capacity(inputs.len());
        let mut first_wire: WireId = 0;
        for v in inputs {
            values.push(InputValue {
                name: v.name,
                domain: v.domain,
                first_wire,
                wires: v.wires,
            });
            // Fits: the sum of all widths is at most `num_wires` < 2^32.
            first_wire += v.wires;
        }
        Ok(CircuitAssembler {
            ring,
            num_wires,
            written: needed,
            input_wires: needed,
            slots: Vec::new(),
            inputs: values,
            gates: Vec::new(),
            operands: Vec::new(),
        })
    }

    /// The wire count the circuit declares.
    pub fn num_wires(&self) -> u64 {
        self.num_wires
    }

    /// The ring of the arithmetic wires, if the circuit has any.
    pub fn ring(&self) -> Option<RingWidth> {
        self.ring
    }

    /// The input values, in order; they occupy the first wires.
    pub fn inputs(&self) -> &[InputValue] {
        &self.inputs
    }

    /// Reserves room for `gates` more gates (callers cap untrusted counts).
    pub fn reserve(&mut self, gates: usize) {
        self.gates.reserve(gates);
        self.operands.reserve(gates * 3);
    }

    /// Domain of a wire already written, if any.
    pub fn domain_of(&self, wire: WireId) -> Option<Domain> {
        if u64::from(wire) < self.input_wires {
            return Some(self.input_domain(wire));
        }
        match self
            .slots
            .get((u64::from(wire) - self.input_wires) as usize)
        {
            Some(Slot::Written(d)) => Some(*d),
            _ => None,
        }
    }

    /// The number of wires that carry input values (the first ones).
    pub fn input_wires(&self) -> u64 {
        self.input_wires
    }

    /// The number of wires written so far (inputs included).
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The domain of input wire `wire` (< `input_wires`).
    fn input_domain(&self, wire: WireId) -> Domain {
        let i = self.inputs.partition_point(|v| v.first_wire <= wire);
        // i >= 1: the first value starts at wire 0.
        self.inputs[i.saturating_sub(1)].domain
    }

    /// Adds one gate after checking arity, domains, and that inputs are
    /// written and outputs are fresh. Nothing is added if it fails.
    pub fn push(
        &mut self,
        op: Op,
        inputs: &[WireId],
        outputs: &[WireId],
    ) -> Result<(), ModelError> {
        let (ni, no) = (inputs.len(), outputs.len());
        let arity = |expected: &str| ModelError::Arity {
            op: op.name(),
            expected: expected.into(),
            inputs: ni,
            outputs: no,
        };
        let in_domain = match op {
            Op::Xor | Op::Inv | Op::And | Op::Mand | Op::BitInject => Some(Domain::Bit),
            Op::Add
            | Op::Sub
            | Op::Neg
            | Op::Mul
            | Op::AddConst(_)
            | Op::MulConst(_)
            | Op::BitDecompose
            | Op::Dot
            | Op::DotTrunc(_)
            | Op::Ltz
            | Op::Eqz => Some(Domain::Ring),
            // Bits, then the ring factor: checked below.
            Op::ConstBit(_) | Op::ConstRing(_) | Op::Copy | Op::BitMul => None,
        };
        let (ok, expected) = match op {
            Op::Xor | Op::Sub => (ni == 2 && no == 1, "2 inputs and 1 output"),
            Op::Inv
            | Op::Copy
            | Op::Neg
            | Op::AddConst(_)
            | Op::MulConst(_)
            | Op::Ltz
            | Op::Eqz => (ni == 1 && no == 1, "1 input and 1 output"),
            Op::BitInject => (
                (1..=MAX_INJECT_BITS).contains(&ni) && no == 1,
                "1 to 3 inputs and 1 output",
            ),
            Op::BitMul => (
                (2..=MAX_INJECT_BITS + 1).contains(&ni) && no == 1,
                "1 to 3 bit inputs, a ring input and 1 output",
            ),
            Op::Dot | Op::DotTrunc(_) => (
                ni >= 2 && ni % 2 == 0 && ni / 2 <= MAX_DOT_LEN && no == 1,
                "2l inputs (l = 1 to 65536) and 1 output",
            ),
            Op::ConstBit(_) | Op::ConstRing(_) => {
                (ni == 0 && no == 1, "no input wires and 1 output")
            }
            Op::And | Op::Add | Op::Mul => (
                (2..=MAX_FAN_IN).contains(&ni) && no == 1,
                "2 to 16 inputs and 1 output",
            ),
            Op::Mand => (no >= 1 && ni == 2 * no, "2k inputs and k outputs"),
            Op::BitDecompose => (
                ni == 1 && Some(no as u32) == self.ring.map(|r| r.bits()),
                "1 input and one output per bit of the ring",
            ),
        };
        if !ok {
            return Err(arity(expected));
        }
        let uses_ring = in_domain == Some(Domain::Ring)
            || matches!(op, Op::ConstRing(_) | Op::BitInject | Op::BitMul);
        if uses_ring && self.ring.is_none() {
            return Err(ModelError::NoRing { op: op.name() });
        }
        if let (Op::DotTrunc(f), Some(r)) = (op, self.ring) {
            if f == 0 || u32::from(f) >= r.bits() {
                return Err(ModelError::ConstantTooLarge {
                    value: u64::from(f),
                    what: format!("a truncation of {r} (1 to {} bits)", r.bits() - 1),
                });
            }
        }
        if let (Op::AddConst(c) | Op::MulConst(c) | Op::ConstRing(c), Some(r)) = (op, self.ring) {
            if c > r.mask() {
                return Err(ModelError::ConstantTooLarge {
                    value: c,
                    what: r.to_string(),
                });
            }
        }
        let mut copied = None;
        for (i, &w) in inputs.iter().enumerate() {
            // BX2A: bits, then the ring factor.
            let in_domain = match op {
                Op::BitMul if i + 1 == ni => Some(Domain::Ring),
                Op::BitMul => Some(Domain::Bit),
                _ => in_domain,
            };
            let found = match self.slot(w)? {
                Slot::Written(d) => d,
                Slot::Unwritten => return Err(ModelError::ReadBeforeWrite { wire: w }),
            };
            match in_domain {
                Some(expected) if expected != found => {
                    return Err(ModelError::WrongDomain {
                        op: op.name(),
                        wire: w,
                        expected,
                        found,
                    })
                }
                _ => copied = Some(found),
            }
        }
        let out_domain = match op {
            Op::Copy => copied.unwrap_or(Domain::Bit),
            Op::Xor
            | Op::Inv
            | Op::ConstBit(_)
            | Op::And
            | Op::Mand
            | Op::BitDecompose
            | Op::Ltz
            | Op::Eqz => Domain::Bit,
            _ => Domain::Ring,
        };
        for (i, &w) in outputs.iter().enumerate() {
            if self.slot(w)? != Slot::Unwritten || outputs[..i].contains(&w) {
                return Err(ModelError::WrittenTwice { wire: w });
            }
        }
        let first = u32::try_from(self.operands.len()).map_err(|_| ModelError::TooLarge {
            what: "more than 2^32 gate operands".into(),
        })?;
        for &w in outputs {
            // Checked by `slot` above: a fresh wire at or above the inputs.
            self.slots[(u64::from(w) - self.input_wires) as usize] = Slot::Written(out_domain);
        }
        self.written += no as u64;
        self.operands.extend_from_slice(inputs);
        self.operands.extend_from_slice(outputs);
        self.gates.push(Gate {
            op,
            first,
            inputs: ni as u32,
            outputs: no as u32,
        });
        Ok(())
    }

    /// Looks a wire up, growing the state table on first sight of a high id.
    fn slot(&mut self, wire: WireId) -> Result<Slot, ModelError> {
        if u64::from(wire) >= self.num_wires {
            return Err(ModelError::WireOutOfRange {
                wire: wire.into(),
                wires: self.num_wires,
            });
        }
        if u64::from(wire) < self.input_wires {
            return Ok(Slot::Written(self.input_domain(wire)));
        }
        let i = (u64::from(wire) - self.input_wires) as usize;
        if i >= self.slots.len() {
            // Geometric growth keeps this amortised O(1) for ascending ids.
            let new_len = (i + 1)
                .max(self.slots.len() * 2)
                .min((self.num_wires - self.input_wires) as usize);
            self.slots.resize(new_len, Slot::Unwritten);
        }
        Ok(self.slots[i])
    }

    /// Declares the outputs and returns the finished circuit. Every declared
    /// wire must have been written exactly once.
    pub fn finish(mut self, outputs: Vec<(ValueSpec, Vec<WireId>)>) -> Result<Circuit, ModelError> {
        if self.written != self.num_wires {
            return Err(ModelError::UnwrittenWires {
                written: self.written,
                wires: self.num_wires,
            });
        }
        self.slots.resize(
            (self.num_wires - self.input_wires) as usize,
            Slot::Unwritten,
        );
        let domains: Vec<Domain> = self
            .inputs
            .iter()
            .flat_map(|v| std::iter::repeat_n(v.domain, v.wires as usize))
            .chain(self.slots.iter().map(|s| match s {
                Slot::Written(d) => *d,
                Slot::Unwritten => Domain::Bit, // unreachable: written == num_wires
            }))
            .collect();
        let mut values = Vec::with_capacity(outputs.len());
        for (spec, wires) in outputs {
            if wires.is_empty() {
                return Err(ModelError::EmptyOutput { name: spec.name });
            }
            for &w in &wires {
                let found = *domains.get(w as usize).ok_or(ModelError::WireOutOfRange {
                    wire: w.into(),
                    wires: self.num_wires,
                })?;
                if found != spec.domain {
                    return Err(ModelError::OutputDomain {
                        name: spec.name,
                        declared: spec.domain,
                        wire: w,
                        found,
                    });
                }
            }
            values.push(OutputValue {
                name: spec.name,
                domain: spec.domain,
                wires,
            });
        }
        Ok(Circuit {
            ring: self.ring,
            domains,
            inputs: self.inputs,
            outputs: values,
            gates: self.gates,
            operands: self.operands,
            owners: InputOwners::RoundRobin,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_bits() -> CircuitAssembler {
        CircuitAssembler::new(
            4,
            None,
            vec![ValueSpec::bits("a", 1), ValueSpec::bits("b", 1)],
        )
        .expect("valid")
    }

    #[test]
    fn assembles_and_walks_a_small_circuit() {
        let mut a = two_bits();
        a.push(Op::And, &[0, 1], &[2]).expect("and");
        a.push(Op::Xor, &[2, 0], &[3]).expect("xor");
        let c = a
            .finish(vec![(ValueSpec::bits("out", 1), vec![3])])
            .expect("finish");
        assert_eq!(c.gates().len(), 2);
        assert_eq!(c.gate_inputs(&c.gates()[1]), &[2, 0]);
        assert_eq!(c.gate_outputs(&c.gates()[0]), &[2]);
        assert_eq!(c.owner(1, 3), 1);
        assert_eq!(c.owner(4, 3), 1);
    }

    #[test]
    fn rejects_malformed_gates_with_the_cause() {
        let mut a = two_bits();
        assert_eq!(
            a.push(Op::Xor, &[0, 2], &[3]),
            Err(ModelError::ReadBeforeWrite { wire: 2 })
        );
        assert_eq!(
            a.push(Op::Xor, &[0, 9], &[3]),
            Err(ModelError::WireOutOfRange { wire: 9, wires: 4 })
        );
        assert_eq!(
            a.push(Op::Xor, &[0, 1], &[1]),
            Err(ModelError::WrittenTwice { wire: 1 })
        );
        assert!(matches!(
            a.push(Op::Xor, &[0], &[2]),
            Err(ModelError::Arity { op: "XOR", .. })
        ));
        assert!(matches!(
            a.push(Op::And, &[0; 17], &[2]),
            Err(ModelError::Arity { op: "AND", .. })
        ));
        assert!(matches!(
            a.push(Op::Mand, &[0, 1, 0], &[2, 3]),
            Err(ModelError::Arity { op: "MAND", .. })
        ));
        assert_eq!(
            a.push(Op::Add, &[0, 1], &[2]),
            Err(ModelError::NoRing { op: "ADD" })
        );
        assert_eq!(
            a.push(Op::Mand, &[0, 1], &[2, 2]).err(),
            Some(ModelError::Arity {
                op: "MAND",
                expected: "2k inputs and k outputs".into(),
                inputs: 2,
                outputs: 2
            })
        );
        a.push(Op::And, &[0, 1, 0], &[2]).expect("3-input and");
        assert!(matches!(
            a.finish(vec![(ValueSpec::bits("o", 1), vec![2])]),
            Err(ModelError::UnwrittenWires {
                written: 3,
                wires: 4
            })
        ));
    }

    #[test]
    fn domains_are_checked_for_mixed_circuits() {
        let mut a = CircuitAssembler::new(
            5,
            Some(RingWidth::W8),
            vec![ValueSpec::ring("x", 1), ValueSpec::bits("b", 1)],
        )
        .expect("valid");
        assert!(matches!(
            a.push(Op::Xor, &[0, 1], &[2]),
            Err(ModelError::WrongDomain { wire: 0, .. })
        ));
        assert!(matches!(
            a.push(Op::MulConst(256), &[0], &[2]),
            Err(ModelError::ConstantTooLarge { .. })
        ));
        a.push(Op::BitInject, &[1], &[2]).expect("b2a");
        a.push(Op::Mul, &[0, 2], &[3]).expect("mul");
        a.push(Op::Copy, &[3], &[4]).expect("copy");
        assert!(matches!(
            a.finish(vec![(ValueSpec::bits("o", 1), vec![4])]),
            Err(ModelError::OutputDomain { wire: 4, .. })
        ));
    }

    #[test]
    fn hostile_header_allocates_nothing_up_front() {
        let a = CircuitAssembler::new(u32::MAX as u64, None, vec![ValueSpec::bits("a", 1)])
            .expect("valid");
        assert!(a.slots.capacity() < 1024);
        // Declared input wires are not materialized either.
        let a = CircuitAssembler::new(
            u32::MAX as u64,
            None,
            vec![ValueSpec::bits("a", u32::MAX - 1)],
        )
        .expect("valid");
        assert!(a.slots.capacity() < 1024);
        assert_eq!(a.domain_of(u32::MAX - 2), Some(Domain::Bit));
        assert!(matches!(
            CircuitAssembler::new(1 << 40, None, vec![]),
            Err(ModelError::TooLarge { .. })
        ));
        assert!(matches!(
            CircuitAssembler::new(3, None, vec![ValueSpec::bits("a", 4)]),
            Err(ModelError::InputsExceedWires {
                needed: 4,
                wires: 3
            })
        ));
    }
}
