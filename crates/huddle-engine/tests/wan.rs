//! Under the emulated `wan` profile (50 ms one way, 160 Mbit/s) the online
//! time of MFI-3PC and Trio is set by their rounds: a depth-d circuit costs
//! d AND rounds plus one round each for input sharing and output (asserted
//! exactly from the accounting), and its online time is never below d one-way
//! latencies: every message becomes visible one latency after it is sent, at
//! the earliest. Upper bounds on time belong to benchmarks.

use huddle_circuit::random::random_inputs;
use huddle_circuit::{Circuit, CircuitAssembler, Op, PlainEvaluator, ValueSpec};
use huddle_core::Prg;
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, Accounting, NetProfile, Phase};
use std::time::Duration;

mod common;
use common::local;

/// A chain of d ANDs over 64 parallel lanes: z = x & y_0 & ... & y_{d-1}.
fn chain(d: u32) -> Circuit {
    let lanes = 64u32;
    let mut asm = CircuitAssembler::new(
        u64::from(lanes * (2 + 2 * d)),
        None,
        vec![ValueSpec::bits("x", lanes), ValueSpec::bits("y", lanes * d)],
    )
    .expect("valid");
    let mut acc: Vec<u32> = (0..lanes).collect();
    let mut next = lanes + lanes * d;
    for j in 0..d {
        for (lane, a) in acc.iter_mut().enumerate() {
            let y = lanes + j * lanes + lane as u32;
            asm.push(Op::And, &[*a, y], &[next]).expect("and");
            *a = next;
            next += 1;
        }
    }
    let outs: Vec<u32> = (0..lanes).map(|l| next + l).collect();
    for (a, o) in acc.iter().zip(&outs) {
        asm.push(Op::Copy, &[*a], &[*o]).expect("copy");
    }
    asm.finish(vec![(ValueSpec::bits("z", lanes), outs)])
        .expect("valid")
}

#[test]
fn online_rounds_are_the_depth_and_time_is_never_below_the_latency_chain() {
    let d = 40u32;
    let c = chain(d);
    let profile = NetProfile::named("wan").expect("wan profile");
    let one_way = profile.shape(1, 2).latency.as_secs_f64();
    assert_eq!(one_way, 0.05);
    let mut prg = Prg::from_seed([3; 16]);
    let inputs = random_inputs(&c, &mut prg, 1000);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    // Both protocols at once: each has its own emulated network.
    std::thread::scope(|s| {
        for protocol in ["mfi3", "trio"] {
            let (c, inputs, want, profile) = (&c, &inputs, &want, &profile);
            s.spawn(move || {
                let nets = memory_networks(3, profile, Duration::from_secs(60));
                let results = local(protocol, nets, c, inputs, RunOptions::default()).expect("run");
                let mut acc = Accounting::default();
                for r in &results {
                    assert_eq!(&r.outputs, want, "{protocol}");
                    acc.merge(&r.accounting);
                }
                assert_eq!(acc.rounds(Phase::Online), d + 2, "{protocol}");
                let online = acc.seconds(Phase::Online);
                let ideal = f64::from(d) * one_way;
                // The emulator never delivers early, so the chain of d
                // dependent layers costs at least d one-way latencies. Only
                // this bound is asserted: a busy machine makes runs slower,
                // never faster (how close runs come is `huddle bench`'s job).
                assert!(
                    online >= ideal * 0.999,
                    "{protocol}: online {online:.3} s, below d x one-way latency {ideal:.3} s"
                );
            });
        }
    });
}
