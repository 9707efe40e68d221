//! Lanes (`--threads`, `--split-roles`): a batch split into lanes, each a
//! complete protocol instance on its own thread over its lane of the
//! party's endpoint ([`run_lanes`]), lane l's roles played by the parties
//! `roles[l]` ([`RoleNet`]); and what one lane does ([`Lane::run`]): setup,
//! then slice after slice its inputs, evaluation, verification and reveal.

use super::channel::Channel;
use super::evaluate::evaluate_slice;
use super::input_words::{packed_ring, to_wire_words, DomainValues, OwnWords};
use super::outputs::{domain_range, reveal_outputs, GateGuard, HeldSlice, OutputSink, RevealGate};
use super::program::Program;
use super::protocol::{Capabilities, Sharing};
use super::shares::{Arenas, InputValues};
use crate::error::{RoleLane, RunError};
use crate::options::{FILLER_LANES, FILLER_MIN_SLICES};
use crate::transport::Transport;
use huddle_circuit::{Circuit, Domain};
use huddle_net::{NetError, Network, PartyId, Phase};

/// The lane count and the slice (in units of the batch, all lanes
/// together) for a batch of `units` units whose share memory holds `slice`
/// units at once. Only auto's one core per party chooses: a short batch
/// runs as one lane of the width each of two lanes would have, so the
/// memory touched halves; a long one as two lanes.
pub(super) fn lanes_and_slice(
    options: &crate::RunOptions,
    units: usize,
    slice: usize,
) -> (usize, usize) {
    if !options.one_core_auto() {
        return (options.threads, slice);
    }
    if units.div_ceil(slice.max(1)) >= FILLER_MIN_SLICES {
        (FILLER_LANES, slice)
    } else {
        (1, (slice / FILLER_LANES).max(1))
    }
}

/// Every order of `0..n`, lexicographic (the identity first).
pub(super) fn permutations(n: usize) -> Vec<Vec<PartyId>> {
    let mut all = Vec::new();
    let mut p: Vec<PartyId> = (0..n).collect();
    loop {
        all.push(p.clone());
        // The next permutation in lexicographic order, if any.
        let Some(i) = (1..n).rev().find(|&i| p[i - 1] < p[i]) else {
            return all;
        };
        let j = (i..n).rev().find(|&j| p[j] > p[i - 1]).unwrap_or(i);
        p.swap(i - 1, j);
        p[i..].reverse();
    }
}

/// Runs `job` on one lane per entry of `roles`, lane l on the instance
/// ranges `lane_ranges(l)` with role r played by party `roles[l][r]`. More
/// than one lane: one thread each, all at once over this endpoint split
/// into lanes ([`Network::split`]). Lanes are independent runs, so one
/// lane's wait for a message leaves the core to another; with split roles
/// each party plays every role and each link carries every role pair's
/// traffic, each on its share of the batch.
pub(super) fn run_lanes<P: Sharing, F: Fn(PartyId) -> P + Sync>(
    job: &Lane,
    make: &F,
    net: &mut Network,
    roles: &[Vec<PartyId>],
    lane_ranges: &(dyn Fn(usize) -> Vec<std::ops::Range<usize>> + Sync),
) -> Result<(), RunError> {
    let me = net.party();
    if let [only] = roles {
        return job
            .run(make(role_of(only, me)), net, 0, &lane_ranges(0), only)
            .map_err(|e| in_parties(e, 0, only));
    }
    // Lanes drift apart by at most about a slice: what a peer's lanes can
    // send before ours ask for it.
    let lane_nets = net.split(roles.len(), job.share_memory.saturating_mul(2))?;
    let done: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = lane_nets
            .into_iter()
            .zip(roles)
            .enumerate()
            .map(|(lane, (lane_net, roles))| {
                let ranges = lane_ranges(lane);
                s.spawn(move || {
                    let role = role_of(roles, me);
                    let mut t = RoleNet {
                        net: lane_net,
                        roles,
                        role,
                    };
                    let r = job
                        .run(make(role), &mut t, lane, &ranges, roles)
                        .map_err(|e| in_parties(e, lane, roles));
                    // The lane's last phase ends now, not when the slowest lane joins.
                    t.net.stop_clock();
                    if let Err(e) = &r {
                        // The other lanes stop too, and the peers learn who.
                        let culprit = match e {
                            RunError::Abort {
                                culprit: Some(c), ..
                            } => *c,
                            RunError::Net(n) => n.culprit().unwrap_or(me),
                            _ => me,
                        };
                        t.net.fail(culprit);
                    }
                    (t.net, r)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| RunError::Internal("a role lane's thread panicked".into()))
            })
            .collect()
    });
    let mut lane_nets = Vec::new();
    let (mut first_abort, mut first_error) = (None, None);
    for d in done {
        match d {
            Ok((lane_net, Ok(()))) => lane_nets.push(lane_net),
            Ok((lane_net, Err(e))) => {
                lane_nets.push(lane_net);
                if matches!(e, RunError::Abort { .. }) {
                    first_abort = first_abort.or(Some(e));
                } else {
                    first_error = first_error.or(Some(e));
                }
            }
            Err(e) => first_error = first_error.or(Some(e)),
        }
    }
    // A failed check is the root cause: the other lanes' errors (and the
    // join's) are what stopping for it did to them.
    let joined = net.join(lane_nets);
    if let Some(e) = first_abort.or(first_error) {
        return Err(e);
    }
    joined?;
    Ok(())
}

/// The role `party` plays where role r is played by `roles[r]`.
pub(super) fn role_of(roles: &[PartyId], party: PartyId) -> PartyId {
    roles.iter().position(|&p| p == party).unwrap_or(party)
}

/// A lane's error in terms of parties rather than its roles (where the
/// lane's roles are not the protocol's own).
fn in_parties(e: RunError, lane: usize, roles: &[PartyId]) -> RunError {
    if roles.iter().enumerate().all(|(r, &p)| r == p) {
        return e;
    }
    match e {
        RunError::Abort { check, culprit, .. } => RunError::Abort {
            check,
            culprit: culprit.map(|c| roles.get(c).copied().unwrap_or(c)),
            lane: Some(RoleLane {
                lane,
                parties: roles.to_vec(),
            }),
        },
        e => e,
    }
}

/// One lane of a split-roles run: the protocol speaks in roles, the lane's
/// endpoint in parties.
struct RoleNet<'a> {
    net: huddle_net::LaneNet,
    roles: &'a [PartyId],
    role: PartyId,
}

impl RoleNet<'_> {
    fn party_of(&self, role: PartyId) -> Result<PartyId, NetError> {
        self.roles.get(role).copied().ok_or(NetError::UnknownPeer {
            peer: role,
            me: self.role,
            parties: self.roles.len(),
        })
    }
}

impl Transport for RoleNet<'_> {
    fn party(&self) -> PartyId {
        self.role
    }
    fn parties(&self) -> usize {
        self.roles.len()
    }
    /// As [`Network`]'s: an empty message is not sent.
    fn send(&mut self, to: PartyId, data: Vec<u8>) -> Result<(), NetError> {
        if data.is_empty() {
            return Ok(());
        }
        let to = self.party_of(to)?;
        self.net.send(to, data)
    }
    fn recv(&mut self, from: PartyId, len: usize) -> Result<Vec<u8>, NetError> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let from = self.party_of(from)?;
        self.net.recv(from, len)
    }
    fn set_phase(&mut self, phase: Phase) {
        self.net.set_phase(phase)
    }
    fn phase(&self) -> Phase {
        self.net.phase()
    }
    fn stop_clock(&mut self) {
        self.net.stop_clock()
    }
    fn announce(&self, step: &str) {
        self.net.announce(step)
    }
}

/// What every lane of a party evaluates.
pub(super) struct Lane<'a> {
    pub(super) circuit: &'a Circuit,
    pub(super) program: &'a Program,
    /// Where the opened outputs go, at a party that learns them.
    pub(super) outputs: Option<&'a OutputSink<'a>>,
    /// Input values by domain (`Domain as usize`).
    pub(super) values: [DomainValues; 2],
    pub(super) reveal_to: Option<PartyId>,
    pub(super) randomness: crate::Randomness,
    pub(super) fault: Option<crate::fault::Fault>,
    pub(super) verify_every: Option<usize>,
    /// Bytes of shares a party holds at once (all lanes).
    pub(super) share_memory: usize,
    /// Whether each slice's output shares are held until every slice and
    /// lane has been evaluated and verified (see [`HeldSlice`]).
    pub(super) hold_outputs: bool,
    /// Where this party's lanes meet before opening held outputs (more
    /// than one lane).
    pub(super) reveal_gate: Option<&'a RevealGate>,
    pub(super) progress: &'a crate::progress::Progress,
}

impl Lane<'_> {
    /// Setup, then every slice in `ranges` (instance ranges of the batch),
    /// each slice's opened outputs into `outputs`.
    /// `roles[r]` is the party that plays role r in this lane (`net`
    /// speaks in roles): input owners and the output party are parties.
    fn run<P: Sharing>(
        &self,
        mut protocol: P,
        net: &mut dyn Transport,
        lane: usize,
        ranges: &[std::ops::Range<usize>],
        roles: &[PartyId],
    ) -> Result<(), RunError> {
        let first_draw = crate::options::draws::SHARING_KEYS + ((lane as u64) << 16);
        let me = net.party();
        let main = self.program.main_domain();
        let mut ch = Channel::new(
            net,
            self.program
                .encoding(main, ranges.first().map_or(0, |r| r.len())),
            self.randomness,
            first_draw,
        );
        ch.progress = Some(self.progress.clone());
        if let Some(fault) = self.fault.filter(|f| f.party == me) {
            ch.set_fault(crate::fault::ActiveFault::new(
                fault,
                protocol.messages(),
                lane,
            ));
        }
        // Held outputs wait at the gate; leaving early (an error) opens it.
        let mut gate = GateGuard {
            gate: self.reveal_gate,
            arrived: false,
        };
        let mut held: Vec<HeldSlice> = Vec::new();
        let to = self.reveal_to.map(|p| role_of(roles, p));
        ch.set_phase(Phase::Setup);
        protocol.setup(&mut ch)?;
        // One allocation for every slice: fresh memory costs a page fault per page.
        let widest = ranges.iter().map(|r| r.len()).max().unwrap_or(0);
        let mut arenas = Arenas::new(
            self.program.slots,
            widest,
            protocol.components(),
            self.program.ring_lanes,
        );
        for range in ranges {
            protocol.begin_batch();
            let inputs = [Domain::Bit, Domain::Ring].map(|d| {
                let v = &self.values[d as usize];
                let r = domain_range(self.program.lanes(d), range);
                InputValues {
                    owners: v.owners.iter().map(|&p| role_of(roles, p)).collect(),
                    slots: &v.slots,
                    own: v
                        .own
                        .iter()
                        .map(|own| {
                            own.as_ref().map(|own| match own {
                                OwnWords::Whole(words) if r.start == 0 && r.end == v.total => {
                                    std::borrow::Cow::Borrowed(words.as_slice())
                                }
                                OwnWords::Whole(words) => words
                                    .chunks_exact(v.total.max(1))
                                    .flat_map(|wire| wire[r.clone()].iter().copied())
                                    .collect(),
                                // Boolean words are drawn bitsliced, as they are.
                                OwnWords::Drawn(i, rows)
                                    if packed_ring(self.circuit, *i).is_none()
                                        && range.start.is_multiple_of(64) =>
                                {
                                    std::borrow::Cow::Owned(rows.columns(range.clone()))
                                }
                                OwnWords::Drawn(i, rows) => std::borrow::Cow::Owned(to_wire_words(
                                    self.circuit,
                                    *i,
                                    rows.rows(range.clone()),
                                    self.program.ring_lanes,
                                )),
                            })
                        })
                        .collect(),
                    reveal_to: self.reveal_to.map(|p| role_of(roles, p)),
                }
            });
            arenas.resize(range.len());
            evaluate_slice(
                &mut protocol,
                &mut ch,
                self.program,
                &inputs,
                &mut arenas,
                self.verify_every,
            )?;
            if self.hold_outputs {
                held.push(HeldSlice::take(self.program, &arenas, range.clone()));
                continue;
            }
            let all = |d: Domain| self.program.output_slots(d);
            let (bits, ring) = (all(Domain::Bit), all(Domain::Ring));
            let source = [(&arenas.bits, &bits[..]), (&arenas.ring, &ring[..])];
            let opened = reveal_outputs(
                &mut protocol,
                &mut ch,
                self.program,
                range.len(),
                source,
                to,
            )?;
            self.collect(range, opened)?;
        }
        if !gate.pass() {
            // Another lane failed: its error is the run's; open nothing.
            return Ok(());
        }
        drop(arenas);
        // Opening held shares counts as online; with none held the phase
        // stays as it is, so that the phase log ends at the reveal.
        if !held.is_empty() {
            ch.set_phase(Phase::Online);
        }
        for h in held {
            let slots: Vec<Vec<u32>> = h
                .shares
                .iter()
                .map(|s| (0..s.slots() as u32).collect())
                .collect();
            let source = [(&h.shares[0], &slots[0][..]), (&h.shares[1], &slots[1][..])];
            let opened = reveal_outputs(
                &mut protocol,
                &mut ch,
                self.program,
                h.range.len(),
                source,
                to,
            )?;
            self.collect(&h.range, opened)?;
        }
        Ok(())
    }

    /// Writes a slice's opened outputs into the sink, at a party that learns them.
    fn collect(
        &self,
        range: &std::ops::Range<usize>,
        opened: Option<[Vec<u64>; 2]>,
    ) -> Result<(), RunError> {
        match (self.outputs, opened) {
            (Some(sink), Some(opened)) => sink.add(range, &opened),
            (Some(_), None) => return Err(RunError::Internal("an output slice is missing".into())),
            (None, _) => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only `--threads auto` on one core per party chooses the lanes: two
    /// for a batch of at least FILLER_MIN_SLICES slices, else one of half
    /// the slice; a count given, or auto's several cores, run as given.
    #[test]
    fn auto_on_one_core_chooses_lanes_by_the_batch() {
        let auto = crate::RunOptions {
            threads: 1,
            threads_auto: true,
            ..crate::RunOptions::default()
        };
        let long = FILLER_MIN_SLICES * 10;
        assert_eq!(lanes_and_slice(&auto, long, 10), (FILLER_LANES, 10));
        // 71 units are 8 slices of 10 (the last short), 70 are 7.
        let (short, at_least) = (long - 10, long - 9);
        assert_eq!(lanes_and_slice(&auto, at_least, 10), (FILLER_LANES, 10));
        assert_eq!(lanes_and_slice(&auto, short, 10), (1, 5));
        assert_eq!(lanes_and_slice(&auto, 3, 10), (1, 5));
        assert_eq!(
            lanes_and_slice(&auto, 3, 1),
            (1, 1),
            "a slice stays a unit at least"
        );
        for options in [
            crate::RunOptions {
                threads: 1,
                threads_auto: false,
                ..auto
            },
            crate::RunOptions {
                threads: 3,
                threads_auto: false,
                ..auto
            },
            crate::RunOptions {
                threads: 3,
                threads_auto: true,
                ..auto
            },
        ] {
            for units in [3, long] {
                assert_eq!(lanes_and_slice(&options, units, 10), (options.threads, 10));
            }
        }
        assert_eq!(auto.worker_threads(), FILLER_LANES);
        assert_eq!(crate::RunOptions { threads: 3, ..auto }.worker_threads(), 3);
    }
}
