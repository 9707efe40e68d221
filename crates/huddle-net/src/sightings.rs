//! What a listening party saw of the connections that never became links,
//! for its connect-deadline message: per missing party what is known of it
//! (a failed TLS handshake whose certificate names it, or a failure from
//! the address of its host alone), and the rest as unattributed.

use crate::config::NetworkConfig;
use crate::PartyId;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

pub(crate) struct Sightings {
    /// Per party: the last failure its certificate names it in.
    parties: Vec<Option<(SocketAddr, String)>>,
    /// Failures no certificate names a party in.
    strangers: Vec<(SocketAddr, String)>,
}

/// Strangers listed at most (a crowd is summed up).
const LISTED: usize = 8;

impl Sightings {
    pub(crate) fn new(parties: usize) -> Sightings {
        Sightings {
            parties: vec![None; parties],
            strangers: Vec::new(),
        }
    }

    pub(crate) fn party(&mut self, party: PartyId, addr: SocketAddr, why: String) {
        if let Some(slot) = self.parties.get_mut(party) {
            *slot = Some((addr, why));
        }
    }

    pub(crate) fn stranger(&mut self, addr: SocketAddr, why: String) {
        self.strangers.push((addr, why));
    }

    /// What was seen of `party`, for a refusal's message.
    pub(crate) fn of(&self, party: PartyId) -> String {
        match self.parties.get(party).and_then(Option::as_ref) {
            Some((addr, why)) => format!("a connection from {addr} with its certificate: {why}"),
            None => String::new(),
        }
    }

    /// Party `me` gave up waiting for `missing`: what it knows of each.
    pub(crate) fn timeout_message(
        &self,
        me: PartyId,
        missing: &[PartyId],
        config: &NetworkConfig,
    ) -> String {
        let names: Vec<String> = missing.iter().map(|p| p.to_string()).collect();
        let mut msg = format!(
            "party {me} timed out waiting for part{} {} to connect",
            if missing.len() == 1 { "y" } else { "ies" },
            names.join(", ")
        );
        // A stranger's address is its party's where exactly one missing
        // party's host has it (parties on one host share theirs).
        let hosts: Vec<(PartyId, Vec<IpAddr>)> = missing
            .iter()
            .filter_map(|&p| config.parties.get(p))
            .map(|c| {
                let ips = (c.host.as_str(), c.port)
                    .to_socket_addrs()
                    .map(|a| a.map(|a| a.ip()).collect())
                    .unwrap_or_default();
                (c.id, ips)
            })
            .collect();
        let host_of = |addr: &SocketAddr| {
            let mut owners = hosts.iter().filter(|(_, ips)| ips.contains(&addr.ip()));
            match (owners.next(), owners.next()) {
                (Some((p, _)), None) => Some(*p),
                _ => None,
            }
        };
        let mut unattributed = Vec::new();
        let mut by_address: Vec<(PartyId, &SocketAddr, &String)> = Vec::new();
        for (addr, why) in &self.strangers {
            match host_of(addr) {
                Some(p) => by_address.push((p, addr, why)),
                None => unattributed.push(format!("{addr}: {why}")),
            }
        }
        for &p in missing {
            if let Some((addr, why)) = self.parties.get(p).and_then(Option::as_ref) {
                msg.push_str(&format!(
                    "; party {p} never completed the TLS handshake (a connection from {addr} \
                     with its certificate): {why}"
                ));
            }
            for (_, addr, why) in by_address.iter().filter(|(q, _, _)| *q == p) {
                msg.push_str(&format!(
                    "; party {p}'s host ({addr}) connected, but: {why}"
                ));
            }
        }
        if !unattributed.is_empty() {
            let more = unattributed.len().saturating_sub(LISTED);
            unattributed.truncate(LISTED);
            if more > 0 {
                unattributed.push(format!("{more} more"));
            }
            msg.push_str(&format!(
                "; unattributed refused connections: {}",
                unattributed.join("; ")
            ));
        }
        msg
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PartyConfig;

    fn config(hosts: &[&str]) -> NetworkConfig {
        NetworkConfig {
            session: "s".into(),
            ca: None,
            parties: hosts
                .iter()
                .enumerate()
                .map(|(id, h)| PartyConfig {
                    id,
                    host: h.to_string(),
                    port: 7000 + id as u16,
                    cert: None,
                    key: None,
                })
                .collect(),
        }
    }

    #[test]
    fn failures_are_put_down_to_a_party_by_certificate_or_by_its_own_host() {
        let addr = |s: &str| s.parse::<SocketAddr>().expect("addr");
        let mut seen = Sightings::new(4);
        seen.party(
            1,
            addr("10.0.0.9:5000"),
            "its certificate is not pinned".into(),
        );
        seen.stranger(addr("10.0.0.3:5001"), "bad hello".into());
        seen.stranger(addr("10.0.0.2:5002"), "TLS failed".into());
        let c = config(&["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.3"]);
        let msg = seen.timeout_message(0, &[1, 2, 3], &c);
        assert!(
            msg.starts_with("party 0 timed out waiting for parties 1, 2, 3 to connect"),
            "{msg}"
        );
        assert!(
            msg.contains("party 1 never completed the TLS handshake (a connection from 10.0.0.9:5000 with its certificate): its certificate is not pinned"),
            "{msg}"
        );
        // Party 1's host, and only party 1 lives there.
        assert!(
            msg.contains("party 1's host (10.0.0.2:5002) connected, but: TLS failed"),
            "{msg}"
        );
        // Parties 2 and 3 share a host: no attribution by address.
        assert!(
            msg.contains("unattributed refused connections: 10.0.0.3:5001: bad hello"),
            "{msg}"
        );
        assert_eq!(seen.of(2), "");
        assert!(seen.of(1).contains("its certificate is not pinned"));
    }
}
