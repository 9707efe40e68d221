//! Every claim of the protocol table (`huddle_engine::protocol::Descriptor`),
//! exercised for every protocol that makes it and refused where it does
//! not: rings, share conversions, the native multiplication fan-in,
//! preprocessing, and a dealer that receives nothing after setup. Separate
//! preprocessing is run for every protocol claiming it by
//! tests/conformance.rs and tests/sharing.rs, the fault-injection message
//! types by tests/faults.rs, and fused truncation is
//! exercised for every protocol claiming it by tests/fixed_point.rs, whose
//! list of protocols comes from the same table. The protocols' code reads
//! these capabilities from the table (`sharing::Capabilities`), so a row
//! that claims what its protocol cannot do fails here.

mod common;

use common::{conversions, dots_or_products, local, request};
use huddle_circuit::{BitMatrix, Circuit, CircuitAssembler, Op, PlainEvaluator, ValueSpec};
use huddle_core::{Prg, RingWidth};
use huddle_engine::protocol::{Family, Protocol};
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, Accounting, NetProfile, Phase};
use std::time::Duration;

fn parties(protocol: Protocol) -> usize {
    protocol.descriptor().parties.default_count()
}

/// Every party's outputs and the merged accounting, per party too.
fn run(
    protocol: Protocol,
    c: &Circuit,
    inputs: &[BitMatrix],
) -> (Vec<Vec<BitMatrix>>, Vec<Accounting>) {
    let nets = memory_networks(
        parties(protocol),
        &NetProfile::lan(),
        Duration::from_secs(60),
    );
    let results = local(protocol.name(), nets, c, inputs, RunOptions::default())
        .unwrap_or_else(|e| panic!("{protocol}: {e}"));
    results
        .into_iter()
        .map(|r| (r.outputs, r.accounting))
        .unzip()
}

fn inputs(c: &Circuit, seed: u8) -> Vec<BitMatrix> {
    huddle_circuit::random::random_inputs(c, &mut Prg::from_seed([seed; 16]), 8)
}

/// Runs `c` and checks every party that learns outputs against the
/// plaintext evaluator; the accounting of each party.
fn runs_right(protocol: Protocol, c: &Circuit, what: &str) -> Vec<Accounting> {
    let inputs = inputs(c, 5);
    let want = PlainEvaluator::new(c).evaluate(&inputs).expect("evaluates");
    let (outputs, accounting) = run(protocol, c, &inputs);
    let dealer = protocol.descriptor().dealer;
    for (p, out) in outputs.iter().enumerate() {
        if Some(p) != dealer {
            assert_eq!(out, &want, "{protocol} {what}: party {p}");
        }
    }
    accounting
}

fn refused(protocol: Protocol, c: &Circuit, what: &str) {
    let r = request(protocol.name(), parties(protocol), c, RunOptions::default());
    assert!(
        r.is_err(),
        "{protocol} accepted {what}, which its row says it cannot run"
    );
}

#[test]
fn rings_and_conversions_run_where_the_table_claims_them_and_are_refused_elsewhere() {
    let product = dots_or_products(4, 1, RingWidth::W32, false);
    let mixed = conversions(2, RingWidth::W32, true);
    for protocol in Protocol::ALL {
        let d = protocol.descriptor();
        match d.rings {
            true => drop(runs_right(protocol, &product, "ring products")),
            false => refused(protocol, &product, "ring products"),
        }
        match d.conversions {
            true => drop(runs_right(protocol, &mixed, "A2B and B2A")),
            false => refused(protocol, &mixed, "A2B and B2A"),
        }
    }
}

#[test]
fn a_dealer_receives_nothing_after_setup() {
    let product = dots_or_products(4, 1, RingWidth::W32, false);
    let mut dealers = 0;
    for protocol in Protocol::ALL {
        let Some(dealer) = protocol.descriptor().dealer else {
            continue;
        };
        dealers += 1;
        let accounting = runs_right(protocol, &product, "ring products");
        let received: u64 = accounting[dealer]
            .iter()
            .filter(|&(phase, _, to, _)| phase != Phase::Setup && to == dealer)
            .map(|(_, _, _, s)| s.bytes)
            .sum();
        assert_eq!(
            received, 0,
            "{protocol}: its dealer {dealer} received bytes"
        );
    }
    assert!(
        dealers > 0,
        "no row claims a dealer: the test checks nothing"
    );
}

/// One AND gate of `fan_in` bits of party 0's input.
fn wide_and(fan_in: u32) -> Circuit {
    let mut asm = CircuitAssembler::new(
        u64::from(fan_in + 1),
        None,
        vec![ValueSpec::bits("x", fan_in)],
    )
    .expect("valid");
    let ins: Vec<u32> = (0..fan_in).collect();
    asm.push(Op::And, &ins, &[fan_in]).expect("and");
    asm.finish(vec![(ValueSpec::bits("z", 1), vec![fan_in])])
        .expect("valid")
}

fn online_rounds(protocol: Protocol, fan_in: u32) -> u32 {
    let c = wide_and(fan_in);
    let accounting = runs_right(protocol, &c, &format!("an AND of {fan_in}"));
    accounting
        .iter()
        .map(|a| a.rounds(Phase::Online))
        .max()
        .unwrap_or(0)
}

#[test]
fn the_native_fan_in_is_one_round_and_one_more_input_is_not() {
    // A secret-sharing protocol multiplies up to its row's fan-in in one
    // round: an AND of that many inputs takes the rounds of a 2-input AND,
    // one more input takes more (a tree).
    for protocol in Protocol::ALL {
        let d = protocol.descriptor();
        let (Family::Sharing, Some(widest)) = (d.family, d.max_fan_in) else {
            continue;
        };
        let widest = widest as u32;
        let two = online_rounds(protocol, 2);
        assert_eq!(
            online_rounds(protocol, widest),
            two,
            "{protocol}: fan-in {widest}"
        );
        assert!(
            online_rounds(protocol, widest + 1) > two,
            "{protocol}: fan-in {} took no more rounds than 2",
            widest + 1
        );
    }
}

/// A protocol whose row claims preprocessing sends in phase `offline` or
/// `dependent` for one AND gate; one that claims none sends nothing there.
#[test]
fn preprocessing_is_sent_where_the_table_claims_it_and_nowhere_else() {
    let c = wide_and(2);
    for protocol in Protocol::ALL {
        let accounting = runs_right(protocol, &c, "an AND");
        let preprocessing: u64 = accounting
            .iter()
            .map(|a| a.phase_total(Phase::Offline).bytes + a.phase_total(Phase::Dependent).bytes)
            .sum();
        assert_eq!(
            preprocessing > 0,
            protocol.descriptor().preprocessing,
            "{protocol}: {preprocessing} bytes of preprocessing"
        );
    }
}
