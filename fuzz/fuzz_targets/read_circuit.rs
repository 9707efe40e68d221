//! Any byte string: the reader returns a circuit or an error, never panics,
//! hangs or over-allocates; whatever it accepts writes and reads back equal
//! and evaluates without error.
#![no_main]

use huddle_circuit::{read_circuit_with, write_circuit, BitMatrix, Format, PlainEvaluator, ReadOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for format in [Format::Auto, Format::Bristol, Format::OldBristol] {
        let options = ReadOptions { format, max_wires: 1 << 20, file_len: Some(data.len() as u64) };
        if let Ok(c) = read_circuit_with(data, options) {
            let mut text = Vec::new();
            write_circuit(&c, &mut text).expect("writing to memory cannot fail");
            let back = read_circuit_with(text.as_slice(), ReadOptions { max_wires: 1 << 21, ..ReadOptions::default() })
                .expect("what the writer writes, the reader reads");
            let inputs: Vec<_> = (0..c.inputs().len()).map(|i| BitMatrix::zeros(1, c.input_bits(i))).collect();
            let a = PlainEvaluator::new(&c).evaluate(&inputs).expect("inputs fit");
            let b = PlainEvaluator::new(&back).evaluate(&inputs).expect("inputs fit");
            assert_eq!(a, b, "the written circuit computes something else");
        }
    }
});
