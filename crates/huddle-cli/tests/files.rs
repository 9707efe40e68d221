//! Inputs and outputs in files, locally and across processes: CSV and
//! decimal, signed and fixed-point fields, malformed files refused by line
//! and column, job files, and stdin/stdout in a pipeline.

mod common;

use common::circuits::{adder, generate};
use common::parties::{certs, parties_run, spawn_parties};
use common::run::{local, party, Run};
use common::temp_dir;
use std::process::Stdio;

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
    generate(&vm, &["vecmat", "--size", "2", "--bits", "16"]);
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
