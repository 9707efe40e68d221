//! Whether a run fits this machine's memory, checked before anything is
//! sent, and how much the process took (for the run's report).

use crate::error::RunError;

/// Fails before any communication if a run would need more memory than the
/// machine has available (from /proc/meminfo; no check where that is unknown).
pub fn check_memory(what: &str, bytes: u128) -> Result<(), RunError> {
    let Some(available) = available_memory() else {
        return Ok(());
    };
    if bytes > u128::from(available) {
        let gib = |b: u128| b as f64 / (1u64 << 30) as f64;
        return Err(RunError::Resource(format!(
            "{what} needs {:.1} GiB but {:.1} GiB are available; lower --batch",
            gib(bytes),
            gib(u128::from(available))
        )));
    }
    Ok(())
}

fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// This process's peak resident memory so far (`VmHWM` of
/// /proc/self/status; None where the system does not tell).
pub(crate) fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
