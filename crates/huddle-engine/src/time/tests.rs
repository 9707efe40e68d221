//! The time model's arithmetic on synthetic scripts: exact times for
//! messages over links, queues, chains of rounds, shared cores, and which
//! link a heterogeneous network charges; the rates file's round trip and
//! refusals.

use super::*;
use crate::cost::Script;
use huddle_net::LinkShape;
use std::collections::BTreeMap;
use std::time::Duration;

/// Rates of a host that computes in no time and handles messages for free.
fn instant() -> Rates {
    let free = TransportRates {
        message: 0.0,
        byte: 0.0,
        wake: 0.0,
    };
    Rates {
        work: WorkRates {
            bit_gate_word: 0.0,
            ring_gate_word: 0.0,
            linear_word: 0.0,
            bit_io_word: 0.0,
            ring_io_word: 0.0,
            garble_gate: 0.0,
            garble_instance: 0.0,
            garble_wire: 0.0,
            evaluate_instance: 0.0,
            evaluate_gate: 0.0,
            evaluate_step: 0.0,
            clear_gate_word: 0.0,
        },
        transport: TransportsRates {
            memory: free,
            tcp: free,
            tls: free,
        },
        // No protocol's own gate rates: the tests set the general ones.
        protocol: Default::default(),
        ..Rates::default()
    }
}

/// Every link `latency_ms` one way and `mbps` Mbit/s, or as `links` say.
fn net(latency_ms: u64, mbps: f64, links: &[((usize, usize), LinkShape)]) -> NetProfile {
    NetProfile {
        name: "test".into(),
        default: LinkShape {
            latency: Duration::from_millis(latency_ms),
            bandwidth_bps: Some(mbps * 1e6),
        },
        links: links.iter().copied().collect::<BTreeMap<_, _>>(),
    }
}

fn online(parties: usize) -> Vec<Script> {
    (0..parties)
        .map(|p| {
            let mut s = Script::new(p);
            s.set_phase(Phase::Online);
            s
        })
        .collect()
}

fn run(scripts: Vec<Script>, net: &NetProfile, rates: &Rates, one_host: bool) -> Prediction {
    let placement = Placement {
        protocol: crate::Protocol::Trio,
        net,
        links: crate::Links::Memory,
        one_host,
    };
    predict(&Plays::single(scripts), &placement, rates).expect("consistent scripts")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// One message of s bytes over a link of latency L and bandwidth B takes
/// L + s/B; a second one sent at once queues behind it.
#[test]
fn a_message_takes_latency_plus_serialization_and_messages_queue() {
    let net = net(10, 8.0, &[]); // 1 byte per microsecond
    let mut s = online(2);
    s[0].send(1, 1_000_000);
    s[1].recv(0, 1_000_000);
    let p = run(s, &net, &instant(), false);
    assert!(close(p.online_seconds, 0.010 + 1.0), "{}", p.online_seconds);
    let mut s = online(2);
    s[0].send(1, 1_000_000);
    s[0].send(1, 500_000);
    s[1].recv(0, 1_000_000);
    s[1].recv(0, 500_000);
    let p = run(s, &net, &instant(), false);
    assert!(close(p.online_seconds, 0.010 + 1.5), "{}", p.online_seconds);
    assert_eq!(
        p.bound,
        Bound::Bandwidth {
            from: 0,
            to: 1,
            bytes: 1_500_000,
            bits_per_second: 8e6
        }
    );
}

/// A ping-pong of R dependent messages over latency L takes R x L when
/// nothing computes, and says so.
#[test]
fn a_chain_of_rounds_costs_rounds_times_latency() {
    let net = net(50, 1e6, &[]);
    let mut s = online(2);
    let rounds = 22;
    for r in 0..rounds {
        let (a, b) = if r % 2 == 0 { (0, 1) } else { (1, 0) };
        s[a].send(b, 8);
        s[b].recv(a, 8);
    }
    let p = run(s, &net, &instant(), false);
    let serialize = rounds as f64 * 64.0 / 1e12;
    assert!(close(p.online_seconds, rounds as f64 * 0.050 + serialize));
    assert_eq!(p.online_rounds, rounds as u32);
    assert_eq!(p.why(), "latency-bound: 22 rounds x 50 ms");
}

/// Under a heterogeneous profile the slow link's pair is the one charged:
/// the phase lasts as long as the slow link takes, and the bound names it.
#[test]
fn the_slow_link_is_charged() {
    let slow = LinkShape {
        latency: Duration::from_millis(25),
        bandwidth_bps: Some(8e6),
    };
    let net = NetProfile {
        name: "hetero".into(),
        default: LinkShape::UNSHAPED,
        links: BTreeMap::from([((0, 2), slow)]),
    };
    let mut s = online(3);
    for to in [1, 2] {
        s[0].send(to, 2_000_000);
        s[to].recv(0, 2_000_000);
    }
    let p = run(s, &net, &instant(), false);
    assert!(close(p.online_seconds, 0.025 + 2.0), "{}", p.online_seconds);
    assert_eq!(
        p.bound,
        Bound::Bandwidth {
            from: 0,
            to: 2,
            bytes: 2_000_000,
            bits_per_second: 8e6
        }
    );
}

/// Work takes count x rate; two parties working at once on a host of one
/// core take twice as long, on hosts of their own no longer; message
/// handling is charged at both ends.
#[test]
fn work_shares_the_cores_of_a_host() {
    let mut rates = instant();
    rates.cores = 1;
    rates.work.bit_gate_word = 1e-3;
    let lan = NetProfile::lan();
    let working = || {
        let mut s = online(2);
        for party in &mut s {
            party.work(Work::BitGateWord, 100.0);
        }
        s
    };
    let alone = run(working(), &lan, &rates, false);
    assert!(close(alone.online_seconds, 0.1), "{}", alone.online_seconds);
    let shared = run(working(), &lan, &rates, true);
    assert!(
        close(shared.online_seconds, 0.2),
        "{}",
        shared.online_seconds
    );
    assert_eq!(
        shared.bound,
        Bound::Compute {
            seconds: 0.2,
            work: Some(Work::BitGateWord)
        }
    );
    rates.transport.memory = TransportRates {
        message: 1e-3,
        byte: 1e-6,
        wake: 0.0,
    };
    let mut s = online(2);
    s[0].send(1, 1000);
    s[1].recv(0, 1000);
    let p = run(s, &lan, &rates, false);
    assert!(
        close(p.online_seconds, 2.0 * (1e-3 + 1e-3)),
        "{}",
        p.online_seconds
    );
}

/// The explanation covers the phases `online_seconds` counts: a chain of
/// rounds in the online phase and more in its verification are all
/// named, and rounds x latency is the online time.
#[test]
fn the_bound_explains_online_and_verification_together() {
    let net = net(50, 1e6, &[]);
    let mut s = online(2);
    // Rounds r0 <= r < r1 of one ping-pong: party 0 sends the even ones.
    let ping_pong = |s: &mut Vec<Script>, rounds: std::ops::Range<usize>| {
        for r in rounds {
            let (a, b) = if r % 2 == 0 { (0, 1) } else { (1, 0) };
            s[a].send(b, 8);
            s[b].recv(a, 8);
        }
    };
    ping_pong(&mut s, 0..3);
    for party in &mut s {
        party.set_phase(Phase::Verify);
    }
    ping_pong(&mut s, 3..11);
    let p = run(s, &net, &instant(), false);
    assert_eq!(
        p.online_rounds, 3,
        "the report's online rounds: online only"
    );
    assert!(close(p.online_seconds, 11.0 * 0.050 + 11.0 * 64.0 / 1e12));
    assert_eq!(p.why(), "latency-bound: 11 rounds x 50 ms");
}

/// A receiver that waits for its message goes on a wake-up after the
/// arrival; one whose message is there when it asks does not wait.
#[test]
fn only_a_waiting_receiver_pays_the_wake_up() {
    let mut rates = instant();
    rates.transport.memory.wake = 1e-3;
    rates.work.bit_gate_word = 1e-2;
    let lan = NetProfile::lan();
    // Party 1 waits for party 0's message, then answers: two wake-ups.
    let mut s = online(2);
    s[0].send(1, 8);
    s[1].recv(0, 8);
    s[1].send(0, 8);
    s[0].recv(1, 8);
    let p = run(s, &lan, &rates, false);
    assert!(close(p.online_seconds, 2e-3), "{}", p.online_seconds);
    // Party 1 works longer than the message takes: no wake-up for it;
    // party 0 waits for the answer: one.
    let mut s = online(2);
    s[0].send(1, 8);
    s[1].work(Work::BitGateWord, 1.0);
    s[1].recv(0, 8);
    s[1].send(0, 8);
    s[0].recv(1, 8);
    let p = run(s, &lan, &rates, false);
    assert!(close(p.online_seconds, 1e-2 + 1e-3), "{}", p.online_seconds);
}

/// Phases are timed as the accounting times them: from the last party's
/// entry to the last exit, offline and online apart.
#[test]
fn phases_are_timed_apart() {
    let net = net(10, 1e6, &[]);
    let mut a = Script::new(0);
    let mut b = Script::new(1);
    a.set_phase(Phase::Offline);
    b.set_phase(Phase::Offline);
    a.send(1, 8);
    b.recv(0, 8);
    a.set_phase(Phase::Online);
    b.set_phase(Phase::Online);
    b.send(0, 8);
    a.recv(1, 8);
    let p = run(vec![a, b], &net, &instant(), false);
    assert!(close(p.offline_seconds, 0.010 + 64e-12));
    // Party 0 enters online at 0, party 1 at 10 ms; party 0 leaves at 20 ms.
    assert!(
        close(p.online_seconds, 0.010 + 64e-12),
        "{}",
        p.online_seconds
    );
    assert!(close(p.total_seconds, p.offline_seconds + p.online_seconds));
}

#[test]
fn rates_files_round_trip_and_refuse_what_is_malformed() {
    let rates = Rates::default();
    let text = rates.to_toml();
    assert_eq!(
        Rates::from_toml("r.toml", &text).expect("round trip"),
        rates
    );
    let missing = text.replace("garble_gate =", "garbled =");
    let e = Rates::from_toml("rates.toml", &missing).expect_err("unknown field");
    let msg = e.to_string();
    assert!(msg.starts_with("rates.toml: "), "{msg}");
    assert!(msg.contains("garbled"), "{msg}");
    let negative = text.replacen("bit_gate_word = ", "bit_gate_word = -", 1);
    let msg = Rates::from_toml("rates.toml", &negative)
        .expect_err("a negative rate")
        .to_string();
    assert!(msg.contains("work.bit_gate_word"), "{msg}");
    let word = text.replace("cores = 2", "cores = \"two\"");
    let msg = Rates::from_toml("rates.toml", &word)
        .expect_err("a string")
        .to_string();
    assert!(
        msg.starts_with("rates.toml: ") && msg.contains("cores"),
        "{msg}"
    );
    let msg = Rates::from_file(std::path::Path::new("/nonexistent/rates.toml"))
        .expect_err("no file")
        .to_string();
    assert!(msg.starts_with("/nonexistent/rates.toml: "), "{msg}");
}

/// Calibration runs its steps (on the smallest sizes: the figures are
/// noise, so only their form is checked) and gives usable rates.
#[test]
fn calibration_gives_finite_rates() {
    let rates = Rates::calibrate_quick().expect("calibrates");
    assert!(rates.cores >= 1);
    let again = Rates::from_toml("calibrated", &rates.to_toml()).expect("a valid file");
    assert_eq!(again, rates);
    for w in Work::ALL {
        let s = rates.seconds(w);
        assert!(s.is_finite() && s >= 0.0, "{}: {s}", w.name());
    }
    assert!(rates.transport.memory.message > 0.0);
    assert!(rates.protocol.contains_key("trio") && rates.protocol.contains_key("bgw3"));
}

/// Online seconds `protocol` is predicted to take on one word (64
/// instances) of `circuit`, a core per party, at `rates`.
fn one_word(protocol: crate::Protocol, circuit: huddle_circuit::Circuit, rates: &Rates) -> f64 {
    let run = crate::Run::builder(protocol)
        .circuit(circuit)
        .build()
        .expect("a valid run");
    run.predict_local(64, &crate::LocalNet::memory(), rates)
        .expect("a prediction")
        .online_seconds
}

/// An AND of `fan_in` inputs, its one output.
fn and_of(fan_in: usize) -> huddle_circuit::Circuit {
    let mut b = huddle_circuit::builder::Builder::boolean(fan_in);
    let x = b.input("a", fan_in as u32);
    let y = b.and_all(&x);
    b.output("c", vec![y]);
    b.finish()
}

/// Gate work is counted as the protocol computes: an l-input AND under
/// mfi3 is a masked product per subset of at least two operands, 2^l - l
/// - 1 of them (11 for l = 4, one for l = 2), not l - 1.
#[test]
fn an_mfi3_gate_costs_a_product_per_subset_of_its_operands() {
    let mut rates = instant();
    rates.cores = 3;
    rates.work.bit_gate_word = 1e-3;
    let mfi3 = crate::Protocol::Mfi3;
    let two = one_word(mfi3, and_of(2), &rates);
    let four = one_word(mfi3, and_of(4), &rates);
    assert!(close(two, 1e-3), "{two}");
    assert!(close(four, 11e-3), "{four}");
}

/// Every party shares every input wire's word and opens every output
/// wire's: 4 inputs and 1 output of one word are 5 units of wire work.
#[test]
fn every_input_and_output_wire_costs_its_sharing_or_opening() {
    let mut rates = instant();
    rates.cores = 3;
    rates.work.bit_io_word = 1e-3;
    let t = one_word(crate::Protocol::Mfi3, and_of(4), &rates);
    assert!(close(t, 5e-3), "{t}");
    rates.work.bit_io_word = 0.0;
    rates.work.ring_io_word = 1e-3;
    let t = one_word(crate::Protocol::Mfi3, and_of(4), &rates);
    assert!(close(t, 0.0), "a Boolean circuit has no ring wires: {t}");
}

/// Garbling's work is per instance: for 10 instances of one 2-input AND,
/// the evaluator's online work is 10 instances, 10 garbled gates and 20
/// walk steps (the AND layer, and the copy of its result to the output
/// wire); every party's preprocessing is 10 instances, 10 gates and 40
/// wires (two inputs, the AND's, the output).
#[test]
fn garbling_counts_instances_gates_wires_and_walk_steps() {
    let run = crate::Run::builder(crate::Protocol::Bgw3)
        .circuit(and_of(2))
        .build()
        .expect("a valid run");
    let units = [
        (Work::EvaluateInstance, 10.0, 0.0),
        (Work::EvaluateGate, 10.0, 0.0),
        (Work::EvaluateStep, 20.0, 0.0),
        (Work::GarbleInstance, 0.0, 10.0),
        (Work::GarbleGate, 0.0, 10.0),
        (Work::GarbleWire, 0.0, 40.0),
    ];
    for (work, online, preprocessing) in units {
        let mut rates = instant();
        rates.cores = 3;
        *rates.work.of_mut(work) = 1e-3;
        let p = run
            .predict_local(10, &crate::LocalNet::memory(), &rates)
            .expect("a prediction");
        let phase = |name: &str| p.seconds.get(name).copied().unwrap_or(0.0);
        let offline = phase("setup") + phase("offline") + phase("dependent");
        assert!(
            close(p.online_seconds, online * 1e-3),
            "{}: {p:?}",
            work.name()
        );
        assert!(
            close(offline, preprocessing * 1e-3),
            "{}: {p:?}",
            work.name()
        );
    }
}
