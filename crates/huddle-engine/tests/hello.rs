//! Parties that disagree on any setting of their run stop at connect, each
//! told which setting differs in the user's terms (the option's name, in a
//! line), with the mismatch's exit code; settings left to the peers settle.

use huddle_engine::error::RunError;
use huddle_engine::exit::Exit;
use huddle_engine::fault::{Fault, FaultKind};
use huddle_engine::{Preprocess, Protocol, RunOptions, RunRequest, Truncation};
use huddle_net::{local_networks_each, Handshake, NetError, NetProfile, Network};
use std::time::Duration;

fn request(protocol: Protocol, parties: usize, options: RunOptions) -> RunRequest {
    RunRequest::new(protocol, parties, options).expect("a valid request")
}

fn handshake(r: &RunRequest) -> Handshake {
    Handshake {
        session: "hello-test".into(),
        settings: r.settings(),
        circuit: [3; 32],
    }
}

/// Two parties over loopback TCP, each with its own request's settings.
fn connect_two(a: &RunRequest, b: &RunRequest) -> Vec<Result<Network, NetError>> {
    local_networks_each(
        vec![handshake(a), handshake(b)],
        false,
        NetProfile::lan(),
        Duration::from_secs(20),
    )
    .expect("loopback listeners")
}

#[test]
fn every_setting_that_differs_stops_both_parties_at_connect_naming_it() {
    let quad = RunOptions::for_protocol(Protocol::Quad);
    let fault = Fault {
        party: 1,
        kind: FaultKind::AddError,
        message: None,
        seed: 0,
    };
    let faulty = quad.with_fault(Some(fault));
    let trio = RunOptions::for_protocol(Protocol::Trio);
    let bgw = RunOptions::for_protocol(Protocol::Bgw2Mal);
    // (what differs, the base request, the other party's, the option named)
    let cases: Vec<(&str, RunRequest, RunRequest, &str)> = vec![
        (
            "protocol",
            request(Protocol::Quad, 4, quad),
            request(Protocol::Tetrad, 4, quad),
            "--protocol",
        ),
        (
            "reveal-to",
            request(Protocol::Ttp, 3, RunOptions::default()),
            request(
                Protocol::Ttp,
                3,
                RunOptions::default().with_reveal_to(Some(1)),
            ),
            "--reveal-to",
        ),
        (
            "threads",
            request(Protocol::Quad, 4, quad),
            request(Protocol::Quad, 4, quad.with_threads(2)),
            "--threads",
        ),
        (
            "threads auto against a count",
            request(Protocol::Quad, 4, quad),
            request(Protocol::Quad, 4, quad.with_threads_auto(true)),
            "--threads",
        ),
        (
            "share-memory",
            request(Protocol::Quad, 4, quad),
            request(Protocol::Quad, 4, quad.with_share_memory(8 << 20)),
            "--share-memory",
        ),
        (
            "preprocess",
            request(Protocol::Trio, 3, trio),
            request(
                Protocol::Trio,
                3,
                trio.with_preprocess(Preprocess::Separate),
            ),
            "--preprocess",
        ),
        (
            "split-roles",
            request(Protocol::Quad, 4, quad),
            request(Protocol::Quad, 4, quad.with_split_roles(true)),
            "--split-roles",
        ),
        (
            "truncation",
            request(Protocol::Quad, 4, quad),
            request(
                Protocol::Quad,
                4,
                quad.with_truncation(Truncation::Probabilistic),
            ),
            "--truncation",
        ),
        (
            "max-fan-in",
            request(Protocol::Mfi3, 3, trio),
            request(Protocol::Mfi3, 3, trio.with_max_fan_in(Some(3))),
            "--max-fan-in",
        ),
        (
            "verify-every",
            request(Protocol::Quad, 4, quad),
            request(Protocol::Quad, 4, quad.with_verify_every(Some(3))),
            "--verify-every",
        ),
        (
            "corrupt",
            request(Protocol::Quad, 4, quad),
            request(Protocol::Quad, 4, faulty),
            "--corrupt",
        ),
        (
            "corrupt party",
            request(Protocol::Quad, 4, faulty),
            request(
                Protocol::Quad,
                4,
                quad.with_fault(Some(Fault { party: 2, ..fault })),
            ),
            "--corrupt",
        ),
        (
            "fault",
            request(Protocol::Quad, 4, faulty),
            request(
                Protocol::Quad,
                4,
                quad.with_fault(Some(Fault {
                    kind: FaultKind::Drop,
                    ..fault
                })),
            ),
            "--fault",
        ),
        (
            "fault-at",
            request(Protocol::Quad, 4, faulty),
            request(
                Protocol::Quad,
                4,
                quad.with_fault(Some(Fault {
                    message: Some(0),
                    ..fault
                })),
            ),
            "--fault-at",
        ),
        (
            "fault-seed",
            request(Protocol::Quad, 4, faulty),
            request(
                Protocol::Quad,
                4,
                quad.with_fault(Some(Fault { seed: 7, ..fault })),
            ),
            "--fault-seed",
        ),
        (
            "opt",
            request(Protocol::Bgw2Mal, 4, bgw),
            request(
                Protocol::Bgw2Mal,
                4,
                bgw.with_garble(huddle_engine::garble::Optimizations {
                    hypercube: true,
                    ..bgw.garble
                }),
            ),
            "--opt",
        ),
        (
            "linear",
            request(Protocol::Bgw2Mal, 4, bgw),
            request(
                Protocol::Bgw2Mal,
                4,
                bgw.with_linear(huddle_engine::garble::linear::LinearChoice::TrustedDealer),
            ),
            "--linear",
        ),
    ];
    for (what, base, other, option) in &cases {
        let (ours, theirs) = (base.settings(), other.settings());
        assert_ne!(ours, theirs, "{what}: the settings must differ");
        for (party, result) in connect_two(base, other).into_iter().enumerate() {
            let e = match result {
                Ok(_) => panic!("{what}: party {party} connected"),
                Err(e) => e,
            };
            let text = e.to_string();
            assert!(
                matches!(e, NetError::Mismatch(_)),
                "{what}: party {party}: {e:?}"
            );
            assert_eq!(RunError::Net(e).exit(), Exit::Mismatch, "{what}");
            assert!(
                text.contains(option) && text.chars().count() <= 200,
                "{what}: party {party}: `{text}`"
            );
        }
    }
}

#[test]
fn offers_of_a_most_settle_on_the_least() {
    let auto = |threads| {
        RunOptions::for_protocol(Protocol::Trio)
            .with_threads(threads)
            .with_threads_auto(true)
    };
    let (a, b) = (
        request(Protocol::Trio, 3, auto(4)),
        request(Protocol::Trio, 3, auto(2)),
    );
    let nets: Vec<Network> = connect_two(&a, &b)
        .into_iter()
        .map(|r| r.expect("offers match"))
        .collect();
    for (net, r) in nets.iter().zip([a, b]) {
        let settled = r.settled(net).expect("settled");
        assert_eq!(settled.options().threads, 2, "party {}", net.party());
    }
}
