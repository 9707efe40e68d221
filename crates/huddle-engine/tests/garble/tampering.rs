//! Corrupted parties: a bit flipped in a chosen message makes the honest
//! parties abort or still output the right value, never a wrong one; under
//! bgw2-mal the corruptions that must be noticed are.

use huddle_circuit::gen;
use huddle_circuit::random::random_inputs;
use huddle_circuit::{BitMatrix, Circuit, PlainEvaluator};
use huddle_core::Prg;
use huddle_engine::error::{FailedCheck, RunError};
use huddle_engine::garble::Variant;
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, NetProfile, Phase};
use std::time::Duration;

/// A corrupted party: one bit flipped at a chosen byte of the `nth`
/// message it sends to `to` in `phase` (the semi-honest trials: its
/// function-dependent message to the evaluator).
struct Tamper {
    net: huddle_net::Network,
    flip_at: Option<usize>,
    phase: Phase,
    to: usize,
    nth: usize,
    bit: u8,
}

impl Tamper {
    fn honest(net: huddle_net::Network) -> Tamper {
        Tamper {
            net,
            flip_at: None,
            phase: Phase::Setup,
            to: 0,
            nth: 0,
            bit: 0,
        }
    }
}

impl huddle_engine::testing::Transport for Tamper {
    fn party(&self) -> usize {
        self.net.party()
    }
    fn parties(&self) -> usize {
        self.net.parties()
    }
    fn send(&mut self, to: usize, mut data: Vec<u8>) -> Result<(), huddle_net::NetError> {
        if to == self.to && self.net.phase() == self.phase && self.flip_at.is_some() {
            if self.nth == 0 {
                if let Some(at) = self.flip_at.take() {
                    let i = at % data.len();
                    data[i] ^= 1 << self.bit;
                }
            } else {
                self.nth -= 1;
            }
        }
        huddle_engine::testing::Transport::send(&mut self.net, to, data)
    }
    fn recv(&mut self, from: usize, len: usize) -> Result<Vec<u8>, huddle_net::NetError> {
        huddle_engine::testing::Transport::recv(&mut self.net, from, len)
    }
    fn set_phase(&mut self, phase: Phase) {
        self.net.set_phase(phase)
    }
    fn phase(&self) -> Phase {
        self.net.phase()
    }
}

/// Corrupting any byte of a party's garbled-row shares makes the evaluator
/// abort or still output the right value (the row was not the one it
/// opened), never output a wrong value. Under BGW3 the first corrupted
/// message is a degree-reduction share, which spoils every row of its gate.
#[test]
fn a_corrupted_garbled_row_aborts_or_is_harmless_never_wrong() {
    for variant in [Variant::Bgw2, Variant::Bgw3] {
        tamper_trials(variant);
    }
}

fn tamper_trials(variant: Variant) {
    let c = gen::cmp_gt(8, 2);
    let mut prg = Prg::from_seed([17; 16]);
    let inputs = random_inputs(&c, &mut prg, 1);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    let (mut aborted, mut harmless) = (0, 0);
    // Whether a flipped row is opened depends on the masks (seeded per trial).
    for trial in 0..40usize {
        let results = tampered_run(variant, &c, &inputs, 2, trial, |net| Tamper {
            flip_at: Some(trial * 977),
            phase: Phase::Dependent,
            ..Tamper::honest(net)
        });
        match &results[0] {
            Ok(out) => {
                assert_eq!(out, &want, "trial {trial}: a wrong output after tampering");
                harmless += 1;
            }
            Err(e) => {
                // A detected corruption is an abort of a check of the
                // evaluator's, not bad input or a bug.
                assert!(
                    matches!(
                        e,
                        RunError::Abort {
                            check: FailedCheck::GarbledGate { .. }
                                | FailedCheck::OutputLabel { .. }
                                | FailedCheck::PermutationBit,
                            ..
                        }
                    ),
                    "trial {trial}: {e:?}"
                );
                aborted += 1;
            }
        }
    }
    assert!(aborted > 0, "{variant:?}: no abort in 40 corruptions");
    // Seeded trials replay: the same trial ends the same way again.
    for trial in [0, 1, 2] {
        let once = |_| {
            let r = tampered_run(variant, &c, &inputs, 2, trial, |net| Tamper {
                flip_at: Some(trial * 977),
                phase: Phase::Dependent,
                ..Tamper::honest(net)
            });
            r[0].as_ref().map_err(|e| e.to_string()).cloned()
        };
        assert_eq!(
            once(0),
            once(1),
            "{variant:?}, trial {trial} does not replay"
        );
    }
    if variant == Variant::Bgw2 {
        // Three rows in four are never opened.
        assert!(harmless > 0, "{variant:?}: every corruption aborted");
    }
}

/// Runs `variant` for 4 parties (bgw2-mal: t = 1, contributors 0 and 1) on
/// every instance of `inputs` with party `corrupt` flipping one bit as
/// `tamper` says; returns every party's result.
fn tampered_run(
    variant: Variant,
    c: &Circuit,
    inputs: &[BitMatrix],
    corrupt: usize,
    trial: usize,
    tamper: impl Fn(huddle_net::Network) -> Tamper + Sync,
) -> Vec<Result<Vec<BitMatrix>, RunError>> {
    // Seeded: which rows the evaluator opens follows from the masks, so a
    // trial hits or misses the same way on every run of the suite.
    let mut seed = [0x5a; 16];
    seed[..8].copy_from_slice(&(trial as u64).to_le_bytes());
    let options = RunOptions::default().with_randomness(huddle_engine::Randomness::Seeded(seed));
    let n = 4;
    let instances = inputs.first().map_or(1, BitMatrix::rows);
    let nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(20));
    std::thread::scope(|s| {
        let handles: Vec<_> = nets
            .into_iter()
            .map(|net| {
                let tamper = &tamper;
                s.spawn(move || {
                    let me = net.party();
                    let mut t = if me == corrupt {
                        tamper(net)
                    } else {
                        Tamper::honest(net)
                    };
                    let own: Vec<(usize, BitMatrix)> = (0..c.inputs().len())
                        .filter(|&i| c.owner(i, n) == me)
                        .map(|i| (i, inputs[i].clone()))
                        .collect();
                    huddle_engine::testing::run_garbling(
                        &mut t, variant, c, instances, &own, options,
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    })
}

/// Fault injection against BGW2_opt^mal: a corrupted party adding an error
/// to its garbled-row shares (a key contributor or not), to the input keys
/// it sends the evaluator, to its masked inputs, to its output report, the
/// evaluator to an output key, or a party to its PRSS key contribution.
/// Every honest party ends with the right output or an abort, never a
/// wrong output; the corruptions that must be noticed are.
#[test]
fn malicious_garbling_aborts_or_is_right_never_wrong() {
    let c = gen::adder_sklansky(8, 2); // 9 output bits, each behind a buffer gate
    let mut prg = Prg::from_seed([19; 16]);
    let inputs = random_inputs(&c, &mut prg, 2);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    struct Case {
        name: &'static str,
        corrupt: usize,
        phase: Phase,
        to: usize,
        nth: usize,
        /// A party that must abort whatever byte is hit.
        must_abort: Option<usize>,
    }
    let cases = [
        Case {
            name: "garbled rows of a non-contributor",
            corrupt: 2,
            phase: Phase::Dependent,
            to: 0,
            nth: 0,
            must_abort: None,
        },
        Case {
            name: "garbled rows of a contributor",
            corrupt: 1,
            phase: Phase::Dependent,
            to: 0,
            nth: 0,
            must_abort: None,
        },
        Case {
            name: "masked inputs to the evaluator",
            corrupt: 1,
            phase: Phase::Online,
            to: 0,
            nth: 0,
            must_abort: None,
        },
        Case {
            name: "input keys of a contributor",
            corrupt: 1,
            phase: Phase::Online,
            to: 0,
            nth: 1,
            must_abort: None,
        },
        Case {
            name: "output report of a contributor",
            corrupt: 1,
            phase: Phase::Online,
            to: 3,
            nth: 0,
            must_abort: Some(3),
        },
        Case {
            name: "output key from the evaluator",
            corrupt: 0,
            phase: Phase::Online,
            to: 1,
            nth: 1,
            must_abort: Some(1),
        },
        Case {
            name: "PRSS key contribution",
            corrupt: 3,
            phase: Phase::Setup,
            to: 1,
            nth: 0,
            must_abort: Some(1),
        },
    ];
    for case in &cases {
        let mut aborted = 0;
        // Seeded trials: the same rows are hit on every run.
        let trials = 24;
        for trial in 0..trials {
            let at = trial * 131 + 7;
            let results = tampered_run(Variant::Bgw2Mal, &c, &inputs, case.corrupt, trial, |net| {
                Tamper {
                    flip_at: Some(at),
                    phase: case.phase,
                    to: case.to,
                    nth: case.nth,
                    bit: (trial % 8) as u8,
                    ..Tamper::honest(net)
                }
            });
            let mut any_abort = false;
            for (p, r) in results.iter().enumerate() {
                match r {
                    Ok(out) => assert!(
                        out == &want,
                        "{} (trial {trial}): party {p} output a wrong value",
                        case.name
                    ),
                    Err(_) => any_abort = true,
                }
            }
            if let Some(p) = case.must_abort {
                // Party p's own check catches it, unless another honest
                // party's check fired first and its abort stopped p (which
                // of the two wins is scheduling): p must still stop.
                let own = matches!(results[p], Err(RunError::Abort { .. }));
                let stopped_by_another = results[p].is_err()
                    && results.iter().enumerate().any(|(q, r)| {
                        q != case.corrupt && matches!(r, Err(RunError::Abort { .. }))
                    });
                assert!(
                    own || stopped_by_another,
                    "{} (trial {trial}): party {p} did not abort: {:?} (every party: {:?})",
                    case.name,
                    results[p].as_ref().err(),
                    results
                        .iter()
                        .map(|r| r.as_ref().err().map(ToString::to_string))
                        .collect::<Vec<_>>()
                );
            }
            aborted += usize::from(any_abort);
        }
        // The evaluator opens one row in two of a buffer gate and one in four
        // of an AND gate; a flipped bit elsewhere is harmless. Some must hit.
        assert!(aborted > 0, "{}: no corruption was noticed", case.name);
    }
}
