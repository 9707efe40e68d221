//! Any bytes a peer sends on a link: frames are read until the first error,
//! never allocating beyond what arrived (plus one chunk), never accepting a
//! frame above the limit; hellos decode and re-encode equal; round stamps
//! are bounded.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A small limit reaches the oversized path; a large one the payload path.
    for max in [64, 1 << 20] {
        let frames = huddle_net::fuzzing::peer_stream(data, max);
        // Every frame costs at least its 4-byte length.
        assert!(frames <= data.len() / 4);
    }
});
