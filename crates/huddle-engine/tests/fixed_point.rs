//! Fixed-point products with probabilistic truncation fused into the
//! multiplication (`Truncation::Probabilistic`, HK-C Figure 11 for Trio and
//! the same idea for ASTRA and MFI-3PC): the error bound and the stated
//! probability of a wrap, the communication of a plain multiplication, and
//! refusals. Exact truncation (the default) is checked
//! against the plaintext evaluator by the conformance suite.

use huddle_circuit::builder::Builder;
use huddle_circuit::{BitMatrix, Circuit, InputOwners, Op};
use huddle_core::{Prg, RingWidth};
use huddle_engine::{Preprocess, Randomness, RunOptions, Truncation};
use huddle_net::{memory_networks, Accounting, LinkStats, NetProfile, Phase};
use std::time::Duration;

mod common;
use common::{assert_looks_uniform, local, request};

/// Every protocol whose row of the protocol table claims fused
/// truncation, with each preprocessing schedule it has (the table says
/// which: nothing here restates it).
fn fused() -> Vec<(&'static str, Preprocess)> {
    let mut out = Vec::new();
    for protocol in huddle_engine::protocol::Protocol::ALL {
        let d = protocol.descriptor();
        if d.fused_truncation {
            out.push((d.name, Preprocess::Interleaved));
            if d.separate_preprocessing {
                out.push((d.name, Preprocess::Separate));
            }
        }
    }
    out
}

fn parties(protocol: &str) -> usize {
    if ["quad", "quad-het", "fantastic4", "tetrad"].contains(&protocol) {
        4
    } else {
        3
    }
}

const F: u8 = 8;

/// x (party 0) and y (party 1), four elements each. Outputs: x0·y0 >> f
/// (a fixed-point product), (x1..x3)·(y1..y3) >> f (a dot product), that
/// first product times y3 >> f (a second truncation on truncated shares),
/// and x2·y2 (a plain product in the same layer as the first two). With
/// `dot` the truncating gates are plain DOT gates instead (the same shape).
fn products(ring: RingWidth, dot: bool) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 4);
    let y = b.ring_input("y", 4);
    let op = if dot { Op::Dot } else { Op::DotTrunc(F) };
    let p = b.ring_op(op, &[x[0], y[0]]);
    let d = b.ring_op(op, &[x[1], x[2], x[3], y[1], y[2], y[3]]);
    let q = b.ring_op(op, &[p, y[3]]);
    let plain = b.ring_op(Op::Mul, &[x[2], y[2]]);
    b.ring_output("z", vec![p, d, q, plain]);
    let mut c = b.finish();
    c.set_owners(InputOwners::Explicit(vec![0, 1]))
        .expect("owners");
    c
}

fn signed(v: u64, ring: RingWidth) -> i128 {
    let k = ring.bits();
    let v = i128::from(v & ring.mask());
    if v >= 1 << (k - 1) {
        v - (1 << k)
    } else {
        v
    }
}

/// `instances` rows of `n` random signed elements of magnitude < 2^bits.
fn values(prg: &mut Prg, instances: usize, n: usize, bits: u32) -> Vec<Vec<i128>> {
    (0..instances)
        .map(|_| {
            (0..n)
                .map(|_| {
                    let m = (prg.next_u64() % (1 << bits)) as i128;
                    if prg.next_u64() & 1 == 1 {
                        -m
                    } else {
                        m
                    }
                })
                .collect()
        })
        .collect()
}

fn matrix(rows: &[Vec<i128>], ring: RingWidth) -> BitMatrix {
    let k = ring.bits() as usize;
    let mut m = BitMatrix::zeros(rows.len(), rows[0].len() * k);
    for (i, row) in rows.iter().enumerate() {
        for (j, &e) in row.iter().enumerate() {
            m.row_mut(i)[j * k / 64] |= ((e as u64) & ring.mask()) << (j * k % 64);
        }
    }
    m
}

fn elements(m: &BitMatrix, ring: RingWidth) -> Vec<Vec<u64>> {
    let k = ring.bits() as usize;
    (0..m.rows())
        .map(|i| {
            (0..m.cols() / k)
                .map(|j| (m.row(i)[j * k / 64] >> (j * k % 64)) & ring.mask())
                .collect()
        })
        .collect()
}

fn options(pre: Preprocess, truncation: Truncation, seed: u8) -> RunOptions {
    RunOptions::default()
        .with_preprocess(pre)
        .with_truncation(truncation)
        .with_randomness(Randomness::Seeded([seed; 16]))
}

fn run(
    protocol: &str,
    options: RunOptions,
    c: &Circuit,
    inputs: &[BitMatrix],
) -> (Vec<Vec<BitMatrix>>, Accounting) {
    let nets = memory_networks(
        parties(protocol),
        &NetProfile::lan(),
        Duration::from_secs(60),
    );
    let results =
        local(protocol, nets, c, inputs, options).unwrap_or_else(|e| panic!("{protocol}: {e}"));
    let mut acc = Accounting::default();
    for r in &results {
        acc.merge(&r.accounting);
    }
    (results.into_iter().map(|r| r.outputs).collect(), acc)
}

/// How a truncated output compares with ⌊v / 2^f⌋.
#[derive(Default, Debug)]
struct Errors {
    /// Exactly ⌊v / 2^f⌋.
    exact: usize,
    /// One more.
    plus_one: usize,
    /// Off by 2^(k−f) (+0 or +1): the masked sum wrapped around 2^k.
    wrapped: usize,
    /// Σ |v| / 2^k over the products: the expected number of wraps (every
    /// protocol's stated probability that its masked value wraps).
    expected_wraps: f64,
}

impl Errors {
    fn add(&mut self, v: i128, got: u64, ring: RingWidth, what: &str) {
        let k = ring.bits();
        let want = v >> F; // floor division
        let diff = (got.wrapping_sub(want as u64)) & ring.mask();
        let wrap = 1u64 << (k - u32::from(F));
        self.expected_wraps += v.unsigned_abs() as f64 / 2f64.powi(k as i32);
        match diff {
            0 => self.exact += 1,
            1 => self.plus_one += 1,
            d if [wrap, wrap + 1, wrap.wrapping_neg(), wrap.wrapping_neg() + 1]
                .iter()
                .any(|&w| w & ring.mask() == d) =>
            {
                self.wrapped += 1
            }
            d => panic!("{what}: {got:#x} is {d:#x} away from ⌊{v} / 2^{F}⌋"),
        }
    }
}

/// Runs the product circuit on `instances` random instances with factors
/// below 2^bits and sorts every truncated output by its error.
fn truncation_errors(
    protocol: &str,
    pre: Preprocess,
    ring: RingWidth,
    instances: usize,
    bits: u32,
    seed: u8,
) -> Errors {
    let c = products(ring, false);
    let mut prg = Prg::from_seed([seed; 16]);
    let x = values(&mut prg, instances, 4, bits);
    let y = values(&mut prg, instances, 4, bits);
    let inputs = [matrix(&x, ring), matrix(&y, ring)];
    let (outs, _) = run(
        protocol,
        options(pre, Truncation::Probabilistic, seed),
        &c,
        &inputs,
    );
    for o in &outs[1..] {
        // ca2pc's dealer learns nothing.
        if !(protocol == "ca2pc" && o.is_empty()) {
            assert_eq!(
                o, &outs[0],
                "{protocol}: every party learns the same outputs"
            );
        }
    }
    let z = elements(&outs[0][0], ring);
    let mut errors = Errors::default();
    for i in 0..instances {
        let (x, y, z) = (&x[i], &y[i], &z[i]);
        let what = format!("{protocol} {pre:?} {ring} instance {i}");
        errors.add(x[0] * y[0], z[0], ring, &what);
        errors.add(x[1] * y[1] + x[2] * y[2] + x[3] * y[3], z[1], ring, &what);
        // The second truncation takes the first one's output as it came.
        errors.add(signed(z[0], ring) * y[3], z[2], ring, &what);
        assert_eq!(
            z[3],
            ((x[2] * y[2]) as u64) & ring.mask(),
            "{what}: plain product"
        );
    }
    errors
}

#[test]
fn fused_truncation_is_off_by_at_most_one_away_from_the_wrap() {
    // Products far below 2^k (the second truncation's product is below
    // 2^(3·bits − f + 2)): a wrap has probability below 2^-20 per gate, and
    // the seeded runs have none; both +0 and +1 occur (the low bits of the
    // mask carry), so the truncation is really probabilistic.
    for (protocol, pre) in fused() {
        for (ring, bits) in [(RingWidth::W32, 5), (RingWidth::W64, 16)] {
            let e = truncation_errors(protocol, pre, ring, 700, bits, 5);
            assert_eq!(e.wrapped, 0, "{protocol} {ring}: {e:?}");
            assert!(
                e.exact > 300 && e.plus_one > 300,
                "{protocol} {ring}: {e:?}"
            );
        }
    }
}

#[test]
fn fused_truncation_wraps_as_often_as_the_stated_probability() {
    // In Z_2^16 with factors below 2^7 a product's wrap has probability
    // |v| / 2^16 (about 1 % on average): the count over 3 × 3000 truncations stays
    // within a few standard deviations of its expectation, and every other
    // output is ⌊v / 2^f⌋ or one more.
    for (protocol, pre) in fused() {
        let e = truncation_errors(protocol, pre, RingWidth::W16, 3000, 7, 9);
        let (seen, expected) = (e.wrapped as f64, e.expected_wraps);
        assert!(expected > 40.0, "{e:?}");
        let sd = expected.sqrt();
        assert!(
            (seen - expected).abs() < 5.0 * sd,
            "{protocol} {pre:?}: {seen} wraps, {expected:.1} expected: {e:?}"
        );
    }
}

/// Every link's bytes, messages and rounds in every phase, and each
/// phase's rounds.
fn traffic(acc: &Accounting) -> Vec<(Phase, usize, usize, LinkStats, u32)> {
    let mut t = Vec::new();
    for phase in Phase::ALL {
        for from in 0..4 {
            for to in 0..4 {
                t.push((
                    phase,
                    from,
                    to,
                    acc.link(phase, from, to),
                    acc.rounds(phase),
                ));
            }
        }
    }
    t
}

#[test]
fn a_truncating_product_costs_a_plain_one_except_as_stated() {
    // The same circuit with DOT gates in place of DOTTR: identical bytes on
    // every link in every phase, identical messages and rounds, except
    // where a protocol's module docs state more (Replicated, Fantastic
    // Four, Quad: rounds; ca2pc: bytes, messages and rounds).
    let ring = RingWidth::W32;
    let mut prg = Prg::from_seed([3; 16]);
    let instances = 100;
    let x = values(&mut prg, instances, 4, 7);
    let y = values(&mut prg, instances, 4, 7);
    let inputs = [matrix(&x, ring), matrix(&y, ring)];
    for (protocol, pre) in fused() {
        let (_, fused) = run(
            protocol,
            options(pre, Truncation::Probabilistic, 1),
            &products(ring, false),
            &inputs,
        );
        let (_, plain) = run(
            protocol,
            options(pre, Truncation::Probabilistic, 1),
            &products(ring, true),
            &inputs,
        );
        if protocol == "ca2pc" {
            assert_ca2pc_truncation_cost(&fused, &plain, instances as u64);
        } else if protocol == "replicated" || protocol == "fantastic4" {
            // Replicated and Fantastic Four move the same elements per
            // product (three, six) to other links (module docs), one more
            // round per truncating layer (two here; Fantastic Four's second
            // round overlaps the next layer's first, since P1 and P3
            // receive nothing in it: one more in all); the bytes of every
            // phase are a plain product's.
            for phase in Phase::ALL {
                let bytes = |a: &Accounting| a.phase_total(phase).bytes;
                assert_eq!(bytes(&fused), bytes(&plain), "{protocol} {phase:?}");
                let more = if protocol == "replicated" { 2 } else { 1 };
                let extra = if phase == Phase::Online { more } else { 0 };
                assert_eq!(
                    fused.rounds(phase),
                    plain.rounds(phase) + extra,
                    "{phase:?}"
                );
            }
        } else {
            // Except at Quad: P2's m21 = (ab + e)^t + w needs the exchange
            // (Figure 12, step 4), so the last layer's follows it (one
            // more online round) and earlier layers' go with the next
            // exchange; the link P2 -> P0 then counts its rounds
            // differently, same bytes.
            let quad = protocol == "quad";
            let shape = |a: &Accounting, extra: u32| -> Vec<_> {
                traffic(a)
                    .into_iter()
                    .map(|(phase, from, to, mut link, rounds)| {
                        if quad {
                            link.rounds = 0;
                        }
                        let extra = if phase == Phase::Online { extra } else { 0 };
                        (phase, from, to, link, rounds + extra)
                    })
                    .collect()
            };
            assert_eq!(
                shape(&fused, 0),
                shape(&plain, u32::from(quad)),
                "{protocol} {pre:?}"
            );
        }
        // And exact truncation pays for its adders (where it runs: it
        // needs conversions).
        let converts = huddle_engine::Protocol::ALL
            .into_iter()
            .any(|p| p.descriptor().name == protocol && p.descriptor().conversions);
        if !converts {
            continue;
        }
        let (_, exact) = run(
            protocol,
            options(pre, Truncation::Exact, 1),
            &products(ring, false),
            &inputs,
        );
        let total = |a: &Accounting| traffic(a).iter().map(|t| t.3.bytes).sum::<u64>();
        assert!(
            exact.rounds(Phase::Online) > fused.rounds(Phase::Online) + 2
                && total(&exact) > 10 * total(&fused),
            "{protocol} {pre:?}"
        );
    }
}

/// ca2pc's truncation (`sharing/client_aided/truncation.rs`), outputs to
/// both computing parties, so P1 opens c = z + r: per truncated element P0
/// sends P1 its share of c (one element, a message per layer), and the
/// dealer sends P1 t¹ (one element) in the layer's message of
/// corrections. The product circuit truncates two gates in its first
/// layer and one in its second; elements of Z_2^32.
fn assert_ca2pc_truncation_cost(fused: &Accounting, plain: &Accounting, instances: u64) {
    let element = 4 * instances;
    for ((phase, from, to, f, _), (_, _, _, p, _)) in traffic(fused).into_iter().zip(traffic(plain))
    {
        // Bytes and messages more than the plain product's. P0 sends its
        // share of c after receiving P1's operands and goes on to the next
        // layer's operands (or its output share) without waiting, its own
        // share of the result being −t⁰: the same bursts of sends on every
        // link.
        let (bytes, messages) = match (phase, from, to) {
            (Phase::Online, 0, 1) => (3 * element, 2),
            (Phase::Offline, 2, 1) => (3 * element, 0),
            _ => (0, 0),
        };
        let what = format!("ca2pc {phase:?} {from}->{to}");
        assert_eq!(f.bytes, p.bytes + bytes, "{what}: bytes");
        assert_eq!(f.messages, p.messages + messages, "{what}: messages");
        assert_eq!(f.rounds, p.rounds, "{what}: bursts");
    }
    // P1's next message waits for P0's share of c: products, c, products,
    // c, outputs (P0's go with its second share of c) take 5 rounds, one
    // more per truncating layer.
    assert_eq!(plain.rounds(Phase::Online), 3);
    assert_eq!(fused.rounds(Phase::Online), 5);
    for phase in Phase::ALL {
        if phase != Phase::Online {
            assert_eq!(fused.rounds(phase), plain.rounds(phase), "{phase:?}");
        }
    }
}

#[test]
fn outputs_under_other_masks_agree_within_one() {
    // The same inputs under two seeds (all masks differ): the truncated
    // outputs move by at most one, the masks' carry into the kept bits.
    let ring = RingWidth::W64;
    let mut prg = Prg::from_seed([4; 16]);
    let x = values(&mut prg, 64, 4, 14);
    let y = values(&mut prg, 64, 4, 14);
    let inputs = [matrix(&x, ring), matrix(&y, ring)];
    let c = products(ring, false);
    for (protocol, pre) in fused() {
        let (a, _) = run(
            protocol,
            options(pre, Truncation::Probabilistic, 1),
            &c,
            &inputs,
        );
        let (b, _) = run(
            protocol,
            options(pre, Truncation::Probabilistic, 2),
            &c,
            &inputs,
        );
        let (za, zb) = (elements(&a[0][0], ring), elements(&b[0][0], ring));
        for (ra, rb) in za.iter().zip(&zb) {
            // Not the second truncation: its input moved by one already.
            for (u, v) in [(ra[0], rb[0]), (ra[1], rb[1]), (ra[3], rb[3])] {
                let d = u.wrapping_sub(v);
                assert!(
                    d <= 1 || d.wrapping_neg() <= 1,
                    "{protocol}: {u:#x} vs {v:#x}"
                );
            }
        }
    }
}

#[test]
fn every_word_a_party_receives_around_truncating_products_looks_uniform() {
    // 64 fixed-point products of x (P1) and y (P2) that are the same in
    // every instance: all that varies is randomness, so every message any
    // party receives (inputs, the multiplication, outputs, the helper's
    // preprocessing) must look uniform: each bit set in about half of its
    // words, the words nearly all distinct. A message carrying a value not
    // masked at all (constant here) fails it; a mask the receiver happens
    // to know is beyond what it can see (the module docs derive those).
    let ring = RingWidth::W32;
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 64);
    let y = b.ring_input("y", 64);
    let z = (0..64).map(|i| b.fixed_mul(x[i], y[i], F)).collect();
    b.ring_output("z", z);
    let c = b.finish();
    let instances = 512;
    let constant = |v: i128| vec![vec![v; 64]; instances];
    let inputs = [
        matrix(&constant(3 << F), ring),
        matrix(&constant(-5 << F), ring),
    ];
    for (protocol, pre) in fused() {
        // x and y from P1 and P2 (P0 and P1 on ca2pc, whose P2 deals).
        let owners = if protocol == "ca2pc" { [0, 1] } else { [1, 2] };
        let mut c = c.clone();
        c.set_owners(InputOwners::Explicit(owners.to_vec()))
            .expect("owners");
        let mut nets = memory_networks(
            parties(protocol),
            &NetProfile::lan(),
            Duration::from_secs(60),
        );
        let views: Vec<_> = nets.iter_mut().map(|n| n.record_received()).collect();
        local(
            protocol,
            nets,
            &c,
            &inputs,
            options(pre, Truncation::Probabilistic, 7),
        )
        .unwrap_or_else(|e| panic!("{protocol}: {e}"));
        let checked = assert_views_look_uniform(&format!("{protocol} {pre:?}"), &views);
        assert!(checked >= 4, "{protocol}: {checked} messages");
    }
}

/// Asserts that every message in the offline and online phases of `views`
/// looks uniform as 32-bit words: each bit set in about half of them, the
/// words nearly all distinct (not setup's keys nor verify's digests and
/// verdicts). Returns how many messages it checked.
fn assert_views_look_uniform(what: &str, views: &[huddle_net::Transcript]) -> usize {
    let mut checked = 0;
    for (party, view) in views.iter().enumerate() {
        let view = view.lock().expect("transcript");
        for m in view
            .iter()
            .filter(|m| matches!(m.phase, Phase::Offline | Phase::Online))
        {
            let what = format!("{what}: P{party} from P{} ({:?})", m.from, m.phase);
            // ASTRA's masked value of a truncated product is u^t itself,
            // uniform on [0, 2^(k-f)) (its top f bits are 0 whatever v is).
            let top_clear = m
                .payload
                .chunks_exact(4)
                .all(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) >> (32 - F) == 0);
            let bits = if top_clear { 32 - u32::from(F) } else { 32 };
            assert_looks_uniform(&what, &m.payload, 4, bits, 0.99);
            checked += 1;
        }
    }
    checked
}

#[test]
fn every_word_a_party_receives_around_conversions_looks_uniform() {
    // A2B, LTZ and B2A of values that are the same in every instance, on
    // every protocol that converts: the split's terms, the adder's
    // messages, the outputs must all look uniform to whoever receives them.
    let ring = RingWidth::W32;
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 16);
    let mut bits_out = Vec::new();
    let mut ring_out = Vec::new();
    for &w in &x {
        let bits = b.to_bits(w);
        ring_out.push(b.bit_to_ring(bits[5]));
        bits_out.push(bits[9]);
        bits_out.push(b.ltz(w));
    }
    b.output("bits", bits_out);
    b.ring_output("ring", ring_out);
    let mut c = b.finish();
    c.set_owners(InputOwners::Explicit(vec![1]))
        .expect("owners");
    let instances = 1024;
    let inputs = [matrix(&vec![vec![-12345; 16]; instances], ring)];
    for protocol in huddle_engine::Protocol::ALL {
        let d = protocol.descriptor();
        if d.family != huddle_engine::protocol::Family::Sharing || !d.conversions {
            continue;
        }
        let mut nets =
            memory_networks(parties(d.name), &NetProfile::lan(), Duration::from_secs(60));
        let views: Vec<_> = nets.iter_mut().map(|n| n.record_received()).collect();
        local(
            d.name,
            nets,
            &c,
            &inputs,
            options(Preprocess::Interleaved, Truncation::Exact, 9),
        )
        .unwrap_or_else(|e| panic!("{protocol}: {e}"));
        let checked = assert_views_look_uniform(d.name, &views);
        assert!(checked >= 8, "{protocol}: {checked} messages");
    }
}

#[test]
fn probabilistic_truncation_is_refused_where_there_is_none() {
    let c = products(RingWidth::W32, false);
    // Every secret-sharing protocol has it; garbling has none (the message
    // lists those that do).
    let e = request(
        "bgw3",
        3,
        &c,
        RunOptions::default().with_truncation(Truncation::Probabilistic),
    )
    .expect_err("bgw3 accepted")
    .to_string();
    assert!(
        e.contains("no fused probabilistic truncation")
            && e.contains("trio")
            && e.contains("fantastic4")
            && e.contains("tetrad"),
        "{e}"
    );
    // The plaintext evaluator truncates exactly whatever is asked.
    request(
        "ttp",
        3,
        &c,
        RunOptions::default().with_truncation(Truncation::Probabilistic),
    )
    .expect("ttp");
}

#[test]
fn a_trio_evaluator_that_learns_a_truncated_output_learns_one_comparison() {
    // The helper protocols' evaluators know u = z + e (Trio's P1: its c2,
    // sent to P2, and P2's m2, received: u = m2 − c2), so an evaluator that
    // learns a truncated output learns its rounding [u mod 2^f < e mod 2^f]
    // = [z mod 2^f > u mod 2^f], one comparison of the secret's low bits
    // with a value it knows; the helper, which knows e, learns whether they
    // carry when added to e's. No --reveal-to avoids both (docs/circuit-
    // format.md). Here z = 3 · (1000·2^8 + 2^7) in Z_2^64, outputs to P1.
    let ring = RingWidth::W64;
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.ring_input("x", 1);
    let y = b.ring_input("y", 1);
    let z = b.fixed_mul(x[0], y[0], F);
    b.ring_output("z", vec![z]);
    let mut c = b.finish();
    c.set_owners(InputOwners::Explicit(vec![1, 2]))
        .expect("owners");
    let instances = 1024;
    let (x, y) = (3i128, (1000i128 << F) + (1 << (F - 1)));
    let inputs = [
        matrix(&vec![vec![x]; instances], ring),
        matrix(&vec![vec![y]; instances], ring),
    ];
    let mut nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
    let views: Vec<_> = nets.iter_mut().map(|n| n.record_received()).collect();
    let options =
        options(Preprocess::Interleaved, Truncation::Probabilistic, 13).with_reveal_to(Some(1));
    let results = local("trio", nets, &c, &inputs, options).expect("trio");
    let got = elements(&results[1].outputs[0], ring);
    // Online, P1 and P2 each receive the other's masked input, then the
    // product's message.
    let product = |to: usize, from: usize| -> Vec<u64> {
        let view = views[to].lock().expect("transcript");
        let online: Vec<_> = view
            .iter()
            .filter(|m| m.phase == Phase::Online && m.from == from)
            .collect();
        online[1]
            .payload
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
            .collect()
    };
    let (m2, c2) = (product(1, 2), product(2, 1));
    let v = x * y;
    let low = (1u64 << F) - 1;
    let mut up = 0;
    for i in 0..instances {
        let rounding = got[i][0].wrapping_sub((v >> F) as u64);
        assert!(rounding <= 1, "instance {i}: {rounding:#x}");
        let u = m2[i].wrapping_sub(c2[i]);
        assert_eq!(
            rounding,
            u64::from(v as u64 & low > u & low),
            "instance {i}"
        );
        up += rounding;
    }
    assert!(
        up > 0 && up < instances as u64,
        "{up} of {instances} round up"
    );
}
