//! A dealt file (`huddle deal`) with any bytes changed: party 0 runs
//! bgw2-mal with it among three honest parties holding their true files.
//! Corrupted material is party 0 misbehaving, so every other party must
//! output the right value or stop with an error; nobody panics or hangs.
#![no_main]

use huddle_circuit::{gen, random::random_inputs, BitMatrix, Circuit, PlainEvaluator};
use huddle_core::Prg;
use huddle_engine::garble::linear::LinearChoice;
use huddle_engine::{Batch, OwnValue, PartyPlan, Protocol, Run, RunOptions};
use huddle_net::{memory_networks, NetProfile};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use std::time::Duration;

const N: usize = 4;

struct Fixture {
    circuit: Circuit,
    inputs: Vec<BitMatrix>,
    want: Vec<BitMatrix>,
    files: Vec<Vec<u8>>,
}

fn options() -> RunOptions {
    RunOptions::default().with_linear(LinearChoice::TrustedDealer)
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let circuit = gen::cmp_gt(4, 2);
        let inputs = random_inputs(&circuit, &mut Prg::from_seed([5; 16]), 1);
        let want = PlainEvaluator::new(&circuit).evaluate(&inputs).expect("plaintext");
        let files = huddle_engine::garble::deal(&circuit, N, 1, options()).expect("deal");
        Fixture { circuit, inputs, want, files }
    })
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    // data: pairs (offset u16, xor byte), applied to party 0's file; a
    // trailing odd byte truncates the file by that much.
    let mut file = f.files[0].clone();
    for pair in data.chunks_exact(3) {
        let at = usize::from(u16::from_le_bytes([pair[0], pair[1]])) % file.len();
        file[at] ^= pair[2];
    }
    if data.len() % 3 != 0 {
        let cut = usize::from(data[data.len() - 1]).min(file.len());
        file.truncate(file.len() - cut);
    }
    let run = Run::builder(Protocol::Bgw2Mal)
        .parties(N)
        .circuit(f.circuit.clone())
        .options(options())
        .build()
        .expect("request");
    let nets = memory_networks(N, &NetProfile::lan(), Duration::from_secs(10));
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = nets
            .into_iter()
            .enumerate()
            .map(|(p, mut net)| {
                let file = if p == 0 { file.clone() } else { f.files[p].clone() };
                let run = run.clone();
                s.spawn(move || {
                    let plan = run
                        .owned_by(p)
                        .into_iter()
                        .fold(PartyPlan::new(p, Batch::Given(1)), |plan, i| {
                            plan.with_input(i, OwnValue::Rows(f.inputs[i].clone()))
                        })
                        .with_dealt(file);
                    run.party(&mut net, plan).map(|report| report.outputs)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("no panic")).collect()
    });
    for (p, r) in results.iter().enumerate().skip(1) {
        if let Ok(out) = r {
            assert_eq!(out, &f.want, "honest party {p} output a wrong value");
        }
    }
});
