//! bgw2-mal's trusted dealer across hosts: the files `garble::deal` writes,
//! replayed by parties that each hold only their own.

use crate::common::request;
use huddle_circuit::gen;
use huddle_circuit::random::random_inputs;
use huddle_circuit::{BitMatrix, Circuit, PlainEvaluator};
use huddle_core::Prg;
use huddle_engine::garble::linear::LinearChoice;
use huddle_engine::{Batch, OwnValue, PartyPlan, RunOptions};
use huddle_net::{memory_networks, NetProfile};
use std::time::Duration;

/// The trusted dealer across hosts: `garble::deal` writes each party's
/// material; parties replaying their own file compute correctly, and a
/// file dealt for another party, another circuit or cut short is refused
/// with the reason.
#[test]
fn dealt_material_runs_parties_on_other_hosts() {
    let n = 16; // C(16, 5) = 4368 t-sets: beyond PRSS
    let c = gen::cmp_gt(16, 2);
    let mut prg = Prg::from_seed([21; 16]);
    let inputs = random_inputs(&c, &mut prg, 1);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    let options = RunOptions::default().with_linear(LinearChoice::TrustedDealer);
    let files = huddle_engine::garble::deal(&c, n, 1, options).expect("deal");
    let run_with =
        |files: Vec<Vec<u8>>, circuit: &Circuit| -> Vec<Result<Vec<BitMatrix>, String>> {
            let nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(20));
            std::thread::scope(|s| {
                let handles: Vec<_> = nets
                    .into_iter()
                    .zip(files)
                    .map(|(mut net, file)| {
                        let inputs = &inputs;
                        s.spawn(move || {
                            let me = net.party();
                            let plan = (0..circuit.inputs().len())
                                .filter(|&i| circuit.owner(i, n) == me)
                                .fold(PartyPlan::new(me, Batch::Given(1)), |plan, i| {
                                    plan.with_input(i, OwnValue::Rows(inputs[i].clone()))
                                })
                                .with_dealt(file);
                            let run = request("bgw2-mal", n, circuit, options)
                                .map_err(|e| e.to_string())?;
                            run.party(&mut net, plan)
                                .map(|report| report.outputs)
                                .map_err(|e| e.to_string())
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("thread"))
                    .collect()
            })
        };
    for (p, r) in run_with(files.clone(), &c).into_iter().enumerate() {
        assert_eq!(r.expect("dealt run"), want, "party {p}");
    }
    // Party 3 given party 4's file (and the other way round).
    let mut swapped = files.clone();
    swapped.swap(3, 4);
    let results = run_with(swapped, &c);
    assert!(results[3]
        .as_ref()
        .expect_err("wrong party")
        .contains("dealt for party 4, but this run has party 3"));
    // Material for another circuit, and a file cut short.
    let other = gen::cmp_gt(16, 4);
    let results = run_with(files.clone(), &other);
    assert!(results.iter().all(|r| r.is_err()));
    assert!(results[0]
        .as_ref()
        .expect_err("other circuit")
        .contains("different circuit"));
    let mut short = files;
    let keep = short[5].len() - 100;
    short[5].truncate(keep);
    let results = run_with(short, &c);
    assert!(results[5]
        .as_ref()
        .expect_err("short file")
        .contains("ends early"));
}
