//! A compiled program held as its two parts, as a front end keeps it: the
//! circuit shared with runs and the interface beside it, each saved to a
//! file of its own. [`CompiledProgram::from_parts`] checks that an
//! interface read back fits its circuit.

use super::compile::CompiledProgram;
use super::error::{value_error, Result};
use super::interface::Interface;
use super::types::{Shape, Type};
use super::value::Receiver;
use crate::model::{Circuit, Domain, InputOwners};
use std::collections::BTreeSet;

impl CompiledProgram {
    /// The program of `circuit` and `interface` (e.g. read from files):
    /// an error names the first place where the interface does not fit
    /// the circuit. The circuit's input owners become the interface's.
    pub fn from_parts(mut circuit: Circuit, interface: Interface) -> Result<CompiledProgram> {
        interface.check_circuit(&circuit)?;
        circuit
            .set_owners(InputOwners::Explicit(interface.owners.clone()))
            .or_else(|e| value_error(format!("the interface does not fit the circuit: {e}")))?;
        Ok(CompiledProgram { circuit, interface })
    }
}

impl Interface {
    /// Whether the interface fits `circuit`: its ring, every input value's
    /// (inputs, public copies, output pads) owner, domain and width, every
    /// output's, and the parties.
    pub fn check_circuit(&self, circuit: &Circuit) -> Result<()> {
        let unfit =
            |why: String| value_error(format!("the interface does not fit the circuit: {why}"));
        if self.parties == 0 {
            return unfit("it has no parties".into());
        }
        let ring = circuit.ring().map(|r| r.bits());
        if self.ring_bits != ring {
            return unfit(format!(
                "its ring is {}, the circuit's {}",
                ring_name(self.ring_bits),
                ring_name(ring)
            ));
        }
        let values = circuit.inputs();
        if self.owners.len() != values.len() {
            return unfit(format!(
                "it has {} input values, the circuit {}",
                self.owners.len(),
                values.len()
            ));
        }
        if let Some(p) = self.owners.iter().find(|&&p| p >= self.parties) {
            return unfit(format!(
                "an input value belongs to party {p} of {}",
                self.parties
            ));
        }
        // Every input value is named exactly once, with its owner, its
        // domain and its width.
        let mut seen = BTreeSet::new();
        let mut claim = |what: &str, index: usize, party: usize, ty: Type, shape: Shape| {
            let Some(v) = values.get(index) else {
                return unfit(format!("{what}: input value {index} does not exist"));
            };
            let wires = shape.len() * ty.wires();
            if !seen.insert(index) || self.owners[index] != party {
                return unfit(format!(
                    "{what}: input value {index} is not party {party}'s alone"
                ));
            }
            if v.domain != ty.domain() || v.wires as usize != wires {
                return unfit(format!(
                    "{what}: input value {index} has {} {} wires, {ty} {shape} takes {wires} {}",
                    v.wires,
                    domain_name(v.domain),
                    domain_name(ty.domain())
                ));
            }
            Ok(())
        };
        for input in &self.inputs {
            let what = format!("input {:?}", input.name);
            check_type(&what, input.ty)?;
            match (input.max_rows, input.values.as_slice()) {
                (None, &[v]) => claim(&what, v, input.party, input.ty, input.shape)?,
                (Some(max), &[v, valid]) => {
                    claim(&what, v, input.party, input.ty, input.shape)?;
                    claim(&what, valid, input.party, Type::Bit, Shape::Vector(max))?;
                }
                _ => return unfit(format!("{what}: its values do not fit its kind")),
            }
        }
        for public in &self.publics {
            let what = format!("public {:?}", public.name);
            check_type(&what, public.ty)?;
            if public.values.len() != self.parties {
                return unfit(format!("{what}: it has {} copies", public.values.len()));
            }
            for (party, &v) in public.values.iter().enumerate() {
                claim(&what, v, party, public.ty, public.shape)?;
            }
        }
        // A masked output's one-time pad: its receiver's, of its type and shape.
        for output in &self.outputs {
            if let Some(pad) = output.mask {
                let what = format!("the pad of output {:?}", output.name);
                let Receiver::Party(p) = output.to else {
                    return unfit(format!("{what}: the output goes to every party"));
                };
                claim(&what, pad, p, output.ty, output.shape)?;
            }
        }
        if seen.len() != values.len() {
            return unfit(
                "some input values are neither inputs, public parameters nor pads".into(),
            );
        }
        let outputs = circuit.outputs();
        if self.outputs.len() != outputs.len() {
            return unfit(format!(
                "it has {} outputs, the circuit {}",
                self.outputs.len(),
                outputs.len()
            ));
        }
        for (i, (spec, v)) in self.outputs.iter().zip(outputs).enumerate() {
            let what = format!("output {:?}", spec.name);
            check_type(&what, spec.ty)?;
            let wires = spec.shape.len() * spec.ty.wires();
            if spec.value != i || v.domain != spec.ty.domain() || v.wires.len() != wires {
                return unfit(format!(
                    "{what}: output value {i} has {} {} wires, {} {} takes {wires} {}",
                    v.wires.len(),
                    domain_name(v.domain),
                    spec.ty,
                    spec.shape,
                    domain_name(spec.ty.domain())
                ));
            }
            if let Receiver::Party(p) = spec.to {
                if p >= self.parties {
                    return unfit(format!("{what}: goes to party {p} of {}", self.parties));
                }
            }
        }
        Ok(())
    }
}

fn check_type(what: &str, ty: Type) -> Result<()> {
    ty.check().map(|_| ()).or_else(|e| {
        value_error(format!(
            "the interface does not fit the circuit: {what}: {e}"
        ))
    })
}

fn ring_name(bits: Option<u32>) -> String {
    bits.map_or_else(|| "none".into(), |k| format!("Z_2^{k}"))
}

fn domain_name(d: Domain) -> &'static str {
    match d {
        Domain::Bit => "Boolean",
        Domain::Ring => "ring",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::write_canonical_parts;
    use crate::program::Program;

    fn program() -> CompiledProgram {
        let mut p = Program::new(2).expect("parties");
        let a = p.input(0, Type::UInt(8), Shape::Vector(3), "a").expect("a");
        let rows = p
            .input_rows(1, Type::SInt(4), Shape::Scalar, 5, "b")
            .expect("b");
        let t = p.public("t", Type::UInt(8), Shape::Scalar).expect("t");
        let s = p.sum(&a).expect("sum");
        let s = p.binary(super::super::BinOp::Add, &s, &t).expect("add");
        p.reveal(&s, Receiver::Party(1), "s").expect("reveal");
        p.reveal(&rows.valid, Receiver::All, "valid")
            .expect("reveal");
        p.compile().expect("compile")
    }

    fn canonical(circuit: &Circuit, interface: &Interface) -> Vec<u8> {
        let mut bytes = Vec::new();
        write_canonical_parts(circuit, interface, &mut bytes).expect("write");
        bytes
    }

    #[test]
    fn a_program_splits_and_joins_with_the_same_canonical_form() {
        let compiled = program();
        let mut want = Vec::new();
        compiled.write_canonical(&mut want).expect("write");
        let (mut circuit, interface) = compiled.into_parts();
        assert_eq!(canonical(&circuit, &interface), want);
        // As read from a file: round-robin owners, given back by the interface.
        circuit
            .set_owners(InputOwners::RoundRobin)
            .expect("round robin");
        let joined = CompiledProgram::from_parts(circuit, interface).expect("fits");
        assert_eq!(
            joined.circuit().owners(),
            &InputOwners::Explicit(joined.interface().owners.clone())
        );
        assert_eq!(
            canonical(joined.circuit(), joined.interface()),
            want,
            "the same program"
        );
    }

    #[test]
    fn an_interface_that_does_not_fit_is_named() {
        let (circuit, interface) = program().into_parts();
        let refused = |change: &dyn Fn(&mut Interface), want: &str| {
            let mut other = interface.clone();
            change(&mut other);
            let e = CompiledProgram::from_parts(circuit.clone(), other).expect_err(want);
            assert!(e.message.contains(want), "{e}");
        };
        refused(
            &|i| i.ring_bits = Some(32),
            "its ring is Z_2^32, the circuit's none",
        );
        refused(
            &|i| i.inputs[0].ty = Type::UInt(16),
            "input \"a\": input value 0 has 24",
        );
        refused(
            &|i| i.inputs[0].party = 1,
            "input value 0 is not party 1's alone",
        );
        let n = circuit.inputs().len();
        refused(
            &|i| i.owners.push(0),
            &format!("it has {} input values, the circuit {n}", n + 1),
        );
        refused(
            &|i| i.outputs.pop().map(drop).unwrap_or(()),
            "it has 2 outputs",
        );
        refused(&|i| i.outputs[0].shape = Shape::Vector(2), "output \"s\"");
        refused(
            &|i| i.outputs[1].to = Receiver::Party(7),
            "goes to party 7 of 2",
        );
        refused(
            &|i| i.publics[0].values.pop().map(drop).unwrap_or(()),
            "1 copies",
        );
        refused(&|i| i.inputs[1].max_rows = None, "do not fit its kind");
        // Another program's interface of the same shape fits: the
        // canonical form tells them apart.
        let mut renamed = interface.clone();
        renamed.inputs[0].name = "x".into();
        assert_ne!(
            canonical(&circuit, &renamed),
            canonical(&circuit, &interface)
        );
        CompiledProgram::from_parts(circuit, renamed).expect("fits");
    }
}
