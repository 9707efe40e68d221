//! Who learns each output, when a run reveals every output to the same
//! receivers (the engine's one `reveal_to` per run).
//!
//! If every output goes to the same receiver, the run reveals to it: to
//! every party, or (`reveal_to` p) to party p alone. Otherwise the run
//! reveals to every party, and each output for a single party p is masked
//! first: p gives one more circuit input value, a one-time pad of the
//! output's type and shape drawn from the operating system's random
//! generator when its inputs are finished (`pads.rs`), and the circuit
//! reveals value ⊕ pad (Boolean types) or value + pad mod 2^k (ring types).
//! Every party sees that sum, which is uniformly random and independent of
//! the value to all but p; p subtracts its pad. The pad costs an input
//! and a free (local) gate per element, never a round.
//!
//! [`PUBLIC_OK`](super::PUBLIC_OK) goes to the common receiver, or else to
//! every party, unmasked: every party that learns an output must know
//! whether it is void, and the flag depends only on the copies of public
//! parameters, which are public by definition, so a party that learns no
//! output learns nothing secret from it.

use super::error::{value_error, Result};
use super::interface::{Interface, OutputSpec};
use super::value::Receiver;
use super::Program;
use crate::model::{Domain, WireId};

/// Pads are named with a character user names cannot have (see
/// `check_name`), so they never collide with an input.
const PAD_PREFIX: &str = "~pad:";

/// The receiver of every one of `receivers`, if they are all the same.
pub(super) fn common(mut receivers: impl Iterator<Item = Receiver>) -> Option<Receiver> {
    let first = receivers.next()?;
    receivers.all(|r| r == first).then_some(first)
}

impl Program {
    /// Masks every output to a single party when the outputs go to
    /// different receivers: a pad input of the receiver, added to the
    /// output's wires.
    pub(super) fn mask_outputs(&mut self, outputs: &mut [(OutputSpec, Vec<WireId>)]) -> Result<()> {
        if common(outputs.iter().map(|(o, _)| o.to)).is_some() {
            return Ok(());
        }
        for (spec, wires) in outputs.iter_mut() {
            let Receiver::Party(p) = spec.to else {
                continue;
            };
            let name = format!("{PAD_PREFIX}{}", spec.name);
            let op = format!("the pad of output {:?}", spec.name);
            let pad = self.declare(&op, p, spec.ty, spec.shape, &name)?;
            for (w, &k) in wires.iter_mut().zip(pad.wires.iter()) {
                *w = match spec.ty.domain() {
                    Domain::Bit => super::bits::xor(&mut self.builder, *w, k),
                    Domain::Ring => super::ring::add(&mut self.builder, *w, k),
                };
            }
            spec.mask = Some(self.owners.len() - 1);
        }
        Ok(())
    }
}

impl Interface {
    /// The engine's `reveal_to` for a run of this program: `Some(p)` when
    /// every output goes to party p alone, else `None` (every party; the
    /// outputs for single parties are masked). An error if an output for
    /// one party would reach others unmasked, or a pad is not its
    /// receiver's own input value (an interface read from a file).
    pub fn reveal_to(&self) -> Result<Option<usize>> {
        let common = common(self.outputs.iter().map(|o| o.to));
        let mut pads = Vec::new();
        for o in &self.outputs {
            match (o.to, o.mask) {
                (Receiver::Party(p), Some(pad)) => {
                    let declared = |values: &Vec<usize>| values.contains(&pad);
                    if self.owners.get(pad) != Some(&p)
                        || pads.contains(&pad)
                        || self.inputs.iter().any(|i| declared(&i.values))
                        || self.publics.iter().any(|i| declared(&i.values))
                    {
                        return value_error(format!(
                            "output {:?}: its pad is not an input value of party {p} of its own",
                            o.name
                        ));
                    }
                    pads.push(pad);
                }
                (Receiver::Party(p), None) if common != Some(o.to) => {
                    return value_error(format!(
                        "output {:?} goes to party {p} alone, but the outputs go to different \
                         receivers and it has no pad: every party would learn it",
                        o.name
                    ));
                }
                (Receiver::All, Some(_)) => {
                    return value_error(format!(
                        "output {:?} goes to every party but has a pad",
                        o.name
                    ));
                }
                _ => {}
            }
        }
        Ok(match common {
            Some(Receiver::Party(p)) => Some(p),
            _ => None,
        })
    }
}
