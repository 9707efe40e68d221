//! Aggregates over table inputs (`huddle circuit gen table-*`): each of P
//! parties gives a table of at most N rows of b-bit values, and the circuit
//! computes counts, sums, the maximum, a threshold count, the mean (as a
//! numerator and a denominator) and a histogram over the valid rows of all
//! tables at once. Only N is public; how many rows each table really has
//! stays inside the validity bits.
//!
//! Table input p (docs/circuit-format.md, "Table inputs") is input value p,
//! `x{p}`, a Boolean value of N·b bits (row i in bits i·b..i·b+b−1, least
//! significant first), and input value P + p, `valid{p}`, N bits (bit i = 1
//! for a row that holds data), both owned by party p; so with P parties
//! the default round-robin owners are right too.
//!
//! The circuit is arithmetic over the narrowest ring that holds a sum of
//! all P·N values: Z_2^k with k ≥ b + ⌈log₂(P·N)⌉ (and k ≥ b + 1, so that a
//! difference of two values fits and one LTZ compares them). Each row
//! becomes a ring element by B2A of each value bit times its validity bit
//! (BC2A: a row that is not valid counts as 0 whatever its bits), weighted
//! by 2^j (−2^(b−1) for the sign bit of signed values); every aggregate
//! after that is additions (free), comparisons (one LTZ each) and B2A.

use crate::builder::{Builder, Comparison};
use crate::model::{Circuit, InputOwners, Op, WireId, MAX_FAN_IN};
use huddle_core::RingWidth;

/// The aggregate kinds; `huddle circuit gen` takes one or several of them
/// separated by commas (one circuit, each one's outputs in the order given).
pub const KINDS: [&str; 6] = [
    "table-count",
    "table-sum",
    "table-max",
    "table-mean",
    "table-count-above",
    "table-histogram",
];

/// The most rows of all tables together.
pub const MAX_ROWS: u64 = 1 << 22;

/// What the tables hold and what the parametrized aggregates take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSpec {
    /// N: the most rows of each table (public).
    pub rows: u32,
    /// P: the parties that give a table each.
    pub parties: u32,
    /// b: the width of each value.
    pub bits: u32,
    /// The values are two's complement numbers.
    pub signed: bool,
    /// `table-count-above`: count the values greater than this.
    pub threshold: Option<i64>,
    /// `table-histogram`: b1 < b2 < ...: buckets (−∞, b1), [b1, b2), ...,
    /// [b_last, ∞).
    pub bounds: Vec<i64>,
}

impl TableSpec {
    /// The least and the greatest value a row may hold.
    pub fn value_range(&self) -> (i64, i64) {
        match (self.signed, self.bits) {
            (true, b) => (-(1i64 << (b - 1)), (1i64 << (b - 1)) - 1),
            (false, b) => (0, ((1u64 << b) - 1) as i64),
        }
    }

    /// The bits a sum of every row takes: b + ⌈log₂(P·N)⌉.
    pub fn sum_bits(&self) -> u32 {
        let rows = u64::from(self.rows) * u64::from(self.parties);
        self.bits + rows.next_power_of_two().trailing_zeros()
    }

    /// The narrowest ring that holds a sum and a difference of values.
    pub fn ring(&self) -> Result<RingWidth, String> {
        let need = self.sum_bits().max(self.bits + 1);
        [8, 16, 32, 64]
            .into_iter()
            .find(|&k| k >= need)
            .and_then(RingWidth::from_bits)
            .ok_or_else(|| {
                format!(
                    "the sum of {} parties' {} rows of {}-bit values takes {need} bits, more than \
                     the widest ring (64): give fewer --bits or rows",
                    self.parties, self.rows, self.bits
                )
            })
    }
}

/// One aggregate of a kind list.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Aggregate {
    Count,
    Sum,
    Max,
    Mean,
    CountAbove(i64),
    Histogram(Vec<i64>),
}

/// Whether `kind` is a comma list of aggregate kinds.
pub fn is_kind(kind: &str) -> bool {
    kind.split(',').all(|k| KINDS.contains(&k.trim()))
}

/// The circuit of the aggregates `kind` (a comma list of [`KINDS`]) over
/// the tables `spec` describes.
pub fn generate(kind: &str, spec: &TableSpec) -> Result<Circuit, String> {
    check(spec)?;
    let (low, high) = spec.value_range();
    let in_range = |what: &str, v: i64| {
        if (low..=high).contains(&v) {
            Ok(v)
        } else {
            Err(format!(
                "{what} {v} is outside the values' range, {low} to {high} ({} {}-bit values)",
                if spec.signed { "signed" } else { "unsigned" },
                spec.bits
            ))
        }
    };
    let mut aggregates = Vec::new();
    for k in kind.split(',').map(str::trim) {
        let a = match k {
            "table-count" => Aggregate::Count,
            "table-sum" => Aggregate::Sum,
            "table-max" => Aggregate::Max,
            "table-mean" => Aggregate::Mean,
            "table-count-above" => {
                let t = spec
                    .threshold
                    .ok_or("table-count-above takes --threshold T (count the values above T)")?;
                Aggregate::CountAbove(in_range("--threshold", t)?)
            }
            "table-histogram" => {
                if spec.bounds.is_empty() || spec.bounds.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(
                        "table-histogram takes --bounds B1,B2,... in increasing order \
                                (buckets below B1, from B1 to below B2, ..., from the last up)"
                            .into(),
                    );
                }
                for &b in &spec.bounds {
                    in_range("--bounds", b)?;
                }
                Aggregate::Histogram(spec.bounds.clone())
            }
            other => return Err(format!("unknown table aggregate `{other}`")),
        };
        if aggregates.contains(&a) {
            return Err(format!("{k} is listed twice"));
        }
        aggregates.push(a);
    }
    if spec.threshold.is_some() && !kind.contains("table-count-above") {
        return Err("--threshold is for table-count-above only".into());
    }
    if !spec.bounds.is_empty() && !kind.contains("table-histogram") {
        return Err("--bounds is for table-histogram only".into());
    }
    Ok(build(spec, spec.ring()?, &aggregates))
}

/// Refuses tables the circuit cannot be made for.
fn check(spec: &TableSpec) -> Result<(), String> {
    if !(1..=62).contains(&spec.bits) {
        return Err(format!(
            "table aggregates take --bits 1 to 62 (the values' width), not {}",
            spec.bits
        ));
    }
    let rows = u64::from(spec.rows) * u64::from(spec.parties);
    if spec.rows == 0 || spec.parties == 0 || rows > MAX_ROWS {
        return Err(format!(
            "table aggregates take --size N rows per party and --parties P, each at least 1 \
             and N·P at most {MAX_ROWS}, not {} and {}",
            spec.rows, spec.parties
        ));
    }
    spec.ring().map(|_| ())
}

/// Every row of every table: its validity as a ring element (0 or 1), its
/// validity bit, and its value as a ring element (0 where not valid).
struct Row {
    valid: WireId,
    valid_bit: WireId,
    value: WireId,
}

fn build(spec: &TableSpec, ring: RingWidth, aggregates: &[Aggregate]) -> Circuit {
    let (n, p, bits) = (spec.rows as usize, spec.parties, spec.bits as usize);
    let mut b = Builder::arithmetic(ring, 2);
    let columns: Vec<Vec<WireId>> = (0..p)
        .map(|q| b.input(&format!("x{q}"), spec.rows * spec.bits))
        .collect();
    let valid: Vec<Vec<WireId>> = (0..p)
        .map(|q| b.input(&format!("valid{q}"), spec.rows))
        .collect();
    let constant = |b: &mut Builder, v: i64| b.ring_op(Op::ConstRing(v as u64 & ring.mask()), &[]);
    let mut rows = Vec::with_capacity(n * p as usize);
    for (column, valid) in columns.iter().zip(&valid) {
        for (i, &valid_bit) in valid.iter().enumerate() {
            let terms: Vec<WireId> = (0..bits)
                .map(|j| {
                    let bit = b.bits_to_ring(&[column[i * bits + j], valid_bit]);
                    let weight = if spec.signed && j == bits - 1 {
                        -(1i64 << j)
                    } else {
                        1i64 << j
                    };
                    match weight {
                        1 => bit,
                        w => b.ring_op(Op::MulConst(w as u64 & ring.mask()), &[bit]),
                    }
                })
                .collect();
            rows.push(Row {
                valid: b.bits_to_ring(&[valid_bit]),
                valid_bit,
                value: add_all(&mut b, &terms),
            });
        }
    }
    let count = {
        let terms: Vec<WireId> = rows.iter().map(|r| r.valid).collect();
        add_all(&mut b, &terms)
    };
    let sum = {
        let terms: Vec<WireId> = rows.iter().map(|r| r.value).collect();
        add_all(&mut b, &terms)
    };
    // The number of valid rows whose value passes `test`.
    let count_if = |b: &mut Builder, test: &dyn Fn(&mut Builder, WireId) -> WireId| {
        let terms: Vec<WireId> = rows
            .iter()
            .map(|r| {
                let pass = test(b, r.value);
                b.bits_to_ring(&[pass, r.valid_bit])
            })
            .collect();
        add_all(b, &terms)
    };
    for a in aggregates {
        match a {
            Aggregate::Count => b.ring_output("count", vec![count]),
            Aggregate::Sum => b.ring_output("sum", vec![sum]),
            Aggregate::Mean => {
                b.ring_output("mean_numerator", vec![sum]);
                b.ring_output("mean_denominator", vec![count]);
            }
            Aggregate::Max => {
                // Rows that are not valid hold the least value.
                let (least, _) = spec.value_range();
                let candidates: Vec<WireId> = if least == 0 {
                    rows.iter().map(|r| r.value).collect()
                } else {
                    let floor = constant(&mut b, least);
                    rows.iter()
                        .map(|r| {
                            let lift = b.ring_op(
                                Op::MulConst(least.wrapping_neg() as u64 & ring.mask()),
                                &[r.valid],
                            );
                            b.ring_op(Op::Add, &[r.value, floor, lift])
                        })
                        .collect()
                };
                let (max, _) = b.extreme(&candidates, true, Comparison::Bounded);
                b.ring_output("max", vec![max]);
            }
            Aggregate::CountAbove(t) => {
                let t_wire = constant(&mut b, *t);
                let above = count_if(&mut b, &|b: &mut Builder, v| b.lt(t_wire, v));
                b.ring_output(&format!("count_above_{t}"), vec![above]);
            }
            Aggregate::Histogram(bounds) => {
                // at_least[j]: valid rows of at least bounds[j].
                let at_least: Vec<WireId> = bounds
                    .iter()
                    .map(|&bound| {
                        let bound = constant(&mut b, bound);
                        count_if(&mut b, &|b: &mut Builder, v| {
                            let below = b.lt(v, bound);
                            b.not(below)
                        })
                    })
                    .collect();
                let mut buckets = vec![b.ring_op(Op::Sub, &[count, at_least[0]])];
                for pair in at_least.windows(2) {
                    buckets.push(b.ring_op(Op::Sub, &[pair[0], pair[1]]));
                }
                buckets.push(at_least[at_least.len() - 1]);
                b.ring_output("histogram", buckets);
            }
        }
    }
    let mut circuit = b.finish();
    let owners = (0..2 * p as usize).map(|i| i % p as usize).collect();
    circuit
        .set_owners(InputOwners::Explicit(owners))
        .expect("owners name the circuit's inputs");
    circuit
}

/// The sum of `terms` (0 for none): ADD gates of at most [`MAX_FAN_IN`]
/// inputs, in a tree.
pub(crate) fn add_all(b: &mut Builder, terms: &[WireId]) -> WireId {
    let mut level = terms.to_vec();
    if level.is_empty() {
        return b.ring_op(Op::ConstRing(0), &[]);
    }
    while level.len() > 1 {
        level = level
            .chunks(MAX_FAN_IN)
            .map(|group| match group {
                [one] => *one,
                _ => b.ring_op(Op::Add, group),
            })
            .collect();
    }
    level[0]
}
