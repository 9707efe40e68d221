//! Who plays which role, where the links differ: a run's party i plays
//! role i, so putting host h in role r is running the protocol over the
//! network as role r sees it ([`played_by`]). Assignments the network
//! cannot tell apart (every permutation on a uniform network; swapping the
//! two hosts whose links look alike) cost the same time, so one of each
//! class is enough ([`role_classes`]).

use crate::protocol::MAX_SPLIT_PARTIES;
use huddle_net::{LinkShape, NetProfile, PartyId};
use std::collections::BTreeMap;

/// The network as the roles see it when role r is played by host
/// `roles[r]`: the link between roles a and b is the hosts' link.
pub fn played_by(net: &NetProfile, roles: &[PartyId]) -> NetProfile {
    let mut links = BTreeMap::new();
    for a in 0..roles.len() {
        for b in a + 1..roles.len() {
            links.insert((a, b), net.shape(roles[a], roles[b]));
        }
    }
    NetProfile {
        name: net.name.clone(),
        default: net.default,
        links,
    }
}

/// One assignment of hosts to roles per class the network tells apart,
/// the identity first, then in lexicographic order: for `parties` up to
/// [`MAX_SPLIT_PARTIES`] (beyond, n! assignments are too many to try, and
/// only the identity is given).
pub fn role_classes(parties: usize, net: &NetProfile) -> Vec<Vec<PartyId>> {
    let identity: Vec<PartyId> = (0..parties).collect();
    if parties > MAX_SPLIT_PARTIES {
        return vec![identity];
    }
    let seen_as = |roles: &[PartyId]| -> Vec<LinkShape> {
        let mut shapes = Vec::new();
        for a in 0..roles.len() {
            for b in a + 1..roles.len() {
                shapes.push(net.shape(roles[a], roles[b]));
            }
        }
        shapes
    };
    let mut classes: Vec<(Vec<LinkShape>, Vec<PartyId>)> = Vec::new();
    let mut roles = identity;
    loop {
        let shapes = seen_as(&roles);
        if !classes.iter().any(|(s, _)| *s == shapes) {
            classes.push((shapes, roles.clone()));
        }
        if !next_permutation(&mut roles) {
            break;
        }
    }
    classes.into_iter().map(|(_, r)| r).collect()
}

/// Steps `v` to its next permutation in lexicographic order; false after
/// the last.
fn next_permutation(v: &mut [PartyId]) -> bool {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        return false;
    };
    let pivot = i - 1;
    // A larger element exists after the pivot: v[i] is one.
    let j = (i..v.len()).rev().find(|&j| v[j] > v[pivot]).unwrap_or(i);
    v.swap(pivot, j);
    v[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_come_in_lexicographic_order_and_all_of_them() {
        let mut v = vec![0, 1, 2];
        let mut all = vec![v.clone()];
        while next_permutation(&mut v) {
            all.push(v.clone());
        }
        assert_eq!(
            all,
            [
                [0, 1, 2],
                [0, 2, 1],
                [1, 0, 2],
                [1, 2, 0],
                [2, 0, 1],
                [2, 1, 0]
            ]
        );
    }

    /// A uniform network has one class; aws3's three different links six;
    /// hetero4's two fast links share host 2, so swapping hosts 0 and 1
    /// keeps it: 24 / 2 classes.
    #[test]
    fn classes_are_the_assignments_the_links_tell_apart() {
        assert_eq!(role_classes(3, &NetProfile::wan()), [vec![0, 1, 2]]);
        assert_eq!(role_classes(4, &NetProfile::lan()).len(), 1);
        assert_eq!(role_classes(3, &NetProfile::aws3()).len(), 6);
        assert_eq!(role_classes(4, &NetProfile::hetero4()).len(), 12);
        assert_eq!(role_classes(5, &NetProfile::aws3()), [vec![0, 1, 2, 3, 4]]);
    }

    #[test]
    fn the_roles_see_the_hosts_links() {
        let net = NetProfile::aws3();
        let seen = played_by(&net, &[2, 0, 1]);
        assert_eq!(seen.shape(0, 1), net.shape(2, 0));
        assert_eq!(seen.shape(1, 2), net.shape(0, 1));
        assert_eq!(seen.shape(0, 2), net.shape(2, 1));
    }
}
