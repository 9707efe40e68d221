//! Outputs for different receivers in one run: each output for a single
//! party is revealed to every party masked with that party's one-time pad,
//! and only the party's `Pads` decode it. Through the plaintext evaluator;
//! the engine's protocols are in huddle-engine's tests/program_receivers.rs.

mod program_util;

use huddle_circuit::program::{
    BinOp, CmpOp, CompiledProgram, Data, ErrorKind, Interface, Pads, Program, Receiver, Shape,
    Type, PUBLIC_OK,
};
use huddle_circuit::{BitMatrix, PlainEvaluator};
use huddle_core::RingWidth;
use program_util::run;

const FIXED: Type = Type::Fixed(RingWidth::W64, 16);
const RING: Type = Type::Int(RingWidth::W64);

/// Outputs to party 0 (u32 sums, a fixed-point sum), party 2 (ring
/// products, equality bits) and every party (comparison bits).
fn mixed() -> CompiledProgram {
    let mut p = Program::new(3).expect("program");
    let a = p
        .input(0, Type::UInt(32), Shape::Vector(4), "a")
        .expect("a");
    let b = p
        .input(1, Type::UInt(32), Shape::Vector(4), "b")
        .expect("b");
    let x = p.input(2, RING, Shape::Vector(2), "x").expect("x");
    let y = p.input(1, RING, Shape::Vector(2), "y").expect("y");
    let f = p.input(0, FIXED, Shape::Scalar, "f").expect("f");
    let g = p.input(2, FIXED, Shape::Scalar, "g").expect("g");
    let sum = p.binary(BinOp::Add, &a, &b).expect("add");
    let prod = p.binary(BinOp::Mul, &x, &y).expect("mul");
    let fsum = p.binary(BinOp::Add, &f, &g).expect("fixed add");
    let lt = p.compare(CmpOp::Lt, &a, &b).expect("lt");
    let eq = p.compare(CmpOp::Eq, &a, &b).expect("eq");
    p.reveal(&sum, Receiver::Party(0), "sum").expect("reveal");
    p.reveal(&prod, Receiver::Party(2), "prod").expect("reveal");
    p.reveal(&fsum, Receiver::Party(0), "fsum").expect("reveal");
    p.reveal(&lt, Receiver::All, "lt").expect("reveal");
    p.reveal(&eq, Receiver::Party(2), "eq").expect("reveal");
    p.compile().expect("compiles")
}

/// Every party's inputs of `mixed` for two instances.
fn given() -> Vec<(usize, &'static str, Data)> {
    vec![
        (
            0,
            "a",
            Data::UInts(vec![1, 7, u32::MAX as u64, 5, 0, 9, 9, 3]),
        ),
        (1, "b", Data::UInts(vec![2, 7, 3, 4, 0, 8, 10, 3])),
        (2, "x", Data::Ints(vec![3, -4, i64::MAX, 6])),
        (1, "y", Data::Ints(vec![5, 6, 2, -7])),
        (0, "f", Data::Floats(vec![1.5, -2.25])),
        (2, "g", Data::Floats(vec![0.25, 0.5])),
    ]
}

/// What each output of `mixed` is on `given()`.
fn expected(name: &str) -> Data {
    match name {
        "sum" => Data::UInts(vec![3, 14, 2, 9, 0, 17, 19, 6]),
        "prod" => Data::Ints(vec![15, -24, i64::MAX.wrapping_mul(2), -42]),
        "fsum" => Data::Floats(vec![1.75, -1.75]),
        "lt" => Data::Bools(vec![true, false, false, false, false, false, true, false]),
        "eq" => Data::Bools(vec![false, true, false, false, true, false, false, true]),
        other => panic!("no output {other}"),
    }
}

/// Each party's finished inputs: (rows, pads).
fn finish(iface: &Interface, batch: usize) -> Vec<(Vec<BitMatrix>, Pads)> {
    (0..iface.parties)
        .map(|party| {
            let mut inputs = iface.party_inputs(party, batch);
            for (p, name, d) in given() {
                if p == party {
                    inputs.set(name, &first(d, batch)).expect("encodes");
                }
            }
            inputs.finish().expect("every input given")
        })
        .collect()
}

/// The first `batch` of the two instances in `d`.
fn first(d: Data, batch: usize) -> Data {
    let keep = |n: usize| n / 2 * batch;
    match d {
        Data::UInts(v) => Data::UInts(v[..keep(v.len())].to_vec()),
        Data::Ints(v) => Data::Ints(v[..keep(v.len())].to_vec()),
        Data::Floats(v) => Data::Floats(v[..keep(v.len())].to_vec()),
        Data::Bools(v) => Data::Bools(v[..keep(v.len())].to_vec()),
    }
}

/// Every party's inputs merged, the circuit's outputs (what every party
/// receives: the run reveals to all), and each party's pads.
fn evaluate(c: &CompiledProgram) -> (Vec<BitMatrix>, Vec<BitMatrix>, Vec<Pads>) {
    let iface = c.interface();
    let (rows, pads): (Vec<_>, Vec<_>) = finish(iface, 2).into_iter().unzip();
    let all = iface.merge(rows).expect("merge");
    let outs = PlainEvaluator::new(c.circuit())
        .evaluate(&all)
        .expect("evaluates");
    (all, outs, pads)
}

fn index(iface: &Interface, name: &str) -> usize {
    iface
        .outputs
        .iter()
        .position(|o| o.name == name)
        .expect("an output")
}

/// Element e (of `bits` bits) of every row, row after row.
fn elements(m: &BitMatrix, bits: usize) -> Vec<u64> {
    let per_row = m.cols() / bits;
    let mut out = Vec::new();
    for r in 0..m.rows() {
        for e in 0..per_row {
            out.push((0..bits).fold(0u64, |acc, j| {
                acc | (u64::from(m.get(r, e * bits + j)) << j)
            }));
        }
    }
    out
}

#[test]
fn outputs_for_single_parties_are_masked_with_their_pads() {
    let c = mixed();
    let iface = c.interface();
    assert_eq!(iface.reveal_to().expect("consistent"), None);
    let masks: Vec<(&str, Option<usize>)> = iface
        .outputs
        .iter()
        .map(|o| (o.name.as_str(), o.mask))
        .collect();
    // The six inputs are values 0..6; then one pad per single-party output.
    assert_eq!(
        masks,
        vec![
            ("sum", Some(6)),
            ("prod", Some(7)),
            ("fsum", Some(8)),
            ("lt", None),
            ("eq", Some(9))
        ]
    );
    assert_eq!(&iface.owners[6..], &[0, 2, 0, 2]);
    assert_eq!(iface.owned_by(0), vec![0, 4, 6, 8]);
    let names: Vec<&str> = c.circuit().inputs()[6..]
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(names, vec!["~pad:sum", "~pad:prod", "~pad:fsum", "~pad:eq"]);
    // A user name cannot take a pad's: '~' is not allowed in names.
    let mut p = Program::new(1).expect("program");
    let e = p
        .input(0, Type::Bit, Shape::Scalar, "~pad:sum")
        .expect_err("not a name");
    assert_eq!(e.kind, ErrorKind::Value);
}

#[test]
fn every_receiver_decodes_its_outputs_and_nothing_else() {
    let c = mixed();
    let iface = c.interface();
    let (_, outs, pads) = evaluate(&c);
    let learned = |p: usize, pads: Pads| {
        let o = pads.decode(iface, &outs).expect("decodes");
        let names: Vec<String> = o.learned().map(|(n, _)| n.to_string()).collect();
        for n in &names {
            assert_eq!(o.get(n).expect("learned"), &expected(n), "{n} at party {p}");
        }
        (names, o)
    };
    let mut pads = pads.into_iter();
    let (zero, o) = learned(0, pads.next().expect("party 0"));
    assert_eq!(zero, ["sum", "fsum", "lt"]);
    assert_eq!(
        o.get("prod").expect_err("party 2's").message,
        "party 0 does not learn output \"prod\": it goes to party 2"
    );
    assert_eq!(
        o.get("nope").expect_err("no such output").message,
        "the program has no output \"nope\""
    );
    let (one, o) = learned(1, pads.next().expect("party 1"));
    assert_eq!(one, ["lt"]);
    assert_eq!(
        o.get("sum").expect_err("party 0's").message,
        "party 1 does not learn output \"sum\": it goes to party 0"
    );
    let (two, _) = learned(2, pads.next().expect("party 2"));
    assert_eq!(two, ["prod", "lt", "eq"]);
    // Holding every party's pads (the plaintext evaluator's caller): all.
    let all = run(&c, 2, &given());
    let names = iface.outputs.iter().map(|o| o.name.as_str());
    for (got, name) in all.iter().zip(names) {
        assert_eq!(got, &expected(name), "{name}");
    }
}

#[test]
fn what_every_party_receives_of_a_masked_output_is_the_value_plus_the_pad() {
    let c = mixed();
    let iface = c.interface();
    let (inputs, first, pads) = evaluate(&c);
    let (sum, prod, fsum) = (
        index(iface, "sum"),
        index(iface, "prod"),
        index(iface, "fsum"),
    );
    let pad = |o: usize| &inputs[iface.outputs[o].mask.expect("masked")];
    // Boolean: value ⊕ pad.
    let seen = elements(&first[sum], 32);
    let key = elements(pad(sum), 32);
    let Data::UInts(values) = expected("sum") else {
        unreachable!()
    };
    let unmasked: Vec<u64> = seen.iter().zip(&key).map(|(s, k)| s ^ k).collect();
    assert_eq!(unmasked, values);
    // Ring: value + pad mod 2^64.
    let seen = elements(&first[prod], 64);
    let key = elements(pad(prod), 64);
    let Data::Ints(values) = expected("prod") else {
        unreachable!()
    };
    let unmasked: Vec<u64> = seen
        .iter()
        .zip(&key)
        .map(|(s, k)| s.wrapping_sub(*k))
        .collect();
    assert_eq!(
        unmasked,
        values.iter().map(|&v| v as u64).collect::<Vec<_>>()
    );
    let seen = elements(&first[fsum], 64);
    let key = elements(pad(fsum), 64);
    let raw = |x: f64| ((x * 65536.0) as i64) as u64;
    assert_eq!(
        seen.iter()
            .zip(&key)
            .map(|(s, k)| s.wrapping_sub(*k))
            .collect::<Vec<_>>(),
        vec![raw(1.75), raw(-1.75)]
    );
    // The same inputs again: fresh pads, so what every party receives of a
    // masked output of 32 bits or more changes (2^-32 or less that a row
    // repeats; a narrower one may repeat by chance, so it is not asserted),
    // the unmasked output does not, and each receiver still decodes the same.
    let (_, second, again) = evaluate(&c);
    for (i, o) in iface.outputs.iter().enumerate() {
        for r in 0..2 {
            let same = first[i].row(r) == second[i].row(r);
            match o.mask {
                None => assert!(same, "output {:?} row {r}", o.name),
                Some(_) if first[i].cols() >= 32 => {
                    assert!(!same, "output {:?} row {r}", o.name)
                }
                Some(_) => {}
            }
        }
    }
    let both = |pads: Vec<Pads>, outs: &[BitMatrix]| {
        let all = Pads::join(pads).expect("join");
        all.decode(iface, outs).expect("decodes")
    };
    assert_eq!(both(pads, &first), both(again, &second));
}

#[test]
fn pads_are_fresh_at_every_finish() {
    let c = mixed();
    let iface = c.interface();
    let (a, b) = (finish(iface, 2), finish(iface, 2));
    // Party 0's values: a, f, then the pads of "sum" and "fsum".
    for party_value in [2, 3] {
        for r in 0..2 {
            assert_ne!(
                a[0].0[party_value].row(r),
                b[0].0[party_value].row(r),
                "pad value {party_value} row {r}"
            );
        }
    }
    // Not all zeros either, and the same in both finishes where given.
    assert!(a[0].0[2].as_words().iter().any(|&w| w != 0));
    assert_eq!(a[0].0[0], b[0].0[0]);
    assert_eq!(a[0].1.parties(), &[0]);
    let shown = format!("{:?}", a[0].1);
    assert_eq!(
        shown,
        "Pads { parties: [0], batch: 2, masked_outputs: 2, .. }"
    );
}

#[test]
fn decoding_without_the_pads_or_with_others_is_an_error() {
    let c = mixed();
    let iface = c.interface();
    let (_, outs, pads) = evaluate(&c);
    let sum = index(iface, "sum");
    let e = iface
        .decode_output(sum, &outs[sum])
        .expect_err("masked: needs pads");
    assert_eq!(e.kind, ErrorKind::Usage);
    assert_eq!(
        e.message,
        "output \"sum\" goes to party 0 and is revealed masked with its one-time pad: \
         only the pads of that party (from PartyInputs::finish) decode it, with Pads::decode"
    );
    let lt = index(iface, "lt");
    assert_eq!(
        iface.decode_output(lt, &outs[lt]).expect("unmasked"),
        expected("lt")
    );
    let mut pads = pads.into_iter();
    let zero = pads.next().expect("party 0");
    // Pads of a two-instance run do not decode a one-instance run.
    let one: Vec<BitMatrix> = outs
        .iter()
        .map(|m| BitMatrix::from_row_words(1, m.cols(), m.row(0).to_vec()).expect("row"))
        .collect();
    let e = zero.decode(iface, &one).expect_err("another run");
    assert_eq!(
        e.message,
        "output \"sum\": 1 instance(s) given, party 0's pads are for 2: \
         pads decode only the run they were drawn for"
    );
    let one_pads = pads.next().expect("party 1");
    let e = one_pads
        .decode(iface, &outs[..2])
        .expect_err("missing rows");
    assert_eq!(
        e.message,
        "2 output(s) given, the program has 5 and party 1 learns 1"
    );
    // Pads of another program.
    let (_, _, other) = evaluate(&mixed());
    let mut p = Program::new(3).expect("program");
    let a = p.input(0, Type::Bit, Shape::Scalar, "a").expect("a");
    p.reveal(&a, Receiver::Party(0), "a").expect("reveal");
    p.reveal(&a, Receiver::All, "b").expect("reveal");
    let small = p.compile().expect("compiles");
    let two = other.into_iter().last().expect("party 2");
    let e = two
        .decode(small.interface(), &outs[..2])
        .expect_err("another program");
    assert_eq!(e.message, "party 2's pads belong to another program");
    // Joining: a party once, pads of one run.
    let (_, _, pads) = evaluate(&c);
    let [p0, p1, p2]: [Pads; 3] = pads.try_into().expect("three");
    let joined = Pads::join([p1, p0]).expect("0 and 1");
    assert_eq!(joined.parties(), &[0, 1]);
    let e = Pads::join([joined, finish(iface, 2).remove(1).1]).expect_err("1 twice");
    assert_eq!(e.message, "party 1's pads are given twice");
    let e = Pads::join([p2, finish(iface, 1).remove(0).1]).expect_err("batches");
    assert_eq!(e.message, "pads of different runs cannot be joined");
    assert_eq!(Pads::join([]).expect_err("none").message, "no pads to join");
}

#[test]
fn outputs_for_one_receiver_need_no_masks() {
    for to in [Receiver::Party(2), Receiver::All] {
        let mut p = Program::new(3).expect("program");
        let x = p.input(0, RING, Shape::Scalar, "x").expect("x");
        let y = p.input(1, Type::SInt(8), Shape::Scalar, "y").expect("y");
        let twice = p.binary(BinOp::Add, &x, &x).expect("add");
        p.reveal(&twice, to, "twice").expect("reveal");
        p.reveal(&y, to, "y").expect("reveal");
        let c = p.compile().expect("compiles");
        let iface = c.interface();
        assert!(iface.outputs.iter().all(|o| o.mask.is_none()));
        assert_eq!(iface.owners, vec![0, 1], "no pad inputs");
        let want = match to {
            Receiver::Party(p) => Some(p),
            Receiver::All => None,
        };
        assert_eq!(iface.reveal_to().expect("consistent"), want);
        let mut inputs: Vec<_> = (0..3).map(|p| iface.party_inputs(p, 1)).collect();
        inputs[0].set("x", &Data::Ints(vec![-21])).expect("x");
        inputs[1].set("y", &Data::Ints(vec![-8])).expect("y");
        let (rows, pads): (Vec<_>, Vec<_>) = inputs
            .into_iter()
            .map(|i| i.finish().expect("finished"))
            .unzip();
        let outs = PlainEvaluator::new(c.circuit())
            .evaluate(&iface.merge(rows).expect("merge"))
            .expect("evaluates");
        for (party, pads) in pads.into_iter().enumerate() {
            // Where the run reveals to party 2, the others receive nothing.
            let receives = want.is_none_or(|p| p == party);
            let given = if receives { &outs[..] } else { &[] };
            let o = pads.decode(iface, given).expect("decodes");
            if receives {
                assert_eq!(o.get("twice").expect("learned"), &Data::Ints(vec![-42]));
                assert_eq!(o.get("y").expect("learned"), &Data::Ints(vec![-8]));
            } else {
                assert_eq!(o.learned().count(), 0);
                assert_eq!(
                    o.get("y").expect_err("party 2's").message,
                    format!("party {party} does not learn output \"y\": it goes to party 2")
                );
            }
        }
        // Unmasked outputs decode without pads too.
        assert_eq!(
            iface.decode_output(1, &outs[1]).expect("unmasked"),
            Data::Ints(vec![-8])
        );
    }
}

/// A public threshold; "above" to party 0, "count" to party 1.
fn gated() -> CompiledProgram {
    let mut p = Program::new(3).expect("program");
    let t = p.public("t", Type::UInt(8), Shape::Scalar).expect("t");
    let a = p.input(2, Type::UInt(8), Shape::Vector(3), "a").expect("a");
    let above = p.compare(CmpOp::Gt, &a, &t).expect("gt");
    let wide = p.convert(&above, RING).expect("bits to ring");
    let count = p.sum(&wide).expect("count");
    p.reveal(&above, Receiver::Party(0), "above")
        .expect("reveal");
    p.reveal(&count, Receiver::Party(1), "count")
        .expect("reveal");
    p.compile().expect("compiles")
}

#[test]
fn public_ok_reaches_every_party_unmasked_under_mixed_receivers() {
    let c = gated();
    let iface = c.interface();
    let ok = iface.output(PUBLIC_OK).expect("the flag");
    assert_eq!((ok.to, ok.mask), (Receiver::All, None));
    assert_eq!(iface.reveal_to().expect("consistent"), None);
    let evaluate = |ts: [u64; 3]| {
        let mut inputs: Vec<_> = (0..3).map(|p| iface.party_inputs(p, 1)).collect();
        for (p, t) in ts.into_iter().enumerate() {
            inputs[p].set("t", &Data::UInts(vec![t])).expect("t");
        }
        inputs[2].set("a", &Data::UInts(vec![5, 50, 9])).expect("a");
        let (rows, pads): (Vec<_>, Vec<_>) = inputs
            .into_iter()
            .map(|i| i.finish().expect("finished"))
            .unzip();
        let outs = PlainEvaluator::new(c.circuit())
            .evaluate(&iface.merge(rows).expect("merge"))
            .expect("evaluates");
        pads.into_iter()
            .map(|p| p.decode(iface, &outs).expect("decodes"))
            .collect::<Vec<_>>()
    };
    let agreed = evaluate([8, 8, 8]);
    assert_eq!(
        agreed[0].get("above").expect("party 0's"),
        &Data::Bools(vec![false, true, true])
    );
    assert_eq!(
        agreed[1].get("count").expect("party 1's"),
        &Data::Ints(vec![2])
    );
    let disputed = evaluate([8, 8, 60]);
    assert_eq!(
        disputed[0].get("above").expect("party 0's"),
        &Data::Bools(vec![false; 3])
    );
    assert_eq!(
        disputed[1].get("count").expect("party 1's"),
        &Data::Ints(vec![0])
    );
    for (party, (yes, no)) in agreed.iter().zip(&disputed).enumerate() {
        assert_eq!(
            yes.get(PUBLIC_OK).expect("all"),
            &Data::Bools(vec![true]),
            "{party}"
        );
        assert_eq!(
            no.get(PUBLIC_OK).expect("all"),
            &Data::Bools(vec![false]),
            "{party}"
        );
    }
    // Every output to party 1: the flag goes to party 1 alone, unmasked.
    let mut p = Program::new(3).expect("program");
    let t = p.public("t", Type::UInt(8), Shape::Scalar).expect("t");
    p.reveal(&t, Receiver::Party(1), "t").expect("reveal");
    let c = p.compile().expect("compiles");
    let ok = c.interface().output(PUBLIC_OK).expect("the flag");
    assert_eq!((ok.to, ok.mask), (Receiver::Party(1), None));
    assert_eq!(c.interface().reveal_to().expect("consistent"), Some(1));
}

#[test]
fn an_interface_read_back_is_checked_and_digested() {
    let c = mixed();
    let iface = c.interface();
    let json = iface.to_json();
    assert_eq!(&Interface::from_json(&json).expect("valid"), iface);
    let digest = iface.digest();
    assert_eq!(digest.len(), 64);
    assert!(digest
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    assert_eq!(digest, mixed().interface().digest(), "deterministic");
    assert_ne!(digest, gated().interface().digest());
    // An output for party 0 without its pad would be revealed to all.
    let mut bare = iface.clone();
    bare.outputs[0].mask = None;
    let e = bare.reveal_to().expect_err("unmasked");
    assert_eq!(
        e.message,
        "output \"sum\" goes to party 0 alone, but the outputs go to different receivers \
         and it has no pad: every party would learn it"
    );
    let e = Interface::from_json(&bare.to_json()).expect_err("unmasked");
    assert_eq!(e.kind, ErrorKind::Value);
    // A pad that is another party's input value.
    let mut stolen = iface.clone();
    stolen.outputs[0].mask = Some(7);
    assert_eq!(
        stolen.reveal_to().expect_err("party 2's pad").message,
        "output \"sum\": its pad is not an input value of party 0 of its own"
    );
    let mut input = iface.clone();
    input.outputs[0].mask = Some(0);
    assert!(
        input.reveal_to().is_err(),
        "party 0's input \"a\" is no pad"
    );
    let e = Interface::from_json("{}").expect_err("not an interface");
    assert!(
        e.message.starts_with("the interface is not valid: "),
        "{}",
        e.message
    );
}
