//! `huddle party`: a process per party over TLS for every protocol, with
//! dealt files (one-time), client-aided parties, batches checked against
//! `huddle local` and an expect file, and scripts/parties.sh.

mod common;

use common::circuits::adder;
use common::parties::{adder_parties_agree, certs, parties_run};
use common::run::{json_of, local, party, run};
use common::{bin, state_home, temp_dir, with_os_ports};
use std::process::Command;

#[test]
fn parties_on_separate_processes_compute_over_tls_by_default() {
    let dir = temp_dir("party");
    let c = adder(&dir);
    // Three parties for every protocol with t = 1 at three; four for bgw2
    // and bgw2-mal (t = 1: PRSS keys agreed over TLS, outputs confirmed by two
    // key contributors) and the 4-party malicious protocols (their streams
    // checked to end after the last message over real sockets).
    let mut cfg = dir.join("parties.toml");
    for (n, protocols) in [
        (3, &["ttp", "trio", "mfi3", "bgw3"][..]),
        (
            4,
            &[
                "bgw2",
                "bgw2-mal",
                "quad",
                "quad-het",
                "fantastic4",
                "tetrad",
            ][..],
        ),
    ] {
        cfg = certs(&dir.join(format!("n{n}")), n);
        for protocol in protocols {
            adder_parties_agree(&cfg, n, protocol, &c, |_, p| p);
        }
    }
    // bgw2-mal across hosts beyond PRSS's reach is refused before connecting.
    let cfg16 = certs(&dir.join("n16"), 16);
    let o = party(&cfg16, 5).protocol("bgw2-mal").circuit(&c).output();
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("run `huddle deal`"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // With `huddle deal` as the trusted dealer, 16 processes compute over TLS.
    let dealt = dir.join("dealt");
    let o = run(&[
        "deal",
        "--parties",
        "16",
        "--circuit",
        c.to_str().expect("utf8"),
        "--out",
        dealt.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("trusted dealer"));
    adder_parties_agree(&cfg16, 16, "bgw2-mal", &c, |i, p| {
        p.arg("--dealt").arg(dealt.join(format!("party-{i}.dealt")))
    });
    // Dealt files are owner-only, and one-time: a second run is refused
    // before connecting (it would reuse every wire mask).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dealt.join("party-3.dealt"))
            .expect("dealt file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
    }
    let third = party(&cfg16, 3).protocol("bgw2-mal").circuit(&c);
    let o = third
        .clone()
        .arg("--dealt")
        .arg(dealt.join("party-3.dealt"))
        .output();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("was used before"),
        "{err}"
    );
    // The ledger is the user's (here the test's XDG_STATE_HOME), not a
    // folder beside the file: a copy elsewhere is the same deal, refused.
    let ledger = state_home().join("huddle/spent-deals");
    assert!(err.contains(&ledger.display().to_string()), "{err}");
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("folder");
    let copy = elsewhere.join("party-3.dealt");
    std::fs::copy(dealt.join("party-3.dealt"), &copy).expect("copy");
    let o = third.json().arg("--dealt").arg(&copy).output();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("was used before"),
        "{err}"
    );
    // With --json the refusal is typed: party 3's share of this deal, spent.
    let printed: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let e = &printed["error"];
    assert_eq!(
        (
            e["kind"].as_str(),
            e["exit_code"].as_i64(),
            e["party"].as_u64()
        ),
        (Some("refused"), Some(2), Some(3)),
        "{e}"
    );
    assert_eq!(
        (
            e["refusal"]["kind"].as_str(),
            e["refusal"]["party"].as_u64()
        ),
        (Some("spent"), Some(3)),
        "{e}"
    );
    let deal = e["refusal"]["deal"].as_str().expect("the deal id");
    assert!(
        deal.len() == 32 && deal.bytes().all(|b| b.is_ascii_hexdigit()),
        "{deal}"
    );
    assert!(
        err.contains(&format!("deal {deal} was used before")),
        "{err}"
    );
    // A party given inputs it does not own is stopped before connecting.
    let o = party(&cfg, 0)
        .protocol("ttp")
        .circuit(&c)
        .input(&["1", "2"])
        .output();
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("party 0 owns input values [0]"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn client_aided_parties_compute_across_processes_and_the_dealer_learns_nothing() {
    // ca2pc over TLS between three processes: round robin gives the
    // adder's inputs to the computing parties (1 and 3 to P0, 2 to P1);
    // the dealer takes no input and prints no output.
    let dir = temp_dir("ca2pc");
    let c = adder(&dir);
    let cfg = certs(&dir.join("n3"), 3);
    for extra in [&[][..], &["--preprocess", "separate", "--threads", "2"][..]] {
        let inputs: [&[&str]; 2] = [&["1", "3"], &["2"]];
        let outputs = parties_run(&cfg, 3, "ca2pc", &c, &inputs, |_, p| p.args(extra));
        for (i, o) in outputs.into_iter().enumerate() {
            let v = json_of(&o, &format!("party {i} {extra:?}"));
            let want = if i == 2 {
                serde_json::json!([])
            } else {
                serde_json::json!([["2"]])
            };
            assert_eq!(v["outputs"], want, "party {i} {extra:?}");
        }
    }
}

#[test]
fn parties_run_batches_over_tls_agree_with_local_and_check_an_expect_file() {
    let dir = temp_dir("party-batch");
    let c = adder(&dir);
    let cfg = certs(&dir.join("n3"), 3);
    let inputs: [&[&str]; 3] = [&["1"], &["2"], &["3"]];
    // What `huddle local` computes for instance 0.
    let local = local("trio")
        .circuit(&c)
        .input(&["1", "2", "3"])
        .batch(300)
        .json()
        .output();
    assert!(
        local.status.success(),
        "{}",
        String::from_utf8_lossy(&local.stderr)
    );
    let local: serde_json::Value = serde_json::from_slice(&local.stdout).expect("json");
    let expect = dir.join("expect.txt");
    std::fs::write(&expect, "2\n").expect("write");
    for protocol in ["trio", "bgw3"] {
        let outputs = parties_run(&cfg, 3, protocol, &c, &inputs, |_, p| {
            p.batch(300).check().arg("--expect").arg(&expect)
        });
        for (i, o) in outputs.into_iter().enumerate() {
            let v = json_of(&o, &format!("{protocol} party {i}"));
            assert_eq!(v["outputs"], local["outputs"], "{protocol} party {i}");
            assert_eq!(v["batch"], 300, "{protocol} party {i}");
            assert_eq!(v["checked"], true);
            // The same keys as `huddle local --json` (and the party's id).
            for key in [
                "online_rounds",
                "bytes",
                "seconds",
                "wall_seconds",
                "gates_per_second",
            ] {
                assert!(v.get(key).is_some(), "{protocol}: no {key}");
            }
        }
    }
    // A wrong expectation fails the check, naming the value.
    std::fs::write(&expect, "3\n").expect("write");
    let outputs = parties_run(&cfg, 3, "trio", &c, &inputs, |_, p| {
        p.check().arg("--expect").arg(&expect)
    });
    for o in outputs {
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.contains("instance 0 column 1 (output value 0) is 2, --expect says 3"),
            "{e}"
        );
    }
    // An expect file of the wrong shape is refused before connecting.
    std::fs::write(&expect, "2,1\n").expect("write");
    let o = party(&cfg, 0)
        .protocol("trio")
        .circuit(&c)
        .input(&["1"])
        .check()
        .arg("--expect")
        .arg(&expect)
        .output();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("--expect") && e.contains("line 1 has 2 fields, but 1 is expected"),
        "{e}"
    );
    // Parties given different batch sizes stop at the hello, naming it.
    let outputs = parties_run(&cfg, 3, "trio", &c, &inputs, |i, p| {
        p.batch(if i == 0 { 10 } else { 20 })
    });
    let named = outputs.iter().any(|o| {
        let e = String::from_utf8_lossy(&o.stderr);
        e.contains("with --batch 10") && e.contains("with --batch 20")
    });
    assert!(
        outputs.iter().all(|o| o.status.code() == Some(7)),
        "every party exits with the mismatch code"
    );
    assert!(
        named,
        "{:?}",
        outputs
            .iter()
            .map(|o| String::from_utf8_lossy(&o.stderr).to_string())
            .collect::<Vec<_>>()
    );
}

/// scripts/parties.sh runs every party of a parties file as a process of
/// its own; with `--random` no party needs `--input`, and all parties
/// learn the same outputs.
#[test]
fn the_parties_script_runs_every_party_with_random_inputs() {
    let dir = temp_dir("parties-script");
    let c = adder(&dir);
    let cfg = certs(&dir.join("n3"), 3);
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/parties.sh");
    let outputs = with_os_ports(&cfg, || {
        let o = Command::new("bash")
            .env("XDG_STATE_HOME", state_home())
            .arg(&script)
            .arg(&cfg)
            .args([
                "--protocol",
                "trio",
                "--circuit",
                c.to_str().expect("utf8"),
                "--batch",
                "100",
                "--random",
                "--json",
                "--timeout",
                "30",
            ])
            .env("HUDDLE", bin())
            .env("OUT", &*dir)
            .output()
            .expect("bash");
        vec![o]
    });
    let o = &outputs[0];
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let reports: Vec<serde_json::Value> = (0..3)
        .map(|i| {
            let text = std::fs::read_to_string(dir.join(format!("party-{i}.out"))).expect("out");
            serde_json::from_str(&text).expect("json")
        })
        .collect();
    for r in &reports {
        assert_eq!(r["batch"], 100);
        assert_eq!(r["outputs"], reports[0]["outputs"]);
    }
    // --random and --input exclude each other.
    let e = party(&cfg, 0)
        .protocol("trio")
        .circuit(&c)
        .arg("--random")
        .input(&["1"])
        .output();
    assert!(String::from_utf8_lossy(&e.stderr).contains("cannot be used with"));
}
