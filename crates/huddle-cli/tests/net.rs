//! The network commands as users run them: separate processes, real
//! certificates, a party killed mid-run, and parties on separate network
//! hosts (Linux network namespaces joined by veth links, shaped with tbf).

mod common;

use common::{assign_os_ports, bin, deploy_example, temp_dir, with_os_ports};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// Certificates and a parties file; `base` fixes the ports (inside network
/// namespaces), otherwise callers give the parties OS-assigned ports.
fn certs(dir: &Path, parties: usize, base: Option<u16>) {
    let base = base.unwrap_or(7000).to_string();
    let o = Command::new(bin())
        .args([
            "certs",
            "--parties",
            &parties.to_string(),
            "--out",
            dir.to_str().expect("utf8"),
            "--base-port",
            &base,
        ])
        .output()
        .expect("run huddle certs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn check(config: &Path, id: usize, extra: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args([
        "net",
        "check",
        "--config",
        config.to_str().expect("utf8"),
        "--id",
        &id.to_string(),
        "--timeout",
        "15",
    ])
    .args(extra);
    c
}

/// `huddle net check` for parties 0..n of `config`, output captured.
fn spawn_checks(config: &Path, n: usize, extra: &[&str]) -> Vec<Child> {
    (0..n)
        .map(|i| {
            check(config, i, extra)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect()
}

fn finish(children: Vec<Child>) -> Vec<Output> {
    children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect()
}

#[test]
fn three_processes_check_their_links_over_tls() {
    let dir = temp_dir("tls3");
    certs(&dir, 3, None);
    let cfg = dir.join("parties.toml");
    let outputs = with_os_ports(&cfg, || {
        finish(spawn_checks(&cfg, 3, &["--bytes", "1000000"]))
    });
    for (i, o) in outputs.iter().enumerate() {
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "party {i}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            out.contains("TLS 1.3") && out.contains("all links OK"),
            "party {i}: {out}"
        );
        // 20 pings of 8 bytes, 1 MB all-to-all, 1 closing byte: exact counters per link.
        // A round is a burst of sends ended by the sender's next receive: party 2
        // answers party 1's last ping and sends its bulk message to party 1 with no
        // receive in between, so on 2->1 those two messages share one round.
        for p in (0..3).filter(|&p| p != i) {
            let rounds = if (i, p) == (2, 1) { 21 } else { 22 };
            let line = format!(
                "sent {i}->{p} (online): 1000161 bytes in 22 messages over {rounds} rounds"
            );
            assert!(out.contains(&line), "party {i} lacks `{line}`:\n{out}");
        }
    }
}

#[test]
fn without_a_ca_every_party_certificate_is_pinned() {
    let dir = temp_dir("pinned");
    certs(&dir, 2, None);
    let cfg = dir.join("parties.toml");
    let text = std::fs::read_to_string(&cfg)
        .expect("read")
        .replace("[tls]\nca = \"ca.pem\"\n", "");
    assert!(!text.contains("ca.pem"));
    std::fs::write(&cfg, text).expect("write");
    let outputs = with_os_ports(&cfg, || {
        finish(spawn_checks(&cfg, 2, &["--bytes", "100000"]))
    });
    for (i, o) in outputs.iter().enumerate() {
        assert!(
            o.status.success(),
            "party {i}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn bad_configurations_are_refused_before_connecting() {
    let dir = temp_dir("badcfg");
    certs(&dir, 2, None);
    let cfg = dir.join("parties.toml");
    let o = check(&cfg, 5, &[]).output().expect("run");
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--id 5 is not a party"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let broken = dir.join("broken.toml");
    std::fs::write(
        &broken,
        std::fs::read_to_string(&cfg)
            .expect("read")
            .replace("id = 1", "id = 0"),
    )
    .expect("write");
    let o = check(&broken, 0, &[]).output().expect("run");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("party 0 is listed twice"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = Command::new(bin())
        .args([
            "certs",
            "--parties",
            "1",
            "--out",
            dir.to_str().expect("utf8"),
        ])
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&o.stderr).contains("--parties must be 2"));
}

#[test]
fn killing_a_party_mid_run_stops_the_others_with_its_name() {
    let dir = temp_dir("kill");
    certs(&dir, 3, None);
    let cfg = dir.join("parties.toml");
    assign_os_ports(&cfg);
    // Many round trips keep the run going long enough to kill party 2 in the middle.
    let mut children = spawn_checks(&cfg, 3, &["--rounds", "1000000"]);
    let mut first_line = String::new();
    let stdout = children[2].stdout.take().expect("stdout");
    BufReader::new(stdout)
        .read_line(&mut first_line)
        .expect("read");
    assert!(first_line.contains("connected"), "{first_line}");
    std::thread::sleep(Duration::from_millis(200));
    children[2].kill().expect("kill party 2");
    let outputs = finish(children);
    for (i, o) in outputs.iter().enumerate().take(2) {
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "party {i} did not notice");
        assert_eq!(o.status.code(), Some(4), "party {i}: a network failure");
        assert!(err.contains("party 2"), "party {i}: {err}");
        // Noticed from the broken link (or a peer's abort naming party 2),
        // not as silence after the idle timeout.
        assert!(
            !err.contains("sent nothing"),
            "party {i} only timed out: {err}"
        );
    }
}

/// Network namespaces for one test, deleted again on drop.
struct Namespaces {
    names: Vec<String>,
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for n in &self.names {
            let _ = Command::new("ip").args(["netns", "del", n]).status();
        }
    }
}

fn ip(args: &[&str]) -> Result<(), String> {
    let o = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        ))
    }
}

/// Three hosts 198.51.100.1-3 (a documentation range that is never routed)
/// joined through a bridge in a fourth namespace; returns whether tbf shaping
/// to `rate` took effect on every host's link.
fn build_hosts(tag: &str, rate: &str) -> Result<(Namespaces, bool), String> {
    let hub = format!("hd{tag}h");
    let ns = Namespaces {
        names: vec![
            hub.clone(),
            format!("hd{tag}0"),
            format!("hd{tag}1"),
            format!("hd{tag}2"),
        ],
    };
    for n in &ns.names {
        ip(&["netns", "add", n])?;
        ip(&["-n", n, "link", "set", "lo", "up"])?;
    }
    ip(&["-n", &hub, "link", "add", "br0", "type", "bridge"])?;
    ip(&["-n", &hub, "link", "set", "br0", "up"])?;
    let mut shaped = true;
    for i in 0..3 {
        let host = &ns.names[i + 1];
        let (a, b) = (format!("hd{tag}a{i}"), format!("hd{tag}b{i}"));
        ip(&["link", "add", &a, "type", "veth", "peer", "name", &b])?;
        ip(&["link", "set", &a, "netns", host])?;
        ip(&["link", "set", &b, "netns", &hub])?;
        ip(&["-n", &hub, "link", "set", &b, "master", "br0"])?;
        ip(&["-n", &hub, "link", "set", &b, "up"])?;
        ip(&[
            "-n",
            host,
            "addr",
            "add",
            &format!("198.51.100.{}/24", i + 1),
            "dev",
            &a,
        ])?;
        ip(&["-n", host, "link", "set", &a, "up"])?;
        let tc = Command::new("ip")
            .args([
                "netns", "exec", host, "tc", "qdisc", "add", "dev", &a, "root", "tbf", "rate",
                rate, "burst", "64kb", "latency", "500ms",
            ])
            .output();
        shaped &= matches!(tc, Ok(o) if o.status.success());
    }
    Ok((ns, shaped))
}

#[test]
fn parties_on_separate_hosts_exchange_through_shaped_links() {
    let tag = format!("{}", std::process::id() % 100_000);
    let (ns, shaped) = match build_hosts(&tag, "80mbit") {
        Ok(x) => x,
        Err(e) => {
            use std::io::Write;
            let _ = std::io::stderr().write_all(
                format!(
                    "SKIPPED parties_on_separate_hosts: network namespaces unavailable ({e})\n"
                )
                .as_bytes(),
            );
            return;
        }
    };
    let dir = temp_dir("netns");
    // A fixed port is safe here: each party listens inside its own network
    // namespace, which nothing else on the machine can bind in.
    certs(&dir, 3, Some(7000));
    let cfg = dir.join("parties.toml");
    let text = std::fs::read_to_string(&cfg).expect("read");
    let mut hosts = text.clone();
    for i in 0..3 {
        hosts = hosts.replacen(
            "host = \"127.0.0.1\"",
            &format!("host = \"198.51.100.{}\"", i + 1),
            1,
        );
    }
    std::fs::write(&cfg, hosts).expect("write");
    let children = (0..3)
        .map(|i| {
            let mut c = Command::new("ip");
            c.args([
                "netns",
                "exec",
                &ns.names[i + 1],
                bin(),
                "net",
                "check",
                "--config",
                cfg.to_str().expect("utf8"),
                "--id",
                &i.to_string(),
                "--bytes",
                "4000000",
                "--timeout",
                "30",
            ]);
            c.stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let outputs = finish(children);
    for (i, o) in outputs.iter().enumerate() {
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "party {i}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(out.contains("all links OK"), "party {i}: {out}");
        if shaped {
            // Every host's 80 Mbit/s egress carries 8 MB, so no link can receive above 10 MB/s.
            let rate: f64 = out
                .lines()
                .find(|l| l.contains("MB/s received per link"))
                .and_then(|l| l.split(", ").nth(1))
                .and_then(|s| s.split_whitespace().next())
                .and_then(|s| s.parse().ok())
                .expect("throughput line");
            assert!(
                rate < 10.5,
                "party {i} received {rate} MB/s through an 80 Mbit/s link"
            );
        }
    }
    drop(ns);
}

/// `scripts/hosts.sh` hosts of one test, taken down again on drop.
struct ScriptHosts {
    script: std::path::PathBuf,
    prefix: String,
}

impl ScriptHosts {
    fn exec(&self, host: usize, args: &[&str]) -> Command {
        let mut c = Command::new("bash");
        c.arg(&self.script)
            .args(["exec", "--prefix", &self.prefix, &host.to_string()])
            .args(args);
        c
    }
}

impl Drop for ScriptHosts {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(&self.script)
            .args(["down", "--prefix", &self.prefix])
            .output();
    }
}

/// docs/deploy.md, step by step, on three hosts made by scripts/hosts.sh:
/// each party makes its own key (`certs --own`) and pins the others'
/// certificates, each host has only its own key and data file, the same
/// job file runs everywhere, and party 2 (no inputs: it takes the batch
/// from the others) writes every total.
#[test]
fn a_batch_job_with_files_runs_across_three_namespaces() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/hosts.sh");
    let prefix = format!("t{}", std::process::id() % 1_000_000);
    let up = Command::new("bash")
        .arg(&script)
        .args(["up", "3", "--rate", "200mbit", "--prefix", &prefix])
        .output()
        .expect("bash");
    let hosts = ScriptHosts { script, prefix };
    if !up.status.success() {
        use std::io::Write;
        let _ = std::io::stderr().write_all(
            format!(
                "SKIPPED a_batch_job_with_files_runs_across_three_namespaces: scripts/hosts.sh up failed ({})\n",
                String::from_utf8_lossy(&up.stderr).trim()
            )
            .as_bytes(),
        );
        return;
    }
    let dir = temp_dir("deploy");
    let host_dir = |i: usize| dir.join(format!("host{i}"));
    // Step 2: every party its own key; certificates go to everyone.
    for i in 0..3 {
        let o = Command::new(bin())
            .args(["certs", "--own", &i.to_string(), "--out"])
            .arg(host_dir(i))
            .output()
            .expect("run");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // Step 3: the same parties file everywhere (pinned: no [tls] ca). The
    // fixed port is safe: each party listens inside a namespace of its own.
    let mut parties = String::from("session = \"payroll-test\"\n");
    for i in 0..3 {
        parties.push_str(&format!(
            "[[party]]\nid = {i}\nhost = \"198.51.100.{}\"\nport = 7000\ncert = \"party{i}.pem\"\nkey = \"party{i}.key\"\n",
            i + 1
        ));
    }
    // Step 5: the job, and each owner's data file on its own host only.
    let job = "protocol = \"trio\"\nowners = [0, 1]\nreveal_to = 2\nformat = \"dec\"\nheader = true\n\
               [generate]\nkind = \"adder-sklansky\"\nbits = 32\n\
               [inputs]\n0 = \"payroll-a.csv\"\n1 = \"payroll-b.csv\"\n[outputs]\n2 = \"totals.csv\"\n";
    let rows: Vec<(u64, u64)> = (0..2000u64)
        .map(|i| (20_000 + (i * 7919) % 180_000, (i * 104_729) % 50_000))
        .collect();
    let column = |title: &str, pick: &dyn Fn(&(u64, u64)) -> u64| {
        let mut text = format!("{title}\n");
        for r in &rows {
            text.push_str(&format!("{}\n", pick(r)));
        }
        text
    };
    for i in 0..3 {
        let d = host_dir(i);
        std::fs::write(d.join("parties.toml"), &parties).expect("write");
        std::fs::write(d.join("job.toml"), job).expect("write");
        for j in 0..3 {
            if j != i {
                std::fs::copy(
                    host_dir(j).join(format!("party{j}.pem")),
                    d.join(format!("party{j}.pem")),
                )
                .expect("copy certificate");
            }
        }
    }
    std::fs::write(
        host_dir(0).join("payroll-a.csv"),
        column("salary", &|r| r.0),
    )
    .expect("write");
    std::fs::write(host_dir(1).join("payroll-b.csv"), column("bonus", &|r| r.1)).expect("write");
    // Step 4 and 6: check the links, then run the job, on every host.
    for command in ["net", "party"] {
        let children: Vec<Child> = (0..3)
            .map(|i| {
                let d = host_dir(i);
                let (config, job) = (d.join("parties.toml"), d.join("job.toml"));
                let id = i.to_string();
                let (config, job) = (config.to_str().expect("utf8"), job.to_str().expect("utf8"));
                let args: Vec<&str> = if command == "net" {
                    vec![
                        bin(),
                        "net",
                        "check",
                        "--config",
                        config,
                        "--id",
                        &id,
                        "--bytes",
                        "100000",
                        "--timeout",
                        "30",
                    ]
                } else {
                    vec![
                        bin(),
                        "party",
                        "--job",
                        job,
                        "--config",
                        config,
                        "--id",
                        &id,
                        "--timeout",
                        "30",
                    ]
                };
                hosts
                    .exec(i, &args)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn")
            })
            .collect();
        for (i, o) in finish(children).iter().enumerate() {
            assert!(
                o.status.success(),
                "{command} on host {i}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            // Parties 0 and 1 learn nothing and print nothing.
            if command == "party" && i < 2 {
                assert!(o.stdout.is_empty(), "party {i} printed an output");
            }
        }
    }
    let totals = std::fs::read_to_string(host_dir(2).join("totals.csv")).expect("totals");
    let want = column("sum", &|r| r.0 + r.1);
    assert_eq!(totals, want);
    assert!(!host_dir(0).join("totals.csv").exists() && !host_dir(1).join("totals.csv").exists());
    // docs/deploy.md's three-hospitals example: every host the job, each
    // hospital only its own file.
    let example = temp_dir("hospitals");
    let documented = deploy_example(&example);
    for (i, file) in ["ages-a.csv", "ages-b.csv", "ages-c.csv"]
        .iter()
        .enumerate()
    {
        std::fs::copy(example.join("job.toml"), host_dir(i).join("job.toml")).expect("copy");
        std::fs::copy(example.join(file), host_dir(i).join(file)).expect("copy");
    }
    let children: Vec<Child> = (0..3)
        .map(|i| {
            let d = host_dir(i);
            let (config, job) = (d.join("parties.toml"), d.join("job.toml"));
            let id = i.to_string();
            let args = [
                bin(),
                "party",
                "--job",
                job.to_str().expect("utf8"),
                "--config",
                config.to_str().expect("utf8"),
                "--id",
                &id,
                "--timeout",
                "30",
            ];
            hosts
                .exec(i, &args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for (i, o) in finish(children).iter().enumerate() {
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "hospital {i}: {e}");
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "12\n677\n90\n5\n677\n12\n",
            "hospital {i}"
        );
    }
    let (name, stats) = &documented[0];
    assert_eq!(
        &std::fs::read_to_string(host_dir(0).join(name)).expect("stats"),
        stats
    );
}
