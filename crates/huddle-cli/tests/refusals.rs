//! Requests refused before any communication, with a message naming the
//! cause: circuits a protocol cannot run, bad options, no protocol named;
//! and the warning every party gives when the insecure trusted third party
//! is named.

mod common;

use common::circuits::{adder, write_circuit};
use common::parties::{certs, parties_run};
use common::run::{json_of, local, party, Run};
use common::temp_dir;

#[test]
fn circuits_a_protocol_cannot_run_are_refused_before_connecting() {
    use huddle_circuit::random::{random_circuit, RandomCircuitSpec};
    use huddle_core::{Prg, RingWidth};
    let dir = temp_dir("mixed");
    let mut prg = Prg::from_seed([6; 16]);
    let c = random_circuit(
        &RandomCircuitSpec::mixed(RingWidth::W16, 4, 1, 40, 2),
        &mut prg,
    );
    let path = dir.join("mixed.txt");
    write_circuit(&path, &c);
    let cfg = certs(&dir, 4);
    // Party 0 alone: had it got as far as connecting it would fail waiting for
    // its peers, with another message.
    let o = party(&cfg, 0)
        .protocol("bgw2")
        .circuit(&path)
        .input(&["0"])
        .args(["--timeout", "30"])
        .output();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("bgw2 garbles Boolean circuits only"), "{err}");
}

#[test]
fn local_refuses_bad_requests_before_communicating() {
    let dir = temp_dir("bad");
    let c = adder(&dir);
    let on_adder = |protocol| local(protocol).circuit(&c);
    let cases = [
        (
            on_adder("quad5").input(&["1", "1", "1"]),
            "invalid value 'quad5' for '--protocol <PROTOCOL>'",
        ),
        (
            on_adder("quad").parties(3).input(&["1", "1", "1"]),
            "quad is a 4-party protocol, but the run has 3 parties",
        ),
        (
            on_adder("ttp").input(&["1"]),
            "takes 3 input values, but 1 --input given",
        ),
        (
            on_adder("ttp").input(&["1", "1", "7"]),
            "input value 2: `7` does not fit in 2 bits",
        ),
        (
            on_adder("ttp").input(&["1", "1", "1"]).parties(1),
            "--parties must be 2",
        ),
        (
            on_adder("ttp")
                .input(&["1", "1", "1"])
                .args(["--net", "moon"]),
            "unknown network profile `moon`",
        ),
        (
            on_adder("bgw2-mal")
                .parties(31)
                .args(["--linear", "prss"])
                .input(&["1", "1", "1"]),
            "use the trusted dealer",
        ),
        (
            on_adder("bgw2-mal")
                .parties(4)
                .args(["--opt", "short"])
                .input(&["1", "1", "1"]),
            "must include `reduced`",
        ),
        (
            on_adder("bgw2-mal")
                .parties(4)
                .args(["--linear", "oracle"])
                .input(&["1", "1", "1"]),
            "unknown linear preprocessing `oracle`",
        ),
    ];
    for (args, needle) in cases {
        let o = args.output();
        assert_eq!(o.status.code(), Some(2), "{args:?}: bad input exits with 2");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(needle),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// No run without a named protocol: the only one that would need no choice
/// is the trusted third party, which shows party 0 every input. Named, it
/// runs, and every party says so on stderr and in its JSON report.
#[test]
fn no_protocol_is_refused_and_a_named_ttp_warns_every_party() {
    let dir = temp_dir("no-protocol");
    let c = adder(&dir);
    let job = dir.join("job.toml");
    std::fs::write(&job, "circuit = \"adder.txt\"\n").expect("write");
    let cfg = certs(&dir.join("n3"), 3);
    for args in [
        Run::new(["local", "--circuit"]).arg(&c),
        Run::new(["local", "--job"]).arg(&job),
        party(&cfg, 0).circuit(&c).input(&["1"]),
    ] {
        let o = args.output();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("no protocol: give --protocol"),
            "{args:?}: {err}"
        );
        assert!(o.stdout.is_empty(), "{args:?}: nothing runs");
    }
    let warning = "ttp is not secure: party 0 sees every party's inputs in the clear";
    let o = local("ttp").circuit(&c).json().output();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("warning: {warning}")), "{err}");
    let v = json_of(&o, "local ttp");
    assert!(
        v["warning"].as_str().is_some_and(|w| w.contains(warning)),
        "{v}"
    );
    // A secure protocol carries no warning.
    let v = json_of(&local("trio").circuit(&c).json().output(), "trio");
    assert!(v["warning"].is_null(), "{v}");
    let inputs: [&[&str]; 3] = [&["1"], &["2"], &["3"]];
    for (i, o) in parties_run(&cfg, 3, "ttp", &c, &inputs, |_, p| p)
        .into_iter()
        .enumerate()
    {
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        let v = json_of(&o, &format!("party {i}"));
        assert_eq!(err.matches(warning).count(), 1, "party {i}: {err}");
        assert!(
            v["warning"].as_str().is_some_and(|w| w.contains(warning)),
            "party {i}: {v}"
        );
    }
}
