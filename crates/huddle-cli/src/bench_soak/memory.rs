//! This process's memory between runs: resident set and live heap.

/// What the process holds, where the system tells (`None`: unknown).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Resident set size, bytes.
    pub resident: Option<u64>,
    /// Bytes allocated and not freed (the allocator's count).
    pub heap: Option<u64>,
}

/// The process's memory now. What is kept for reuse only, in amounts
/// that depend on the runs before, is first given back: the transport's
/// message buffers (a bounded pool) and the allocator's free memory
/// (huddle tells glibc to keep up to 64 MiB,
/// `huddle_engine::keep_freed_memory`). What remains is what the process holds.
pub fn this_process() -> Memory {
    huddle_net::release_kept_buffers();
    give_back_free_memory();
    Memory {
        resident: resident_bytes(),
        heap: heap_bytes(),
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_back_free_memory() {
    // SAFETY: malloc_trim takes an integer and only returns free pages of
    // the allocator's own heaps to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back_free_memory() {}

/// `VmRSS` of /proc/self/status.
#[cfg(target_os = "linux")]
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_rss(&status)
}

#[cfg(not(target_os = "linux"))]
fn resident_bytes() -> Option<u64> {
    None
}

/// The `VmRSS:  1234 kB` line's bytes.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let mut fields = line["VmRSS:".len()..].split_whitespace();
    let kib: u64 = fields.next()?.parse().ok()?;
    (fields.next() == Some("kB")).then_some(kib * 1024)
}

/// glibc's bytes in use: from its heaps and mapped directly.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn heap_bytes() -> Option<u64> {
    // SAFETY: mallinfo2 takes nothing and returns a plain struct by value.
    let info = unsafe { libc::mallinfo2() };
    Some((info.uordblks + info.hblkhd) as u64)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn heap_bytes() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resident_set_lines_read_in_bytes() {
        let status = "Name:\thuddle\nVmHWM:\t  9000 kB\nVmRSS:\t  1234 kB\nThreads:\t1\n";
        assert_eq!(parse_vm_rss(status), Some(1234 * 1024));
        assert_eq!(parse_vm_rss("VmRSS:\t12 MB\n"), None);
        assert_eq!(parse_vm_rss("Name:\thuddle\n"), None);
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn held_allocations_count_in_the_heap_and_touched_ones_are_resident() {
        // Untouched, so it costs no resident memory; whatever other tests
        // allocate or free meanwhile, the count includes this block.
        let held: Vec<u8> = Vec::with_capacity(64 << 20);
        // Written, so its pages are resident: this process's reading
        // includes them (one that was not this process's, or in kB, would
        // not).
        let touched = std::hint::black_box(vec![1u8; 16 << 20]);
        let now = this_process();
        assert!(now.heap.expect("glibc counts") >= 64 << 20, "{now:?}");
        assert!(now.resident.expect("Linux tells") >= 16 << 20, "{now:?}");
        drop((held, touched));
    }
}
