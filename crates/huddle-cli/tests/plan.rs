//! `huddle plan`: the ranked table and why the winner wins, the stable
//! `--json`, the chart `--plot` writes, the rates `--calibrate` writes and
//! `--rates` reads, and clear refusals (a circuit file or profile that does
//! not exist, a circuit no candidate can run, a chart format it cannot
//! draw), each with exit code 2.

mod common;

use common::circuits::{adder, write_circuit};
use common::run::{json_of, run};
use common::temp_dir;
use std::process::Output;

fn plan(args: &[&str]) -> Output {
    let mut all = vec!["plan"];
    all.extend_from_slice(args);
    run(&all)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_table_ranks_every_choice_and_says_why_the_winner_wins() {
    let dir = temp_dir("plan-table");
    let c = adder(&dir);
    let o = plan(&[
        "--circuit",
        c.to_str().expect("utf-8"),
        "--net",
        "wan",
        "--batch",
        "10",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("plan for "), "{out}");
    assert!(
        lines[0].contains("on wan, batch 10, by total (semi-honest security)"),
        "{out}"
    );
    for column in [
        "protocol",
        "fan-in",
        "roles",
        "preprocessing",
        "threads",
        "online rounds",
        "bytes",
        "offline",
        "online",
        "total",
    ] {
        assert!(lines[1].contains(column), "{column}: {}", lines[1]);
    }
    assert!(lines[2].trim_start().starts_with("1 "), "{out}");
    let why = lines
        .iter()
        .find(|l| l.starts_with("why: "))
        .expect("a why line");
    // The first row's protocol is the one the explanation names.
    let winner = lines[2].split_whitespace().nth(1).expect("a protocol");
    assert!(
        why.starts_with(&format!("why: {winner} is fastest")),
        "{why}"
    );
    assert!(why.contains("-bound"), "{why}");
    // Never the TTP; ca2pc left out without --allow-dealer, with why.
    assert!(!lines
        .iter()
        .skip(2)
        .any(|l| l.split_whitespace().nth(1) == Some("ttp")));
    assert!(out.contains("ca2pc: it trusts a dealer"), "{out}");
}

/// The JSON has a fixed set of keys in a fixed order, parses, lists every
/// candidate ranked by the objective with the winner first, and is the
/// same on every call.
#[test]
fn the_json_is_stable_and_parses() {
    let dir = temp_dir("plan-json");
    let c = adder(&dir);
    let args = [
        "--circuit",
        c.to_str().expect("utf-8"),
        "--net",
        "aws3",
        "--batch",
        "100",
        "--security",
        "malicious",
        "--allow-dealer",
        "--json",
    ];
    let (a, b) = (plan(&args), plan(&args));
    assert_eq!(a.stdout, b.stdout, "the same plan twice");
    let text = String::from_utf8_lossy(&a.stdout).into_owned();
    let keys: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  \"")?.split('"').next())
        .collect();
    assert_eq!(
        keys,
        [
            "circuit",
            "net",
            "batch",
            "objective",
            "requirements",
            "rates",
            "winner",
            "why",
            "candidates",
            "refused"
        ]
    );
    let v = json_of(&a, "plan --json");
    assert_eq!(v["net"], "aws3");
    assert_eq!(v["batch"], 100);
    assert_eq!(v["objective"], "total");
    assert_eq!(v["requirements"]["security"], "malicious");
    assert_eq!(v["rates"], "default");
    let candidates = v["candidates"].as_array().expect("candidates");
    assert!(!candidates.is_empty());
    assert_eq!(v["winner"], candidates[0]);
    let mut last = 0.0;
    for (i, c) in candidates.iter().enumerate() {
        assert_eq!(c["rank"], i + 1);
        assert_eq!(c["security"], "malicious, selective abort", "{c}");
        let total = c["total_seconds"].as_f64().expect("seconds");
        assert!(total >= last, "ranked by total seconds: {c}");
        last = total;
        for key in [
            "protocol",
            "parties",
            "tolerated",
            "fan_in",
            "rewritten",
            "roles",
            "preprocess",
            "split_roles",
            "threads",
            "linear",
            "online_rounds",
            "bytes",
            "online_bytes",
            "offline_seconds",
            "online_seconds",
            "bound",
        ] {
            assert!(c.get(key).is_some(), "{key} in {c}");
        }
    }
    let refused = v["refused"].as_array().expect("refused");
    assert!(refused.iter().any(|r| r["protocol"] == "trio"
        && r["reason"]
            .as_str()
            .expect("text")
            .contains("semi-honest only")));
}

#[test]
fn ranking_by_bytes_orders_the_candidates_by_their_bytes() {
    let dir = temp_dir("plan-bytes");
    let c = adder(&dir);
    let o = plan(&[
        "--circuit",
        c.to_str().expect("utf-8"),
        "--net",
        "lan",
        "--objective",
        "bytes",
        "--json",
    ]);
    let v = json_of(&o, "plan --objective bytes");
    let bytes: Vec<u64> = v["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|c| c["bytes"].as_u64().expect("bytes"))
        .collect();
    let mut sorted = bytes.clone();
    sorted.sort_unstable();
    assert_eq!(bytes, sorted);
    assert!(v["why"]
        .as_str()
        .expect("why")
        .contains("sends the fewest bytes"));
}

#[test]
fn refusals_name_the_cause_with_exit_code_2() {
    let dir = temp_dir("plan-refusals");
    let c = adder(&dir);
    let adder = c.to_str().expect("utf-8");
    let missing = dir.join("missing.txt");
    // A ring product: garbling (the only protocols with five parties) runs
    // Boolean circuits only.
    let ring = dir.join("ring.txt");
    {
        use huddle_circuit::{builder::Builder, Op};
        let mut b = Builder::arithmetic(huddle_core::RingWidth::W32, 2);
        let x = b.ring_input("x", 1);
        let y = b.ring_input("y", 1);
        let z = b.ring_op(Op::Mul, &[x[0], y[0]]);
        b.ring_output("z", vec![z]);
        write_circuit(&ring, &b.finish());
    }
    let cases: [(Vec<&str>, &str); 5] = [
        (
            vec![
                "--circuit",
                missing.to_str().expect("utf-8"),
                "--net",
                "lan",
            ],
            "missing.txt",
        ),
        (
            vec!["--circuit", adder, "--net", "mars"],
            "unknown network profile `mars` (presets: lan, wan, aws3, hetero4; or a .toml file)",
        ),
        (
            vec![
                "--circuit",
                ring.to_str().expect("utf-8"),
                "--net",
                "lan",
                "--parties",
                "5",
            ],
            "no protocol can run this circuit under these requirements",
        ),
        (
            vec!["--circuit", adder, "--net", "lan", "--plot", "chart.png"],
            "the chart is drawn as SVG",
        ),
        (
            vec!["--circuit", adder, "--net", "lan", "--batch", "0"],
            "--batch must be 1 to",
        ),
    ];
    for (args, want) in cases {
        let o = plan(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
    let o = plan(&[
        "--circuit",
        ring.to_str().expect("utf-8"),
        "--net",
        "lan",
        "--parties",
        "5",
    ]);
    let err = stderr(&o);
    assert!(
        err.contains("bgw3: bgw3 garbles Boolean circuits only"),
        "{err}"
    );
    assert!(
        err.contains("trio: a 3-party protocol, and the plan is for 5 parties"),
        "{err}"
    );
}

#[test]
fn the_plot_draws_each_protocols_best_time_against_batch_size() {
    let dir = temp_dir("plan-plot");
    let c = adder(&dir);
    let chart = dir.join("chart.svg");
    let o = plan(&[
        "--circuit",
        c.to_str().expect("utf-8"),
        "--net",
        "wan",
        "--security",
        "malicious",
        "--threads",
        "1",
        "--plot",
        chart.to_str().expect("utf-8"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&chart).expect("the chart is written");
    assert!(svg.starts_with("<svg"), "an SVG file");
    assert!(svg.contains("predicted seconds against batch size"));
    for p in ["quad", "quad-het", "fantastic4", "tetrad", "bgw2-mal"] {
        assert!(
            svg.contains(&format!("\n{p}\n</text>")),
            "{p} in the legend"
        );
    }
}

/// `--calibrate --out FILE` writes rates that `--rates FILE` reads back.
#[test]
fn calibrated_rates_are_written_and_read_back() {
    let dir = temp_dir("plan-rates");
    let rates = dir.join("rates.toml");
    let o = plan(&["--calibrate", "--out", rates.to_str().expect("utf-8")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&rates).expect("the rates are written");
    assert!(text.contains("cores = "), "{text}");
    let c = adder(&dir);
    let o = plan(&[
        "--circuit",
        c.to_str().expect("utf-8"),
        "--net",
        "lan",
        "--rates",
        rates.to_str().expect("utf-8"),
        "--json",
    ]);
    let v = json_of(&o, "plan --rates");
    assert_eq!(v["rates"], rates.to_str().expect("utf-8"));
    let missing = dir.join("none.toml");
    let o = plan(&[
        "--circuit",
        c.to_str().expect("utf-8"),
        "--net",
        "lan",
        "--rates",
        missing.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("none.toml"), "{}", stderr(&o));
}

/// `huddle bench plan` on its smallest restricted case runs every
/// semi-honest protocol's best choice and reports predicted against
/// measured time, whether the pick was right and the summary (shape only:
/// no timing is asserted).
#[test]
fn bench_plan_measures_each_protocols_best_choice_on_a_restricted_case() {
    let o = run(&[
        "bench",
        "plan",
        "--cases",
        "mul64",
        "--security",
        "semi-honest",
        "--nets",
        "lan",
        "--batches",
        "1",
        "--top",
        "1",
        "--repeat",
        "1",
        "--json",
    ]);
    let v = json_of(&o, "bench plan");
    let cases = v["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 1);
    let case = &cases[0];
    assert_eq!(case["circuit"], "mul64");
    assert_eq!(case["net"], "lan");
    assert_eq!(case["batch"], 1);
    assert_eq!(case["parties"], 3);
    let rows = case["rows"].as_array().expect("rows");
    let mut protocols: Vec<&str> = rows
        .iter()
        .map(|r| r["protocol"].as_str().expect("protocol"))
        .collect();
    protocols.sort_unstable();
    // A ring product: the semi-honest three-party protocols that multiply
    // ring elements, each once (bgw3 garbles Boolean circuits only).
    assert_eq!(protocols, ["astra", "mfi3", "replicated", "trio"]);
    assert_eq!(rows[0]["rank"], 1);
    for r in rows {
        assert_eq!(r["threads"], "1", "one lane per party");
        let m = &r["measured"];
        assert!(m["online_seconds"].as_f64().expect("measured") > 0.0, "{r}");
        assert_eq!(m["runs"], 1);
        let ratio = r["online_ratio"].as_f64().expect("ratio");
        let expected = r["predicted_online_seconds"].as_f64().expect("predicted")
            / m["online_seconds"].as_f64().expect("measured");
        assert!((ratio - expected).abs() <= 1e-9 * expected, "{r}");
    }
    assert!(case["pick_right"].is_boolean(), "{case}");
    let s = &v["summary"];
    assert_eq!(s["rows_measured"], rows.len());
    assert_eq!(s["cases_judged"], 1);
    assert!(s["rows_online_within_20_percent"].as_u64().expect("count") <= rows.len() as u64);
}

#[test]
fn bench_plan_refuses_an_unknown_case_or_class() {
    let o = run(&["bench", "plan", "--cases", "nope", "--nets", "lan"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown case `nope`"), "{}", stderr(&o));
    let o = run(&["bench", "plan", "--security", "none", "--nets", "lan"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown security class"),
        "{}",
        stderr(&o)
    );
}
