//! Any text as an input value of any width: a value that fits or an error;
//! accepted values encode back to the same number.
#![no_main]

use huddle_circuit::hex;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&w, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let width = usize::from(w) * 3;
    if let Ok(words) = hex::decode(text, width) {
        assert_eq!(words.len(), width.div_ceil(64));
        let back = hex::encode(&words, width);
        assert_eq!(hex::decode(&back, width).expect("round trip"), words);
    }
});
