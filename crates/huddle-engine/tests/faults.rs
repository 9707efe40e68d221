//! Fault injection against the malicious 4-party protocols: for every
//! protocol, corrupted party and type of message that party sends, many runs
//! with a random error in those messages (random circuits, random gates and
//! errors, Boolean and every ring). Every honest party must stop with an
//! abort; none may output anything, let alone a wrong value.
//!
//! Every kind of fault rotates through each cell: an added error, values
//! inconsistent between receivers, a duplicated or dropped message, a lie in
//! a digest. `HUDDLE_FAULT_TRIALS` sets the runs per cell (default 5, one
//! of each kind; the closing notes' tables use more).

use huddle_circuit::random::{random_circuit, random_inputs, RandomCircuitSpec};
use huddle_circuit::{BitMatrix, Circuit, Op, PlainEvaluator, Schedule, ScheduleOptions};
use huddle_core::{Prg, RingWidth};
use huddle_engine::error::{FailedCheck, RunError};
use huddle_engine::fault::{Fault, FaultKind, MessageType};
use huddle_engine::{Protocol, RunOptions};
use huddle_net::{memory_networks, Accounting, NetProfile, Phase};
use std::time::Duration;

const PARTIES: usize = 4;

fn trials() -> usize {
    std::env::var("HUDDLE_FAULT_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
}

/// One run, each party in its own thread: every party's own result.
fn run_each(
    protocol: Protocol,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    options: RunOptions,
    timeout: Duration,
) -> Vec<Result<Vec<BitMatrix>, RunError>> {
    run_each_counting(protocol, circuit, inputs, options, timeout)
        .into_iter()
        .map(|(r, _)| r)
        .collect()
}

/// [`run_each`], with what each party sent and received.
fn run_each_counting(
    protocol: Protocol,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    options: RunOptions,
    timeout: Duration,
) -> Vec<(Result<Vec<BitMatrix>, RunError>, Accounting)> {
    let run = request(protocol, PARTIES, circuit, options).expect("valid request");
    let nets = memory_networks(PARTIES, &NetProfile::lan(), timeout);
    run.local_each(nets, inputs)
        .expect("the run starts")
        .into_iter()
        .map(|o| (o.result, o.accounting))
        .collect()
}

/// The checked run of `protocol` for `parties` parties.
fn request(
    protocol: Protocol,
    parties: usize,
    circuit: &Circuit,
    options: RunOptions,
) -> Result<huddle_engine::Run, RunError> {
    huddle_engine::Run::builder(protocol)
        .parties(parties)
        .circuit(circuit.clone())
        .options(options)
        .build()
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
    // A circuit whose multiplications all fell dead would send no
    // multiplication messages: a fault on them could not fire.
    loop {
        let c = random_circuit(&spec, prg);
        if Schedule::compile(&c, ScheduleOptions::rounds(2)).rounds() > 0 {
            return c;
        }
    }
}

/// A small random mixed circuit (Boolean and ring wires, conversions both
/// ways) over the ring chosen by `k`.
fn mixed_circuit_for(k: usize, prg: &mut Prg) -> Circuit {
    let ring = [RingWidth::W16, RingWidth::W32, RingWidth::W64][k % 3];
    loop {
        let c = random_circuit(&RandomCircuitSpec::mixed(ring, 9, 3, 80, 2), prg);
        let converts = |op| c.gates().iter().any(|g| g.op == op);
        if converts(Op::BitDecompose) && converts(Op::BitInject) {
            return c;
        }
    }
}

/// How one honest party ended a faulted run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// An abort naming the failed check.
    Abort,
    /// A transport error blaming the corrupted party (it went silent or sent
    /// a message of the wrong size).
    Blames,
    /// Some other error (e.g. a timeout on an honest peer that was itself
    /// waiting for the corrupted one).
    OtherError,
    Output,
    WrongOutput,
}

fn ending(r: &Result<Vec<BitMatrix>, RunError>, corrupt: usize, want: &[BitMatrix]) -> Ending {
    match r {
        Ok(out) if out == want => Ending::Output,
        Ok(_) => Ending::WrongOutput,
        Err(RunError::Abort { .. }) => Ending::Abort,
        Err(RunError::Net(e)) if e.culprit() == Some(corrupt) => Ending::Blames,
        Err(_) => Ending::OtherError,
    }
}

/// What every honest party must end with under each kind of fault: a value
/// error is caught by a check. A value sent to one party only may stop that
/// party alone (no broadcast): its departure names the liar to the others.
/// A duplicated message is caught by a check, the receiver's length rule or
/// the check that nothing follows the last message. A dropped one only by a
/// timeout, which may name an honest peer that was waiting too
/// (asynchronous network): then it is enough that nobody outputs.
fn acceptable(kind: FaultKind, e: Ending) -> bool {
    match kind {
        FaultKind::AddError | FaultKind::BadHash => e == Ending::Abort,
        FaultKind::Inconsistent | FaultKind::Duplicate => {
            matches!(e, Ending::Abort | Ending::Blames)
        }
        FaultKind::Drop => matches!(e, Ending::Abort | Ending::Blames | Ending::OtherError),
    }
}

/// The kinds of fault that apply to a message type.
fn kinds(t: &MessageType) -> Vec<FaultKind> {
    FaultKind::ALL
        .into_iter()
        .filter(|&k| k != FaultKind::BadHash || t.digest)
        .collect()
}

/// The protocols with checks to test: those that declare message types.
fn malicious() -> impl Iterator<Item = Protocol> {
    Protocol::ALL
        .into_iter()
        .filter(|p| !p.descriptor().messages.is_empty())
}

/// Every message type a party of a malicious protocol sends, as
/// (protocol, the party, the type's index, the type); types whose name
/// starts with `skip` left out (each has a test of its own).
fn sent_types(skip: &'static str) -> Vec<(Protocol, usize, usize, &'static MessageType)> {
    malicious()
        .flat_map(|protocol| {
            let types = protocol.descriptor().messages;
            (0..PARTIES).flat_map(move |corrupt| {
                types
                    .iter()
                    .enumerate()
                    .filter(move |(_, t)| t.senders.contains(&corrupt) && !t.name.starts_with(skip))
                    .map(move |(tag, t)| (protocol, corrupt, tag, t))
            })
        })
        .collect()
}

/// A circuit whose run sends messages of type `t`: a mixed one for the
/// conversions' types, else the `k`-th of [`circuit_for`].
fn circuit_sending(t: &MessageType, k: usize, prg: &mut Prg) -> Circuit {
    if t.name.starts_with("conversion") {
        mixed_circuit_for(k, prg)
    } else {
        circuit_for(k, prg)
    }
}

/// One faulted run of the table.
struct Trial {
    protocol: Protocol,
    corrupt: usize,
    tag: usize,
    kind: FaultKind,
    circuit: Circuit,
    inputs: Vec<BitMatrix>,
    seed: u64,
    truncation: huddle_engine::Truncation,
    /// Lanes per party (each deviates at the corrupted party).
    threads: usize,
}

impl Trial {
    fn run(&self) -> Vec<Ending> {
        let want = PlainEvaluator::new(&self.circuit)
            .evaluate(&self.inputs)
            .expect("plain");
        let options = RunOptions::default()
            .with_fault(Some(Fault {
                party: self.corrupt,
                kind: self.kind,
                message: Some(self.tag),
                seed: self.seed,
            }))
            .with_truncation(self.truncation)
            .with_threads(self.threads);
        // A dropped message is noticed by a timeout only; short here, since
        // any error (none is an output) is what the test expects then.
        let timeout = if self.kind == FaultKind::Drop {
            Duration::from_secs(1)
        } else {
            HONEST_TIMEOUT
        };
        let results = run_each(self.protocol, &self.circuit, &self.inputs, options, timeout);
        let endings: Vec<Ending> = results
            .iter()
            .map(|r| ending(r, self.corrupt, &want))
            .collect();
        let bad = (0..PARTIES).any(|p| p != self.corrupt && !acceptable(self.kind, endings[p]));
        if bad {
            let name = self.protocol.descriptor().messages[self.tag].name;
            eprintln!(
                "{} corrupt P{} {} {}:",
                self.protocol,
                self.corrupt,
                self.kind.name(),
                name
            );
            for (p, r) in results.iter().enumerate() {
                eprintln!("  party {p}: {:?}", r.as_ref().map(|_| "output"));
            }
        }
        endings
    }
}

/// Asserts that every honest party of every trial ended as its fault
/// requires ([`acceptable`]).
fn assert_every_honest_party_acceptable(trials: &[Trial], endings: &[Vec<Ending>]) {
    for (t, e) in trials.iter().zip(endings) {
        let name = t.protocol.descriptor().messages[t.tag].name;
        for p in (0..PARTIES).filter(|&p| p != t.corrupt) {
            assert!(
                acceptable(t.kind, e[p]),
                "{} corrupt P{} {} {}: party {p} ended with {:?}",
                t.protocol,
                t.corrupt,
                t.kind.name(),
                name,
                e[p]
            );
        }
    }
}

/// Enough for an honest run on a busy machine.
const HONEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `trials` on a few threads at once (runs that wait for a timeout
/// mostly sleep); returns each trial's endings, in order.
fn run_all(trials: &[Trial]) -> Vec<Vec<Ending>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Vec<Ending>>> =
        trials.iter().map(|_| Default::default()).collect();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(t) = trials.get(i) else { break };
                *slots[i].lock().expect("slot") = t.run();
            });
        }
    });
    slots
        .into_iter()
        .map(|m| m.into_inner().expect("slot"))
        .collect()
}

#[test]
fn every_injected_fault_makes_every_honest_party_abort() {
    let per_cell = trials();
    let mut prg = Prg::from_seed([21; 16]);
    let mut trials = Vec::new();
    // (Truncated products' messages: the test below.)
    for (protocol, corrupt, tag, t) in sent_types("truncation") {
        let kinds = kinds(t);
        for k in 0..per_cell {
            // Every kind in turn, each over every domain in time.
            let which = if t.name.starts_with("conversion") {
                k
            } else {
                k + k / kinds.len()
            };
            let circuit = circuit_sending(t, which, &mut prg);
            let inputs = random_inputs(&circuit, &mut prg, 71);
            trials.push(Trial {
                protocol,
                corrupt,
                tag,
                kind: kinds[k % kinds.len()],
                circuit,
                inputs,
                seed: prg.next_u64(),
                truncation: huddle_engine::Truncation::Exact,
                threads: 1,
            });
        }
    }
    let endings = run_all(&trials);
    // The tables: runs per protocol, party and message type; honest
    // parties' endings per kind of fault.
    // (protocol, corrupted party, message) -> runs, as required, outputs, wrong.
    type Cell<'a> = ((Protocol, usize, &'a str), [usize; 4]);
    let mut cells: Vec<Cell> = Vec::new();
    let mut by_kind = [[0usize; 6]; 5];
    for (t, e) in trials.iter().zip(&endings) {
        let name = t.protocol.descriptor().messages[t.tag].name;
        let key = (t.protocol, t.corrupt, name);
        if cells.last().is_none_or(|(k, _)| *k != key) {
            cells.push((key, [0; 4]));
        }
        let honest: Vec<Ending> = (0..PARTIES)
            .filter(|&p| p != t.corrupt)
            .map(|p| e[p])
            .collect();
        let count = |f: &dyn Fn(Ending) -> bool| honest.iter().filter(|&&e| f(e)).count();
        let cell = &mut cells.last_mut().expect("cell").1;
        cell[0] += 1;
        cell[1] += usize::from(honest.iter().all(|&e| acceptable(t.kind, e)));
        cell[2] += count(&|e| matches!(e, Ending::Output | Ending::WrongOutput));
        cell[3] += count(&|e| e == Ending::WrongOutput);
        let kind = FaultKind::ALL
            .iter()
            .position(|&k| k == t.kind)
            .expect("kind");
        let row = &mut by_kind[kind];
        row[0] += 1;
        for (i, end) in [
            Ending::Abort,
            Ending::Blames,
            Ending::OtherError,
            Ending::Output,
            Ending::WrongOutput,
        ]
        .into_iter()
        .enumerate()
        {
            row[i + 1] += count(&|e| e == end);
        }
    }
    eprintln!("protocol | corrupted | message | runs | every honest party stopped as required | honest outputs | wrong outputs");
    for ((p, c, m), n) in &cells {
        eprintln!(
            "{p} | P{c} | {m} | {} | {} | {} | {}",
            n[0], n[1], n[2], n[3]
        );
    }
    eprintln!("fault | runs | honest parties: abort naming a check | error blaming the corrupted party | other error | output | wrong output");
    for (k, n) in FaultKind::ALL.iter().zip(&by_kind) {
        eprintln!(
            "{} | {} | {} | {} | {} | {} | {}",
            k.name(),
            n[0],
            n[1],
            n[2],
            n[3],
            n[4],
            n[5]
        );
    }
    assert_every_honest_party_acceptable(&trials, &endings);
}

/// Two layers of fixed-point products over Z_2^32 (DOTTR, a dot product
/// among them) beside plain products in the same layers, then a layer of
/// plain products only (whose messages can differ: Fantastic Four); every
/// party owns an input, so a fault on any party's input sharing fires.
fn fixed_point_layers() -> Circuit {
    let mut b = huddle_circuit::builder::Builder::arithmetic(RingWidth::W32, 2);
    let x = b.ring_input("x", 4);
    let y = b.ring_input("y", 4);
    let u = b.ring_input("u", 1);
    let v = b.ring_input("v", 1);
    let p = b.fixed_mul(x[0], y[0], 8);
    let d = b.fixed_dot(&x[1..], &y[1..], 8);
    let m = b.ring_op(huddle_circuit::Op::Mul, &[u[0], v[0]]);
    let q = b.fixed_mul(p, d, 8);
    let r = b.ring_op(huddle_circuit::Op::Mul, &[m, x[3]]);
    let plain = b.ring_op(huddle_circuit::Op::Mul, &[r, y[3]]);
    b.ring_output("z", vec![q, plain]);
    b.finish()
}

#[test]
fn every_fault_around_fused_truncation_makes_every_honest_party_abort() {
    // Every 4-party protocol with truncation fused into the multiplication
    // (--truncation probabilistic): every message type of every party that
    // sends it, the kinds of fault in turn; the compare-view checks must
    // still stop every honest party.
    let mut prg = Prg::from_seed([23; 16]);
    let circuit = fixed_point_layers();
    let mut trials = Vec::new();
    let mut turn = 0;
    // (Conversions: the table above, on mixed circuits.)
    for (protocol, corrupt, tag, t) in sent_types("conversion") {
        let kinds = kinds(t);
        for _ in 0..2 {
            trials.push(Trial {
                protocol,
                corrupt,
                tag,
                kind: kinds[turn % kinds.len()],
                circuit: circuit.clone(),
                inputs: random_inputs(&circuit, &mut prg, 71),
                seed: prg.next_u64(),
                truncation: huddle_engine::Truncation::Probabilistic,
                threads: 1,
            });
            turn += 1;
        }
    }
    let endings = run_all(&trials);
    assert_every_honest_party_acceptable(&trials, &endings);
}

/// Runs of two lanes (the CLI's default on two cores): every lane of the
/// corrupted party deviates, every honest party aborts and outputs nothing,
/// for every message type of every party, every kind of fault in turn.
#[test]
fn faults_in_runs_of_two_lanes_make_every_honest_party_abort() {
    let mut prg = Prg::from_seed([23; 16]);
    let mut trials = Vec::new();
    for (turn, (protocol, corrupt, tag, t)) in sent_types("truncation").into_iter().enumerate() {
        let kinds = kinds(t);
        let circuit = circuit_sending(t, turn, &mut prg);
        // Four 64-instance units: two lanes of two.
        let inputs = random_inputs(&circuit, &mut prg, 250);
        trials.push(Trial {
            protocol,
            corrupt,
            tag,
            kind: kinds[turn % kinds.len()],
            circuit,
            inputs,
            seed: prg.next_u64(),
            truncation: huddle_engine::Truncation::Exact,
            threads: 2,
        });
    }
    let endings = run_all(&trials);
    assert_every_honest_party_acceptable(&trials, &endings);
}

/// The index of `protocol`'s message type `name`.
fn tag_of(protocol: Protocol, name: &str) -> usize {
    Fault::message_index(protocol.name(), protocol.descriptor().messages, name).expect("a type")
}

/// A run of `protocol` on a small random circuit in which `corrupt` deviates
/// by `kind` in its messages of type `name`: every party's result and traffic.
fn faulted(
    protocol: Protocol,
    corrupt: usize,
    kind: FaultKind,
    name: &str,
    prg: &mut Prg,
) -> Vec<(Result<Vec<BitMatrix>, RunError>, Accounting)> {
    let circuit = circuit_for(corrupt, prg);
    let inputs = random_inputs(&circuit, prg, 71);
    let options = RunOptions::default().with_fault(Some(Fault {
        party: corrupt,
        kind,
        message: Some(tag_of(protocol, name)),
        seed: prg.next_u64(),
    }));
    let timeout = if kind == FaultKind::Drop {
        Duration::from_secs(1)
    } else {
        HONEST_TIMEOUT
    };
    run_each_counting(protocol, &circuit, &inputs, options, timeout)
}

/// Asserts that every party but `corrupt` stopped with an abort that
/// blames `corrupt`, of a check that `is` accepts.
fn assert_every_honest_party_blames(
    results: &[(Result<Vec<BitMatrix>, RunError>, Accounting)],
    corrupt: usize,
    is: impl Fn(&FailedCheck) -> bool,
    what: &str,
) {
    for (p, (r, _)) in results.iter().enumerate().filter(|&(p, _)| p != corrupt) {
        match r {
            Err(RunError::Abort { check, culprit, .. }) => {
                assert_eq!(*culprit, Some(corrupt), "{what}: party {p}: {check}");
                assert!(is(check), "{what}: party {p}: {check}");
            }
            other => panic!(
                "{what}: party {p} ended with {:?}",
                other.as_ref().map(|_| "output")
            ),
        }
    }
}

#[test]
fn a_key_opening_unlike_its_commitment_stops_every_party_naming_its_sender() {
    // Every two parties hold a key together, so every honest party checks
    // an opening of the corrupted party's: an error in its commitments or
    // in its openings is caught by every one of them, who name it.
    let mut prg = Prg::from_seed([24; 16]);
    for protocol in malicious() {
        for corrupt in 0..PARTIES {
            for name in ["key-commitment", "key-opening"] {
                let results = faulted(protocol, corrupt, FaultKind::AddError, name, &mut prg);
                assert_every_honest_party_blames(
                    &results,
                    corrupt,
                    |c| matches!(c, FailedCheck::KeyOpening { opener, .. } if *opener == corrupt),
                    &format!("{protocol} corrupt P{corrupt} {name}"),
                );
            }
        }
    }
}

#[test]
fn faulty_key_messages_stop_every_party_before_any_input_is_shared() {
    // Contributions or commitments that differ between holders, errors,
    // duplicates, silence: the setup's checks stop everyone before a key
    // is used, so no honest party sends anything in the preprocessing or
    // online phases (inputs are shared online).
    let mut prg = Prg::from_seed([25; 16]);
    for protocol in malicious() {
        for corrupt in 0..PARTIES {
            for name in ["key-commitment", "key-opening"] {
                for kind in FaultKind::ALL
                    .into_iter()
                    .filter(|&k| k != FaultKind::BadHash)
                {
                    let what = format!("{protocol} corrupt P{corrupt} {} {name}", kind.name());
                    let results = faulted(protocol, corrupt, kind, name, &mut prg);
                    for (p, (r, acc)) in results.iter().enumerate().filter(|&(p, _)| p != corrupt) {
                        assert!(r.is_err(), "{what}: party {p} output");
                        for phase in [Phase::Offline, Phase::Online] {
                            assert_eq!(
                                acc.phase_total(phase).bytes,
                                0,
                                "{what}: party {p} {phase:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn a_verdict_that_names_no_check_is_named_a_forgery() {
    // An error in a verdict word (0: success) makes it name no check.
    let mut prg = Prg::from_seed([26; 16]);
    for protocol in malicious() {
        let results = faulted(protocol, 1, FaultKind::AddError, "verdict", &mut prg);
        assert_every_honest_party_blames(
            &results,
            1,
            |c| {
                *c == FailedCheck::ForgedVerdict {
                    reporter: 1,
                    view: None,
                }
            },
            protocol.name(),
        );
    }
}

#[test]
fn without_a_fault_every_party_outputs_the_right_value() {
    let mut prg = Prg::from_seed([22; 16]);
    for protocol in malicious() {
        for k in 0..4 {
            let circuit = circuit_for(k, &mut prg);
            let inputs = random_inputs(&circuit, &mut prg, 71);
            let want = PlainEvaluator::new(&circuit)
                .evaluate(&inputs)
                .expect("plain");
            for r in run_each(
                protocol,
                &circuit,
                &inputs,
                RunOptions::default(),
                HONEST_TIMEOUT,
            ) {
                assert_eq!(r.expect("honest run"), want, "{protocol}");
            }
        }
    }
}

#[test]
fn faults_are_refused_where_they_cannot_apply() {
    let c = circuit_for(0, &mut Prg::from_seed([23; 16]));
    let fault = |party, message| {
        RunOptions::default().with_fault(Some(Fault {
            party,
            kind: FaultKind::AddError,
            message,
            seed: 0,
        }))
    };
    let m3 = Some(4); // "m3": only Quad's P3 sends it
    assert!(request(Protocol::Quad, 4, &c, fault(3, m3)).is_ok());
    let refused = [
        (Protocol::QuadHet, fault(3, m3)),
        (Protocol::Quad, fault(0, m3)),
        (Protocol::Quad, fault(4, None)),
        (Protocol::Quad, fault(0, Some(99))),
        (Protocol::Trio, fault(0, None)),
    ];
    for (p, o) in refused {
        let parties = if p == Protocol::Trio { 3 } else { 4 };
        let e = request(p, parties, &c, o).expect_err("refused");
        assert!(matches!(e, RunError::Input(_)), "{p}: {e}");
    }
}
