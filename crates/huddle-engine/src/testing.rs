//! The engine's internals its own tests reach into (feature `testing`,
//! which the engine's tests enable and the CLI never does): the network
//! trait a test wraps to tamper with messages ([`Transport`]), the
//! compiled program a test reads conversions and adders from
//! ([`Program`]), and one party run straight into its protocol
//! ([`run_party`], [`run_garbling`]). Not part of the library's surface:
//! a program uses [`Run`].

use crate::error::RunError;
use crate::garble::Variant;
use crate::inputs::OwnValue;
use crate::{Run, RunOptions};
use huddle_circuit::{BitMatrix, Circuit};
use huddle_net::Network;
use std::borrow::Cow;

pub use crate::sharing::program::{ConversionKind, Program, Target};
pub use crate::transport::Transport;

/// Party `net.party()` of `run` over `net` for `batch` instances, with the
/// input values it owns in `own` (by index), straight into the protocol:
/// none of [`Run::party`]'s checks first (the batch's bound among them), so
/// that a test reaches the protocols' own refusals.
pub fn run_party(
    run: &Run,
    net: &mut Network,
    batch: usize,
    own: &[(usize, BitMatrix)],
) -> Result<Vec<BitMatrix>, RunError> {
    let own = own
        .iter()
        .map(|(i, m)| (*i, OwnValue::Rows(m.clone())))
        .collect();
    crate::run::run_party_with(
        &run.request,
        net,
        Cow::Borrowed(&*run.circuit),
        batch,
        own,
        None,
        &run.progress,
    )
}

/// One party of garbling `variant` over any [`Transport`] (e.g. a test's
/// wrapper that corrupts messages), as [`run_party`] with its linear
/// preprocessing from PRSS; `own` as there.
pub fn run_garbling<T: Transport>(
    net: &mut T,
    variant: Variant,
    circuit: &Circuit,
    batch: usize,
    own: &[(usize, BitMatrix)],
    options: RunOptions,
) -> Result<Vec<BitMatrix>, RunError> {
    crate::garble::run_with_supply(net, variant, circuit, batch, own, options, None)
}
