//! Who plays which of a protocol's roles ([`Seats`]): a run may put host
//! h (party h of the parties file, whose links and certificate are its
//! own) in role r != h, so that the protocol's party r is that host. An
//! endpoint given seats ([`Network::play_roles`](super::Network::play_roles))
//! speaks in roles to the protocol (its `party()`, the peers it sends to
//! and receives from, the culprit it blames) and in hosts to everything
//! else: its links, accounting, errors, and what it tells its peers.

use crate::PartyId;
use std::sync::Arc;

/// Role r is played by host `hosts[r]`: a permutation of the parties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Seats {
    hosts: Arc<[PartyId]>,
}

impl Seats {
    /// The seats `roles` gives (role r played by host `roles[r]`), or why
    /// they are not a permutation of `parties` parties.
    pub(crate) fn new(roles: &[PartyId], parties: usize) -> Result<Seats, String> {
        let mut seen = vec![false; parties];
        if roles.len() != parties {
            return Err(format!(
                "{} roles for a run of {parties} parties",
                roles.len()
            ));
        }
        for &h in roles {
            match seen.get_mut(h) {
                Some(s) if !*s => *s = true,
                _ => return Err(format!("the roles {roles:?} are not a permutation")),
            }
        }
        Ok(Seats {
            hosts: roles.into(),
        })
    }

    /// The host playing `role` (a role out of range stays as it is, for
    /// the endpoint to refuse as an unknown peer).
    pub(crate) fn host(&self, role: PartyId) -> PartyId {
        self.hosts.get(role).copied().unwrap_or(role)
    }

    /// The role `host` plays.
    pub(crate) fn role(&self, host: PartyId) -> PartyId {
        self.hosts.iter().position(|&h| h == host).unwrap_or(host)
    }
}

/// Translates through optional seats (none: every host plays its own id).
pub(crate) fn host(seats: &Option<Seats>, role: PartyId) -> PartyId {
    seats.as_ref().map_or(role, |s| s.host(role))
}

/// The role `host` plays under optional seats.
pub(crate) fn role(seats: &Option<Seats>, host: PartyId) -> PartyId {
    seats.as_ref().map_or(host, |s| s.role(host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_and_hosts_are_inverse() {
        let s = Seats::new(&[2, 0, 1], 3).expect("permutation");
        assert_eq!((s.host(0), s.host(1), s.host(2)), (2, 0, 1));
        assert_eq!((s.role(2), s.role(0), s.role(1)), (0, 1, 2));
        assert!(Seats::new(&[0, 0, 1], 3).is_err());
        assert!(Seats::new(&[0, 1], 3).is_err());
        assert!(Seats::new(&[0, 1, 3], 3).is_err());
    }

    /// Under roles 2,0,1 host 2 is party 0: what party 0 sends party 1
    /// leaves host 2 for host 0, and the accounting names the hosts.
    #[test]
    fn an_endpoint_speaks_roles_to_the_protocol_and_hosts_to_the_links() {
        use crate::{memory_networks, NetProfile};
        let mut nets = memory_networks(3, &NetProfile::lan(), std::time::Duration::from_secs(5));
        for net in &mut nets {
            net.play_roles(&[2, 0, 1]).expect("roles");
        }
        assert_eq!(
            nets.iter().map(|n| n.party()).collect::<Vec<_>>(),
            [1, 2, 0]
        );
        nets[2].send(1, vec![7; 5]).expect("send");
        assert_eq!(nets[0].recv(0, 5).expect("recv"), vec![7; 5]);
        let sent: Vec<(usize, usize)> = nets[2]
            .accounting()
            .iter()
            .filter(|(_, _, _, s)| s.bytes > 0)
            .map(|(_, from, to, _)| (from, to))
            .collect();
        assert_eq!(sent, [(2, 0)]);
        assert!(nets[0].play_roles(&[0, 0, 1]).is_err());
        std::thread::scope(|s| {
            for net in &mut nets {
                s.spawn(|| net.finish().expect("finish"));
            }
        });
    }
}
