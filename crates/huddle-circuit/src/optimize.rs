//! Automatic fan-in rewriting: any Boolean circuit to an equivalent one of
//! lower AND-depth using ANDs of up to l inputs.
//!
//! Every wire gets a few candidate forms, each an XOR of monomials (ANDs of
//! at most l "anchor" wires that are computed in their own right). A wire
//! built from its inputs either uses an input as an anchor or multiplies
//! out one of the input's own forms, so ANDs distribute over XORs: a chain
//! AND(AND(a, b), c) becomes one 3-input AND, and a carry combination
//! g_hi + p_hi·(g_lo + p_lo·g) becomes g_hi + p_hi·g_lo + p_hi·p_lo·g with
//! every term one AND. A form's depth is one more than its deepest anchor
//! under a multi-bit monomial; each wire keeps the shallowest few forms
//! (ties broken by MFI-3PC cost, 2^k - k - 1 elements per k-input AND),
//! and the outputs then pull in, from the back, the forms and anchors they
//! need. An anchor used by several wires is computed once; a form that is
//! multiplied out into several users is paid for in each, which is the
//! price of the lower depth and shows in the report.

use crate::builder::Builder;
use crate::layers::Layering;
use crate::model::{Circuit, Op, WireId};
use crate::stats::Stats;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Candidate forms kept per wire (besides using the wire itself).
/// Forms kept per wire by each of two orders (see `settle`): as many as the
/// circuit's size allows, up to 16.
fn keep_for(gates: usize) -> usize {
    (100_000 / gates.max(1)).clamp(4, 16)
}
/// Most monomials in one form.
const MAX_TERMS: usize = 64;

/// A sorted set of anchor wires (empty: the constant 1).
type Monomial = Rc<[WireId]>;

/// An XOR of distinct monomials, sorted.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Form {
    terms: Rc<Vec<Monomial>>,
    depth: u32,
    /// Depth of the deepest anchor in any monomial: what matters when the
    /// form is multiplied into a larger one.
    reach: u32,
    cost: u64,
}

/// What one AND of `k` inputs costs P1 and P2 each in MFI-3PC, in elements.
pub fn mfi_elements(k: usize) -> u64 {
    match k {
        0 | 1 => 0,
        2 => 1,
        k => (1u64 << k) - k as u64 - 1,
    }
}

/// Depth, ANDs by fan-in and estimated MFI-3PC communication of a circuit.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Multiplicative depth (as in [`Stats::and_depth`]).
    pub and_depth: u32,
    /// AND gates by fan-in, each MAND output counted as a 2-input AND.
    pub and_by_fanin: BTreeMap<usize, usize>,
    /// Individual ANDs (as in [`Stats::and_count`]).
    pub and_count: usize,
    /// Bits P1 and P2 each send per instance in MFI-3PC (2^k - k - 1 per
    /// k-input AND); P0 sends at most 2 per AND.
    pub mfi_bits_per_party: u64,
}

impl Summary {
    /// Summarizes `circuit`.
    pub fn of(circuit: &Circuit) -> Summary {
        let s = Stats::of(circuit);
        let mut by = s.and_by_fanin.clone();
        if s.mand > 0 {
            *by.entry(2).or_default() += s.and_count - s.and_by_fanin.values().sum::<usize>();
        }
        Summary {
            and_depth: s.and_depth,
            mfi_bits_per_party: by.iter().map(|(&k, &n)| mfi_elements(k) * n as u64).sum(),
            and_by_fanin: by,
            and_count: s.and_count,
        }
    }
}

fn xor_terms(a: &[Monomial], b: &[Monomial]) -> Vec<Monomial> {
    // Both sorted: a merge that drops pairs.
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len() + b.len());
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i].clone());
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j].clone());
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

fn union(a: &[WireId], b: &[WireId]) -> Monomial {
    let mut m: Vec<WireId> = a.iter().chain(b).copied().collect();
    m.sort_unstable();
    m.dedup();
    m.into()
}

/// The product of two forms, if every monomial fits `max` inputs and there
/// are at most MAX_TERMS of them.
fn multiply(a: &[Monomial], b: &[Monomial], max: usize) -> Option<Vec<Monomial>> {
    if a.len() * b.len() > 4 * MAX_TERMS {
        return None;
    }
    let mut terms: Vec<Monomial> = Vec::with_capacity(a.len() * b.len());
    for x in a {
        for y in b {
            let m = union(x, y);
            if m.len() > max {
                return None;
            }
            terms.push(m);
        }
    }
    terms.sort_unstable();
    // x XOR x = 0: keep monomials that occur an odd number of times.
    let mut out: Vec<Monomial> = Vec::with_capacity(terms.len());
    for m in terms {
        if out.last() == Some(&m) {
            out.pop();
        } else {
            out.push(m);
        }
    }
    (out.len() <= MAX_TERMS).then_some(out)
}

struct Rewriter {
    max: usize,
    keep: usize,
    /// Depth of each wire when computed by its best form.
    depth: Vec<u32>,
    forms: Vec<Vec<Form>>,
}

impl Rewriter {
    fn form(&self, terms: Vec<Monomial>) -> Form {
        let mut depth = 0;
        let mut reach = 0;
        let mut cost = 0;
        for m in &terms {
            let deepest = m.iter().map(|&w| self.depth[w as usize]).max().unwrap_or(0);
            reach = reach.max(deepest);
            if m.len() >= 2 {
                depth = depth.max(deepest + 1);
                cost += mfi_elements(m.len());
            } else {
                depth = depth.max(deepest);
            }
        }
        Form {
            terms: Rc::new(terms),
            depth,
            reach,
            cost,
        }
    }

    /// The forms a wire offers its users: itself as an anchor, then its own.
    fn offers(&self, w: WireId) -> Vec<Rc<Vec<Monomial>>> {
        let mut v = vec![Rc::new(vec![Rc::from([w].as_slice())])];
        v.extend(self.forms[w as usize].iter().map(|f| f.terms.clone()));
        v
    }

    /// The best `keep` forms by depth and the best `keep` by reach (the
    /// ones to multiply out), cheapest first in each order.
    fn select(&self, mut candidates: Vec<Form>) -> Vec<Form> {
        candidates.sort_by(|a, b| {
            (a.depth, a.cost, a.terms.len()).cmp(&(b.depth, b.cost, b.terms.len()))
        });
        candidates.dedup_by(|a, b| a.terms == b.terms);
        let mut kept: Vec<Form> = candidates.iter().take(self.keep).cloned().collect();
        candidates.sort_by(|a, b| {
            (a.reach, a.cost, a.terms.len()).cmp(&(b.reach, b.cost, b.terms.len()))
        });
        for f in candidates {
            if kept.len() >= 2 * self.keep {
                break;
            }
            if !kept.iter().any(|k| k.terms == f.terms) {
                kept.push(f);
            }
        }
        kept
    }

    /// `direct` is the gate itself on its inputs as anchors, always kept as
    /// the cheap choice for wires off the critical path.
    fn settle(&mut self, w: WireId, direct: Form, candidates: Vec<Form>) {
        let mut kept = self.select(candidates);
        if !kept.iter().any(|k| k.terms == direct.terms) {
            kept.push(direct);
        }
        self.depth[w as usize] = kept.iter().map(|f| f.depth).min().unwrap_or(0);
        self.forms[w as usize] = kept;
    }
}

/// Rewrites Boolean `circuit` with ANDs of at most `max_fan_in` inputs
/// (2..=16) to lower its AND-depth: to the least depth the search finds, or
/// to `target` if that is larger, which leaves slack for cheaper forms.
/// Returns the circuit unchanged (wide ANDs split) if no lower depth is found.
pub fn optimize(
    circuit: &Circuit,
    max_fan_in: usize,
    target: Option<u32>,
) -> Result<Circuit, String> {
    if !circuit.is_boolean() {
        return Err("only Boolean circuits can be rewritten".into());
    }
    if !(2..=crate::model::MAX_FAN_IN).contains(&max_fan_in) {
        return Err(format!(
            "--fanin must be 2 to {}, not {max_fan_in}",
            crate::model::MAX_FAN_IN
        ));
    }
    let circuit = &crate::rewrite::limit_fan_in(circuit, max_fan_in);
    let n = circuit.num_wires();
    let mut r = Rewriter {
        max: max_fan_in,
        keep: keep_for(circuit.gates().len()),
        depth: vec![0; n],
        forms: vec![Vec::new(); n],
    };
    let alias = collect_forms(&mut r, circuit)?;
    let chosen = choose_forms(&r, circuit, &alias, target);
    let out = rebuild(&r, circuit, &alias, &chosen, max_fan_in);
    // Never worse: keep the input when the search found nothing shallower.
    if Layering::of(&out).depth < Layering::of(circuit).depth {
        Ok(out)
    } else {
        Ok(circuit.clone())
    }
}

/// Forward over the gates: every wire's candidate forms (XORs of AND
/// monomials over anchor wires) with their depths and costs. Returns each
/// wire's alias (copies alias their source).
fn collect_forms(r: &mut Rewriter, circuit: &Circuit) -> Result<Vec<WireId>, String> {
    let n = circuit.num_wires();

    // Constants are forms without anchors.
    let mut alias: Vec<WireId> = (0..n as WireId).collect();
    let one: Vec<Monomial> = vec![Rc::from([].as_slice())];
    for g in circuit.gates() {
        let ins: Vec<WireId> = circuit
            .gate_inputs(g)
            .iter()
            .map(|&w| alias[w as usize])
            .collect();
        let outs = circuit.gate_outputs(g);
        match g.op {
            Op::Copy => alias[outs[0] as usize] = ins[0],
            Op::ConstBit(v) => {
                let terms = if v { one.clone() } else { Vec::new() };
                let f = r.form(terms);
                r.settle(outs[0], f, Vec::new());
            }
            Op::Xor | Op::Inv => {
                let (a, b) = match g.op {
                    Op::Xor => (r.offers(ins[0]), r.offers(ins[1])),
                    _ => (r.offers(ins[0]), vec![Rc::new(one.clone())]),
                };
                let direct = r.form(xor_terms(&a[0], &b[0]));
                let mut candidates = Vec::new();
                for x in &a {
                    for y in &b {
                        let t = xor_terms(x, y);
                        if t.len() <= MAX_TERMS {
                            candidates.push(r.form(t));
                        }
                    }
                }
                r.settle(outs[0], direct, candidates);
            }
            Op::And => {
                let direct = r.form(vec![union(&ins, &[])]);
                let candidates = and_candidates(r, &ins);
                r.settle(outs[0], direct, candidates);
            }
            Op::Mand => {
                let k = outs.len();
                for (i, &o) in outs.iter().enumerate() {
                    let pair = [ins[i], ins[k + i]];
                    let direct = r.form(vec![union(&pair, &[])]);
                    let candidates = and_candidates(r, &pair);
                    r.settle(o, direct, candidates);
                }
            }
            other => return Err(format!("{} gate in a Boolean circuit", other.name())),
        }
    }
    Ok(alias)
}

/// From the outputs back: each needed wire takes its cheapest form that
/// still meets the depth its users require of it, and passes the requirement
/// on to its anchors (one less under a multi-input AND). `None` = not needed.
fn choose_forms(
    r: &Rewriter,
    circuit: &Circuit,
    alias: &[WireId],
    target: Option<u32>,
) -> Vec<Option<usize>> {
    let n = circuit.num_wires();
    let goal = circuit
        .outputs()
        .iter()
        .flat_map(|v| &v.wires)
        .map(|&w| r.depth[alias[w as usize] as usize])
        .max()
        .unwrap_or(0)
        .max(target.unwrap_or(0));
    let mut required = vec![u32::MAX; n];
    for v in circuit.outputs() {
        for &w in &v.wires {
            required[alias[w as usize] as usize] = goal;
        }
    }
    let mut chosen: Vec<Option<usize>> = vec![None; n];
    for g in circuit.gates().iter().rev() {
        for &o in circuit.gate_outputs(g) {
            let need = required[o as usize];
            if need == u32::MAX || alias[o as usize] != o {
                continue;
            }
            let Some((i, f)) = r.forms[o as usize]
                .iter()
                .enumerate()
                .filter(|(_, f)| f.depth <= need)
                .min_by_key(|(_, f)| (f.cost, f.terms.len()))
            else {
                unreachable!("the shallowest form meets every requirement");
            };
            chosen[o as usize] = Some(i);
            for m in f.terms.iter() {
                let below = if m.len() >= 2 { need - 1 } else { need };
                for &w in m.iter() {
                    required[w as usize] = required[w as usize].min(below);
                }
            }
        }
    }
    chosen
}

/// The chosen forms written out with `Builder` (multi-input ANDs within
/// `max_fan_in`).
fn rebuild(
    r: &Rewriter,
    circuit: &Circuit,
    alias: &[WireId],
    chosen: &[Option<usize>],
    max_fan_in: usize,
) -> Circuit {
    let n = circuit.num_wires();
    let mut b = Builder::boolean(max_fan_in);
    let mut wire: Vec<Option<WireId>> = vec![None; n];
    for v in circuit.inputs() {
        let ws = b.input(&v.name, v.wires);
        for (j, w) in ws.into_iter().enumerate() {
            wire[v.first_wire as usize + j] = Some(w);
        }
    }
    for g in circuit.gates() {
        for &o in circuit.gate_outputs(g) {
            let Some(i) = chosen[o as usize] else {
                continue;
            };
            if wire[o as usize].is_some() {
                continue;
            }
            let f = &r.forms[o as usize][i];
            let mut acc: Option<WireId> = None;
            for m in f.terms.iter() {
                let t = match m.len() {
                    0 => b.constant(true),
                    _ => {
                        let ins: Vec<WireId> = m
                            .iter()
                            .map(|&w| wire[w as usize].expect("anchors come first"))
                            .collect();
                        b.and_all(&ins)
                    }
                };
                acc = Some(match acc {
                    None => t,
                    Some(a) => b.xor(a, t),
                });
            }
            wire[o as usize] = Some(acc.unwrap_or_else(|| b.constant(false)));
        }
    }
    for v in circuit.outputs() {
        let ws: Vec<WireId> = v
            .wires
            .iter()
            .map(|&w| wire[alias[w as usize] as usize].expect("outputs are computed"))
            .collect();
        b.output(&v.name, ws);
    }
    b.finish()
}

/// Products of the inputs' offers: every combination for two inputs, else
/// each input as an anchor or by its best form.
fn and_candidates(r: &Rewriter, ins: &[WireId]) -> Vec<Form> {
    let offers: Vec<Vec<Rc<Vec<Monomial>>>> = ins
        .iter()
        .map(|&w| {
            let mut o = r.offers(w);
            if ins.len() > 2 {
                o.truncate(2);
            }
            o
        })
        .collect();
    let mut partial: Vec<Form> = vec![r.form(vec![Rc::from([].as_slice())])];
    for offer in &offers {
        let mut next = Vec::new();
        for p in &partial {
            for o in offer {
                if let Some(t) = multiply(&p.terms, o, r.max) {
                    next.push(r.form(t));
                }
            }
        }
        // Bound the work for wide gates.
        partial = if next.len() > 4 * r.keep {
            r.select(next)
        } else {
            next
        };
    }
    partial
}
