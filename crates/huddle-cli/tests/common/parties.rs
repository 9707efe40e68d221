//! Every party of a parties file as a process of its own, at once, on
//! fresh OS-assigned ports.

use super::run::{json_of, party, run, Run};
use super::{finish_parties, with_os_ports};
use std::path::{Path, PathBuf};
use std::process::Output;

/// `huddle certs` for `n` parties into `out`: its parties file.
pub fn certs(out: &Path, n: usize) -> PathBuf {
    let o = run(&[
        "certs",
        "--parties",
        &n.to_string(),
        "--out",
        out.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out.join("parties.toml")
}

/// `huddle party --config cfg --id i --timeout 30`, as `each(i, _)` makes
/// it, for every party of `cfg` at once (again on fresh ports where the OS
/// gave one away): their outputs.
pub fn spawn_parties(cfg: &Path, n: usize, each: impl Fn(usize, Run) -> Run) -> Vec<Output> {
    with_os_ports(cfg, || {
        let children = (0..n)
            .map(|i| each(i, party(cfg, i).args(["--timeout", "30"])).spawn())
            .collect();
        finish_parties(children)
    })
}

/// Runs `huddle party --json` of `protocol` on `circuit` for every id of
/// `cfg` at once, party i with the `--input` values `inputs[i]` (none past
/// the list) and as `extra(i, _)` makes it; returns each party's output.
pub fn parties_run(
    cfg: &Path,
    n: usize,
    protocol: &str,
    circuit: &Path,
    inputs: &[&[&str]],
    extra: impl Fn(usize, Run) -> Run,
) -> Vec<Output> {
    spawn_parties(cfg, n, |i, p| {
        let p = p.protocol(protocol).circuit(circuit).json();
        extra(i, p.input(inputs.get(i).copied().unwrap_or_default()))
    })
}

/// Runs `huddle party` for all `n` ids of `cfg` at once on the adder, whose
/// three inputs 1, 2, 3 belong to parties 0, 1 and 2 (plus what `extra`
/// adds), and asserts that every party prints their sum mod 4, 2.
pub fn adder_parties_agree(
    cfg: &Path,
    n: usize,
    protocol: &str,
    adder: &Path,
    extra: impl Fn(usize, Run) -> Run,
) {
    let inputs: [&[&str]; 3] = [&["1"], &["2"], &["3"]];
    let outputs = parties_run(cfg, n, protocol, adder, &inputs, extra);
    for (i, o) in outputs.into_iter().enumerate() {
        let v = json_of(&o, &format!("{protocol} ({n} parties) party {i}"));
        assert_eq!(
            v["outputs"],
            serde_json::json!([["2"]]),
            "{protocol} ({n} parties) party {i}"
        );
    }
}
