//! `huddle bench compare`: runs commands (huddle and the frameworks it is
//! measured against, built outside the repository) in alternation, so that
//! the load of a shared machine falls on all of them alike, and reports
//! each command's median wall time, its peak memory and the ratios to the
//! first command. The commands are arguments: nothing of another
//! framework is in this repository.

use serde_json::{json, Map};
use std::time::Instant;

/// One command's runs.
struct Contender {
    label: String,
    command: String,
    seconds: Vec<f64>,
    /// Peak resident set of the largest process of the command's tree, bytes.
    peak_rss: Vec<u64>,
}

/// Runs `command` through `sh -c` and waits for it: wall seconds and the
/// peak resident memory of its largest process (the shell's waited-for
/// descendants included). A failing command is an error with its stderr.
fn run_once(command: &str) -> Result<(f64, u64), String> {
    use std::process::{Command, Stdio};
    let start = Instant::now();
    let child = Command::new("sh")
        .args(["-c", command])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("`{command}`: {e}"))?;
    let (status, peak) = wait_with_peak(child)?;
    let seconds = start.elapsed().as_secs_f64();
    if !status.0 {
        return Err(format!(
            "`{command}` failed (exit {}): {}",
            status.1,
            status.2.trim()
        ));
    }
    Ok((seconds, peak))
}

/// (success, exit code, stderr) and the peak RSS in bytes.
type Finished = ((bool, i32, String), u64);

#[cfg(target_os = "linux")]
fn wait_with_peak(mut child: std::process::Child) -> Result<Finished, String> {
    use std::io::Read;
    // Read stderr on a thread so a chatty command cannot block on a full pipe.
    let reader = child.stderr.take().map(|mut s| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = s.read_to_string(&mut text);
            text
        })
    });
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own unreaped child; `status` and `usage` are
    // valid for writes for the duration of the call.
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if got != pid {
        return Err(format!(
            "waiting for the command: {}",
            std::io::Error::last_os_error()
        ));
    }
    let stderr = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    // ru_maxrss is in KiB on Linux.
    Ok(((ok, code, stderr), usage.ru_maxrss.max(0) as u64 * 1024))
}

#[cfg(not(target_os = "linux"))]
fn wait_with_peak(child: std::process::Child) -> Result<Finished, String> {
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    Ok((
        (
            out.status.success(),
            out.status.code().unwrap_or(-1),
            stderr,
        ),
        0,
    ))
}

pub(crate) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The settings of one comparison.
pub struct Compare {
    /// (label, shell command) in order; the first is the reference.
    pub commands: Vec<(String, String)>,
    pub runs: usize,
    /// Work per run (e.g. AES blocks), for a rate next to the times.
    pub work: Option<f64>,
    pub unit: String,
    pub json: bool,
}

pub fn run(c: Compare) -> Result<(), String> {
    if c.commands.len() < 2 {
        return Err("give at least two commands to compare (--cmd LABEL=COMMAND, twice)".into());
    }
    if c.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    let mut contenders: Vec<Contender> = c
        .commands
        .iter()
        .map(|(label, command)| Contender {
            label: label.clone(),
            command: command.clone(),
            seconds: Vec::new(),
            peak_rss: Vec::new(),
        })
        .collect();
    // Round r runs every command once, in an order rotated by r, so that no
    // command always follows the same neighbour.
    for r in 0..c.runs {
        let n = contenders.len();
        for k in 0..n {
            let who = &mut contenders[(k + r) % n];
            let (seconds, peak) = run_once(&who.command)?;
            who.seconds.push(seconds);
            who.peak_rss.push(peak);
            if !c.json {
                eprintln!(
                    "run {}/{}: {:<12} {seconds:>9.3} s  {:>8.1} MB peak",
                    r + 1,
                    c.runs,
                    who.label,
                    peak as f64 / 1e6
                );
            }
        }
    }
    let reference = median(&contenders[0].seconds);
    let reference_rss = contenders[0].peak_rss.iter().copied().max().unwrap_or(0);
    let mut report = Map::new();
    let mut lines = Vec::new();
    for who in &contenders {
        let m = median(&who.seconds);
        let peak = who.peak_rss.iter().copied().max().unwrap_or(0);
        let rate = c.work.map(|w| w / m);
        // Speed ratio: how many times faster the reference is than this one.
        let speedup = m / reference;
        report.insert(
            who.label.clone(),
            json!({
                "command": who.command,
                "seconds": who.seconds,
                "median_seconds": m,
                "peak_rss_bytes": peak,
                "rate": rate,
                "unit": c.work.map(|_| format!("{}/s", c.unit)),
                "reference_speedup": speedup,
                "memory_ratio": peak as f64 / reference_rss.max(1) as f64,
            }),
        );
        let rate_text = rate.map_or(String::new(), |r| format!("  {r:.3e} {}/s", c.unit));
        lines.push(format!(
            "{:<18} median {m:>9.3} s{rate_text}  peak {:>8.1} MB  ({}: {speedup:.2}x this one's speed, {:.2}x its memory)",
            who.label,
            peak as f64 / 1e6,
            contenders[0].label,
            reference_rss as f64 / peak.max(1) as f64,
        ));
    }
    let header = format!(
        "huddle bench compare: {} commands run in alternation, {} round(s), medians of wall time; \
         peak = the largest process's resident memory",
        contenders.len(),
        c.runs
    );
    crate::stdout::print_report(c.json, &header, report, &lines)
}

/// `LABEL=COMMAND` into its parts.
pub fn parse_command(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((label, command)) if !label.trim().is_empty() && !command.trim().is_empty() => {
            Ok((label.trim().to_string(), command.to_string()))
        }
        _ => Err(format!(
            "`{text}`: give LABEL=COMMAND, e.g. huddle='huddle local --protocol trio ...'"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_run_alternately_and_failures_name_the_command() {
        assert_eq!(
            parse_command("peer=./run.sh -p 1 --x=2").expect("parses"),
            ("peer".to_string(), "./run.sh -p 1 --x=2".to_string())
        );
        assert!(parse_command("no label").is_err());
        assert!(parse_command("=cmd").is_err());
        // The time is the command's whole run: a command that sleeps 0.1 s
        // cannot be timed below that.
        let (seconds, peak) = run_once("sleep 0.1").expect("runs");
        assert!(seconds >= 0.1, "{seconds} s");
        #[cfg(target_os = "linux")]
        assert!(peak > 0, "the shell's peak memory is measured");
        // A command that holds 64 MiB shows at least that much.
        #[cfg(target_os = "linux")]
        {
            let big = "head -c 67108864 /dev/zero | tail -c 67108864 > /dev/null";
            let (_, peak) = run_once(big).expect("runs");
            assert!(peak >= 64 << 20, "peak {peak}");
        }
        let e = run_once("echo broken >&2; exit 3").expect_err("fails");
        assert!(e.contains("exit 3") && e.contains("broken"), "{e}");
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
