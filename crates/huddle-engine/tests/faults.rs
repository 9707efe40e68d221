//! Fault injection against the malicious 4-party protocols: for every
//! protocol, corrupted party and type of message that party sends, many runs
//! with a random error in those messages (random circuits, random gates and
//! errors, Boolean and every ring). Every honest party must stop with an
//! abort; none may output anything, let alone a wrong value.
//!
//! `HUDDLE_FAULT_TRIALS` sets the runs per cell (default 6; the closing
//! notes' tables use more).

use huddle_circuit::random::{random_circuit, random_inputs, RandomCircuitSpec};
use huddle_circuit::{BitMatrix, Circuit, PlainEvaluator};
use huddle_core::{Prg, RingWidth};
use huddle_engine::fault::{Fault, FaultKind};
use huddle_engine::ttp::RunError;
use huddle_engine::{Protocol, RunOptions};
use huddle_net::{memory_networks, NetProfile};
use std::time::Duration;

const PARTIES: usize = 4;

fn trials() -> usize {
    std::env::var("HUDDLE_FAULT_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

/// One run, each party in its own thread: every party's own result.
fn run_each(
    protocol: Protocol,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    options: RunOptions,
) -> Vec<Result<Vec<BitMatrix>, RunError>> {
    let request =
        huddle_engine::check_request(protocol, PARTIES, circuit, options).expect("valid request");
    let nets = memory_networks(PARTIES, &NetProfile::lan(), Duration::from_secs(60));
    let instances = inputs[0].rows();
    std::thread::scope(|s| {
        let handles: Vec<_> = nets
            .into_iter()
            .map(|mut net| {
                let request = &request;
                s.spawn(move || {
                    let me = net.party();
                    let own: Vec<(usize, BitMatrix)> = (0..circuit.inputs().len())
                        .filter(|&i| circuit.owner(i, PARTIES) == me)
                        .map(|i| (i, inputs[i].clone()))
                        .collect();
                    huddle_engine::run(request, &mut net, circuit, instances, &own)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("party thread"))
            .collect()
    })
}

/// A small random circuit with one input value per party, in the domain
/// chosen by `k` (Boolean, or a ring).
fn circuit_for(k: usize, prg: &mut Prg) -> Circuit {
    let spec = match k % 4 {
        0 => RandomCircuitSpec::boolean(&[5, 4, 6, 3], 60, 2),
        1 => RandomCircuitSpec::arithmetic(RingWidth::W16, &[2, 2, 3, 1], 30, 2),
        2 => RandomCircuitSpec::arithmetic(RingWidth::W32, &[2, 2, 3, 1], 30, 2),
        _ => RandomCircuitSpec::arithmetic(RingWidth::W64, &[2, 2, 3, 1], 30, 2),
    };
    random_circuit(&spec, prg)
}

#[derive(Default)]
struct Tally {
    runs: usize,
    aborts: usize,
    wrong: usize,
    outputs: usize,
}

#[test]
fn every_injected_error_makes_every_honest_party_abort() {
    let trials = trials();
    let mut prg = Prg::from_seed([21; 16]);
    let mut table = Vec::new();
    for protocol in [Protocol::Quad, Protocol::QuadHet] {
        let types = protocol.descriptor().messages;
        for corrupt in 0..PARTIES {
            for (tag, t) in types.iter().enumerate() {
                if !t.senders.contains(&corrupt) {
                    continue;
                }
                let mut tally = Tally::default();
                for trial in 0..trials {
                    let circuit = circuit_for(trial, &mut prg);
                    let inputs = random_inputs(&circuit, &mut prg, 70);
                    let want = PlainEvaluator::new(&circuit)
                        .evaluate(&inputs)
                        .expect("plain");
                    let kind = if t.digest && trial % 2 == 1 {
                        FaultKind::BadHash
                    } else {
                        FaultKind::AddError
                    };
                    let options = RunOptions {
                        fault: Some(Fault {
                            party: corrupt,
                            kind,
                            message: Some(tag),
                            seed: prg.next_u64(),
                        }),
                        ..RunOptions::default()
                    };
                    let results = run_each(protocol, &circuit, &inputs, options);
                    tally.runs += 1;
                    let mut all_abort = true;
                    for (p, r) in results.iter().enumerate().filter(|(p, _)| *p != corrupt) {
                        match r {
                            Ok(out) => {
                                tally.outputs += 1;
                                all_abort = false;
                                if *out != want {
                                    tally.wrong += 1;
                                }
                                eprintln!("{protocol} corrupt P{corrupt} {} trial {trial}: party {p} output", t.name);
                            }
                            Err(RunError::Abort { .. }) => {}
                            Err(e) => {
                                all_abort = false;
                                eprintln!("{protocol} corrupt P{corrupt} {} trial {trial}: party {p}: {e}", t.name);
                            }
                        }
                    }
                    if !all_abort {
                        for (p, r) in results.iter().enumerate() {
                            eprintln!("  party {p}: {:?}", r.as_ref().map(|_| "output"));
                        }
                    }
                    tally.aborts += usize::from(all_abort);
                }
                table.push((protocol, corrupt, t.name, tally));
            }
        }
    }
    eprintln!(
        "protocol | party | message | runs | all honest abort | honest outputs | wrong outputs"
    );
    for (p, c, m, t) in &table {
        eprintln!(
            "{p} | P{c} | {m} | {} | {} | {} | {}",
            t.runs, t.aborts, t.outputs, t.wrong
        );
    }
    for (p, c, m, t) in &table {
        assert_eq!(t.wrong, 0, "{p} P{c} {m}: a wrong output");
        assert_eq!(
            t.outputs, 0,
            "{p} P{c} {m}: an honest party output despite the fault"
        );
    }
    // Every honest party stops (no output above). Most name the failed
    // check; some learn of the abort as a peer's disconnection instead, a
    // race left open in issue 13's notes, so that count is printed, not asserted.
}

#[test]
fn without_a_fault_every_party_outputs_the_right_value() {
    let mut prg = Prg::from_seed([22; 16]);
    for protocol in [Protocol::Quad, Protocol::QuadHet] {
        for k in 0..4 {
            let circuit = circuit_for(k, &mut prg);
            let inputs = random_inputs(&circuit, &mut prg, 70);
            let want = PlainEvaluator::new(&circuit)
                .evaluate(&inputs)
                .expect("plain");
            for r in run_each(protocol, &circuit, &inputs, RunOptions::default()) {
                assert_eq!(r.expect("honest run"), want, "{protocol}");
            }
        }
    }
}

#[test]
fn faults_are_refused_where_they_cannot_apply() {
    let c = circuit_for(0, &mut Prg::from_seed([23; 16]));
    let fault = |party, message| RunOptions {
        fault: Some(Fault {
            party,
            kind: FaultKind::AddError,
            message,
            seed: 0,
        }),
        ..RunOptions::default()
    };
    let m3 = Some(3); // "m3": only Quad's P3 sends it
    assert!(huddle_engine::check_request(Protocol::Quad, 4, &c, fault(3, m3)).is_ok());
    let refused = [
        (Protocol::QuadHet, fault(3, m3)),
        (Protocol::Quad, fault(0, m3)),
        (Protocol::Quad, fault(4, None)),
        (Protocol::Quad, fault(0, Some(99))),
        (Protocol::Trio, fault(0, None)),
    ];
    for (p, o) in refused {
        let parties = if p == Protocol::Trio { 3 } else { 4 };
        let e = huddle_engine::check_request(p, parties, &c, o).expect_err("refused");
        assert!(matches!(e, RunError::Input(_)), "{p}: {e}");
    }
}
