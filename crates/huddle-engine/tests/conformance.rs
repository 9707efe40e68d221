//! The conformance suite: every protocol huddle runs (`Protocol::ALL`: the
//! trusted third party, the secret-sharing protocols and multiparty
//! garbling), with every preprocessing schedule it has and at the party
//! counts worth testing, on every circuit of the public collection (its
//! known-answer vector as instance 0, random inputs for the rest), on random
//! Boolean circuits with constants, inverters and multi-fan-in gates, and on
//! random arithmetic circuits over every ring where the protocol runs rings.
//! Every party's output must equal the plaintext evaluator's.
//!
//! A new protocol joins by its row in the protocol table; nothing here names
//! a protocol.

use huddle_circuit::random::{random_circuit, random_inputs, RandomCircuitSpec};
use huddle_circuit::{
    corpus, hex, read_circuit_file, BitMatrix, Circuit, Format, Op, PlainEvaluator,
};
use huddle_core::{Prg, RingWidth};
use huddle_engine::protocol::{Family, PartyRule, Protocol};
use huddle_engine::testing::ConversionKind;
use huddle_engine::{Preprocess, RunOptions};
use huddle_net::{memory_networks, NetProfile};
use std::time::Duration;

mod common;

/// One way to run a protocol.
#[derive(Clone, Copy, Debug)]
struct Setting {
    protocol: Protocol,
    parties: usize,
    preprocess: Preprocess,
}

impl Setting {
    fn garbling(&self) -> bool {
        matches!(self.protocol.descriptor().family, Family::Garbling(_))
    }

    /// Instances per run: bitsliced engines get a batch that is not a
    /// multiple of 64 (partial words); garbling, whose cost is per instance,
    /// fewer, and one for large circuits among many parties.
    fn instances(&self, and_gates: usize) -> usize {
        match (self.garbling(), and_gates > 5000, self.parties > 5) {
            (false, ..) => 1037,
            (true, false, _) => 20,
            (true, true, false) => 2,
            (true, true, true) => 1,
        }
    }
}

/// Every protocol, at its fixed party count or, where it takes any, at the
/// smallest count with security and a few above; with each preprocessing
/// schedule it has.
fn settings() -> Vec<Setting> {
    let mut out = Vec::new();
    for protocol in Protocol::ALL {
        let d = protocol.descriptor();
        let counts = match d.parties {
            PartyRule::Exactly(k) => vec![k],
            // The TTP is a baseline: any count of two or more.
            PartyRule::AtLeast(_) if d.family == Family::Clear => vec![2, 3, 4, 5],
            PartyRule::AtLeast(k) => vec![k, k + 1, 7],
        };
        let mut schedules = vec![Preprocess::Interleaved];
        if d.separate_preprocessing {
            schedules.push(Preprocess::Separate);
        }
        for &parties in &counts {
            for &preprocess in &schedules {
                out.push(Setting {
                    protocol,
                    parties,
                    preprocess,
                });
            }
        }
    }
    out
}

/// Runs `circuit` under `setting` and asserts that every party's outputs
/// equal `want`.
fn assert_conforms(setting: Setting, name: &str, circuit: &Circuit, inputs: &[BitMatrix]) {
    assert_conforms_with(setting, name, circuit, inputs, RunOptions::default());
}

/// [`assert_conforms`] with these options (the setting's preprocessing).
fn assert_conforms_with(
    setting: Setting,
    name: &str,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    options: RunOptions,
) {
    let want = PlainEvaluator::new(circuit)
        .evaluate(inputs)
        .expect("plaintext");
    let options = options.with_preprocess(setting.preprocess);
    let run = huddle_engine::Run::builder(setting.protocol)
        .parties(setting.parties)
        .circuit(circuit.clone())
        .options(options)
        .build()
        .unwrap_or_else(|e| panic!("{setting:?} refuses {name}: {e}"));
    let nets = memory_networks(
        setting.parties,
        &NetProfile::lan(),
        Duration::from_secs(120),
    );
    let results = common::parties(
        run.local_over(nets, inputs)
            .unwrap_or_else(|e| panic!("{setting:?} on {name}: {e}")),
    );
    assert_eq!(results.len(), setting.parties);
    for (p, r) in results.iter().enumerate() {
        if setting.protocol.descriptor().dealer == Some(p) {
            // A dealer learns nothing.
            assert!(
                r.outputs.is_empty(),
                "{setting:?}: the dealer learned outputs"
            );
            continue;
        }
        assert!(
            r.outputs == want,
            "{setting:?} on {name}: party {p} differs from the plaintext evaluator"
        );
    }
}

#[test]
fn every_protocol_on_every_public_circuit_with_its_known_answers() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(dir) = corpus::locate_or_skip(here) else {
        return;
    };
    let corpus = corpus::load(&dir).expect("vectors.json");
    assert!(!corpus.is_empty(), "the collection has no circuits");
    let mut prg = Prg::from_seed([11; 16]);
    for (path, entry) in &corpus {
        let c = read_circuit_file(path, Format::Auto).expect("corpus circuit");
        let vector = &entry.vectors[0];
        for setting in settings() {
            let mut inputs = random_inputs(&c, &mut prg, setting.instances(entry.and_count));
            for (i, h) in vector.inputs.iter().enumerate() {
                let words = hex::decode(h, c.input_bits(i)).expect("vector input");
                inputs[i].row_mut(0).copy_from_slice(&words);
            }
            assert_conforms(setting, &entry.file, &c, &inputs);
            // The plaintext evaluator is the oracle; the vector checks it.
            let out = PlainEvaluator::new(&c)
                .evaluate(&inputs)
                .expect("plaintext");
            for (o, want) in out.iter().zip(&vector.outputs) {
                assert_eq!(&hex::encode(o.row(0), o.cols()), want, "{}", entry.file);
            }
        }
    }
}

#[test]
fn every_protocol_on_random_boolean_circuits_with_wide_gates() {
    let mut prg = Prg::from_seed([12; 16]);
    for round in 0..6usize {
        let mut cprg = Prg::from_seed([round as u8; 16]);
        let c = random_circuit(
            &RandomCircuitSpec::boolean(&[17, 64, 9], 250, 2 + (3 * round) % 15),
            &mut cprg,
        );
        for setting in settings() {
            let instances = setting.instances(0) + round;
            let inputs = random_inputs(&c, &mut prg, instances);
            assert_conforms(setting, &format!("random circuit {round}"), &c, &inputs);
        }
    }
}

#[test]
fn every_ring_protocol_on_random_arithmetic_circuits_over_every_ring() {
    let mut prg = Prg::from_seed([15; 16]);
    let ring_settings: Vec<Setting> = settings()
        .into_iter()
        .filter(|s| s.protocol.descriptor().rings)
        .collect();
    assert!(ring_settings.len() >= 4, "no protocols run rings");
    for (round, ring) in RingWidth::ALL.into_iter().enumerate() {
        let c = random_circuit(
            &RandomCircuitSpec::arithmetic(ring, &[3, 5, 2], 250, 2 + 3 * round),
            &mut prg,
        );
        // Dot products too (native on every ring protocol but the TTP).
        assert!(c.gates().iter().any(|g| g.op == Op::Dot), "{ring}: no DOT");
        for &setting in &ring_settings {
            // Narrow rings pack 64/k instances per word: batches that leave
            // the last word's lanes empty, and a single instance.
            for instances in [1000 + round, 997, 1] {
                let inputs = random_inputs(&c, &mut prg, instances);
                assert_conforms(setting, &format!("random circuit over {ring}"), &c, &inputs);
            }
        }
    }
}

/// Packed ring words (64/k elements each) cut among lanes and slices: a
/// batch whose lanes and slices end inside a word, at every narrow ring.
#[test]
fn every_ring_protocol_on_packed_words_across_lanes_and_slices() {
    let mut prg = Prg::from_seed([16; 16]);
    for ring in [RingWidth::W8, RingWidth::W16, RingWidth::W32] {
        let c = random_circuit(
            &RandomCircuitSpec::arithmetic(ring, &[2, 3, 1], 80, 3),
            &mut prg,
        );
        for setting in settings()
            .into_iter()
            .filter(|s| s.protocol.descriptor().rings)
        {
            let inputs = random_inputs(&c, &mut prg, 1001);
            // 4 KiB of shares: slices of a few dozen instances.
            let name = format!("random circuit over {ring}, 3 lanes, small slices");
            let options = RunOptions::default()
                .with_threads(3)
                .with_share_memory(4096);
            assert_conforms_with(setting, &name, &c, &inputs, options);
        }
    }
}

/// Split roles: every protocol that has roles to split, with every
/// assignment of roles to parties running at once on its share of the
/// batch: Boolean, arithmetic (packed and whole words) and mixed circuits,
/// a batch with fewer word units than assignments, and slices.
#[test]
fn every_role_splitting_protocol_with_split_roles() {
    let mut prg = Prg::from_seed([19; 16]);
    let splitting: Vec<Setting> = settings()
        .into_iter()
        .filter(|s| {
            let d = s.protocol.descriptor();
            d.family == Family::Sharing
                && d.dealer.is_none()
                && s.parties <= huddle_engine::protocol::MAX_SPLIT_PARTIES
        })
        .collect();
    assert!(splitting.len() >= 8, "no protocols split roles");
    let boolean = random_circuit(&RandomCircuitSpec::boolean(&[17, 64, 9], 120, 5), &mut prg);
    let ring32 = random_circuit(
        &RandomCircuitSpec::arithmetic(RingWidth::W32, &[3, 5, 2], 100, 4),
        &mut prg,
    );
    let ring64 = random_circuit(
        &RandomCircuitSpec::arithmetic(RingWidth::W64, &[3, 5, 2], 100, 4),
        &mut prg,
    );
    let mixed = random_circuit(
        &RandomCircuitSpec::mixed(RingWidth::W16, 13, 4, 120, 4),
        &mut prg,
    );
    let split = |share_memory: usize| {
        RunOptions::default()
            .with_split_roles(true)
            .with_share_memory(share_memory)
    };
    for &setting in &splitting {
        let d = setting.protocol.descriptor();
        for (c, instances, share_memory) in [
            (&boolean, 1037, 32 << 20),
            (&boolean, 65, 32 << 20),
            (&boolean, 3000, 4096),
        ] {
            let inputs = random_inputs(c, &mut prg, instances);
            let name = format!("random Boolean circuit, {instances} instances, split roles");
            assert_conforms_with(setting, &name, c, &inputs, split(share_memory));
        }
        if d.rings {
            for c in [&ring32, &ring64] {
                let inputs = random_inputs(c, &mut prg, 1001);
                let name = "random arithmetic circuit, split roles";
                assert_conforms_with(setting, name, c, &inputs, split(32 << 20));
            }
        }
        if d.conversions {
            let mut inputs = random_inputs(&mixed, &mut prg, 203);
            with_edge_values(&mixed, &mut inputs, RingWidth::W16);
            let name = "random mixed circuit, split roles";
            assert_conforms_with(setting, name, &mixed, &inputs, split(32 << 20));
        }
    }
}

/// Mixed circuits (A2B, B2A of several bits, BX2A, LTZ, EQZ, DOT, DOTTR next to Boolean and ring
/// gates) over every ring, on every protocol whose table row says it
/// converts; inputs are random but a quarter of each ring value's instances
/// is an edge value (0, ±1, the ring's extremes). DOTTR must equal the
/// plaintext exactly here: protocols without a fused truncation evaluate it
/// through exact conversions.
#[test]
fn every_converting_protocol_on_random_mixed_circuits_over_every_ring() {
    let mut prg = Prg::from_seed([17; 16]);
    let mixed_settings: Vec<Setting> = settings()
        .into_iter()
        .filter(|s| s.protocol.descriptor().conversions)
        .collect();
    assert!(mixed_settings.len() >= 5, "no protocols convert");
    for (round, ring) in RingWidth::ALL.into_iter().enumerate() {
        // Every conversion kind live in the compiled program (drawn again
        // until it is).
        let c = loop {
            let c = random_circuit(
                &RandomCircuitSpec::mixed(ring, 13, 4, 220, 2 + 3 * round),
                &mut prg,
            );
            let program = common::converting_program(&c);
            let live = |want: fn(ConversionKind) -> bool| {
                program.conversions.iter().any(|cv| want(cv.kind))
            };
            let kinds: [fn(ConversionKind) -> bool; 6] = [
                |k| k == ConversionKind::Decompose,
                |k| k == ConversionKind::Sign,
                |k| k == ConversionKind::Zero,
                |k| matches!(k, ConversionKind::Inject { factor: false, .. }),
                |k| matches!(k, ConversionKind::Inject { factor: true, .. }),
                |k| matches!(k, ConversionKind::Inject { bits: 2.., .. }),
            ];
            if kinds.into_iter().all(live) {
                break c;
            }
        };
        for &setting in &mixed_settings {
            let mut inputs = random_inputs(&c, &mut prg, 203 + round);
            with_edge_values(&c, &mut inputs, ring);
            assert_conforms(
                setting,
                &format!("random mixed circuit over {ring}"),
                &c,
                &inputs,
            );
        }
    }
}

/// The application circuits (`huddle circuit gen`: vecmat, perceptron,
/// auction, eq, lt, max, argmin, max-pairwise) on every converting
/// protocol, small sizes, random inputs with edge values.
#[test]
fn every_converting_protocol_runs_the_applications() {
    use huddle_circuit::apps::{auction, extreme, pairwise, perceptron, vector_matrix, Perceptron};
    let mut prg = Prg::from_seed([18; 16]);
    let shape = Perceptron {
        inputs: 12,
        hidden: 5,
        outputs: 3,
        frac: 8,
    };
    let apps = [
        ("vecmat", vector_matrix(8, RingWidth::W32)),
        ("perceptron", perceptron(shape, RingWidth::W64)),
        ("auction", auction(5, RingWidth::W16)),
        ("eq", pairwise(3, RingWidth::W32, false)),
        ("lt", pairwise(3, RingWidth::W64, true)),
        ("3-max", extreme(3, RingWidth::W32, true, false, false)),
        (
            "argmin of 6",
            extreme(6, RingWidth::W16, false, true, false),
        ),
        ("pairwise max", extreme(3, RingWidth::W8, true, false, true)),
    ];
    for setting in settings() {
        if !setting.protocol.descriptor().conversions {
            continue;
        }
        for (name, c) in &apps {
            let mut inputs = random_inputs(c, &mut prg, 70);
            // Edge values make equal pairs and ties (and fixed-point
            // overflow, so not for the perceptron).
            if *name != "perceptron" {
                let ring = c.ring().expect("ring applications");
                with_edge_values(c, &mut inputs, ring);
            }
            assert_conforms(setting, name, c, &inputs);
        }
    }
}

/// Replaces a quarter of the instances of every ring input with edge values.
fn with_edge_values(c: &Circuit, inputs: &mut [BitMatrix], ring: RingWidth) {
    let k = ring.bits() as usize;
    let half = 1u64 << (k - 1);
    let edges = [
        0,
        1,
        ring.mask(),
        half,
        half - 1,
        half + 1,
        2,
        ring.mask() - 1,
    ];
    for (i, m) in inputs.iter_mut().enumerate() {
        if c.inputs()[i].domain != huddle_circuit::Domain::Ring {
            continue;
        }
        for inst in (0..m.rows()).step_by(4) {
            let row = m.row_mut(inst);
            for j in 0..c.inputs()[i].wires as usize {
                let (word, shift) = (j * k / 64, j * k % 64);
                let e = edges[(inst / 4 + j) % edges.len()];
                row[word] = (row[word] & !(ring.mask() << shift)) | (e << shift);
            }
        }
    }
}

/// Protocols that do not run rings refuse ring circuits before any
/// communication, naming the reason.
#[test]
fn boolean_only_protocols_refuse_ring_circuits() {
    let mut prg = Prg::from_seed([16; 16]);
    let c = random_circuit(
        &RandomCircuitSpec::arithmetic(RingWidth::ALL[0], &[3, 5, 2], 50, 3),
        &mut prg,
    );
    for setting in settings() {
        let refused = huddle_engine::Run::builder(setting.protocol)
            .parties(setting.parties)
            .circuit(c.clone())
            .options(RunOptions::default())
            .build();
        assert_eq!(
            refused.is_err(),
            !setting.protocol.descriptor().rings,
            "{setting:?}"
        );
    }
}

/// With seeded randomness, randomness replays exactly: the trusted
/// dealer's files (its secret key and the deal id are drawn) are equal for
/// one seed and differ for another, and with the OS they differ every time.
#[test]
fn seeded_randomness_replays_and_the_os_never_does() {
    use huddle_engine::garble::linear::LinearChoice;
    use huddle_engine::Randomness;
    let c = huddle_circuit::gen::cmp_gt(8, 2);
    let deal = |randomness: Randomness| {
        let options = RunOptions::default()
            .with_linear(LinearChoice::TrustedDealer)
            .with_randomness(randomness);
        huddle_engine::garble::deal(&c, 4, 2, options).expect("deal")
    };
    let a = deal(Randomness::Seeded([1; 16]));
    assert_eq!(a, deal(Randomness::Seeded([1; 16])));
    assert_ne!(a, deal(Randomness::Seeded([2; 16])));
    assert_ne!(deal(Randomness::Os), deal(Randomness::Os));
    // Every party's seeded draws differ from every other's.
    let draws: Vec<[u8; 16]> = (0..4)
        .flat_map(|p| (0..3).map(move |d| (p, d)))
        .map(|(p, d)| {
            Randomness::Seeded([7; 16])
                .draw(p, d)
                .expect("draw")
                .next_seed()
        })
        .collect();
    for (i, x) in draws.iter().enumerate() {
        assert!(draws[i + 1..].iter().all(|y| y != x), "draw {i} repeats");
    }
}
