//! `huddle local` and `huddle party` with the trusted-third-party protocol:
//! correct outputs, exact bytes per link, every transport, errors before
//! any communication.

mod common;

use common::circuits::{adder, write_circuit};
use common::parties::{adder_parties_agree, certs, parties_run, spawn_parties};
use common::run::{json_of, local, party, run, Run};
use common::{bin, finish_parties, state_home, temp_dir, with_os_ports};
use std::path::Path;
use std::process::{Command, Stdio};

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

/// The engine's loops are compiled twice, for AVX2 and for baseline x86-64,
/// and picked at run time; `HUDDLE_NO_AVX2` picks the baseline. Both builds
/// of every protocol of the secret-sharing engine agree with the plaintext evaluator
/// (`--check` over every instance) on a Boolean and a ring circuit, and the
/// report names the build that ran.
#[test]
fn both_builds_of_the_kernels_compute_what_the_plaintext_evaluator_does() {
    use huddle_circuit::random::{random_circuit, RandomCircuitSpec};
    use huddle_core::{Prg, RingWidth};
    let dir = temp_dir("kernels");
    let aes = dir.join("aes.txt");
    let o = run(&["circuit", "gen", "aes128-expanded", "--fanin", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::write(&aes, &o.stdout).expect("write aes");
    let ring = random_circuit(
        &RandomCircuitSpec::arithmetic(RingWidth::W32, &[2, 2, 1], 80, 5),
        &mut Prg::from_seed([11; 16]),
    );
    let ring_path = dir.join("ring32.txt");
    write_circuit(&ring_path, &ring);
    let cpu_avx2 = huddle_core::simd::cpu_has_avx2();
    let protocols = huddle_engine::Protocol::ALL.into_iter().filter(|p| {
        matches!(
            p.descriptor().family,
            huddle_engine::protocol::Family::Sharing
        )
    });
    for circuit in [&aes, &ring_path] {
        for protocol in protocols.clone().map(|p| p.name()) {
            for baseline in [false, true] {
                let o = local(protocol)
                    .env("HUDDLE_NO_AVX2", if baseline { "1" } else { "" })
                    .circuit(circuit)
                    .batch(200)
                    .check()
                    .json()
                    .output();
                let what = format!("{protocol} on {} (baseline {baseline})", circuit.display());
                let v = json_of(&o, &what);
                assert_eq!(v["checked"], true, "{what}");
                let build = if cpu_avx2 && !baseline {
                    "avx2"
                } else {
                    "baseline"
                };
                assert_eq!(v["vector_kernels"], build, "{what}");
            }
        }
    }
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
    let o = third.arg("--dealt").arg(&copy).output();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("was used before"),
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

#[test]
fn verbose_parties_log_every_link_and_quiet_ones_nothing() {
    let dir = temp_dir("party-log");
    let c = adder(&dir);
    let cfg = certs(&dir.join("n3"), 3);
    let inputs: [&[&str]; 3] = [&["1"], &["2"], &["3"]];
    let outputs = parties_run(&cfg, 3, "trio", &c, &inputs, |_, p| p.arg("-v"));
    for (i, o) in outputs.iter().enumerate() {
        assert!(
            o.status.success(),
            "party {i}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let log = String::from_utf8_lossy(&o.stderr);
        // Each party logs the handshake with each of its two peers.
        for peer in (0..3).filter(|&p| p != i) {
            let line = log
                .lines()
                .find(|l| l.contains("hello agreed") && l.contains(&format!("peer={peer}")))
                .unwrap_or_else(|| panic!("party {i} logged nothing about party {peer}: {log}"));
            assert!(
                line.contains(&format!("party={i}")) && line.contains("TLS"),
                "{line}"
            );
        }
        // stdout stays the JSON report.
        serde_json::from_slice::<serde_json::Value>(&o.stdout).expect("json");
    }
    let quiet = parties_run(&cfg, 3, "trio", &c, &inputs, |_, p| p);
    for o in quiet {
        assert!(o.status.success());
        assert!(!String::from_utf8_lossy(&o.stderr).contains("hello agreed"));
    }
}

#[test]
fn a_long_run_on_a_terminal_shows_progress_and_json_runs_do_not() {
    // `script` gives the run a terminal; the emulated WAN makes it last
    // several seconds however fast the machine (49 rounds of 50 ms).
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to give the run a terminal");
        return;
    }
    let dir = temp_dir("progress");
    let c = dir.join("ed8.txt");
    let o = run(&[
        "circuit",
        "gen",
        "edit-distance",
        "--bits",
        "16",
        "--size",
        "8",
        "-o",
        c.to_str().expect("utf8"),
    ]);
    assert!(o.status.success());
    let on_terminal = |extra: &str| {
        let cmd = format!(
            "{} local --protocol ca2pc --circuit {} --net wan {extra}",
            bin(),
            c.display()
        );
        let o = Command::new("script")
            .env("XDG_STATE_HOME", state_home())
            .args(["-qfc", &cmd, "/dev/null"])
            .output()
            .expect("script");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let shown = on_terminal("");
    assert!(
        shown.contains("evaluating [") && shown.contains("steps"),
        "{shown}"
    );
    assert!(!on_terminal("--json").contains("evaluating ["));
    // Not a terminal: nothing either.
    let o = local("ca2pc").circuit(&c).args(["--net", "wan"]).output();
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stderr).contains("evaluating ["));
}

#[test]
fn input_and_output_files_work_locally_and_across_processes() {
    let dir = temp_dir("files");
    let c = adder(&dir);
    // 50 instances of a + b + c mod 4; party i's file holds value i only.
    let rows: Vec<[u32; 3]> = (0..50u32)
        .map(|i| [i % 4, (i / 4) % 4, (i * 7) % 4])
        .collect();
    let path = |name: &str| dir.join(name).to_str().expect("utf8").to_string();
    let all: String = rows
        .iter()
        .map(|r| format!("{},{},{}\n", r[0], r[1], r[2]))
        .collect();
    std::fs::write(path("all.csv"), all).expect("write");
    for p in 0..3 {
        let mine: String = rows.iter().map(|r| format!("{}\n", r[p])).collect();
        std::fs::write(path(&format!("p{p}.txt")), mine).expect("write");
    }
    let want: String = rows
        .iter()
        .map(|r| format!("{}\n", (r[0] + r[1] + r[2]) % 4))
        .collect();
    let o = local("trio")
        .circuit(&c)
        .args([
            "--inputs",
            &path("all.csv"),
            "--outputs",
            &path("local.out"),
        ])
        .check()
        .json()
        .output();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["batch"], 50);
    assert_eq!(
        std::fs::read_to_string(path("local.out")).expect("read"),
        want
    );
    let cfg = certs(&dir.join("n3"), 3);
    // Every instance checked against an expected-outputs file.
    std::fs::write(path("want.txt"), &want).expect("write");
    for protocol in ["trio", "bgw3"] {
        let outputs = parties_run(&cfg, 3, protocol, &c, &[], |i, p| {
            p.args(["--inputs", &path(&format!("p{i}.txt"))])
                .args(["--outputs", &path(&format!("{protocol}{i}.out"))])
                .check()
                .args(["--expect", &path("want.txt")])
        });
        for (i, o) in outputs.iter().enumerate() {
            assert!(
                o.status.success(),
                "{protocol} {i}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let got = std::fs::read_to_string(path(&format!("{protocol}{i}.out"))).expect("read");
            assert_eq!(got, want, "{protocol} party {i}");
        }
    }
    // One wrong instance among 50 fails every party's check, named.
    let mut wrong: Vec<String> = want.lines().map(String::from).collect();
    wrong[17] = ((wrong[17].parse::<u32>().expect("digit") + 1) % 4).to_string();
    std::fs::write(path("want.txt"), wrong.join("\n") + "\n").expect("write");
    let outputs = parties_run(&cfg, 3, "trio", &c, &[], |i, p| {
        p.args(["--inputs", &path(&format!("p{i}.txt"))])
            .check()
            .args(["--expect", &path("want.txt")])
    });
    for o in &outputs {
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("--check: instance 17 column 1"), "{e}");
        assert_eq!(o.status.code(), Some(9), "--check's own code: {e}");
    }
    // Malformed files are refused before any communication, naming the
    // line and the column.
    for (text, error) in [
        ("1,2,3\n1,2\n", "line 2 has 2 fields, but 3 are expected"),
        (
            "1,2,3\n1;2;3\n",
            "line 2 has 1 field, but 3 are expected (one per Boolean value, one per element of a ring value); it contains `;`",
        ),
        ("1,2,3\n1,2,x\n", "line 2 column 3"),
        ("1,2,3\n1,9,3\n", "line 2 column 2"),
        ("# only a comment\n", "no instances"),
    ] {
        std::fs::write(path("bad.csv"), text).expect("write");
        let o = local("trio")
            .circuit(&c)
            .args(["--inputs", &path("bad.csv")])
            .output();
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(error) && e.contains("bad.csv"), "{text:?}: {e}");
    }
    // Decimal fields over a ring, negative numbers as two's complement.
    let vm = dir.join("vm.txt");
    let o = run(&[
        "circuit",
        "gen",
        "vecmat",
        "--size",
        "2",
        "--bits",
        "16",
        "-o",
        vm.to_str().expect("utf8"),
    ]);
    assert!(o.status.success());
    std::fs::write(path("vm.csv"), "1 2 3 4 5 6\n65535 0 1 1 1 1\n").expect("write");
    std::fs::write(path("vm-signed.csv"), "1 2 3 4 5 6\n-1 0 1 1 1 1\n").expect("write");
    let o = local("mfi3")
        .circuit(&vm)
        .args(["--inputs", &path("vm.csv"), "--format", "dec"])
        .args(["--outputs", "-"])
        .check()
        .output();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "13,16\n65535,65535\n");
    // A negative number is read only with --signed.
    let o = local("mfi3")
        .circuit(&vm)
        .args(["--inputs", &path("vm-signed.csv"), "--format", "dec"])
        .output();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("vm-signed.csv: line 2 column 1: -1 is negative, but the fields are unsigned: give --signed"),
        "{e}"
    );
    // Signed output, and fixed-point fields (4 fractional bits): x·I with
    // x = (−0.5, 0.25) is (−8, 4) in units of 2^−8, read back as 2^−4.
    let signed = local("trio")
        .circuit(&vm)
        .args(["--inputs", &path("vm-signed.csv"), "--format", "dec"])
        .args(["--signed", "--outputs", "-"])
        .output();
    assert_eq!(String::from_utf8_lossy(&signed.stdout), "13,16\n-1,-1\n");
    std::fs::write(path("fx.csv"), "-0.5,0.25,1,0,0,1\n").expect("write");
    let fixed = local("trio")
        .circuit(&vm)
        .args(["--inputs", &path("fx.csv"), "--frac", "4", "--outputs", "-"])
        .check()
        .output();
    assert!(
        fixed.status.success(),
        "{}",
        String::from_utf8_lossy(&fixed.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&fixed.stdout), "-8,4\n");
    std::fs::write(path("fx.csv"), "-0.5,0.25,1,0,0,5000\n").expect("write");
    let out_of_range = local("trio")
        .circuit(&vm)
        .args(["--inputs", &path("fx.csv"), "--frac", "4"])
        .output();
    let e = String::from_utf8_lossy(&out_of_range.stderr);
    assert!(
        e.contains("line 1 column 6") && e.contains("fixed-point range"),
        "{e}"
    );
}

/// A job file every party is given: per-party input files (party 0 owns
/// nothing and takes the batch from the others), explicit owners, outputs
/// to one party's file (0: garbling reveals to its evaluator or to all); across three processes over TLS for a
/// secret-sharing and a garbling protocol, equal to `huddle local --job`.
#[test]
fn a_job_file_runs_the_same_job_locally_and_across_processes() {
    let dir = temp_dir("job");
    adder(&dir);
    let path = |name: &str| dir.join(name).to_str().expect("utf8").to_string();
    // 40 instances; values 0 and 2 are party 1's, value 1 party 2's.
    let rows: Vec<[u32; 3]> = (0..40u32)
        .map(|i| [i % 4, (i / 4) % 4, (i * 3) % 4])
        .collect();
    let p0: String = rows.iter().map(|r| format!("{}\n", r[1])).collect();
    let p1: String = rows
        .iter()
        .map(|r| format!("{}, {}\n", r[0], r[2]))
        .collect();
    std::fs::write(path("p2.csv"), format!("b\n{p0}")).expect("write");
    std::fs::write(path("p1.csv"), format!("a, c\n{p1}")).expect("write");
    let want: String = rows
        .iter()
        .map(|r| format!("{}\n", (r[0] + r[1] + r[2]) % 4))
        .collect();
    let job = |protocol: &str, out: &str| {
        format!(
            "# the adder, with party 0 learning the sums\n\
             circuit = \"adder.txt\"\nprotocol = \"{protocol}\"\nowners = [1, 2, 1]\n\
             reveal_to = 0\nformat = \"dec\"\nheader = true\n\
             [inputs]\n2 = \"p2.csv\"\n1 = \"p1.csv\"\n[outputs]\n0 = \"{out}\"\n"
        )
    };
    for protocol in ["trio", "bgw3"] {
        std::fs::write(path("job.toml"), job(protocol, "local.csv")).expect("write");
        let local = Run::new(["local", "--job", &path("job.toml")])
            .check()
            .json()
            .output();
        assert!(
            local.status.success(),
            "{protocol}: {}",
            String::from_utf8_lossy(&local.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&local.stdout).expect("json");
        assert_eq!(
            (v["batch"].as_u64(), v["protocol"].as_str()),
            (Some(40), Some(protocol))
        );
        let header_and = |rows: &str| format!("output0\n{rows}");
        assert_eq!(
            std::fs::read_to_string(path("local.csv")).expect("read"),
            header_and(&want),
            "{protocol} local"
        );
        std::fs::write(path("job.toml"), job(protocol, "party.csv")).expect("write");
        let cfg = certs(&dir.join(format!("certs-{protocol}")), 3);
        let outputs = spawn_parties(&cfg, 3, |_, p| p.args(["--job", &path("job.toml")]));
        for (i, o) in outputs.iter().enumerate() {
            assert!(
                o.status.success(),
                "{protocol} party {i}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        assert_eq!(
            std::fs::read_to_string(path("party.csv")).expect("read"),
            header_and(&want),
            "{protocol} across processes"
        );
    }
    // Hosts given different jobs stop at connect, naming the setting.
    let cfg = certs(&dir.join("certs-mismatch"), 3);
    std::fs::write(path("job.toml"), job("trio", "x.csv")).expect("write");
    std::fs::write(
        path("other.toml"),
        job("trio", "x.csv").replace("owners = [1, 2, 1]", "owners = [1, 2, 2]"),
    )
    .expect("write");
    let outputs = spawn_parties(&cfg, 3, |i, p| {
        // Party 0 owns no input either way: it reaches the hello.
        let file = if i == 0 { "other.toml" } else { "job.toml" };
        p.args(["--job", &path(file)])
    });
    let errors: Vec<String> = outputs
        .iter()
        .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        .collect();
    assert!(
        outputs.iter().all(|o| o.status.code() == Some(7)),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e
            .contains("the job files differ in `owners`: [1,2,1] here, [1,2,2] at party 0")
            || e.contains("the job files differ in `owners`: [1,2,2] here, [1,2,1] at party")),
        "{errors:?}"
    );
    assert!(
        !dir.join("x.csv").exists(),
        "no output after a refused hello"
    );
    // A party whose job names its inputs file takes no --input as well.
    let o = party(&cfg, 1)
        .args(["--job", &path("job.toml")])
        .input(&["1"])
        .output();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("p1.csv gives this party's inputs"), "{e}");
    // Settings in two places, unknown keys, a batch the files contradict.
    for (extra, job_text, error) in [
        (
            vec!["--protocol", "mfi3"],
            job("trio", "x.csv"),
            "--protocol is given on the command line and by --job",
        ),
        (
            vec![],
            job("trio", "x.csv").replace("protocol", "protocl"),
            "unknown field `protocl`",
        ),
        (
            vec!["--batch", "7"],
            job("trio", "x.csv"),
            "the batch is 7, but the input files have 40",
        ),
        (
            vec!["--input", "1", "--input", "2", "--input", "3"],
            job("trio", "x.csv"),
            "both give the inputs",
        ),
        (
            vec![],
            job("trio", "x.csv").replace("owners = [1, 2, 1]", "owners = [1, 2]"),
            "`owners` lists 2 parties, but the circuit has 3",
        ),
        (
            vec![],
            job("trio", "x.csv").replace("0 = \"x.csv\"", "1 = \"x.csv\""),
            "party 1 an output file, but it learns no outputs",
        ),
    ] {
        std::fs::write(path("bad.toml"), job_text).expect("write");
        let o = Run::new(["local", "--job", &path("bad.toml")])
            .args(extra)
            .output();
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(error), "{error}: {e}");
    }
}

/// `--inputs -` reads stdin and `--outputs -` writes stdout: huddle in a
/// pipeline, with a header line each way.
#[test]
fn inputs_from_stdin_and_outputs_to_stdout() {
    use std::io::Write;
    let dir = temp_dir("pipe");
    let c = adder(&dir);
    let mut child = local("trio")
        .circuit(&c)
        .args([
            "--inputs",
            "-",
            "--outputs",
            "-",
            "--format",
            "dec",
            "--header",
        ])
        .check()
        .command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"a,b,c\n1,2,3\n# a comment\n3, 3, \"3\"\n0,0,1\n")
        .expect("write");
    drop(stdin);
    let o = child.wait_with_output().expect("wait");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Sums mod 4, under the output's name.
    assert_eq!(String::from_utf8_lossy(&o.stdout), "output0\n2\n1\n1\n");
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

/// Three parties of `protocol` on `batch` random instances of `circuit`
/// under `--share-memory 1`: each party's peak memory and JSON report.
fn sliced_random_run(
    dir: &Path,
    protocol: &str,
    circuit: &Path,
    batch: u64,
) -> Vec<(u64, serde_json::Value)> {
    let cfg = certs(&dir.join("n3"), 3);
    let outputs = spawn_parties(&cfg, 3, |_, p| {
        p.args(["--insecure", "--random"])
            .protocol(protocol)
            .circuit(circuit)
            .batch(batch)
            .args(["--share-memory", "1"])
            .json()
    });
    outputs
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            let v = json_of(&o, &format!("party {i}"));
            let peak = v["peak_memory_bytes"]
                .as_u64()
                .expect("peak memory reported");
            (peak, v)
        })
        .collect()
}

#[test]
fn random_inputs_of_a_batch_ten_times_the_memory_budget_stay_within_it() {
    // Parties 0 and 1 each own an 8192-bit value: 400,000 random instances
    // are 410 MB of inputs per party. Drawn slice by slice under
    // --share-memory 1, no party may reach a tenth of that (each stays
    // near 18 MB, most of it the program's own).
    let dir = temp_dir("memory-budget");
    let bits = 8192;
    let circuit = dir.join("wide.txt");
    std::fs::write(
        &circuit,
        format!(
            "1 {}\n3 {bits} {bits} 1\n1 1\n\n2 1 0 {bits} {} AND\n",
            2 * bits + 2,
            2 * bits + 1
        ),
    )
    .expect("write");
    let batch = 400_000u64;
    let input_bytes = batch * bits as u64 / 8;
    for (i, (peak, v)) in sliced_random_run(&dir, "trio", &circuit, batch)
        .into_iter()
        .enumerate()
    {
        assert!(
            peak < input_bytes / 10,
            "party {i}: peak {peak} bytes for {input_bytes} bytes of inputs"
        );
        assert_eq!(v["batch"].as_u64(), Some(batch));
    }
}

#[test]
fn the_outputs_of_a_sliced_batch_are_held_once() {
    // 2048 output bits of 100,000 instances are 25.6 MB at every party
    // that learns them. Opened slice by slice under --share-memory 1, a
    // party holds them once (it once gathered the slices, then copied them
    // per domain, per wire and transposed: four copies, over 100 MB).
    let dir = temp_dir("outputs-once");
    let bits = 2048;
    let mut text = format!("{bits} {}\n2 {bits} {bits}\n1 {bits}\n\n", 3 * bits);
    for i in 0..bits {
        text.push_str(&format!("2 1 {i} {} {} AND\n", bits + i, 2 * bits + i));
    }
    let circuit = dir.join("products.txt");
    std::fs::write(&circuit, text).expect("write");
    let batch = 100_000u64;
    let output_bytes = batch * bits as u64 / 8;
    for (i, (peak, v)) in sliced_random_run(&dir, "replicated", &circuit, batch)
        .into_iter()
        .enumerate()
    {
        assert!(
            peak < 2 * output_bytes,
            "party {i}: peak {peak} bytes for {output_bytes} bytes of outputs"
        );
        assert_eq!(v["outputs"].as_array().map(Vec::len), Some(1));
    }
}

#[test]
fn threads_auto_shares_the_hosts_cores_and_every_party_must_offer_it() {
    // All three parties on this host: auto offers each its share of the
    // cores (at least one), the same at every party. The JSON reports the
    // lanes run: at one core per party, one for this short batch (a
    // second lane only for a batch of many slices); else the share, up
    // to the batch's three 64-instance units.
    let dir = temp_dir("threads-auto");
    let c = adder(&dir);
    let cfg = certs(&dir.join("n3"), 3);
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let want = (cores / 3).max(1) as u64;
    let lanes = want.min(3);
    let inputs: [&[&str]; 3] = [&["1"], &["2"], &["3"]];
    let outputs = parties_run(&cfg, 3, "trio", &c, &inputs, |_, p| p.batch(130));
    for (i, o) in outputs.into_iter().enumerate() {
        let v = json_of(&o, &format!("party {i}"));
        assert_eq!(v["threads"].as_u64(), Some(lanes), "party {i}");
        assert_eq!(v["outputs"], serde_json::json!([["2"]]), "party {i}");
    }
    // A party given a count while the others offer auto's stops them all at
    // connect: the setting named where it was seen, the odd party elsewhere.
    let outputs = parties_run(&cfg, 3, "trio", &c, &inputs, |i, p| {
        if i == 1 {
            p.args(["--threads", "2"])
        } else {
            p
        }
    });
    let mut named = false;
    for (i, o) in outputs.into_iter().enumerate() {
        assert_eq!(o.status.code(), Some(7), "party {i} must stop");
        let err = String::from_utf8_lossy(&o.stderr);
        named |= err.contains("with --threads 2")
            && err.contains(&format!("with --threads auto (at most {want})"));
        assert!(
            err.contains("--threads") || err.contains("party 1"),
            "party {i}: {err}"
        );
    }
    assert!(named, "some party names the setting");
}

#[test]
fn split_roles_run_across_processes_and_every_party_must_split() {
    // Three processes over TLS, each playing every role in its six lanes:
    // the right sum at every party; the JSON reports the run as split.
    let dir = temp_dir("split-roles");
    let c = adder(&dir);
    let cfg = certs(&dir.join("n3"), 3);
    let inputs: [&[&str]; 3] = [&["1"], &["2"], &["3"]];
    let outputs = parties_run(&cfg, 3, "trio", &c, &inputs, |_, p| {
        p.batch(1000).arg("--split-roles")
    });
    for (i, o) in outputs.into_iter().enumerate() {
        let v = json_of(&o, &format!("party {i}"));
        assert_eq!(v["outputs"], serde_json::json!([["2"]]), "party {i}");
        assert_eq!(v["split_roles"], serde_json::json!(true), "party {i}");
    }
    // One party without it: every party stops at connect, the setting named.
    let outputs = parties_run(&cfg, 3, "trio", &c, &inputs, |i, p| {
        if i == 2 {
            p
        } else {
            p.arg("--split-roles")
        }
    });
    let mut named = false;
    for (i, o) in outputs.into_iter().enumerate() {
        assert_eq!(o.status.code(), Some(7), "party {i} must stop");
        let err = String::from_utf8_lossy(&o.stderr);
        named |= err.contains("with --split-roles") && err.contains("without");
    }
    assert!(named, "some party names the setting");
    // Protocols without roles to split refuse it before connecting.
    let o = local("ttp")
        .parties(3)
        .batch(4)
        .circuit(&c)
        .arg("--split-roles")
        .output();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no roles to split"), "{err}");
}

/// SIGINT to one party mid-run: it stops with the interrupted code, and the
/// others, told by its abort frame, stop at once naming it (network code).
#[test]
fn an_interrupted_party_stops_and_tells_its_peers() {
    use std::io::{BufRead, BufReader, Read};
    let dir = temp_dir("sigint");
    let cfg = certs(&dir.join("n3"), 3);
    common::assign_os_ports(&cfg);
    let aes = dir.join("aes.txt");
    let o = run(&[
        "circuit",
        "gen",
        "aes128",
        "-o",
        aes.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Long enough that it is still running when the signal arrives (it
    // stops at the signal, so the length costs nothing).
    let mut children: Vec<_> = (0..3)
        .map(|i| {
            party(&cfg, i)
                .args(["-v", "--timeout", "60"])
                .protocol("trio")
                .circuit(&aes)
                .args(["--random", "--batch", "2000000"])
                .spawn()
        })
        .collect();
    // Party 1's log says when it has connected to everyone and runs.
    let mut log = BufReader::new(children[1].stderr.take().expect("stderr"));
    let mut seen = String::new();
    let mut line = String::new();
    while log.read_line(&mut line).expect("read") > 0 {
        seen.push_str(&line);
        if line.contains("connected to every party") {
            break;
        }
        line.clear();
    }
    assert!(seen.contains("connected to every party"), "{seen}");
    let pid = children[1].id().to_string();
    let killed = Command::new("kill").args(["-INT", &pid]).status();
    assert!(killed.is_ok_and(|s| s.success()), "kill -INT {pid}");
    let rest = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = log.read_to_string(&mut rest);
        rest
    });
    let outputs = finish_parties(children);
    let err1 = seen + &rest.join().expect("reader");
    assert_eq!(outputs[1].status.code(), Some(130), "{err1}");
    assert!(err1.contains("interrupted by SIGINT"), "{err1}");
    for i in [0, 2] {
        let e = String::from_utf8_lossy(&outputs[i].stderr);
        assert_eq!(outputs[i].status.code(), Some(4), "party {i}: {e}");
        assert!(e.contains("party 1"), "party {i}: {e}");
    }
}
