//! The library surface a program (and the Python binding) runs through:
//! `Run::builder`, `Run::local`, `Run::party`, the report, per-run progress
//! and cancellation.

use huddle_circuit::{gen, random::random_inputs, BitMatrix, Circuit, PlainEvaluator};
use huddle_core::Prg;
use huddle_engine::error::RunError;
use huddle_engine::exit::Exit;
use huddle_engine::OwnValue;
use huddle_engine::{
    Batch, CancelToken, LocalNet, PartyPlan, Progress, Protocol, Run, RunOptions, RunReport,
};
use huddle_net::{memory_networks, Handshake, NetError, NetProfile, Network, Phase};
use std::time::Duration;

fn trio(circuit: &Circuit, threads: usize, progress: &Progress, cancel: &CancelToken) -> Run {
    Run::builder(Protocol::Trio)
        .parties(3)
        .circuit(circuit.clone())
        .options(RunOptions::default().with_threads(threads))
        .progress(progress)
        .cancel(cancel)
        .build()
        .expect("a valid run")
}

/// Party `id`'s plan: its own input values of `inputs`.
fn plan(run: &Run, id: usize, inputs: &[BitMatrix]) -> PartyPlan {
    let batch = inputs.first().map_or(1, BitMatrix::rows);
    run.owned_by(id)
        .into_iter()
        .fold(PartyPlan::new(id, Batch::Given(batch)), |p, i| {
            p.with_input(i, OwnValue::Rows(inputs[i].clone()))
        })
}

/// Runs each party of `run` on its own thread over `nets` (party order),
/// each with its own clone of the run.
fn parties(
    run: &Run,
    nets: Vec<Network>,
    inputs: &[BitMatrix],
) -> Vec<Result<RunReport, RunError>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = nets
            .into_iter()
            .enumerate()
            .map(|(id, mut net)| {
                let (run, plan) = (run.clone(), plan(run, id, inputs));
                s.spawn(move || run.party(&mut net, plan))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a party's thread"))
            .collect()
    })
}

#[test]
fn a_local_run_reports_outputs_traffic_and_its_json() {
    let c = gen::adder_ripple(8);
    let inputs = random_inputs(&c, &mut Prg::from_seed([1; 16]), 100);
    let run = Run::builder(Protocol::Trio)
        .circuit(c.clone())
        .build()
        .expect("valid");
    assert_eq!(run.request().parties(), 3, "the protocol's own count");
    let report = run.local(&inputs, &LocalNet::memory()).expect("runs");
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("evaluates");
    assert_eq!(report.outputs, want);
    assert_eq!(report.party_outputs, vec![want.clone(); 3]);
    assert_eq!((report.party, report.batch, report.parties), (None, 100, 3));
    assert_eq!(report.threads, 1);
    let online: u64 = report.bytes["online"].values().sum();
    assert_eq!(online, report.accounting.phase_total(Phase::Online).bytes);
    assert_eq!(report.online_rounds, report.rounds["online"]);
    let json = serde_json::to_value(&report).expect("serializes");
    for key in [
        "protocol",
        "parties",
        "batch",
        "linear_preprocessing",
        "online_rounds",
        "rounds",
        "bytes",
        "seconds",
        "wall_seconds",
        "gates_per_second",
        "threads",
        "split_roles",
        "peak_memory_bytes",
        "vector_kernels",
        "warning",
    ] {
        assert!(json.get(key).is_some(), "no {key}: {json}");
    }
    assert_eq!(json["protocol"], "trio");
    assert!(json.get("party").is_none(), "a local run is no one party's");
    assert!(json.get("outputs").is_none(), "the caller renders outputs");
}

#[test]
fn a_builder_refuses_what_the_request_refuses_and_bad_inputs() {
    let c = gen::adder_ripple(8);
    let e = Run::builder(Protocol::Trio)
        .parties(4)
        .circuit(c.clone())
        .build()
        .expect_err("trio is a 3-party protocol");
    assert_eq!(e.exit(), Exit::Input);
    let e = Run::builder(Protocol::Trio)
        .build()
        .expect_err("no circuit");
    assert!(e.to_string().contains("no circuit"), "{e}");
    let run = Run::builder(Protocol::Trio)
        .circuit(c)
        .build()
        .expect("valid");
    let e = run
        .local(&[BitMatrix::zeros(1, 8)], &LocalNet::memory())
        .expect_err("one input value of two");
    assert!(e.to_string().contains("takes 2 input values"), "{e}");
    let e = run
        .local(
            &[BitMatrix::zeros(2, 8), BitMatrix::zeros(3, 8)],
            &LocalNet::memory(),
        )
        .expect_err("batches differ");
    assert!(
        e.to_string().contains("input value 1 must be 2 instances"),
        "{e}"
    );
}

#[test]
fn one_party_runs_report_their_own_links_and_outputs() {
    let c = gen::adder_ripple(8);
    let inputs = random_inputs(&c, &mut Prg::from_seed([2; 16]), 70);
    let run = Run::builder(Protocol::Trio)
        .circuit(c.clone())
        .options(RunOptions::default().with_reveal_to(Some(1)))
        .build()
        .expect("valid");
    let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("evaluates");
    for (id, report) in parties(&run, nets, &inputs).into_iter().enumerate() {
        let report = report.expect("runs");
        assert_eq!(report.party, Some(id));
        let learned = if id == 1 { want.clone() } else { Vec::new() };
        assert_eq!(report.outputs, learned, "party {id}");
        // Each party counts what it sent and received: its own links only.
        for (_, from, to, _) in report.accounting.iter() {
            assert!(from == id || to == id, "party {id}: {from}->{to}");
        }
    }
}

/// Two runs in one process at once: each run's progress and lanes are its
/// own. Run A's parties 0 and 1 start (and count) while its party 2 waits;
/// run B runs whole meanwhile; then A's party 2 joins and A finishes.
#[test]
fn two_runs_at_once_count_their_own_progress_and_lanes() {
    let c = gen::adder_ripple(16);
    let (a_inputs, b_inputs) = {
        let mut prg = Prg::from_seed([3; 16]);
        (
            random_inputs(&c, &mut prg, 1024),
            random_inputs(&c, &mut prg, 64),
        )
    };
    let (a_progress, b_progress) = (Progress::new(), Progress::new());
    let a = trio(&c, 3, &a_progress, &CancelToken::new());
    let b = trio(&c, 1, &b_progress, &CancelToken::new());
    let mut a_nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(120));
    let a_late = a_nets.pop().expect("party 2's network");
    let (a_first, a_last) = std::thread::scope(|s| {
        let first: Vec<_> = a_nets
            .into_iter()
            .enumerate()
            .map(|(id, mut net)| {
                let (run, plan) = (a.clone(), plan(&a, id, &a_inputs));
                s.spawn(move || run.party(&mut net, plan))
            })
            .collect();
        let b_report = b.local(&b_inputs, &LocalNet::memory()).expect("run B");
        assert_eq!(b_report.threads, 1, "B's lanes");
        assert_eq!(b_progress.lanes(), Some(1));
        let b_done = b_progress.snapshot();
        assert_eq!(b_done.instances, 64, "B's batch");
        assert_eq!(b_done.steps_done, b_done.steps_total, "B finished");
        // A cannot finish before its party 2 starts; nothing of B shows in
        // A's counters.
        let a_now = a_progress.snapshot();
        assert!(matches!(a_now.instances, 0 | 1024), "{a_now:?}");
        assert!(a_now.steps_done < a_now.steps_total || a_now.steps_total == 0);
        assert_ne!(a_progress.lanes(), Some(1), "B's lanes");
        let (mut net, run, plan) = (a_late, a.clone(), plan(&a, 2, &a_inputs));
        let last = run.party(&mut net, plan);
        let first: Vec<_> = first
            .into_iter()
            .map(|h| h.join().expect("a party's thread"))
            .collect();
        (first, last)
    });
    for report in a_first.into_iter().chain([a_last]) {
        assert_eq!(report.expect("run A").threads, 3, "A's lanes");
    }
    assert_eq!(a_progress.lanes(), Some(3));
    let a_done = a_progress.snapshot();
    assert_eq!(a_done.instances, 1024, "A's batch");
    assert_eq!(a_done.steps_done, a_done.steps_total, "A finished");
}

fn interrupted(e: &RunError) -> Option<&str> {
    match e {
        RunError::Net(NetError::Interrupted(cause)) => Some(cause),
        _ => None,
    }
}

#[test]
fn a_run_started_cancelled_stops_at_every_party() {
    let c = gen::adder_ripple(8);
    let inputs = random_inputs(&c, &mut Prg::from_seed([4; 16]), 10);
    let token = CancelToken::new();
    token.cancel("stopped by the caller");
    let run = trio(&c, 1, &Progress::new(), &token);
    let e = run
        .local(&inputs, &LocalNet::memory())
        .expect_err("cancelled");
    assert_eq!(interrupted(&e.error), Some("stopped by the caller"), "{e}");
    assert_eq!(e.error.exit(), Exit::Interrupted);
}

/// A cancel in the middle of a local run (a WAN profile makes it last):
/// every party stops at its next wait, with the cause.
#[test]
fn a_local_run_cancelled_midway_stops_with_the_cause() {
    let c = gen::adder_ripple(32);
    let inputs = random_inputs(&c, &mut Prg::from_seed([5; 16]), 10);
    let (progress, token) = (Progress::new(), CancelToken::new());
    let run = trio(&c, 1, &progress, &token);
    let wan = LocalNet::memory().with_profile(NetProfile::wan());
    let result = std::thread::scope(|s| {
        let running = s.spawn(|| run.local(&inputs, &wan));
        // Cancel once a party has started evaluating (its steps counted).
        while progress.snapshot().steps_total == 0 && !running.is_finished() {
            std::thread::yield_now();
        }
        token.cancel("the caller gave up");
        running.join().expect("the run's thread")
    });
    let e = result.expect_err("cancelled midway");
    assert_eq!(interrupted(&e.error), Some("the caller gave up"), "{e}");
}

/// One party of a run over sockets cancelled while its peers wait on a
/// third party: it stops with the cause, and the peer it talks to stops
/// naming it with the cause (the abort frame), with no hang.
#[test]
fn a_cancelled_party_tells_its_peers_why() {
    let c = gen::adder_ripple(8);
    let inputs = random_inputs(&c, &mut Prg::from_seed([6; 16]), 10);
    let token = CancelToken::new();
    let run = trio(&c, 1, &Progress::new(), &CancelToken::new());
    let cancelled = trio(&c, 1, &Progress::new(), &token);
    let handshake: Handshake = run
        .handshake("library-test", &plan(&run, 0, &inputs))
        .expect("a hello");
    let mut nets = huddle_net::local_networks(
        3,
        false,
        handshake,
        NetProfile::lan(),
        Duration::from_secs(30),
    )
    .expect("loopback TCP");
    // Party 2 is connected but never runs: 0 and 1 wait on it.
    let idle = nets.pop().expect("party 2");
    let (zero, one) = std::thread::scope(|s| {
        let mut it = nets.into_iter();
        let (mut n0, mut n1) = (it.next().expect("0"), it.next().expect("1"));
        let p0 = plan(&cancelled, 0, &inputs);
        let zero = s.spawn(move || cancelled.party(&mut n0, p0));
        let p1 = plan(&run, 1, &inputs);
        let one = s.spawn(move || run.party(&mut n1, p1));
        token.cancel("operator pressed stop");
        (zero.join().expect("party 0"), one.join().expect("party 1"))
    });
    drop(idle);
    let zero = zero.expect_err("party 0 cancelled");
    assert_eq!(interrupted(&zero), Some("operator pressed stop"), "{zero}");
    let one = one.expect_err("party 1 stopped by party 0");
    assert_eq!(one.exit(), Exit::Network, "{one}");
    let text = one.to_string();
    assert!(
        text.contains("party 0") && text.contains("operator pressed stop"),
        "{text}"
    );
}

/// What a caller (a binding releasing its lock while parties run, a
/// signal handler's thread) holds across threads.
#[test]
fn the_types_a_caller_holds_across_threads_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Run>();
    send_sync::<CancelToken>();
    send_sync::<Progress>();
    send_sync::<RunReport>();
    send_sync::<RunError>();
    send_sync::<huddle_engine::LocalError>();
    send_sync::<LocalNet>();
    send_sync::<huddle_engine::PartyLinks>();
    fn send<T: Send>() {}
    send::<PartyPlan>();
    send::<Network>();
}
