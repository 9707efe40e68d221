//! The 4-party malicious protocols against their tables: exact bytes per
//! directed link and phase per multiplication (Harth-Kitzerow–Carle Table I
//! and the specifications of Fantastic Four and Tetrad), verification traffic
//! that does not grow with the circuit, and online rounds = multiplicative
//! depth + a constant for inputs, checks and outputs. (Their outputs on
//! every circuit are checked by the conformance suite, their checks by
//! `tests/faults.rs`.)

use huddle_circuit::random::random_inputs;
use huddle_circuit::{Circuit, CircuitAssembler, Op, PlainEvaluator, ValueSpec};
use huddle_core::{Prg, RingWidth};
use huddle_engine::error::RunError;
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, Accounting, NetProfile, Phase};
use std::time::Duration;

mod common;
use common::{a2b_adder, conversions, dots_or_products, local};

const PARTIES: usize = 4;

/// Per multiplication, elements on each directed link `[from][to]` in the
/// preprocessing (offline) and online phases.
struct Table {
    protocol: &'static str,
    offline: [[u64; 4]; 4],
    online: [[u64; 4]; 4],
}

fn link(entries: &[(usize, usize, u64)]) -> [[u64; 4]; 4] {
    let mut m = [[0; 4]; 4];
    for &(f, t, e) in entries {
        m[f][t] = e;
    }
    m
}

fn tables() -> Vec<Table> {
    vec![
        // Quad: m0 P0 -> P2 and m3 P3 -> P0 offline; m1, m20, m21 online.
        Table {
            protocol: "quad",
            offline: link(&[(0, 2, 1), (3, 0, 1)]),
            online: link(&[(1, 2, 1), (2, 1, 1), (2, 0, 1)]),
        },
        // Quad-Het: P3 silent; m21 and m22 both on P2 -> P0.
        Table {
            protocol: "quad-het",
            offline: link(&[(0, 2, 1)]),
            online: link(&[(1, 2, 1), (2, 1, 1), (2, 0, 2)]),
        },
        // Fantastic Four: m1, m5 P0 -> P3; m2 P1 -> P0; m3 P2 -> P1; m4 P3 -> P2; m6 P1 -> P2.
        Table {
            protocol: "fantastic4",
            offline: [[0; 4]; 4],
            online: link(&[(0, 3, 2), (1, 0, 1), (2, 1, 1), (3, 2, 1), (1, 2, 1)]),
        },
        // Tetrad: t1 P3 -> P0, t2 P3 -> P2 offline; t3, t4, t5 online.
        Table {
            protocol: "tetrad",
            offline: link(&[(3, 0, 1), (3, 2, 1)]),
            online: link(&[(1, 2, 1), (2, 1, 1), (2, 0, 1)]),
        },
    ]
}

/// Inputs x, y, z of `n` wires (owned by P0, P1, P2); `products` per g of
/// x_g y_g (and x_g z_g if 2), all summed into one output wire: the output
/// and inputs are the same whatever `products` is.
fn summed_products(n: u32, products: u32, ring: Option<RingWidth>) -> Circuit {
    let spec = |name: &str, w: u32| match ring {
        None => ValueSpec::bits(name, w),
        Some(_) => ValueSpec::ring(name, w),
    };
    let wires = u64::from(3 * n + 2 * products * n - 1);
    let mut asm =
        CircuitAssembler::new(wires, ring, vec![spec("x", n), spec("y", n), spec("z", n)])
            .expect("valid");
    let (mul, add) = match ring {
        None => (Op::And, Op::Xor),
        Some(_) => (Op::Mul, Op::Add),
    };
    let mut next = 3 * n;
    let mut terms = Vec::new();
    for g in 0..n {
        for (k, other) in [n + g, 2 * n + g].into_iter().enumerate() {
            if k as u32 >= products {
                continue;
            }
            asm.push(mul, &[g, other], &[next]).expect("product");
            terms.push(next);
            next += 1;
        }
    }
    let mut sum = terms[0];
    for &t in &terms[1..] {
        asm.push(add, &[sum, t], &[next]).expect("sum");
        sum = next;
        next += 1;
    }
    asm.finish(vec![(spec("out", 1), vec![sum])])
        .expect("valid")
}

/// Runs `c` on `instances` random instances under `protocol` (every party's
/// output checked) and returns the merged accounting.
fn accounting_of(protocol: &str, c: &Circuit, instances: usize) -> Accounting {
    let inputs = random_inputs(c, &mut Prg::from_seed([31; 16]), instances);
    let nets = memory_networks(PARTIES, &NetProfile::lan(), Duration::from_secs(60));
    let results = local(protocol, nets, c, &inputs, RunOptions::default())
        .unwrap_or_else(|e| panic!("{protocol}: {e}"));
    let want = PlainEvaluator::new(c).evaluate(&inputs).expect("plaintext");
    let mut acc = Accounting::default();
    for r in &results {
        assert_eq!(r.outputs, want, "{protocol}");
        acc.merge(&r.accounting);
    }
    acc
}

fn bytes(acc: &Accounting, phase: Phase) -> [[u64; 4]; 4] {
    let mut m = [[0; 4]; 4];
    for (f, row) in m.iter_mut().enumerate() {
        for (t, b) in row.iter_mut().enumerate() {
            *b = acc.link(phase, f, t).bytes;
        }
    }
    m
}

fn element_bytes(ring: Option<RingWidth>, instances: usize) -> u64 {
    match ring {
        None => instances.div_ceil(64) as u64 * 8,
        Some(r) => instances as u64 * u64::from(r.bits() / 8),
    }
}

#[test]
fn exact_bytes_per_link_and_phase_per_multiplication() {
    let n = 40u32;
    // 203 instances leave packed 16-bit words' last lanes empty.
    let widths = [None, Some(RingWidth::W16), Some(RingWidth::W64)];
    for (instances, ring) in [200usize, 203]
        .into_iter()
        .flat_map(|i| widths.map(|r| (i, r)))
    {
        let one = summed_products(n, 1, ring);
        let two = summed_products(n, 2, ring);
        // The second circuit has n more multiplications, nothing else more.
        let e = u64::from(n) * element_bytes(ring, instances);
        for t in tables() {
            let (a, b) = (
                accounting_of(t.protocol, &one, instances),
                accounting_of(t.protocol, &two, instances),
            );
            for (phase, per_mult) in [(Phase::Offline, t.offline), (Phase::Online, t.online)] {
                let (ba, bb) = (bytes(&a, phase), bytes(&b, phase));
                for f in 0..PARTIES {
                    for to in 0..PARTIES {
                        assert_eq!(
                            bb[f][to] - ba[f][to],
                            per_mult[f][to] * e,
                            "{} {ring:?} {phase:?} {f}->{to}",
                            t.protocol
                        );
                    }
                }
            }
            // Total: Quad 5, Quad-Het 5, Fantastic Four 6, Tetrad 5 elements.
            let total: u64 = t.offline.iter().chain(&t.online).flatten().sum();
            let expected = if t.protocol == "fantastic4" { 6 } else { 5 };
            assert_eq!(total, expected, "{}", t.protocol);
            // Verification: the same digests and verdicts however large the circuit.
            for phase in [Phase::Setup, Phase::Verify] {
                assert_eq!(
                    bytes(&a, phase),
                    bytes(&b, phase),
                    "{} {phase:?}",
                    t.protocol
                );
            }
            // And SHA-256 digests only: a digest (32 bytes) or verdict (8
            // bytes) per message, whatever the batch.
            let verify = b.phase_total(Phase::Verify);
            assert_eq!(
                verify.bytes % 8,
                0,
                "{}: digests and verdicts are whole words",
                t.protocol
            );
            assert!(verify.bytes <= 12 * (6 * 32 + 2 * 8), "{}", t.protocol);
        }
    }
}

#[test]
fn setup_traffic_is_the_joint_key_agreement_exactly() {
    // Every key is drawn by its three holders together
    // (`sharing/subset_keys.rs`): between two holders, per key they share,
    // a 32-byte commitment in round 1, then a 16-byte opening and a 32-byte
    // digest of the key's commitments in round 2. So 80 bytes each way per
    // shared key, in two rounds whatever the circuit, and nothing on a link
    // whose two parties share no key. (The verdict that settles the setup
    // travels in phase `verify`.)
    let k013: &[usize] = &[0, 1, 3];
    let (k023, k123, k012): (&[usize], &[usize], &[usize]) = (&[0, 2, 3], &[1, 2, 3], &[0, 1, 2]);
    // Quad, Quad-Het and Tetrad: K013, K023, K123. Fantastic Four: K¬j for
    // every j, the keys of every three parties.
    let three = [k013, k023, k123];
    let four = [k123, k023, k013, k012];
    for (protocol, keys) in [
        ("quad", &three[..]),
        ("quad-het", &three[..]),
        ("fantastic4", &four[..]),
        ("tetrad", &three[..]),
    ] {
        for (c, instances) in [
            (summed_products(4, 1, None), 64),
            (chain(5, Some(RingWidth::W32)), 300),
        ] {
            let acc = accounting_of(protocol, &c, instances);
            for (f, t) in (0..PARTIES).flat_map(|f| (0..PARTIES).map(move |t| (f, t))) {
                let shared = keys
                    .iter()
                    .filter(|k| f != t && k.contains(&f) && k.contains(&t))
                    .count() as u64;
                assert_eq!(
                    acc.link(Phase::Setup, f, t).bytes,
                    shared * (32 + 16 + 32),
                    "{protocol} {f}->{t}"
                );
            }
            assert_eq!(acc.rounds(Phase::Setup), 2, "{protocol}");
        }
    }
}

#[test]
fn a_dot_product_costs_one_multiplication() {
    // HK-C for Quad, the standard construction for Fantastic Four and
    // Tetrad: every product is a sum of local bilinear terms, so a dot
    // product of length 7 sends what one multiplication sends, and the
    // compare-view digests are the same.
    let (n, l, instances) = (10u32, 7u32, 150usize);
    for ring in [RingWidth::W16, RingWidth::W64] {
        let dots = dots_or_products(n, l, ring, true);
        let products = dots_or_products(n, l, ring, false);
        for t in tables() {
            let a = accounting_of(t.protocol, &dots, instances);
            let b = accounting_of(t.protocol, &products, instances);
            for phase in Phase::ALL {
                assert_eq!(
                    bytes(&a, phase),
                    bytes(&b, phase),
                    "{} {ring} {phase:?}",
                    t.protocol
                );
                assert_eq!(
                    a.rounds(phase),
                    b.rounds(phase),
                    "{} {ring} {phase:?}",
                    t.protocol
                );
            }
        }
    }
}

/// A chain of d multiplications x * y_0 * y_1 ...; x owned by P0, y by P1.
fn chain(d: u32, ring: Option<RingWidth>) -> Circuit {
    let spec = |name: &str, w: u32| match ring {
        None => ValueSpec::bits(name, w),
        Some(_) => ValueSpec::ring(name, w),
    };
    let mut asm =
        CircuitAssembler::new(u64::from(1 + d + d), ring, vec![spec("x", 1), spec("y", d)])
            .expect("valid");
    let op = if ring.is_some() { Op::Mul } else { Op::And };
    let mut acc_wire = 0;
    for j in 0..d {
        let out = 1 + d + j;
        asm.push(op, &[acc_wire, 1 + j], &[out]).expect("product");
        acc_wire = out;
    }
    asm.finish(vec![(spec("z", 1), vec![acc_wire])])
        .expect("valid")
}

#[test]
fn online_rounds_are_the_depth_plus_inputs_and_output() {
    // Inputs 1 round, reveal 1; Quad-Het's P0 lags one round behind P2 at the end.
    for (protocol, extra) in [
        ("quad", 2),
        ("quad-het", 3),
        ("fantastic4", 2),
        ("tetrad", 3),
    ] {
        for ring in [None, Some(RingWidth::W64)] {
            for d in [1u32, 4, 9] {
                let acc = accounting_of(protocol, &chain(d, ring), 64);
                assert_eq!(
                    acc.rounds(Phase::Online),
                    d + extra,
                    "{protocol} {ring:?} depth {d}"
                );
            }
        }
    }
}

/// Every party's result and counters, each party on its own thread.
fn run_each(
    protocol: &str,
    c: &Circuit,
    options: RunOptions,
) -> Vec<(Result<Vec<huddle_circuit::BitMatrix>, RunError>, Accounting)> {
    let inputs = random_inputs(c, &mut Prg::from_seed([32; 16]), 64);
    let run = common::request(protocol, PARTIES, c, options).expect("valid request");
    let nets = memory_networks(PARTIES, &NetProfile::lan(), Duration::from_secs(60));
    run.local_each(nets, &inputs)
        .expect("the run starts")
        .into_iter()
        .map(|o| (o.result, o.accounting))
        .collect()
}

fn merged(runs: &[(Result<Vec<huddle_circuit::BitMatrix>, RunError>, Accounting)]) -> Accounting {
    let mut acc = Accounting::default();
    for (_, a) in runs {
        acc.merge(a);
    }
    acc
}

#[test]
fn verify_every_n_layers_adds_one_constant_check_per_n_layers() {
    let c = chain(8, None);
    for protocol in ["quad", "quad-het", "fantastic4", "tetrad"] {
        let with = |n: Option<usize>| {
            let runs = run_each(protocol, &c, RunOptions::default().with_verify_every(n));
            for (r, _) in &runs {
                assert!(r.is_ok(), "{protocol} every {n:?}: {r:?}");
            }
            merged(&runs).phase_total(Phase::Verify).bytes
        };
        let base = with(None);
        // Checkpoints after layers n, 2n, .. before the last (the final check follows it).
        let (every1, every3) = (with(Some(1)) - base, with(Some(3)) - base);
        assert!(every1 > 0, "{protocol}");
        assert_eq!(every1 % 7, 0, "{protocol}: 7 checkpoints of equal size");
        assert_eq!(every3, 2 * (every1 / 7), "{protocol}: 2 checkpoints");
    }
}

#[test]
fn a_checkpoint_stops_a_deviation_before_the_rest_of_the_circuit() {
    let c = chain(8, Some(RingWidth::W64));
    for protocol in ["quad", "fantastic4", "tetrad"] {
        let p: huddle_engine::Protocol = protocol.parse().expect("protocol");
        // The first online multiplication message of the protocol, sent by party 1 or 2.
        let (sender, tag) = p
            .descriptor()
            .messages
            .iter()
            .enumerate()
            .find_map(|(i, t)| {
                let online = ["m1", "m2", "m3", "t3"].contains(&t.name);
                online.then(|| (t.senders[0], i))
            })
            .expect("a multiplication message");
        let fault = huddle_engine::fault::Fault {
            party: sender,
            kind: huddle_engine::fault::FaultKind::AddError,
            message: Some(tag),
            seed: 5,
        };
        let online_bytes = |every: Option<usize>| {
            let runs = run_each(
                protocol,
                &c,
                RunOptions::default()
                    .with_fault(Some(fault))
                    .with_verify_every(every),
            );
            for (q, (r, _)) in runs.iter().enumerate() {
                if q != sender {
                    let e = r.as_ref().expect_err("an honest party aborts");
                    assert!(
                        matches!(e, RunError::Abort { .. }),
                        "{protocol} party {q}: {e}"
                    );
                }
            }
            merged(&runs).phase_total(Phase::Online).bytes
        };
        // Checked after every layer, the run stops after the first: at
        // least 6 of the 8 layers' messages (3 or more elements of 64 x 8
        // bytes each) are never sent, unlike in the run checked at the end.
        let (early, late) = (online_bytes(Some(1)), online_bytes(None));
        assert!(
            late >= early + 6 * 3 * 64 * 8,
            "{protocol}: {early} vs {late} online bytes"
        );
    }
}

#[test]
fn verify_every_is_refused_where_it_means_nothing() {
    let c = chain(2, None);
    let every = |n| RunOptions::default().with_verify_every(Some(n));
    assert!(common::request("quad", 4, &c, every(2)).is_ok());
    for (protocol, parties, n) in [
        ("quad", 4, 0),
        ("trio", 3, 1),
        ("ttp", 4, 1),
        ("bgw2-mal", 4, 1),
    ] {
        let e = common::request(protocol, parties, &c, every(n)).expect_err("refused");
        assert!(
            matches!(e, huddle_engine::error::RunError::Input(_)),
            "{protocol} every {n}: {e}"
        );
    }
}

/// How a protocol converts and opens, link by link: the split's messages
/// (phase, from, to; one target element per term bit each), P0's input to
/// the others, and for each receiver of an output the party that sends it
/// the missing component and the one that sends a digest of it.
struct ConversionLinks {
    protocol: &'static str,
    split: &'static [(Phase, usize, usize)],
    input_to: [usize; 2],
    /// (receiver, sender, verifier).
    reveal: [(usize, usize, usize); 4],
}

fn conversion_links() -> [ConversionLinks; 4] {
    // Quad: P0 -> P2 the share of -x0 (offline), P2 -> P0 a + x0 masked.
    let quad = ConversionLinks {
        protocol: "quad",
        split: &[(Phase::Offline, 0, 2), (Phase::Online, 2, 0)],
        input_to: [1, 2],
        reveal: [(0, 1, 2), (1, 0, 3), (2, 3, 0), (3, 2, 1)],
    };
    let het = ConversionLinks {
        protocol: "quad-het",
        ..quad
    };
    [
        quad,
        het,
        // Fantastic Four: x0 + x1's share P2 -> P0, x2 + x3's P0 -> P2.
        ConversionLinks {
            protocol: "fantastic4",
            split: &[(Phase::Online, 2, 0), (Phase::Online, 0, 2)],
            input_to: [1, 3],
            reveal: [(0, 3, 1), (1, 0, 2), (2, 1, 3), (3, 2, 0)],
        },
        // Tetrad: m - λ1 masked P0 -> P2, the share of -(λ2 + λ3) P3 -> P0
        // (offline).
        ConversionLinks {
            protocol: "tetrad",
            split: &[(Phase::Online, 0, 2), (Phase::Offline, 3, 0)],
            input_to: [1, 2],
            reveal: [(0, 3, 1), (1, 3, 0), (2, 3, 0), (3, 0, 1)],
        },
    ]
}

#[test]
fn conversions_cost_two_terms_and_the_adder_on_every_link() {
    // A2B (HK-C Figure 15 for Quad; the module docs for the others) and
    // Bit2A after it: every byte on every link in the offline and online
    // phases is the split's terms, the adder's ANDs (B2A: one ring
    // multiplication per bit) at the protocol's table prices, P0's input
    // and the outputs (the missing component, and a 32-byte digest).
    let (m, instances) = (5u32, 200usize);
    for ring in [RingWidth::W16, RingWidth::W64] {
        let k = u64::from(ring.bits());
        let a2b = conversions(m, ring, false);
        let (ands, depth) = a2b_adder(&a2b);
        // One bit of every conversion: the conversions' instances side by side, packed.
        let bit = element_bytes(None, m as usize * instances);
        // One output bit of every conversion: a slot of its own each.
        let out_bit = u64::from(m) * element_bytes(None, instances);
        let e = u64::from(m) * element_bytes(Some(ring), instances); // one element of every conversion
        let inject = conversions(m, ring, true);
        for (t, links) in tables().into_iter().zip(conversion_links()) {
            assert_eq!(t.protocol, links.protocol);
            // (circuit, split bytes per message, multiplication bytes,
            // output bytes per receiver)
            for (c, term, mults, out) in [
                (&a2b, k * bit, ands * bit, k * out_bit),
                (&inject, k * bit + e, ands * bit + e, e),
            ] {
                let acc = accounting_of(t.protocol, c, instances);
                let what = format!("{} {ring} inject {}", t.protocol, c == &inject);
                for (phase, table) in [(Phase::Offline, t.offline), (Phase::Online, t.online)] {
                    let mut want = [[0u64; 4]; 4];
                    for f in 0..PARTIES {
                        for to in 0..PARTIES {
                            want[f][to] = table[f][to] * mults;
                        }
                    }
                    for &(p, f, to) in links.split {
                        if p == phase {
                            want[f][to] += term;
                        }
                    }
                    if phase == Phase::Online {
                        for to in links.input_to {
                            want[0][to] += e;
                        }
                        for (receiver, sender, verifier) in links.reveal {
                            want[sender][receiver] += out;
                            want[verifier][receiver] += 32;
                        }
                    }
                    assert_eq!(bytes(&acc, phase), want, "{what} {phase:?}");
                }
                // Input, the adder, output; B2A one multiplication more.
                // A2B's split costs no round here: Quad's P0 only checks
                // (P2's term travels with the adder's first layer), and the
                // other senders know their terms of P0's input without
                // waiting for it (P0 deals; Fantastic Four's P2 holds only
                // key-drawn shares of it). B2A's split of computed bits
                // costs Fantastic Four and Tetrad a round (P2 and P0 wait
                // for it), not Quad. The protocols' own lags as in their
                // chains.
                let split = u32::from(c == &inject && !t.protocol.starts_with("quad"));
                let lag = u32::from(t.protocol == "quad-het" || t.protocol == "tetrad");
                let more = u32::from(c == &inject);
                assert_eq!(
                    acc.rounds(Phase::Online),
                    1 + depth + split + more + 1 + lag,
                    "{what}"
                );
            }
        }
    }
}
