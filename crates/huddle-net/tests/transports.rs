//! The same behaviour from every transport: memory, TCP and TLS.

use huddle_net::{
    local_networks, memory_networks, Handshake, LinkStats, NetError, NetProfile, Network, Phase,
};
use std::io::Read;
use std::net::{TcpListener, TcpStream};
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

/// A party that stops because of a failure of its own tells every peer
/// why, in the abort that ends its links (authenticated like every frame of
/// a TLS link); a peer that stops because of it passes the reason on.
#[test]
fn a_party_that_stops_tells_its_peers_why() {
    const WHY: &str = "its input file is invalid";
    for kind in TRANSPORTS {
        let results = run(
            networks(kind, 3, NetProfile::lan(), Duration::from_secs(20)),
            |mut net| match net.party() {
                1 => {
                    net.stop(WHY);
                    None
                }
                // Party 2 hears it from party 1 and stops; party 0 waits on
                // party 2, and hears it from either.
                2 => Some(net.recv(1, 8).expect_err("party 1 stopped")),
                _ => Some(net.recv(2, 8).expect_err("party 2 stopped")),
            },
        );
        assert_eq!(
            results[2],
            Some(NetError::Stopped {
                peer: 1,
                reason: WHY.into()
            }),
            "{kind}"
        );
        let e = results[0].clone().expect("party 0 result");
        assert_eq!(e.culprit(), Some(1), "{kind}: {e}");
        assert!(e.to_string().contains(WHY), "{kind}: {e}");
    }
}

/// In memory (parties as threads of one process, no liveness frames) a
/// wait is bounded per message.
#[test]
fn in_memory_a_party_that_sends_nothing_is_named_after_the_timeout() {
    let timeout = Duration::from_millis(300);
    let results = run(
        networks("memory", 2, NetProfile::lan(), timeout),
        |mut net| {
            if net.party() == 0 {
                let err = net.recv(1, 8).expect_err("party 1 sends nothing");
                net.send(1, vec![]).expect("release party 1");
                Some(err)
            } else {
                net.set_timeout(Duration::from_secs(60));
                net.recv(0, 0).expect("released");
                None
            }
        },
    );
    let err = results[0].clone().expect("party 0 result");
    assert_eq!(err, NetError::Timeout { peer: 1, timeout });
}

/// Over sockets a peer whose process is stopped (or whose host froze, or
/// whose network was cut) keeps its connection open and says nothing at
/// all: it is named once it has been silent for the idle timeout, and the
/// abort that this party leaves with tells the peer so.
#[test]
fn a_stalled_peer_is_named_after_the_idle_timeout() {
    let idle = Duration::from_secs(1);
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let stalled = TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
    let (ours, _) = listener.accept().expect("accept");
    let mut net = huddle_net::fuzzing::party_zero_over(ours, idle).expect("party 0");
    let err = net.recv(1, 8).expect_err("party 1 stalls");
    assert_eq!(err, NetError::Silent { peer: 1, idle });
    assert!(
        err.to_string().contains("party 1 sent nothing for 1s"),
        "{err}"
    );
    drop(net);
    // What the stalled party would read once it runs again: liveness frames
    // (a header, a 2-byte length, a report) while party 0 waited, then an
    // abort naming it, with the reason.
    let mut bytes = Vec::new();
    let mut stalled = stalled;
    stalled.read_to_end(&mut bytes).expect("read");
    let mut at = 0;
    let mut lives = 0;
    while bytes[at..at + 4] == (u32::MAX - 2).to_le_bytes() {
        at += 6 + usize::from(u16::from_le_bytes([bytes[at + 4], bytes[at + 5]]));
        lives += 1;
    }
    assert!(lives > 0, "liveness frames while party 0 waited");
    assert_eq!(
        &bytes[at..at + 4],
        &(u32::MAX - 1).to_le_bytes(),
        "an abort"
    );
    assert_eq!(
        &bytes[at + 4..at + 8],
        &1u32.to_le_bytes(),
        "naming party 1"
    );
    let reason = String::from_utf8_lossy(&bytes[at + 9..]);
    assert!(reason.contains("party 1 sent nothing"), "{reason}");
}

/// Parties that wait on each other in a cycle, each alive but with nothing
/// on its way (a withheld or lost message), are stopped after the idle
/// timeout, each naming the party it waits on and the cycle; in one lane of
/// a split run as in a whole one.
#[test]
fn parties_waiting_on_each_other_are_stopped_naming_the_cycle() {
    for kind in ["tcp", "tls"] {
        // 0 waits on 1, 1 on 2, 2 on 0.
        let results = run(
            networks(kind, 3, NetProfile::lan(), Duration::from_secs(1)),
            |mut net| {
                let me = net.party();
                net.recv((me + 1) % 3, 4).expect_err("nobody sends")
            },
        );
        // The first to see it names the party it waits on; the others hear
        // it from a peer or see it themselves.
        for (me, e) in results.iter().enumerate() {
            let next = (me + 1) % 3;
            let cycle: Vec<usize> = (0..3).map(|k| (me + k) % 3).collect();
            let found = NetError::Deadlock { peer: next, cycle };
            assert!(
                *e == found || matches!(e, NetError::Aborted { .. }),
                "{kind}: party {me}: {e}"
            );
            assert!(
                e.to_string()
                    .contains("each wait on the next with nothing on its way"),
                "{kind}: party {me}: {e}"
            );
        }
        // Lane 1 of two parties waits both ways while lane 0 works.
        let results = run(
            networks(kind, 2, NetProfile::lan(), Duration::from_secs(1)),
            |mut net| {
                let peer = 1 - net.party();
                let mut lanes = net.split(2, 0).expect("split");
                let mut it = lanes.iter_mut();
                let (l0, l1) = (it.next().expect("lane 0"), it.next().expect("lane 1"));
                l0.send(peer, vec![1]).expect("lane 0 sends");
                assert_eq!(l0.recv(peer, 1).expect("lane 0 receives"), vec![1]);
                l1.recv(peer, 1).expect_err("lane 1 waits both ways")
            },
        );
        for (me, e) in results.iter().enumerate() {
            assert!(
                matches!(e, NetError::Deadlock { peer, .. } if *peer == 1 - me)
                    || matches!(e, NetError::Aborted { .. }),
                "{kind}: party {me}: {e}"
            );
            assert!(e.to_string().contains("will never send"), "{kind}: {e}");
        }
    }
}

/// A chain of waits that ends in a party computing (longer than the idle
/// timeout) is no deadlock: it moves once that party sends.
#[test]
fn a_chain_of_waits_on_a_computing_party_runs_on() {
    for kind in ["tcp", "tls"] {
        let nets = networks(kind, 3, NetProfile::lan(), Duration::from_secs(1));
        run(nets, |mut net| match net.party() {
            // 0 waits on 1, and 1 on 2, while 2 computes.
            0 => assert_eq!(net.recv(1, 1).expect("from 1"), vec![1]),
            1 => {
                let m = net.recv(2, 1).expect("from 2");
                net.send(0, m).expect("to 0");
            }
            _ => {
                std::thread::sleep(Duration::from_secs(3));
                net.send(1, vec![1]).expect("to 1");
            }
        });
    }
}

/// A party that computes for longer than the idle timeout before its next
/// message is not silent: its link's writer sends liveness frames while it
/// computes, whatever the protocol does (also for the lanes of a split run).
#[test]
fn a_party_computing_longer_than_the_idle_timeout_is_not_silent() {
    for kind in ["tcp", "tls"] {
        let nets = networks(kind, 2, NetProfile::lan(), Duration::from_secs(1));
        run(nets, |mut net| {
            let peer = 1 - net.party();
            if net.party() == 1 {
                std::thread::sleep(Duration::from_secs(3));
                net.send(peer, vec![5; 10]).expect("send");
            } else {
                assert_eq!(net.recv(peer, 10).expect("late message"), vec![5; 10]);
            }
            let mut lanes = net.split(2, 0).expect("split");
            for lane in &mut lanes {
                if net.party() == 1 {
                    std::thread::sleep(Duration::from_secs(2));
                    lane.send(peer, vec![6; 3]).expect("send");
                } else {
                    assert_eq!(lane.recv(peer, 3).expect("late lane message"), vec![6; 3]);
                }
            }
            net.join(lanes).expect("join");
        });
    }
}

/// A message that an emulated slow link takes longer than the idle timeout
/// to carry is not silence: liveness frames are not shaped and keep flowing
/// while the link holds the message back.
#[test]
fn a_large_message_on_a_slow_emulated_link_is_not_silence() {
    // 8 Mbit/s: 3 MB take 3 s, three idle timeouts.
    let profile = NetProfile::from_toml("slow", "[default]\nmbps = 8\n").expect("profile");
    for kind in ["tcp", "tls"] {
        let nets = networks(kind, 2, profile.clone(), Duration::from_secs(1));
        run(nets, |mut net| {
            if net.party() == 0 {
                net.send(1, vec![7; 3_000_000]).expect("send");
                net.recv(1, 1).expect("ack");
            } else {
                assert!(net.recv(0, 3_000_000).expect("slow message") == vec![7; 3_000_000]);
                net.send(0, vec![1]).expect("ack");
            }
        });
    }
}

/// While the protocol leaves a full inbox untaken (the link's reader stops
/// reading, and the sender's writer blocks on the full socket), this party
/// is not waiting on that peer; once it reads again nothing looks silent.
#[test]
fn a_full_inbox_taken_late_is_not_silence() {
    const MESSAGES: usize = 12;
    const SIZE: usize = 8 << 20; // 96 MiB in all, above the 64 MiB inbox budget
    for kind in ["tcp", "tls"] {
        let nets = networks(kind, 2, NetProfile::lan(), Duration::from_secs(1));
        run(nets, |mut net| {
            if net.party() == 0 {
                for i in 0..MESSAGES {
                    net.send(1, vec![i as u8; SIZE]).expect("send");
                }
                net.recv(1, 1).expect("ack");
            } else {
                std::thread::sleep(Duration::from_secs(3));
                for i in 0..MESSAGES {
                    assert!(net.recv(0, SIZE).expect("queued message") == vec![i as u8; SIZE]);
                }
                net.send(0, vec![1]).expect("ack");
            }
        });
    }
}

/// A protocol thread writes small messages to the socket itself, but never
/// blocks on a peer that does not read: with the peer's inbox full (above
/// its 64 MiB budget) and the socket's buffers too, every send still
/// returns, and everything arrives in order, the large messages (left to
/// the writer thread) among the small ones.
#[test]
fn sends_never_block_on_a_peer_that_does_not_read_and_arrive_in_order() {
    const MESSAGES: usize = 1500;
    let size = |i: usize| if i % 100 == 99 { 100 << 10 } else { 60_000 };
    let content = |i: usize| -> Vec<u8> { (0..size(i)).map(|j| (i * 7 + j) as u8).collect() };
    for kind in ["tcp", "tls"] {
        let (all_sent, sent) = std::sync::mpsc::channel::<()>();
        let (all_sent, sent) = (std::sync::Mutex::new(all_sent), std::sync::Mutex::new(sent));
        let nets = networks(kind, 2, NetProfile::lan(), Duration::from_secs(30));
        run(nets, |mut net| {
            if net.party() == 0 {
                for i in 0..MESSAGES {
                    net.send(1, content(i)).expect("send");
                }
                all_sent.lock().expect("lock").send(()).expect("signal");
                net.recv(1, 1).expect("ack");
            } else {
                // Only a guard against a hang: a blocked sender never signals.
                let signal = sent
                    .lock()
                    .expect("lock")
                    .recv_timeout(Duration::from_secs(120));
                assert!(
                    signal.is_ok(),
                    "{kind}: a send blocked on a peer that does not read"
                );
                for i in 0..MESSAGES {
                    assert!(
                        net.recv(0, size(i)).expect("queued message") == content(i),
                        "{kind}: message {i}"
                    );
                }
                net.send(0, vec![1]).expect("ack");
            }
        });
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
