//! `huddle local`: every protocol's parties in one process, on every
//! transport and both builds of the vector kernels, agree with the
//! plaintext evaluator on Boolean and ring circuits; the JSON report's
//! keys, bytes per link and rounds.

mod common;

use common::circuits::{adder, generate, write_circuit};
use common::run::{json_of, local, run, stderr};
use common::temp_dir;

#[test]
fn local_runs_agree_with_the_plaintext_evaluator_on_every_transport() {
    let dir = temp_dir("local");
    let c = adder(&dir);
    let c = c.to_str().expect("utf8");
    // 3 + 2 + 3 = 8 = 0 mod 4; low bit first: 1 + 2 + 3 = 6 = 2 mod 4.
    assert_eq!(
        String::from_utf8_lossy(
            &run(&["circuit", "eval", c, "--input", "1", "--input", "2", "--input", "3"]).stdout
        )
        .trim(),
        "2"
    );
    for transport in ["memory", "tcp", "tls"] {
        let o = local("ttp")
            .circuit(c)
            .input(&["1", "2", "3"])
            .args(["--transport", transport])
            .batch(100)
            .check()
            .json()
            .output();
        let v = json_of(&o, transport);
        assert_eq!(v["outputs"], serde_json::json!([["2"]]), "{transport}");
        // 100 instances of one word each way: inputs of parties 1 and 2 to party 0, outputs back.
        assert_eq!(
            v["bytes"]["online"],
            serde_json::json!({"1->0": 800, "2->0": 800, "0->1": 800, "0->2": 800}),
            "{transport}"
        );
        assert_eq!(v["checked"], serde_json::json!(true));
    }
}

#[test]
fn secret_sharing_protocols_run_locally_on_every_transport() {
    let dir = temp_dir("sharing");
    let c = adder(&dir);
    let c = c.to_str().expect("utf8");
    for protocol in ["replicated", "astra", "trio", "mfi3"] {
        for transport in ["memory", "tcp", "tls"] {
            let o = local(protocol)
                .circuit(c)
                .input(&["1", "2", "3"])
                .args(["--transport", transport])
                .batch(500)
                .check()
                .json()
                .output();
            let v = json_of(&o, &format!("{protocol} {transport}"));
            assert_eq!(
                v["outputs"],
                serde_json::json!([["2"]]),
                "{protocol} {transport}"
            );
            assert_eq!(v["protocol"], protocol);
            assert_eq!(v["parties"], 3);
            assert_eq!(v["batch"], 500);
            for phase in ["setup", "offline", "online", "verify"] {
                assert!(v["bytes"][phase].is_object(), "{protocol}: bytes.{phase}");
                assert!(
                    v["seconds"][phase].is_number(),
                    "{protocol}: seconds.{phase}"
                );
            }
            assert!(v["gates_per_second"].as_f64().is_some_and(|g| g > 0.0));
            // The adder's AND-depth, plus input sharing and output.
            let depth = v["online_rounds"].as_u64().expect("rounds");
            assert!(depth >= 3, "{protocol}: {depth} rounds");
        }
    }
    // Trio with all preprocessing ahead: P0 -> P2 traffic is offline, and the answer is the same.
    let o = local("trio")
        .args(["--preprocess", "separate"])
        .circuit(c)
        .input(&["1", "2", "0"])
        .batch(100)
        .check()
        .json()
        .output();
    let v = json_of(&o, "local");
    assert_eq!(v["outputs"], serde_json::json!([["3"]]));
    assert!(v["bytes"]["offline"]["0->2"]
        .as_u64()
        .is_some_and(|b| b > 0));
    let o = local("mfi3")
        .args(["--preprocess", "separate"])
        .circuit(c)
        .input(&["1", "2", "3"])
        .output();
    assert!(String::from_utf8_lossy(&o.stderr).contains("mfi3 has no separate preprocessing phase"));
    let o = local("replicated")
        .parties(4)
        .circuit(c)
        .input(&["1", "2", "3"])
        .output();
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("replicated is a 3-party protocol, but the run has 4 parties"));
}

#[test]
fn arithmetic_circuits_run_under_every_protocol() {
    use huddle_circuit::random::{random_circuit, RandomCircuitSpec};
    use huddle_core::{Prg, RingWidth};
    let dir = temp_dir("arith");
    let mut prg = Prg::from_seed([5; 16]);
    for ring in [RingWidth::W16, RingWidth::W64] {
        let c = random_circuit(
            &RandomCircuitSpec::arithmetic(ring, &[2, 2, 1], 60, 4),
            &mut prg,
        );
        let path = dir.join(format!("arith{}.txt", ring.bits()));
        write_circuit(&path, &c);
        let digits = ring.bits() as usize / 4;
        let inputs: Vec<String> = (0..3)
            .map(|i| "7".repeat(digits * c.inputs()[i].wires as usize))
            .collect();
        let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        for protocol in ["ttp", "replicated", "astra", "trio", "mfi3"] {
            let o = local(protocol)
                .circuit(&path)
                .batch(300)
                .check()
                .input(&inputs)
                .output();
            assert!(
                o.status.success(),
                "{protocol} over {ring}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

/// The engine's loops are compiled once per instruction set (AVX-512,
/// AVX2, baseline x86-64) and picked at run time; `HUDDLE_KERNELS` caps
/// the build. Every build this CPU runs, of every protocol of the
/// secret-sharing engine and the TTP, agrees with the plaintext evaluator
/// (`--check` over every instance) on a Boolean and a ring circuit, and
/// the report names the build that ran.
#[test]
fn every_build_of_the_kernels_computes_what_the_plaintext_evaluator_does() {
    use huddle_circuit::random::{random_circuit, RandomCircuitSpec};
    use huddle_core::simd::Kernels;
    use huddle_core::{Prg, RingWidth};
    let dir = temp_dir("kernels");
    let aes = dir.join("aes.txt");
    generate(&aes, &["aes128-expanded", "--fanin", "2"]);
    let ring = random_circuit(
        &RandomCircuitSpec::arithmetic(RingWidth::W32, &[2, 2, 1], 80, 5),
        &mut Prg::from_seed([11; 16]),
    );
    let ring_path = dir.join("ring32.txt");
    write_circuit(&ring_path, &ring);
    let protocols = huddle_engine::Protocol::ALL.into_iter().filter(|p| {
        matches!(
            p.descriptor().family,
            huddle_engine::protocol::Family::Sharing | huddle_engine::protocol::Family::Clear
        )
    });
    let builds = Kernels::ALL.into_iter().filter(|k| k.supported());
    for circuit in [&aes, &ring_path] {
        for protocol in protocols.clone().map(|p| p.name()) {
            for build in builds.clone() {
                let o = local(protocol)
                    .env(huddle_core::simd::KERNELS_VAR, build.name())
                    .circuit(circuit)
                    .batch(200)
                    .check()
                    .json()
                    .output();
                let what = format!("{protocol} on {} ({})", circuit.display(), build.name());
                let v = json_of(&o, &what);
                assert_eq!(v["checked"], true, "{what}");
                assert_eq!(v["vector_kernels"], build.name(), "{what}");
            }
        }
    }
}

/// A build of the kernels that does not exist is refused before anything
/// runs (exit 2, naming the variable), not silently replaced: a user who
/// misspells it would time or test another build.
#[test]
fn an_unknown_build_of_the_kernels_is_refused() {
    let dir = temp_dir("kernels-unknown");
    let aes = dir.join("aes.txt");
    generate(&aes, &["aes128-expanded", "--fanin", "2"]);
    let o = local("trio")
        .env(huddle_core::simd::KERNELS_VAR, "avx1024")
        .circuit(&aes)
        .batch(1)
        .output();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("HUDDLE_KERNELS"), "{}", stderr(&o));
}
