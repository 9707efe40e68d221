//! `huddle bench soak` as users run it, shortened to a bounded number of
//! runs of a fixed seed: every protocol and transport runs without a
//! failure, the report has its keys, a run replays alone, and the soak
//! leaves nothing in the temporary folder.

mod common;

use common::{huddle, temp_dir};
use serde_json::Value;
use std::collections::BTreeSet;

/// Exit code of bad input (`huddle_engine::exit::Exit::Input`).
const INPUT: i32 = 2;

fn soak(tmp: &std::path::Path, args: &[&str]) -> (std::process::Output, Value) {
    let out = huddle()
        .env("TMPDIR", tmp)
        .args(["bench", "soak", "--json"])
        .args(args)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let v = serde_json::from_slice(&out.stdout).expect("JSON");
    (out, v)
}

#[test]
fn a_short_seeded_soak_runs_every_protocol_and_transport_without_failure() {
    let tmp = temp_dir("soak");
    // A pool of 13: the first 13 runs take every protocol once.
    let (_, v) = soak(&tmp, &["--seed", "48", "--runs", "30", "--configs", "13"]);
    for key in [
        "seed",
        "runs",
        "failures",
        "seconds",
        "configs",
        "configs_judged",
        "min_judged_runs",
        "max_growth_percent",
        "passed",
        "rows",
        "failed_runs",
    ] {
        assert!(v.get(key).is_some(), "{key} in {v}");
    }
    assert_eq!(v["seed"], 48);
    assert_eq!(v["runs"], 30);
    assert_eq!(v["failures"], 0, "{}", v["failed_runs"]);
    assert_eq!(v["failed_runs"], Value::Array(Vec::new()));
    assert_eq!(v["passed"], true);
    assert_eq!(v["configs"], 13);
    let rows = v["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 13);
    let mut runs = 0;
    let (mut protocols, mut transports) = (BTreeSet::new(), BTreeSet::new());
    for row in rows {
        for key in [
            "config",
            "runs",
            "failures",
            "measured_runs",
            "online_rounds",
            "resident_first_bytes",
            "resident_last_bytes",
            "resident_growth_percent",
            "heap_first_bytes",
            "heap_last_bytes",
            "heap_growth_percent",
            "memory",
            "passed",
        ] {
            assert!(row.get(key).is_some(), "{key} in {row}");
        }
        let settings = &row["settings"];
        assert_eq!(row["failures"], 0);
        runs += row["runs"].as_u64().expect("a count");
        if row["runs"].as_u64() > Some(0) {
            protocols.insert(settings["protocol"].as_str().expect("named").to_string());
            transports.insert(settings["transport"].as_str().expect("named").to_string());
        }
        // 17 runs after the warm-up among 13 configurations: none judged.
        assert_eq!(row["memory"], "too few runs", "{row}");
    }
    assert_eq!(runs, 30);
    assert_eq!(protocols.len(), huddle_protocol_count(), "{protocols:?}");
    assert_eq!(
        transports,
        ["memory", "tcp", "tls"].map(String::from).into()
    );
    assert_eq!(v["configs_judged"], 0);
    // The circuits and the output file went with the soak.
    let left: Vec<_> = std::fs::read_dir(&*tmp).expect("listed").collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The protocols `huddle protocols --json` lists.
fn huddle_protocol_count() -> usize {
    let out = huddle()
        .args(["protocols", "--json"])
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v.as_array().map_or(0, Vec::len)
}

#[test]
fn a_run_replays_alone() {
    let tmp = temp_dir("soak-replay");
    let (_, v) = soak(&tmp, &["--seed", "48", "--configs", "13", "--replay", "21"]);
    assert_eq!(
        (v["runs"].as_u64(), v["failures"].as_u64()),
        (Some(1), Some(0))
    );
}

#[test]
fn a_soak_without_a_bound_or_with_a_bad_one_is_refused() {
    let refused = |args: &[&str]| {
        let out = huddle()
            .args(["bench", "soak"])
            .args(args)
            .output()
            .expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = refused(&[]);
    assert_eq!(code, Some(INPUT), "{err}");
    assert!(err.contains("--minutes"), "{err}");
    let (code, err) = refused(&["--minutes", "0"]);
    assert_eq!(code, Some(INPUT), "{err}");
    assert!(err.contains("--minutes must be a positive number"), "{err}");
    let (code, err) = refused(&["--replay", "3"]);
    assert_eq!(code, Some(INPUT), "{err}");
    assert!(err.contains("--seed"), "{err}");
}

/// `--processes`: every run deployed as `huddle party` processes over TLS
/// with a job file and data files, every learner's output file compared
/// with the plaintext evaluator; the memory judged is a party's peak
/// resident set, so a configuration run often enough is judged.
#[cfg(target_os = "linux")]
#[test]
fn a_soak_with_a_process_per_party_runs_every_protocol_without_failure() {
    let tmp = temp_dir("soak-processes");
    let (_, v) = soak(
        &tmp,
        &[
            "--processes",
            "--seed",
            "5",
            "--runs",
            "60",
            "--configs",
            "13",
        ],
    );
    assert_eq!(v["runs"], 60);
    assert_eq!(v["failures"], 0, "{}", v["failed_runs"]);
    assert_eq!(v["passed"], true, "{v}");
    let rows = v["rows"].as_array().expect("rows");
    let protocols: BTreeSet<&str> = rows
        .iter()
        .map(|r| r["settings"]["protocol"].as_str().expect("named"))
        .collect();
    assert_eq!(protocols.len(), 13, "{protocols:?}");
    for row in rows {
        assert_eq!(row["settings"]["transport"], "tls", "{row}");
        // The parties' peak resident sets: measured, and no heap (it is
        // in their processes).
        if row["measured_runs"].as_u64() > Some(0) {
            assert!(
                row["resident_first_bytes"].as_f64() > Some(1048576.0),
                "{row}"
            );
            assert_eq!(row["heap_first_bytes"], Value::Null, "{row}");
        }
    }
    assert!(
        std::fs::read_dir(&*tmp).expect("tmp").next().is_none(),
        "the soak left files in TMPDIR"
    );
}
