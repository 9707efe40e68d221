//! [`Network`], one party's endpoint: sends queue and return at once,
//! receives take the next message of a peer (of exactly the length
//! expected), each counted in the endpoint's books; `finish` checks that
//! every peer's stream ends where the protocol stopped reading.

use super::alarm::{deadlock, given_up, Alarm, ALARM_GRACE, ALARM_POLL};
use super::books::Books;
use super::error::NetError;
use super::link::{deliver, shape, Delivery, Ending, Link, LinkParts, Outbound, Outgoing};
use super::record::{announce, log_traffic, Received, Traffic, TrafficLog, Transcript};
use super::seats::{host, role, Seats};
use super::stamp::{Stamp, STAMP_BYTES};
use crate::accounting::{Accounting, Phase};
use crate::profile::{NetProfile, Shaper};
use crate::waits::Board;
use crate::PartyId;
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One party's view of the network.
pub struct Network {
    pub(crate) me: PartyId,
    pub(crate) links: Vec<Option<Link>>,
    pub(crate) alarm: Arc<Alarm>,
    pub(crate) books: Books,
    /// How long a receive waits without a sign of the peer: on socket links
    /// any byte (liveness frames included, so only a stalled peer runs into
    /// it: the idle timeout); in memory, where parties are threads of one
    /// process and a peer cannot stall on its own, a message.
    pub(crate) timeout: Duration,
    /// This party stops because of a failure of its own, which its peers
    /// are told (see [`Network::stop`]).
    pub(super) stop_reason: Option<String>,
    /// Socket links: this party's waits and its peers' (see [`crate::waits`]).
    pub(crate) board: Option<Arc<Board>>,
    /// Where every received payload is copied (see [`Network::record_received`]).
    transcript: Option<Transcript>,
    /// Where every message sent or received is noted (see [`Network::record_traffic`]).
    pub(crate) traffic: Option<TrafficLog>,
    /// Settings this party's hello left open or offered as a most, as
    /// settled at connect.
    settled: Vec<(String, crate::Value)>,
    /// Who plays which role (see [`Network::play_roles`]).
    pub(crate) seats: Option<Seats>,
    /// Counts this party among the process's (see [`super::spin`]).
    party_here: super::spin::Party,
}

impl Network {
    /// From now on, copies every message this party receives into the
    /// returned transcript: tests use it to pin down what a party sees (its
    /// view). Real runs never call it.
    pub fn record_received(&mut self) -> Transcript {
        let t = Transcript::default();
        self.transcript = Some(t.clone());
        t
    }

    /// From now on, notes every message this party sends or receives (its
    /// peer, phase, lane and size, in the order they happen, over all lanes
    /// split from this endpoint): tests use it to pin down the order of a
    /// run's messages. Real runs never call it.
    pub fn record_traffic(&mut self) -> TrafficLog {
        let t = TrafficLog::default();
        self.traffic = Some(t.clone());
        t
    }

    /// This party's id: its role, where hosts play other roles than their
    /// ids ([`Network::play_roles`]).
    pub fn party(&self) -> PartyId {
        role(&self.seats, self.me)
    }

    /// From now on, role r is played by host `roles[r]` (a permutation of
    /// the parties, the same at every party): [`Network::party`] is this
    /// host's role, and a send to or receive from party r goes to host
    /// `roles[r]`, as does a culprit blamed. The links, the accounting,
    /// errors and what peers are told keep naming hosts.
    pub fn play_roles(&mut self, roles: &[PartyId]) -> Result<(), NetError> {
        let seats = Seats::new(roles, self.links.len()).map_err(NetError::Setup)?;
        self.seats = Some(seats);
        Ok(())
    }

    /// The number of parties in the run, this one included.
    pub fn parties(&self) -> usize {
        self.links.len()
    }

    /// The phase that subsequent traffic and time are counted under (and
    /// logged: [`PHASE_LOG`](super::PHASE_LOG)).
    pub fn set_phase(&mut self, phase: Phase) {
        announce(self.me, 0, phase.name());
        self.books.set_phase(phase);
    }

    /// Logs that this party enters `step` of its run, a part that the
    /// accounting's phases do not tell apart (the engine's `reveal`, which
    /// is counted under the online phase); see [`PHASE_LOG`](super::PHASE_LOG).
    pub fn announce(&self, step: &str) {
        announce(self.me, 0, step);
    }

    /// Ends the current phase's time (it resumes with the next `set_phase`).
    pub fn stop_clock(&mut self) {
        self.books.stop_clock();
    }

    /// The phase traffic is counted under now (see [`Network::set_phase`]).
    pub fn phase(&self) -> Phase {
        self.books.phase
    }

    /// How long a receive waits without a sign of the peer before naming
    /// it (see [`Network`]'s `timeout`): on socket links the idle timeout.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Records that this party stops because of a failure of its own (not
    /// a peer's), so that its departure tells every peer `reason` (at most
    /// 200 bytes are sent) in an abort naming this party, authenticated like
    /// every frame of the link. Once a failure of the run is known, the
    /// departure names that one instead and `reason` is not sent. The reason
    /// goes to the peers: it must hold nothing secret (no input values).
    pub fn stop(&mut self, reason: &str) {
        if !self.alarm.is_raised() {
            self.stop_reason = Some(crate::frame::bounded(reason).to_string());
        }
    }

    /// The largest message this party will accept from any peer from now on
    /// (socket links; in memory every peer is this process). A protocol that
    /// knows its largest message sets it, so a peer's oversized frame is an
    /// error before it is read, not an allocation.
    pub fn set_max_message(&mut self, bytes: usize) {
        for link in self.links.iter().flatten() {
            if let Some(max) = &link.max_message {
                max.store(bytes.saturating_add(STAMP_BYTES), Ordering::Relaxed);
            }
        }
    }

    /// Bytes received from `peer` that the protocol has not taken yet.
    #[cfg(test)]
    pub(crate) fn queued_bytes(&self, peer: PartyId) -> usize {
        self.links
            .get(peer)
            .and_then(Option::as_ref)
            .and_then(|l| l.inbox_bytes.as_ref())
            .and_then(|b| b.queued.lock().ok().map(|q| *q))
            .unwrap_or(0)
    }

    /// What this party has sent, per directed link and phase.
    pub fn accounting(&self) -> &Accounting {
        &self.books.accounting
    }

    fn link(&mut self, peer: PartyId) -> Result<&mut Link, NetError> {
        let (me, parties) = (self.me, self.links.len());
        self.links
            .get_mut(peer)
            .and_then(Option::as_mut)
            .ok_or(NetError::UnknownPeer { peer, me, parties })
    }

    /// Queues `data` for `to` and returns at once; socket transports write it
    /// from the link's own thread, batching everything queued in a round.
    pub fn send(&mut self, to: PartyId, mut data: Vec<u8>) -> Result<(), NetError> {
        let (me, to) = (self.me, host(&self.seats, to));
        let bytes = data.len() as u64;
        let stamp = self.books.stamp(&mut data, 0);
        let link = self.link(to)?;
        let new_round = !link.sending;
        link.sending = true;
        let visible_at = shape(&link.shaper, data.len());
        let delivered = match &link.out {
            Some(out) => out.deliver(to, Delivery { data, visible_at }),
            None => Err(NetError::Disconnected { peer: to }),
        };
        // A peer that is gone because another party failed first: report
        // that root cause, as receives do.
        let delivered = delivered.map_err(|e| self.alarm.get().unwrap_or(e));
        self.alarm.on_error(delivered)?;
        self.books.sent(me, to, bytes, new_round, stamp);
        log_traffic(
            &self.traffic,
            Traffic {
                sent: true,
                peer: to,
                phase: stamp.phase,
                lane: 0,
                bytes: bytes as usize,
            },
        );
        Ok(())
    }

    /// Receives the next message from `from`, which must be exactly `len` bytes.
    pub fn recv(&mut self, from: PartyId, len: usize) -> Result<Vec<u8>, NetError> {
        let from = host(&self.seats, from);
        let data = self.recv_any(from)?;
        if data.len() != len {
            // A failure of the run like any other: peers learn who broke it.
            return self.abort_on_error(Err(NetError::UnexpectedLength {
                peer: from,
                expected: len,
                got: data.len(),
            }));
        }
        Ok(data)
    }

    /// Ends this party's sending and checks that every peer's stream ends
    /// too, with nothing after the last message the protocol read: a peer
    /// that sent more (e.g. a duplicate of its last message) is an error
    /// naming it. Costs one one-way latency; for protocols with security
    /// against malicious parties, before they release outputs.
    pub fn finish(&mut self) -> Result<(), NetError> {
        for link in self.links.iter_mut().flatten() {
            if let Some(Outbound::Writer { queue, .. }) = &link.out {
                let _ = queue.send(Outgoing::End(Ending::Goodbye));
            }
            link.out = None;
        }
        for peer in 0..self.links.len() {
            if self.links[peer].is_none() {
                continue;
            }
            let end = match self.recv_inner(peer) {
                Ok(_) => Err(NetError::Link {
                    peer,
                    cause: "a message after the protocol's last one".into(),
                }),
                // A peer that finished too: its goodbye, or (in memory, or a
                // socket it already closed) the end of its stream; unless
                // another party failed meanwhile (then that root cause).
                Err(NetError::Departed { peer: p } | NetError::Disconnected { peer: p })
                    if p == peer =>
                {
                    self.alarm.get().map_or(Ok(()), Err)
                }
                Err(e) => Err(e),
            };
            self.abort_on_error(end)?;
        }
        Ok(())
    }

    /// Records that this party stops because of `culprit` (a protocol check
    /// pointed at it), so that its departure names the culprit to every peer
    /// still waiting on it, as a transport failure would.
    pub fn blame(&self, culprit: PartyId) {
        let culprit = host(&self.seats, culprit);
        if culprit != self.me && culprit < self.links.len() {
            self.alarm.raise(NetError::Aborted {
                culprit,
                reporter: self.me,
                reason: String::new(),
            });
        }
    }

    /// Receives the next message from `from`, whatever its length.
    pub(crate) fn recv_any(&mut self, from: PartyId) -> Result<Vec<u8>, NetError> {
        let result = self.recv_inner(from).and_then(|mut data| {
            let Stamp { phase, lane, .. } = self.books.received(from, &mut data)?;
            if lane != 0 {
                return Err(NetError::Link {
                    peer: from,
                    cause: format!("a message of lane {lane} in a run not split into lanes"),
                });
            }
            log_traffic(
                &self.traffic,
                Traffic {
                    sent: false,
                    peer: from,
                    phase,
                    lane: 0,
                    bytes: data.len(),
                },
            );
            if let Some(t) = &self.transcript {
                if let Ok(mut t) = t.lock() {
                    t.push(Received {
                        from,
                        phase,
                        payload: data.clone(),
                    });
                }
            }
            Ok(data)
        });
        self.abort_on_error(result)
    }

    fn abort_on_error<T>(&self, result: Result<T, NetError>) -> Result<T, NetError> {
        self.alarm.on_error(result)
    }

    fn recv_inner(&mut self, from: PartyId) -> Result<Vec<u8>, NetError> {
        let timeout = self.timeout;
        for l in self.links.iter_mut().flatten() {
            l.sending = false;
        }
        let alarm = self.alarm.clone();
        // A failure older than the grace ends the run even while this peer
        // keeps sending (two live parties in a steady exchange would
        // otherwise never look at the alarm).
        if let Some((e, age)) = alarm.get_with_age() {
            if age >= ALARM_GRACE {
                return Err(e);
            }
        }
        let board = self.board.clone();
        let link = self.link(from)?;
        let start = Instant::now();
        let mut waiting = None;
        // A reply is often due within microseconds: look for it before
        // parking, which would cost a wake-up as long as the round trip.
        let mut spun = super::spin::until_ready(|| link.inbox.try_recv().ok());
        let delivery = loop {
            // Short slices, so the alarm and the deadline are looked at often.
            let slice = timeout.min(ALARM_POLL);
            let got = match spun.take() {
                Some(item) => Ok(item),
                None => link.inbox.recv_timeout(slice),
            };
            match got {
                Ok(Ok(d)) => break d,
                // Report the first failure of the run (its root cause): a peer
                // that aborts because another one crashed names the crashed one here.
                Ok(Err(e)) => return Err(alarm.get().unwrap_or(e)),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(alarm.get().unwrap_or(NetError::Disconnected { peer: from }))
                }
                Err(RecvTimeoutError::Timeout) => {
                    // This peer's own failure ends the wait at once; another
                    // peer's after `ALARM_GRACE` (see there).
                    if let Some((e, age)) = alarm.get_with_age() {
                        if e.culprit() == Some(from) || age >= ALARM_GRACE {
                            return Err(e);
                        }
                    }
                    if let Some(e) = given_up(link.liveness.as_deref(), start, timeout, from) {
                        return Err(alarm.get().unwrap_or(e));
                    }
                    if let Some(e) = deadlock(board.as_ref(), &mut waiting, 0, from, timeout) {
                        return Err(alarm.get().unwrap_or(e));
                    }
                }
            }
        };
        if let Some(budget) = &link.inbox_bytes {
            budget.take(delivery.data.len());
        }
        Ok(deliver(delivery))
    }

    /// One round: sends every `(peer, message)`, then receives one message of
    /// the given length from each `(peer, len)`, in that order.
    pub fn exchange(
        &mut self,
        outgoing: Vec<(PartyId, Vec<u8>)>,
        incoming: &[(PartyId, usize)],
    ) -> Result<Vec<Vec<u8>>, NetError> {
        for (to, data) in outgoing {
            self.send(to, data)?;
        }
        incoming
            .iter()
            .map(|&(from, len)| self.recv(from, len))
            .collect()
    }

    pub(crate) fn from_links(
        me: PartyId,
        links: Vec<Option<LinkParts>>,
        profile: &NetProfile,
        timeout: Duration,
        (alarm, board): (Arc<Alarm>, Option<Arc<Board>>),
    ) -> Network {
        let links = links
            .into_iter()
            .enumerate()
            .map(|(peer, parts)| {
                parts.map(|p| Link {
                    out: Some(p.out),
                    peer_alarm: p.peer_alarm,
                    inbox: p.inbox,
                    shaper: Arc::new(Mutex::new(Shaper::new(profile.shape(me, peer)))),
                    sending: false,
                    writer: p.writer,
                    reader: p.reader,
                    shutdown: p.shutdown,
                    inbox_bytes: p.inbox_bytes,
                    max_message: p.max_message,
                    liveness: p.liveness,
                })
            })
            .collect();
        Network {
            me,
            links,
            alarm,
            books: Books::new(),
            timeout,
            stop_reason: None,
            board,
            transcript: None,
            traffic: None,
            settled: Vec::new(),
            seats: None,
            party_here: super::spin::Party::new(),
        }
    }

    /// This party's host runs `parties` parties of the run (see [`super::spin`]).
    pub(crate) fn share_host_with(&mut self, parties: usize) {
        self.party_here.share_host_with(parties);
    }

    pub(crate) fn set_settled(&mut self, settled: Vec<(String, crate::Value)>) {
        self.settled = settled;
    }

    /// A setting this party's hello left open ([`Value::Open`]: the value
    /// the peers set) or offered as a most ([`Value::Least`]: the least any
    /// party offered, as a number), as settled at connect.
    ///
    /// [`Value::Open`]: crate::Value::Open
    /// [`Value::Least`]: crate::Value::Least
    pub fn settled(&self, name: &str) -> Option<&crate::Value> {
        self.settled.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}
