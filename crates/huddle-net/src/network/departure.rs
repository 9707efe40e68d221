//! How an endpoint leaves a run, decided once when it is dropped: a
//! goodbye if all went well, else an abort naming the party that failed
//! (with the reason its peers are told), written after what is queued; and
//! the [`Interrupter`] that ends a party's run from another thread.

use super::alarm::Alarm;
use super::endpoint::Network;
use super::error::NetError;
use super::link::{Ending, Outbound, Outgoing};
use crate::PartyId;
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long dropping a `Network` waits for queued messages to leave before
/// closing the sockets anyway (a peer that stopped reading cannot hold us).
const LINGER: Duration = Duration::from_secs(30);

/// The same for the link to a silent peer.
const SILENT_LINGER: Duration = Duration::from_secs(1);

/// Stops a party's run from another thread: see [`Interrupter::interrupt`].
pub struct Interrupter {
    me: PartyId,
    alarm: Arc<Alarm>,
    writers: Vec<Sender<Outgoing>>,
}

impl Interrupter {
    /// Ends the run: every wait of the party returns
    /// [`NetError::Interrupted`]`(cause)` at once, and every peer is sent
    /// the abort frame naming this party, with `cause` as its reason, after
    /// what is already queued for it (so the peers stop even while this
    /// party computes, and say why).
    pub fn interrupt(&self, cause: &str) {
        self.alarm
            .raise_at_once(NetError::Interrupted(cause.to_string()));
        let reason: Arc<str> = Arc::from(crate::frame::bounded(cause));
        for w in &self.writers {
            let _ = w.send(Outgoing::End(Ending::Abort {
                culprit: self.me,
                reason: reason.clone(),
            }));
        }
    }
}

impl Network {
    /// A handle that stops this party's run from another thread (a signal
    /// handler's).
    pub fn interrupter(&self) -> Interrupter {
        Interrupter {
            me: self.me,
            alarm: self.alarm.clone(),
            writers: self
                .links
                .iter()
                .flatten()
                .filter_map(|l| match &l.out {
                    Some(Outbound::Writer { queue, .. }) => Some(queue.clone()),
                    _ => None,
                })
                .collect(),
        }
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        // Decided once, here: failures seen while tearing down do not count.
        let me = self.me;
        let failure = self.alarm.get();
        let ending = if std::thread::panicking() {
            Ending::Abort {
                culprit: me,
                reason: "".into(),
            }
        } else {
            match (&failure, &self.stop_reason) {
                (None, None) => Ending::Goodbye,
                (None, Some(reason)) => Ending::Abort {
                    culprit: me,
                    reason: reason.as_str().into(),
                },
                (Some(e), _) => Ending::Abort {
                    culprit: e.culprit().unwrap_or(me),
                    reason: e.told_to_peers().into(),
                },
            }
        };
        // A silent peer may read nothing for long: the abort gets a short
        // linger to leave (it finds the peer when the peer runs again).
        let silent = match failure {
            Some(NetError::Silent { peer, .. }) => Some(peer),
            _ => None,
        };
        // Every link is told at once, then all of them get one shared
        // deadline: a peer that stopped reading holds us LINGER at most, not
        // LINGER per link.
        for link in self.links.iter_mut().flatten() {
            match (&ending, &link.peer_alarm) {
                (Ending::Abort { culprit, reason }, Some(alarm)) if *culprit == me => {
                    alarm.raise(match reason.is_empty() {
                        true => NetError::Disconnected { peer: me },
                        false => NetError::Stopped {
                            peer: me,
                            reason: reason.to_string(),
                        },
                    })
                }
                (Ending::Abort { culprit, reason }, Some(alarm)) => {
                    alarm.raise(NetError::Aborted {
                        culprit: *culprit,
                        reporter: me,
                        reason: reason.to_string(),
                    })
                }
                _ => {}
            }
            // The writer writes what is queued, then the ending, and stops.
            if let Some(Outbound::Writer { queue, .. }) = &link.out {
                let _ = queue.send(Outgoing::End(ending.clone()));
            }
            link.out = None;
        }
        let until = Instant::now() + LINGER;
        let silent_until = Instant::now() + SILENT_LINGER;
        for (peer, link) in self.links.iter().enumerate() {
            let Some(link) = link else { continue };
            let until = if silent == Some(peer) {
                silent_until
            } else {
                until
            };
            if let Some(w) = &link.writer {
                while !w.is_finished() && Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        }
        for link in self.links.iter_mut().flatten() {
            if let Some(budget) = &link.inbox_bytes {
                budget.close();
            }
            if let Some(shutdown) = link.shutdown.take() {
                shutdown();
            }
        }
        for link in self.links.iter_mut().flatten() {
            if let Some(w) = link.writer.take() {
                let _ = w.join();
            }
            if let Some(r) = link.reader.take() {
                let _ = r.join();
            }
        }
    }
}
