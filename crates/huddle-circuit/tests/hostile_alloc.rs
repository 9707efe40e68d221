//! A file's declared sizes are claims, not budgets: reading a tiny hostile
//! file must allocate in proportion to the bytes it holds. A counting
//! allocator measures the peak (its own test binary, so nothing else runs
//! in the process while it counts).

use huddle_circuit::{read_circuit, read_circuit_with, ReadOptions};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        PEAK.fetch_max(live, Ordering::SeqCst);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak bytes allocated while `f` runs, above what was live before.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let out = f();
    (out, PEAK.load(Ordering::SeqCst) - base)
}

#[test]
fn a_tiny_file_declaring_a_billion_input_wires_is_refused_cheaply() {
    // 55 bytes, well formed but for its claim: 10^9 input wires of which one is read.
    let text = "1 1000000000\n1 999999999\n1 1\n\n2 1 0 1 999999999 AND\n";
    let (stdin_like, peak) = peak_during(|| read_circuit(text.as_bytes()));
    let e = stdin_like.expect_err("must refuse");
    assert!(e.to_string().contains("input wires"), "{e}");
    assert!(peak < 1 << 20, "peak allocation {peak} bytes");
    let (with_len, peak) = peak_during(|| {
        read_circuit_with(
            text.as_bytes(),
            ReadOptions {
                file_len: Some(text.len() as u64),
                ..Default::default()
            },
        )
    });
    assert!(with_len.is_err());
    assert!(peak < 1 << 20, "peak allocation {peak} bytes");
}

#[test]
fn unread_inputs_within_the_slack_still_read() {
    // 1000 input wires, one gate reads two of them: harmless, accepted.
    let text = "1 1001\n1 1000\n1 1\n\n2 1 0 1 1000 AND\n";
    let c = read_circuit(text.as_bytes()).expect("reads");
    assert_eq!(c.num_wires(), 1001);
}

#[test]
fn declared_gate_outputs_the_file_never_writes_allocate_nothing_per_wire() {
    // A stream (no length known) claiming 2^30 wires but writing one.
    let text = "1 1073741824\n1 1\n1 1\n\n1 1 0 1 INV\n";
    let (r, peak) = peak_during(|| read_circuit(text.as_bytes()));
    assert!(r.is_err());
    assert!(peak < 1 << 20, "peak allocation {peak} bytes");
}
