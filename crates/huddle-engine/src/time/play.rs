//! The scripts of a run played out in time ([`play`]): every lane's roles
//! as actors with their own clocks, every message over its physical link
//! as `huddle_net`'s link emulation carries it, every step's work at the
//! host's rates, the cores a host has shared among the actors computing on
//! it at once.

use crate::cost::{Event, Plays, Work};
use crate::error::RunError;
use crate::time::rates::{Rates, TransportRates};
use huddle_net::{NetProfile, PartyId, Phase};
use std::collections::{BTreeMap, VecDeque};

/// What the play runs on.
pub(crate) struct Setting<'a> {
    /// Latency and bandwidth per link.
    pub(crate) net: &'a NetProfile,
    /// The host's rates.
    pub(crate) rates: &'a Rates,
    /// The protocol whose own rates apply.
    pub(crate) protocol: crate::Protocol,
    /// The transport's per-message and per-byte costs.
    pub(crate) transport: TransportRates,
    /// Every party on one host, sharing its cores (else one host each).
    pub(crate) one_host: bool,
}

/// Where the time of a chain of steps went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Path {
    /// One-way latencies of the messages on the chain.
    pub(crate) latency: f64,
    /// Their serialization at the link's bandwidth, queueing included.
    pub(crate) serialization: f64,
    /// Local work and message handling, slowdown by shared cores included.
    pub(crate) compute: f64,
    /// Messages on the chain.
    pub(crate) hops: u32,
}

impl Path {
    fn total(&self) -> f64 {
        self.latency + self.serialization + self.compute
    }

    /// This chain followed by `next`.
    pub(crate) fn plus(&self, next: &Path) -> Path {
        Path {
            latency: self.latency + next.latency,
            serialization: self.serialization + next.serialization,
            compute: self.compute + next.compute,
            hops: self.hops + next.hops,
        }
    }

    pub(crate) fn since(&self, earlier: &Path) -> Path {
        Path {
            latency: self.latency - earlier.latency,
            serialization: self.serialization - earlier.serialization,
            compute: self.compute - earlier.compute,
            hops: self.hops - earlier.hops,
        }
    }
}

/// A played run: per phase its window as a run's merged accounting counts
/// it, the path that ended it, each physical link's serialization time and
/// the work done by kind (`None`: message handling).
#[derive(Debug, Default)]
pub(crate) struct Timeline {
    pub(crate) windows: BTreeMap<Phase, (f64, f64)>,
    pub(crate) paths: BTreeMap<Phase, Path>,
    pub(crate) serializing: BTreeMap<(Phase, PartyId, PartyId), f64>,
    pub(crate) work: BTreeMap<(Phase, Option<Work>), f64>,
}

impl Timeline {
    /// Seconds of `phase`, as `Accounting::seconds` (zero if never entered).
    pub(crate) fn seconds(&self, phase: Phase) -> f64 {
        self.windows
            .get(&phase)
            .map_or(0.0, |(s, e)| (e - s).max(0.0))
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// Steps at the current time.
    Ready,
    /// Its next receive's message arrives then.
    Waiting(f64),
    /// Works: full-speed seconds left, of what kind.
    Computing(f64, Option<Work>),
    Done,
}

/// A message in flight: when it arrives and the chain that brought it.
struct Flight {
    arrival: f64,
    path: Path,
}

/// One role of one lane.
struct Actor<'a> {
    events: &'a [Event],
    at: usize,
    lane: usize,
    role: PartyId,
    party: PartyId,
    host: usize,
    state: State,
    /// Whether the handling of the send at `at` is done.
    handled: bool,
    /// When it came to the receive at `at`, while it has not received.
    asked: Option<f64>,
    path: Path,
    phase: Option<Phase>,
    windows: BTreeMap<Phase, (f64, f64)>,
    entered: BTreeMap<Phase, Path>,
    left: BTreeMap<Phase, Path>,
}

/// Plays `plays` on `setting`. The scripts must be consistent (as
/// [`Plays::cost`] checks); a play that stops with a script unfinished is
/// an internal error.
pub(crate) fn play(plays: &Plays, setting: &Setting) -> Result<Timeline, RunError> {
    let mut actors: Vec<Actor> = Vec::new();
    for (lane, l) in plays.lanes.iter().enumerate() {
        for (role, script) in l.scripts.iter().enumerate() {
            let party = l.roles.get(role).copied().unwrap_or(role);
            actors.push(Actor {
                events: script.events(),
                at: 0,
                lane,
                role,
                party,
                host: if setting.one_host { 0 } else { party },
                state: State::Ready,
                handled: false,
                asked: None,
                path: Path::default(),
                phase: None,
                windows: BTreeMap::new(),
                entered: BTreeMap::new(),
                left: BTreeMap::new(),
            });
        }
    }
    let mut play = Play {
        setting,
        queues: BTreeMap::new(),
        link_free: BTreeMap::new(),
        timeline: Timeline::default(),
        roles: plays.lanes.iter().map(|l| l.roles.clone()).collect(),
        now: 0.0,
    };
    let hosts = actors.iter().map(|a| a.host + 1).max().unwrap_or(0);
    loop {
        loop {
            let mut moved = false;
            for a in actors.iter_mut() {
                while play.step(a) {
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        let mut busy = vec![0usize; hosts];
        for a in &actors {
            if let State::Computing(..) = a.state {
                busy[a.host] += 1;
            }
        }
        let cores = setting.rates.cores.max(1) as f64;
        let speed = |host: usize| (cores / busy[host].max(1) as f64).min(1.0);
        let next = actors
            .iter()
            .filter_map(|a| match a.state {
                State::Computing(left, _) => Some(play.now + left / speed(a.host)),
                State::Waiting(t) => Some(t),
                _ => None,
            })
            .min_by(f64::total_cmp);
        let Some(next) = next else { break };
        let dt = (next - play.now).max(0.0);
        for a in actors.iter_mut() {
            match a.state {
                State::Computing(left, kind) => {
                    let s = speed(a.host);
                    let phase = a.phase.unwrap_or(Phase::Setup);
                    let done = (dt * s).min(left);
                    *play.timeline.work.entry((phase, kind)).or_default() += done;
                    a.path.compute += dt;
                    // Finished if it ends by the next time (compared as
                    // `next` was computed: at a late `now`, a tiny `left`
                    // vanishes in the sum).
                    a.state = if play.now + left / s <= next {
                        State::Ready
                    } else {
                        State::Computing(left - done, kind)
                    };
                }
                State::Waiting(t) if t <= next => a.state = State::Ready,
                _ => {}
            }
        }
        play.now = next;
    }
    if let Some(a) = actors.iter().find(|a| a.state != State::Done) {
        return Err(RunError::Internal(format!(
            "time model: lane {}'s role {} stops at step {} of its script",
            a.lane, a.role, a.at
        )));
    }
    Ok(play.finish(&actors))
}

/// The shared state of a play.
struct Play<'a> {
    setting: &'a Setting<'a>,
    /// Messages in flight per (lane, from role, to role).
    queues: BTreeMap<(usize, PartyId, PartyId), VecDeque<Flight>>,
    /// When each physical directed link is done serializing.
    link_free: BTreeMap<(PartyId, PartyId), f64>,
    timeline: Timeline,
    roles: Vec<Vec<PartyId>>,
    now: f64,
}

impl Play<'_> {
    /// Takes `a`'s next step at the current time if it can; whether it did.
    fn step(&mut self, a: &mut Actor) -> bool {
        if a.state != State::Ready {
            return false;
        }
        let now = self.now;
        let transport = self.setting.transport;
        let Some(&event) = a.events.get(a.at) else {
            if let Some(p) = a.phase {
                leave(a, p, now);
            }
            a.state = State::Done;
            return true;
        };
        match event {
            Event::Enter(phase) => {
                if let Some(p) = a.phase {
                    leave(a, p, now);
                }
                a.phase = Some(phase);
                let w = a.windows.entry(phase).or_insert((now, now));
                w.1 = w.1.max(now);
                a.entered.entry(phase).or_insert(a.path);
            }
            Event::Work(work, count) => {
                let seconds = count * self.setting.rates.seconds_of(self.setting.protocol, work);
                if seconds > 0.0 {
                    a.state = State::Computing(seconds, Some(work));
                }
            }
            Event::Send { phase, to, bytes } => {
                if !a.handled {
                    a.handled = true;
                    let seconds = transport.message + bytes as f64 * transport.byte;
                    if seconds > 0.0 {
                        a.state = State::Computing(seconds, None);
                    }
                    return true;
                }
                a.handled = false;
                let to_party = self.roles[a.lane].get(to).copied().unwrap_or(to);
                let shape = self.setting.net.shape(a.party, to_party);
                let free = self.link_free.entry((a.party, to_party)).or_insert(0.0);
                let start = free.max(now);
                let serialize = shape
                    .bandwidth_bps
                    .map_or(0.0, |bps| bytes as f64 * 8.0 / bps);
                *free = start + serialize;
                let latency = shape.latency.as_secs_f64();
                *self
                    .timeline
                    .serializing
                    .entry((phase, a.party, to_party))
                    .or_default() += serialize;
                let mut path = a.path;
                path.serialization += start - now + serialize;
                path.latency += latency;
                path.hops += 1;
                self.queues
                    .entry((a.lane, a.role, to))
                    .or_default()
                    .push_back(Flight {
                        arrival: start + serialize + latency,
                        path,
                    });
            }
            Event::Recv { from, bytes } => {
                let asked = *a.asked.get_or_insert(now);
                let queue = self.queues.entry((a.lane, from, a.role)).or_default();
                let Some(head) = queue.front() else {
                    return false;
                };
                // A receiver that was there before its message is woken,
                // which takes the transport's wake-up after the arrival:
                // latency, not work, so it holds no core (a woken thread
                // waits for the scheduler, not for other threads' work).
                let waited = head.arrival >= asked;
                let wake = if waited { transport.wake } else { 0.0 };
                if head.arrival + wake > now {
                    a.state = State::Waiting(head.arrival + wake);
                    return true;
                }
                let Some(flight) = queue.pop_front() else {
                    return false;
                };
                a.asked = None;
                let mut path = flight.path;
                path.latency += wake;
                // The message decided when this actor goes on if it came
                // after the actor's own chain; any wait past its arrival
                // is time the actor's host spent on others.
                if path.total() > a.path.total() {
                    a.path = path;
                }
                a.path.compute += (now - a.path.total()).max(0.0);
                let seconds = transport.message + bytes as f64 * transport.byte;
                if seconds > 0.0 {
                    a.state = State::Computing(seconds, None);
                }
            }
        }
        a.at += 1;
        true
    }

    /// The timeline: per phase each party's window (its lanes' earliest
    /// entry to latest exit), merged over the parties as the accounting
    /// merges them (latest entry to latest exit), and the path of the
    /// actor that left last.
    fn finish(mut self, actors: &[Actor]) -> Timeline {
        let mut parties: BTreeMap<(Phase, PartyId), (f64, f64)> = BTreeMap::new();
        for a in actors {
            for (&phase, &(s, e)) in &a.windows {
                let w = parties.entry((phase, a.party)).or_insert((s, e));
                *w = (w.0.min(s), w.1.max(e));
            }
        }
        for (&(phase, _), &(s, e)) in &parties {
            let w = self.timeline.windows.entry(phase).or_insert((s, e));
            *w = (w.0.max(s), w.1.max(e));
        }
        for phase in Phase::ALL {
            let last = actors
                .iter()
                .filter_map(|a| a.windows.get(&phase).map(|w| (w.1, a)))
                .max_by(|x, y| x.0.total_cmp(&y.0));
            if let Some((_, a)) = last {
                let (Some(end), Some(start)) = (a.left.get(&phase), a.entered.get(&phase)) else {
                    continue;
                };
                self.timeline.paths.insert(phase, end.since(start));
            }
        }
        self.timeline
    }
}

/// `a` leaves `phase` at `now`.
fn leave(a: &mut Actor, phase: Phase, now: f64) {
    if let Some(w) = a.windows.get_mut(&phase) {
        w.1 = w.1.max(now);
    }
    a.left.insert(phase, a.path);
}
