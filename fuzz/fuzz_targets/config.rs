//! Any text as a parties file or a link-profile file: a configuration or an
//! error, never a panic; an accepted profile's links have finite, positive
//! shapes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(config) = huddle_net::NetworkConfig::from_toml(text, std::path::Path::new("/nonexistent")) {
        assert!(config.parties() >= 1);
    }
    let _ = huddle_net::NetProfile::from_toml("fuzz", text);
});
