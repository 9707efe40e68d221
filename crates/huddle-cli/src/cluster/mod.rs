//! Runs of `huddle party` processes on this machine, deployed as users
//! deploy them (TLS with a development CA, one job file, each party's own
//! input and output files, ports the OS picked), for the harnesses of
//! `huddle bench chaos` and `huddle bench soak --processes`. A [`Job`] is
//! written once (random inputs, the plaintext evaluator's outputs beside
//! them) and can be run again and again; each [`Running`] run gets fresh
//! ports and a session of its own.

pub mod process;

use crate::data::{DataError, Style};
use huddle_circuit::{write_circuit, BitMatrix, Circuit, PlainEvaluator};
use huddle_core::Prg;
use huddle_engine::protocol::Protocol;
use process::{End, Event, Proc};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A scratch folder with a development CA per party count.
pub struct Site {
    root: PathBuf,
    exe: PathBuf,
}

/// What a job runs.
#[derive(Clone, Debug)]
pub struct JobSpec {
    pub protocol: Protocol,
    pub parties: usize,
    /// Its name in reports (the generator and its size).
    pub circuit_name: String,
    pub circuit: Circuit,
    pub batch: usize,
    pub threads: usize,
    /// MiB of shares a party holds at once (None: the protocol's default).
    pub share_memory_mib: Option<usize>,
    /// bgw2-mal: a trusted dealer's one-time material (`huddle deal`).
    pub dealt: bool,
    /// ASTRA and Trio: all preprocessing before the inputs.
    pub separate_preprocessing: bool,
    /// Round-trip time every link is shaped to (0: loopback as it is).
    pub rtt_ms: f64,
    pub idle_timeout: u64,
}

/// A job written to its folder: the files every run of it uses.
pub struct Job {
    pub spec: JobSpec,
    dir: PathBuf,
    pki: PathBuf,
    exe: PathBuf,
    state_home: PathBuf,
    /// The parties that learn the outputs (every one but a dealer).
    pub learners: Vec<usize>,
    /// The outputs every learner must write, as `--outputs` writes them.
    expected: Vec<u8>,
}

/// What became of one party's output file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFile {
    Absent,
    /// Whole, and equal to the plaintext evaluator's outputs.
    Right,
    /// Present but not the plaintext evaluator's outputs: a wrong or a
    /// half-written file.
    Wrong,
}

impl Site {
    /// A site in `root` (created), running parties with this executable.
    pub fn new(root: &Path) -> Result<Site, String> {
        std::fs::create_dir_all(root).map_err(|e| format!("{}: {e}", root.display()))?;
        let exe = std::env::current_exe().map_err(|e| format!("this executable: {e}"))?;
        Ok(Site {
            root: root.to_path_buf(),
            exe,
        })
    }

    /// The development CA and certificates of `parties` parties (made once).
    fn pki(&self, parties: usize) -> Result<PathBuf, String> {
        let dir = self.root.join(format!("pki-{parties}"));
        if !dir.join("ca.pem").exists() {
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            huddle_net::certs::DevPki::generate(parties)
                .map_err(|e| format!("certificates: {e}"))?
                .write_to(&dir, 7000, huddle_net::certs::Existing::Replace)
                .map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        Ok(dir)
    }

    /// Writes job `name` of `spec` with inputs drawn from `prg`.
    pub fn job(&self, name: &str, spec: JobSpec, prg: &mut Prg) -> Result<Job, String> {
        let dir = self.root.join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let write_err = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
        let circuit_path = dir.join("circuit.txt");
        let mut text = Vec::new();
        write_circuit(&spec.circuit, &mut text).map_err(|e| write_err(&circuit_path, e))?;
        std::fs::write(&circuit_path, text).map_err(|e| write_err(&circuit_path, e))?;

        let dealer = spec.protocol.descriptor().dealer;
        let learners: Vec<usize> = (0..spec.parties).filter(|&p| Some(p) != dealer).collect();
        let owners: Vec<usize> = (0..spec.circuit.inputs().len())
            .map(|i| learners[i % learners.len()])
            .collect();
        let inputs = huddle_circuit::random::random_inputs(&spec.circuit, prg, spec.batch);
        let outputs = PlainEvaluator::new(&spec.circuit)
            .evaluate(&inputs)
            .map_err(|e| format!("the plaintext evaluator: {e}"))?;
        let style = Style::DEFAULT;
        let mut job = format!(
            "protocol = \"{}\"\ncircuit = {circuit:?}\nbatch = {}\nthreads = {}\nowners = {owners:?}\n",
            spec.protocol.name(),
            spec.batch,
            spec.threads,
            circuit = circuit_path.display().to_string(),
        );
        if let Some(mib) = spec.share_memory_mib {
            job += &format!("share_memory = {mib}\n");
        }
        if spec.separate_preprocessing {
            job += "preprocess = \"separate\"\n";
        }
        if spec.rtt_ms > 0.0 {
            let net = dir.join("net.toml");
            let shape = format!("[default]\nrtt_ms = {}\n", spec.rtt_ms);
            std::fs::write(&net, shape).map_err(|e| write_err(&net, e))?;
            job += &format!("net = {:?}\n", net.display().to_string());
        }
        let (mut ins, mut outs) = (String::new(), String::new());
        for &p in &learners {
            let values: Vec<usize> = (0..owners.len()).filter(|&i| owners[i] == p).collect();
            if !values.is_empty() {
                let path = dir.join(format!("in{p}.csv"));
                let mine: Vec<BitMatrix> = values.iter().map(|&i| inputs[i].clone()).collect();
                crate::data::write_inputs(&path, &spec.circuit, &values, &mine, style)
                    .map_err(String::from)?;
                ins += &format!("{p} = {:?}\n", path.display().to_string());
            }
            outs += &format!("{p} = {:?}\n", output_path(&dir, p).display().to_string());
        }
        job += &format!("[inputs]\n{ins}[outputs]\n{outs}");
        let job_path = dir.join("job.toml");
        std::fs::write(&job_path, job).map_err(|e| write_err(&job_path, e))?;
        let expected_path = dir.join("expected.csv");
        crate::data::write_outputs(&expected_path, &spec.circuit, &outputs, style)
            .map_err(|e: DataError| e.to_string())?;
        let expected = std::fs::read(&expected_path).map_err(|e| write_err(&expected_path, e))?;
        let job = Job {
            pki: self.pki(spec.parties)?,
            spec,
            dir,
            exe: self.exe.clone(),
            state_home: self.root.join("state"),
            learners,
            expected,
        };
        if job.spec.dealt {
            job.deal()?;
        }
        Ok(job)
    }
}

/// Party `p`'s output file in job folder `dir`.
fn output_path(dir: &Path, p: usize) -> PathBuf {
    dir.join(format!("out{p}.csv"))
}

impl Job {
    /// A trusted dealer's material for one run (`huddle deal`), replacing
    /// the last.
    pub fn deal(&self) -> Result<(), String> {
        let out = self.dir.join("deal");
        let _ = std::fs::remove_dir_all(&out);
        let o = std::process::Command::new(&self.exe)
            .args([
                "deal",
                "--parties",
                &self.spec.parties.to_string(),
                "--circuit",
            ])
            .arg(self.dir.join("circuit.txt"))
            .arg("--out")
            .arg(&out)
            .args(["--batch", &self.spec.batch.to_string()])
            .output()
            .map_err(|e| format!("huddle deal: {e}"))?;
        match o.status.success() {
            true => Ok(()),
            false => Err(format!(
                "huddle deal: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            )),
        }
    }

    /// Party `p`'s dealt material (a dealt job, after [`Job::deal`]).
    pub fn dealt_file(&self, p: usize) -> PathBuf {
        self.dir.join("deal").join(format!("party-{p}.dealt"))
    }

    /// The job file.
    pub fn file(&self) -> PathBuf {
        self.dir.join("job.toml")
    }

    /// Starts every party in session `session`, on ports the OS just
    /// picked, each logging the phases it enters (`huddle_net::PHASE_LOG`).
    pub fn start(&self, session: &str) -> Result<Running, String> {
        self.start_with(session, &[])
    }

    /// [`Job::start`], every party given the arguments `extra` too.
    pub fn start_with(&self, session: &str, extra: &[&str]) -> Result<Running, String> {
        let config = self.parties_file(session)?;
        let job = self.file();
        let (tx, events) = std::sync::mpsc::channel();
        let log = format!("warn,{}=debug", huddle_net::PHASE_LOG);
        let state = self.state_home.display().to_string();
        let envs = [
            ("RUST_LOG", log.as_str()),
            ("XDG_STATE_HOME", state.as_str()),
        ];
        let mut procs = Vec::with_capacity(self.spec.parties);
        for p in 0..self.spec.parties {
            let mut args: Vec<String> = vec![
                "party".into(),
                "--config".into(),
                config.display().to_string(),
                "--id".into(),
                p.to_string(),
                "--job".into(),
                job.display().to_string(),
                "--idle-timeout".into(),
                self.spec.idle_timeout.to_string(),
                "--timeout".into(),
                "30".into(),
            ];
            if self.spec.dealt {
                args.push("--dealt".into());
                args.push(self.dealt_file(p).display().to_string());
            }
            args.extend(extra.iter().map(|a| a.to_string()));
            let proc = Proc::spawn(&self.exe, &args, &envs, p, tx.clone())
                .map_err(|e| format!("starting party {p}: {e}"))?;
            procs.push(proc);
        }
        Ok(Running {
            logs: vec![Vec::new(); procs.len()],
            ends: vec![None; procs.len()],
            stdouts: vec![String::new(); procs.len()],
            procs,
            events,
        })
    }

    /// A parties file for session `session` with fresh OS-assigned ports.
    fn parties_file(&self, session: &str) -> Result<PathBuf, String> {
        let listeners: Vec<std::net::TcpListener> = (0..self.spec.parties)
            .map(|_| std::net::TcpListener::bind("127.0.0.1:0"))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("picking a port: {e}"))?;
        let pki = self.pki.display();
        let mut text = format!("session = {session:?}\n\n[tls]\nca = \"{pki}/ca.pem\"\n");
        for (p, l) in listeners.iter().enumerate() {
            let port = l.local_addr().map_err(|e| e.to_string())?.port();
            text += &format!(
                "\n[[party]]\nid = {p}\nhost = \"127.0.0.1\"\nport = {port}\n\
                 cert = \"{pki}/party{p}.pem\"\nkey = \"{pki}/party{p}.key\"\n"
            );
        }
        let path = self.dir.join("parties.toml");
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }

    /// Party `p`'s output file, as it is now.
    pub fn output(&self, p: usize) -> OutputFile {
        match std::fs::read(output_path(&self.dir, p)) {
            Ok(bytes) if bytes == self.expected => OutputFile::Right,
            Ok(_) => OutputFile::Wrong,
            Err(_) => OutputFile::Absent,
        }
    }

    /// Files the atomic writer left under hidden names (only SIGKILL in the
    /// middle of a write can), removed.
    pub fn take_leftovers(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        let mut n = 0;
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(".out") && name.ends_with(".part") {
                let _ = std::fs::remove_file(e.path());
                n += 1;
            }
        }
        n
    }

    /// Removes every party's output file (before a run that must write them).
    pub fn clear_outputs(&self) {
        for p in 0..self.spec.parties {
            let _ = std::fs::remove_file(output_path(&self.dir, p));
        }
    }
}

/// What a run's parties have done so far.
pub struct Running {
    pub procs: Vec<Proc>,
    events: Receiver<Event>,
    /// Every party's stderr lines, with the moment each came.
    pub logs: Vec<Vec<(Instant, String)>>,
    /// How and when each party ended.
    pub ends: Vec<Option<(Instant, End)>>,
    /// What each party that ended wrote to stdout.
    stdouts: Vec<String>,
}

/// What [`Running::next`] saw.
pub enum Seen {
    /// A line of this party's stderr.
    Line(usize),
    /// A party ended.
    End,
    /// Nothing until the moment given.
    Nothing,
}

impl Running {
    /// The next line or end of any party (recorded in `logs`/`ends`), or
    /// [`Seen::Nothing`] at `until`.
    pub fn next(&mut self, until: Instant) -> Seen {
        let wait = until.saturating_duration_since(Instant::now());
        match self.events.recv_timeout(wait) {
            Ok(Event::Line { party, at, text }) => {
                self.logs[party].push((at, text));
                Seen::Line(party)
            }
            Ok(Event::End {
                party,
                at,
                end,
                stdout,
            }) => {
                self.ends[party] = Some((at, end));
                self.stdouts[party] = stdout;
                Seen::End
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => Seen::Nothing,
        }
    }

    /// Waits until the parties `which` have ended, at most until `until`;
    /// whether they all did.
    pub fn wait(&mut self, which: &[usize], until: Instant) -> bool {
        while which.iter().any(|&p| self.ends[p].is_none()) {
            if Instant::now() >= until {
                return false;
            }
            self.next(until);
        }
        true
    }

    /// Kills every party still running and waits for them (a harness
    /// giving up on a run).
    pub fn kill_all(&mut self) {
        for p in &self.procs {
            p.signal(libc::SIGKILL);
        }
        let all: Vec<usize> = (0..self.procs.len()).collect();
        self.wait(&all, Instant::now() + Duration::from_secs(30));
    }

    /// What party `p` wrote to stdout (once it ended).
    pub fn stdout(&self, p: usize) -> &str {
        &self.stdouts[p]
    }

    /// Party `p`'s stderr, whole.
    pub fn stderr(&self, p: usize) -> String {
        let lines: Vec<&str> = self.logs[p].iter().map(|(_, t)| t.as_str()).collect();
        lines.join("\n")
    }

    /// Whether a party could not listen because another program took its
    /// port between picking and listening (then the run is repeated).
    pub fn port_taken(&self) -> bool {
        self.logs
            .iter()
            .flatten()
            .any(|(_, t)| t.contains("in use"))
    }

    /// Party `p`'s exit code (None while it runs, or if a signal ended it).
    pub fn code(&self, p: usize) -> Option<i32> {
        self.ends[p].and_then(|(_, e)| e.code)
    }
}

/// What is wrong with a run nobody disturbed, if anything: a party that
/// did not exit with 0, or a learner whose output file is not the plaintext
/// evaluator's outputs.
pub fn problem(job: &Job, run: &Running) -> Option<String> {
    for p in 0..job.spec.parties {
        if run.code(p) != Some(0) {
            let error = last_error(&run.stderr(p));
            return Some(format!(
                "party {p} ended with {:?}: {error}",
                run.ends[p].map(|(_, e)| e)
            ));
        }
    }
    job.learners
        .iter()
        .find(|&&p| job.output(p) != OutputFile::Right)
        .map(|p| format!("party {p}'s outputs are not the plaintext evaluator's"))
}

/// The last `error:` line of a party's stderr (else its last line).
pub fn last_error(stderr: &str) -> String {
    stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("error"))
        .or_else(|| stderr.lines().last())
        .unwrap_or("")
        .to_string()
}

/// The phase steps a party logs (`huddle_net::PHASE_LOG`) in its stderr,
/// in order, with the moment each line came: (moment, step).
pub fn steps(log: &[(Instant, String)]) -> Vec<(Instant, &str)> {
    log.iter()
        .filter_map(|(at, t)| step(t).map(|s| (*at, s)))
        .collect()
}

/// The step a phase-log line names (`... enters phase ... phase=NAME`).
pub fn step(line: &str) -> Option<&str> {
    if !line.contains("enters phase") {
        return None;
    }
    let (_, rest) = line.rsplit_once("phase=")?;
    rest.split_whitespace().next()
}

#[cfg(test)]
mod tests {
    #[test]
    fn phase_lines_are_read_and_others_ignored() {
        let line = "2026-11-28T10:22:09.402289Z DEBUG huddle_net::phase: enters phase party=0 lane=0 phase=setup";
        assert_eq!(super::step(line), Some("setup"));
        assert_eq!(super::step("error: party 2 disconnected"), None);
    }
}
