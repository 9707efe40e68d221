//! Every integer operator of typed programs against Rust's integer
//! arithmetic, through the plaintext evaluator: every width of interest
//! (1, 7, 8, 31, 32, 63, 64) and a random one, unsigned, signed and ring
//! integers, every edge pair (0, 1, −1, least, greatest) and random
//! values; wrap-around at the type's width.

mod program_util;

use huddle_circuit::program::{BinOp, CmpOp, Type, UnOp};
use program_util::{binary, int_types, pairs, unary, wrap, WIDTHS};
use proptest::prelude::*;

fn width() -> impl Strategy<Value = u32> {
    prop_oneof![proptest::sample::select(WIDTHS.to_vec()), 1..=64u32]
}

fn values() -> impl Strategy<Value = Vec<(u64, u64)>> {
    proptest::collection::vec((any::<u64>(), any::<u64>()), 40)
}

/// What Rust computes for `op` on x and y of `ty`.
fn expected(ty: Type, op: BinOp, x: i128, y: i128) -> i128 {
    let v = match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        BinOp::Min => x.min(y),
        BinOp::Max => x.max(y),
    };
    wrap(ty, v)
}

fn compared(op: CmpOp, x: i128, y: i128) -> i128 {
    i128::from(match op {
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
    })
}

const BINARY: [BinOp; 8] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Min,
    BinOp::Max,
];

const COMPARE: [CmpOp; 6] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn arithmetic_and_bitwise_operators_wrap_like_rust(w in width(), random in values()) {
        for ty in int_types(w) {
            let (xs, ys) = pairs(ty, &random);
            for op in BINARY {
                if ty.domain() == huddle_circuit::Domain::Ring
                    && matches!(op, BinOp::And | BinOp::Or | BinOp::Xor)
                {
                    continue; // refused: tests/program_errors.rs
                }
                let got = binary(ty, &xs, &ys, |p, x, y| p.binary(op, x, y));
                for i in 0..xs.len() {
                    prop_assert_eq!(
                        got[i], expected(ty, op, xs[i], ys[i]),
                        "{:?} on {} {} {}", op, ty, xs[i], ys[i]
                    );
                }
            }
        }
    }

    #[test]
    fn comparisons_are_signed_for_signed_types(w in width(), random in values()) {
        for ty in int_types(w) {
            let (xs, ys) = pairs(ty, &random);
            for op in COMPARE {
                let got = binary(ty, &xs, &ys, |p, x, y| p.compare(op, x, y));
                for i in 0..xs.len() {
                    prop_assert_eq!(got[i], compared(op, xs[i], ys[i]),
                        "{:?} on {} {} {}", op, ty, xs[i], ys[i]);
                }
            }
        }
    }

    #[test]
    fn unary_operators_and_shifts_wrap_like_rust(w in width(), random in values(), s in 0..70u32) {
        for ty in int_types(w) {
            let (xs, _) = pairs(ty, &random);
            let neg = unary(ty, &xs, |p, x| p.unary(UnOp::Neg, x));
            let abs = unary(ty, &xs, |p, x| p.unary(UnOp::Abs, x));
            let not = unary(ty, &xs, |p, x| p.unary(UnOp::Not, x));
            let shl = unary(ty, &xs, |p, x| p.shift_left(x, s));
            let shr = unary(ty, &xs, |p, x| p.shift_right(x, s));
            for (i, &x) in xs.iter().enumerate() {
                prop_assert_eq!(neg[i], wrap(ty, -x), "-{} ({})", x, ty);
                prop_assert_eq!(abs[i], wrap(ty, x.abs()), "abs {} ({})", x, ty);
                prop_assert_eq!(not[i], wrap(ty, !x), "!{} ({})", x, ty);
                let left = if s >= ty.bits() { 0 } else { wrap(ty, x << s) };
                prop_assert_eq!(shl[i], left, "{} << {} ({})", x, s, ty);
                // i128 shifts are arithmetic for negative x (signed types).
                let right = if s >= ty.bits() && !ty.is_signed() { 0 } else { x >> s.min(127) };
                prop_assert_eq!(shr[i], right, "{} >> {} ({})", x, s, ty);
            }
        }
    }

    #[test]
    fn literals_mix_with_secrets(w in width(), random in values(), k in any::<u64>()) {
        for ty in int_types(w) {
            let (xs, _) = pairs(ty, &random);
            let lit = wrap(ty, i128::from(k));
            let n = program_util::num(lit);
            let sum = unary(ty, &xs, |p, x| p.binary(BinOp::Add, x, n));
            let product = unary(ty, &xs, |p, x| p.binary(BinOp::Mul, n, x));
            let below = unary(ty, &xs, |p, x| p.compare(CmpOp::Lt, x, n));
            let picked = unary(ty, &xs, |p, x| {
                let c = p.compare(CmpOp::Gt, x, n)?;
                p.select(&c, x, n)
            });
            for (i, &x) in xs.iter().enumerate() {
                prop_assert_eq!(sum[i], wrap(ty, x + lit));
                prop_assert_eq!(product[i], wrap(ty, x.wrapping_mul(lit)));
                prop_assert_eq!(below[i], i128::from(x < lit));
                prop_assert_eq!(picked[i], x.max(lit));
            }
        }
    }
}
