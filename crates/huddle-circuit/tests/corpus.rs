//! Every circuit of the public collection: statistics equal to `vectors.json`,
//! every known-answer vector, write/read round trip, and the bitsliced
//! evaluator equal to the reference evaluator on random batches.
//! Skips (with a message) where the collection is absent, as in a fresh clone.

use huddle_circuit::corpus::{self, CorpusCircuit};
use huddle_circuit::eval::EvalOptions;
use huddle_circuit::{
    read_circuit, read_circuit_file, reference, write_circuit, Format, PlainEvaluator, Stats,
};
use huddle_core::Prg;
use std::path::PathBuf;

fn collection() -> Option<Vec<(PathBuf, CorpusCircuit)>> {
    let dir = corpus::locate_or_skip(env!("CARGO_MANIFEST_DIR").as_ref())?;
    let all = corpus::load(&dir).expect("vectors.json is readable");
    assert!(
        all.len() >= 11,
        "expected the whole collection, found {} circuits",
        all.len()
    );
    Some(all)
}

fn read(path: &std::path::Path) -> huddle_circuit::Circuit {
    read_circuit_file(path, Format::Auto).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn statistics_match_the_published_counts() {
    let Some(all) = collection() else { return };
    for (path, expect) in all {
        let c = read(&path);
        let s = Stats::of(&c);
        let name = &expect.file;
        assert_eq!(s.gates, expect.gates, "{name} gates");
        assert_eq!(s.wires, expect.wires, "{name} wires");
        assert_eq!(s.inputs, expect.input_widths, "{name} inputs");
        assert_eq!(s.outputs, expect.output_widths, "{name} outputs");
        assert_eq!(s.and_count, expect.and_count, "{name} and_count");
        assert_eq!(s.and_depth, expect.and_depth, "{name} and_depth");
        let count = |k: &str| expect.gate_counts.get(k).copied().unwrap_or(0);
        assert_eq!(
            s.and_by_fanin.values().sum::<usize>(),
            count("AND"),
            "{name} AND lines"
        );
        assert_eq!(
            (s.xor, s.inv, s.eq, s.eqw, s.mand),
            (
                count("XOR"),
                count("INV"),
                count("EQ"),
                count("EQW"),
                count("MAND")
            ),
            "{name}"
        );
    }
}

#[test]
fn every_known_answer_vector() {
    let Some(all) = collection() else { return };
    let mut checked = 0;
    for (path, expect) in all {
        let c = read(&path);
        let eval = PlainEvaluator::new(&c);
        for v in &expect.vectors {
            let inputs: Vec<&str> = v.inputs.iter().map(String::as_str).collect();
            let got = eval
                .evaluate_hex(&inputs)
                .unwrap_or_else(|e| panic!("{}: {e}", expect.file));
            assert_eq!(
                got, v.outputs,
                "{} on {:?} ({})",
                expect.file, v.inputs, v.note
            );
            assert_eq!(
                reference::evaluate_one(&c, &decode_all(&c, &inputs)),
                decode_outputs(&c, &v.outputs),
                "{} reference",
                expect.file
            );
            checked += 1;
        }
    }
    assert!(checked >= 33, "only {checked} vectors checked");
}

#[test]
fn multi_fan_in_gates_are_read_as_such() {
    let Some(all) = collection() else { return };
    let (path, _) = all
        .iter()
        .find(|(_, c)| c.file.ends_with("8f_sklansky_64.txt"))
        .expect("8f_sklansky_64 is in the collection");
    let s = Stats::of(&read(path));
    let expect: Vec<(usize, usize)> = vec![
        (2, 183),
        (3, 103),
        (4, 87),
        (5, 71),
        (6, 55),
        (7, 39),
        (8, 23),
    ];
    assert_eq!(s.and_by_fanin.into_iter().collect::<Vec<_>>(), expect);
    assert_eq!(s.dead_gates, 30);
}

#[test]
fn write_then_read_is_the_identity() {
    let Some(all) = collection() else { return };
    for (path, expect) in all {
        let c = read(&path);
        let mut text = Vec::new();
        write_circuit(&c, &mut text).expect("write to memory");
        let again =
            read_circuit(text.as_slice()).unwrap_or_else(|e| panic!("{}: {e}", expect.file));
        assert_eq!(again, c, "{} round trip", expect.file);
        let mut text2 = Vec::new();
        write_circuit(&again, &mut text2).expect("write to memory");
        assert_eq!(text, text2, "{} writer is deterministic", expect.file);
    }
}

#[test]
fn bitsliced_equals_reference_on_random_batches() {
    let Some(all) = collection() else { return };
    let mut prg = Prg::from_seed([42; 16]);
    for (path, expect) in all {
        let c = read(&path);
        // Not a multiple of 64, so partial blocks and chunks are exercised; more for small circuits.
        let instances = if c.gates().len() > 20_000 {
            200
        } else {
            1000 + 37
        };
        let inputs = huddle_circuit::random::random_inputs(&c, &mut prg, instances);
        for options in [
            EvalOptions {
                chunk_words: Some(1),
                threads: 1,
            },
            EvalOptions {
                chunk_words: None,
                threads: 2,
            },
        ] {
            let got = PlainEvaluator::with_options(&c, options)
                .evaluate(&inputs)
                .expect("widths match");
            for r in (0..instances).step_by(if instances > 500 { 7 } else { 1 }) {
                let row_inputs: Vec<Vec<u64>> = inputs.iter().map(|m| m.row(r).to_vec()).collect();
                let want = reference::evaluate_one(&c, &row_inputs);
                for (o, w) in got.iter().zip(&want) {
                    assert_eq!(
                        o.row(r),
                        w.as_slice(),
                        "{} instance {r} with {options:?}",
                        expect.file
                    );
                }
            }
        }
    }
}

fn decode_all(c: &huddle_circuit::Circuit, inputs: &[&str]) -> Vec<Vec<u64>> {
    inputs
        .iter()
        .enumerate()
        .map(|(i, t)| huddle_circuit::hex::decode(t, c.input_bits(i)).expect("vector hex"))
        .collect()
}

fn decode_outputs(c: &huddle_circuit::Circuit, outputs: &[String]) -> Vec<Vec<u64>> {
    outputs
        .iter()
        .enumerate()
        .map(|(i, t)| huddle_circuit::hex::decode(t, c.output_bits(i)).expect("vector hex"))
        .collect()
}
