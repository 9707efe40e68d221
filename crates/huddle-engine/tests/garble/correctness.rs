//! Right outputs at every party that learns them: AES-128 and a comparison
//! for up to 31 parties under every variant, and `--reveal-to 0`, under
//! which no party but the evaluator gets an output message.

use super::{check, SEMI_HONEST, VARIANTS};
use crate::common::{local, request};
use huddle_circuit::gen;
use huddle_circuit::random::random_inputs;
use huddle_circuit::PlainEvaluator;
use huddle_core::Prg;
use huddle_engine::error::{Refusal, RunError};
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, NetProfile, Phase};
use std::time::Duration;

#[test]
fn aes_for_seven_and_thirteen_parties() {
    let mut prg = Prg::from_seed([12; 16]);
    let aes = gen::generate("aes128", 128, 2).expect("generate");
    for (protocol, _) in VARIANTS {
        for n in [7, 13] {
            check(protocol, n, "aes128", &aes, 1, &mut prg);
        }
    }
}

#[test]
fn thirty_one_parties() {
    let mut prg = Prg::from_seed([16; 16]);
    let c = gen::cmp_gt(16, 2);
    for (protocol, _) in VARIANTS {
        check(protocol, 31, "cmp-gt 16", &c, 3, &mut prg);
    }
}

/// `--reveal-to 0` is honoured by the semi-honest variants: only the
/// evaluator receives (and returns) the outputs, and the other parties get
/// no output message at all; bgw2-mal refuses it (its contributors decode
/// the outputs to confirm them).
#[test]
fn reveal_to_the_evaluator_keeps_outputs_from_everyone_else() {
    let c = gen::cmp_gt(8, 2);
    let mut prg = Prg::from_seed([21; 16]);
    let instances = 9;
    let inputs = random_inputs(&c, &mut prg, instances);
    let want = PlainEvaluator::new(&c)
        .evaluate(&inputs)
        .expect("plaintext");
    let out_bytes =
        (c.outputs().iter().map(|o| o.wires.len()).sum::<usize>() * instances).div_ceil(8) as u64;
    for (protocol, _) in SEMI_HONEST {
        let n = 4;
        let mut per_reveal = Vec::new();
        for reveal_to in [None, Some(0)] {
            let nets = memory_networks(n, &NetProfile::lan(), Duration::from_secs(60));
            let options = RunOptions::default().with_reveal_to(reveal_to);
            let results = local(protocol, nets, &c, &inputs, options).expect("run");
            assert_eq!(results[0].outputs, want, "{protocol} {reveal_to:?}");
            for r in &results[1..] {
                match reveal_to {
                    None => assert_eq!(r.outputs, want, "{protocol}"),
                    Some(_) => assert!(r.outputs.is_empty(), "{protocol}: a party learned outputs"),
                }
            }
            per_reveal.push(results[0].accounting.clone());
        }
        for p in 1..n {
            let all = per_reveal[0].link(Phase::Online, 0, p).bytes;
            let only0 = per_reveal[1].link(Phase::Online, 0, p).bytes;
            assert_eq!(all - only0, out_bytes, "{protocol}: evaluator to party {p}");
        }
    }
    let opts = RunOptions::default().with_reveal_to(Some(0));
    let e = request("bgw2-mal", 4, &c, opts).expect_err("refused");
    let reveal_to = Refusal::Option {
        option: "reveal-to",
    };
    assert!(
        matches!(e, RunError::Refused { refusal, .. } if refusal == reveal_to),
        "{e}"
    );
    assert!(e.to_string().contains("contributors decode"), "{e}");
}
