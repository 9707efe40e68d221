//! Reader strictness: every malformed file gets an error naming the cause and
//! the line, never a panic. Plus round trips of random circuits in both the
//! Bristol and the arithmetic format, and the old Bristol format.

use huddle_circuit::format::{write_old_bristol, OldFormatError};
use huddle_circuit::random::{random_circuit, RandomCircuitSpec};
use huddle_circuit::{
    read_circuit, read_circuit_with, write_canonical, write_circuit, Circuit, Format,
    PlainEvaluator, ReadError, ReadOptions, Stats,
};
use huddle_core::{Prg, RingWidth};
use proptest::prelude::*;

const ADDER2: &str = "3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 3 5 XOR\n2 1 0 2 6 AND\n";

fn err(text: &str) -> String {
    match read_circuit(text.as_bytes()) {
        Ok(_) => panic!("accepted a malformed file:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn assert_err(text: &str, needle: &str) {
    let e = err(text);
    assert!(
        e.contains(needle),
        "error `{e}` does not mention `{needle}`"
    );
}

#[test]
fn a_valid_small_file_reads() {
    // Not an adder, but well formed: outputs are wires 5 and 6.
    let c = read_circuit(ADDER2.as_bytes()).expect("valid");
    assert_eq!(c.gates().len(), 3);
    assert_eq!(
        PlainEvaluator::new(&c)
            .evaluate_hex(&["1", "1"])
            .expect("eval"),
        vec!["2"]
    );
}

#[test]
fn malformed_files_name_the_cause_and_line() {
    let cases: &[(&str, &str)] = &[
        ("", "ends early"),
        ("3", "wire count"),
        ("3 7\n2 2", "width of input value 1"),
        ("3 7\n2 2 2\n", "number of output values"),
        ("3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n", "3 gates, found 1"),
        (
            "3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 3 5 XOR\n2 1 0 2",
            "ends early",
        ),
        (
            "2 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 3 5 XOR\n2 1 0 2 6 AND\n",
            "line 7: more gates than the 2",
        ),
        (
            "3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 3 5 XOR\n2 1 0 7 6 AND\n",
            "line 7: wire 7 is out of range",
        ),
        (
            "3 7\n2 2 2\n1 2\n\n2 1 0 5 4 XOR\n2 1 1 3 5 XOR\n2 1 0 2 6 AND\n",
            "line 5: wire 5 is read before it is written",
        ),
        (
            "3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 3 4 XOR\n2 1 0 2 6 AND\n",
            "line 6: wire 4 is written twice",
        ),
        (
            "3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 3 5 FOO\n2 1 0 2 6 AND\n",
            "line 6: unknown gate `FOO`",
        ),
        (
            "3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n1 1 1 5 XOR\n2 1 0 2 6 AND\n",
            "line 6: XOR expects 2 inputs and 1 output",
        ),
        (
            "3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 x 5 XOR\n2 1 0 2 6 AND\n",
            "line 6: expected a gate operand, found `x`",
        ),
        (
            "3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 99999999999999999999 5 XOR\n",
            "too large",
        ),
        (
            "3 7\n2 2 -2\n1 2\n",
            "line 2: expected the width of input value 1, found `-2`",
        ),
        ("3 7\n4 1 1 1", "the width of input value 3"),
        (
            "3 7\n2 2 9\n1 2\n",
            "the input values need 11 wires, but the circuit has 7",
        ),
        ("3 7\n2 2 2\n1 9\n", "the outputs need 9 wires"),
        ("3 7\n2 2 0\n1 2\n", "input value 1 has width 0"),
        (
            "3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 3 5 XOR\n2 1 0 1 6 EQ\n",
            "line 7: EQ expects 1 literal input",
        ),
        (
            "3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 3 5 XOR\n1 1 2 6 EQ\n",
            "the literal is 2",
        ),
        (
            "3 7\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 3 5 XOR\n2 1 0 2 6 ADD\n",
            "arithmetic gate, but the file declares no ring",
        ),
        (
            "3 8\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n2 1 1 3 5 XOR\n2 1 0 2 6 AND\n",
            "7 of the 8 declared wires are written",
        ),
        (
            "1 20\n1 2\n1 1\n\n17 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 2 AND\n",
            "AND expects 2 to 16 inputs",
        ),
        (
            "1 5\n1 2\n1 2\n\n3 2 0 1 0 3 4 MAND\n",
            "MAND expects 2k inputs and k outputs",
        ),
        (
            "ring 12\n1 2\n1 1r\n1 1r\n",
            "ring width 12 is not supported",
        ),
        (
            "1 3\n1 1r\n1 1r\n",
            "ring width, but the file declares no ring",
        ),
        (
            "ring 8\n1 3\n1 1r\n1 1r\n\n2 1 0 300 2 ADDC\n",
            "constant 300 does not fit Z_2^8",
        ),
        (
            "ring 8\n1 3\n2 1r 1\n1 1r\n\n2 1 0 1 2 ADD\n",
            "ADD needs arithmetic input wires, but wire 1 is Boolean",
        ),
        (
            "ring 8\n1 9\n1 1r\n1 8\n\n1 7 0 1 2 3 4 5 6 7 A2B\n",
            "one output per bit of the ring",
        ),
        (
            "ring 8\n1 2\n1 1r\n1 1\n\n2 1 0 0 1 ADD\n",
            "output output0 is declared Boolean but wire 1 is arithmetic",
        ),
    ];
    for (text, needle) in cases {
        assert_err(text, needle);
    }
}

#[test]
fn absurd_headers_are_rejected_before_allocation() {
    assert_err("1 99999999999\n1 1\n1 1\n", "above the limit");
    assert_err(
        "99999999999999 3\n1 1\n1 1\n\n",
        "99999999999999 gates, found 0",
    );
    // A header promising far more wires than the file can spell out.
    let text = "1 100000000\n1 1\n1 1\n\n1 1 0 1 INV\n";
    let e = read_circuit_with(
        text.as_bytes(),
        ReadOptions {
            file_len: Some(text.len() as u64),
            ..Default::default()
        },
    )
    .expect_err("must reject");
    assert!(e.to_string().contains("more than a"), "{e}");
    // A count of values that the file never delivers is an early end, not an allocation.
    assert_err("1 3\n18446744073709551615 1\n", "ends early");
}

#[test]
fn the_old_format_reads_and_writes() {
    let text = "3 7\n2 2 2\n\n2 1 0 2 4 XOR\n2 1 1 3 5 XOR\n2 1 0 2 6 AND\n";
    // `2 2 2` is ambiguous (it is also a valid Bristol Fashion inputs line), so name the format.
    let c = read_circuit_with(
        text.as_bytes(),
        ReadOptions {
            format: Format::OldBristol,
            ..Default::default()
        },
    )
    .expect("old format");
    assert_eq!(Stats::of(&c).inputs, vec![2, 2]);
    assert_eq!(Stats::of(&c).outputs, vec![2]);
    let mut out = Vec::new();
    write_old_bristol(&c, &mut out).expect("writable");
    assert_eq!(String::from_utf8(out).expect("utf8"), text);
    let mand = read_circuit("1 6\n2 2 2\n1 2\n\n4 2 0 1 2 3 4 5 MAND\n".as_bytes()).expect("mand");
    assert!(
        matches!(write_old_bristol(&mand, Vec::new()), Err(OldFormatError::Unsupported(m)) if m.contains("MAND"))
    );
}

/// Fixed point with 4 fractional bits in Z_2^16: a = (1.5, -2), b = (-2.25, 0.5).
const FIXED: &str = "ring 16\n4 8\n2 2r 2r\n2 3r 1\n\n\
    4 1 0 1 2 3 4 DOT\n5 1 0 1 2 3 4 5 DOTTR\n3 1 0 2 4 6 DOTTR\n1 1 5 7 LTZ\n";

#[test]
fn dot_products_fixed_point_truncation_and_sign_evaluate_as_specified() {
    let c = read_circuit(FIXED.as_bytes()).expect("fixed point");
    let e = PlainEvaluator::new(&c);
    // a·b = 24·(-36) + (-32)·8 = -1120 (-4.375 with 8 fractional bits);
    // truncated by 4: -70 (-4.375); a1·b1 truncated: -54 (-3.375); -70 < 0.
    assert_eq!(
        e.evaluate_hex(&["ffe00018", "0008ffdc"]).expect("eval"),
        vec!["ffcaffbafba0", "1"]
    );
    // Truncation rounds down (floor), also for negative values: -1121 >> 4 = -71;
    // positive values and the sign bit: 1121 >> 4 = 70, not negative.
    assert_eq!(
        e.evaluate_hex(&["00000001", "0000fb9f"]).expect("eval"),
        vec!["ffb9ffb9fb9f", "1"]
    );
    assert_eq!(
        e.evaluate_hex(&["00000001", "00000461"]).expect("eval"),
        vec!["004600460461", "0"]
    );
    let mut out = Vec::new();
    write_circuit(&c, &mut out).expect("write");
    assert_eq!(read_circuit(out.as_slice()).expect("reread"), c);
}

#[test]
fn malformed_fixed_point_gates_are_refused_naming_the_cause() {
    let head = "ring 16\n1 5\n2 2r 2r\n1 1r\n\n";
    assert_err(
        &format!("{head}3 1 0 2 0 4 DOTTR\n"),
        "constant 0 does not fit a truncation of Z_2^16 (1 to 15 bits)",
    );
    assert_err(
        &format!("{head}3 1 0 2 16 4 DOTTR\n"),
        "constant 16 does not fit a truncation",
    );
    assert_err(
        &format!("{head}3 1 0 2 300 4 DOTTR\n"),
        "DOTTR truncates by 300 bits",
    );
    assert_err(
        &format!("{head}2 1 0 4 4 DOTTR\n"),
        "DOTTR expects 2l input wires and 1 literal",
    );
    assert_err(
        &format!("{head}3 1 0 1 2 4 DOT\n"),
        "2l inputs (l = 1 to 65536)",
    );
    assert_err(
        "1 3\n1 1\n1 1\n\n1 1 0 2 LTZ\n",
        "`LTZ` is an arithmetic gate, but the file declares no ring",
    );
    assert_err(
        "ring 16\n2 4\n2 1 1r\n1 1\n\n1 1 0 2 LTZ\n1 1 2 3 EQW\n",
        "LTZ",
    );
}

#[test]
fn mixed_circuits_evaluate_in_the_ring() {
    // x (Z_2^16) and bit b: out = (x * b + 3) and the low bits of x.
    let text = "ring 16\n4 21\n2 1r 1\n2 1r 16\n\n1 1 1 2 B2A\n2 1 0 2 3 MUL\n2 1 3 3 4 ADDC\n1 16 0 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 A2B\n";
    let c = read_circuit(text.as_bytes()).expect("mixed");
    let e = PlainEvaluator::new(&c);
    assert_eq!(
        e.evaluate_hex(&["fffe", "1"]).expect("eval"),
        vec!["0001", "fffe"]
    );
    assert_eq!(
        e.evaluate_hex(&["1234", "0"]).expect("eval"),
        vec!["0003", "1234"]
    );
    let mut out = Vec::new();
    write_circuit(&c, &mut out).expect("write");
    assert_eq!(read_circuit(out.as_slice()).expect("reread"), c);
}

fn random_boolean(seed: u64, fan_in: usize) -> huddle_circuit::Circuit {
    let mut prg = Prg::from_seed([seed as u8; 16]);
    random_circuit(&RandomCircuitSpec::boolean(&[7, 70], 150, fan_in), &mut prg)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_circuits_round_trip(seed in 0u64..256, fan_in in 2usize..=16, ring in 0usize..4) {
        let mut prg = Prg::from_seed([seed as u8; 16]);
        let spec = if seed % 2 == 0 {
            RandomCircuitSpec::boolean(&[7, 70], 150, fan_in)
        } else {
            RandomCircuitSpec::mixed(RingWidth::ALL[ring], 9, 3, 150, fan_in)
        };
        let c = random_circuit(&spec, &mut prg);
        let mut text = Vec::new();
        write_circuit(&c, &mut text).expect("write");
        let back = read_circuit(text.as_slice()).expect("reread");
        // Outputs move to the end through EQW copies when they were elsewhere;
        // the function must not change.
        let e1 = PlainEvaluator::new(&c);
        let e2 = PlainEvaluator::new(&back);
        let widths: Vec<usize> = (0..c.inputs().len()).map(|i| c.input_bits(i)).collect();
        let inputs: Vec<String> = widths.iter().map(|&w| huddle_circuit::hex::encode(&[prg.next_u64(), prg.next_u64()], w)).collect();
        let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        prop_assert_eq!(e1.evaluate_hex(&refs).expect("eval"), e2.evaluate_hex(&refs).expect("eval"));
        let mut again = Vec::new();
        write_circuit(&back, &mut again).expect("write");
        let back2 = read_circuit(again.as_slice()).expect("reread");
        // Lines and tokens split across the reader's pieces read the same.
        let small = std::io::BufReader::with_capacity(1 + seed as usize % 13, again.as_slice());
        let pieces = read_circuit_with(small, ReadOptions::default()).expect("reread in pieces");
        prop_assert_eq!(&pieces, &back2);
        prop_assert_eq!(canonical(&back2), canonical(&back));
        prop_assert_eq!(&back2, &back);
        // Another circuit has another canonical form.
        let other = random_circuit(&spec, &mut prg);
        prop_assert_eq!(canonical(&other) == canonical(&c), other == c);
    }

    /// Whitespace and leading zeros are spelling, not meaning: runs of
    /// spaces and tabs, CRLF line ends, and numbers padded up to 24 digits
    /// (past the 19 the reader's one-pass number scan takes, so both of its
    /// paths run) read to the same circuit.
    #[test]
    fn spacing_and_leading_zeros_do_not_change_the_circuit(seed in 0u64..256, style in proptest::collection::vec(0u8..16, 1..64)) {
        let c = random_boolean(seed, 2 + seed as usize % 15);
        let mut text = Vec::new();
        write_circuit(&c, &mut text).expect("write");
        let mut spelled = Vec::with_capacity(text.len() * 2);
        let mut k = 0;
        let mut next_style = || {
            k += 1;
            style[k % style.len()]
        };
        let mut at_token_start = true;
        for &b in &text {
            match b {
                b' ' => spelled.extend_from_slice([&b" "[..], b"\t", b"  ", b" \t "][next_style() as usize % 4]),
                b'\n' => spelled.extend_from_slice(if next_style() % 2 == 0 { b"\n" } else { b"\r\n" }),
                b'0'..=b'9' if at_token_start => {
                    let zeros = match next_style() {
                        0..=9 => 0,
                        z => usize::from(z) * 4 - 40, // 4 to 20 leading zeros
                    };
                    spelled.extend(std::iter::repeat_n(b'0', zeros));
                    spelled.push(b);
                }
                _ => spelled.push(b),
            }
            at_token_start = b.is_ascii_whitespace();
        }
        let back = read_circuit(spelled.as_slice()).expect("reread");
        prop_assert_eq!(canonical(&back), canonical(&c));
    }

    #[test]
    fn corrupted_files_never_panic(seed in 0u64..64, cuts in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6)) {
        let mut text = Vec::new();
        write_circuit(&random_boolean(seed, 4), &mut text).expect("write");
        for (pos, byte) in cuts {
            let i = pos % text.len();
            // Replace a byte with digits, spaces, newlines, letters or garbage.
            text[i] = b"0123456789 \nAXr\xff"[byte as usize % 16];
        }
        let _ = read_circuit(text.as_slice());
        let truncated = &text[..text.len() / 2];
        prop_assert!(read_circuit(truncated).is_err());
    }
}

fn canonical(c: &Circuit) -> Vec<u8> {
    let mut out = Vec::new();
    write_canonical(c, &mut out).expect("write");
    out
}

#[test]
fn canonical_forms_differ_wherever_circuits_do() {
    let base = "ring 16\n3 5\n2 1r 1r\n1 1r\n\n2 1 0 1 2 MUL\n2 1 2 7 3 ADDC\n2 1 3 1 4 ADD\n";
    let variants = [
        // Another operation, literal, operand order, ring, input split, gate.
        "ring 16\n3 5\n2 1r 1r\n1 1r\n\n2 1 0 1 2 MUL\n2 1 2 7 3 MULC\n2 1 3 1 4 ADD\n",
        "ring 16\n3 5\n2 1r 1r\n1 1r\n\n2 1 0 1 2 MUL\n2 1 2 8 3 ADDC\n2 1 3 1 4 ADD\n",
        "ring 16\n3 5\n2 1r 1r\n1 1r\n\n2 1 1 0 2 MUL\n2 1 2 7 3 ADDC\n2 1 3 1 4 ADD\n",
        "ring 32\n3 5\n2 1r 1r\n1 1r\n\n2 1 0 1 2 MUL\n2 1 2 7 3 ADDC\n2 1 3 1 4 ADD\n",
        "ring 16\n3 5\n1 2r\n1 1r\n\n2 1 0 1 2 MUL\n2 1 2 7 3 ADDC\n2 1 3 1 4 ADD\n",
        "ring 16\n4 6\n2 1r 1r\n1 1r\n\n2 1 0 1 2 MUL\n2 1 2 7 3 ADDC\n2 1 3 1 4 ADD\n1 1 4 5 EQW\n",
    ];
    let form = |text: &str| canonical(&read_circuit(text.as_bytes()).expect("valid"));
    let (base_form, again) = (form(base), form(base));
    assert_eq!(base_form, again, "one circuit, one form");
    for (i, v) in variants.iter().enumerate() {
        assert_ne!(form(v), base_form, "variant {i}");
    }
}

#[test]
fn errors_are_typed() {
    assert!(matches!(
        read_circuit("".as_bytes()),
        Err(ReadError::Truncated { .. })
    ));
    assert!(matches!(
        read_circuit("1 2\n1 1\n1 1\n\n1 1 0 1 FOO\n".as_bytes()),
        Err(ReadError::Syntax { line: 5, .. })
    ));
    assert!(matches!(
        read_circuit("1 2\n1 1\n1 1\n\n1 1 0 0 INV\n".as_bytes()),
        Err(ReadError::Model { line: 5, .. })
    ));
}

#[test]
fn eqz_bx2a_and_wide_b2a_read_evaluate_and_refuse_bad_shapes() {
    // x (Z_2^16), bits b0 b1: [x = 0], b0·b1·x, b0·b1.
    let text = "ring 16\n3 6\n2 1r 2\n3 1 1r 1r\n\n1 1 0 3 EQZ\n3 1 1 2 0 4 BX2A\n2 1 1 2 5 B2A\n";
    let c = read_circuit(text.as_bytes()).expect("reads");
    let e = PlainEvaluator::new(&c);
    assert_eq!(
        e.evaluate_hex(&["0000", "3"]).expect("eval"),
        vec!["1", "0000", "0001"]
    );
    assert_eq!(
        e.evaluate_hex(&["1234", "3"]).expect("eval"),
        vec!["0", "1234", "0001"]
    );
    assert_eq!(
        e.evaluate_hex(&["1234", "1"]).expect("eval"),
        vec!["0", "0000", "0000"]
    );
    let mut out = Vec::new();
    write_circuit(&c, &mut out).expect("write");
    assert_eq!(read_circuit(out.as_slice()).expect("reread"), c);
    let head = "ring 16\n1 6\n2 1r 4\n1 1r\n\n";
    // BX2A's last input must be the ring factor, the others bits.
    assert_err(&format!("{head}3 1 1 2 3 5 BX2A\n"), "BX2A");
    assert_err(&format!("{head}2 1 0 1 5 BX2A\n"), "BX2A");
    // At most three bits.
    assert_err(
        &format!("{head}4 1 1 2 3 4 5 B2A\n"),
        "1 to 3 inputs and 1 output",
    );
    assert_err(
        &format!("{head}1 1 0 5 BX2A\n"),
        "1 to 3 bit inputs, a ring input and 1 output",
    );
    assert_err("1 2\n1 1\n1 1\n\n1 1 0 1 EQZ\n", "no ring");
}
