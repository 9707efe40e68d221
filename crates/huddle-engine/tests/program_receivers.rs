//! A typed program whose outputs go to different receivers, run under
//! protocols through the library API (`Run::local`): the run reveals to
//! every party, each output for one party masked with that party's
//! one-time pad (huddle_circuit::program, `receivers.rs`). Every receiver
//! decodes its outputs with its own pads; every other party receives value
//! ⊕ pad, which changes from run to run.

use huddle_circuit::program::{
    BinOp, CmpOp, CompiledProgram, Data, Interface, Pads, Program, Receiver, Shape, Type,
};
use huddle_circuit::{BitMatrix, PlainEvaluator};
use huddle_core::RingWidth;
use huddle_engine::{LocalNet, Protocol, Run, RunOptions, RunReport};

const RING: Type = Type::Int(RingWidth::W64);
const FIXED: Type = Type::Fixed(RingWidth::W64, 16);

/// `parties` parties: "sum" (u16) to party 0, "both" (a AND b) to party
/// 2, "lt" to every party; with `ring`, "prod" (ring) to party 2 and
/// "fsum" (fixed point) to party 0 as well.
fn mixed(parties: usize, ring: bool) -> CompiledProgram {
    let mut p = Program::new(parties).expect("program");
    let a = p
        .input(0, Type::UInt(16), Shape::Vector(3), "a")
        .expect("a");
    let b = p
        .input(1, Type::UInt(16), Shape::Vector(3), "b")
        .expect("b");
    let sum = p.binary(BinOp::Add, &a, &b).expect("add");
    let both = p.binary(BinOp::And, &a, &b).expect("and");
    let lt = p.compare(CmpOp::Lt, &a, &b).expect("lt");
    p.reveal(&sum, Receiver::Party(0), "sum").expect("reveal");
    p.reveal(&both, Receiver::Party(2), "both").expect("reveal");
    p.reveal(&lt, Receiver::All, "lt").expect("reveal");
    if ring {
        let x = p.input(2, RING, Shape::Vector(2), "x").expect("x");
        let y = p.input(1, RING, Shape::Vector(2), "y").expect("y");
        let f = p.input(0, FIXED, Shape::Scalar, "f").expect("f");
        let g = p.input(2, FIXED, Shape::Scalar, "g").expect("g");
        let prod = p.binary(BinOp::Mul, &x, &y).expect("mul");
        let fsum = p.binary(BinOp::Add, &f, &g).expect("fixed add");
        p.reveal(&prod, Receiver::Party(2), "prod").expect("reveal");
        p.reveal(&fsum, Receiver::Party(0), "fsum").expect("reveal");
    }
    p.compile().expect("compiles")
}

/// Two instances of every input.
fn given(iface: &Interface) -> Vec<(usize, &'static str, Data)> {
    let all = [
        (0, "a", Data::UInts(vec![1, 700, 65535, 8, 0, 3])),
        (1, "b", Data::UInts(vec![2, 700, 3, 9, 1, 2])),
        (2, "x", Data::Ints(vec![3, -4, i64::MIN, 6])),
        (1, "y", Data::Ints(vec![5, 6, -1, -7])),
        (0, "f", Data::Floats(vec![1.5, -2.25])),
        (2, "g", Data::Floats(vec![0.25, 0.5])),
    ];
    all.into_iter()
        .filter(|(_, name, _)| iface.input(name).is_some())
        .collect()
}

/// What each output is on `given`.
fn expected(name: &str) -> Data {
    match name {
        "sum" => Data::UInts(vec![3, 1400, 2, 17, 1, 5]),
        "both" => Data::UInts(vec![0, 700, 3, 8, 0, 2]),
        "lt" => Data::Bools(vec![true, false, false, true, true, false]),
        "prod" => Data::Ints(vec![15, -24, i64::MIN, -42]),
        "fsum" => Data::Floats(vec![1.75, -1.75]),
        other => panic!("no output {other}"),
    }
}

/// Every party's inputs finished (drawing its pads) and merged in circuit
/// order, with each party's pads.
fn inputs(iface: &Interface) -> (Vec<BitMatrix>, Vec<Pads>) {
    let (rows, pads): (Vec<_>, Vec<_>) = (0..iface.parties)
        .map(|party| {
            let mut mine = iface.party_inputs(party, 2);
            for (p, name, d) in given(iface) {
                if p == party {
                    mine.set(name, &d).expect("encodes");
                }
            }
            mine.finish().expect("every input given")
        })
        .unzip();
    (iface.merge(rows).expect("merge"), pads)
}

fn run(c: &CompiledProgram, protocol: Protocol, inputs: &[BitMatrix]) -> RunReport {
    let iface = c.interface();
    let options =
        RunOptions::for_protocol(protocol).with_reveal_to(iface.reveal_to().expect("consistent"));
    Run::builder(protocol)
        .parties(iface.parties)
        .circuit(c.circuit().clone())
        .options(options)
        .build()
        .expect("a valid run")
        .local(inputs, &LocalNet::memory())
        .expect("runs")
}

/// Each party decodes what it received with its own pads: exactly the
/// outputs it learns, with their values.
fn check_receivers(c: &CompiledProgram, report: &RunReport, pads: Vec<Pads>) {
    let iface = c.interface();
    for (party, pads) in pads.into_iter().enumerate() {
        let got = pads
            .decode(iface, &report.party_outputs[party])
            .expect("decodes");
        let learned: Vec<&str> = got.learned().map(|(n, _)| n).collect();
        let want: Vec<&str> = iface
            .outputs
            .iter()
            .filter(|o| o.to == Receiver::All || o.to == Receiver::Party(party))
            .map(|o| o.name.as_str())
            .collect();
        assert_eq!(learned, want, "party {party}");
        for (name, data) in got.learned() {
            assert_eq!(data, &expected(name), "{name} at party {party}");
        }
        for o in iface
            .outputs
            .iter()
            .filter(|o| !want.contains(&o.name.as_str()))
        {
            let e = got.get(&o.name).expect_err("not this party's");
            assert_eq!(
                e.message,
                format!(
                    "party {party} does not learn output {:?}: it goes to {}",
                    o.name, o.to
                )
            );
        }
    }
}

fn receivers_decode_under(protocol: Protocol, parties: usize, ring: bool) {
    let c = mixed(parties, ring);
    let iface = c.interface();
    assert_eq!(iface.reveal_to().expect("consistent"), None);
    let (first_inputs, first_pads) = inputs(iface);
    let first = run(&c, protocol, &first_inputs);
    // Every party receives exactly what the circuit computes on the
    // inputs with the pads: value ⊕ pad, or value + pad, for a masked output.
    let plain = PlainEvaluator::new(c.circuit())
        .evaluate(&first_inputs)
        .expect("evaluates");
    assert_eq!(first.party_outputs, vec![plain; parties], "{protocol:?}");
    // Party 1's view of "sum" (three u16 in one word) less party 0's pad.
    let pad = &first_inputs[iface.outputs[0].mask.expect("masked")];
    let seen = &first.party_outputs[1][0];
    let words: Vec<u64> = (0..2).map(|r| seen.row(r)[0] ^ pad.row(r)[0]).collect();
    assert_eq!(words, [3 | 1400 << 16 | 2 << 32, 17 | 1 << 16 | 5 << 32]);
    check_receivers(&c, &first, first_pads);
    // The same inputs again: what party 1 receives of the outputs masked
    // for parties 0 and 2 is new (asserted where a row has 32 bits or more:
    // 2^-32 or less that it repeats), the output it learns is not.
    let (second_inputs, second_pads) = inputs(iface);
    let second = run(&c, protocol, &second_inputs);
    for (i, o) in iface.outputs.iter().enumerate() {
        let seen = |r: &RunReport| r.party_outputs[1][i].clone();
        for row in 0..2 {
            let same = seen(&first).row(row) == seen(&second).row(row);
            // A masked row of fewer than 32 bits may repeat by chance.
            if o.mask.is_none() || seen(&first).cols() >= 32 {
                assert_eq!(
                    same,
                    o.mask.is_none(),
                    "{protocol:?}: {:?} row {row}",
                    o.name
                );
            }
        }
    }
    check_receivers(&c, &second, second_pads);
}

#[test]
fn every_receiver_decodes_its_outputs_under_trio() {
    receivers_decode_under(Protocol::Trio, 3, true);
}

#[test]
fn every_receiver_decodes_its_outputs_under_quad() {
    receivers_decode_under(Protocol::Quad, 4, true);
}

#[test]
fn every_receiver_decodes_its_outputs_under_bgw3() {
    receivers_decode_under(Protocol::Bgw3, 3, false);
}

#[test]
fn outputs_for_one_party_run_unmasked_with_reveal_to_that_party() {
    let mut p = Program::new(3).expect("program");
    let a = p
        .input(0, Type::UInt(16), Shape::Vector(3), "a")
        .expect("a");
    let b = p
        .input(1, Type::UInt(16), Shape::Vector(3), "b")
        .expect("b");
    let sum = p.binary(BinOp::Add, &a, &b).expect("add");
    let lt = p.compare(CmpOp::Lt, &a, &b).expect("lt");
    p.reveal(&sum, Receiver::Party(2), "sum").expect("reveal");
    p.reveal(&lt, Receiver::Party(2), "lt").expect("reveal");
    let c = p.compile().expect("compiles");
    let iface = c.interface();
    assert_eq!(iface.reveal_to().expect("consistent"), Some(2));
    assert!(iface.outputs.iter().all(|o| o.mask.is_none()));
    let (all, pads) = inputs(iface);
    let report = run(&c, Protocol::Trio, &all);
    assert!(report.party_outputs[0].is_empty() && report.party_outputs[1].is_empty());
    check_receivers(&c, &report, pads);
}
