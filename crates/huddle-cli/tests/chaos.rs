//! `huddle bench chaos`, short and seeded: parties of real `huddle party`
//! processes killed and stalled in each stage of their runs. The harness
//! itself checks every run (the others stop naming the party, with a
//! documented exit code; no half-written output; the job runs again, or
//! a dealt one is refused as spent); this test checks that it found no
//! problem, that every stage × signal was hit, and that what it reports
//! adds up. The protocols cover every stage: Trio with its preprocessing
//! first, Quad's verification, bgw2-mal's dealt preprocessing and reveal.

#![cfg(target_os = "linux")]

mod common;

use serde_json::Value;

#[test]
fn killed_and_stalled_parties_are_named_and_nothing_is_lost() {
    let dir = common::temp_dir("chaos");
    let o = common::huddle()
        .args(["bench", "chaos", "--runs", "10", "--seed", "7", "--json"])
        .args(["--protocols", "trio,quad,bgw2-mal", "--batches", "16"])
        .arg("--keep")
        .arg(dir.join("jobs"))
        .output()
        .expect("run huddle bench chaos");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&o.stderr)));
    assert!(o.status.success(), "{report:#}");
    assert_eq!(report["passed"], true, "{report:#}");
    for key in [
        "hangs",
        "wrong_outputs",
        "partial_files",
        "unnamed_or_undocumented",
        "reruns_failed",
    ] {
        assert_eq!(report[key], 0, "{key}: {report:#}");
    }
    let cells = report["cells"].as_array().expect("cells");
    assert_eq!(cells.len(), 10, "five stages × two signals");
    let mut named = 0;
    for cell in cells {
        assert!(cell["runs"].as_u64() >= Some(1), "{cell}");
        named += cell["others_stopped_naming_it"].as_u64().expect("count");
    }
    assert!(named > 0, "{report:#}");
    let runs: u64 = cells.iter().map(|c| c["runs"].as_u64().unwrap_or(0)).sum();
    assert_eq!(report["chaos_runs"].as_u64(), Some(runs));
    // Every run was followed by a rerun (or a dealt job's refusal).
    let reruns = report["reruns_ok"].as_u64().unwrap_or(0)
        + report["dealt_reruns_refused_as_spent"]
            .as_u64()
            .unwrap_or(0);
    let outside: u64 = report["outside_stages"]
        .as_array()
        .expect("outside")
        .iter()
        .map(|c| c["runs"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(reruns, runs + outside, "{report:#}");
    // bgw2-mal's job is dealt (the only batch): its reruns were refused as
    // spent, by every party's typed --json error.
    assert!(
        report["dealt_reruns_refused_as_spent"].as_u64() >= Some(1),
        "{report:#}"
    );
}

#[test]
fn a_failed_verdict_has_the_check_exit_code() {
    // No configuration of ttp has a setup stage to aim at: the cells stay
    // empty, and the verdict fails with the documented code.
    let dir = common::temp_dir("chaos-ttp");
    let o = common::huddle()
        .args(["bench", "chaos", "--runs", "10", "--protocols", "ttp"])
        .args(["--batches", "16", "--keep"])
        .arg(dir.join("jobs"))
        .output()
        .expect("run huddle bench chaos");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(9), "{stderr}");
    assert!(
        stdout.contains("PROBLEM: no configuration has a setup stage"),
        "{stdout}"
    );
    assert!(
        stderr.contains("cells below 1 runs: setup × SIGKILL: 0"),
        "{stderr}"
    );
}
