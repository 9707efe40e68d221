//! Requests refused before any message is sent, each with its reason.

use super::VARIANTS;
use crate::common::{local, request};
use huddle_circuit::gen;
use huddle_circuit::random::{random_circuit, random_inputs, RandomCircuitSpec};
use huddle_core::{Prg, RingWidth};
use huddle_engine::error::{Refusal, RunError};
use huddle_engine::garble::linear::LinearChoice;
use huddle_engine::garble::Optimizations;
use huddle_engine::RunOptions;
use huddle_net::{memory_networks, NetProfile};
use std::time::Duration;

#[test]
fn bad_requests_are_refused_before_any_communication() {
    let c = gen::cmp_gt(8, 2);
    let opts = RunOptions::default();
    for (protocol, variant) in VARIANTS {
        let e = request(protocol, 2, &c, opts).expect_err("2 parties");
        let no_security = Refusal::NoSecurity {
            smallest: variant.smallest_secure_parties(),
        };
        assert!(
            matches!(e, RunError::Refused { refusal, .. } if refusal == no_security),
            "{e}"
        );
        // t = 0 is refused with the smallest secure party count named.
        let smallest = variant.smallest_secure_parties();
        let e = request(protocol, smallest - 1, &c, opts).expect_err("t = 0");
        assert!(
            e.to_string()
                .contains(&format!("at least {smallest} parties")),
            "{e}"
        );
        assert!(request(protocol, smallest, &c, opts).is_ok());
        let to1 = opts.with_reveal_to(Some(1));
        let e = request(protocol, 4, &c, to1).expect_err("reveal to 1");
        assert!(refused(&e, "reveal-to"), "{e}");
        // Each names who learns the outputs instead.
        let who = match variant.is_malicious() {
            true => "contributors",
            false => "evaluator",
        };
        assert!(e.to_string().contains(who), "{e}");
        let mut prg = Prg::from_seed([1; 16]);
        let ring = random_circuit(
            &RandomCircuitSpec::arithmetic(RingWidth::ALL[0], &[2, 2], 20, 2),
            &mut prg,
        );
        let e = request(protocol, 4, &ring, opts).expect_err("ring");
        assert!(e.to_string().contains("Boolean"), "{e}");
        assert!(request(protocol, 31, &c, opts).is_ok());
    }
    let plain = opts.with_garble(Optimizations::NONE);
    let e = request("bgw2-mal", 4, &c, plain).expect_err("no reduced");
    assert!(refused(&e, "opt"), "{e}");
    assert!(e.to_string().contains("reduced"), "{e}");
    // PRSS for 31 parties (C(31, 10) sets) is refused with the way out named.
    let prss = opts.with_linear(LinearChoice::Prss);
    let needs_dealer = Refusal::NeedsDealer {
        parties: 31,
        threshold: 10,
    };
    let e = request("bgw2-mal", 31, &c, prss).expect_err("PRSS at 31");
    assert!(
        matches!(e, RunError::Refused { refusal, .. } if refusal == needs_dealer),
        "{e}"
    );
    assert!(e.to_string().contains("trusted dealer"), "{e}");
    let mut prg = Prg::from_seed([2; 16]);
    let inputs = random_inputs(&c, &mut prg, 1);
    for _ in 0..3 {
        let nets = memory_networks(31, &NetProfile::lan(), Duration::from_secs(20));
        let e = local("bgw2-mal", nets, &c, &inputs, prss)
            .err()
            .expect("PRSS at 31 parties");
        assert!(e.contains("trusted dealer"), "{e}");
    }
}

/// Whether `e` refuses the option `option`.
fn refused(e: &RunError, option: &str) -> bool {
    matches!(e, RunError::Refused { refusal: Refusal::Option { option: o }, .. } if *o == option)
}
