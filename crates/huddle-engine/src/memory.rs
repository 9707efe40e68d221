//! Whether a run fits this machine's memory, checked before anything is
//! sent, how much the process took (for the run's report), and the
//! allocator settings a process running huddle is fastest with.

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

/// Tells the system allocator to keep what protocol rounds free for the
/// next rounds: a round's messages and share buffers are megabytes, which
/// glibc by default maps fresh for each (a page fault per 4 KiB, most of an
/// in-memory run's time at large batches) and hands back once freed. Blocks
/// up to 256 MiB come from its heaps instead, and up to 64 MiB (the default
/// share memory) of free space stays at the heap's top. Against mimalloc
/// (which huddle used before), measured alternately over loopback TCP: as
/// fast or faster, with less peak memory per party on most workloads
/// (docs/perf/2026-11-26-allocator-circuit-reader.md).
///
/// One arena for all threads: a message buffer is often allocated on one
/// thread (a link's reader) and freed on another (the protocol's), and with
/// an arena per thread each kept its own free megabytes. One arena lowered
/// the peak memory at the same speed (docs/perf/2026-11-27-table-every-peer.md);
/// the malloc lock is not contended (buffers are pooled).
///
/// Process-wide: the `huddle` command calls it first thing in `main`, the
/// Python package when it is imported; a program using this library calls
/// it before it starts threads, if it wants the same speed. Does nothing
/// but on Linux with glibc.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt takes two integers and changes only the allocator's
    // thresholds (glibc takes its own lock). A refused value (returns 0)
    // leaves glibc's default.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}
