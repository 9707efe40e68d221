//! One party's `huddle` process, watched while it runs: every line of its
//! stderr as it comes (with the moment it came), then its end (exit code or
//! signal, peak resident memory, all it wrote to stdout), all as [`Event`]s
//! on one channel shared by the parties of a run, in order per party (its
//! end after its last line). Signals go to it by pid while it has not been
//! reaped.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::Instant;

/// What a watched process did.
pub enum Event {
    /// A line of its stderr.
    Line {
        party: usize,
        at: Instant,
        text: String,
    },
    /// It ended (after its last line), having written `stdout`.
    End {
        party: usize,
        at: Instant,
        end: End,
        stdout: String,
    },
}

/// How a process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct End {
    /// Its exit code, if it exited.
    pub code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    /// Its peak resident set, KiB (from the kernel's accounting at exit).
    pub max_rss_kib: u64,
}

/// A running process of one party.
pub struct Proc {
    pid: libc::pid_t,
    /// Set once the process is reaped: its pid may then be reused, and no
    /// signal may go to it.
    reaped: Arc<AtomicBool>,
}

impl Proc {
    /// Starts `exe args` (with `envs`, stderr watched, stdout kept for its
    /// end) as party `party`; its lines and end go to `events`.
    pub fn spawn(
        exe: &Path,
        args: &[String],
        envs: &[(&str, &str)],
        party: usize,
        events: Sender<Event>,
    ) -> std::io::Result<Proc> {
        let mut child = Command::new(exe)
            .args(args)
            .envs(envs.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let pid = child.id() as libc::pid_t;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| std::io::Error::other("the child has no stderr pipe"))?;
        let mut stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("the child has no stdout pipe"))?;
        let written = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stdout.read_to_string(&mut text);
            text
        });
        let lines = events.clone();
        let reader = std::thread::spawn(move || {
            for text in BufReader::new(stderr).lines().map_while(Result::ok) {
                let at = Instant::now();
                if lines.send(Event::Line { party, at, text }).is_err() {
                    break;
                }
            }
        });
        let reaped = Arc::new(AtomicBool::new(false));
        let flag = reaped.clone();
        std::thread::spawn(move || {
            let end = reap(pid);
            flag.store(true, Ordering::SeqCst);
            let at = Instant::now();
            // Its last lines first (the pipes end with the process).
            let _ = reader.join();
            let stdout = written.join().unwrap_or_default();
            let _ = events.send(Event::End {
                party,
                at,
                end,
                stdout,
            });
            drop(child);
        });
        Ok(Proc { pid, reaped })
    }

    /// Sends `signal` unless the process is gone; whether it was sent.
    pub fn signal(&self, signal: libc::c_int) -> bool {
        if self.reaped.load(Ordering::SeqCst) {
            return false;
        }
        // SAFETY: kill(2) takes any pid and signal number; the pid is this
        // process's own child, not yet reaped, so it names no other process.
        unsafe { libc::kill(self.pid, signal) == 0 }
    }
}

/// Waits for child `pid` to end: how, and its peak resident memory.
fn reap(pid: libc::pid_t) -> End {
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: status and usage point to live locals of the right types.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        if r == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        // Already reaped elsewhere (no such child): nothing is known.
        return End {
            code: None,
            signal: None,
            max_rss_kib: 0,
        };
    }
    End {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        max_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
    }
}
