//! What a run will take before it runs: offline and online seconds
//! predicted from its scripts (the cost model's, `crate::cost`), a network
//! profile and a host's compute rates ([`Rates`]), with the bound that
//! dominates ([`Prediction`], [`Bound`]).
//!
//! **How.** The parties' scripts are played out in time (`play.rs`): each
//! role of each lane an actor with its own clock; a message of s bytes sent
//! at t on a link of one-way latency L and bandwidth B arrives at
//! `max(t, link free) + s/B + L`, one serialization queue per physical
//! directed link, exactly as `huddle_net`'s link emulation delays it; a
//! receive waits for its message; between messages an actor computes what
//! its script says (per gate and word of a layer, per garbled gate; the
//! walk that writes the scripts counts it from the circuit's schedule) and
//! handles each message it sends or receives (a fixed cost and one per
//! byte, per transport; a receiver that was waiting for its message also
//! the transport's wake-up). Actors computing at once on a host share its cores.
//! A phase's seconds are counted as a run's accounting counts them: per
//! party from its first entry to its last exit, over the parties from the
//! last entry to the last exit. Offline is setup, preprocessing and
//! function-dependent preprocessing; online is evaluation and verification.
//!
//! **Why a time.** The chain of steps that ended the online phase is split
//! into latency, serialization and compute; the largest names the bound.

mod calibrate;
mod play;
mod rates;

pub use rates::{Rates, RatesError, TransportRates, TransportsRates, WorkRates};

use crate::cost::{Cost, Plays, Work};
use crate::error::RunError;
use huddle_net::{NetProfile, PartyId, Phase};
use play::{play, Path, Setting, Timeline};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// A run's predicted time, traffic and what bounds it
/// ([`Run::predict`](crate::Run::predict),
/// [`Run::predict_local`](crate::Run::predict_local)).
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct Prediction {
    /// Setup, preprocessing and function-dependent preprocessing.
    pub offline_seconds: f64,
    /// Evaluation and verification, as a run reports its `online` plus
    /// `verify` seconds.
    pub online_seconds: f64,
    /// Offline plus online.
    pub total_seconds: f64,
    /// Seconds per phase, keyed by the phase's name as
    /// [`RunReport::seconds`](crate::RunReport::seconds).
    pub seconds: crate::PerPhase<f64>,
    /// Rounds of the online phase.
    pub online_rounds: u32,
    /// Rounds of every phase.
    pub rounds: crate::PerPhase<u32>,
    /// Bytes of the online (and verify) phase over all links.
    pub online_bytes: u64,
    /// Bytes over all links and phases.
    pub total_bytes: u64,
    /// What bounds the online phase and its verification: the phases
    /// `online_seconds` counts.
    pub bound: Bound,
    /// The exact traffic the prediction is made of. Not serialized.
    #[serde(skip)]
    pub cost: Cost,
}

impl Prediction {
    /// One line saying why the online phase (with its verification, as
    /// `online_seconds`) takes its time, e.g. `latency-bound: 22 rounds x
    /// 50 ms`.
    pub fn why(&self) -> String {
        self.bound.to_string()
    }
}

/// What dominates a phase's time: the largest part of the chain of steps
/// that ended it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "bound", rename_all = "snake_case")]
pub enum Bound {
    /// Waiting for messages to cross links: `rounds` rounds at a mean
    /// one-way latency of `latency_seconds` per message on the chain.
    Latency {
        /// Rounds of the phases, one after the other.
        rounds: u32,
        /// Mean one-way latency of the chain's messages.
        latency_seconds: f64,
    },
    /// Waiting for a link to carry its bytes: the link that spent longest
    /// serializing, its bytes in the phase and bandwidth.
    Bandwidth {
        /// The link's sender.
        from: PartyId,
        /// The link's receiver.
        to: PartyId,
        /// Its bytes in the phases.
        bytes: u64,
        /// Its bandwidth, bits per second.
        bits_per_second: f64,
    },
    /// Local work: `seconds` of it on the chain, most of the phase's work
    /// of kind `work` (`None`: handling messages, the transport's cost).
    Compute {
        /// Seconds of work on the chain.
        seconds: f64,
        /// The kind of work that took most of the phase's work.
        work: Option<Work>,
    },
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Latency {
                rounds,
                latency_seconds,
            } => write!(
                f,
                "latency-bound: {rounds} rounds x {} ms",
                round3(latency_seconds * 1e3)
            ),
            Bound::Bandwidth {
                from,
                to,
                bytes,
                bits_per_second,
            } => write!(
                f,
                "bandwidth-bound: {} MB over link {from}->{to} at {} Mbit/s",
                round3(*bytes as f64 / 1e6),
                round3(bits_per_second / 1e6)
            ),
            Bound::Compute { seconds, work } => write!(
                f,
                "compute-bound: {} ms of local work, mostly {}",
                round3(seconds * 1e3),
                work.map_or("handling messages", |w| w.name())
            ),
        }
    }
}

/// `x` to three significant digits, for explanations.
fn round3(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(2 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// Where the parties of a predicted run compute and how they are joined.
pub(crate) struct Placement<'a> {
    pub(crate) protocol: crate::Protocol,
    pub(crate) net: &'a NetProfile,
    pub(crate) links: crate::Links,
    /// Every party on this one host (else each on its own host like it).
    pub(crate) one_host: bool,
}

/// The prediction of the run whose scripts are `plays`.
pub(crate) fn predict(
    plays: &Plays,
    placement: &Placement,
    rates: &Rates,
) -> Result<Prediction, RunError> {
    let cost = plays.cost()?;
    let timeline = play(
        plays,
        &Setting {
            net: placement.net,
            rates,
            protocol: placement.protocol,
            transport: rates.transport(placement.links),
            one_host: placement.one_host,
        },
    )?;
    let offline: f64 = [Phase::Setup, Phase::Offline, Phase::Dependent]
        .iter()
        .map(|&p| timeline.seconds(p))
        .sum();
    let online: f64 = ONLINE.iter().map(|&p| timeline.seconds(p)).sum();
    let bound = bound(&timeline, &cost, placement.net, &ONLINE);
    Ok(Prediction {
        offline_seconds: offline,
        online_seconds: online,
        total_seconds: offline + online,
        seconds: Phase::ALL
            .iter()
            .map(|&p| (p.name(), timeline.seconds(p)))
            .collect(),
        online_rounds: cost.online_rounds(),
        rounds: Phase::ALL
            .iter()
            .map(|&p| (p.name(), cost.rounds(p)))
            .collect(),
        online_bytes: ONLINE.iter().map(|&p| cost.phase_bytes(p)).sum(),
        total_bytes: cost.total_bytes(),
        bound,
        cost,
    })
}

/// The phases `online_seconds` counts, and the bound explains.
const ONLINE: [Phase; 2] = [Phase::Online, Phase::Verify];

/// What bounds `phases` (run one after the other): the largest part of
/// the chains that ended them, its rounds and traffic summed over them.
fn bound(timeline: &Timeline, cost: &Cost, net: &NetProfile, phases: &[Phase]) -> Bound {
    let mut path = Path::default();
    for phase in phases {
        if let Some(p) = timeline.paths.get(phase) {
            path = path.plus(p);
        }
    }
    let rounds: u32 = phases.iter().map(|&p| cost.rounds(p)).sum();
    if path.latency >= path.serialization && path.latency >= path.compute && rounds > 0 {
        return Bound::Latency {
            rounds,
            latency_seconds: path.latency / f64::from(path.hops.max(1)),
        };
    }
    if path.serialization >= path.compute {
        let mut serializing: BTreeMap<(PartyId, PartyId), f64> = BTreeMap::new();
        for (&(p, from, to), &s) in &timeline.serializing {
            if phases.contains(&p) {
                *serializing.entry((from, to)).or_default() += s;
            }
        }
        let busiest = serializing.iter().max_by(|a, b| a.1.total_cmp(b.1));
        if let Some((&(from, to), _)) = busiest {
            return Bound::Bandwidth {
                from,
                to,
                bytes: phases.iter().map(|&p| cost.link(p, from, to).bytes).sum(),
                bits_per_second: net.shape(from, to).bandwidth_bps.unwrap_or(f64::INFINITY),
            };
        }
    }
    let mut work: BTreeMap<Option<Work>, f64> = BTreeMap::new();
    for (&(p, w), &s) in &timeline.work {
        if phases.contains(&p) {
            *work.entry(w).or_default() += s;
        }
    }
    let work = work
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .and_then(|(w, _)| *w);
    Bound::Compute {
        seconds: path.compute,
        work,
    }
}

#[cfg(test)]
mod tests;

/// Time predictions of a checked run (here, not in `builder.rs`: the
/// builder names neither the links nor the time model).
impl crate::Run {
    /// The time this run will take on `batch` instances with every party on
    /// its own host like one `rates` describe, joined by TLS over links
    /// shaped as `net` (as `huddle party` runs): offline and online
    /// seconds, rounds, bytes and the bound that dominates (see
    /// [`Prediction`](crate::Prediction)). Refused as [`cost`](Self::cost) is.
    pub fn predict(
        &self,
        batch: usize,
        net: &huddle_net::NetProfile,
        rates: &crate::Rates,
    ) -> Result<crate::Prediction, RunError> {
        let placement = Placement {
            protocol: self.request().protocol(),
            net,
            links: crate::Links::Tls,
            one_host: false,
        };
        predict(
            &self.request().plays(self.circuit(), batch)?,
            &placement,
            rates,
        )
    }

    /// The time [`local`](Self::local) will take on `batch` instances over
    /// `net`: every party a thread of this host, sharing its cores (see
    /// [`predict`](Self::predict)).
    pub fn predict_local(
        &self,
        batch: usize,
        net: &crate::LocalNet,
        rates: &crate::Rates,
    ) -> Result<crate::Prediction, RunError> {
        let placement = Placement {
            protocol: self.request().protocol(),
            net: &net.profile,
            links: net.links,
            one_host: true,
        };
        predict(
            &self.request().plays(self.circuit(), batch)?,
            &placement,
            rates,
        )
    }
}
