//! How a large batch runs across processes: slice by slice within the
//! memory budget (random inputs drawn and outputs held once), in lanes
//! (`--threads auto`) and with split roles, and the settings every party
//! must share.

mod common;

use common::circuits::adder;
use common::parties::{certs, parties_run, spawn_parties};
use common::run::{json_of, local};
use common::temp_dir;
use std::path::Path;

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
