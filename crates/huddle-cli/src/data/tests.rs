use super::*;
use huddle_circuit::builder::Builder;
use huddle_core::RingWidth;
use proptest::prelude::*;

fn style(format: DataFormat) -> Style {
    Style {
        format,
        frac: None,
        signed: false,
        header: false,
        delimiter: None,
        shape: Shape::Rows,
    }
}

/// A circuit whose outputs are its inputs: a Boolean value of `bits` bits
/// and, over `ring`, a ring value of `elements` elements.
fn identity(bits: u32, ring: RingWidth, elements: u32) -> Circuit {
    let mut b = Builder::arithmetic(ring, 2);
    let x = b.input("x", bits);
    let y = b.ring_input("y", elements);
    b.output("x", x);
    b.ring_output("y", y);
    b.finish()
}

/// Every input value of `circuit` from `text`.
fn read(text: &str, circuit: &Circuit, style: Style) -> Result<Vec<BitMatrix>, String> {
    let all: Vec<usize> = (0..circuit.inputs().len()).collect();
    read_values(text.as_bytes(), circuit, &all, style)
}

proptest! {
    /// Outputs written to a file read back as the same values, for a
    /// Boolean value of every width 1..=256 and ring values of 16, 32 and
    /// 64 bits, hex and decimal, signed and unsigned, fixed point.
    #[test]
    fn files_round_trip_through_write_and_read(
        bits in 1u32..=256,
        ring in prop::sample::select(vec![RingWidth::W16, RingWidth::W32, RingWidth::W64]),
        words in proptest::collection::vec(any::<u64>(), 5 * 3),
        dec in any::<bool>(),
        signed in any::<bool>(),
        frac in prop::option::of(1u8..12),
        header in any::<bool>(),
    ) {
        let c = identity(bits, ring, 2);
        let style = Style {
            signed,
            frac,
            header,
            ..style(if dec { DataFormat::Dec } else { DataFormat::Hex })
        };
        let x_words = bits.div_ceil(64) as usize;
        let mut x = BitMatrix::zeros(3, bits as usize);
        let mut y = BitMatrix::zeros(3, 2 * ring.bits() as usize);
        for r in 0..3 {
            put_bits(x.row_mut(r), 0, &words[5 * r..5 * r + x_words], bits as usize);
            put_bits(y.row_mut(r), 0, &words[5 * r + 4..5 * r + 5], ring.bits() as usize);
            put_bits(y.row_mut(r), ring.bits() as usize, &words[5 * r + 3..5 * r + 4], ring.bits() as usize);
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("out.csv");
        write_outputs(&path, &c, &[x.clone(), y.clone()], style).expect("writes");
        let back = read_inputs(&path, &c, &[0, 1], style).expect("reads what it wrote");
        prop_assert_eq!(back, vec![x, y]);
    }
}

#[test]
fn ring_outputs_are_one_field_per_element_in_wire_order_everywhere() {
    let c = identity(4, RingWidth::W32, 4);
    let x = BitMatrix::from_row_words(1, 4, vec![0xb]).expect("row");
    let y = BitMatrix::from_row_words(1, 128, vec![12 | 639 << 32, 90 | 5 << 32]).expect("row");
    let outputs = [x, y];
    let dec = Rendered::of(&c, &outputs, 0, style(DataFormat::Dec)).expect("renders");
    assert_eq!(dec.lines().collect::<Vec<_>>(), ["11", "12,639,90,5"]);
    assert_eq!(dec.json(), serde_json::json!([[11], [12, 639, 90, 5]]));
    let hex = Rendered::of(&c, &outputs, 0, style(DataFormat::Hex)).expect("renders");
    assert_eq!(
        hex.lines().collect::<Vec<_>>(),
        ["b", "0000000c,0000027f,0000005a,00000005"]
    );
    assert_eq!(
        hex.json(),
        serde_json::json!([["b"], ["0000000c", "0000027f", "0000005a", "00000005"]])
    );
    // Wider than 53 bits: decimal strings in JSON; fixed point too.
    let wide = identity(64, RingWidth::W64, 1);
    let outputs = [
        BitMatrix::from_row_words(1, 64, vec![u64::MAX]).expect("row"),
        BitMatrix::from_row_words(1, 64, vec![3 << 15]).expect("row"),
    ];
    let fixed = Style {
        frac: Some(16),
        ..style(DataFormat::Dec)
    };
    let r = Rendered::of(&wide, &outputs, 0, fixed).expect("renders");
    assert_eq!(
        r.json(),
        serde_json::json!([["18446744073709551615"], ["1.5"]])
    );
    // The lines of a file are the same fields.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("o.csv");
    let h = Style {
        header: true,
        ..style(DataFormat::Dec)
    };
    let x = BitMatrix::from_row_words(1, 4, vec![0xb]).expect("row");
    let y = BitMatrix::from_row_words(1, 128, vec![12 | 639 << 32, 90 | 5 << 32]).expect("row");
    write_outputs(&path, &c, &[x, y], h).expect("writes");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        "x,y[0],y[1],y[2],y[3]\n11,12,639,90,5\n"
    );
}

#[test]
fn reading_errors_name_line_column_and_cause() {
    let c = identity(8, RingWidth::W16, 2);
    let dec = style(DataFormat::Dec);
    for (text, s, want) in [
        ("x,y,z\n1;2;3\n", Style { header: true, ..dec }, "line 2 has 1 field, but 3 are expected (one per Boolean value, one per element of a ring value); it contains `;` — is the file `;`-separated? (--delimiter ';')"),
        ("1,2,3\n4 5 6\n", dec, "line 2 has 1 field, but 3 are expected"),
        ("1,2,3\n1,2,x\n", dec, "line 2 column 3: `x` is not a decimal integer"),
        ("256,1,1\n", dec, "line 1 column 1: 256 does not fit 8 bits (0 to 255)"),
        ("1,-1,1\n", dec, "line 1 column 2: -1 is negative, but the fields are unsigned: give --signed"),
        ("1,1,1\n1,1,123456\n", style(DataFormat::Hex), "line 2 column 3: `123456` has 6 hex digits, but a 16-bit field takes at most 4"),
        ("# nothing\n\n", dec, "no instances"),
        ("\"1,2\",3,4\n", dec, "line 1 column 1: `1,2` is not a decimal integer"),
    ] {
        let e = read(text, &c, s).expect_err(text);
        assert!(e.contains(want), "{text:?}: {e}");
    }
    // Quoted fields, a header, another separator, short hex, signed values.
    let ok = read(
        "a;b;c\n\"7\";\"-1\";-32768\n",
        &c,
        Style {
            signed: true,
            header: true,
            ..dec
        },
    )
    .expect("reads");
    assert_eq!(ok[0].row(0), [7]);
    assert_eq!(ok[1].row(0), [0xffff | 0x8000 << 16]);
    let short = read("f\t1\t2a\n", &c, style(DataFormat::Hex)).expect("short hex");
    assert_eq!(
        (short[0].row(0), short[1].row(0)),
        (&[0xf][..], &[1 | 0x2a << 16][..])
    );
    let given = Style {
        delimiter: Some(parse_delimiter(";").expect("sep")),
        ..dec
    };
    let e = read("1,2,3\n", &c, given).expect_err("given separator");
    assert!(
        e.contains("is the file `,`-separated? (--delimiter ',')"),
        "{e}"
    );
}

#[test]
fn an_input_value_is_its_fields_or_one_hex_number() {
    let c = identity(8, RingWidth::W16, 4);
    let dec = Style {
        signed: true,
        ..style(DataFormat::Dec)
    };
    let hex = style(DataFormat::Hex);
    let want = vec![12 | 639 << 16 | 90 << 32 | 0xfffb << 48];
    assert_eq!(parse_value("12,639,90,-5", &c, 1, dec).expect("dec"), want);
    assert_eq!(
        parse_value("c 27f 5a fffb", &c, 1, hex).expect("fields"),
        want
    );
    assert_eq!(
        parse_value("fffb005a027f000c", &c, 1, hex).expect("one number"),
        want
    );
    assert_eq!(parse_value("5", &c, 0, hex).expect("short"), vec![5]);
    let e = parse_value("1,2", &c, 1, dec)
        .expect_err("count")
        .to_string();
    assert!(
        e.starts_with("input value 1: it has 2 fields, but 4 are expected"),
        "{e}"
    );
    let e = parse_value("1,2,3,99999", &c, 1, dec)
        .expect_err("wide")
        .to_string();
    assert!(
        e.contains("element 3: 99999 does not fit the signed 16-bit range"),
        "{e}"
    );
}

#[test]
fn a_vector_file_is_one_instance_padded_to_the_tables_rows() {
    // Party 0's table: 4 rows of 8-bit values and a ring column, then 4
    // validity bits.
    let mut b = Builder::arithmetic(RingWidth::W16, 2);
    let ages = b.input("ages", 32);
    let weights = b.ring_input("weights", 4);
    let valid = b.input("valid", 4);
    b.output("ages", ages);
    b.ring_output("weights", weights);
    b.output("valid", valid);
    let c = b.finish();
    let vector = Style {
        shape: Shape::Vector,
        header: true,
        ..style(DataFormat::Dec)
    };
    let m = read("age,weight\n30,70\n\"82\",-0\n", &c, vector).expect("reads");
    assert_eq!(m.len(), 3);
    assert!(m.iter().all(|m| m.rows() == 1));
    assert_eq!(m[0].row(0), [30 | 82 << 8]);
    assert_eq!(m[1].row(0), [70]);
    assert_eq!(m[2].row(0), [0b11]);
    // No rows at all: all padding.
    let empty = read("age,weight\n", &c, vector).expect("reads");
    assert_eq!(empty[2].row(0), [0]);
    // More rows than the table has: both counts named.
    let e = read("h\n1,1\n2,2\n3,3\n4,4\n5,5\n6,6\n", &c, vector).expect_err("too many");
    assert!(
        e.contains("the file has 6 rows, but the circuit's table takes at most 4"),
        "{e}"
    );
    let e = read("h\n1\n", &c, vector).expect_err("columns");
    assert!(e.contains("line 2 has 1 field, but 2 are expected (one per column of the table: input value 0 (ages), input value 1 (weights))"), "{e}");
    // Values that are no table.
    let e = read_values("1\n".as_bytes(), &c, &[0], vector).expect_err("no validity");
    assert!(
        e.contains("are not a table input: it takes at least a column"),
        "{e}"
    );
    let e = read_values("1\n".as_bytes(), &c, &[0, 1], vector).expect_err("ring last");
    assert!(
        e.contains("the last, input value 1 (weights), is a ring value"),
        "{e}"
    );
    let odd = identity(5, RingWidth::W16, 1);
    let mut b = Builder::boolean(2);
    let x = b.input("x", 5);
    let v = b.input("v", 2);
    b.output("x", x);
    b.output("v", v);
    let e = read_values("1\n".as_bytes(), &b.finish(), &[0, 1], vector).expect_err("shape");
    assert!(
        e.contains("input value 0 (x) has 5 bits, not 2 rows"),
        "{e}"
    );
    drop(odd);
}

#[test]
fn wide_boolean_values_round_trip_through_files() {
    // 200 bits, hex in; hex and decimal (2^196 and 2^200 - 1) out.
    let mut b = Builder::boolean(2);
    let x = b.input("x", 200);
    b.output("y", x);
    let c = b.finish();
    let dir = tempfile::tempdir().expect("temp dir");
    let (input, output) = (dir.path().join("in.txt"), dir.path().join("out.txt"));
    let value = format!("{}{}", "1", "0".repeat(49));
    std::fs::write(&input, format!("{value}\n{}\n", "f".repeat(50))).expect("write");
    let decimal = "100433627766186892221372630771322662657637687111424552206336\n\
                   1606938044258990275541962092341162602522202993782792835301375\n";
    for (format, want) in [
        (DataFormat::Hex, format!("{value}\n{}\n", "f".repeat(50))),
        (DataFormat::Dec, decimal.to_string()),
    ] {
        let m = read_inputs(&input, &c, &[0], style(DataFormat::Hex)).expect("reads");
        write_outputs(&output, &c, &m, style(format)).expect("writes");
        assert_eq!(std::fs::read_to_string(&output).expect("read"), want);
        let again = read_inputs(&output, &c, &[0], style(format)).expect("reads");
        assert_eq!(again, m);
    }
}

/// 10^7 lines stream through the reader: the reading thread never holds
/// more than the parsed rows twice over (the chunks and the matrix they
/// become) and a line, while the text is several times larger.
#[test]
fn ten_million_lines_stream_without_holding_the_text() {
    let mut b = Builder::arithmetic(RingWidth::W8, 2);
    let x = b.ring_input("x", 8);
    b.ring_output("y", x);
    let c = b.finish();
    const LINES: usize = 10_000_000;
    const LINE: &[u8] = b"-128,127,-1,0,5,100,-77,64\n";
    /// The text, made as it is read: no copy of it anywhere.
    struct Lines(usize, usize);
    impl std::io::Read for Lines {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let mut n = 0;
            while n < buf.len() && self.0 < LINES {
                let take = (LINE.len() - self.1).min(buf.len() - n);
                buf[n..n + take].copy_from_slice(&LINE[self.1..self.1 + take]);
                (n, self.1) = (n + take, self.1 + take);
                if self.1 == LINE.len() {
                    (self.0, self.1) = (self.0 + 1, 0);
                }
            }
            Ok(n)
        }
    }
    let style = Style {
        signed: true,
        ..style(DataFormat::Dec)
    };
    crate::counting_alloc::reset_peak();
    let before = crate::counting_alloc::live();
    let m = read_values(BufReader::new(Lines(0, 0)), &c, &[0], style).expect("reads");
    let peak = crate::counting_alloc::peak() - before;
    let rows = (LINES * 8) as isize;
    let text = (LINES * LINE.len()) as isize;
    assert!(
        peak <= 2 * rows + (2 << 20) && peak < text,
        "peak {peak} bytes for {rows} bytes of rows and {text} of text"
    );
    assert_eq!(m[0].rows(), LINES);
    let want = u64::from_le_bytes([0x80, 0x7f, 0xff, 0, 5, 100, (256 - 77) as u8, 64]);
    assert!([0, LINES / 2, LINES - 1]
        .iter()
        .all(|&r| m[0].row(r) == [want]));
}
