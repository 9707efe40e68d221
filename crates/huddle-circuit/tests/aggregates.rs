//! The table aggregates against plain Rust arithmetic: random tables and
//! the edges (every row valid, none, the largest and least values, one
//! row), unsigned and signed.

use huddle_circuit::aggregates::{generate, TableSpec, KINDS};
use huddle_circuit::{BitMatrix, PlainEvaluator};
use proptest::prelude::*;

/// Each party's rows: (value, valid).
type Tables = Vec<Vec<(i64, bool)>>;

/// The circuit's inputs for `tables`: each party's column, then each
/// party's validity bits.
fn inputs(spec: &TableSpec, tables: &Tables) -> Vec<BitMatrix> {
    let (n, b) = (spec.rows as usize, spec.bits as usize);
    let mut columns = Vec::new();
    let mut valid = Vec::new();
    for table in tables {
        let mut x = BitMatrix::zeros(1, n * b);
        let mut v = BitMatrix::zeros(1, n);
        for (i, &(value, ok)) in table.iter().enumerate() {
            for j in 0..b {
                let bit = ((value as u64) >> j) & 1;
                x.row_mut(0)[(i * b + j) / 64] |= bit << ((i * b + j) % 64);
            }
            v.row_mut(0)[i / 64] |= u64::from(ok) << (i % 64);
        }
        columns.push(x);
        valid.push(v);
    }
    columns.extend(valid);
    columns
}

/// What the circuit must output, in the order of `KINDS` (all of them):
/// count, sum, max, mean (sum, count), count above, histogram.
fn plain(spec: &TableSpec, tables: &Tables) -> Vec<i64> {
    let rows: Vec<i64> = tables
        .iter()
        .flatten()
        .filter(|r| r.1)
        .map(|r| r.0)
        .collect();
    let (least, _) = spec.value_range();
    let count = rows.len() as i64;
    let sum: i64 = rows.iter().sum();
    let max = rows.iter().copied().max().unwrap_or(least);
    let t = spec.threshold.expect("a threshold");
    let above = rows.iter().filter(|&&v| v > t).count() as i64;
    let mut out = vec![count, sum, max, sum, count, above];
    let bounds = &spec.bounds;
    let bucket = |v: i64| bounds.iter().filter(|&&b| v >= b).count();
    let mut histogram = vec![0i64; bounds.len() + 1];
    for &v in &rows {
        histogram[bucket(v)] += 1;
    }
    out.extend(histogram);
    out
}

/// The circuit's outputs for `tables`, ring elements read as `spec` says.
fn evaluated(spec: &TableSpec, tables: &Tables) -> Vec<i64> {
    let c = generate(&KINDS.join(","), spec).expect("generates");
    let ring = c.ring().expect("a ring circuit");
    let out = PlainEvaluator::new(&c)
        .evaluate(&inputs(spec, tables))
        .expect("evaluates");
    let k = ring.bits() as usize;
    out.iter()
        .flat_map(|m| {
            let row = m.row(0).to_vec();
            (0..m.cols() / k).map(move |e| {
                let v = (row[e * k / 64] >> (e * k % 64)) & ring.mask();
                if spec.signed {
                    ring.signed(v)
                } else {
                    v as i64
                }
            })
        })
        .collect()
}

fn spec(rows: u32, parties: u32, bits: u32, signed: bool) -> TableSpec {
    let mut s = TableSpec {
        rows,
        parties,
        bits,
        signed,
        threshold: None,
        bounds: Vec::new(),
    };
    let (low, high) = s.value_range();
    s.threshold = Some(low + (high - low) / 3);
    s.bounds = vec![low + (high - low) / 4, low + (high - low) / 2, high];
    s.bounds.dedup();
    s
}

proptest! {
    #[test]
    fn random_tables_agree_with_plain_arithmetic(
        rows in 1u32..6,
        parties in 1u32..4,
        bits in 1u32..20,
        signed in any::<bool>(),
        seed in proptest::collection::vec((any::<i64>(), any::<bool>()), 18),
    ) {
        let s = spec(rows, parties, bits, signed);
        prop_assume!(s.bounds.windows(2).all(|w| w[0] < w[1]));
        let (low, high) = s.value_range();
        let span = (high - low) as u64 + 1;
        let tables: Tables = (0..parties as usize)
            .map(|p| {
                (0..rows as usize)
                    .map(|i| {
                        let (r, ok) = seed[p * 6 + i];
                        // Rows that are not valid hold zeros, as the reader writes them.
                        (if ok { low + (r as u64 % span) as i64 } else { 0 }, ok)
                    })
                    .collect()
            })
            .collect();
        prop_assert_eq!(evaluated(&s, &tables), plain(&s, &tables));
    }
}

#[test]
fn the_edges_agree_with_plain_arithmetic() {
    for signed in [false, true] {
        for (rows, parties, bits) in [(1, 1, 1), (1, 1, 8), (7, 3, 8), (64, 2, 30), (1, 2, 62)] {
            let s = spec(rows, parties, bits, signed);
            if s.ring().is_err() || s.bounds.windows(2).any(|w| w[0] >= w[1]) {
                continue;
            }
            let (low, high) = s.value_range();
            let table = |v: i64, ok: bool| -> Tables {
                vec![vec![(if ok { v } else { 0 }, ok); rows as usize]; parties as usize]
            };
            for (what, tables) in [
                ("every row at the maximum", table(high, true)),
                ("every row at the minimum", table(low, true)),
                ("no row valid", table(0, false)),
                ("every row 0", table(0, true)),
            ] {
                assert_eq!(
                    evaluated(&s, &tables),
                    plain(&s, &tables),
                    "{what}: {rows} rows, {parties} parties, {bits} bits, signed {signed}"
                );
            }
        }
    }
}

#[test]
fn sums_take_the_ring_they_need_or_are_refused() {
    let s = spec(1000, 3, 8, false);
    assert_eq!(s.sum_bits(), 8 + 12);
    assert_eq!(s.ring().expect("fits").bits(), 32);
    assert_eq!(spec(1, 1, 7, false).ring().expect("fits").bits(), 8);
    assert_eq!(spec(2, 1, 7, false).ring().expect("fits").bits(), 8);
    assert_eq!(spec(3, 1, 7, false).ring().expect("fits").bits(), 16);
    let e = spec(1000, 3, 60, false).ring().expect_err("too wide");
    assert!(
        e.contains("takes 72 bits, more than the widest ring (64)"),
        "{e}"
    );
    let e = generate("table-sum", &spec(1000, 3, 60, false)).expect_err("too wide");
    assert!(e.contains("72 bits"), "{e}");
}

#[test]
fn parameters_are_checked_and_named() {
    let plain = TableSpec {
        threshold: None,
        bounds: Vec::new(),
        ..spec(10, 2, 8, false)
    };
    for (kind, s, want) in [
        ("table-count-above", plain.clone(), "takes --threshold T"),
        ("table-histogram", plain.clone(), "takes --bounds"),
        (
            "table-histogram",
            TableSpec {
                bounds: vec![5, 5],
                ..plain.clone()
            },
            "increasing order",
        ),
        (
            "table-count-above",
            TableSpec {
                threshold: Some(-1),
                ..plain.clone()
            },
            "--threshold -1 is outside the values' range, 0 to 255",
        ),
        (
            "table-sum",
            TableSpec {
                threshold: Some(3),
                ..plain.clone()
            },
            "--threshold is for table-count-above only",
        ),
        ("table-sum,table-sum", plain.clone(), "listed twice"),
        (
            "table-sum",
            TableSpec {
                bits: 0,
                ..plain.clone()
            },
            "--bits 1 to 62",
        ),
    ] {
        let e = generate(kind, &s).expect_err(kind);
        assert!(e.contains(want), "{kind}: {e}");
    }
    // Table p is party p's: columns then validity bits.
    let c = generate("table-sum", &plain).expect("generates");
    let names: Vec<&str> = c.inputs().iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["x0", "x1", "valid0", "valid1"]);
    assert_eq!(
        (0..4).map(|i| c.owner(i, 3)).collect::<Vec<_>>(),
        [0, 1, 0, 1]
    );
    assert_eq!((c.input_bits(0), c.input_bits(2)), (80, 10));
}
