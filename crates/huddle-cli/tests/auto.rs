//! `--protocol auto` (the plan's winner, run) and `--roles` (who plays
//! which role): under `huddle local`, and across `huddle party` processes
//! that agree on the choice in the hello, or stop naming the difference.

mod common;

use common::circuits::adder;
use common::parties::{certs, parties_run};
use common::run::{json_of, local, run, stderr};
use common::temp_dir;
use std::path::Path;

/// Three 1-bit inputs, one per party, out = (a AND b, a, b, c): which
/// input landed where shows in the output.
fn spread(dir: &Path) -> std::path::PathBuf {
    let text = "4 7\n3 1 1 1\n1 4\n\n2 1 0 1 3 AND\n1 1 0 4 EQW\n1 1 1 5 EQW\n1 1 2 6 EQW\n";
    let p = dir.join("spread.txt");
    std::fs::write(&p, text).expect("write");
    p
}

/// The winner of `huddle plan` for the adder on aws3 (whose links differ,
/// so roles matter) is what `huddle local --protocol auto` runs, with the
/// evaluator's outputs.
#[test]
fn auto_under_local_runs_the_plans_winner() {
    let dir = temp_dir("auto-local");
    let c = adder(&dir);
    let c = c.to_str().expect("utf8");
    for security in ["semi-honest", "malicious"] {
        let plan = run(&[
            "plan",
            "--circuit",
            c,
            "--net",
            "aws3",
            "--batch",
            "4",
            "--security",
            security,
            "--json",
        ]);
        let plan = json_of(&plan, "plan");
        let o = local("auto")
            .circuit(c)
            .args(["--net", "aws3", "--security", security])
            .input(&["1", "2", "3"])
            .batch(4)
            .check()
            .json()
            .output();
        let v = json_of(&o, "local auto");
        let (winner, auto) = (&plan["winner"], &v["auto"]);
        for key in [
            "protocol",
            "fan_in",
            "rewritten",
            "roles",
            "preprocess",
            "threads",
        ] {
            assert_eq!(auto[key], winner[key], "{security}: {key}");
        }
        assert_eq!(v["protocol"], winner["protocol"], "{security}");
        assert_eq!(v["checked"], true);
        assert_eq!(v["outputs"], serde_json::json!([["2"]]));
        assert!(stderr(&o).contains("auto: "), "{}", stderr(&o));
        if security == "malicious" {
            assert!(
                auto["security"]
                    .as_str()
                    .expect("text")
                    .starts_with("malicious"),
                "{auto}"
            );
        }
    }
}

/// Options auto chooses are refused beside it, and auto's own without
/// it; no candidate names every protocol's reason; all as bad input (2).
#[test]
fn auto_refuses_what_it_cannot_honour() {
    let dir = temp_dir("auto-refuse");
    let c = adder(&dir);
    let cases: [(&[&str], &str); 4] = [
        (
            &["--protocol", "auto", "--max-fan-in", "2"],
            "--protocol auto chooses --max-fan-in itself",
        ),
        (
            &["--protocol", "trio", "--allow-dealer"],
            "--allow-dealer applies to --protocol auto only",
        ),
        (
            &["--protocol", "auto", "--parties", "2"],
            "ttp: a baseline that sees every input in the clear, never chosen",
        ),
        (
            &["--protocol", "auto", "--corruptions", "2", "--parties", "4"],
            "fewer than the 2 asked for",
        ),
    ];
    for (args, want) in cases {
        let o = run(&[&["local", "--circuit", c.to_str().expect("utf8")], args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
}

/// `--roles 2,0,1` under local runs over the links as the roles see them
/// and gives the evaluator's outputs.
#[test]
fn roles_under_local_give_the_evaluators_outputs() {
    let dir = temp_dir("roles-local");
    let c = spread(&dir);
    let o = local("trio")
        .circuit(&c)
        .args(["--roles", "2,0,1", "--net", "aws3"])
        .input(&["1", "0", "1"])
        .check()
        .json()
        .output();
    let v = json_of(&o, "local --roles");
    assert_eq!(v["checked"], true);
}

/// A rates file of a slow host, for party 0 only.
fn slow_rates(dir: &Path) -> std::path::PathBuf {
    let mut rates = huddle_engine::Rates {
        cores: 4,
        ..huddle_engine::Rates::default()
    };
    rates.work.garble_gate *= 50.0;
    rates.work.evaluate_gate *= 50.0;
    rates.transport.tls.message *= 20.0;
    let p = dir.join("slow.toml");
    std::fs::write(&p, rates.to_toml()).expect("write rates");
    p
}

/// Three processes over loopback TLS agree on auto's choice (party 0 with
/// a slower host's rates and more cores: the rates travel in the hello, so
/// every host plans alike, to the predicted second, with the fewest cores)
/// and compute the sum.
#[test]
fn party_auto_processes_agree_on_one_choice() {
    let dir = temp_dir("auto-party");
    let c = adder(&dir);
    let cfg = certs(&dir.join("n3"), 3);
    let slow = slow_rates(&dir);
    let inputs: [&[&str]; 3] = [&["1"], &["2"], &["3"]];
    let outputs = parties_run(&cfg, 3, "auto", &c, &inputs, |i, p| {
        let p = p.args(["--net", "aws3"]);
        match i {
            0 => p.arg("--rates").arg(&slow),
            _ => p,
        }
    });
    let reports: Vec<serde_json::Value> = outputs
        .iter()
        .enumerate()
        .map(|(i, o)| json_of(o, &format!("party {i}")))
        .collect();
    for (i, v) in reports.iter().enumerate() {
        assert_eq!(v["outputs"], serde_json::json!([["2"]]), "party {i}");
        assert_eq!(v["auto"], reports[0]["auto"], "party {i}");
    }
    let cores = huddle_engine::Rates::default().cores as u64;
    let threads = reports[0]["auto"]["threads"].as_u64().expect("threads");
    assert!(threads <= cores, "{threads} threads on {cores} cores");
}

/// Hosts given different link profiles stop at connect, naming --net
/// (exit 7, the parties disagree).
#[test]
fn party_auto_on_different_profiles_stops_naming_the_net() {
    let dir = temp_dir("auto-party-net");
    let c = adder(&dir);
    let cfg = certs(&dir.join("n3"), 3);
    let inputs: [&[&str]; 3] = [&["1"], &["2"], &["3"]];
    let outputs = parties_run(&cfg, 3, "auto", &c, &inputs, |i, p| {
        p.args(["--net", if i == 2 { "wan" } else { "aws3" }])
    });
    for (i, o) in outputs.iter().enumerate() {
        assert_eq!(o.status.code(), Some(7), "party {i}: {}", stderr(o));
    }
    assert!(
        outputs.iter().any(|o| stderr(o).contains("--net")),
        "{}",
        stderr(&outputs[0])
    );
}

/// Hosts given different --roles stop at connect naming it; given the
/// same, host h plays role roles^-1[h] with its own inputs: the outputs
/// are the evaluator's on the hosts' inputs, revealed to the host asked.
#[test]
fn party_roles_are_checked_and_map_inputs_and_outputs() {
    let dir = temp_dir("roles-party");
    let c = spread(&dir);
    let cfg = certs(&dir.join("n3"), 3);
    let inputs: [&[&str]; 3] = [&["1"], &["1"], &["0"]];
    let outputs = parties_run(&cfg, 3, "trio", &c, &inputs, |i, p| {
        p.args(["--roles", if i == 0 { "1,0,2" } else { "0,1,2" }])
    });
    for (i, o) in outputs.iter().enumerate() {
        assert_eq!(o.status.code(), Some(7), "party {i}: {}", stderr(o));
    }
    assert!(
        outputs.iter().any(|o| stderr(o).contains("--roles")),
        "{}",
        stderr(&outputs[1])
    );
    let want = local("trio")
        .circuit(&c)
        .input(&["1", "1", "0"])
        .json()
        .output();
    let want = json_of(&want, "local")["outputs"].clone();
    let outputs = parties_run(&cfg, 3, "trio", &c, &inputs, |_, p| {
        p.args(["--roles", "2,0,1", "--reveal-to", "1"])
    });
    for (i, o) in outputs.iter().enumerate() {
        let v = json_of(o, &format!("party {i}"));
        match i {
            1 => assert_eq!(v["outputs"], want, "party {i}"),
            _ => assert_eq!(v["outputs"], serde_json::json!([]), "party {i}"),
        }
    }
}
