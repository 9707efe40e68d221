//! Parties that stall or cannot run, as users meet them: separate `huddle
//! party` processes over TLS. A stalled party (stopped with SIGSTOP: its
//! connections stay open) is named by every other party once it has been
//! silent for `--idle-timeout`; a party that cannot run (bad input, no key,
//! a wrong `--id`, a certificate its peers do not pin) tells the others,
//! who stop at once naming it and the cause instead of waiting out their
//! connect deadline. Each scenario starts the healthy parties first and
//! waits (on their `-v` log) until they wait for the faulty one, so the
//! outcome never depends on which process the machine runs first.

mod common;

use common::circuits::adder;
use common::{assign_os_ports, bin, temp_dir};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;

/// Exit code of a network failure (`huddle_engine::exit::Exit::Network`).
const NETWORK: i32 = 4;
/// Exit code of bad input (`huddle_engine::exit::Exit::Input`).
const INPUT: i32 = 2;

/// `huddle certs` for three parties into `dir` (OS-assigned ports); its
/// parties file.
fn certs(dir: &Path) -> PathBuf {
    let cfg = common::parties::certs(dir, 3);
    assign_os_ports(&cfg);
    cfg
}

/// A `huddle` process whose stderr is read line by line while it runs.
struct Watched {
    child: Child,
    lines: Receiver<String>,
    stderr: Vec<String>,
    stdout: std::thread::JoinHandle<String>,
}

impl Watched {
    fn start(args: &[String]) -> Watched {
        let mut child = Command::new(bin())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn huddle");
        let err = child.stderr.take().expect("stderr");
        let mut out = child.stdout.take().expect("stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdout = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = out.read_to_string(&mut s);
            s
        });
        Watched {
            child,
            lines,
            stderr: Vec::new(),
            stdout,
        }
    }

    /// Waits until a line of stderr contains every one of `needles`.
    fn wait_for(&mut self, needles: &[&str]) {
        loop {
            let Ok(line) = self.lines.recv() else {
                panic!(
                    "the process ended before logging {needles:?}:\n{}",
                    self.stderr.join("\n")
                );
            };
            let found = needles.iter().all(|n| line.contains(n));
            self.stderr.push(line);
            if found {
                return;
            }
        }
    }

    fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Waits for the process: its exit code, stderr and stdout.
    fn finish(mut self) -> (Option<i32>, String, String) {
        let status = self.child.wait().expect("wait");
        self.stderr.extend(self.lines.iter());
        let stdout = self.stdout.join().expect("stdout reader");
        (status.code(), self.stderr.join("\n"), stdout)
    }
}

/// `huddle party` for party `id` of `cfg` on the adder (input `id + 1`),
/// plus `extra`; logged with -v, connect deadline 60 s.
fn party_args(cfg: &Path, id: usize, circuit: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "party",
        "--config",
        cfg.to_str().expect("utf8"),
        "--id",
        &id.to_string(),
        "--protocol",
        "replicated",
        "--circuit",
        circuit.to_str().expect("utf8"),
        "--timeout",
        "60",
        "-v",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if !extra.contains(&"--inputs") {
        args.extend(["--input".to_string(), (id + 1).to_string()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Parties 0 and 2 of `cfg`, started first: party 0 listening, party 2
/// connected to it (so both wait for party 1, whatever it does).
fn healthy_pair(cfg: &Path, circuit: &Path) -> (Watched, Watched) {
    let mut p0 = Watched::start(&party_args(cfg, 0, circuit, &[]));
    p0.wait_for(&["listening"]);
    let mut p2 = Watched::start(&party_args(cfg, 2, circuit, &[]));
    p2.wait_for(&["party=2", "peer=0", "hello agreed"]);
    (p0, p2)
}

/// Party `who` stopped with the network exit code, naming party 1 as a
/// party that cannot run for a reason that contains `cause`.
fn names_party_1(who: usize, outcome: &(Option<i32>, String, String), cause: &str) {
    let (code, err, _) = outcome;
    assert_eq!(*code, Some(NETWORK), "party {who}: {err}");
    assert!(
        err.contains("party 1 cannot run") && err.contains(cause) && err.contains("unverified"),
        "party {who} does not name party 1 and `{cause}`: {err}"
    );
}

#[test]
fn a_party_with_a_bad_input_line_tells_the_others_and_not_the_value() {
    let dir = temp_dir("refuse-csv");
    let (cfg, circuit) = (certs(&dir), adder(&dir));
    let bad = dir.join("bad.csv");
    // 9 does not fit the 2-bit input.
    std::fs::write(&bad, "1\n9\n").expect("write");
    let (p0, p2) = healthy_pair(&cfg, &circuit);
    let p1 = Watched::start(&party_args(
        &cfg,
        1,
        &circuit,
        &["--inputs", bad.to_str().expect("utf8")],
    ));
    let (code, err, _) = p1.finish();
    assert_eq!(code, Some(INPUT), "{err}");
    assert!(err.contains("line 2"), "{err}");
    for (who, p) in [(0, p0), (2, p2)] {
        let outcome = p.finish();
        names_party_1(who, &outcome, "its input data is invalid");
        // The refusal says what kind of failure, never the data.
        assert!(!outcome.1.contains("line 2"), "party {who}: {}", outcome.1);
    }
}

/// An option that cannot work (an output file for a party that learns no
/// outputs) is refused as an option, not as bad input data.
#[test]
fn a_party_with_unusable_options_tells_the_others_so() {
    let dir = temp_dir("refuse-options");
    let (cfg, circuit) = (certs(&dir), adder(&dir));
    let reveal = ["--reveal-to", "0"];
    let mut p0 = Watched::start(&party_args(&cfg, 0, &circuit, &reveal));
    p0.wait_for(&["listening"]);
    let mut p2 = Watched::start(&party_args(&cfg, 2, &circuit, &reveal));
    p2.wait_for(&["party=2", "peer=0", "hello agreed"]);
    let out = dir.join("out.csv");
    let args = party_args(
        &cfg,
        1,
        &circuit,
        &["--reveal-to", "0", "--outputs", out.to_str().expect("utf8")],
    );
    let (code, err, _) = Watched::start(&args).finish();
    assert_eq!(code, Some(INPUT), "{err}");
    assert!(err.contains("learns no outputs"), "{err}");
    for (who, p) in [(0, p0), (2, p2)] {
        names_party_1(
            who,
            &p.finish(),
            "its job, options or circuit are not usable",
        );
    }
}

#[test]
fn a_party_without_its_key_file_tells_the_others() {
    let dir = temp_dir("refuse-key");
    let (cfg, circuit) = (certs(&dir), adder(&dir));
    std::fs::remove_file(dir.join("party1.key")).expect("remove the key");
    let (p0, p2) = healthy_pair(&cfg, &circuit);
    let (code, err, _) = Watched::start(&party_args(&cfg, 1, &circuit, &[])).finish();
    assert_eq!(code, Some(INPUT), "{err}");
    assert!(err.contains("party1.key"), "{err}");
    for (who, p) in [(0, p0), (2, p2)] {
        names_party_1(who, &p.finish(), "TLS key or certificate cannot be loaded");
    }
}

/// The host of party 2, which holds only its own key, is started with
/// `--id 1`: it cannot load party 1's key and says so as party 1, so
/// party 0 and the real party 1 stop naming the likely cause.
#[test]
fn a_party_started_with_another_partys_id_tells_the_others() {
    let dir = temp_dir("refuse-id");
    let (cfg, circuit) = (certs(&dir), adder(&dir));
    let host2 = dir.join("host2");
    std::fs::create_dir(&host2).expect("mkdir");
    for f in ["ca.pem", "parties.toml", "party2.pem", "party2.key"] {
        std::fs::copy(dir.join(f), host2.join(f)).expect("copy");
    }
    let mut p0 = Watched::start(&party_args(&cfg, 0, &circuit, &[]));
    p0.wait_for(&["listening"]);
    let mut p1 = Watched::start(&party_args(&cfg, 1, &circuit, &[]));
    p1.wait_for(&["party=1", "peer=0", "hello agreed"]);
    let wrong = Watched::start(&party_args(&host2.join("parties.toml"), 1, &circuit, &[]));
    let (code, err, _) = wrong.finish();
    assert_eq!(code, Some(INPUT), "{err}");
    assert!(err.contains("party1.key"), "{err}");
    for (who, p) in [(0, p0), (1, p1)] {
        let (code, err, _) = p.finish();
        assert_eq!(code, Some(NETWORK), "party {who}: {err}");
        assert!(
            err.contains("party 1 cannot run") && err.contains("wrong --id"),
            "party {who}: {err}"
        );
    }
}

/// Without a CA every certificate is pinned; party 1 regenerated its key
/// (`huddle certs --own 1`) and the others still pin the old certificate:
/// party 1 learns that party 0 refused it and tells the others, and party 0
/// names the certificate it saw.
#[test]
fn a_party_whose_key_was_regenerated_is_named_with_its_certificate() {
    let dir = temp_dir("refuse-pin");
    let (cfg, circuit) = (certs(&dir), adder(&dir));
    let pinned = std::fs::read_to_string(&cfg)
        .expect("read")
        .replace("[tls]\nca = \"ca.pem\"\n", "");
    std::fs::write(&cfg, &pinned).expect("write");
    let host1 = dir.join("host1");
    let o = Command::new(bin())
        .args(["certs", "--own", "1", "--out"])
        .arg(&host1)
        .output()
        .expect("run huddle certs --own");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["party0.pem", "party2.pem"] {
        std::fs::copy(dir.join(f), host1.join(f)).expect("copy");
    }
    std::fs::write(host1.join("parties.toml"), &pinned).expect("write");
    let (p0, p2) = healthy_pair(&cfg, &circuit);
    let p1 = Watched::start(&party_args(&host1.join("parties.toml"), 1, &circuit, &[]));
    let (code, err, _) = p1.finish();
    assert_eq!(code, Some(NETWORK), "{err}");
    assert!(err.contains("party 0") && err.contains("TLS"), "{err}");
    let outcome = p0.finish();
    names_party_1(0, &outcome, "TLS handshake");
    assert!(
        outcome
            .1
            .contains("its certificate is not the one parties.toml pins for party 1"),
        "{}",
        outcome.1
    );
    names_party_1(2, &p2.finish(), "TLS handshake");
}

/// A network profile whose every message takes 1.5 s: parties wait on each
/// other longer than an idle timeout of 1 s at every step.
fn slow_profile(dir: &Path) -> PathBuf {
    let p = dir.join("slow.toml");
    std::fs::write(&p, "[default]\nrtt_ms = 3000\n").expect("write");
    p
}

#[cfg(target_os = "linux")]
fn signal(pid: i32, sig: libc::c_int) {
    // SAFETY: kill(2) on a child process of this test, which it has not reaped.
    let r = unsafe { libc::kill(pid, sig) };
    assert_eq!(r, 0, "kill {pid}");
}

/// Party 2 is stopped (SIGSTOP) once connected, before its first message
/// can leave (the emulated link holds every message 1.5 s): its connections
/// stay open and say nothing, so parties 0 and 1 stop after the idle
/// timeout, both naming it, with the network exit code.
#[cfg(target_os = "linux")]
#[test]
fn a_stalled_party_is_named_by_every_other_party() {
    let dir = temp_dir("stall");
    let (cfg, circuit) = (certs(&dir), adder(&dir));
    let slow = slow_profile(&dir);
    let extra = ["--idle-timeout", "1", "--net", slow.to_str().expect("utf8")];
    let p0 = Watched::start(&party_args(&cfg, 0, &circuit, &extra));
    let p1 = Watched::start(&party_args(&cfg, 1, &circuit, &extra));
    let mut p2 = Watched::start(&party_args(&cfg, 2, &circuit, &extra));
    p2.wait_for(&["party=2", "peer=0", "hello agreed"]);
    p2.wait_for(&["party=2", "peer=1", "hello agreed"]);
    signal(p2.pid(), libc::SIGSTOP);
    let outcomes = [p0.finish(), p1.finish()];
    signal(p2.pid(), libc::SIGCONT);
    let _ = p2.finish();
    for (who, (code, err, _)) in outcomes.iter().enumerate() {
        assert_eq!(*code, Some(NETWORK), "party {who}: {err}");
        assert!(
            err.contains("party 2 sent nothing for 1s") || err.contains("party 2 failed"),
            "party {who} does not name the stalled party 2: {err}"
        );
    }
}

/// The idle timeout does not apply to connecting: a party started well
/// after it, with every message slower than it, still runs with the others.
#[test]
fn a_party_started_later_than_the_idle_timeout_still_runs() {
    let dir = temp_dir("late");
    let (cfg, circuit) = (certs(&dir), adder(&dir));
    let slow = slow_profile(&dir);
    let extra = ["--idle-timeout", "1", "--net", slow.to_str().expect("utf8")];
    let mut p0 = Watched::start(&party_args(&cfg, 0, &circuit, &extra));
    p0.wait_for(&["listening"]);
    let mut p1 = Watched::start(&party_args(&cfg, 1, &circuit, &extra));
    p1.wait_for(&["party=1", "peer=0", "hello agreed"]);
    std::thread::sleep(std::time::Duration::from_secs(3));
    let p2 = Watched::start(&party_args(&cfg, 2, &circuit, &extra));
    for (who, p) in [p0, p1, p2].into_iter().enumerate() {
        let (code, err, out) = p.finish();
        assert_eq!(code, Some(0), "party {who}: {err}");
        // 1 + 2 + 3 mod 4.
        assert_eq!(out.trim(), "2", "party {who}");
    }
}

/// `huddle local` over TLS: every message takes longer than the idle
/// timeout on the emulated link, and the run completes.
#[test]
fn parties_waiting_longer_than_the_idle_timeout_for_slow_messages_run_on() {
    let dir = temp_dir("slow-local");
    let circuit = adder(&dir);
    let slow = slow_profile(&dir);
    let o = Command::new(bin())
        .args(["local", "--protocol", "replicated", "--transport", "tls"])
        .args(["--idle-timeout", "1", "--net"])
        .arg(&slow)
        .arg("--circuit")
        .arg(&circuit)
        .args(["--input", "1", "--input", "2", "--input", "3"])
        .output()
        .expect("run huddle local");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "2");
}

/// A live party that withholds its messages (`--fault drop`) keeps sending
/// liveness frames, so it is never silent; the parties waiting on it find
/// the cycle of waits it leaves (each waits on the next, nothing on its
/// way) and stop with the network exit code instead of waiting forever.
#[test]
fn a_party_withholding_its_messages_stops_the_run_over_sockets() {
    let dir = temp_dir("withheld");
    let circuit = adder(&dir);
    for transport in ["tcp", "tls"] {
        let o = Command::new(bin())
            .args(["local", "--protocol", "quad", "--transport", transport])
            .args(["--corrupt", "1", "--fault", "drop", "--idle-timeout", "1"])
            .arg("--circuit")
            .arg(&circuit)
            .output()
            .expect("run huddle local");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(NETWORK), "{transport}: {err}");
        assert!(
            err.contains("each wait on the next with nothing on its way"),
            "{transport}: {err}"
        );
    }
}
