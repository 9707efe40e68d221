//! Replaying the parties' scripts together as the network would carry them
//! ([`replay`]): each directed link a queue in order, each message stamped
//! with its round as `huddle_net`'s endpoints stamp it, so the counts are
//! the ones a run's accounting ends with, whatever the timing.

use super::{Cost, Event, Script};
use crate::error::RunError;
use huddle_net::Phase;
use std::collections::VecDeque;

/// The traffic of `scripts` (party i's at index i) run together: bytes,
/// messages and rounds per directed link and phase, and rounds per phase.
///
/// The network's rules, replayed: a message's round stamp is one more than
/// the deepest stamp of its phase its sender has received so far (whatever
/// phase it received it in); a receive takes the next message of its link;
/// a link's rounds count its bursts of sends, each ended by any receive of
/// the sender. A receive whose link has nothing yet waits until the sender
/// has sent; scripts that wait on each other, or a message whose size its
/// receiver does not expect, are a mistake in a cost function, reported as
/// an internal error.
pub(crate) fn replay(scripts: &[Script]) -> Result<Cost, RunError> {
    let n = scripts.len();
    let mut queues: Vec<VecDeque<(Phase, u32, u64)>> = vec![VecDeque::new(); n * n];
    let mut at = vec![0usize; n];
    let mut depth = vec![[0u32; Phase::ALL.len()]; n];
    let mut sending = vec![vec![false; n]; n];
    let mut cost = Cost::default();
    loop {
        let mut moved = false;
        for (p, script) in scripts.iter().enumerate() {
            let events = script.events();
            while let Some(&event) = events.get(at[p]) {
                match event {
                    Event::Enter(_) | Event::Work(..) => {}
                    Event::Send { phase, to, bytes } => {
                        if to >= n || to == p {
                            return Err(internal(p, at[p], "sends to no peer"));
                        }
                        let stamp = depth[p][phase as usize].saturating_add(1);
                        let link = cost.links.entry((phase, p, to)).or_default();
                        link.bytes += bytes;
                        link.messages += 1;
                        link.rounds += u64::from(!sending[p][to]);
                        sending[p][to] = true;
                        let d = cost.rounds.entry(phase).or_default();
                        *d = (*d).max(stamp);
                        queues[p * n + to].push_back((phase, stamp, bytes));
                    }
                    Event::Recv { from, bytes } => {
                        if from >= n {
                            return Err(internal(p, at[p], "receives from no peer"));
                        }
                        let Some((phase, stamp, len)) = queues[from * n + p].pop_front() else {
                            break;
                        };
                        if len != bytes {
                            return Err(internal(
                                p,
                                at[p],
                                &format!("expects {bytes} bytes from {from}, which sends {len}"),
                            ));
                        }
                        let d = &mut depth[p][phase as usize];
                        *d = (*d).max(stamp);
                        sending[p].iter_mut().for_each(|s| *s = false);
                    }
                }
                at[p] += 1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    if let Some(p) = (0..n).find(|&p| at[p] < scripts[p].events().len()) {
        return Err(internal(p, at[p], "waits for a message nobody sends"));
    }
    if let Some(q) = queues.iter().position(|q| !q.is_empty()) {
        return Err(RunError::Internal(format!(
            "cost model: {} messages from {} to {} are never received",
            queues[q].len(),
            q / n,
            q % n
        )));
    }
    Ok(cost)
}

fn internal(party: usize, event: usize, what: &str) -> RunError {
    RunError::Internal(format!(
        "cost model: party {party}'s script, message {event}, {what}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ping-pong of three messages is three rounds; a message sent before
    /// the receive it does not depend on stays in the first round.
    #[test]
    fn rounds_are_chains_of_dependent_messages() {
        let mut a = Script::new(0);
        let mut b = Script::new(1);
        a.set_phase(Phase::Online);
        b.set_phase(Phase::Online);
        a.send(1, 8);
        b.send(0, 4); // independent of a's: round 1 too
        b.recv(0, 8);
        b.send(0, 2); // after a's: round 2
        a.recv(1, 4);
        a.recv(1, 2);
        a.send(1, 1); // round 3
        b.recv(0, 1);
        let cost = replay(&[a, b]).expect("consistent");
        assert_eq!(cost.rounds(Phase::Online), 3);
        let l01 = cost.link(Phase::Online, 0, 1);
        assert_eq!((l01.bytes, l01.messages, l01.rounds), (9, 2, 2));
        let l10 = cost.link(Phase::Online, 1, 0);
        assert_eq!((l10.bytes, l10.messages, l10.rounds), (6, 2, 2));
    }

    /// A stamp counts what was received in the message's own phase only.
    #[test]
    fn phases_keep_their_own_depth() {
        let mut a = Script::new(0);
        let mut b = Script::new(1);
        a.set_phase(Phase::Offline);
        a.send(1, 8);
        b.recv(0, 8);
        b.set_phase(Phase::Online);
        b.send(0, 8); // depends on an offline message only: online round 1
        a.recv(1, 8);
        let cost = replay(&[a, b]).expect("consistent");
        assert_eq!(cost.rounds(Phase::Offline), 1);
        assert_eq!(cost.rounds(Phase::Online), 1);
    }

    #[test]
    fn inconsistent_scripts_are_internal_errors() {
        let mut a = Script::new(0);
        let mut b = Script::new(1);
        a.recv(1, 8);
        b.recv(0, 8);
        assert!(replay(&[a.clone(), b.clone()]).is_err(), "a deadlock");
        let mut c = Script::new(1);
        c.send(0, 4);
        assert!(replay(&[a.clone(), c]).is_err(), "a size mismatch");
        let mut d = Script::new(1);
        d.send(0, 8);
        d.send(0, 8);
        assert!(replay(&[a, d]).is_err(), "a message never received");
    }
}
