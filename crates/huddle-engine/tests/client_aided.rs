//! Client-aided 2PC (`ca2pc`, Ohata–Nuida): exact communication of N-input
//! AND and MULT (N = 2..9) per link and phase, the dealer's view (it
//! receives nothing at all), what the computing parties receive, and the
//! requests it refuses.

use huddle_circuit::builder::Builder;
use huddle_circuit::random::random_inputs;
use huddle_circuit::{Circuit, InputOwners, Op, PlainEvaluator};
use huddle_core::{Prg, RingWidth};
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, Accounting, NetProfile, Phase};
use std::time::Duration;

mod common;
use common::{assert_looks_uniform, local, request};

/// One N-input product of x_i = a_i + b_i (a from P0, b from P1): Boolean
/// (AND of XORs) or over `ring` (MULT of sums).
fn n_input_product(n: usize, ring: Option<RingWidth>) -> Circuit {
    let mut b = match ring {
        Some(r) => Builder::arithmetic(r, 9),
        None => Builder::boolean(9),
    };
    let (x, y) = match ring {
        Some(_) => (b.ring_input("a", n as u32), b.ring_input("b", n as u32)),
        None => (b.input("a", n as u32), b.input("b", n as u32)),
    };
    let sums: Vec<_> = x
        .iter()
        .zip(&y)
        .map(|(&p, &q)| match ring {
            Some(_) => b.ring_op(Op::Add, &[p, q]),
            None => b.xor(p, q),
        })
        .collect();
    match ring {
        Some(_) => {
            let z = b.ring_op(Op::Mul, &sums);
            b.ring_output("z", vec![z]);
        }
        None => {
            let z = b.and_all(&sums);
            b.output("z", vec![z]);
        }
    }
    b.finish()
}

fn run(
    c: &Circuit,
    instances: usize,
    seed: u8,
) -> (Vec<Vec<huddle_circuit::BitMatrix>>, Accounting) {
    run_with(c, instances, seed, RunOptions::default())
}

fn run_with(
    c: &Circuit,
    instances: usize,
    seed: u8,
    options: RunOptions,
) -> (Vec<Vec<huddle_circuit::BitMatrix>>, Accounting) {
    let mut prg = Prg::from_seed([seed; 16]);
    let inputs = random_inputs(c, &mut prg, instances);
    let want = PlainEvaluator::new(c).evaluate(&inputs).expect("plain");
    let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
    let results = local("ca2pc", nets, c, &inputs, options).expect("ca2pc");
    let mut acc = Accounting::default();
    for r in &results {
        acc.merge(&r.accounting);
    }
    let outputs: Vec<_> = results.into_iter().map(|r| r.outputs).collect();
    assert_eq!(outputs[0], want);
    assert_eq!(outputs[1], want);
    assert!(outputs[2].is_empty(), "the dealer learned outputs");
    (outputs, acc)
}

#[test]
fn an_n_input_product_costs_n_elements_each_way_in_one_round() {
    // Paper Table 1: N-AND sends N bits (per party) in one round, whatever
    // N; the dealer's share of the extended triple costs 2^N - N - 1 more,
    // sent to P1 only (P0's comes from a key it shares with the dealer).
    let instances = 640; // 10 bitsliced words
    for (ring, bytes, units) in [
        (None, 8, instances / 64),
        (Some(RingWidth::W32), 4, instances),
        (Some(RingWidth::W64), 8, instances),
    ] {
        for n in 2..=9usize {
            let c = n_input_product(n, ring);
            let (_, acc) = run(&c, instances, n as u8);
            let per = (bytes * units) as u64;
            let link = |phase, from, to| acc.link(phase, from, to).bytes;
            // Inputs cost nothing (a key P0 and P1 share); the product's
            // masked operands, then the output shares.
            assert_eq!(
                link(Phase::Online, 0, 1),
                (n as u64 + 1) * per,
                "{ring:?} {n}"
            );
            assert_eq!(
                link(Phase::Online, 1, 0),
                (n as u64 + 1) * per,
                "{ring:?} {n}"
            );
            assert_eq!(
                link(Phase::Offline, 2, 1),
                ((1u64 << n) - n as u64 - 1) * per,
                "{ring:?} {n}"
            );
            assert_eq!(link(Phase::Offline, 2, 0), 0);
            // The product's round and the output's.
            assert_eq!(acc.rounds(Phase::Online), 2, "{ring:?} {n}");
            // The dealer receives nothing, in any phase.
            for phase in Phase::ALL {
                for from in 0..2 {
                    assert_eq!(acc.link(phase, from, 2).bytes, 0, "{phase:?} {from}->2");
                }
                assert_eq!(
                    link(phase, 2, 0) + link(phase, 2, 1) > 0,
                    matches!(phase, Phase::Setup | Phase::Offline)
                );
            }
        }
    }
}

#[test]
fn table_2_rounds_and_bits_of_equality_comparison_and_3_max_over_z_2_32() {
    use huddle_circuit::apps::{extreme, pairwise};
    let ring = RingWidth::W32;
    // Paper Table 2 (Z_2^32): online rounds of the baseline (their [4],
    // here the same circuits at fan-in 2, 3-Max one pair after another)
    // and of theirs, which huddle's match exactly. Bits per instance in
    // each direction: Equality's 62 and 38 are the paper's; huddle's
    // comparison (a prefix carry instead of MSNZB, the operands of its
    // generate ANDs opened by their holder alone) and 3-Max send fewer
    // than the paper's 970/712 and 2196/3960.
    let cases = [
        ("Equality", pairwise(1, ring, false), Some(2), 5, 62, 1),
        ("Equality", pairwise(1, ring, false), None, 2, 38, 1),
        ("Comparison", pairwise(1, ring, true), Some(2), 7, 425, 1),
        ("Comparison", pairwise(1, ring, true), None, 3, 212, 1),
        (
            "3-Max",
            extreme(3, ring, true, false, true),
            Some(2),
            18,
            1042,
            32,
        ),
        (
            "3-Max",
            extreme(3, ring, true, false, false),
            None,
            4,
            924,
            32,
        ),
    ];
    let instances = 64; // one bitsliced word
    for (name, c, max_fan_in, rounds, bits, output_bits) in cases {
        let options = RunOptions::default().with_max_fan_in(max_fan_in);
        let (_, acc) = run_with(&c, instances, 9, options);
        let what = format!("{name} at fan-in {max_fan_in:?}");
        // The function's rounds, then the output's.
        assert_eq!(acc.rounds(Phase::Online), rounds + 1, "{what}");
        for (from, to) in [(0, 1), (1, 0)] {
            let sent = acc.link(Phase::Online, from, to).bytes * 8;
            let output = output_bits * instances as u64;
            assert_eq!(
                (sent - output) / instances as u64,
                bits,
                "{what} {from}->{to}"
            );
            assert_eq!((sent - output) % instances as u64, 0, "{what} {from}->{to}");
        }
    }
}

#[test]
fn wider_products_become_trees_of_nine_input_gates() {
    // 16 inputs (the widest MUL): the engine splits it into gates of at
    // most nine inputs, two rounds, then the output's.
    let c = n_input_product(16, Some(RingWidth::W16));
    let (_, acc) = run(&c, 100, 3);
    assert_eq!(acc.rounds(Phase::Online), 3);
}

#[test]
fn the_dealer_owns_no_input_and_learns_no_output() {
    let mut c = n_input_product(3, None);
    // Round robin over the computing parties: value 0 to P0, 1 to P1.
    let r = request("ca2pc", 3, &c, RunOptions::default()).expect("request");
    assert_eq!((r.owner(&c, 0), r.owner(&c, 1)), (0, 1));
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

#[test]
fn separate_preprocessing_deals_every_layer_before_the_inputs() {
    // Three layers of products: with --preprocess separate P1 receives all
    // the dealer's corrections before any message from P0; interleaved,
    // they alternate with the layers. The same bytes on every link.
    let mut b = Builder::arithmetic(RingWidth::W32, 9);
    let x = b.ring_input("x", 4);
    let y = b.ring_input("y", 4);
    let p = b.ring_op(Op::Mul, &[x[0], y[0], x[1]]);
    let q = b.ring_op(Op::Mul, &[p, y[1]]);
    let r = b.ring_op(Op::Mul, &[q, x[2], y[2], x[3], y[3]]);
    b.ring_output("z", vec![p, q, r]);
    let c = b.finish();
    let mut prg = Prg::from_seed([9; 16]);
    let inputs = random_inputs(&c, &mut prg, 300);
    let want = PlainEvaluator::new(&c).evaluate(&inputs).expect("plain");
    let mut order = Vec::new();
    let mut bytes = Vec::new();
    for preprocess in [
        huddle_engine::Preprocess::Interleaved,
        huddle_engine::Preprocess::Separate,
    ] {
        let mut nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
        let views: Vec<_> = nets.iter_mut().map(|n| n.record_received()).collect();
        let options = RunOptions::default().with_preprocess(preprocess);
        let results = local("ca2pc", nets, &c, &inputs, options).expect("ca2pc");
        assert_eq!(results[0].outputs, want);
        assert_eq!(results[1].outputs, want);
        let senders: Vec<usize> = views[1]
            .lock()
            .expect("transcript")
            .iter()
            .filter(|m| m.phase != Phase::Setup)
            .map(|m| m.from)
            .collect();
        order.push(senders);
        let mut acc = Accounting::default();
        for r in &results {
            acc.merge(&r.accounting);
        }
        bytes.push(
            Phase::ALL
                .iter()
                .flat_map(|&ph| (0..3).flat_map(move |f| (0..3).map(move |t| (ph, f, t))))
                .map(|(ph, f, t)| acc.link(ph, f, t).bytes)
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(bytes[0], bytes[1]);
    // Three layers and the output: P0's four messages; the dealer's three.
    assert_eq!(order[0], [2, 0, 2, 0, 2, 0, 0]);
    assert_eq!(order[1], [2, 2, 2, 0, 0, 0, 0]);
}

#[test]
fn a_conversion_costs_no_more_than_its_adder() {
    // Each party's share is a term only it knows, shared for free, so an
    // A2B of P0's ring value moves no more bytes, in no more rounds, than
    // the Sklansky adder it runs on over two parties' inputs (less: the
    // recombining adder has no carry out of bit k, whose widest
    // ANDs cost the dealer most, and the operands of its generate ANDs are
    // each one party's term, opened by that party alone). ca2pc's
    // conversions take the narrowest fan-in (of its 9) with the fewest rounds.
    for ring in [RingWidth::W16, RingWidth::W32, RingWidth::W64] {
        let a2b = common::conversions(1, ring, false);
        let depth = |f| {
            let adder = huddle_circuit::gen::adder_sklansky(ring.bits(), f);
            huddle_circuit::Layering::of(&adder).depth
        };
        let fewest = (2..=9).map(depth).min().expect("fan-ins");
        let fan_in = (2..=9).find(|&f| depth(f) == fewest).expect("fan-ins");
        let mut adder = huddle_circuit::gen::adder_sklansky(ring.bits(), fan_in);
        adder
            .set_owners(InputOwners::Explicit(vec![0, 1]))
            .expect("owners");
        let (_, converted) = run(&a2b, 640, 1);
        let (_, added) = run(&adder, 640, 2);
        for phase in Phase::ALL {
            for (f, t) in [(0, 1), (1, 0), (2, 1), (2, 0)] {
                let c = converted.link(phase, f, t).bytes;
                let a = added.link(phase, f, t).bytes;
                assert!(
                    c <= a && c * 2 >= a,
                    "{ring:?} {phase:?} {f}->{t}: {c} vs {a}"
                );
            }
            assert!(
                converted.rounds(phase) <= added.rounds(phase),
                "{ring:?} {phase:?}"
            );
        }
    }
}

#[test]
fn an_operand_several_products_share_is_opened_once() {
    // x·y0, x·y1, x·y2 in one layer: four distinct operands, so four
    // elements each way (not six), then the three outputs; the dealer still
    // deals one correction per product.
    let mut b = Builder::arithmetic(RingWidth::W64, 2);
    let x = b.ring_input("x", 1);
    let y = b.ring_input("y", 3);
    let z = (0..3).map(|i| b.ring_op(Op::Mul, &[x[0], y[i]])).collect();
    b.ring_output("z", z);
    let c = b.finish();
    let instances = 100;
    let (_, acc) = run(&c, instances, 4);
    let per = 8 * instances as u64;
    assert_eq!(acc.link(Phase::Online, 0, 1).bytes, (4 + 3) * per);
    assert_eq!(acc.link(Phase::Online, 1, 0).bytes, (4 + 3) * per);
    assert_eq!(acc.link(Phase::Offline, 2, 1).bytes, 3 * per);
}

#[test]
fn arithmetic_blinding_opens_a_term_from_its_holder_only() {
    // B2A of b bits (and BX2A, times a ring value) of P0's and P1's XOR
    // shares: t0 + t1 − 2·t0·t1 per bit, expanded into one round of
    // products of the terms. Each term is one party's share (the other's
    // 0), so only its holder opens it (Section 3.3): per bit one element
    // from each party, instead of two each way; the factor, a sum of both
    // parties' shares, is opened by both.
    for (bits, factor) in [(1, false), (2, false), (3, false), (1, true), (2, true)] {
        let ring = RingWidth::W32;
        let mut b = Builder::arithmetic(ring, 9);
        let x = b.input("x", bits);
        let y = b.input("y", bits);
        let v = b.ring_input("v", 1)[0];
        let xored: Vec<_> = x.iter().zip(&y).map(|(&p, &q)| b.xor(p, q)).collect();
        let z = if factor {
            b.bits_times(&xored, v)
        } else {
            b.bits_to_ring(&xored)
        };
        b.ring_output("z", vec![z]);
        let mut c = b.finish();
        c.set_owners(InputOwners::Explicit(vec![0, 1, 0]))
            .expect("owners");
        let instances = 100;
        let (_, acc) = run(&c, instances, 5);
        let element = 4 * instances as u64;
        let opened = u64::from(bits) + u64::from(factor);
        for (from, to) in [(0, 1), (1, 0)] {
            // The opened terms and factor, then the output.
            assert_eq!(
                acc.link(Phase::Online, from, to).bytes,
                (opened + 1) * element,
                "{bits} bits, factor {factor}: {from}->{to}"
            );
        }
        // The conversion's round and the output's.
        assert_eq!(acc.rounds(Phase::Online), 2, "{bits} bits");
    }
}

/// Fractional bits of the view tests' fixed-point product.
const VIEW_F: u8 = 8;

/// One fixed-point product z = x·y (x from P0, y from P1) over Z_2^64,
/// truncated by `VIEW_F` bits.
fn one_fixed_point_product() -> Circuit {
    let mut b = Builder::arithmetic(RingWidth::W64, 2);
    let x = b.ring_input("x", 1);
    let y = b.ring_input("y", 1);
    let z = b.fixed_mul(x[0], y[0], VIEW_F);
    b.ring_output("z", vec![z]);
    let mut c = b.finish();
    c.set_owners(InputOwners::Explicit(vec![0, 1]))
        .expect("owners");
    c
}

/// `v` in every one of `instances` rows of a 64-bit ring input.
fn constant_column(v: u64, instances: usize) -> huddle_circuit::BitMatrix {
    let mut m = huddle_circuit::BitMatrix::zeros(instances, 64);
    for i in 0..instances {
        m.row_mut(i)[0] = v;
    }
    m
}

/// The words of a received message (64-bit elements or raw words).
fn words(payload: &[u8]) -> Vec<u64> {
    payload
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
        .collect()
}

/// The key stream of a 128-bit key as it travelled (two words).
fn key_stream(key: &[u8], words: usize) -> Vec<u64> {
    let mut prg = Prg::from_seed(key.try_into().expect("a 16-byte key"));
    let mut v = vec![0; words];
    prg.fill_u64(&mut v);
    v
}

/// A run of [`one_fixed_point_product`] on `instances` instances of the
/// same x and y, every party's received messages recorded.
struct ViewRun {
    z: u64,
    /// The truncated output each instance revealed.
    outputs: Vec<u64>,
    views: Vec<Vec<huddle_net::Received>>,
    instances: usize,
}

impl ViewRun {
    fn new(x: u64, y: u64, instances: usize, reveal_to: Option<usize>, seed: u8) -> ViewRun {
        let c = one_fixed_point_product();
        let inputs = [constant_column(x, instances), constant_column(y, instances)];
        let mut nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
        let views: Vec<_> = nets.iter_mut().map(|n| n.record_received()).collect();
        let options = RunOptions::default()
            .with_reveal_to(reveal_to)
            .with_truncation(huddle_engine::Truncation::Probabilistic)
            .with_randomness(huddle_engine::Randomness::Seeded([seed; 16]));
        let results = local("ca2pc", nets, &c, &inputs, options).expect("ca2pc");
        let learner = reveal_to.unwrap_or(0);
        let out = &results[learner].outputs[0];
        ViewRun {
            z: x.wrapping_mul(y),
            outputs: (0..instances).map(|i| out.row(i)[0]).collect(),
            views: views
                .iter()
                .map(|v| v.lock().expect("transcript").clone())
                .collect(),
            instances,
        }
    }

    /// Per instance, the truncated output minus ⌊z / 2^f⌋: 0 or 1.
    fn rounding(&self) -> Vec<u64> {
        let want = ((self.z as i64) >> VIEW_F) as u64;
        self.outputs
            .iter()
            .enumerate()
            .map(|(i, &o)| {
                let e = o.wrapping_sub(want);
                assert!(e <= 1, "instance {i}: {o:#x} is {e:#x} above ⌊z/2^f⌋");
                e
            })
            .collect()
    }

    /// The messages `party` received from `from` in `phase`.
    fn received(&self, party: usize, from: usize, phase: Phase) -> Vec<&huddle_net::Received> {
        self.views[party]
            .iter()
            .filter(|m| m.from == from && m.phase == phase)
            .collect()
    }

    /// The key `party` received from `from` at setup, as it travelled.
    fn key(&self, party: usize, from: usize) -> Vec<u8> {
        let setup = self.received(party, from, Phase::Setup);
        assert_eq!(setup.len(), 1, "P{party} receives one key from P{from}");
        setup[0].payload.clone()
    }

    /// d_x and d_y of the product, opened: the masked operands each
    /// computing party sent the other (the first online message each way).
    fn opened(&self) -> [Vec<u64>; 2] {
        let n = self.instances;
        let from = |p: usize| words(&self.received(1 - p, p, Phase::Online)[0].payload);
        let (m0, m1) = (from(0), from(1));
        assert_eq!(m0.len(), 2 * n, "x and y opened");
        let d: Vec<u64> = m0
            .iter()
            .zip(&m1)
            .map(|(a, b)| a.wrapping_add(*b))
            .collect();
        [d[..n].to_vec(), d[n..].to_vec()]
    }

    /// Each computing party's share of the product before truncation, as
    /// it computes it from its own view (module docs): P0 from its K02
    /// stream (a_x⁰, a_y⁰, then a_xy⁰), P1 from its K12 stream (a_x¹,
    /// a_y¹) and the dealer's correction c_xy.
    fn product_shares(&self) -> [Vec<u64>; 2] {
        let n = self.instances;
        let [dx, dy] = self.opened();
        let k02 = key_stream(&self.key(0, 2), 3 * n);
        let k12 = key_stream(&self.key(1, 2), 2 * n);
        let dealt = words(&self.received(1, 2, Phase::Offline)[0].payload);
        let share = |i: usize, a: &[u64], axy: u64, p0: bool| {
            let own = if p0 { dx[i].wrapping_mul(dy[i]) } else { 0 };
            own.wrapping_add(dx[i].wrapping_mul(a[n + i]))
                .wrapping_add(dy[i].wrapping_mul(a[i]))
                .wrapping_add(axy)
        };
        let z0: Vec<u64> = (0..n)
            .map(|i| share(i, &k02, k02[2 * n + i], true))
            .collect();
        let z1: Vec<u64> = (0..n).map(|i| share(i, &k12, dealt[i], false)).collect();
        for i in 0..n {
            assert_eq!(
                z0[i].wrapping_add(z1[i]),
                self.z,
                "instance {i}: shares of z"
            );
        }
        [z0, z1]
    }

    /// Everything `party` holds, per instance: its product share, the first
    /// blocks of every key stream it has (K01; K02 at P0, K12 at P1; one
    /// block = one word per instance), and every block of every message it
    /// received after setup.
    fn holdings(&self, party: usize) -> Vec<(String, Vec<u64>)> {
        let n = self.instances;
        let mut held = vec![(
            format!("P{party}'s share of z"),
            self.product_shares()[party].clone(),
        )];
        // P0 chose K01 and sent it to P1.
        let k01 = self.key(1, 0);
        let dealer_key = self.key(party, 2);
        for (name, key) in [("K01", k01), ("the dealer's key", dealer_key)] {
            let stream = key_stream(&key, 8 * n);
            for (b, block) in stream.chunks_exact(n).enumerate() {
                held.push((format!("{name} block {b}"), block.to_vec()));
            }
        }
        for (k, m) in self.views[party].iter().enumerate() {
            if m.phase == Phase::Setup {
                continue;
            }
            let w = words(&m.payload);
            assert!(w.len().is_multiple_of(n), "message {k}: whole blocks");
            for (b, block) in w.chunks_exact(n).enumerate() {
                held.push((
                    format!("message {k} from P{} block {b}", m.from),
                    block.to_vec(),
                ));
            }
        }
        held
    }

    /// Per instance, the dealer's r = r⁰ + r¹ of the truncation: r⁰ the
    /// fourth block of the K02 stream (after a_x⁰, a_y⁰ and a_xy⁰), r¹ the
    /// third of the K12 stream (after a_x¹ and a_y¹).
    fn dealt_r(&self) -> Vec<u64> {
        let n = self.instances;
        let k02 = key_stream(&self.key(0, 2), 4 * n);
        let k12 = key_stream(&self.key(1, 2), 3 * n);
        (0..n)
            .map(|i| k02[3 * n + i].wrapping_add(k12[2 * n + i]))
            .collect()
    }
}

/// Asserts that no bit of any value in `held` and no range of a value's low
/// f bits predicts `rounding`: each bit agrees with it in about half of
/// the instances, and among the instances whose value has the same top four
/// of its low f bits, about half round up.
fn assert_unpredictable(what: &str, held: &[(String, Vec<u64>)], rounding: &[u64]) {
    let n = rounding.len() as f64;
    for (name, v) in held {
        for bit in 0..64 {
            let agree = v
                .iter()
                .zip(rounding)
                .filter(|&(&v, &e)| v >> bit & 1 == e)
                .count() as f64;
            // sd 0.5/sqrt(n): 0.1 is 18 sd at n = 8192.
            assert!(
                (agree / n - 0.5).abs() < 0.1,
                "{what}: bit {bit} of {name} agrees with the rounding in {agree} of {n} instances"
            );
        }
        let mut up = [0f64; 16];
        let mut all = [0f64; 16];
        for (&v, &e) in v.iter().zip(rounding) {
            let bucket = ((v & ((1 << VIEW_F) - 1)) >> (VIEW_F - 4)) as usize;
            all[bucket] += 1.0;
            up[bucket] += e as f64;
        }
        for b in 0..16 {
            // About n/16 = 512 instances a bucket where the value is
            // uniform (sd 0.022: 0.2 is 9 sd); a value constant in its low
            // bits puts them all in one.
            if all[b] >= 100.0 {
                assert!(
                    (up[b] / all[b] - 0.5).abs() < 0.2,
                    "{what}: where the low bits of {name} are in range {b} of 16, {} of {} round up",
                    up[b],
                    all[b]
                );
            }
        }
    }
}

#[test]
fn the_rounding_is_independent_of_everything_the_output_learner_holds() {
    // z = 3 · (1000·2^8 + 2^7): its low 8 bits are 2^7, so the truncation
    // rounds up with probability 1/2. The output's learner (P0 or P1)
    // must not be able to tell which instances did: no bit of its share of
    // z, of its key streams or of any message it received predicts it.
    // (SecureML's local truncation fails this: the rounding is bit 7 of
    // the learner's own share of z, negated, or nearly so at P1.)
    // With outputs to both, P0 (P1 opens c; see the next test for what
    // that tells P1).
    let instances = 8192;
    for (reveal_to, learner) in [(Some(0), 0), (Some(1), 1), (None, 0)] {
        let run = ViewRun::new(3, (1000 << 8) + 128, instances, reveal_to, 11);
        let rounding = run.rounding();
        let up = rounding.iter().sum::<u64>() as f64 / instances as f64;
        assert!((up - 0.5).abs() < 0.05, "P{learner}: {up} round up");
        let what = format!("outputs to {reveal_to:?}, P{learner}'s view");
        assert_unpredictable(&what, &run.holdings(learner), &rounding);
    }
}

#[test]
fn with_outputs_to_both_the_opener_learns_one_comparison_of_the_low_bits() {
    // P1 opens c = z + r (c⁰ from P0, its own c¹ = z¹ + r¹, r¹ the third
    // block of its K12 stream after the masks a_x¹, a_y¹), and learns the
    // output too: the rounding is [z mod 2^f > c mod 2^f] in every
    // instance, exactly the one comparison the docs state.
    let instances = 1024;
    let run = ViewRun::new(3, (1000 << 8) + 128, instances, None, 12);
    let rounding = run.rounding();
    let z1 = &run.product_shares()[1];
    let c0 = words(&run.received(1, 0, Phase::Online)[1].payload);
    assert_eq!(c0.len(), instances, "P0's share of c");
    let r1 = &key_stream(&run.key(1, 2), 3 * instances)[2 * instances..];
    let r = run.dealt_r();
    let low = (1u64 << VIEW_F) - 1;
    for i in 0..instances {
        let c = c0[i].wrapping_add(z1[i]).wrapping_add(r1[i]);
        assert_eq!(c, run.z.wrapping_add(r[i]), "instance {i}: c = z + r");
        let compared = u64::from(run.z & low > c & low);
        assert_eq!(rounding[i], compared, "instance {i}");
    }
    let up = rounding.iter().sum::<u64>();
    assert!(
        up > 0 && up < instances as u64,
        "{up} of {instances} round up"
    );
}

#[test]
fn the_result_is_exactly_as_stated_given_the_dealers_r() {
    // Per instance, from the dealer's r (rebuilt from both keys), the
    // output is exactly ⌊z/2^f⌋ + u − 2^(k−f)·q for u = [(z mod 2^f) +
    // (r mod 2^f) ≥ 2^f] and q = ⌊(z + r)/2^k⌋ (z signed, r unsigned), for
    // every output setting and a small z (q is 0) and large positive and
    // negative ones, which wrap (q = 1, q = −1) in about |z|/2^64 = 1/4 of
    // the instances (sd 0.0096: 0.05 is 5 sd).
    let instances = 2048;
    let zs: [i64; 3] = [
        3 * ((1000 << 8) + 128),
        (1 << 62) + (1000 << 8) + 77,
        -(1 << 62) - (3 << 8) + 5,
    ];
    for (seed, reveal_to) in [None, Some(0), Some(1)].into_iter().enumerate() {
        for &z in &zs {
            let run = ViewRun::new(1, z as u64, instances, reveal_to, 30 + seed as u8);
            let r = run.dealt_r();
            let (mut up, mut wrapped) = (0, 0);
            for (i, (&got, &r)) in run.outputs.iter().zip(&r).enumerate() {
                let low = (1i128 << VIEW_F) - 1;
                let u = i128::from((i128::from(z) & low) + (i128::from(r) & low) > low);
                let q = (i128::from(z) + i128::from(r)).div_euclid(1 << 64);
                let want = ((i128::from(z) >> VIEW_F) + u - (q << (64 - VIEW_F))) as u64;
                assert_eq!(got, want, "{reveal_to:?} z {z} instance {i}: r {r:#x}");
                up += u;
                wrapped += i128::from(q != 0);
            }
            let rate = |n: i128| n as f64 / instances as f64;
            let p_up = (z & ((1 << VIEW_F) - 1)) as f64 / f64::from(1u32 << VIEW_F);
            let p_wrap = z.unsigned_abs() as f64 / 2f64.powi(64);
            let what = format!("{reveal_to:?} z {z}");
            assert!((rate(up) - p_up).abs() < 0.05, "{what}: {up} round up");
            assert!(
                (rate(wrapped) - p_wrap).abs() < 0.05,
                "{what}: {wrapped} wrap"
            );
        }
    }
}

/// x from P0 and y from P1, four ring elements each: trunc_f(x0·y0),
/// trunc_f(x1·y1 + x2·y2 + x3·y3) and the plain product x2·y2, one layer.
fn fixed_point_products(ring: RingWidth, f: u8) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 4);
    let y = b.ring_input("y", 4);
    let p = b.fixed_mul(x[0], y[0], f);
    let d = b.fixed_dot(&x[1..], &y[1..], f);
    let plain = b.ring_op(Op::Mul, &[x[2], y[2]]);
    b.ring_output("z", vec![p, d, plain]);
    let mut c = b.finish();
    c.set_owners(InputOwners::Explicit(vec![0, 1]))
        .expect("owners");
    c
}

/// Rows of signed ring elements as a party's input matrix.
fn ring_matrix(rows: &[Vec<i128>], ring: RingWidth) -> huddle_circuit::BitMatrix {
    let k = ring.bits() as usize;
    let mut m = huddle_circuit::BitMatrix::zeros(rows.len(), rows[0].len() * k);
    for (i, row) in rows.iter().enumerate() {
        for (j, &e) in row.iter().enumerate() {
            m.row_mut(i)[j * k / 64] |= ((e as u64) & ring.mask()) << (j * k % 64);
        }
    }
    m
}

/// The ring elements of each row of an output matrix.
fn ring_elements(m: &huddle_circuit::BitMatrix, ring: RingWidth) -> Vec<Vec<u64>> {
    let k = ring.bits() as usize;
    (0..m.rows())
        .map(|i| {
            (0..m.cols() / k)
                .map(|j| (m.row(i)[j * k / 64] >> (j * k % 64)) & ring.mask())
                .collect()
        })
        .collect()
}

/// x and y for [`fixed_point_products`] over `instances` rows: first the
/// edge cases (zero; −2^(k−1) and 2^(k−1) − 1, the ends of the ring; −1,
/// its low bits all ones; 2^f − 1, −(2^f − 1) and −(2^f − 2)), then random
/// factors of random sizes up to k/2 bits, so that the products and dot
/// products range from small to the whole ring.
fn edge_and_random_factors(
    ring: RingWidth,
    f: u8,
    instances: usize,
    prg: &mut Prg,
) -> [Vec<Vec<i128>>; 2] {
    let k = ring.bits();
    let (lo, hi) = (-(1i128 << (k - 1)), (1i128 << (k - 1)) - 1);
    let ones = (1i128 << f) - 1;
    let mut x = vec![
        vec![0, 0, 0, 0],
        vec![1, 1, 0, 0],
        vec![-1, 1, 0, 0],
        vec![1, -1, 1, 0],
    ];
    let mut y = vec![
        vec![0, 0, 0, 0],
        vec![lo, hi, 0, 0],
        vec![1, ones, 0, 0],
        vec![-ones, ones, 1, 0],
    ];
    let mut random = || {
        let bits = prg.next_u64() % u64::from(k / 2 + 1);
        let m = (prg.next_u64() & ((1 << bits) - 1)) as i128;
        if prg.next_u64() & 1 == 1 {
            -m
        } else {
            m
        }
    };
    while x.len() < instances {
        x.push((0..4).map(|_| random()).collect());
        y.push((0..4).map(|_| random()).collect());
    }
    [x, y]
}

/// `v` as a signed element of `ring`.
fn signed(v: i128, ring: RingWidth) -> i128 {
    let k = ring.bits();
    let v = v.rem_euclid(1 << k);
    if v >= 1 << (k - 1) {
        v - (1 << k)
    } else {
        v
    }
}

/// How a truncation by f of z (signed) came out: (u, q) such that `got` is
/// ⌊z/2^f⌋ + u − 2^(k−f)·q, u the rounding (1 only where z mod 2^f ≠ 0)
/// and q the wrap (1 only for z > 0, −1 only for z < 0). Panics on
/// anything else.
fn outcome(z: i128, got: u64, ring: RingWidth, f: u8, what: &str) -> (u64, i128) {
    let k = ring.bits();
    let want = (z >> f) as u64;
    let d = got.wrapping_sub(want) & ring.mask();
    let rounds = z & ((1 << f) - 1) != 0;
    for q in [0, z.signum()] {
        for u in [0, u64::from(rounds)] {
            let wrap = ((q << (k - u32::from(f))) as u64).wrapping_neg();
            if d == u.wrapping_add(wrap) & ring.mask() {
                return (u, q);
            }
        }
    }
    panic!("{what}: {got:#x} is {d:#x} away from ⌊{z}/2^{f}⌋");
}

#[test]
fn truncation_is_the_plaintext_result_or_one_more_except_a_wrap_in_every_setting() {
    // Every ring width, f = 1, k/2 and k − 1, both schedules, outputs to
    // P0, P1 or both: against the plaintext evaluator (exact truncation)
    // every truncated output is its result, or one more where z has low
    // bits, or either off by 2^(k−f) in the direction of z's sign (a
    // wrap), at the edges too; the plain product in the same layer is
    // exact. Over all settings both the rounding and wraps occur (rates:
    // the next tests). 130 instances: packed words with empty lanes at the
    // end of each slot.
    let instances = 130;
    let mut prg = Prg::from_seed([21; 16]);
    let (mut up, mut wrapped) = (0, 0);
    for ring in RingWidth::ALL {
        let k = ring.bits() as u8;
        for f in [1, k / 2, k - 1] {
            let c = fixed_point_products(ring, f);
            let [x, y] = edge_and_random_factors(ring, f, instances, &mut prg);
            let inputs = [ring_matrix(&x, ring), ring_matrix(&y, ring)];
            let want = PlainEvaluator::new(&c).evaluate(&inputs).expect("plain");
            let want = ring_elements(&want[0], ring);
            let z: Vec<[i128; 2]> = x
                .iter()
                .zip(&y)
                .map(|(x, y)| {
                    let dot = x[1] * y[1] + x[2] * y[2] + x[3] * y[3];
                    [signed(x[0] * y[0], ring), signed(dot, ring)]
                })
                .collect();
            for (z, want) in z.iter().zip(&want) {
                for g in 0..2 {
                    assert_eq!((z[g] >> f) as u64 & ring.mask(), want[g], "the plaintext");
                }
            }
            for preprocess in [
                huddle_engine::Preprocess::Interleaved,
                huddle_engine::Preprocess::Separate,
            ] {
                for reveal_to in [Some(0), Some(1), None] {
                    let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
                    let options = RunOptions::default()
                        .with_preprocess(preprocess)
                        .with_reveal_to(reveal_to)
                        .with_truncation(huddle_engine::Truncation::Probabilistic);
                    let results = local("ca2pc", nets, &c, &inputs, options).expect("ca2pc");
                    let what = format!("{ring} f {f} {preprocess:?} to {reveal_to:?}");
                    if reveal_to.is_none() {
                        assert_eq!(results[0].outputs, results[1].outputs, "{what}");
                    }
                    for (party, r) in results.iter().enumerate() {
                        let learns = party < 2 && reveal_to.is_none_or(|t| t == party);
                        assert_eq!(r.outputs.is_empty(), !learns, "{what}: P{party}");
                        if !learns {
                            continue;
                        }
                        let got = ring_elements(&r.outputs[0], ring);
                        for (i, ((got, want), z)) in got.iter().zip(&want).zip(&z).enumerate() {
                            for g in 0..2 {
                                let what = format!("{what}: instance {i} gate {g}");
                                let (u, q) = outcome(z[g], got[g], ring, f, &what);
                                up += u;
                                wrapped += u64::from(q != 0);
                            }
                            assert_eq!(got[2], want[2], "{what}: instance {i}: plain product");
                        }
                    }
                }
            }
        }
    }
    assert!(up > 0 && wrapped > 0, "{up} round up, {wrapped} wrap");
}

#[test]
fn the_truncation_rounds_up_and_wraps_as_often_as_stated() {
    // Eight secrets z in Z_2^32, the same in all 4096 instances, truncated
    // by 12 bits: one more than ⌊z/2^12⌋ with probability (z mod 2^12)/2^12
    // (0, 1/4096, 1/4, 1/2, 3/4 and 4095/4096; negative ones among them),
    // off by 2^20 with probability |z|/2^32 (about 0, 1/4 and 1/2: the
    // ends of the ring among them). The frequencies stay within 0.05 of
    // them (at most 0.0078 a standard deviation: 6.4 of them), and none
    // rounds up at z mod 2^12 = 0.
    let ring = RingWidth::W32;
    let f = 12;
    let zs: [i128; 8] = [
        5 << 12,
        (7 << 12) + 1,
        (-3 << 12) + (1 << 10),
        1 << 11,
        -(1 << 30) + (3 << 10),
        (1 << 30) - 1,
        -(1 << 31),
        (1 << 31) - 1,
    ];
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", zs.len() as u32);
    let y = b.ring_input("y", zs.len() as u32);
    let z = (0..zs.len()).map(|i| b.fixed_mul(x[i], y[i], f)).collect();
    b.ring_output("z", z);
    let mut c = b.finish();
    c.set_owners(InputOwners::Explicit(vec![0, 1]))
        .expect("owners");
    let instances = 4096;
    let inputs = [
        ring_matrix(&vec![vec![1; zs.len()]; instances], ring),
        ring_matrix(&vec![zs.to_vec(); instances], ring),
    ];
    for reveal_to in [None, Some(1)] {
        let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
        let options = RunOptions::default()
            .with_reveal_to(reveal_to)
            .with_truncation(huddle_engine::Truncation::Probabilistic);
        let results = local("ca2pc", nets, &c, &inputs, options).expect("ca2pc");
        let got = ring_elements(&results[reveal_to.unwrap_or(0)].outputs[0], ring);
        for (g, &z) in zs.iter().enumerate() {
            let (mut up, mut wrapped) = (0u64, 0u64);
            for (i, row) in got.iter().enumerate() {
                let (u, q) = outcome(z, row[g], ring, f, &format!("z = {z}, instance {i}"));
                up += u;
                wrapped += u64::from(q != 0);
            }
            let rate = |n: u64| n as f64 / instances as f64;
            let p_up = (z & ((1 << f) - 1)) as f64 / f64::from(1u32 << f);
            let p_wrap = z.unsigned_abs() as f64 / 2f64.powi(32);
            let stated =
                format!("z = {z}: {up} round up ({p_up} stated), {wrapped} wrap ({p_wrap})");
            assert!((rate(up) - p_up).abs() < 0.05, "{stated}");
            assert!((rate(wrapped) - p_wrap).abs() < 0.05, "{stated}");
        }
    }
}
