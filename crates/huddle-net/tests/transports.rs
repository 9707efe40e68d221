//! The same behaviour from every transport: memory, TCP and TLS.

use huddle_net::{
    local_networks, memory_networks, Handshake, LinkStats, NetError, NetProfile, Network, Phase,
};
use std::time::{Duration, Instant};

fn handshake() -> Handshake {
    Handshake {
        session: "test".into(),
        settings: huddle_net::Settings::new(),
        circuit: [7; 32],
    }
}

const TRANSPORTS: [&str; 3] = ["memory", "tcp", "tls"];

fn networks(kind: &str, parties: usize, profile: NetProfile, timeout: Duration) -> Vec<Network> {
    match kind {
        "memory" => memory_networks(parties, &profile, timeout),
        "tcp" => local_networks(parties, false, handshake(), profile, timeout).expect("tcp setup"),
        "tls" => local_networks(parties, true, handshake(), profile, timeout).expect("tls setup"),
        other => panic!("unknown transport {other}"),
    }
}

/// Runs `f` for every party on its own thread, which owns (and at the end
/// drops) the party's endpoint; returns their results in party order.
fn run<T: Send>(nets: Vec<Network>, f: impl Fn(Network) -> T + Sync) -> Vec<T> {
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = nets.into_iter().map(|n| s.spawn(move || f(n))).collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("party thread"))
            .collect()
    })
}

fn message(from: usize, to: usize, round: usize, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (from * 31 + to * 7 + round * 3 + i) as u8)
        .collect()
}

#[test]
fn every_pair_exchanges_exact_bytes_with_exact_accounting() {
    for kind in TRANSPORTS {
        let n = 3;
        // 8 MiB both ways at once checks that simultaneous large sends cannot deadlock.
        let sizes = [1usize, 1000, 8 << 20];
        let results = run(
            networks(kind, n, NetProfile::lan(), Duration::from_secs(30)),
            |mut net| {
                let me = net.party();
                net.set_phase(Phase::Online);
                for (round, &len) in sizes.iter().enumerate() {
                    let out: Vec<_> = (0..n)
                        .filter(|&p| p != me)
                        .map(|p| (p, message(me, p, round, len)))
                        .collect();
                    let expect: Vec<_> = (0..n).filter(|&p| p != me).map(|p| (p, len)).collect();
                    let got = net.exchange(out, &expect).expect("exchange");
                    for ((p, _), data) in expect.iter().zip(got) {
                        assert!(
                            data == message(*p, me, round, len),
                            "{kind}: wrong content from {p} in round {round}"
                        );
                    }
                }
                net.accounting().clone()
            },
        );
        let total: u64 = sizes.iter().map(|&s| s as u64).sum();
        for (me, acc) in results.iter().enumerate() {
            for p in (0..n).filter(|&p| p != me) {
                assert_eq!(
                    acc.link(Phase::Online, me, p),
                    LinkStats {
                        bytes: total,
                        messages: 3,
                        rounds: 3
                    },
                    "{kind} {me}->{p}"
                );
                assert_eq!(
                    acc.link(Phase::Setup, me, p),
                    LinkStats::default(),
                    "{kind}: handshake is not protocol traffic"
                );
            }
        }
    }
}

#[test]
fn early_messages_wait_in_order_and_rounds_count_bursts() {
    for kind in TRANSPORTS {
        let results = run(
            networks(kind, 2, NetProfile::lan(), Duration::from_secs(10)),
            |mut net| {
                if net.party() == 0 {
                    for i in 0..5u8 {
                        net.send(1, vec![i; 3]).expect("send");
                    }
                    net.recv(1, 1).expect("ack");
                    net.send(1, vec![9]).expect("send");
                    net.recv(1, 1).expect("ack");
                } else {
                    std::thread::sleep(Duration::from_millis(50));
                    for i in 0..5u8 {
                        assert_eq!(
                            net.recv(0, 3).expect("queued message"),
                            vec![i; 3],
                            "{kind}"
                        );
                    }
                    net.send(0, vec![1]).expect("ack");
                    assert_eq!(net.recv(0, 1).expect("last"), vec![9]);
                    net.send(0, vec![1]).expect("ack");
                }
                net.accounting().clone()
            },
        );
        assert_eq!(
            results[0].link(Phase::Setup, 0, 1),
            LinkStats {
                bytes: 16,
                messages: 6,
                rounds: 2
            },
            "{kind}"
        );
        assert_eq!(
            results[1].link(Phase::Setup, 1, 0),
            LinkStats {
                bytes: 2,
                messages: 2,
                rounds: 2
            },
            "{kind}"
        );
    }
}

#[test]
fn wrong_sizes_and_unknown_peers_are_errors() {
    for kind in TRANSPORTS {
        run(
            networks(kind, 2, NetProfile::lan(), Duration::from_secs(10)),
            |mut net| {
                if net.party() == 0 {
                    net.send(1, vec![0; 10]).expect("send");
                    assert_eq!(
                        net.send(5, vec![]),
                        Err(NetError::UnknownPeer {
                            peer: 5,
                            me: 0,
                            parties: 2
                        })
                    );
                    assert_eq!(
                        net.send(0, vec![]),
                        Err(NetError::UnknownPeer {
                            peer: 0,
                            me: 0,
                            parties: 2
                        })
                    );
                    net.recv(1, 0).expect("done");
                } else {
                    assert_eq!(
                        net.recv(0, 11),
                        Err(NetError::UnexpectedLength {
                            peer: 0,
                            expected: 11,
                            got: 10
                        }),
                        "{kind}"
                    );
                    net.send(0, vec![]).expect("done");
                }
            },
        );
    }
}

#[test]
fn a_party_that_leaves_is_named_at_once() {
    for kind in TRANSPORTS {
        let timeout = Duration::from_secs(20);
        run(networks(kind, 3, NetProfile::lan(), timeout), |mut net| {
            let me = net.party();
            // One good round first.
            let out: Vec<_> = (0..3)
                .filter(|&p| p != me)
                .map(|p| (p, vec![1u8; 100]))
                .collect();
            let expect: Vec<_> = (0..3).filter(|&p| p != me).map(|p| (p, 100)).collect();
            net.exchange(out, &expect).expect("first round");
            if me == 2 {
                // Party 2 stops early: its endpoint is dropped with the thread's return
                // (a clean goodbye on sockets, a closed queue in memory).
                return;
            }
            let err = net.recv(2, 100).expect_err("party 2 is gone");
            assert!(err.culprit() == Some(2), "{kind}: {err}");
            // Noticed from the link, not by waiting out the timeout.
            assert!(!matches!(err, NetError::Timeout { .. }), "{kind}: {err}");
        });
    }
}

/// A crashed party stops the others even when two of them are in a steady
/// exchange that never waits on it: after the grace, every wait ends with
/// an error naming the crashed party (not a timeout; the loop below would
/// take minutes to finish on its own).
#[test]
fn a_crash_stops_parties_that_never_wait_on_the_crashed_one() {
    for kind in TRANSPORTS {
        let rounds = 20_000_000usize;
        let results = run(
            networks(kind, 3, NetProfile::lan(), Duration::from_secs(120)),
            |mut net| {
                let me = net.party();
                if me == 2 {
                    // Crash: the endpoint is dropped while the thread panics.
                    let crashed =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                            let _net = net;
                            panic!("party 2 crashes on purpose");
                        }));
                    assert!(crashed.is_err());
                    return None;
                }
                let peer = 1 - me;
                for r in 0..rounds {
                    let step = if me == 0 {
                        net.send(peer, vec![r as u8])
                            .and_then(|_| net.recv(peer, 1).map(drop))
                    } else {
                        net.recv(peer, 1).and_then(|m| net.send(peer, m))
                    };
                    if let Err(e) = step {
                        return Some((r, e));
                    }
                }
                None
            },
        );
        for (p, r) in results.iter().enumerate().take(2) {
            let (r, e) = r
                .clone()
                .unwrap_or_else(|| panic!("{kind}: party {p} never stopped"));
            assert!(r < rounds, "{kind}");
            assert_eq!(e.culprit(), Some(2), "{kind}: party {p}: {e}");
            assert!(!matches!(e, NetError::Timeout { .. }), "{kind}: {e}");
        }
    }
}

#[test]
fn a_silent_party_is_named_after_the_timeout() {
    for kind in TRANSPORTS {
        let timeout = Duration::from_millis(300);
        let results = run(networks(kind, 2, NetProfile::lan(), timeout), |mut net| {
            if net.party() == 0 {
                let start = Instant::now();
                let err = net.recv(1, 8).expect_err("party 1 stalls");
                let waited = start.elapsed();
                net.send(1, vec![]).expect("release party 1");
                Some((err, waited))
            } else {
                net.set_timeout(Duration::from_secs(10));
                net.recv(0, 0).expect("released");
                None
            }
        });
        let (err, waited) = results[0].clone().expect("party 0 result");
        assert_eq!(err, NetError::Timeout { peer: 1, timeout }, "{kind}");
        assert!(waited >= timeout, "{kind}: waited {waited:?}");
    }
}

/// The emulator never delivers before the profile allows: round trips take
/// at least the RTT and bulk data arrives no faster than the bandwidth. Only
/// these bounds are asserted (load can only slow a run down); how close runs
/// come to the model is measured by `huddle bench net`, and the schedule
/// itself is checked exactly in `profile.rs`'s unit tests.
#[test]
fn link_emulation_never_beats_the_profile() {
    let profile =
        NetProfile::from_toml("t", "[default]\nrtt_ms = 40\nmbps = 160\n").expect("profile");
    for kind in ["memory", "tcp"] {
        let results = run(
            networks(kind, 2, profile.clone(), Duration::from_secs(30)),
            |mut net| {
                let (rounds, bulk) = (8, 4_000_000usize);
                if net.party() == 0 {
                    let start = Instant::now();
                    for _ in 0..rounds {
                        net.send(1, vec![0]).expect("ping");
                        net.recv(1, 1).expect("pong");
                    }
                    let rtt = start.elapsed() / rounds;
                    let start = Instant::now();
                    for _ in 0..8 {
                        net.send(1, vec![0; bulk / 8]).expect("bulk");
                    }
                    net.recv(1, 1).expect("bulk ack");
                    // Subtract the ack's trip back and the one-way latency of the data.
                    let transfer = start.elapsed().saturating_sub(Duration::from_millis(40));
                    let mbps = (bulk + 8 * 4) as f64 * 8.0 / transfer.as_secs_f64() / 1e6;
                    Some((rtt, mbps))
                } else {
                    for _ in 0..rounds {
                        net.recv(0, 1).expect("ping");
                        net.send(0, vec![0]).expect("pong");
                    }
                    for _ in 0..8 {
                        net.recv(0, bulk / 8).expect("bulk");
                    }
                    net.send(0, vec![0]).expect("ack");
                    None
                }
            },
        );
        let (rtt, mbps) = results[0].expect("party 0 measured");
        let rtt_ms = rtt.as_secs_f64() * 1e3;
        assert!(rtt_ms >= 40.0, "{kind}: RTT {rtt_ms:.2} ms, profile 40 ms");
        assert!(mbps <= 160.0, "{kind}: {mbps:.1} Mbit/s, profile 160");
    }
}
