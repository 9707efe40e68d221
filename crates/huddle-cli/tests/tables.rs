//! Readable data in and out: outputs as fields in every form (stdout,
//! `--json`, files) and alike locally and across processes, `circuit
//! eval`'s inputs, and whole-table inputs with the aggregate circuits,
//! including docs/deploy.md's three-hospitals example as written there.

mod common;

use common::parties::{certs, spawn_parties};
use common::run::stderr;
use common::{bin, deploy_example, temp_dir};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("run huddle")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn ok(o: &Output, what: &str) {
    assert!(o.status.success(), "{what}: {}", stderr(o));
}

/// The vector-matrix product y = x·M for x = (1, 0, 0, 0) and M's first
/// row (12, 639, 90, 5): y is the ring value [12, 639, 90, 5].
fn vecmat(dir: &Path) -> (PathBuf, String, String) {
    let c = dir.join("vm.txt");
    ok(
        &run(&[
            "circuit",
            "gen",
            "vecmat",
            "--size",
            "4",
            "--bits",
            "16",
            "-o",
            c.to_str().expect("utf8"),
        ]),
        "gen",
    );
    let m: Vec<&str> = ["12", "639", "90", "5"]
        .into_iter()
        .chain(["0"; 12])
        .collect();
    (c, "1,0,0,0".to_string(), m.join(","))
}

#[test]
fn ring_outputs_are_one_field_per_element_locally_and_across_processes() {
    let dir = temp_dir("fields");
    let (c, x, m) = vecmat(&dir);
    let c = c.to_str().expect("utf8");
    std::fs::write(dir.join("all-dec.csv"), format!("{x},{m}\n")).expect("write");
    let m_hex = m
        .replace("12", "c")
        .replace("639", "27f")
        .replace("90", "5a");
    std::fs::write(dir.join("all-hex.csv"), format!("{x},{m_hex}\n")).expect("write");
    let dec = serde_json::json!([[12, 639, 90, 5]]);
    let hex = serde_json::json!([["000c", "027f", "005a", "0005"]]);
    for (format, line, json) in [
        ("dec", "12,639,90,5\n", &dec),
        ("hex", "000c,027f,005a,0005\n", &hex),
    ] {
        let all = dir.join(format!("all-{format}.csv"));
        let all = all.to_str().expect("utf8");
        let args = [
            "local",
            "--protocol",
            "trio",
            "--circuit",
            c,
            "--inputs",
            all,
            "--format",
            format,
        ];
        let o = run(&args);
        ok(&o, format);
        assert_eq!(stdout(&o), line, "local {format}");
        let o = run(&[&args[..], &["--json"]].concat());
        ok(&o, format);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(&v["outputs"], json, "local {format}");
    }
    // The same from each of three processes: party 0 owns x, party 1 M.
    std::fs::write(dir.join("p0.csv"), format!("{x}\n")).expect("write");
    std::fs::write(dir.join("p1.csv"), format!("{m}\n")).expect("write");
    let cfg = certs(&dir.join("certs"), 3);
    let outputs = spawn_parties(&cfg, 3, |i, p| {
        let p = p
            .protocol("trio")
            .circuit(c)
            .args(["--format", "dec"])
            .json();
        if i < 2 {
            p.arg("--inputs").arg(dir.join(format!("p{i}.csv")))
        } else {
            p
        }
    });
    for (i, o) in outputs.iter().enumerate() {
        ok(o, &format!("party {i}"));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(v["outputs"], dec, "party {i}");
    }
}

#[test]
fn circuit_eval_reads_files_short_hex_and_negative_decimals() {
    let dir = temp_dir("eval");
    let (c, _, m) = vecmat(&dir);
    let c = c.to_str().expect("utf8");
    let o = run(&[
        "circuit",
        "eval",
        c,
        "--input",
        "1",
        "--input",
        "c,27f,5a,5",
        "--input",
        "0",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("takes 2 input values"),
        "{}",
        stderr(&o)
    );
    // Short hex per element, and the old one-number form of a ring value.
    let m_hex = format!("c,27f,5a,5{}", ",0".repeat(12));
    for m_hex in [m_hex.as_str(), "0005005a027f000c"] {
        let o = run(&["circuit", "eval", c, "--input", "1", "--input", m_hex]);
        ok(&o, m_hex);
        assert_eq!(stdout(&o), "000c,027f,005a,0005\n", "{m_hex}");
    }
    // Decimal, negative with --signed, given with or without `=`.
    let o = run(&[
        "circuit",
        "eval",
        c,
        "--format",
        "dec",
        "--signed",
        "--input=-1,0,0,0",
        "--input",
        &m,
    ]);
    ok(&o, "signed");
    assert_eq!(stdout(&o), "-12,-639,-90,-5\n");
    let o = run(&[
        "circuit",
        "eval",
        c,
        "--format",
        "dec",
        "--input=-1,0,0,0",
        "--input",
        &m,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "input value 0: element 0: -1 is negative, but the fields are unsigned: give --signed"
        ),
        "{}",
        stderr(&o)
    );
    let e = stderr(&run(&[
        "circuit",
        "eval",
        c,
        "--input",
        "1",
        "--input",
        &format!("12345{}", ",0".repeat(15)),
    ]));
    assert!(
        e.contains("element 0: `12345` has 5 hex digits, but a 16-bit field takes at most 4"),
        "{e}"
    );
    // A 32-bit Boolean value: short hex, decimal, a negative number.
    let adder = dir.join("add.txt");
    ok(
        &run(&[
            "circuit",
            "gen",
            "adder-ripple",
            "--bits",
            "32",
            "-o",
            adder.to_str().expect("utf8"),
        ]),
        "gen",
    );
    let a = adder.to_str().expect("utf8");
    assert_eq!(
        stdout(&run(&[
            "circuit", "eval", a, "--input", "100", "--input", "1"
        ])),
        "000000101\n"
    );
    let o = run(&[
        "circuit", "eval", a, "--format", "dec", "--input", "100", "--input", "1",
    ]);
    assert_eq!(stdout(&o), "101\n");
    let o = run(&[
        "circuit", "eval", a, "--format", "dec", "--signed", "--input", "-5", "--input", "1",
    ]);
    ok(&o, "negative");
    // The adder is unsigned: -5 is 2^32 - 5, and the 33-bit sum positive.
    assert_eq!(stdout(&o), "4294967292\n");
    // Every instance of a file, one line each, as --outputs writes them.
    std::fs::write(dir.join("in.csv"), "a;b\n1;2\n\"7\";8\n").expect("write");
    let o = run(&[
        "circuit",
        "eval",
        a,
        "--format",
        "dec",
        "--header",
        "--inputs",
        dir.join("in.csv").to_str().expect("utf8"),
    ]);
    ok(&o, "file");
    assert_eq!(stdout(&o), "output0\n3\n15\n");
}

#[test]
fn the_three_hospitals_example_runs_as_documented() {
    let dir = temp_dir("hospitals");
    let outputs = deploy_example(&dir);
    assert_eq!(outputs.len(), 1, "one documented output");
    let (name, want) = &outputs[0];
    let job = dir.join("job.toml");
    let text = std::fs::read_to_string(&job).expect("the documented job");
    for protocol in ["trio", "quad"] {
        let _ = std::fs::remove_file(dir.join(name));
        let this = text.replace("protocol = \"trio\"", &format!("protocol = \"{protocol}\""));
        std::fs::write(&job, this).expect("write");
        let o = run(&["local", "--job", job.to_str().expect("utf8"), "--check"]);
        ok(&o, protocol);
        assert_eq!(stdout(&o), "12\n677\n90\n5\n677\n12\n", "{protocol}");
        assert_eq!(
            &std::fs::read_to_string(dir.join(name)).expect("written"),
            want,
            "{protocol}"
        );
    }
    // A longer file than the table is refused before anything runs,
    // naming both counts.
    let long: String = std::iter::once("age\n".to_string())
        .chain((0..9).map(|i| format!("{}\n", 20 + i)))
        .collect();
    std::fs::write(dir.join("ages-c.csv"), long).expect("write");
    let o = run(&["local", "--job", job.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("ages-c.csv: the file has 9 rows, but the circuit's table takes at most 8"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn one_file_as_a_vector_must_be_one_partys_table() {
    let dir = temp_dir("vector");
    let c = dir.join("sum.txt");
    let gen = |parties: &str| {
        run(&[
            "circuit",
            "gen",
            "table-sum,table-histogram",
            "--size",
            "4",
            "--bits",
            "8",
            "--bounds",
            "10,20",
            "--parties",
            parties,
            "-o",
            c.to_str().expect("utf8"),
        ])
    };
    ok(&gen("1"), "gen");
    std::fs::write(dir.join("t.csv"), "5\n15\n25\n").expect("write");
    let t = dir.join("t.csv");
    let args = [
        "local",
        "--protocol",
        "mfi3",
        "--circuit",
        c.to_str().expect("utf8"),
        "--format",
        "dec",
        "--inputs",
        t.to_str().expect("utf8"),
        "--as",
        "vector",
        "--check",
    ];
    let o = run(&args);
    ok(&o, "one table");
    assert_eq!(stdout(&o), "45\n1,1,1\n");
    // Two parties' tables are no one file's: the columns named say so.
    ok(&gen("2"), "gen");
    let o = run(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "line 1 has 1 field, but 3 are expected (one per column of the table: input value 0, \
             input value 1, input value 2)"
        ),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "circuit",
        "gen",
        "table-sum",
        "--size",
        "1000",
        "--bits",
        "60",
        "--parties",
        "3",
    ]);
    assert!(
        stderr(&o).contains("takes 72 bits, more than the widest ring (64)"),
        "{}",
        stderr(&o)
    );
}
