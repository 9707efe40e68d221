//! The planning library (`huddle_engine::plan`): the choices honour every
//! requirement (guarantee, party count, tolerated corruptions, dealers,
//! never the TTP), each candidate carries its run's exact cost, and the
//! ranking by bytes is the order of those costs.

use huddle_circuit::builder::Builder;
use huddle_circuit::{gen, Circuit, Op};
use huddle_core::RingWidth;
use huddle_engine::garble::linear::LinearChoice;
use huddle_engine::plan::rank::{rank, why_first};
use huddle_engine::plan::{
    role_classes, tolerated, Candidate, Choices, FanIn, Guarantee, Objective, Refused, Requirements,
};
use huddle_engine::protocol::Security;
use huddle_engine::{Preprocess, Protocol, Rates};
use huddle_net::NetProfile;

fn cmp() -> Circuit {
    gen::generate("cmp-lt", 16, 2).expect("generates")
}

/// A product of two 32-bit ring values: no garbling runs it.
fn ring_product() -> Circuit {
    let mut b = Builder::arithmetic(RingWidth::W32, 2);
    let x = b.ring_input("x", 1);
    let y = b.ring_input("y", 1);
    let z = b.ring_op(Op::Mul, &[x[0], y[0]]);
    b.ring_output("z", vec![z]);
    b.finish()
}

fn candidates(circuit: &Circuit, net: &NetProfile, req: &Requirements) -> Vec<Candidate> {
    let (c, _) = Choices::new(circuit, net, req)
        .candidates(10, net, &Rates::default())
        .expect("a batch in range");
    c
}

fn protocols(c: &[Candidate]) -> Vec<Protocol> {
    let mut p: Vec<Protocol> = c.iter().map(|c| c.choice.protocol).collect();
    p.dedup();
    p
}

#[test]
fn malicious_security_admits_only_malicious_protocols() {
    let req = Requirements {
        guarantee: Guarantee::Malicious,
        allow_dealer: true,
        ..Requirements::default()
    };
    let c = candidates(&cmp(), &NetProfile::lan(), &req);
    assert!(!c.is_empty());
    for cand in &c {
        assert_eq!(
            cand.choice.protocol.descriptor().security,
            Security::MaliciousSelectiveAbort,
            "{}",
            cand.choice.protocol
        );
    }
    assert_eq!(
        protocols(&c),
        [
            Protocol::Quad,
            Protocol::QuadHet,
            Protocol::FantasticFour,
            Protocol::Tetrad,
            Protocol::Bgw2Mal
        ]
    );
}

#[test]
fn semi_honest_admits_every_secure_protocol_but_never_the_ttp() {
    for allow_dealer in [false, true] {
        let req = Requirements {
            allow_dealer,
            ..Requirements::default()
        };
        let choices = Choices::new(&cmp(), &NetProfile::lan(), &req);
        let c = candidates(&cmp(), &NetProfile::lan(), &req);
        assert!(c.iter().all(|c| c.choice.protocol != Protocol::Ttp));
        assert!(choices
            .refused()
            .iter()
            .any(|r| r.protocol == Protocol::Ttp && r.reason.contains("baseline")));
        let every_secure = Protocol::ALL
            .into_iter()
            .filter(|&p| p != Protocol::Ttp && (allow_dealer || p != Protocol::Ca2pc));
        assert_eq!(protocols(&c), every_secure.collect::<Vec<_>>());
    }
}

/// ca2pc's dealer and bgw2-mal's trusted linear preprocessing only when a
/// dealer is allowed.
#[test]
fn a_dealer_only_when_allowed() {
    let malicious = |allow_dealer| Requirements {
        guarantee: Guarantee::Malicious,
        allow_dealer,
        ..Requirements::default()
    };
    let trusts_dealer = |c: &Candidate| {
        c.choice.protocol.descriptor().dealer.is_some()
            || c.choice.linear == Some(LinearChoice::TrustedDealer)
    };
    let without = candidates(&cmp(), &NetProfile::lan(), &malicious(false));
    assert!(!without.iter().any(trusts_dealer));
    let with = candidates(&cmp(), &NetProfile::lan(), &malicious(true));
    assert!(with
        .iter()
        .any(|c| c.choice.linear == Some(LinearChoice::TrustedDealer)));

    let semi = |allow_dealer| Requirements {
        allow_dealer,
        ..Requirements::default()
    };
    let choices = Choices::new(&cmp(), &NetProfile::lan(), &semi(false));
    let refused = choices
        .refused()
        .iter()
        .find(|r| r.protocol == Protocol::Ca2pc)
        .expect("ca2pc refused");
    assert!(refused.reason.contains("dealer"), "{}", refused.reason);
    assert!(!candidates(&cmp(), &NetProfile::lan(), &semi(false))
        .iter()
        .any(trusts_dealer));
    assert!(candidates(&cmp(), &NetProfile::lan(), &semi(true))
        .iter()
        .any(|c| c.choice.protocol == Protocol::Ca2pc));
}

#[test]
fn the_party_count_and_corruptions_asked_for_are_met() {
    let four = Requirements {
        parties: Some(4),
        ..Requirements::default()
    };
    let c = candidates(&cmp(), &NetProfile::lan(), &four);
    assert!(c.iter().all(|c| c.choice.parties == 4));
    assert_eq!(
        protocols(&c),
        [
            Protocol::Quad,
            Protocol::QuadHet,
            Protocol::FantasticFour,
            Protocol::Tetrad,
            Protocol::Bgw3,
            Protocol::Bgw2,
            Protocol::Bgw2Mal
        ]
    );
    let two = Requirements {
        corruptions: 2,
        ..Requirements::default()
    };
    let c = candidates(&cmp(), &NetProfile::lan(), &two);
    for cand in &c {
        assert!(tolerated(cand.choice.protocol, cand.choice.parties) >= 2);
        assert_eq!(
            cand.choice.tolerated,
            tolerated(cand.choice.protocol, cand.choice.parties)
        );
    }
    // The fewest parties that tolerate two: 5 for bgw3, 7 for bgw2 and
    // bgw2-mal (a malicious protocol meets a semi-honest requirement).
    let parties = |p| {
        c.iter()
            .find(|c| c.choice.protocol == p)
            .map(|c| c.choice.parties)
    };
    assert_eq!(parties(Protocol::Bgw3), Some(5));
    assert_eq!(parties(Protocol::Bgw2), Some(7));
    assert_eq!(parties(Protocol::Bgw2Mal), Some(7));
    assert_eq!(
        protocols(&c),
        [Protocol::Bgw3, Protocol::Bgw2, Protocol::Bgw2Mal]
    );
}

/// Every candidate's cost is its run's, exactly; ranked by bytes, the
/// candidates are in the order of those costs.
#[test]
fn ranking_by_bytes_is_the_order_of_the_exact_costs() {
    let req = Requirements {
        allow_dealer: true,
        ..Requirements::default()
    };
    let batch = 65;
    let (mut c, _) = Choices::new(&cmp(), &NetProfile::lan(), &req)
        .candidates(batch, &NetProfile::lan(), &Rates::default())
        .expect("in range");
    rank(&mut c, Objective::Bytes);
    for cand in &c {
        assert_eq!(*cand.cost(), cand.run.cost(batch).expect("costs"));
    }
    for pair in c.windows(2) {
        assert!(
            (pair[0].bytes(), pair[0].online_rounds())
                <= (pair[1].bytes(), pair[1].online_rounds()),
            "{:?} before {:?}",
            pair[0].choice,
            pair[1].choice
        );
    }
    let least = c.iter().map(|c| c.bytes()).min().expect("candidates");
    assert_eq!(c[0].bytes(), least);
    let why = why_first(&c, Objective::Bytes).expect("a winner");
    assert!(
        why.starts_with(&format!("{} sends the fewest bytes", c[0].choice.protocol)),
        "{why}"
    );
}

/// MFI-3PC's fan-ins 2 to 8, the circuit as given and rewritten; the
/// rewritten comparator at fan-in 8 needs fewer online rounds than the
/// given one split to fan-in 2.
#[test]
fn multi_fan_in_protocols_try_every_fan_in_of_the_rewritten_circuit() {
    let req = Requirements {
        max_threads: 1,
        ..Requirements::default()
    };
    let c = candidates(&cmp(), &NetProfile::lan(), &req);
    let mfi: Vec<&Candidate> = c
        .iter()
        .filter(|c| c.choice.protocol == Protocol::Mfi3 && !c.choice.split_roles)
        .collect();
    let rewritten_at = |max| {
        mfi.iter().find(|c| {
            c.choice.fan_in
                == FanIn::Limit {
                    max,
                    rewritten: true,
                }
        })
    };
    // The comparator's AND-depth 5 goes down from fan-in 3 on.
    assert!(rewritten_at(2).is_none());
    for max in 3..=8 {
        assert!(rewritten_at(max).is_some(), "fan-in {max}");
    }
    // The circuit as given has no wide gate: every limit from 3 on costs
    // what 2 does, and only 2 is kept.
    assert!(!mfi.iter().any(|c| matches!(
        c.choice.fan_in,
        FanIn::Limit {
            max: 3..,
            rewritten: false
        }
    )));
    let given_2 = mfi
        .iter()
        .find(|c| {
            c.choice.fan_in
                == FanIn::Limit {
                    max: 2,
                    rewritten: false,
                }
        })
        .expect("fan-in 2 as given");
    let wide = rewritten_at(8).expect("fan-in 8");
    assert!(wide.online_rounds() < given_2.online_rounds());
    assert_eq!(wide.run.request().options().max_fan_in, Some(8));
    // Garbling takes any fan-in: the circuit as given.
    assert!(c
        .iter()
        .filter(|c| c.choice.protocol == Protocol::Bgw3)
        .all(|c| c.choice.fan_in == FanIn::Any));
    let only = Requirements {
        fan_ins: Some(vec![3]),
        ..req
    };
    let c = candidates(&cmp(), &NetProfile::lan(), &only);
    assert!(c
        .iter()
        .all(|c| matches!(c.choice.fan_in, FanIn::Limit { max: 3, .. } | FanIn::Any)));
    assert!(c
        .iter()
        .all(|c| c.choice.protocol.descriptor().max_fan_in.unwrap_or(8) >= 3));
}

/// Preprocessing separate or interleaved where the protocol has both;
/// split roles for the secret-sharing protocols without a dealer; threads
/// up to the most asked for.
#[test]
fn every_option_that_changes_a_run_is_tried() {
    let req = Requirements {
        allow_dealer: true,
        max_threads: 4,
        ..Requirements::default()
    };
    let c = candidates(&cmp(), &NetProfile::lan(), &req);
    for p in [Protocol::Astra, Protocol::Trio, Protocol::Ca2pc] {
        for pre in [Preprocess::Separate, Preprocess::Interleaved] {
            assert!(c
                .iter()
                .any(|c| c.choice.protocol == p && c.choice.preprocess == pre));
        }
    }
    assert!(c
        .iter()
        .filter(|c| c.choice.protocol == Protocol::Replicated)
        .all(|c| c.choice.preprocess == Preprocess::Interleaved));
    assert!(c
        .iter()
        .any(|c| c.choice.protocol == Protocol::Trio && c.choice.split_roles));
    assert!(!c
        .iter()
        .any(|c| c.choice.protocol == Protocol::Ca2pc && c.choice.split_roles));
    assert!(!c
        .iter()
        .any(|c| c.choice.protocol == Protocol::Bgw3 && c.choice.split_roles));
    let threads: std::collections::BTreeSet<usize> = c.iter().map(|c| c.choice.threads).collect();
    assert_eq!(threads.into_iter().collect::<Vec<_>>(), [1, 2, 4]);
    for cand in &c {
        let o = cand.run.request().options();
        assert_eq!(o.threads, cand.choice.threads);
        assert_eq!(o.split_roles, cand.choice.split_roles);
        assert_eq!(o.preprocess, cand.choice.preprocess);
    }
}

/// On aws3 (three links that differ) every assignment of hosts to Trio's
/// roles is a candidate; on a uniform WAN only the identity.
#[test]
fn roles_are_assigned_where_the_links_differ() {
    let req = Requirements {
        max_threads: 1,
        ..Requirements::default()
    };
    let trio_roles = |net: &NetProfile| {
        candidates(&cmp(), net, &req)
            .into_iter()
            .filter(|c| {
                c.choice.protocol == Protocol::Trio
                    && !c.choice.split_roles
                    && c.choice.preprocess == Preprocess::Interleaved
                    && c.choice.fan_in
                        == (FanIn::Limit {
                            max: 2,
                            rewritten: false,
                        })
            })
            .map(|c| c.choice.roles)
            .collect::<Vec<_>>()
    };
    assert_eq!(trio_roles(&NetProfile::wan()), [vec![0, 1, 2]]);
    assert_eq!(
        trio_roles(&NetProfile::aws3()),
        role_classes(3, &NetProfile::aws3())
    );
    assert_eq!(trio_roles(&NetProfile::aws3()).len(), 6);
}

/// A ring circuit for five parties: only garbling runs five, and it
/// garbles Boolean circuits only; every protocol's reason is named.
#[test]
fn a_circuit_no_candidate_can_run_says_why_for_every_protocol() {
    let req = Requirements {
        parties: Some(5),
        ..Requirements::default()
    };
    let choices = Choices::new(&ring_product(), &NetProfile::lan(), &req);
    assert!(choices.protocols().is_empty());
    let refused = choices.refused();
    assert_eq!(refused.len(), Protocol::ALL.len());
    let why = Refused::summary(refused);
    assert!(why.starts_with("no protocol can run this circuit"), "{why}");
    assert!(
        why.contains("bgw3: bgw3 garbles Boolean circuits only"),
        "{why}"
    );
    assert!(
        why.contains("trio: a 3-party protocol, and the plan is for 5 parties"),
        "{why}"
    );
    assert!(choices
        .candidates(0, &NetProfile::lan(), &Rates::default())
        .is_err());
}
