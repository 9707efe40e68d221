//! Circuit files the tests run on.

use std::path::{Path, PathBuf};

/// A 2-bit adder without carry out, with three 2-bit inputs, one per
/// party: out = a + b + c mod 4. Written to `dir/adder.txt`.
pub fn adder(dir: &Path) -> PathBuf {
    let text = "9 15\n3 2 2 2\n1 2\n\n\
        2 1 0 2 6 XOR\n2 1 0 2 7 AND\n2 1 1 3 8 XOR\n2 1 8 7 9 XOR\n\
        2 1 6 4 10 XOR\n2 1 6 4 11 AND\n2 1 9 5 12 XOR\n1 1 10 13 EQW\n2 1 12 11 14 XOR\n";
    let p = dir.join("adder.txt");
    std::fs::write(&p, text).expect("write");
    p
}

/// `c` in Bristol Fashion at `path`.
pub fn write_circuit(path: &Path, c: &huddle_circuit::Circuit) {
    let mut text = Vec::new();
    huddle_circuit::write_circuit(c, &mut text).expect("write");
    std::fs::write(path, text).expect("write file");
}

/// `huddle circuit gen ARGS -o PATH`, which must succeed.
pub fn generate(path: &Path, args: &[&str]) {
    let o = super::huddle()
        .args(["circuit", "gen"])
        .args(args)
        .arg("-o")
        .arg(path)
        .output()
        .expect("run huddle circuit gen");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
