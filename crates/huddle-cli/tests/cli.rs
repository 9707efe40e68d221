//! The `huddle` binary end to end: output format, JSON keys, exit codes and
//! error messages. Corpus-based cases skip where the collection is absent.

mod common;

use common::{temp_dir, temp_file};
use std::path::PathBuf;
use std::process::{Command, Output};

fn huddle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_huddle"))
        .args(args)
        .output()
        .expect("the huddle binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn corpus() -> Option<PathBuf> {
    huddle_circuit::corpus::locate_or_skip(env!("CARGO_MANIFEST_DIR").as_ref())
}

#[test]
fn demo_checks_its_own_answer() {
    let o = huddle(&["demo"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for needle in [
        "under MFI-3PC",
        "AND-depth 20",
        "online 22 rounds",
        "ciphertext 69c4e0d86a7b0430d8cdb78070b4c55a",
        "OK",
    ] {
        assert!(
            stdout(&o).contains(needle),
            "demo output lacks `{needle}`:
{}",
            stdout(&o)
        );
    }
    assert!(stdout(&o).contains("OK"));
}

#[test]
fn help_explains_the_commands() {
    let o = huddle(&["--help"]);
    assert!(o.status.success());
    for word in ["circuit", "bench", "demo", "multiparty"] {
        assert!(
            stdout(&o).contains(word),
            "--help lacks `{word}`:\n{}",
            stdout(&o)
        );
    }
    let o = huddle(&["circuit", "eval", "--help"]);
    assert!(stdout(&o).contains("least significant bit"));
    // The lists in the help come from the tables, so they are complete.
    for command in ["local", "party"] {
        let help = stdout(&huddle(&[command, "--help"]));
        for p in huddle_engine::Protocol::ALL {
            let d = p.descriptor();
            assert!(
                help.contains(&format!("- {}:", d.name)) && help.contains(d.summary),
                "{command} --help lacks {}:\n{help}",
                d.name
            );
        }
    }
    let help = stdout(&huddle(&["circuit", "gen", "--help"]));
    let kinds = huddle_circuit::gen::KINDS
        .iter()
        .chain(&huddle_circuit::apps::KINDS)
        .chain(&huddle_circuit::aggregates::KINDS);
    for kind in kinds {
        assert!(
            help.contains(kind),
            "circuit gen --help lacks {kind}:\n{help}"
        );
    }
}

#[test]
fn stats_json_has_the_documented_keys_on_every_corpus_file() {
    let Some(dir) = corpus() else { return };
    for (path, expect) in huddle_circuit::corpus::load(&dir).expect("vectors") {
        let o = huddle(&[
            "circuit",
            "stats",
            "--json",
            path.to_str().expect("utf8 path"),
        ]);
        assert!(o.status.success(), "{}: {}", expect.file, stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
        for key in [
            "gates",
            "wires",
            "inputs",
            "outputs",
            "and_depth",
            "and_by_fanin",
            "xor",
            "inv",
            "eq",
            "eqw",
            "mand",
        ] {
            assert!(v.get(key).is_some(), "{} lacks `{key}`", expect.file);
        }
        assert_eq!(v["gates"], expect.gates, "{}", expect.file);
        assert_eq!(v["and_depth"], expect.and_depth, "{}", expect.file);
        assert_eq!(
            v["inputs"],
            serde_json::json!(expect.input_widths),
            "{}",
            expect.file
        );
        let fanin_total: u64 = v["and_by_fanin"]
            .as_object()
            .expect("object")
            .values()
            .map(|n| n.as_u64().expect("count"))
            .sum();
        assert_eq!(
            fanin_total as usize,
            expect.gate_counts.get("AND").copied().unwrap_or(0),
            "{}",
            expect.file
        );
    }
}

#[test]
fn eval_gives_every_vector_on_every_corpus_file() {
    let Some(dir) = corpus() else { return };
    for (path, expect) in huddle_circuit::corpus::load(&dir).expect("vectors") {
        for v in &expect.vectors {
            let mut args = vec!["circuit", "eval", path.to_str().expect("utf8 path")];
            for i in &v.inputs {
                args.extend(["--input", i.as_str()]);
            }
            let o = huddle(&args);
            assert!(o.status.success(), "{}: {}", expect.file, stderr(&o));
            let lines: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
            assert_eq!(lines, v.outputs, "{} {}", expect.file, v.note);
        }
    }
}

#[test]
fn convert_round_trips_the_old_format() {
    let Some(dir) = corpus() else { return };
    let old = dir.join("old_bristol_format/comparator_32bit_signed_lt.txt");
    let (_bristol_dir, bristol) = temp_file("cmp.bristol", "");
    let o = huddle(&[
        "circuit",
        "convert",
        old.to_str().expect("utf8"),
        "--to",
        "bristol",
        "-o",
        bristol.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = huddle(&[
        "circuit",
        "eval",
        bristol.to_str().expect("utf8"),
        "--input",
        "ffffffff",
        "--input",
        "00000001",
    ]);
    assert_eq!(stdout(&o).trim(), "1", "-1 < 1 signed");
    let o = huddle(&[
        "circuit",
        "convert",
        bristol.to_str().expect("utf8"),
        "--to",
        "old",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        std::fs::read_to_string(&old)
            .expect("read")
            .replace("32 32   1", "32 32 1")
            .trim_end()
            .to_owned()
            + "\n"
    );
    // MAND has no old-format spelling.
    let o = huddle(&[
        "circuit",
        "convert",
        dir.join("MAND/mult64.txt").to_str().expect("utf8"),
        "--to",
        "old",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no MAND gates"), "{}", stderr(&o));
}

#[test]
fn errors_go_to_stderr_with_a_cause_and_nonzero_exit() {
    let (_adder_dir, adder) = temp_file("tiny.txt", "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n");
    let path = adder.to_str().expect("utf8");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["circuit", "eval", path, "--input", "1"],
            "takes 2 input values (1 bits, 1 bits), but 1 --input given",
        ),
        (
            vec!["circuit", "eval", path, "--input", "1", "--input", "2"],
            "input value 1: `2` does not fit 1 bit",
        ),
        (
            vec!["circuit", "eval", path, "--input", "1", "--input", "11"],
            "`11` has 2 hex digits, but a 1-bit field takes at most 1",
        ),
        (vec!["circuit", "stats", "/no/such/file"], "/no/such/file"),
    ];
    for (args, needle) in cases {
        let o = huddle(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: bad input exits with 2");
        assert!(o.stdout.is_empty(), "{args:?} printed to stdout");
        assert!(
            stderr(&o).contains(needle),
            "{args:?}: `{}` lacks `{needle}`",
            stderr(&o)
        );
    }
    let (_bad_dir, bad) = temp_file("bad.txt", "1 3\n2 1 1\n1 1\n\n2 1 0 7 2 AND\n");
    let o = huddle(&["circuit", "stats", bad.to_str().expect("utf8")]);
    assert!(
        stderr(&o).contains("bad.txt: line 5: wire 7 is out of range"),
        "{}",
        stderr(&o)
    );
    let o = huddle(&["circuit", "eval", path, "--input", "1", "--input", "1"]);
    assert_eq!(stdout(&o), "1\n");
}

#[test]
fn bench_reports_ratios_against_the_raw_loop() {
    // A functional check of the benchmark's output shape only; no timing is asserted.
    let o = huddle(&[
        "bench",
        "ttp",
        "--json",
        "--seconds",
        "0.05",
        "--quick",
        "--circuits",
        "/nonexistent",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert!(v["and_layers"]["ratio"].as_f64().expect("ratio") > 0.0);
    assert!(v["parse"]["10MB"]["mb_per_second"].as_f64().expect("rate") > 0.0);
}

#[test]
fn net_bench_reports_the_transports_and_an_aes_block_against_its_bound() {
    // Shape and exact counts only; no timing is asserted.
    let o = huddle(&[
        "bench",
        "net",
        "--json",
        "--mib",
        "1",
        "--round-trips",
        "10",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    for t in ["raw_socket", "tcp", "tls", "memory"] {
        assert!(
            v["round_trip_us"][t].as_f64().expect("round trip") > 0.0,
            "{t}"
        );
    }
    let aes = &v["aes_block_trio_online_ms"];
    let ms = |k: &str| aes[k].as_f64().expect(k);
    assert!(ms("memory") > 0.0 && ms("tcp") > 0.0 && ms("tls") > 0.0);
    // The bound is the run in memory plus two round trips per round.
    let rounds = aes["online_rounds"].as_f64().expect("rounds");
    let raw_ms = v["round_trip_us"]["raw_socket"].as_f64().expect("raw") / 1e3;
    assert!((ms("bound") - ms("memory") - rounds * 2.0 * raw_ms).abs() < 1e-6);
    assert!(rounds > 0.0);
}

#[test]
fn protocol_bench_reports_every_protocol() {
    // Shape only; no timing is asserted.
    let o = huddle(&[
        "bench",
        "protocols",
        "--json",
        "--batch",
        "64",
        "--circuits",
        "/nonexistent",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    // Without the public collection AES is generated, so every protocol
    // reports it too.
    for p in huddle_engine::Protocol::ALL
        .iter()
        .filter(|p| p.garbling().is_none())
    {
        for rate in ["and_gates_per_second", "aes128_blocks_per_second"] {
            assert!(v[p.name()][rate].is_number(), "{} {rate}: {v}", p.name());
        }
    }
}

#[test]
fn fixed_point_bench_reports_every_workload_beside_the_ttp() {
    // Shape only (small sizes); no timing is asserted.
    let o = huddle(&[
        "bench",
        "fixed-point",
        "--json",
        "--sizes",
        "8",
        "--batch",
        "64",
        "--perceptron",
        "6,4,2",
        "--perceptron-batch",
        "2",
        "--repeat",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    for p in ["ttp", "trio", "quad", "tetrad"] {
        assert!(
            v["vector_matrix"]["8"][p]["ratio_to_ttp"]
                .as_f64()
                .expect("ratio")
                > 0.0,
            "{p}"
        );
    }
    assert_eq!(
        v["vector_matrix"]["8"]["ttp"]["ratio_to_ttp"].as_f64(),
        Some(1.0)
    );
    for key in [
        "mult_trunc trio (fused)",
        "mult_trunc replicated",
        "mult mfi3",
    ] {
        assert!(
            v["multiplications"][key]["per_second"].as_f64().expect(key) > 0.0,
            "{key}"
        );
    }
    assert!(
        v["conversions"]["astra"]["a2b_per_second"]
            .as_f64()
            .expect("a2b")
            > 0.0
    );
    assert!(
        v["perceptron"]["trio (fused)"]["inferences_per_second"]
            .as_f64()
            .expect("mlp")
            > 0.0
    );
    // Every secret-sharing protocol converts and fuses truncation.
    for p in [
        "quad",
        "quad-het (fused)",
        "fantastic4",
        "fantastic4 (fused)",
        "tetrad (fused)",
    ] {
        assert!(
            v["perceptron"][p]["inferences_per_second"]
                .as_f64()
                .expect(p)
                > 0.0,
            "{p}"
        );
    }
    // Garbling has no rings, so no row at all.
    assert!(v["perceptron"].get("bgw3").is_none());
    let o = huddle(&["bench", "fixed-point", "--only", "nonsense"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn fused_truncation_runs_from_the_command_line_and_is_not_checked_exactly() {
    let dir = temp_dir("mlp");
    let file = dir.join("mlp.txt");
    let path = file.to_str().expect("utf8");
    let o = huddle(&[
        "circuit",
        "gen",
        "perceptron",
        "--size",
        "8,4,2",
        "-o",
        path,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = |extra: &[&str]| {
        let mut args = vec![
            "local",
            "--protocol",
            "trio",
            "--circuit",
            path,
            "--batch",
            "5",
        ];
        args.extend_from_slice(extra);
        huddle(&args)
    };
    let o = run(&["--truncation", "probabilistic"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["--truncation", "exact", "--check"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The 4-party protocols too, with their own party count by default.
    for (protocol, truncation) in [
        ("quad", "probabilistic"),
        ("quad", "exact"),
        ("fantastic4", "probabilistic"),
        ("tetrad", "probabilistic"),
    ] {
        let o = huddle(&[
            "local",
            "--protocol",
            protocol,
            "--circuit",
            path,
            "--batch",
            "5",
            "--truncation",
            truncation,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("4 parties"), "{}", stderr(&o));
    }
    // An exact comparison cannot hold for probabilistic truncation: refused
    // before anything runs, saying why.
    let o = run(&["--truncation", "probabilistic", "--check"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--truncation exact"), "{}", stderr(&o));
    let o = huddle(&[
        "local",
        "--protocol",
        "bgw3",
        "--circuit",
        path,
        "--truncation",
        "probabilistic",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no fused probabilistic truncation"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn circuit_gen_writes_circuits_that_stats_and_eval_read() {
    let dir = temp_dir("gen");
    let file = dir.join("add.txt");
    let o = huddle(&[
        "circuit",
        "gen",
        "adder-sklansky",
        "--bits",
        "64",
        "--fanin",
        "8",
        "-o",
        file.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = huddle(&["circuit", "stats", file.to_str().expect("utf8"), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["and_depth"], 3);
    let o = huddle(&[
        "circuit",
        "eval",
        file.to_str().expect("utf8"),
        "--input",
        "ffffffffffffffff",
        "--input",
        "0000000000000001",
    ]);
    assert_eq!(stdout(&o).trim(), "10000000000000000");
    let o = huddle(&["circuit", "gen", "adder-magic"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown circuit kind `adder-magic`"));
    let o = huddle(&["circuit", "gen", "cmp-gt", "--fanin", "40"]);
    assert!(stderr(&o).contains("--fanin must be 2 to 16"));
}

#[test]
fn circuit_gen_aes_and_sha256_follow_the_public_conventions() {
    for fanin in ["2", "3", "4"] {
        let dir = temp_dir("aes");
        let file = dir.join("aes.txt");
        let path = file.to_str().expect("utf8");
        let o = huddle(&["circuit", "gen", "aes128", "--fanin", fanin, "-o", path]);
        assert!(o.status.success(), "{}", stderr(&o));
        let o = huddle(&[
            "circuit",
            "eval",
            path,
            "--input",
            "000102030405060708090a0b0c0d0e0f",
            "--input",
            "00112233445566778899aabbccddeeff",
        ]);
        assert_eq!(stdout(&o).trim(), "69c4e0d86a7b0430d8cdb78070b4c55a");
        let o = huddle(&["circuit", "stats", path, "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        // Ten rounds of S-boxes of depth 4, 3, 2.
        let want = 10 * (6 - fanin.parse::<u64>().expect("digit"));
        assert_eq!(v["and_depth"], want);
    }
    let o = huddle(&["circuit", "gen", "sha256", "--fanin", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (_file_dir, file) = temp_file("sha.txt", &stdout(&o));
    let mut block = String::from("61626380");
    block.push_str(&"0".repeat(118));
    block.push_str("18");
    let o = huddle(&[
        "circuit",
        "eval",
        file.to_str().expect("utf8"),
        "--input",
        &block,
        "--input",
        "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19",
    ]);
    assert_eq!(
        stdout(&o).trim(),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn circuit_optimize_lowers_depth_and_reports_before_and_after() {
    let o = huddle(&["circuit", "gen", "cmp-gt", "--bits", "32", "--fanin", "2"]);
    let (_file_dir, file) = temp_file("cmp32.txt", &stdout(&o));
    let out = file.with_extension("opt");
    let o = huddle(&[
        "circuit",
        "optimize",
        file.to_str().expect("utf8"),
        "--fanin",
        "4",
        "--json",
        "-o",
        out.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(report["before"]["and_depth"], 6);
    assert_eq!(report["after"]["and_depth"], 3);
    assert!(
        report["after"]["mfi_bits_per_party"].as_u64()
            > report["before"]["mfi_bits_per_party"].as_u64()
    );
    // Same answers: 5 > 3 and not 3 > 5.
    for (a, b, want) in [("00000005", "00000003", "1"), ("00000003", "00000005", "0")] {
        let o = huddle(&[
            "circuit",
            "eval",
            out.to_str().expect("utf8"),
            "--input",
            a,
            "--input",
            b,
        ]);
        assert_eq!(stdout(&o).trim(), want);
    }
    let o = huddle(&[
        "circuit",
        "optimize",
        file.to_str().expect("utf8"),
        "--fanin",
        "1",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--fanin must be 2 to 16"));
}

#[test]
fn garbling_runs_from_the_command_line_and_its_bench_reports_every_phase() {
    let (_aes_dir, aes) = temp_file(
        "aes-gen.txt",
        &stdout(&huddle(&["circuit", "gen", "aes128", "--fanin", "2"])),
    );
    for (protocol, parties, opt) in [
        ("bgw3", "5", "short,prgzero"),
        ("bgw2", "4", "all"),
        ("bgw3", "3", "none"),
    ] {
        let o = huddle(&[
            "local",
            "--protocol",
            protocol,
            "--parties",
            parties,
            "--opt",
            opt,
            "--circuit",
            aes.to_str().expect("utf8"),
            "--input",
            "000102030405060708090a0b0c0d0e0f",
            "--input",
            "00112233445566778899aabbccddeeff",
            "--check",
            "--json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(v["outputs"][0][0], "69c4e0d86a7b0430d8cdb78070b4c55a");
        assert_eq!(v["online_rounds"], 3);
    }
    let o = huddle(&[
        "local",
        "--protocol",
        "bgw3",
        "--parties",
        "3",
        "--opt",
        "fast",
        "--circuit",
        aes.to_str().expect("utf8"),
    ]);
    assert!(
        stderr(&o).contains("unknown optimization `fast`"),
        "{}",
        stderr(&o)
    );
    let o = huddle(&[
        "bench",
        "garble",
        "--parties",
        "3,4",
        "--batch",
        "1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    // bgw2 and bgw2-mal at 3 parties have t = 0 (no security): not benchmarked.
    for key in ["aes128/bgw2/n3", "sha256/bgw2-mal/n3/prss"] {
        assert!(v[key].is_null(), "{key} was benchmarked");
    }
    for key in [
        "aes128/bgw3/n3",
        "sha256/bgw2/n4",
        "sha256/bgw2-mal/n4/prss",
    ] {
        for field in [
            "independent_seconds",
            "dependent_seconds",
            "online_seconds",
            "and_gates_per_second",
        ] {
            assert!(v[key][field].as_f64().expect(field) > 0.0, "{key} {field}");
        }
    }
}

fn row_of<'a>(rows: &'a [serde_json::Value], name: &str) -> &'a serde_json::Value {
    rows.iter().find(|r| r["name"] == name).expect("row")
}

#[test]
fn protocols_lists_every_protocol_with_its_security() {
    let o = huddle(&["protocols", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let rows = rows.as_array().expect("array");
    let names: Vec<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "ttp",
            "replicated",
            "astra",
            "trio",
            "mfi3",
            "quad",
            "quad-het",
            "fantastic4",
            "tetrad",
            "ca2pc",
            "bgw3",
            "bgw2",
            "bgw2-mal"
        ]
    );
    assert_eq!(row_of(rows, "ca2pc")["dealer"], 2);
    assert_eq!(row_of(rows, "trio")["dealer"], serde_json::Value::Null);
    let row = |name: &str| rows.iter().find(|r| r["name"] == name).expect("row");
    assert_eq!(row("bgw2-mal")["security"], "malicious, selective abort");
    assert_eq!(row("bgw2")["parties"], "4+");
    assert_eq!(row("trio")["parties"], "3");
    assert_eq!(row("ttp")["security"], "none (baseline)");
    let table = stdout(&huddle(&["protocols"]));
    assert_eq!(table.lines().count(), 1 + names.len(), "{table}");
}

/// `args` with stdout a pipe whose reader is gone before the command starts.
fn huddle_into_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_huddle"))
        .args(args)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("the huddle binary runs")
}

/// Each way a command ends has its code of the table (huddle-engine's
/// `exit::Exit`): a run whose outputs cannot be written, a listing whose
/// reader went away, a `--check` that fails.
#[test]
fn outputs_that_cannot_be_written_and_closed_listings_have_their_codes() {
    let (_dir, adder) = temp_file("tiny.txt", "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n");
    let c = adder.to_str().expect("utf8");
    let run = [
        "local",
        "--protocol",
        "trio",
        "--circuit",
        c,
        "--batch",
        "3",
    ];
    // An --outputs file in a folder that does not exist: the run finished.
    let mut args = run.to_vec();
    args.extend(["--outputs", "/no/such/folder/out.csv"]);
    let o = huddle(&args);
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("/no/such/folder/out.csv"),
        "{}",
        stderr(&o)
    );
    // Stdout closed while the outputs are written.
    for extra in [&[][..], &["--json"][..], &["--outputs", "-"][..]] {
        let mut args = run.to_vec();
        args.extend(extra);
        let o = huddle_into_closed_pipe(&args);
        assert_eq!(o.status.code(), Some(8), "{extra:?}: {}", stderr(&o));
    }
    // Listings end quietly and successfully when their reader goes away.
    for args in [
        &["protocols"][..],
        &["protocols", "--json"][..],
        &["circuit", "gen", "aes128"][..],
        &["circuit", "eval", c, "--input", "1", "--input", "1"][..],
        &["circuit", "stats", c][..],
    ] {
        let o = huddle_into_closed_pipe(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(o.stderr.is_empty(), "{args:?}: {}", stderr(&o));
    }
    // A -o file that cannot be written.
    let o = huddle(&["circuit", "gen", "aes128", "-o", "/no/such/folder/aes.txt"]);
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
}

/// A caught cheater (abort) and a batch beyond this machine's memory
/// (resource) end with their codes of the table.
#[test]
fn an_abort_and_a_resource_limit_have_their_codes() {
    let (_dir, adder) = temp_file("tiny.txt", "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n");
    let c = adder.to_str().expect("utf8");
    let o = huddle(&[
        "local",
        "--protocol",
        "quad",
        "--circuit",
        c,
        "--corrupt",
        "1",
        "--fault",
        "add-error",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("abort"), "{}", stderr(&o));
    // A 16x16 matrix of 64-bit elements per instance, 2^26 instances:
    // 275 GB of inputs.
    let dir = temp_dir("resource");
    let vm = dir.join("vm.txt");
    let vm = vm.to_str().expect("utf8");
    let o = huddle(&[
        "circuit", "gen", "vecmat", "--size", "16", "--bits", "64", "-o", vm,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = huddle(&[
        "local",
        "--protocol",
        "ttp",
        "--circuit",
        vm,
        "--batch",
        "67108864",
    ]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(stderr(&o).contains("lower --batch"), "{}", stderr(&o));
}

/// `--json`: a failure prints the typed error object docs/cli.md shows on
/// stdout, as well as its line on stderr and its exit code.
#[test]
fn with_json_a_failure_is_a_typed_object_on_stdout() {
    let (_dir, adder) = temp_file("tiny.txt", "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n");
    let c = adder.to_str().expect("utf8");
    let failed = |args: &[&str]| -> serde_json::Value {
        let o = huddle(&[&["local", "--circuit", c, "--json"], args].concat());
        let printed: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
        let e = printed["error"].clone();
        assert_eq!(
            o.status.code(),
            e["exit_code"].as_i64().map(|c| c as i32),
            "{e}"
        );
        assert_eq!(
            stderr(&o).lines().last(),
            Some(format!("error: {}", e["message"].as_str().expect("a message")).as_str()),
            "{e}"
        );
        e
    };
    // A refusal: its kind and fields.
    let e = failed(&["--protocol", "bgw2", "--parties", "3"]);
    assert_eq!(
        (e["kind"].as_str(), e["exit"].as_str()),
        (Some("refused"), Some("input")),
        "{e}"
    );
    assert_eq!(
        e["refusal"],
        serde_json::json!({ "kind": "no-security", "smallest": 4 })
    );
    assert_eq!(
        (&e["party"], &e["culprit"], &e["check"]),
        (
            &serde_json::Value::Null,
            &serde_json::Value::Null,
            &serde_json::Value::Null
        )
    );
    let e = failed(&[
        "--protocol",
        "bgw2-mal",
        "--parties",
        "4",
        "--reveal-to",
        "2",
    ]);
    assert_eq!(
        e["refusal"],
        serde_json::json!({ "kind": "option", "option": "reveal-to" })
    );
    // Bad input: no refusal.
    let e = failed(&["--protocol", "quad", "--parties", "3"]);
    assert_eq!(
        (e["kind"].as_str(), e["exit_code"].as_i64()),
        (Some("input"), Some(2)),
        "{e}"
    );
    assert!(e["refusal"].is_null(), "{e}");
    // A caught cheater: the check that caught it, where (party 0, the
    // first honest party: every one checks an opening of party 1's key
    // contributions), and whom it blames.
    let e = failed(&[
        "--protocol",
        "quad",
        "--corrupt",
        "1",
        "--fault",
        "add-error",
    ]);
    assert_eq!(
        (e["kind"].as_str(), e["exit_code"].as_i64()),
        (Some("abort"), Some(3)),
        "{e}"
    );
    assert_eq!(
        (e["party"].as_u64(), e["culprit"].as_u64()),
        (Some(0), Some(1)),
        "{e}"
    );
    assert_eq!(
        (e["check"]["kind"].as_str(), e["check"]["opener"].as_u64()),
        (Some("key-opening"), Some(1)),
        "{e}"
    );
    assert!(
        e["check"]["key"].is_string() && e["refusal"].is_null(),
        "{e}"
    );
    // Without --json, stdout stays empty.
    let o = huddle(&[
        "local",
        "--circuit",
        c,
        "--protocol",
        "bgw2",
        "--parties",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
}
