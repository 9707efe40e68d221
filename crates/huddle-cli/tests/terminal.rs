//! What a run shows on the terminal and how it hears from it: `-v`'s log
//! of every link, the progress bar (only on a terminal and never with
//! `--json`), and Ctrl-C (SIGINT) stopping a party and, through its abort
//! frame, its peers.

mod common;

use common::circuits::{adder, generate};
use common::parties::{certs, parties_run};
use common::run::{local, party};
use common::{bin, finish_parties, state_home, temp_dir};
use std::process::Command;

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
    generate(&c, &["edit-distance", "--bits", "16", "--size", "8"]);
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

/// SIGINT to one party mid-run: it stops with the interrupted code, and the
/// others, told by its abort frame, stop at once naming it (network code).
#[test]
fn an_interrupted_party_stops_and_tells_its_peers() {
    use std::io::{BufRead, BufReader, Read};
    let dir = temp_dir("sigint");
    let cfg = certs(&dir.join("n3"), 3);
    common::assign_os_ports(&cfg);
    let aes = dir.join("aes.txt");
    generate(&aes, &["aes128"]);
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
