//! Phase `setup`, once per run: the pairwise seeds of the additive zero
//! sharing and, for bgw2-mal, the linear preprocessing: PRSS keys agreed
//! now (their contributions travel with the seeds), the trusted dealer's
//! line in this process, or its recording from `huddle deal`
//! ([`LinearSupply`]).

use super::context::Run;
use super::linear::{self, Dealt, DealtHeader, LinearChoice, LinearSource, TrustedDealer};
use crate::error::{Refusal, RunError};
use crate::transport::Transport;
use huddle_circuit::Circuit;
use huddle_core::Prg;
use huddle_net::Phase;
use std::sync::Arc;

/// Linear preprocessing handed to a malicious run from outside the
/// protocol, when `options.linear` resolves to the trusted dealer.
pub(crate) enum LinearSupply<'a> {
    /// This process's trusted dealer (`huddle local`).
    Dealer(&'a Arc<TrustedDealer>),
    /// The dealer's recording for this party (`huddle deal`, then
    /// `huddle party --dealt FILE`).
    Dealt(Vec<u8>),
}

pub(super) type SetupOutput = (Vec<Option<Prg>>, Option<Box<dyn LinearSource>>);

/// Setup: pairwise seeds for additive zero sharing and, malicious, the
/// linear preprocessing (PRSS keys, the dealer's line or its recording).
pub(super) fn setup<T: Transport>(
    run: &Run,
    net: &mut T,
    prg: &mut Prg,
    linear_choice: LinearChoice,
    supply: Option<LinearSupply>,
    circuit: &Circuit,
) -> Result<SetupOutput, RunError> {
    let (me, n, t, instances) = (run.me, run.n, run.t, run.instances);
    let (opts, contributors, malicious) = (run.opts, run.contributors, run.variant.is_malicious());
    // Setup: pairwise seeds for additive zero sharing; the lower party of
    // each pair draws the seed.
    net.set_phase(Phase::Setup);
    let mut zero: Vec<Option<Prg>> = (0..n).map(|_| None).collect();
    let seeded = if opts.zero_sharing() && opts.prg_zero_sharing {
        n
    } else {
        0
    };
    for (p, slot) in zero.iter_mut().enumerate().take(seeded).skip(me + 1) {
        let seed = prg.next_seed();
        net.send(p, seed.to_vec())?;
        *slot = Some(Prg::from_seed(seed));
    }
    // Malicious with PRSS: the key contributions travel with the seeds.
    let mut prss = None;
    if malicious && linear_choice != LinearChoice::TrustedDealer {
        prss = Some(linear::Prss::begin_setup(net, t, prg)?);
    }
    for (p, slot) in zero.iter_mut().enumerate().take(me.min(seeded)) {
        let bytes = net.recv(p, 16)?;
        let mut seed = [0u8; 16];
        seed.copy_from_slice(&bytes);
        *slot = Some(Prg::from_seed(seed));
    }
    // Malicious: the linear preprocessing (PRSS keys agreed now, or the dealer).
    let mut source: Option<Box<dyn LinearSource>> = None;
    if malicious {
        source = Some(match linear_choice {
            LinearChoice::TrustedDealer => match supply {
                Some(LinearSupply::Dealer(d)) => Box::new(d.line(me)),
                Some(LinearSupply::Dealt(bytes)) => {
                    let header = DealtHeader {
                        party: me,
                        parties: n,
                        instances,
                        contributors,
                        circuit: crate::circuit_hash(circuit),
                        deal: [0; 16],
                    };
                    Box::new(Dealt::open(bytes, &header)?)
                }
                None => {
                    return Err(RunError::refused(
                        Refusal::NeedsDealer {
                            parties: n,
                            threshold: t,
                        },
                        format!(
                            "{n} parties at t = {t} need the trusted dealer: in `huddle local` it runs in the process; across hosts, `huddle deal` writes each party's material for `huddle party --dealt` (PRSS is limited to {} sets of t parties)",
                            linear::PRSS_MAX_SETS
                        ),
                    ))
                }
            },
            _ => match prss.take() {
                Some(setup) => Box::new(setup.finish(net)?),
                None => return Err(RunError::Input("PRSS setup missing".into())),
            },
        });
    }

    Ok((zero, source))
}
