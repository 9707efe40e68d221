//! Telling a withheld message from a slow one: parties that wait on each
//! other in a cycle, with nothing on its way, wait forever.
//!
//! Liveness frames (see [`crate::liveness`]) say a peer is alive, not that
//! it will ever send what this party waits for: a peer that withholds a
//! message (a cheating party, `--fault drop`) and then waits itself stays
//! alive forever. So every liveness frame also carries the sender's *waits*:
//! per lane it is blocked in, the party it waits on and the wait's number;
//! whether its writer had nothing left to write (then every message it sent
//! on that link has arrived before the frame: TCP keeps the order, and link
//! emulation holds the liveness frames of a link that holds a message back
//! out of this); and, per wait, the number of its target's wait it has
//! *confirmed*: a report of the target, received during the wait, saying
//! the target waits in that lane too and has nothing on its way.
//!
//! A party that waits in lane `l` follows the reports it has: the peer it
//! waits on, the peer that one waits on, and so on. If the chain comes back
//! to it and every wait on it is confirmed against the next party's current
//! wait, nobody in the cycle can send before receiving: a deadlock. The
//! first party of the cycle to move would need a message from a party that
//! confirmed it had sent nothing and has not moved since. To let a message
//! that just arrived be filed (lanes share a link's inbox), the same cycle
//! must be seen for the idle timeout before the wait ends.

use crate::PartyId;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most waits a report lists (lanes a party is blocked in at once);
/// past it the report lists none, and no cycle is found through it.
const MAX_REPORTED: usize = 1024;
const ENTRY: usize = 12;

/// One wait as a report lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Reported {
    lane: u16,
    on: u16,
    seq: u32,
    /// The target's wait number this wait was confirmed against; 0: none.
    confirmed: u32,
}

/// A peer's latest report, as received.
struct Report {
    at: Instant,
    idle: bool,
    waits: Vec<Reported>,
}

impl Report {
    fn wait(&self, lane: u16) -> Option<Reported> {
        self.waits.iter().copied().find(|w| w.lane == lane)
    }
}

/// One wait of this party.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Wait {
    lane: u16,
    on: PartyId,
    seq: u32,
    since: Instant,
}

/// A party's waits and its peers' latest reports.
pub(crate) struct Board {
    me: PartyId,
    next: AtomicU32,
    waits: Mutex<Vec<Wait>>,
    heard: Mutex<Vec<Option<Report>>>,
}

impl Board {
    pub(crate) fn new(me: PartyId, parties: usize) -> Arc<Board> {
        Arc::new(Board {
            me,
            next: AtomicU32::new(1),
            waits: Mutex::new(Vec::new()),
            heard: Mutex::new((0..parties).map(|_| None).collect()),
        })
    }

    /// This party starts waiting in `lane` on `on`, until the guard drops.
    pub(crate) fn wait(self: &Arc<Board>, lane: u16, on: PartyId) -> Waiting {
        let wait = Wait {
            lane,
            on,
            seq: self.next.fetch_add(1, Ordering::Relaxed).max(1),
            since: Instant::now(),
        };
        if let Ok(mut waits) = self.waits.lock() {
            waits.retain(|w| w.lane != lane);
            waits.push(wait);
        }
        Waiting {
            board: self.clone(),
            wait,
            cycle: None,
        }
    }

    /// The body of a liveness frame: whether the writer had nothing left to
    /// write, and this party's waits with what each is confirmed against.
    pub(crate) fn report(&self, idle: bool) -> Vec<u8> {
        let (Ok(waits), Ok(heard)) = (self.waits.lock(), self.heard.lock()) else {
            return vec![0, 0, 0];
        };
        let listed = if waits.len() <= MAX_REPORTED {
            &waits[..]
        } else {
            &[]
        };
        let mut out = Vec::with_capacity(3 + ENTRY * listed.len());
        out.push(u8::from(idle));
        out.extend_from_slice(&(listed.len() as u16).to_le_bytes());
        for w in listed {
            let confirmed = confirmed(&heard, w).unwrap_or(0);
            out.extend_from_slice(&w.lane.to_le_bytes());
            out.extend_from_slice(&(w.on as u16).to_le_bytes());
            out.extend_from_slice(&w.seq.to_le_bytes());
            out.extend_from_slice(&confirmed.to_le_bytes());
        }
        out
    }

    /// Records `peer`'s report (peer data: a malformed one is dropped, as
    /// if none had come; a lying one can only hide a deadlock or, with the
    /// cycle's other members, end their own run).
    pub(crate) fn heard(&self, peer: PartyId, body: &[u8]) {
        let Some(report) = decode(body) else { return };
        if let Ok(mut heard) = self.heard.lock() {
            if let Some(slot) = heard.get_mut(peer) {
                *slot = Some(report);
            }
        }
    }

    /// The cycle of confirmed waits through `w`, as (party, wait number)
    /// from this party on; `None` if there is none.
    fn cycle(&self, w: &Wait) -> Option<Vec<(PartyId, u32)>> {
        let heard = self.heard.lock().ok()?;
        let first = confirmed(&heard, w)?;
        let mut chain = vec![(self.me, w.seq), (w.on, first)];
        let mut wait = heard.get(w.on)?.as_ref()?.wait(w.lane)?;
        for _ in 0..heard.len() {
            let next = usize::from(wait.on);
            if wait.confirmed == 0 {
                return None;
            }
            if next == self.me {
                return (wait.confirmed == w.seq).then_some(chain);
            }
            if chain.iter().any(|&(p, _)| p == next) {
                return None; // a cycle that this party only waits on
            }
            let then = heard.get(next)?.as_ref()?.wait(w.lane)?;
            if then.seq != wait.confirmed {
                return None;
            }
            chain.push((next, then.seq));
            wait = then;
        }
        None
    }
}

/// The target's wait number that `w` is confirmed against: its report came
/// during `w`, from a writer with nothing left to write, and says it waits
/// in the same lane.
fn confirmed(heard: &[Option<Report>], w: &Wait) -> Option<u32> {
    let r = heard.get(w.on)?.as_ref()?;
    if r.at <= w.since || !r.idle {
        return None;
    }
    r.wait(w.lane).map(|t| t.seq)
}

fn decode(body: &[u8]) -> Option<Report> {
    let (&idle, rest) = body.split_first()?;
    let count = u16::from_le_bytes(rest.get(..2)?.try_into().ok()?) as usize;
    let entries = rest.get(2..)?;
    if count > MAX_REPORTED || entries.len() != count * ENTRY || idle > 1 {
        return None;
    }
    let waits = entries
        .chunks_exact(ENTRY)
        .map(|e| Reported {
            lane: u16::from_le_bytes([e[0], e[1]]),
            on: u16::from_le_bytes([e[2], e[3]]),
            seq: u32::from_le_bytes([e[4], e[5], e[6], e[7]]),
            confirmed: u32::from_le_bytes([e[8], e[9], e[10], e[11]]),
        })
        .collect();
    Some(Report {
        at: Instant::now(),
        idle: idle == 1,
        waits,
    })
}

/// The longest liveness-frame body a report can have.
pub(crate) const MAX_REPORT: usize = 3 + ENTRY * MAX_REPORTED;

/// One wait, registered while it lasts.
pub(crate) struct Waiting {
    board: Arc<Board>,
    wait: Wait,
    /// The cycle last seen, and since when.
    cycle: Option<(Vec<(PartyId, u32)>, Instant)>,
}

impl Waiting {
    /// The cycle of parties (from this one) that have waited on each other
    /// for `patience` with nothing on its way, if there is one.
    pub(crate) fn deadlocked(&mut self, patience: Duration) -> Option<Vec<PartyId>> {
        let Some(now) = self.board.cycle(&self.wait) else {
            self.cycle = None;
            return None;
        };
        let since = match &self.cycle {
            Some((seen, since)) if *seen == now => *since,
            _ => Instant::now(),
        };
        let parties = (since.elapsed() >= patience).then(|| now.iter().map(|&(p, _)| p).collect());
        self.cycle = Some((now, since));
        parties
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Ok(mut waits) = self.board.waits.lock() {
            waits.retain(|w| w.seq != self.wait.seq);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three boards exchange reports by hand: `order` says who reports to
    /// whom, in turn.
    fn tell(boards: &[Arc<Board>], from: usize, to: usize, idle: bool) {
        let body = boards[from].report(idle);
        boards[to].heard(from, &body);
    }

    #[test]
    fn a_cycle_of_confirmed_waits_is_a_deadlock_and_anything_less_is_not() {
        let boards: Vec<Arc<Board>> = (0..3).map(|p| Board::new(p, 3)).collect();
        std::thread::sleep(Duration::from_millis(2));
        // 0 waits on 1, 1 on 2, 2 on 0, all in lane 0.
        let mut w0 = boards[0].wait(0, 1);
        let _w1 = boards[1].wait(0, 2);
        let _w2 = boards[2].wait(0, 0);
        std::thread::sleep(Duration::from_millis(2));
        // Everyone learns that its target waits (idle writers): confirmations.
        tell(&boards, 1, 0, true);
        tell(&boards, 2, 1, true);
        tell(&boards, 0, 2, true);
        assert!(
            w0.deadlocked(Duration::ZERO).is_none(),
            "0 knows only its own edge"
        );
        // Now the confirmations travel: 0 hears 1's and 2's.
        tell(&boards, 1, 0, true);
        tell(&boards, 2, 0, true);
        assert!(
            w0.deadlocked(Duration::from_secs(3600)).is_none(),
            "not yet for long"
        );
        assert_eq!(w0.deadlocked(Duration::ZERO), Some(vec![0, 1, 2]));
        // A writer with a message on its way confirms nothing.
        tell(&boards, 1, 0, false);
        assert!(w0.deadlocked(Duration::ZERO).is_none());
    }

    #[test]
    fn a_wait_on_a_party_that_computes_or_moved_on_is_no_deadlock() {
        let boards: Vec<Arc<Board>> = (0..2).map(|p| Board::new(p, 2)).collect();
        std::thread::sleep(Duration::from_millis(2));
        let mut w0 = boards[0].wait(0, 1);
        // Party 1 computes: it waits on nobody.
        std::thread::sleep(Duration::from_millis(2));
        tell(&boards, 1, 0, true);
        assert!(w0.deadlocked(Duration::ZERO).is_none());
        // Party 1 waits on 0, confirmed against 0's wait.
        let w1 = boards[1].wait(0, 0);
        std::thread::sleep(Duration::from_millis(2));
        tell(&boards, 0, 1, true);
        tell(&boards, 1, 0, true);
        tell(&boards, 1, 0, true);
        assert_eq!(w0.deadlocked(Duration::ZERO).map(|c| c.len()), Some(2));
        // Party 1 got a message and waits again (a new number): stale
        // confirmations do not close the cycle.
        drop(w1);
        let _w1 = boards[1].wait(0, 0);
        tell(&boards, 1, 0, true);
        assert!(w0.deadlocked(Duration::ZERO).is_none());
        // Another lane is another graph.
        let mut other = boards[0].wait(1, 1);
        tell(&boards, 1, 0, true);
        assert!(other.deadlocked(Duration::ZERO).is_none());
    }

    #[test]
    fn malformed_reports_are_dropped() {
        let b = Board::new(0, 2);
        for body in [&[][..], &[2, 0, 0], &[1, 1, 0], &[1, 1, 0, 0, 0, 0]] {
            b.heard(1, body);
            assert!(b.heard.lock().expect("lock")[1].is_none(), "{body:?}");
        }
        b.heard(7, &[1, 0, 0]);
        b.heard(1, &[1, 0, 0]);
        assert!(b.heard.lock().expect("lock")[1].is_some());
    }
}
