//! Helpers shared by the process tests: the binary, scratch folders, and
//! listening ports that the OS assigns (no fixed port, so a test never
//! collides with whatever else runs on the machine); in submodules, a
//! builder of `huddle local` / `huddle party` command lines ([`run`]), all
//! parties of a run as processes at once ([`parties`]) and circuit files
//! ([`circuits`]).

#![allow(dead_code)] // each test binary uses its own subset

pub mod circuits;
pub mod parties;
pub mod run;

use std::path::{Path, PathBuf};
use std::process::Output;

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_huddle")
}

/// The binary, its per-user state (the ledger of spent deals) in the
/// build's scratch folder ([`state_home`]): no test touches the real home.
pub fn huddle() -> std::process::Command {
    let mut c = std::process::Command::new(bin());
    c.env("XDG_STATE_HOME", state_home());
    c
}

/// `XDG_STATE_HOME` of the processes [`huddle`] starts: under the build's
/// folder for tests' files (deal ids are random, so runs never collide).
pub fn state_home() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("xdg-state")
}

/// A scratch folder of one test, removed when the test ends (passed or
/// failed), so runs leave nothing behind in the machine's temp folder.
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

pub fn temp_dir(tag: &str) -> Scratch {
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("huddle-{tag}-"))
            .tempdir()
            .expect("temp dir"),
    )
}

/// A file with `text` in a scratch folder of its own; the folder goes when
/// the returned guard is dropped.
pub fn temp_file(name: &str, text: &str) -> (Scratch, PathBuf) {
    let dir = temp_dir("file");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp file");
    (dir, path)
}

/// `n` distinct ports the OS picked as free on 127.0.0.1: all bound at once,
/// then released for the parties to listen on. No port is handed out twice
/// in one test process: once released, the OS may give the same port to a
/// concurrent test, whose party would then answer this test's dialer (a
/// foreign CA: "BadSignature") in the moment before the right party listens.
pub fn os_ports(n: usize) -> Vec<u16> {
    static HANDED_OUT: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut handed_out = HANDED_OUT.lock().unwrap_or_else(|e| e.into_inner());
    // Held until every port is picked, so the OS gives each one only once.
    let mut held = Vec::new();
    let mut ports = Vec::with_capacity(n);
    while ports.len() < n {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind an OS-assigned port");
        let port = l.local_addr().expect("addr").port();
        if !handed_out.contains(&port) {
            handed_out.push(port);
            ports.push(port);
        }
        held.push(l);
    }
    ports
}

/// Gives every party of a parties file a fresh OS-assigned port.
pub fn assign_os_ports(config: &Path) {
    let text = std::fs::read_to_string(config).expect("read parties file");
    let count = text.lines().filter(|l| l.starts_with("port = ")).count();
    let mut ports = os_ports(count).into_iter();
    let out: Vec<String> = text
        .lines()
        .map(|l| match l.starts_with("port = ") {
            true => format!("port = {}", ports.next().expect("one port per party")),
            false => l.to_string(),
        })
        .collect();
    std::fs::write(config, out.join("\n") + "\n").expect("write parties file");
}

/// Whether a run failed only because a released port was taken by another
/// program in between (then the caller tries again with fresh ports).
pub fn port_was_taken(outputs: &[Output]) -> bool {
    outputs
        .iter()
        .any(|o| String::from_utf8_lossy(&o.stderr).contains("in use"))
}

/// Runs `attempt` on a parties file with fresh OS-assigned ports, again
/// (up to three times) if a port was taken between picking and listening.
pub fn with_os_ports(config: &Path, mut attempt: impl FnMut() -> Vec<Output>) -> Vec<Output> {
    for _ in 0..2 {
        assign_os_ports(config);
        let outputs = attempt();
        if !port_was_taken(&outputs) {
            return outputs;
        }
    }
    assign_os_ports(config);
    attempt()
}

/// Waits for every party process; if one could not listen because its port
/// was taken meanwhile, stops the others at once (they would only wait for
/// it until their timeout) so that the caller can retry with fresh ports.
pub fn finish_parties(children: Vec<std::process::Child>) -> Vec<Output> {
    let pids: Vec<u32> = children.iter().map(std::process::Child::id).collect();
    let (tx, rx) = std::sync::mpsc::channel();
    let waiters: Vec<_> = children
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let tx = tx.clone();
            std::thread::spawn(move || {
                let _ = tx.send((i, c.wait_with_output().expect("wait")));
            })
        })
        .collect();
    drop(tx);
    let mut outputs: Vec<Option<Output>> = vec![None; pids.len()];
    for (i, o) in rx {
        if port_was_taken(std::slice::from_ref(&o)) {
            for (j, pid) in pids.iter().enumerate() {
                if j != i && outputs[j].is_none() {
                    let _ = std::process::Command::new("kill")
                        .args(["-9", &pid.to_string()])
                        .status();
                }
            }
        }
        outputs[i] = Some(o);
    }
    for w in waiters {
        let _ = w.join();
    }
    outputs
        .into_iter()
        .map(|o| o.expect("every party's output"))
        .collect()
}

/// The fenced blocks of docs/deploy.md tagged `file=NAME` (written to
/// `dir`) and `output=NAME` (returned: name, text).
pub fn deploy_example(dir: &Path) -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/deploy.md"))
        .expect("docs/deploy.md");
    let mut outputs = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let tag = line
            .strip_prefix("```")
            .and_then(|info| info.split_whitespace().nth(1));
        let Some((kind, name)) = tag.and_then(|t| t.split_once('=')) else {
            continue;
        };
        let body: String = lines
            .by_ref()
            .take_while(|l| !l.starts_with("```"))
            .map(|l| format!("{l}\n"))
            .collect();
        match kind {
            "file" => std::fs::write(dir.join(name), body).expect("write"),
            _ => outputs.push((name.to_string(), body)),
        }
    }
    outputs
}
