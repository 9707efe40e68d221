//! Every generator at many widths and fan-ins against ordinary integer
//! arithmetic on random and edge-case inputs, and the AND-depths of
//! Faraji–Kerschbaum's Tables 2 and 4 matched or beaten.

use huddle_circuit::gen;
use huddle_circuit::{BitMatrix, Circuit, Layering, Op, PlainEvaluator, Stats};
use huddle_core::Prg;

/// Random n-bit values (as u128, n <= 128) with the edge cases first.
fn values(prg: &mut Prg, n: u32, count: usize) -> Vec<u128> {
    let mask = if n == 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    };
    let mut v = vec![0, mask, 1 & mask, mask >> 1];
    while v.len() < count {
        let x = (u128::from(prg.next_u64()) << 64) | u128::from(prg.next_u64());
        // Some values share their high half with another, so comparisons see long equal prefixes.
        v.push(x & mask);
    }
    v
}

fn matrix(vals: &[u128], n: u32) -> BitMatrix {
    let mut m = BitMatrix::zeros(vals.len(), n as usize);
    for (r, &x) in vals.iter().enumerate() {
        let row = m.row_mut(r);
        row[0] = x as u64;
        if row.len() > 1 {
            row[1] = (x >> 64) as u64;
        }
    }
    m
}

/// Output words of instance r (up to 3 words).
fn out_words(m: &BitMatrix, r: usize) -> Vec<u64> {
    m.row(r).to_vec()
}

/// Evaluates a two-input circuit on (a, b) pairs.
fn run2(c: &Circuit, a: &[u128], b: &[u128], n: u32) -> BitMatrix {
    let outs = PlainEvaluator::new(c)
        .evaluate(&[matrix(a, n), matrix(b, n)])
        .expect("evaluate");
    outs.into_iter().next().expect("one output")
}

fn pairs(prg: &mut Prg, n: u32) -> (Vec<u128>, Vec<u128>) {
    let a = values(prg, n, 300);
    let mut b = values(prg, n, 300);
    // Every fifth pair differs only in a low bit (long equal prefixes).
    for i in (0..b.len()).step_by(5) {
        b[i] = a[i] ^ (b[i] & 1);
    }
    (a, b)
}

#[test]
fn adders_add() {
    let mut prg = Prg::from_seed([1; 16]);
    for n in [1u32, 2, 7, 8, 16, 33, 64, 100, 128] {
        let (a, b) = pairs(&mut prg, n);
        let mut circuits = vec![("ripple".to_string(), gen::adder_ripple(n))];
        for l in [2, 3, 4, 8] {
            circuits.push((format!("sklansky l={l}"), gen::adder_sklansky(n, l)));
        }
        for (name, c) in circuits {
            assert_eq!(c.outputs()[0].wires.len(), n as usize + 1);
            let out = run2(&c, &a, &b, n);
            for r in 0..a.len() {
                let (sum, carry) = a[r].overflowing_add(b[r]);
                let (lo, hi) = if n == 128 {
                    (sum, u128::from(carry))
                } else {
                    (sum & ((1u128 << (n + 1)) - 1), 0)
                };
                let mut want = vec![lo as u64];
                if n + 1 > 64 {
                    want.push((lo >> 64) as u64);
                }
                if n + 1 > 128 {
                    want.push(hi as u64);
                }
                assert_eq!(
                    out_words(&out, r),
                    want,
                    "{name} n={n}: {:x} + {:x}",
                    a[r],
                    b[r]
                );
            }
        }
    }
}

#[test]
fn comparators_compare() {
    let mut prg = Prg::from_seed([2; 16]);
    for n in [1u32, 3, 8, 16, 31, 64, 128] {
        let (a, b) = pairs(&mut prg, n);
        for l in [2, 3, 4, 8] {
            for (kind, c) in [
                ("gt", gen::cmp_gt(n, l)),
                ("lt", gen::cmp_lt(n, l)),
                ("eq", gen::cmp_eq(n, l)),
            ] {
                let out = run2(&c, &a, &b, n);
                for r in 0..a.len() {
                    let want = match kind {
                        "gt" => a[r] > b[r],
                        "lt" => a[r] < b[r],
                        _ => a[r] == b[r],
                    };
                    assert_eq!(out.row(r)[0], u64::from(want), "{kind} n={n} l={l}");
                }
            }
        }
    }
}

#[test]
fn and_trees_and() {
    let mut prg = Prg::from_seed([3; 16]);
    for n in [1u32, 2, 5, 16, 64, 100] {
        for l in [2, 4, 8, 16] {
            let c = gen::and_tree(n, l);
            let mut vals = values(&mut prg, n, 100);
            // Mostly all-ones with one bit cleared, so the answer is not always 0.
            let ones = if n == 128 {
                u128::MAX
            } else {
                (1u128 << n) - 1
            };
            for (i, v) in vals.iter_mut().enumerate().skip(4) {
                *v = if i % 2 == 0 {
                    ones
                } else {
                    ones & !(1u128 << (i as u32 % n))
                };
            }
            let out = PlainEvaluator::new(&c)
                .evaluate(&[matrix(&vals, n)])
                .expect("eval");
            for (r, &v) in vals.iter().enumerate() {
                assert_eq!(out[0].row(r)[0], u64::from(v == ones), "n={n} l={l}");
            }
            let depth = Layering::of(&c).depth;
            let mut want = 0;
            while (l as u64).pow(want) < u64::from(n) {
                want += 1;
            }
            assert_eq!(depth, want, "and-tree n={n} l={l}");
            assert!(c
                .gates()
                .iter()
                .all(|g| g.op != Op::And || g.num_inputs() <= l));
        }
    }
}

#[test]
fn multipliers_multiply() {
    let mut prg = Prg::from_seed([4; 16]);
    for n in [1u32, 2, 5, 8, 16, 32, 64] {
        let (a, b) = pairs(&mut prg, n);
        let mut circuits = vec![("schoolbook".to_string(), gen::mult_schoolbook(n))];
        for l in [2, 4, 8] {
            circuits.push((format!("wallace l={l}"), gen::mult_wallace(n, l)));
            circuits.push((format!("counter l={l}"), gen::mult_counter(n, l)));
        }
        for (name, c) in circuits {
            assert_eq!(c.outputs()[0].wires.len(), 2 * n as usize);
            let out = run2(&c, &a, &b, n);
            for r in 0..a.len() {
                let p = a[r] * b[r]; // n <= 64: fits
                let mut want = vec![p as u64];
                if 2 * n > 64 {
                    want.push((p >> 64) as u64);
                }
                assert_eq!(
                    out_words(&out, r),
                    want,
                    "{name} n={n}: {:x} * {:x}",
                    a[r],
                    b[r]
                );
            }
        }
    }
}

#[test]
fn fan_in_budgets_are_kept() {
    for l in [2usize, 3, 4, 8] {
        for c in [
            gen::adder_sklansky(64, l),
            gen::cmp_gt(64, l),
            gen::mult_counter(16, l),
        ] {
            let widest = c
                .gates()
                .iter()
                .filter(|g| g.op == Op::And)
                .map(|g| g.num_inputs())
                .max()
                .unwrap_or(0);
            assert!(widest <= l, "fan-in {widest} > {l}");
        }
    }
}

/// Depth of the paper's Tables 2 (adders), 3 (multipliers) and 4
/// (comparators) at 16/32/64/128 bits for fan-in 2, <= 4, <= 8; ours must
/// match or beat every cell.
#[test]
fn depths_match_or_beat_faraji_kerschbaum() {
    let widths = [16u32, 32, 64, 128];
    let adders: [(usize, [u32; 4]); 3] = [(2, [5, 6, 7, 8]), (4, [3, 4, 5, 8]), (8, [3, 3, 3, 4])];
    let comparators: [(usize, [u32; 4]); 3] =
        [(2, [5, 6, 7, 8]), (4, [3, 4, 4, 5]), (8, [3, 3, 3, 4])];
    for (l, paper) in adders {
        for (n, want) in widths.iter().zip(paper) {
            let d = Layering::of(&gen::adder_sklansky(*n, l)).depth;
            assert!(
                d <= want,
                "adder {n} bits, fan-in {l}: depth {d} > paper's {want}"
            );
        }
    }
    for (l, paper) in comparators {
        for (n, want) in widths.iter().zip(paper) {
            let d = Layering::of(&gen::cmp_gt(*n, l)).depth;
            assert!(
                d <= want,
                "comparator {n} bits, fan-in {l}: depth {d} > paper's {want}"
            );
        }
    }
    // Table 3, Wallace tree with 2-input ANDs: 13, 15, 18, 21.
    for (n, want) in widths.iter().zip([13u32, 15, 18, 21]) {
        let d = Layering::of(&gen::mult_wallace(*n, 2)).depth;
        assert!(d <= want, "Wallace {n} bits: depth {d} > paper's {want}");
    }
    // Table 3, multi-fan-in (counter-based) multipliers.
    for (l, paper) in [(4usize, [7u32, 9, 9, 11]), (8, [6, 6, 8, 11])] {
        for (n, want) in widths.iter().zip(paper) {
            let d = Layering::of(&gen::mult_counter(*n, l)).depth;
            assert!(
                d <= want,
                "counter multiplier {n} bits, fan-in {l}: depth {d} > paper's {want}"
            );
        }
    }
    // The ripple adder is the paper's depth n.
    assert_eq!(Layering::of(&gen::adder_ripple(64)).depth, 64);
    let _ = Stats::of(&gen::adder_ripple(8));
}
