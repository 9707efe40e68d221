//! The parties' roles: the dealer owns no input and learns no output (the
//! requests that ask otherwise are refused), outputs to one computing party
//! reach only it, and every word a computing party receives looks uniform.

use crate::common::{assert_looks_uniform, local, request};
use crate::n_input_product;
use huddle_circuit::builder::Builder;
use huddle_circuit::random::random_inputs;
use huddle_circuit::{InputOwners, PlainEvaluator};
use huddle_core::{Prg, RingWidth};
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, NetProfile, Phase};
use std::time::Duration;

#[test]
fn the_dealer_owns_no_input_and_learns_no_output() {
    let mut c = n_input_product(3, None);
    // Round robin over the computing parties: value 0 to P0, 1 to P1.
    let r = request("ca2pc", 3, &c, RunOptions::default()).expect("request");
    assert_eq!((r.request().owner(&c, 0), r.request().owner(&c, 1)), (0, 1));
    c.set_owners(InputOwners::Explicit(vec![0, 2]))
        .expect("owners");
    let e = request("ca2pc", 3, &c, RunOptions::default())
        .expect_err("an input owned by the dealer")
        .to_string();
    assert!(e.contains("dealer") && e.contains("input value 1"), "{e}");
    let c = n_input_product(3, None);
    let e = request(
        "ca2pc",
        3,
        &c,
        RunOptions::default().with_reveal_to(Some(2)),
    )
    .expect_err("outputs to the dealer")
    .to_string();
    assert!(e.contains("dealer") && e.contains("party 2"), "{e}");
    // Outputs to one computing party: the other learns nothing either.
    let mut prg = Prg::from_seed([5; 16]);
    let inputs = random_inputs(&c, &mut prg, 100);
    let want = PlainEvaluator::new(&c).evaluate(&inputs).expect("plain");
    let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
    let options = RunOptions::default().with_reveal_to(Some(1));
    let results = local("ca2pc", nets, &c, &inputs, options).expect("ca2pc");
    assert!(results[0].outputs.is_empty() && results[2].outputs.is_empty());
    assert_eq!(results[1].outputs, want);
}

#[test]
fn every_word_a_computing_party_receives_looks_uniform() {
    // Zero inputs in every instance: all that varies is randomness, so
    // every message P0 and P1 receive (the dealer's corrections, the masked
    // operands, the output shares; with truncations P0's shares of c and
    // P1's shares of t too) must look uniform as 64-bit words: each bit set
    // in about half of them, nearly all distinct.
    let mut truncating = Builder::arithmetic(RingWidth::W64, 2);
    let x = truncating.ring_input("x", 8);
    let y = truncating.ring_input("y", 8);
    let z = (0..8)
        .map(|i| truncating.fixed_mul(x[i], y[i], 16))
        .collect();
    truncating.ring_output("z", z);
    let truncating = truncating.finish();
    let cases = [
        // P0: operands, output; P1: corrections too; the dealer: nothing.
        (n_input_product(4, Some(RingWidth::W64)), [2, 3, 0]),
        // P0: operands, output; P1: corrections (with its shares of t),
        // operands, P0's share of c, output.
        (truncating, [2, 4, 0]),
    ];
    let instances = 2000;
    for (c, counts) in cases {
        let inputs: Vec<huddle_circuit::BitMatrix> = (0..c.inputs().len())
            .map(|i| huddle_circuit::BitMatrix::zeros(instances, c.input_bits(i)))
            .collect();
        let mut nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
        let views: Vec<_> = nets.iter_mut().map(|n| n.record_received()).collect();
        let options =
            RunOptions::default().with_truncation(huddle_engine::Truncation::Probabilistic);
        local("ca2pc", nets, &c, &inputs, options).expect("ca2pc");
        for (party, view) in views.iter().enumerate() {
            let view = view.lock().expect("transcript");
            let messages: Vec<_> = view
                .iter()
                .filter(|m| matches!(m.phase, Phase::Offline | Phase::Online))
                .collect();
            assert_eq!(messages.len(), counts[party], "P{party}");
            for m in messages {
                let what = format!("P{party} from P{}", m.from);
                assert_looks_uniform(&what, &m.payload, 8, 64, 0.99);
            }
        }
    }
}
