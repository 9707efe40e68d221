//! The secret-sharing protocols against their specifications: exact
//! communication per link and phase and exact round counts, what each party
//! receives, threads and slices, refusals. (Their outputs on every circuit
//! are checked by the conformance suite, `tests/conformance.rs`.)

use huddle_circuit::random::{random_circuit, random_inputs, RandomCircuitSpec};
use huddle_circuit::{
    BitMatrix, Circuit, CircuitAssembler, Layering, Op, PlainEvaluator, ValueSpec,
};
use huddle_core::{Prg, RingWidth};
use huddle_engine::error::{Refusal, RunError};
use huddle_engine::{Preprocess, RunOptions};
use huddle_net::{memory_networks, Accounting, LinkStats, NetProfile, Phase};
use std::time::Duration;

mod common;
use common::{a2b_adder, conversions, dots_or_products, local, request};

const SECURE: [&str; 4] = ["replicated", "astra", "trio", "mfi3"];

/// Every protocol with every preprocessing schedule it has.
fn variants() -> Vec<(&'static str, Preprocess)> {
    let mut v = Vec::new();
    for p in SECURE {
        v.push((p, Preprocess::Interleaved));
        if huddle_engine::Protocol::parse(p).is_ok_and(|p| p.descriptor().separate_preprocessing) {
            v.push((p, Preprocess::Separate));
        }
    }
    v
}

fn run3(
    protocol: &str,
    pre: Preprocess,
    circuit: &Circuit,
    inputs: &[BitMatrix],
) -> (Vec<Vec<BitMatrix>>, Accounting) {
    let options = RunOptions::default().with_preprocess(pre);
    run3_with(protocol, options, circuit, inputs)
}

fn run3_with(
    protocol: &str,
    options: RunOptions,
    circuit: &Circuit,
    inputs: &[BitMatrix],
) -> (Vec<Vec<BitMatrix>>, Accounting) {
    let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
    let results = local(protocol, nets, circuit, inputs, options)
        .unwrap_or_else(|e| panic!("{protocol}: {e}"));
    let mut acc = Accounting::default();
    for r in &results {
        acc.merge(&r.accounting);
    }
    (results.into_iter().map(|r| r.outputs).collect(), acc)
}

/// `n` independent multiplications, each of `l` inputs: input value j (of
/// `n` wires) is owned by party j mod 3.
fn independent_products(n: u32, l: u32, ring: Option<RingWidth>) -> Circuit {
    let spec = |j: u32| match ring {
        None => ValueSpec::bits(format!("x{j}"), n),
        Some(_) => ValueSpec::ring(format!("x{j}"), n),
    };
    let mut asm = CircuitAssembler::new(u64::from(n * (l + 1)), ring, (0..l).map(spec).collect())
        .expect("valid");
    let op = if ring.is_some() { Op::Mul } else { Op::And };
    for g in 0..n {
        let ins: Vec<u32> = (0..l).map(|j| j * n + g).collect();
        asm.push(op, &ins, &[l * n + g]).expect("product");
    }
    let out = match ring {
        None => ValueSpec::bits("z", n),
        Some(_) => ValueSpec::ring("z", n),
    };
    asm.finish(vec![(out, (l * n..(l + 1) * n).collect())])
        .expect("valid")
}

/// Bytes of one element for `instances` instances: bit-packed words for
/// Boolean circuits, k/8 bytes per instance for rings.
fn element_bytes(ring: Option<RingWidth>, instances: usize) -> u64 {
    match ring {
        None => instances.div_ceil(64) as u64 * 8,
        Some(r) => instances as u64 * u64::from(r.bits() / 8),
    }
}

/// Runs `circuit` (correctness checked) and returns the merged accounting.
fn accounting_of(protocol: &str, pre: Preprocess, c: &Circuit, instances: usize) -> Accounting {
    let mut prg = Prg::from_seed([13; 16]);
    let inputs = random_inputs(c, &mut prg, instances);
    let (outs, acc) = run3(protocol, pre, c, &inputs);
    let want = PlainEvaluator::new(c).evaluate(&inputs).expect("plaintext");
    for o in &outs {
        assert_eq!(o, &want, "{protocol}");
    }
    acc
}

/// Bytes on every directed link in `phase`, as [[0->0, 0->1, 0->2], [1->0, ..], ..].
fn bytes(acc: &Accounting, phase: Phase) -> [[u64; 3]; 3] {
    let mut m = [[0; 3]; 3];
    for (f, row) in m.iter_mut().enumerate() {
        for (t, b) in row.iter_mut().enumerate() {
            *b = acc.link(phase, f, t).bytes;
        }
    }
    m
}

#[test]
fn exact_bytes_per_link_for_independent_multiplications() {
    let n = 100u32;
    // Packed ring words (8, 16 or 32 bits) send only the lanes that hold
    // instances: a batch that does not fill its last word costs no more.
    let widths = [
        None,
        Some(RingWidth::W8),
        Some(RingWidth::W32),
        Some(RingWidth::W64),
    ];
    for (instances, ring) in [1024usize, 333]
        .into_iter()
        .flat_map(|i| widths.map(|r| (i, r)))
    {
        let e = u64::from(n) * element_bytes(ring, instances); // one element per gate
                                                               // Inputs: x0 from P0, x1 from P1.
        let c = independent_products(n, 2, ring);
        // Replicated: dealer d sends one element to each neighbour; r_i to P_{i+1};
        // outputs x_i to P_{i+1}.
        let acc = accounting_of("replicated", Preprocess::Interleaved, &c, instances);
        assert_eq!(
            bytes(&acc, Phase::Online),
            [[0, 3 * e, e], [e, 0, 3 * e], [2 * e, 0, 0]],
            "{ring:?}"
        );
        assert_eq!(bytes(&acc, Phase::Offline), [[0; 3]; 3]);
        // Helper protocols: P0's input costs two elements (to P1, P2), P1's one (to P2).
        // Reveal: P0 sends each evaluator one mask, P2 sends P0 its value.
        for protocol in ["astra", "trio"] {
            for pre in [Preprocess::Interleaved, Preprocess::Separate] {
                let acc = accounting_of(protocol, pre, &c, instances);
                let online = bytes(&acc, Phase::Online);
                let offline = bytes(&acc, Phase::Offline);
                // Output masks are input-independent: offline when preprocessing is separate.
                let ahead = if pre == Preprocess::Separate { e } else { 0 };
                // One element P0 -> P2 offline per multiplication, one each way P1 <-> P2 online.
                assert_eq!(offline[0][2], e + ahead, "{protocol} {pre:?}");
                assert_eq!(offline[0][1], ahead, "{protocol} {pre:?}");
                assert_eq!(online[1][2], e + e, "{protocol}: input + product");
                assert_eq!(online[2][1], e, "{protocol}: product");
                assert_eq!(online[2][0], e, "{protocol}: output value");
                // P0-P1 carries no multiplication traffic: the input and the output mask.
                assert_eq!(online[0][1], 2 * e - ahead, "{protocol} {pre:?}");
                assert_eq!(online[0][2], 2 * e - ahead, "{protocol} {pre:?}");
                assert_eq!(online[1][0], 0, "{protocol}");
            }
        }
        // MFI-3PC: P1 -> P2, P2 -> P1, P0 -> P1 one element each per 2-input gate.
        let acc = accounting_of("mfi3", Preprocess::Interleaved, &c, instances);
        assert_eq!(
            bytes(&acc, Phase::Online),
            [[0, 3 * e, 2 * e], [0, 0, 2 * e], [e, e, 0]],
            "{ring:?}"
        );
        assert_eq!(bytes(&acc, Phase::Offline), [[0; 3]; 3]);
    }
}

#[test]
fn a_dot_product_costs_one_multiplication() {
    let (n, l, instances) = (12u32, 9u32, 300usize);
    for ring in [RingWidth::W16, RingWidth::W64] {
        let dots = dots_or_products(n, l, ring, true);
        let products = dots_or_products(n, l, ring, false);
        for (protocol, pre) in variants() {
            let a = accounting_of(protocol, pre, &dots, instances);
            let b = accounting_of(protocol, pre, &products, instances);
            for phase in [Phase::Offline, Phase::Online] {
                assert_eq!(
                    a.rounds(phase),
                    b.rounds(phase),
                    "{protocol} {pre:?} {phase:?}"
                );
                let (a, b) = (bytes(&a, phase), bytes(&b, phase));
                assert_eq!(a, b, "{protocol} {pre:?} {ring} {phase:?}");
            }
        }
    }
}

#[test]
fn conversions_cost_their_terms_and_the_adder() {
    let (m, instances) = (5u32, 200usize);
    for ring in [RingWidth::W16, RingWidth::W32] {
        let k = u64::from(ring.bits());
        let a2b = conversions(m, ring, false);
        let (ands, depth) = a2b_adder(&a2b);
        // One bit of every conversion: their instances side by side, packed.
        let bit = (m as usize * instances).div_ceil(64) as u64 * 8;
        // One output bit of every conversion: a slot of its own each.
        let out_bit = u64::from(m) * instances.div_ceil(64) as u64 * 8;
        let x = u64::from(m) * element_bytes(Some(ring), instances); // P0's input, one element
        for protocol in ["astra", "trio"] {
            let acc = accounting_of(protocol, Preprocess::Interleaved, &a2b, instances);
            let (online, offline) = (bytes(&acc, Phase::Online), bytes(&acc, Phase::Offline));
            // P0 shares -lambda bit by bit: one word to P1 and one to P2;
            // every AND of the adder one word P0 -> P2 ahead, one each way
            // P1 <-> P2 online.
            assert_eq!(offline[0][1], k * bit, "{protocol} {ring}");
            assert_eq!(offline[0][2], k * bit + ands * bit, "{protocol} {ring}");
            assert_eq!(online[1][2], ands * bit, "{protocol} {ring}");
            assert_eq!(online[2][1], ands * bit, "{protocol} {ring}");
            // The input, the adder's layers, the outputs (P1 and P2 wait
            // for P0's input, so nothing overlaps).
            assert_eq!(
                acc.rounds(Phase::Online),
                1 + depth + 1,
                "{protocol} {ring}"
            );
        }
        // Replicated: x_2 and -a_0 input by their holders, two words each
        // per bit, in one round before the adder.
        let acc = accounting_of("replicated", Preprocess::Interleaved, &a2b, instances);
        let online = bytes(&acc, Phase::Online);
        let sent: u64 = online.iter().flatten().sum();
        let input = 2 * x;
        let outputs = 3 * k * out_bit;
        assert_eq!(
            sent,
            input + 4 * k * bit + 3 * ands * bit + outputs,
            "{ring}"
        );
        assert_eq!(acc.rounds(Phase::Online), 1 + 1 + depth + 1, "{ring}");
        // B2A after A2B: P0 shares one more term, now ring elements.
        let inject = conversions(m, ring, true);
        let acc = accounting_of("trio", Preprocess::Interleaved, &inject, instances);
        let offline = bytes(&acc, Phase::Offline);
        let e = u64::from(m) * element_bytes(Some(ring), instances);
        // The ring term to P1; to P2 also the MUL's and the adder's m0.
        assert_eq!(offline[0][1], k * bit + e, "{ring}");
        assert_eq!(offline[0][2], k * bit + ands * bit + e + e, "{ring}");
    }
}

#[test]
fn mfi3_l_input_products_cost_two_to_the_l_minus_l_minus_one_elements() {
    let (n, instances) = (20u32, 512usize);
    for ring in [None, Some(RingWidth::W16), Some(RingWidth::W64)] {
        for l in 3..=8u32 {
            let c = independent_products(n, l, ring);
            let acc = accounting_of("mfi3", Preprocess::Interleaved, &c, instances);
            let e = u64::from(n) * element_bytes(ring, instances);
            let q = (1u64 << l) - u64::from(l) - 1;
            // Input value j belongs to party j mod 3.
            let owned = |p: u32| (0..l).filter(|j| j % 3 == p).count() as u64;
            let online = bytes(&acc, Phase::Online);
            // P0 deals to both; P1 deals to P2; P2 deals to P1.
            assert_eq!(online[1][2], owned(1) * e + q * e, "l = {l}, {ring:?}");
            assert_eq!(online[2][1], owned(2) * e + q * e, "l = {l}, {ring:?}");
            assert_eq!(
                online[0][1],
                owned(0) * e + 2 * e,
                "l = {l}: inputs, mu1', output mask"
            );
            assert_eq!(
                online[0][2],
                owned(0) * e + 2 * e,
                "l = {l}: inputs, mu2', output mask"
            );
            assert_eq!(online[1][0], 0, "l = {l}");
            assert_eq!(online[2][0], e, "l = {l}: only the output value to P0");
            // Inputs, the one product layer, the reveal.
            assert_eq!(acc.link(Phase::Online, 1, 2).rounds, 2, "l = {l}");
            assert_eq!(acc.link(Phase::Online, 2, 1).rounds, 2, "l = {l}");
            assert_eq!(acc.rounds(Phase::Online), 3, "l = {l}");
        }
    }
}

/// A chain of d multiplications x * y_0 * y_1 ...; x owned by P0, y by P1.
fn chain(d: u32, ring: Option<RingWidth>) -> Circuit {
    let (x, y) = match ring {
        None => (ValueSpec::bits("x", 1), ValueSpec::bits("y", d)),
        Some(_) => (ValueSpec::ring("x", 1), ValueSpec::ring("y", d)),
    };
    let mut asm = CircuitAssembler::new(u64::from(1 + d + d), ring, vec![x, y]).expect("valid");
    let op = if ring.is_some() { Op::Mul } else { Op::And };
    let mut acc_wire = 0;
    for j in 0..d {
        let out = 1 + d + j;
        asm.push(op, &[acc_wire, 1 + j], &[out]).expect("product");
        acc_wire = out;
    }
    let z = match ring {
        None => ValueSpec::bits("z", 1),
        Some(_) => ValueSpec::ring("z", 1),
    };
    asm.finish(vec![(z, vec![acc_wire])]).expect("valid")
}

#[test]
fn online_rounds_are_the_depth_plus_input_and_output() {
    for (protocol, pre) in variants() {
        for ring in [None, Some(RingWidth::W64)] {
            for d in [1u32, 4, 9] {
                let c = chain(d, ring);
                assert_eq!(Layering::of(&c).depth, d);
                let acc = accounting_of(protocol, pre, &c, 64);
                assert_eq!(
                    acc.rounds(Phase::Online),
                    d + 2,
                    "{protocol} {pre:?} {ring:?} depth {d}"
                );
            }
        }
    }
}

#[test]
fn mfi3_multi_fan_in_saves_rounds() {
    // AND of 16 bits: 2 layers of (at most) 8-input ANDs under MFI-3PC,
    // 4 layers of 2-input ANDs under Trio.
    let mut asm = CircuitAssembler::new(17, None, vec![ValueSpec::bits("x", 16)]).expect("valid");
    asm.push(Op::And, &(0..16).collect::<Vec<_>>(), &[16])
        .expect("and16");
    let c = asm
        .finish(vec![(ValueSpec::bits("y", 1), vec![16])])
        .expect("valid");
    let rounds = |protocol| {
        let acc = accounting_of(protocol, Preprocess::Interleaved, &c, 256);
        acc.rounds(Phase::Online)
    };
    // Plus the input and the output round.
    assert_eq!(rounds("mfi3"), 2 + 2);
    assert_eq!(rounds("trio"), 4 + 2);
    assert_eq!(rounds("replicated"), 4 + 2);
}

#[test]
fn separate_preprocessing_sends_everything_input_independent_first() {
    let c = independent_products(50, 2, None);
    for protocol in ["astra", "trio"] {
        let acc = accounting_of(protocol, Preprocess::Separate, &c, 640);
        // P0's offline traffic (products, output masks) needs no answer: one round.
        assert_eq!(acc.rounds(Phase::Offline), 1, "{protocol}");
        assert!(
            acc.link(Phase::Offline, 0, 2).bytes > 0 && acc.link(Phase::Offline, 0, 1).bytes > 0
        );
        // Online, P0 only deals its input.
        assert_eq!(acc.link(Phase::Online, 0, 2).messages, 1, "{protocol}");
        assert_eq!(acc.link(Phase::Online, 0, 1).messages, 1, "{protocol}");
    }
}

#[test]
fn circuits_a_protocol_cannot_run_are_refused_with_the_reason() {
    let mut prg = Prg::from_seed([16; 16]);
    let mixed = random_circuit(
        &RandomCircuitSpec::mixed(RingWidth::W32, 8, 2, 200, 4),
        &mut prg,
    );
    // Protocols without share conversions (ca2pc, for now; the garbling
    // ones are Boolean) refuse mixed circuits before connecting, naming why.
    let mut refused = 0;
    for protocol in huddle_engine::Protocol::ALL {
        let d = protocol.descriptor();
        if d.family == huddle_engine::protocol::Family::Clear || d.conversions {
            continue;
        }
        let parties = match d.parties {
            huddle_engine::protocol::PartyRule::Exactly(k) => k,
            huddle_engine::protocol::PartyRule::AtLeast(k) => k,
        };
        let err = request(protocol.name(), parties, &mixed, RunOptions::default())
            .err()
            .map(|e| e.to_string())
            .expect("refused");
        let why = if d.family == huddle_engine::protocol::Family::Sharing {
            err.contains("share conversions") && err.contains(d.name)
        } else {
            err.contains("Boolean circuits only") && err.contains("ring wires")
        };
        assert!(why, "{}: {err}", d.name);
        refused += 1;
    }
    assert!(refused >= 1);
    // A 3-party protocol with 4 parties.
    let c = chain(2, None);
    let inputs = random_inputs(&c, &mut prg, 10);
    let nets = memory_networks(4, &NetProfile::lan(), Duration::from_secs(5));
    let err = local("trio", nets, &c, &inputs, RunOptions::default())
        .err()
        .expect("refused");
    assert!(err.contains("3-party protocol"), "{err}");
    // Separate preprocessing for a protocol without preprocessing.
    let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(5));
    let options = RunOptions::default().with_preprocess(Preprocess::Separate);
    let err = local("mfi3", nets, &c, &inputs, options)
        .err()
        .expect("refused");
    assert!(err.contains("no separate preprocessing"), "{err}");
}

#[test]
fn a_batch_too_large_for_memory_is_refused_before_communicating() {
    // 2^40 instances would need terabytes of shares even for a circuit two wires wide.
    let mut asm =
        CircuitAssembler::new(10_001, None, vec![ValueSpec::bits("x", 1)]).expect("valid");
    for j in 0..10_000u32 {
        asm.push(Op::Inv, &[j], &[j + 1]).expect("inv");
    }
    let mut c = asm
        .finish(vec![(ValueSpec::bits("y", 1), vec![10_000])])
        .expect("valid");
    // Party 1 owns the input, so party 0 needs no input matrix of that size.
    c.set_owners(huddle_circuit::InputOwners::Explicit(vec![1]))
        .expect("one owner");
    for protocol in SECURE {
        let mut nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(5));
        let mut p0 = nets.remove(0);
        let req = request(protocol, 3, &c, RunOptions::default()).expect("valid request");
        let err = huddle_engine::testing::run_party(&req, &mut p0, 1 << 40, &[])
            .expect_err("must be refused");
        assert!(
            err.to_string().contains("GiB are available; lower --batch"),
            "{err}"
        );
        // Refused before any setup traffic (no peer ever ran).
        assert_eq!(
            p0.accounting().phase_total(Phase::Setup),
            LinkStats::default()
        );
    }
}

/// Split roles (HK-C Section V-E): with a batch that gives every
/// assignment of roles the same share and inputs owned alike by every
/// party, every directed link carries exactly the same bytes in each phase,
/// the total is the unsplit run's plus, per extra lane, the run's
/// constant-size messages (digests), and the rounds are an unsplit run's.
/// Three parties (6 assignments) and four (24), protocols whose roles send
/// very different amounts.
#[test]
fn split_roles_give_every_link_the_same_load_and_add_no_traffic() {
    for (protocol, parties) in [
        ("trio", 3),
        ("astra", 3),
        ("replicated", 3),
        ("quad", 4),
        ("quad-het", 4),
        ("tetrad", 4),
    ] {
        let lanes: usize = (1..=parties).product();
        let links = || {
            (0..parties)
                .flat_map(|f| (0..parties).map(move |t| (f, t)))
                .filter(|(f, t)| f != t)
        };
        for ring in [None, Some(RingWidth::W32)] {
            // Every party owns one input value: a party shares its inputs
            // in every role, so input sharing is balanced too.
            let c = independent_products(96, parties as u32, ring);
            let batch = 64 * lanes * 2;
            let run = |split_roles: bool, instances: usize| {
                let inputs = random_inputs(&c, &mut Prg::from_seed([22; 16]), instances);
                let want = PlainEvaluator::new(&c)
                    .evaluate(&inputs)
                    .expect("plaintext");
                // One slice: every lane gets exactly its share of the batch.
                let options = RunOptions::default()
                    .with_split_roles(split_roles)
                    .with_share_memory(1 << 30);
                let nets = memory_networks(parties, &NetProfile::lan(), Duration::from_secs(60));
                let results = local(protocol, nets, &c, &inputs, options)
                    .unwrap_or_else(|e| panic!("{protocol}: {e}"));
                let mut acc = Accounting::default();
                for r in &results {
                    assert!(r.outputs == want, "{protocol} split {split_roles}");
                    acc.merge(&r.accounting);
                }
                acc
            };
            let (one, half, split) = (run(false, batch), run(false, batch / 2), run(true, batch));
            for phase in [Phase::Offline, Phase::Online] {
                let total = |a: &Accounting| -> u64 {
                    links().map(|(f, t)| a.link(phase, f, t).bytes).sum()
                };
                // Bytes = a·instances + constant.
                let constant = 2 * total(&half) - total(&one);
                assert_eq!(
                    total(&split),
                    total(&one) + (lanes as u64 - 1) * constant,
                    "{protocol} {ring:?} {phase}: only the constant-size messages repeat per lane"
                );
                let per_link = split.link(phase, 0, 1).bytes;
                for (f, t) in links() {
                    assert_eq!(
                        split.link(phase, f, t).bytes,
                        per_link,
                        "{protocol} {ring:?} {phase}: link {f}->{t} (unsplit: {})",
                        one.link(phase, f, t).bytes
                    );
                }
                assert_eq!(split.rounds(phase), one.rounds(phase), "{protocol} {phase}");
            }
        }
    }
}

#[test]
fn split_roles_are_refused_where_there_are_no_roles_to_split() {
    let c = independent_products(4, 2, None);
    let split = RunOptions::default().with_split_roles(true);
    let refused = |e: &RunError, option| matches!(e, RunError::Refused { refusal: Refusal::Option { option: o }, .. } if *o == option);
    for (protocol, parties) in [("ttp", 3), ("bgw3", 3), ("ca2pc", 3), ("ttp", 5)] {
        let e = request(protocol, parties, &c, split)
            .map(|_| ())
            .expect_err(protocol);
        assert!(refused(&e, "split-roles"), "{protocol}: {e}");
        assert!(
            e.to_string().contains("no roles to split"),
            "{protocol}: {e}"
        );
    }
    let fault = huddle_engine::fault::Fault {
        party: 1,
        kind: huddle_engine::fault::FaultKind::parse("add-error").expect("kind"),
        message: None,
        seed: 0,
    };
    let e = request("quad", 4, &c, split.with_fault(Some(fault)))
        .map(|_| ())
        .expect_err("a corrupted role");
    assert!(refused(&e, "corrupt"), "{e}");
}

/// `--threads auto` with at most one core per party (threads 1, auto): a
/// batch of at least `FILLER_MIN_SLICES` slices runs as two lanes, exactly
/// as `--threads 2` does (the same bytes on every link, the same rounds); a
/// shorter one as one lane of half the slice (twice the slices, so more
/// rounds, the same bytes). The right outputs either way.
#[test]
fn auto_on_one_core_per_party_adds_a_lane_only_for_long_batches() {
    use huddle_engine::FILLER_MIN_SLICES;
    let mut prg = Prg::from_seed([23; 16]);
    let c = random_circuit(&RandomCircuitSpec::boolean(&[20, 30], 200, 6), &mut prg);
    let share_memory = 64 << 10;
    let auto = RunOptions::default()
        .with_threads(1)
        .with_threads_auto(true)
        .with_share_memory(share_memory);
    let two = auto.with_threads(2).with_threads_auto(false);
    let whole = two.with_share_memory(1 << 30);
    for (instances, long) in [(64 * 400, true), (64 * 24 + 7, false)] {
        let inputs = random_inputs(&c, &mut prg, instances);
        let want = PlainEvaluator::new(&c)
            .evaluate(&inputs)
            .expect("plaintext");
        let rounds = |acc: &Accounting| acc.rounds(Phase::Online);
        let (_, one_slice) = run3_with("trio", whole, &c, &inputs);
        let (outs_two, acc_two) = run3_with("trio", two, &c, &inputs);
        let (outs_auto, acc_auto) = run3_with("trio", auto, &c, &inputs);
        for o in outs_two.iter().chain(&outs_auto) {
            assert!(o == &want, "{instances} instances");
        }
        // The premise: the batch is long (or short) at this share memory.
        let slices = rounds(&acc_two) / rounds(&one_slice);
        assert_eq!(
            slices as usize >= FILLER_MIN_SLICES,
            long,
            "{slices} slices"
        );
        for phase in [Phase::Offline, Phase::Online] {
            assert_eq!(bytes(&acc_auto, phase), bytes(&acc_two, phase), "{phase}");
        }
        if long {
            assert_eq!(
                rounds(&acc_auto),
                rounds(&acc_two),
                "two lanes, as --threads 2"
            );
        } else {
            assert!(
                rounds(&acc_auto) > rounds(&acc_two),
                "one lane of half the slice: more slices"
            );
        }
    }
}

#[test]
fn lanes_and_slices_change_nothing_but_time_and_rounds() {
    let mut prg = Prg::from_seed([17; 16]);
    let boolean = random_circuit(&RandomCircuitSpec::boolean(&[20, 30], 300, 8), &mut prg);
    let arith = random_circuit(
        &RandomCircuitSpec::arithmetic(RingWidth::W32, &[4, 4], 200, 4),
        &mut prg,
    );
    for (c, instances) in [(&boolean, 64 * 37 + 5), (&arith, 1001)] {
        let inputs = random_inputs(c, &mut prg, instances);
        let want = PlainEvaluator::new(c).evaluate(&inputs).expect("plaintext");
        let depth = Layering::of(&huddle_circuit::rewrite::split_fan_in(c)).depth;
        for (protocol, pre) in variants() {
            let base = RunOptions::default().with_preprocess(pre);
            let (_, one) = run3_with(protocol, base, c, &inputs);
            // Three lanes: the same bytes per link online and offline, the same rounds.
            let lanes = base.with_threads(3);
            let (outs, three) = run3_with(protocol, lanes, c, &inputs);
            for o in &outs {
                assert!(o == &want, "{protocol} {pre:?} with 3 lanes");
            }
            for phase in [Phase::Offline, Phase::Online] {
                assert_eq!(
                    bytes(&one, phase),
                    bytes(&three, phase),
                    "{protocol} {phase}"
                );
                assert_eq!(one.rounds(phase), three.rounds(phase), "{protocol} {phase}");
            }
            // A tiny share budget: many slices one after another, same answer.
            let sliced = base.with_share_memory(4096).with_threads(2);
            let (outs, acc) = run3_with(protocol, sliced, c, &inputs);
            for o in &outs {
                assert!(o == &want, "{protocol} {pre:?} in slices");
            }
            assert!(
                acc.rounds(Phase::Online) > one.rounds(Phase::Online),
                "{protocol}"
            );
            let _ = depth;
        }
    }
}

#[test]
fn outputs_can_go_to_one_named_party_only() {
    let (n, instances) = (30u32, 640usize);
    for ring in [None, Some(RingWidth::W32)] {
        let c = independent_products(n, 2, ring);
        let e = u64::from(n) * element_bytes(ring, instances); // the output, one element per wire
        let mut prg = Prg::from_seed([18; 16]);
        let inputs = random_inputs(&c, &mut prg, instances);
        let want = PlainEvaluator::new(&c)
            .evaluate(&inputs)
            .expect("plaintext");
        for protocol in SECURE {
            let (_, all) = run3(protocol, Preprocess::Interleaved, &c, &inputs);
            for to in 0..3 {
                let options = RunOptions::default().with_reveal_to(Some(to));
                let (outs, acc) = run3_with(protocol, options, &c, &inputs);
                for (p, o) in outs.iter().enumerate() {
                    if p == to {
                        assert!(o == &want, "{protocol}: party {p} must learn the outputs");
                    } else {
                        assert!(o.is_empty(), "{protocol}: party {p} must learn nothing");
                    }
                }
                // Revealing to everybody costs three elements per output wire, to one party one.
                assert_eq!(
                    acc.phase_total(Phase::Online).bytes + 2 * e,
                    all.phase_total(Phase::Online).bytes,
                    "{protocol} to {to}"
                );
            }
        }
    }
}

#[test]
fn max_fan_in_caps_every_product_and_is_refused_where_it_means_nothing() {
    use huddle_circuit::builder::Builder;
    // One 8-input AND: one round on mfi3, three at fan-in 2, two at 3.
    let mut b = Builder::boolean(8);
    let x = b.input("x", 8);
    let all = b.and_all(&x);
    b.output("all", vec![all]);
    let c = b.finish();
    let mut prg = Prg::from_seed([21; 16]);
    let inputs = random_inputs(&c, &mut prg, 256);
    let want = PlainEvaluator::new(&c).evaluate(&inputs).expect("plain");
    for (cap, rounds) in [(None, 1), (Some(8), 1), (Some(3), 2), (Some(2), 3)] {
        let nets = memory_networks(3, &NetProfile::lan(), Duration::from_secs(60));
        let options = RunOptions::default().with_max_fan_in(cap);
        let results = local("mfi3", nets, &c, &inputs, options).expect("mfi3");
        let mut acc = Accounting::default();
        for r in &results {
            assert_eq!(r.outputs, want, "cap {cap:?}");
            acc.merge(&r.accounting);
        }
        // The inputs' round, the product's rounds, the output's.
        assert_eq!(acc.rounds(Phase::Online), rounds + 2, "cap {cap:?}");
    }
    // No cap below 2, and none for protocols that take any fan-in.
    let options = |cap| RunOptions::default().with_max_fan_in(Some(cap));
    let err = request("trio", 3, &c, options(1))
        .err()
        .map(|e| e.to_string())
        .expect("refused");
    assert!(err.contains("--max-fan-in must be at least 2"), "{err}");
    for (protocol, parties) in [("bgw3", 3), ("ttp", 3)] {
        let err = request(protocol, parties, &c, options(4))
            .err()
            .map(|e| e.to_string())
            .expect("refused");
        assert!(err.contains("any fan-in"), "{protocol}: {err}");
    }
}
