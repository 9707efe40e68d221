//! Concurrent lanes over one endpoint's links: [`Network::split`] gives
//! each of k threads its own endpoint ([`LaneNet`]) over the same
//! connections, and [`Network::join`] takes them back. A lane talks only to
//! the same lane at the other parties (its messages carry the lane in their
//! trailer), so independent protocol runs — e.g. one per assignment of roles
//! to parties (split roles) — share the links at once, each with its own
//! order of sends and receives.
//!
//! Receiving: the link's inbox is shared. A lane that finds no message of its
//! own waiting takes the inbox (one lane at a time), waits on it outside any
//! lock, and files what arrives under its lane; the others wait on a
//! condition variable. No lane ever blocks while holding the lock, so a lane
//! waiting for a slow peer never holds up another lane's messages.

use crate::accounting::Phase;
use crate::liveness::Liveness;
use crate::network::{
    deadlock, deliver, given_up, host, lane_of, log_traffic, role, shape, Alarm, Books, Delivery,
    Inbound, InboxBudget, Outbound, Seats, Traffic, TrafficLog, ALARM_GRACE, ALARM_POLL,
};
use crate::profile::Shaper;
use crate::waits::Board;
use crate::{NetError, Network, PartyId};
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// One link's inbox, shared by the lanes.
struct Demux {
    state: Mutex<DemuxState>,
    arrived: Condvar,
    /// Socket links: what the reader has queued and no lane taken yet.
    budget: Option<Arc<InboxBudget>>,
    /// Bytes the link may hold for lanes that have not asked for them.
    ahead: usize,
    /// Socket links: when the peer's last byte arrived.
    liveness: Option<Arc<Liveness>>,
}

struct DemuxState {
    /// The link's inbox; `None` while a lane waits on it.
    inbox: Option<Receiver<Inbound>>,
    /// Messages that arrived for each lane before it asked.
    waiting: Vec<VecDeque<Delivery>>,
    /// Their bytes: at most [`Demux::ahead`] (a peer cannot make a party
    /// hold more for lanes that do not read).
    waiting_bytes: usize,
    /// The link's failure, once seen (every lane reports it).
    failed: Option<NetError>,
}

impl DemuxState {
    /// Files a message from `from` that lane `me` took from the inbox:
    /// gives it back if it is `me`'s own, else keeps it for its lane (or
    /// records why it cannot).
    fn file(&mut self, d: Delivery, me: usize, from: PartyId, ahead: usize) -> Option<Delivery> {
        let lane = match lane_of(&d.data).map(usize::from) {
            Some(l) if l == me => return Some(d),
            Some(l) => l,
            // Too short for a trailer: the lane that reads it says so.
            None => me,
        };
        let lanes = self.waiting.len();
        if lane >= lanes {
            self.failed = Some(NetError::Link {
                peer: from,
                cause: format!("a message of lane {lane} in a run of {lanes} lanes"),
            });
            return None;
        }
        self.waiting_bytes += d.data.len();
        self.waiting[lane].push_back(d);
        if self.waiting_bytes > ahead {
            self.failed = Some(NetError::Link {
                peer: from,
                cause: format!("more than {ahead} bytes sent ahead of lanes that do not read them"),
            });
        }
        None
    }
}

/// One lane's link to a peer.
#[derive(Clone)]
struct LaneLink {
    out: Outbound,
    shaper: Arc<Mutex<Shaper>>,
    demux: Arc<Demux>,
    /// A burst of sends is open on this link (it ends at our next receive).
    sending: bool,
}

/// The least of [`Demux::ahead`] (a socket link's inbox budget, if larger).
const MIN_AHEAD: usize = 64 << 20;

/// One lane's endpoint: [`Network`]'s send and receive, over the lane.
pub struct LaneNet {
    me: PartyId,
    lane: u16,
    links: Vec<Option<LaneLink>>,
    alarm: Arc<Alarm>,
    books: Books,
    timeout: Duration,
    /// The endpoint's traffic log, if it keeps one.
    traffic: Option<TrafficLog>,
    /// Socket links: the party's waits and its peers' (see [`crate::waits`]).
    board: Option<Arc<Board>>,
    /// The endpoint's roles (see [`Network::play_roles`]).
    seats: Option<Seats>,
}

impl Network {
    /// `lanes` endpoints over this one's links, for as many threads; every
    /// party of the run must split into the same number. Until
    /// [`join`](Network::join), this endpoint itself must not send or receive.
    ///
    /// A link holds at most `ahead` bytes (64 MiB or its inbox budget, if
    /// more) for lanes that have not asked for them yet; more is an error
    /// naming the peer. Stopping to read instead could deadlock lanes that
    /// wait on each other's links, so the caller bounds how far its lanes
    /// can drift apart (e.g. by a slice of the batch) and passes that.
    pub fn split(&mut self, lanes: usize, ahead: usize) -> Result<Vec<LaneNet>, NetError> {
        if lanes == 0 || lanes > usize::from(u16::MAX) + 1 {
            return Err(NetError::Setup(format!(
                "a run splits into 1 to 65536 lanes, not {lanes}"
            )));
        }
        // One lane's links; every lane gets a copy.
        let mut links = Vec::new();
        for (peer, link) in self.links.iter_mut().enumerate() {
            let Some(link) = link else {
                links.push(None);
                continue;
            };
            let out = link.out.clone().ok_or(NetError::Disconnected { peer })?;
            let inbox = std::mem::replace(&mut link.inbox, mpsc::channel().1);
            let demux = Arc::new(Demux {
                state: Mutex::new(DemuxState {
                    inbox: Some(inbox),
                    waiting: (0..lanes).map(|_| VecDeque::new()).collect(),
                    waiting_bytes: 0,
                    failed: None,
                }),
                arrived: Condvar::new(),
                budget: link.inbox_bytes.clone(),
                ahead: ahead.max(link.inbox_bytes.as_ref().map_or(MIN_AHEAD, |b| b.budget)),
                liveness: link.liveness.clone(),
            });
            links.push(Some(LaneLink {
                out,
                shaper: link.shaper.clone(),
                demux,
                sending: false,
            }));
        }
        Ok((0..lanes)
            .map(|lane| LaneNet {
                me: self.me,
                lane: lane as u16,
                links: links.clone(),
                alarm: self.alarm.clone(),
                books: self.books.for_lane(),
                timeout: self.timeout,
                traffic: self.traffic.clone(),
                board: self.board.clone(),
                seats: self.seats.clone(),
            })
            .collect())
    }

    /// Takes the lanes of [`split`](Network::split) back: their traffic is
    /// counted as this endpoint's (bytes and messages added; rounds, round
    /// depth and phase times as for lanes that ran at once). A message that
    /// arrived for a lane and was never read is an error naming its sender,
    /// as after a protocol's last message.
    pub fn join(&mut self, lanes: Vec<LaneNet>) -> Result<(), NetError> {
        let mut demuxes: Vec<Option<Arc<Demux>>> = vec![None; self.links.len()];
        for mut lane in lanes {
            // A lane's last phase ends when the lane does (at the latest
            // here): left running, it would count as lasting no time.
            lane.books.stop_clock();
            for (peer, l) in lane.links.into_iter().enumerate() {
                if let Some(l) = l {
                    demuxes[peer] = Some(l.demux);
                }
            }
            self.books.absorb_lane(&lane.books);
        }
        let mut result = Ok(());
        for (peer, demux) in demuxes.into_iter().enumerate() {
            let (Some(demux), Some(link)) =
                (demux, self.links.get_mut(peer).and_then(Option::as_mut))
            else {
                continue;
            };
            let Ok(mut state) = demux.state.lock() else {
                continue;
            };
            if let Some(inbox) = state.inbox.take() {
                link.inbox = inbox;
            }
            if let Some(e) = state.failed.take() {
                result = result.and(Err(e));
            } else if let Some(lane) = state.waiting.iter().position(|q| !q.is_empty()) {
                result = result.and(Err(NetError::Link {
                    peer,
                    cause: format!("a message on lane {lane} after the protocol's last one"),
                }));
            }
        }
        if let Err(e) = &result {
            self.alarm.raise(e.clone());
        }
        result
    }
}

impl LaneNet {
    /// This party's id.
    pub fn party(&self) -> PartyId {
        role(&self.seats, self.me)
    }

    /// The number of parties in the run, this one included.
    pub fn parties(&self) -> usize {
        self.links.len()
    }

    /// This lane's number.
    pub fn lane(&self) -> usize {
        usize::from(self.lane)
    }

    /// The phase this lane's traffic is counted under now.
    pub fn phase(&self) -> Phase {
        self.books.phase
    }

    /// As [`Network::set_phase`].
    pub fn set_phase(&mut self, phase: Phase) {
        crate::network::announce(self.me, self.lane, phase.name());
        self.books.set_phase(phase);
    }

    /// As [`Network::announce`].
    pub fn announce(&self, step: &str) {
        crate::network::announce(self.me, self.lane, step);
    }

    /// As [`Network::stop_clock`].
    pub fn stop_clock(&mut self) {
        self.books.stop_clock();
    }

    /// Stops the whole party's run because `culprit` failed (this party
    /// itself for a local failure): every lane's waits end, and the
    /// endpoint's departure names the culprit to the peers.
    pub fn fail(&self, culprit: PartyId) {
        let culprit = host(&self.seats, culprit);
        let e = if culprit == self.me || culprit >= self.links.len() {
            NetError::Setup(format!("party {} stopped a lane", self.me))
        } else {
            NetError::Aborted {
                culprit,
                reporter: self.me,
                reason: String::new(),
            }
        };
        self.alarm.raise(e);
    }

    fn link(&mut self, peer: PartyId) -> Result<&mut LaneLink, NetError> {
        let (me, parties) = (self.me, self.links.len());
        self.links
            .get_mut(peer)
            .and_then(Option::as_mut)
            .ok_or(NetError::UnknownPeer { peer, me, parties })
    }

    /// As [`Network::send`], on this lane.
    pub fn send(&mut self, to: PartyId, mut data: Vec<u8>) -> Result<(), NetError> {
        let (me, to) = (self.me, host(&self.seats, to));
        let bytes = data.len() as u64;
        let stamp = self.books.stamp(&mut data, self.lane);
        let link = self.link(to)?;
        let new_round = !link.sending;
        link.sending = true;
        let visible_at = shape(&link.shaper, data.len());
        let delivered = link.out.deliver(to, Delivery { data, visible_at });
        let delivered = delivered.map_err(|e| self.alarm.get().unwrap_or(e));
        self.alarm.on_error(delivered)?;
        self.books.sent(me, to, bytes, new_round, stamp);
        log_traffic(
            &self.traffic,
            Traffic {
                sent: true,
                peer: to,
                phase: stamp.phase,
                lane: self.lane(),
                bytes: bytes as usize,
            },
        );
        Ok(())
    }

    /// As [`Network::recv`], on this lane.
    pub fn recv(&mut self, from: PartyId, len: usize) -> Result<Vec<u8>, NetError> {
        let from = host(&self.seats, from);
        let result = self.recv_inner(from).and_then(|mut data| {
            let stamp = self.books.received(from, &mut data)?;
            log_traffic(
                &self.traffic,
                Traffic {
                    sent: false,
                    peer: from,
                    phase: stamp.phase,
                    lane: self.lane(),
                    bytes: data.len(),
                },
            );
            if data.len() != len {
                return Err(NetError::UnexpectedLength {
                    peer: from,
                    expected: len,
                    got: data.len(),
                });
            }
            Ok(data)
        });
        self.alarm.on_error(result)
    }

    fn recv_inner(&mut self, from: PartyId) -> Result<Vec<u8>, NetError> {
        for l in self.links.iter_mut().flatten() {
            l.sending = false;
        }
        let (lane, timeout, alarm) = (usize::from(self.lane), self.timeout, self.alarm.clone());
        let board = self.board.clone();
        let mut waiting = None;
        let link = self.link(from)?;
        let demux = link.demux.clone();
        let start = Instant::now();
        let lost = || NetError::Setup("a lane's link state was poisoned by a panic".into());
        let mut state = demux.state.lock().map_err(|_| lost())?;
        // Whether the last wait brought nothing: a message already on its
        // way is delivered before a failure of its sender is reported (as
        // `Network::recv_inner` does), e.g. a verdict sent before an abort.
        let mut idle = false;
        loop {
            if let Some(d) = state.waiting[lane].pop_front() {
                state.waiting_bytes -= d.data.len();
                drop(state);
                return Ok(deliver(d));
            }
            if let Some(e) = &state.failed {
                return Err(alarm.get().unwrap_or_else(|| e.clone()));
            }
            if let Some((e, age)) = alarm.get_with_age() {
                if (idle && e.culprit() == Some(from)) || age >= ALARM_GRACE {
                    return Err(e);
                }
            }
            if let Some(e) = given_up(demux.liveness.as_deref(), start, timeout, from) {
                return Err(alarm.get().unwrap_or(e));
            }
            if idle {
                if let Some(e) = deadlock(board.as_ref(), &mut waiting, lane as u16, from, timeout)
                {
                    return Err(alarm.get().unwrap_or(e));
                }
            }
            let slice = timeout.min(ALARM_POLL);
            let Some(inbox) = state.inbox.take() else {
                // Another lane is waiting on the inbox: it files our messages.
                let (s, waited) = demux
                    .arrived
                    .wait_timeout(state, slice)
                    .map_err(|_| lost())?;
                (state, idle) = (s, waited.timed_out());
                continue;
            };
            drop(state);
            let got = inbox.recv_timeout(slice);
            state = demux.state.lock().map_err(|_| lost())?;
            state.inbox = Some(inbox);
            idle = matches!(got, Err(RecvTimeoutError::Timeout));
            match got {
                Ok(Ok(d)) => {
                    if let Some(b) = &demux.budget {
                        b.take(d.data.len());
                    }
                    if let Some(d) = state.file(d, lane, from, demux.ahead) {
                        drop(state);
                        demux.arrived.notify_all();
                        return Ok(deliver(d));
                    }
                }
                Ok(Err(e)) => state.failed = Some(e),
                Err(RecvTimeoutError::Disconnected) => {
                    state.failed = Some(NetError::Disconnected { peer: from })
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            demux.arrived.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{local_networks, memory_networks, Handshake, NetProfile};

    /// What lane `lane` of `from` sends `to` in step `step`: its length and
    /// bytes differ per lane, so a message filed under the wrong lane shows.
    fn message(lane: usize, from: PartyId, to: PartyId, step: usize) -> Vec<u8> {
        let len = 1 + (lane * 7919 + from * 131 + to * 17 + step * 3) % 200_000;
        (0..len)
            .map(|i| (i + 31 * lane + 7 * from + 3 * to + step) as u8)
            .collect()
    }

    const STEPS: usize = 6;

    /// Every lane exchanges with every peer, lanes in different orders
    /// (lane l starts with peer l mod n) and at different speeds.
    fn run_lane(mut net: LaneNet) -> (LaneNet, Result<(), NetError>) {
        let (me, n, lane) = (net.party(), net.parties(), net.lane());
        let result = (|| {
            net.set_phase(Phase::Online);
            for step in 0..STEPS {
                let peers: Vec<PartyId> = (0..n)
                    .map(|k| (k + lane + step) % n)
                    .filter(|&p| p != me)
                    .collect();
                for &p in &peers {
                    net.send(p, message(lane, me, p, step))?;
                }
                if lane % 3 == 1 {
                    std::thread::sleep(Duration::from_millis(2));
                }
                for &p in peers.iter().rev() {
                    let want = message(lane, p, me, step);
                    let got = net.recv(p, want.len())?;
                    assert!(
                        got == want,
                        "lane {lane} at {me}: step {step} from {p} differs"
                    );
                }
            }
            Ok(())
        })();
        (net, result)
    }

    fn run_split(nets: Vec<Network>, lanes: usize) -> Vec<Network> {
        std::thread::scope(|s| {
            let handles: Vec<_> = nets
                .into_iter()
                .map(|mut net| {
                    s.spawn(move || {
                        let lane_nets = net.split(lanes, 0).expect("split");
                        let done: Vec<_> = std::thread::scope(|s| {
                            let hs: Vec<_> = lane_nets
                                .into_iter()
                                .map(|l| s.spawn(move || run_lane(l)))
                                .collect();
                            hs.into_iter().map(|h| h.join().expect("lane")).collect()
                        });
                        let mut back = Vec::new();
                        for (l, r) in done {
                            r.expect("lane run");
                            back.push(l);
                        }
                        net.join(back).expect("join");
                        // The endpoint works as before after the join.
                        let me = net.party();
                        for p in (0..net.parties()).filter(|&p| p != me) {
                            net.send(p, vec![me as u8; 3]).expect("send");
                        }
                        for p in (0..net.parties()).filter(|&p| p != me) {
                            assert_eq!(net.recv(p, 3).expect("recv"), vec![p as u8; 3]);
                        }
                        net
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("party"))
                .collect()
        })
    }

    fn check_counts(nets: &[Network], lanes: usize) {
        for net in nets {
            let me = net.party();
            for to in (0..net.parties()).filter(|&p| p != me) {
                let s = net.accounting().link(Phase::Online, me, to);
                let bytes: usize = (0..lanes)
                    .flat_map(|l| (0..STEPS).map(move |k| message(l, me, to, k).len()))
                    .sum();
                assert_eq!(s.bytes, bytes as u64, "{me}->{to}: the lanes' bytes add up");
                assert_eq!(s.messages, (lanes * STEPS) as u64);
                assert_eq!(s.rounds, STEPS as u64, "rounds are a lane's, not their sum");
            }
            assert_eq!(net.accounting().rounds(Phase::Online), STEPS as u32);
        }
    }

    /// A lane that enters the online phase, exchanges one message with
    /// every peer and returns without stopping its clock (as a protocol's
    /// lane does), with how long its exchange took by its own clock.
    fn timed_lane(mut net: LaneNet) -> (LaneNet, Duration) {
        let (me, n) = (net.party(), net.parties());
        net.set_phase(Phase::Online);
        let start = std::time::Instant::now();
        for p in (0..n).filter(|&p| p != me) {
            net.send(p, vec![1; 64]).expect("send");
        }
        for p in (0..n).filter(|&p| p != me) {
            net.recv(p, 64).expect("recv");
        }
        (net, start.elapsed())
    }

    #[test]
    fn a_lanes_last_phase_counts_until_the_lane_ends() {
        let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
        std::thread::scope(|s| {
            for mut net in nets {
                s.spawn(move || {
                    let lanes = net.split(2, 0).expect("split");
                    let done: Vec<(LaneNet, Duration)> = std::thread::scope(|s| {
                        let hs: Vec<_> = lanes
                            .into_iter()
                            .map(|l| s.spawn(move || timed_lane(l)))
                            .collect();
                        hs.into_iter().map(|h| h.join().expect("lane")).collect()
                    });
                    let longest = done.iter().map(|(_, d)| *d).max().expect("two lanes");
                    net.join(done.into_iter().map(|(l, _)| l).collect())
                        .expect("join");
                    let online = net.accounting().seconds(Phase::Online);
                    assert!(longest > Duration::ZERO);
                    assert!(
                        online >= longest.as_secs_f64(),
                        "online {online} s, but a lane exchanged for {longest:?} in it"
                    );
                });
            }
        });
    }

    #[test]
    fn lanes_in_memory_each_get_their_own_messages_whatever_the_order() {
        let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
        let nets = run_split(nets, 5);
        check_counts(&nets, 5);
    }

    #[test]
    fn lanes_over_tcp_each_get_their_own_messages_whatever_the_order() {
        let handshake = Handshake {
            session: "split".into(),
            settings: crate::Settings::new(),
            circuit: [0; 32],
        };
        let nets = local_networks(
            4,
            false,
            handshake,
            NetProfile::lan(),
            Duration::from_secs(60),
        )
        .expect("networks");
        let nets = run_split(nets, 6);
        check_counts(&nets, 6);
    }

    #[test]
    fn an_unread_message_of_a_lane_is_an_error_at_the_join() {
        let mut nets = memory_networks(2, &NetProfile::lan(), Duration::from_secs(60));
        let mut a = nets[0].split(2, 0).expect("split");
        let mut b = nets[1].split(2, 0).expect("split");
        a[1].send(1, vec![1, 2, 3]).expect("send");
        a[0].send(1, vec![4]).expect("send");
        // Lane 0 reads its message; lane 1's arrived first and waits.
        assert_eq!(b[0].recv(0, 1).expect("recv"), vec![4]);
        nets[0].join(a).expect("the sender has nothing unread");
        let e = nets[1].join(b).expect_err("lane 1 never read its message");
        assert!(
            e.to_string().contains("lane 1"),
            "the error names the lane: {e}"
        );
    }

    #[test]
    fn a_message_of_another_lane_is_refused_where_the_run_is_not_split() {
        let mut nets = memory_networks(2, &NetProfile::lan(), Duration::from_secs(60));
        let mut a = nets[0].split(3, 0).expect("split");
        a[2].send(1, vec![9; 4]).expect("send");
        let e = nets[1].recv(0, 4).expect_err("lane 2 outside a split run");
        assert!(e.to_string().contains("lane 2"), "{e}");
        let mut nets = memory_networks(2, &NetProfile::lan(), Duration::from_secs(60));
        let mut a = nets[0].split(3, 0).expect("split");
        let mut b = nets[1].split(2, 0).expect("split");
        a[2].send(1, vec![9; 4]).expect("send");
        let e = b[0].recv(0, 4).expect_err("lane 2 of a 2-lane split");
        assert!(e.to_string().contains("lane 2 in a run of 2 lanes"), "{e}");
        assert!(nets[0].split(0, 0).is_err(), "no lanes is no run");
    }

    #[test]
    fn a_peer_cannot_make_a_link_hold_more_than_its_bound_for_lanes_that_do_not_read() {
        let mut nets = memory_networks(2, &NetProfile::lan(), Duration::from_secs(60));
        let mut a = nets[0].split(2, 0).expect("split");
        let mut b = nets[1].split(2, 0).expect("split");
        for _ in 0..3 {
            a[1].send(1, vec![0; 24 << 20]).expect("send");
        }
        a[0].send(1, vec![1]).expect("send");
        // Lane 0 files lane 1's 72 MiB on its way to its own message.
        let e = b[0].recv(0, 1).expect_err("past the 64 MiB bound");
        assert!(e.to_string().contains("sent ahead"), "{e}");
    }

    #[test]
    fn a_message_sent_before_its_senders_failure_is_still_delivered() {
        let mut nets = memory_networks(2, &NetProfile::lan(), Duration::from_secs(3600));
        let mut a = nets[0].split(2, 0).expect("split");
        let mut b = nets[1].split(2, 0).expect("split");
        a[0].send(1, vec![7; 5]).expect("send");
        // Party 1 learns that party 0 failed (e.g. its other lane saw it)
        // after party 0's message arrived: the message comes first, then
        // the failure.
        b[1].fail(0);
        assert_eq!(b[0].recv(0, 5).expect("the message on its way"), vec![7; 5]);
        let e = b[0].recv(0, 5).expect_err("then the failure");
        assert!(matches!(e, NetError::Aborted { culprit: 0, .. }), "{e}");
    }

    #[test]
    fn a_failed_lane_stops_the_waits_of_the_others() {
        let mut nets = memory_networks(2, &NetProfile::lan(), Duration::from_secs(3600));
        let lanes = nets[0].split(2, 0).expect("split");
        let mut it = lanes.into_iter();
        let (mut first, second) = (it.next().expect("lane"), it.next().expect("lane"));
        let waiting = std::thread::spawn(move || first.recv(1, 1));
        second.fail(1);
        let e = waiting
            .join()
            .expect("thread")
            .expect_err("a wait on the culprit ends");
        assert!(matches!(e, NetError::Aborted { culprit: 1, .. }), "{e}");
    }
}
