//! What a party receives before the online phase, read for uniformity: no
//! share gives a permutation bit away.

use crate::common::{assert_looks_uniform, local};
use huddle_circuit::gen;
use huddle_circuit::{BitMatrix, PlainEvaluator};
use huddle_engine::garble::Optimizations;
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, NetProfile, Phase};
use std::time::Duration;

/// What a party receives before the online phase looks uniform, whatever
/// the inputs (here all zero): round 1's shares of the permutation bits
/// and of R, the degree reduction's reshares (2-byte subfield shares by
/// default, 16-byte GF(2^128) shares as in the paper) and the masked rows,
/// read as 16-bit words: every bit set in about half of them and about as
/// many distinct words as uniform draws give. A share that revealed a bit
/// (a constant term alone, or a coefficient from a small set) fails both.
#[test]
fn every_share_a_party_receives_before_the_online_phase_looks_uniform() {
    let c = gen::cmp_gt(16, 2);
    let instances = 64;
    let inputs: Vec<BitMatrix> = c
        .inputs()
        .iter()
        .map(|v| BitMatrix::zeros(instances, v.wires as usize))
        .collect();
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    for (protocol, n) in [("bgw3", 3), ("bgw3", 5), ("bgw2", 4)] {
        for small_field in [true, false] {
            let options = RunOptions::default().with_garble(Optimizations {
                small_field,
                ..Optimizations::default()
            });
            let mut nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(60));
            let views: Vec<_> = nets.iter_mut().map(|n| n.record_received()).collect();
            let outs = local(protocol, nets, &c, &inputs, options)
                .unwrap_or_else(|e| panic!("{protocol}: {e}"));
            assert!(outs.iter().all(|r| r.outputs == want), "{protocol}");
            let what = format!("{protocol} n={n} small_field={small_field}");
            let mut checked = 0;
            for (party, view) in views.iter().enumerate() {
                let view = view.lock().expect("transcript");
                for m in view
                    .iter()
                    .filter(|m| matches!(m.phase, Phase::Offline | Phase::Dependent))
                {
                    let what = format!("{what}: P{party} from P{} ({:?})", m.from, m.phase);
                    assert_looks_uniform(&what, &m.payload, 2, 16, 0.9);
                    checked += 1;
                }
            }
            assert!(checked >= n, "{what}: {checked} messages");
        }
    }
}
