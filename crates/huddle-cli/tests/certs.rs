//! `huddle certs` never writes over a key, and a party whose key is missing
//! is told so in plain words, with a hint where the folder holds another
//! party's key.

mod common;

use common::run::stderr;
use common::temp_dir;
use std::path::Path;
use std::process::{Command, Output};

fn huddle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_huddle"))
        .args(args)
        .output()
        .expect("the huddle binary runs")
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).expect("read")
}

#[test]
fn keys_are_never_written_over_without_force() {
    let dir = temp_dir("certs-own");
    let out = dir.to_str().expect("utf8");
    let o = huddle(&["certs", "--own", "1", "--out", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let key = dir.join("party1.key");
    let (first_key, first_pem) = (read(&key), read(&dir.join("party1.pem")));
    // Again: refused before anything is written, naming both files.
    let o = huddle(&["certs", "--own", "1", "--out", out]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("party1.pem") && err.contains("party1.key") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(read(&key), first_key, "the key is untouched");
    assert_eq!(read(&dir.join("party1.pem")), first_pem);
    // Another party's files beside it are no conflict.
    let o = huddle(&["certs", "--own", "2", "--out", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    // --force writes a new key, still readable by its owner only.
    let o = huddle(&["certs", "--own", "1", "--out", out, "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ne!(read(&key), first_key, "a new key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).expect("key").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
    }
    // A development PKI refuses any existing file of its set, even one.
    let pki = temp_dir("certs-pki");
    std::fs::write(pki.join("parties.toml"), "# mine\n").expect("write");
    let p = pki.to_str().expect("utf8");
    let o = huddle(&["certs", "--parties", "3", "--out", p]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("parties.toml already exists"),
        "{}",
        stderr(&o)
    );
    assert!(!pki.join("ca.key").exists(), "nothing written");
    assert_eq!(read(&pki.join("parties.toml")), b"# mine\n");
    let o = huddle(&["certs", "--parties", "3", "--out", p, "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn parties_on_different_hosts_share_a_port_and_parties_on_one_host_do_not() {
    let dir = temp_dir("certs-ports");
    let out = dir.to_str().expect("utf8");
    let hosts = "10.0.0.1,10.0.0.2,10.0.0.1,10.0.0.3";
    let o = huddle(&[
        "certs",
        "--parties",
        "4",
        "--out",
        out,
        "--hosts",
        hosts,
        "--base-port",
        "7100",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let config = huddle_net::NetworkConfig::from_file(&dir.join("parties.toml")).expect("config");
    let ports: Vec<(String, u16)> = config
        .parties
        .iter()
        .map(|p| (p.host.clone(), p.port))
        .collect();
    assert_eq!(
        ports,
        [
            ("10.0.0.1".to_string(), 7100),
            ("10.0.0.2".to_string(), 7100),
            ("10.0.0.1".to_string(), 7101),
            ("10.0.0.3".to_string(), 7100),
        ]
    );
}

#[test]
fn a_missing_key_is_no_such_file_with_a_hint_after_a_wrong_id() {
    let dir = temp_dir("certs-missing");
    let out = dir.to_str().expect("utf8");
    let o = huddle(&["certs", "--parties", "3", "--out", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    // This host keeps only party 0's key, as a real host would.
    for p in [1, 2] {
        std::fs::remove_file(dir.join(format!("party{p}.key"))).expect("remove");
    }
    let config = dir.join("parties.toml");
    let circuit = dir.join("c.txt");
    std::fs::write(&circuit, "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n").expect("circuit");
    let o = huddle(&[
        "party",
        "--config",
        config.to_str().expect("utf8"),
        "--id",
        "1",
        "--protocol",
        "trio",
        "--circuit",
        circuit.to_str().expect("utf8"),
        "--input",
        "1",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("party1.key: no such file")
            && err.contains("this host has no key for party 1, only party 0's (is --id 0 meant?)"),
        "{err}"
    );
    assert!(
        !err.contains("PEM"),
        "not reported as a malformed key: {err}"
    );
}
