//! Evaluating a program on a party's shares: [`evaluate`] runs its steps
//! (linear runs locally, multiplication layers through the protocol, share
//! conversions through the protocol's split and their recombining
//! programs, which `evaluate` runs in turn), and `evaluate_slice` one slice
//! from preprocessing to verification.

use super::arith::{Arith, Bits, Ring};
use super::channel::Channel;
use super::convert::{get_bits, side_instances, words, SplitJob};
use super::program::{Conversion, Layer, Program, Step};
use super::protocol::Sharing;
use super::shares::{Arenas, InputValues, Shares};
use super::with_ring;
use crate::error::RunError;
use huddle_circuit::Domain;
use huddle_net::Phase;

/// Runs every step of `program` from the current shares: linear steps
/// locally, each layer through `multiply`, each conversion through `split`
/// and its recombining program.
/// With `verify_every` = Some(n), the protocol's checkpoint runs after
/// every n-th layer (not after the last: `verify` follows it anyway).
pub(crate) fn evaluate<P: Sharing>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    arenas: &mut Arenas,
    verify_every: Option<usize>,
) -> Result<(), RunError> {
    let rule = protocol.constant_rule();
    let mut done = 0;
    for step in &program.steps {
        match step {
            Step::Linear(Domain::Bit, run) => {
                arenas.bits.apply_linear::<Bits>(run, &program.pool, rule)
            }
            Step::Linear(Domain::Ring, run) => with_ring!(program.ring_lanes, R => {
                arenas.ring.apply_linear::<R>(run, &program.pool, rule)
            }),
            Step::Layer(i) => {
                let layer = &program.layers[*i];
                ch.set_encoding(program.encoding(layer.domain, arenas.instances));
                match layer.domain {
                    Domain::Bit => {
                        multiply_layer::<P, Bits>(protocol, ch, program, layer, &mut arenas.bits)?
                    }
                    Domain::Ring => with_ring!(program.ring_lanes, R => {
                        multiply_layer::<P, R>(protocol, ch, program, layer, &mut arenas.ring)?
                    }),
                }
                done += 1;
                let due = verify_every.is_some_and(|n| done % n == 0);
                if due && done < program.layers.len() {
                    protocol.checkpoint(ch)?;
                }
            }
            Step::Convert(i) => {
                let counts = std::mem::replace(&mut ch.counts_progress, false);
                run_conversion(protocol, ch, program, &program.conversions[*i], arenas)?;
                ch.counts_progress = counts;
            }
        }
        if let (true, Some(p)) = (ch.counts_progress, &ch.progress) {
            p.step(ch.party());
        }
    }
    Ok(())
}

/// Runs one conversion step: the protocol's split into an arena of the
/// target domain holding every conversion of the step side by side, the
/// recombining program on it (through [`evaluate`]: a conversion step is
/// one of the evaluator's, and its program may hold conversions in turn), and
/// its outputs into the gates' slots.
fn run_conversion<P: Sharing>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    conversion: &Conversion,
    arenas: &mut Arenas,
) -> Result<(), RunError> {
    let kind = conversion.kind;
    let sub = program.recombining(kind);
    program
        .ring
        .ok_or_else(|| RunError::Internal("a conversion in a Boolean circuit".into()))?;
    let (from, to) = (kind.source(), kind.target());
    let m = conversion.gates();
    let n = arenas.instances;
    let wt = words(to, n);
    let mut side = arenas.take_side(sub.slots, to, side_instances(m, n));
    let job = SplitJob {
        kind,
        sources: &conversion.sources,
        terms: [&sub.inputs[0].1, &sub.inputs[1].1],
        instances: n,
    };
    ch.set_encoding(program.encoding(to, side.instances));
    match from {
        Domain::Ring => protocol.split::<Ring, Bits>(ch, &job, &arenas.ring, &mut side.bits)?,
        Domain::Bit => protocol.split::<Bits, Ring>(ch, &job, &arenas.bits, &mut side.ring)?,
    }
    // BX2A's factors are inputs of the sub-program as they are.
    if let Some((_, factor)) = sub.inputs.get(2) {
        let (from, to) = (&arenas.ring, &mut side.ring);
        let (w, side_w) = (from.w, to.w);
        for c in 0..to.components() {
            for (g, &slot) in conversion.factors.iter().enumerate() {
                let words = &from.c[c][slot as usize * w..][..w];
                to.c[c][factor[0] as usize * side_w + g * n..][..n].copy_from_slice(words);
            }
        }
    }
    evaluate(protocol, ch, sub, &mut side, None)?;
    let results = &sub.outputs[0].1;
    let (dst, got) = (arenas.domain_mut(to), side.domain(to));
    for c in 0..dst.components() {
        for g in 0..m {
            for (&out, &result) in conversion.outputs(g).iter().zip(results) {
                let into = &mut dst.c[c][out as usize * wt..][..wt];
                match to {
                    Domain::Bit => get_bits(got.get(c, result), g * n, n, into),
                    Domain::Ring => into.copy_from_slice(&got.get(c, result)[g * n..][..n]),
                }
            }
        }
    }
    arenas.put_side(side);
    Ok(())
}

/// One multiplication layer, in a frame compiled for the widest build of
/// the kernels the process runs: a protocol whose `multiply` and the
/// kernels under it are `#[inline(always)]` gets 512- or 256-bit loops
/// there, while the binary stays baseline x86-64 (no `target-cpu` needed
/// to run it anywhere).
#[inline(always)]
fn multiply_layer<P: Sharing, R: Arith>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    layer: &Layer,
    s: &mut Shares,
) -> Result<(), RunError> {
    #[cfg(target_arch = "x86_64")]
    {
        use huddle_core::simd::{kernels_in_use, Kernels};
        match kernels_in_use() {
            Kernels::Avx512 => {
                // SAFETY: `kernels_in_use` picks only a build the CPU supports.
                return unsafe { multiply_layer_avx512::<P, R>(protocol, ch, program, layer, s) };
            }
            Kernels::Avx2 => {
                // SAFETY: as above.
                return unsafe { multiply_layer_avx2::<P, R>(protocol, ch, program, layer, s) };
            }
            Kernels::Baseline => {}
        }
    }
    protocol.multiply::<R>(ch, program, layer, s)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn multiply_layer_avx512<P: Sharing, R: Arith>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    layer: &Layer,
    s: &mut Shares,
) -> Result<(), RunError> {
    protocol.multiply::<R>(ch, program, layer, s)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn multiply_layer_avx2<P: Sharing, R: Arith>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    layer: &Layer,
    s: &mut Shares,
) -> Result<(), RunError> {
    protocol.multiply::<R>(ch, program, layer, s)
}

/// Preprocessing, the inputs, the layers and the verification of one
/// slice. Inputs are shared domain by domain: the circuit's main domain
/// always (even without values, so single-domain runs are as before), the
/// other one where it has values.
pub(super) fn evaluate_slice<P: Sharing>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    inputs: &[InputValues; 2],
    arenas: &mut Arenas,
    verify_every: Option<usize>,
) -> Result<(), RunError> {
    let main = program.main_domain();
    ch.set_phase(Phase::Offline);
    protocol.preprocess(ch, program, inputs, arenas)?;
    ch.set_phase(Phase::Online);
    for d in [Domain::Bit, Domain::Ring] {
        if !program.shares_inputs(d) {
            continue;
        }
        ch.set_encoding(program.encoding(d, arenas.instances));
        match d {
            Domain::Bit => protocol.share_inputs::<Bits>(ch, &inputs[0], &mut arenas.bits)?,
            Domain::Ring => with_ring!(program.ring_lanes, R => {
                protocol.share_inputs::<R>(ch, &inputs[1], &mut arenas.ring)?
            }),
        }
    }
    if protocol.evaluates_online() {
        ch.counts_progress = true;
        evaluate(protocol, ch, program, arenas, verify_every)?;
        ch.counts_progress = false;
    }
    ch.set_encoding(program.encoding(main, arenas.instances));
    protocol.verify(ch)
}
