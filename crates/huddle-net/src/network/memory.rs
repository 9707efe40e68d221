//! Endpoints joined in memory, for parties that are threads of one
//! process: a message goes straight into the peer's queue, and a party
//! that panics raises its peers' alarms.

use super::alarm::Alarm;
use super::endpoint::Network;
use super::link::{Inbound, LinkParts, Outbound};
use crate::profile::NetProfile;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::time::Duration;

/// `parties` endpoints joined in memory (for threads of one process).
pub fn memory_networks(parties: usize, profile: &NetProfile, timeout: Duration) -> Vec<Network> {
    let alarms: Vec<Arc<Alarm>> = (0..parties).map(|_| Arc::new(Alarm::default())).collect();
    let mut senders: Vec<Vec<Option<Sender<Inbound>>>> = (0..parties)
        .map(|_| (0..parties).map(|_| None).collect())
        .collect();
    let mut inboxes: Vec<Vec<Option<Receiver<Inbound>>>> = (0..parties)
        .map(|_| (0..parties).map(|_| None).collect())
        .collect();
    for from in 0..parties {
        for to in 0..parties {
            if from != to {
                let (tx, rx) = mpsc::channel();
                senders[from][to] = Some(tx);
                inboxes[to][from] = Some(rx);
            }
        }
    }
    senders
        .into_iter()
        .zip(inboxes)
        .enumerate()
        .map(|(me, (outs, ins))| {
            let links = outs
                .into_iter()
                .zip(ins)
                .zip(&alarms)
                .map(|((out, inbox), peer_alarm)| match (out, inbox) {
                    (Some(tx), Some(inbox)) => Some(LinkParts {
                        out: Outbound::Direct(tx),
                        peer_alarm: Some(peer_alarm.clone()),
                        inbox,
                        writer: None,
                        reader: None,
                        shutdown: None,
                        inbox_bytes: None,
                        max_message: None,
                        liveness: None,
                    }),
                    _ => None,
                })
                .collect();
            Network::from_links(me, links, profile, timeout, (alarms[me].clone(), None))
        })
        .collect()
}
