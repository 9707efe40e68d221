//! A circuit compiled for secret-sharing evaluation: its [`Schedule`] (rounds
//! by multiplicative depth, the protocol's fan-in, reused slots of share
//! words) as a list of local linear steps, multiplication layers (each one
//! round) and share conversions.
//!
//! **Mixed circuits.** Boolean wires live in one arena (bitsliced: a word is
//! 64 instances), ring wires in another (a word is one instance). A
//! conversion gate (A2B, LTZ, B2A) becomes a [`Conversion`] step: the
//! protocol *splits* each source value v into two terms with v = t0 + t1 in
//! the source domain (t0 ⊕ t1 for bits), each known to some parties, and
//! shares the terms in the target domain ([`super::Sharing::split`]); then a
//! small pure program of the target domain, the same for every protocol,
//! recombines them (`ConversionKind::circuit`, compiled once per kind,
//! [`Program::recombining`]): a Boolean adder for A2B (only its top bit for
//! LTZ), t0 + t1 − 2·t0·t1 for B2A. The sub-program runs once for all
//! conversions of a round, the conversions side by side as more instances.
//!
//! `DOT` and `DOTTR` gates a protocol cannot evaluate natively are rewritten
//! first (`huddle_circuit::rewrite::lower_products`): multiplications and
//! sums, and an exact truncation through A2B and B2A.
//!
//! Internal, except to the engine's own tests (feature `testing`:
//! [`Program`], [`Target`], [`ConversionKind`]).
// Without `testing` the module's `pub` items are the engine's own.
#![cfg_attr(not(feature = "testing"), allow(unreachable_pub))]

use crate::error::RunError;
use huddle_circuit::builder::Builder;
use huddle_circuit::rewrite::{lower_products, NativeProducts};
use huddle_circuit::{Circuit, Domain, Op, Schedule, ScheduleOptions, SlotGate, WireId};
use huddle_core::RingWidth;
use std::borrow::Cow;

/// A local step: every party applies it to each of its share components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linear {
    Add {
        a: u32,
        b: u32,
        out: u32,
    },
    /// Sum of `len` slots listed in the pool from `first`.
    Sum {
        first: u32,
        len: u32,
        out: u32,
    },
    Sub {
        a: u32,
        b: u32,
        out: u32,
    },
    Neg {
        a: u32,
        out: u32,
    },
    Copy {
        a: u32,
        out: u32,
    },
    /// out = a + c for a public c (only some components change; protocol-specific).
    AddConst {
        a: u32,
        c: u64,
        out: u32,
    },
    MulConst {
        a: u32,
        c: u64,
        out: u32,
    },
    /// out = the public constant c.
    Const {
        c: u64,
        out: u32,
    },
}

/// One multiplication: the product of the `len` slots listed in the pool
/// from `first`; or, with `dot`, the dot product a_1·b_1 + .. + a_l·b_l of
/// the slots a_1..a_l b_1..b_l listed there (len = 2l), which protocols
/// whose products are a local bilinear form plus one resharing pay for as
/// for one multiplication. With `trunc` = f > 0 (always a dot product) the
/// result is truncated by f bits probabilistically, fused into the
/// multiplication ([`Target::fused_truncation`]): ⌊v / 2^f⌋ or one more,
/// except with probability at most about |v| / 2^k (the masked sum wraps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MulGate {
    pub first: u32,
    pub len: u32,
    pub out: u32,
    pub dot: bool,
    pub trunc: u8,
}

impl MulGate {
    /// The operand count of one product: 2 for a dot product (its pairs).
    pub fn fan_in(&self) -> usize {
        if self.dot {
            2
        } else {
            self.len as usize
        }
    }
}

/// All multiplications of one round in one domain, ordered by fan-in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    pub domain: Domain,
    pub gates: Vec<MulGate>,
    /// In a conversion's recombining program: the operand slots that are
    /// a linear function of one conversion term alone (which term), sorted
    /// by slot ([`Program::trace_terms`]). A protocol whose term t is held
    /// by party t alone opens such an operand from that party only
    /// (Ohata–Nuida's arithmetic blinding).
    pub of_term: Vec<(u32, u8)>,
}

impl Layer {
    /// The gates of each fan-in ([`MulGate::fan_in`]: dot products count
    /// as 2-input): (fan-in, gates), ascending.
    pub fn by_fan_in(&self) -> Vec<(usize, &[MulGate])> {
        let mut groups: Vec<(usize, &[MulGate])> = Vec::new();
        let mut start = 0;
        for i in 1..=self.gates.len() {
            if i == self.gates.len() || self.gates[i].fan_in() != self.gates[start].fan_in() {
                groups.push((self.gates[start].fan_in(), &self.gates[start..i]));
                start = i;
            }
        }
        groups
    }
}

/// Widest AND of a conversion's adder. MFI-3PC's 8-input ANDs cost 247
/// elements each: an exact fixed-point truncation takes 7 / 8 / 9 / 11
/// rounds at fan-in 8 / 4 / 3 / 2, and 4 keeps all but one round of the
/// saving at several times fan-in 8's throughput (`huddle bench fixed-point
/// --protocol mfi3 --only convert`; docs/perf/2026-11-25-figures-from-doc-comments.md).
pub const CONVERSION_FAN_IN: usize = 4;

/// What a conversion computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConversionKind {
    /// A ring element to its k bits (A2B).
    Decompose,
    /// A ring element to its top bit (LTZ).
    Sign,
    /// A ring element to the bit "it is 0" (EQZ).
    Zero,
    /// `bits` bits (1 to 3) to their product as a ring element (B2A, BC2A),
    /// times a ring element if `factor` (BX2A, BCX2A).
    Inject {
        /// How many bits (1 to 3).
        bits: u8,
        /// Whether a ring element multiplies the product.
        factor: bool,
    },
}

impl ConversionKind {
    /// The domain converted from.
    pub fn source(self) -> Domain {
        match self {
            ConversionKind::Decompose | ConversionKind::Sign | ConversionKind::Zero => Domain::Ring,
            ConversionKind::Inject { .. } => Domain::Bit,
        }
    }

    /// The domain converted to.
    pub fn target(self) -> Domain {
        match self {
            ConversionKind::Decompose | ConversionKind::Sign | ConversionKind::Zero => Domain::Bit,
            ConversionKind::Inject { .. } => Domain::Ring,
        }
    }

    /// Source values per gate (the protocol splits each of them).
    pub fn sources_per_gate(self) -> usize {
        match self {
            ConversionKind::Inject { bits, .. } => usize::from(bits),
            _ => 1,
        }
    }

    /// Whether the terms' sum is the value with term 1 negated, t0 − t1':
    /// the protocol's holders of t1 share −t1 (`SplitJob::term`),
    /// so that equality of the terms, bit by bit, is the value being 0.
    pub fn negates_term1(self) -> bool {
        self == ConversionKind::Zero
    }

    /// The conversion a gate of `op` with `inputs` inputs is (None: not a
    /// conversion).
    pub fn of(op: Op, inputs: usize) -> Option<ConversionKind> {
        match op {
            Op::BitDecompose => Some(ConversionKind::Decompose),
            Op::Ltz => Some(ConversionKind::Sign),
            Op::Eqz => Some(ConversionKind::Zero),
            Op::BitInject => Some(ConversionKind::Inject {
                bits: inputs as u8,
                factor: false,
            }),
            Op::BitMul => Some(ConversionKind::Inject {
                bits: (inputs - 1) as u8,
                factor: true,
            }),
            _ => None,
        }
    }

    /// [`circuit_at`](Self::circuit_at) of the narrowest fan-in up to
    /// `fan_in` that takes the fewest rounds: wide products cost more
    /// (exponentially, for MFI-3PC and the dealer of ca2pc).
    fn circuit(self, ring: RingWidth, fan_in: usize) -> Circuit {
        let mut best: Option<(u32, Circuit)> = None;
        for f in 2..=fan_in.clamp(2, huddle_circuit::model::MAX_FAN_IN) {
            let c = self.circuit_at(ring, f);
            let rounds = huddle_circuit::Layering::of(&c).depth;
            if best.as_ref().is_none_or(|(r, _)| rounds < *r) {
                best = Some((rounds, c));
            }
        }
        best.expect("fan-in 2 at least").1
    }

    /// The circuit that recombines the two terms in the target domain, for
    /// a protocol whose products take up to `fan_in` operands in one round:
    /// inputs t0 and t1 (k bits each; or one ring element per source bit)
    /// and, for a factor, the factor; one output value.
    ///
    /// - Ring → bits: the sum's bits by the Faraji–Kerschbaum prefix adder
    ///   (`gen::adder_sklansky`; LTZ keeps only the top bit, so only the
    ///   carries it needs survive: Ohata–Nuida's Overflow, 2 rounds for 32
    ///   bits at fan-in 7).
    /// - Zero: t0 = t1' bit by bit, an AND tree (Ohata–Nuida's Equality: 2
    ///   rounds for 32 bits at fan-in 6).
    /// - Bits → ring: b = t0 ⊕ t1 = t0 + t1 − 2·t0·t1 for each bit, their
    ///   product (with the factor) expanded into one round of products of
    ///   up to 2m + 1 terms when fan_in allows (Ohata–Nuida's B2A family),
    ///   else each bit first and then their product.
    fn circuit_at(self, ring: RingWidth, fan_in: usize) -> Circuit {
        let k = ring.bits();
        match self {
            ConversionKind::Decompose | ConversionKind::Sign => {
                let adder = huddle_circuit::gen::adder_sklansky(k, fan_in);
                let mut b = Builder::boolean(fan_in);
                let (t0, t1) = (b.input("t0", k), b.input("t1", k));
                let sum = b.call(&adder, &[&t0, &t1]).remove(0);
                let bits = if self == ConversionKind::Sign {
                    vec![sum[k as usize - 1]]
                } else {
                    sum[..k as usize].to_vec()
                };
                b.output("v", bits);
                b.finish()
            }
            ConversionKind::Zero => {
                let mut b = Builder::boolean(fan_in);
                let (t0, t1) = (b.input("t0", k), b.input("t1", k));
                let same: Vec<WireId> = t0
                    .iter()
                    .zip(&t1)
                    .map(|(&x, &y)| {
                        let differ = b.xor(x, y);
                        b.not(differ)
                    })
                    .collect();
                let zero = b.and_all(&same);
                b.output("v", vec![zero]);
                b.finish()
            }
            ConversionKind::Inject { bits, factor } => {
                let m = u32::from(bits);
                let mut b = Builder::arithmetic(ring, fan_in);
                let (t0, t1) = (b.ring_input("t0", m), b.ring_input("t1", m));
                let x = factor.then(|| b.ring_input("x", 1)[0]);
                let minus_two = ring.mask() - 1;
                let v = if 2 * bits as usize + usize::from(factor) <= fan_in {
                    // Σ over the choices t0, t1, −2·t0·t1 for each bit.
                    let mut monomials = Vec::new();
                    for choice in 0..3usize.pow(m) {
                        let (mut ops, mut twice) = (Vec::new(), 0);
                        for j in 0..m as usize {
                            match choice / 3usize.pow(j as u32) % 3 {
                                0 => ops.push(t0[j]),
                                1 => ops.push(t1[j]),
                                _ => {
                                    ops.extend([t0[j], t1[j]]);
                                    twice += 1;
                                }
                            }
                        }
                        ops.extend(x);
                        let mut term = match ops[..] {
                            [one] => one,
                            _ => b.ring_op(Op::Mul, &ops),
                        };
                        for _ in 0..twice {
                            term = b.ring_op(Op::MulConst(minus_two), &[term]);
                        }
                        monomials.push(term);
                    }
                    // ADD takes at most 16 inputs (27 monomials for 3 bits).
                    while monomials.len() > 1 {
                        monomials = monomials
                            .chunks(huddle_circuit::model::MAX_FAN_IN)
                            .map(|c| match c {
                                [one] => *one,
                                _ => b.ring_op(Op::Add, c),
                            })
                            .collect();
                    }
                    monomials[0]
                } else {
                    let mut factors: Vec<WireId> = (0..m as usize)
                        .map(|j| {
                            let product = b.ring_op(Op::Mul, &[t0[j], t1[j]]);
                            let twice = b.ring_op(Op::MulConst(minus_two), &[product]);
                            b.ring_op(Op::Add, &[t0[j], t1[j], twice])
                        })
                        .collect();
                    factors.extend(x);
                    match factors[..] {
                        [one] => one,
                        _ => b.ring_op(Op::Mul, &factors),
                    }
                };
                b.ring_output("v", vec![v]);
                b.finish()
            }
        }
    }
}

/// The conversions of one round, all of one kind: gate g reads source slot
/// `sources[g]` and writes the target slots `outputs(g)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    pub kind: ConversionKind,
    /// Source slots, [`ConversionKind::sources_per_gate`] per gate.
    pub sources: Vec<u32>,
    /// BX2A's factor: one ring slot per gate (empty for other kinds).
    pub factors: Vec<u32>,
    /// Output slots: `per_gate` of them per gate, gate after gate.
    pub outputs: Vec<u32>,
    pub per_gate: usize,
}

impl Conversion {
    /// Gates in the step (each converts `kind.sources_per_gate()` sources).
    pub fn gates(&self) -> usize {
        self.sources.len() / self.kind.sources_per_gate()
    }

    pub fn outputs(&self, g: usize) -> &[u32] {
        &self.outputs[g * self.per_gate..][..self.per_gate]
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A run of consecutive local steps in one domain, applied together
    /// (window by window of the slots, see `Shares::apply_linear`).
    Linear(Domain, Vec<Linear>),
    Layer(usize),
    Convert(usize),
}

/// What a protocol brings to compilation.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// The protocol's name, for errors.
    pub name: &'a str,
    /// Widest multiplication done in one round; wider ones become trees.
    pub max_fan_in: usize,
    /// Widest product of the conversions' recombining circuits (at most
    /// `max_fan_in`; see `ConversionKind::circuit`).
    pub conversion_fan_in: usize,
    /// Whether it implements `Sharing::split` (mixed circuits).
    pub converts: bool,
    /// Whether its `multiply` takes dot products (`MulGate::dot`); else
    /// they become multiplications and sums.
    pub native_dot: bool,
    /// Whether `DOTTR` runs as one multiplication with probabilistic
    /// truncation (`MulGate::trunc`; the protocol has it and the run
    /// chose `Truncation::Probabilistic`); else it is lowered to an exact
    /// truncation through A2B and B2A, which needs conversions.
    pub fused_truncation: bool,
}

/// The compiled circuit.
#[derive(Clone, Debug)]
pub struct Program {
    /// Slots of each domain's arena, indexed by `Domain as usize`.
    pub slots: [usize; 2],
    /// Operand lists of sums and multiplications (the schedule's slot lists).
    pub pool: Vec<u32>,
    /// Per input value, its domain and the slot of each of its wires.
    pub inputs: Vec<(Domain, Vec<u32>)>,
    /// Per output value, its domain and the slot of each of its wires.
    pub outputs: Vec<(Domain, Vec<u32>)>,
    /// What runs, in order: local steps, multiplication layers, conversions.
    pub steps: Vec<Step>,
    /// The multiplication layers, each one round.
    pub layers: Vec<Layer>,
    /// The conversions, each its gates of one kind.
    pub conversions: Vec<Conversion>,
    /// The recombining program of each conversion kind the circuit uses.
    pub recombine: Vec<(ConversionKind, Program)>,
    /// The ring of the ring domain (None: a Boolean circuit).
    pub ring: Option<RingWidth>,
    /// Ring elements per share word: 64/k once [`pack_ring`](Self::pack_ring)
    /// packed a ring-only program, else 1 (one element per word, mod 2^64).
    pub ring_lanes: usize,
}

impl Program {
    /// The operands (slots) of multiplication `g`.
    pub fn operands(&self, g: &MulGate) -> &[u32] {
        &self.pool[g.first as usize..][..g.len as usize]
    }

    /// Multiplications in the whole program (conversions not included).
    #[cfg(any(test, feature = "testing"))]
    pub fn multiplications(&self) -> usize {
        self.layers.iter().map(|l| l.gates.len()).sum()
    }

    /// Bytes a share element of `domain` takes on the wire.
    pub fn word_bytes(&self, domain: Domain) -> usize {
        match (domain, self.ring) {
            (Domain::Ring, Some(r)) => r.bits() as usize / 8,
            _ => 8,
        }
    }

    /// Instances per share word of `domain`.
    pub fn lanes(&self, domain: Domain) -> usize {
        match domain {
            Domain::Bit => 64,
            Domain::Ring => self.ring_lanes,
        }
    }

    /// Words per slot of `domain` for `instances` instances.
    pub fn words(&self, domain: Domain, instances: usize) -> usize {
        instances.div_ceil(self.lanes(domain))
    }

    /// How words of `domain` travel in a slice of `instances` instances.
    pub(crate) fn encoding(&self, domain: Domain, instances: usize) -> super::wire::Encoding {
        let lanes = if domain == Domain::Ring {
            self.ring_lanes
        } else {
            1
        };
        super::wire::Encoding::new(self.word_bytes(domain), lanes, instances)
    }

    /// Packs the ring words of a ring-only program of a ring narrower than
    /// 64 bits: 64/k elements per word (`arith::Packed`), its
    /// constants in every lane. Mixed programs stay as they are: their
    /// conversions place elements one by one.
    pub fn pack_ring(&mut self) {
        let Some(ring) = self.ring else { return };
        if ring.bits() == 64 || !self.conversions.is_empty() || self.uses(Domain::Bit) {
            return;
        }
        let ones = u64::MAX / ring.mask();
        let splat = |c: &mut u64| *c = (*c & ring.mask()).wrapping_mul(ones);
        for step in &mut self.steps {
            if let Step::Linear(Domain::Ring, run) = step {
                for l in run {
                    match l {
                        Linear::AddConst { c, .. }
                        | Linear::MulConst { c, .. }
                        | Linear::Const { c, .. } => splat(c),
                        _ => {}
                    }
                }
            }
        }
        self.ring_lanes = 64 / ring.bits() as usize;
    }

    /// The domain of the circuit's values when it is not mixed; a mixed
    /// circuit's ring (both arenas are used).
    pub fn main_domain(&self) -> Domain {
        if self.ring.is_some() {
            Domain::Ring
        } else {
            Domain::Bit
        }
    }

    /// Whether the program has any wire (slot) of `domain`, or values of it.
    pub fn uses(&self, domain: Domain) -> bool {
        self.slots[domain as usize] > 0
            || self.inputs.iter().any(|(d, _)| *d == domain)
            || self.outputs.iter().any(|(d, _)| *d == domain)
    }

    /// Whether input values of `domain` are shared and outputs of it
    /// revealed as a step of their own: always for the main domain (so a
    /// single-domain run calls each once, even without values), for the
    /// other where the circuit has values of it.
    pub fn shares_inputs(&self, domain: Domain) -> bool {
        domain == self.main_domain() || self.inputs.iter().any(|(d, _)| *d == domain)
    }

    /// Whether outputs of `domain` are revealed: where it has some, and the
    /// main domain of a circuit without any (so a single-domain run reveals
    /// as before, and a mixed one opens no empty domain).
    pub fn reveals(&self, domain: Domain) -> bool {
        self.outputs.iter().any(|(d, _)| *d == domain)
            || (domain == self.main_domain() && self.outputs.is_empty())
    }

    /// The slots of every output wire of `domain`, output value after value.
    pub fn output_slots(&self, domain: Domain) -> Vec<u32> {
        self.outputs
            .iter()
            .filter(|(d, _)| *d == domain)
            .flat_map(|(_, slots)| slots.iter().copied())
            .collect()
    }

    /// Marks, in every layer, the operands that depend on one conversion
    /// term alone (inputs 0 and 1 are the terms t0 and t1): through sums,
    /// differences, negations, copies and public multiples of values of
    /// the same term; a constant or a product makes a value depend on
    /// neither.
    pub fn trace_terms(&mut self) {
        let mut of: [Vec<Option<u8>>; 2] = [vec![None; self.slots[0]], vec![None; self.slots[1]]];
        for (t, (domain, slots)) in self.inputs.iter().enumerate().take(2) {
            for &s in slots {
                of[*domain as usize][s as usize] = Some(t as u8);
            }
        }
        let same = |x: Option<u8>, y: Option<u8>| if x == y { x } else { None };
        for step in &self.steps {
            match step {
                Step::Linear(domain, run) => {
                    let o = &mut of[*domain as usize];
                    for l in run {
                        let (out, v) = match *l {
                            Linear::Add { a, b, out } | Linear::Sub { a, b, out } => {
                                (out, same(o[a as usize], o[b as usize]))
                            }
                            Linear::Sum { first, len, out } => {
                                let ops = &self.pool[first as usize..][..len as usize];
                                let first = o[ops[0] as usize];
                                let v = ops.iter().fold(first, |acc, &x| same(acc, o[x as usize]));
                                (out, v)
                            }
                            Linear::Neg { a, out }
                            | Linear::Copy { a, out }
                            | Linear::MulConst { a, out, .. } => (out, o[a as usize]),
                            Linear::AddConst { out, .. } | Linear::Const { out, .. } => (out, None),
                        };
                        o[out as usize] = v;
                    }
                }
                Step::Layer(i) => {
                    let layer = &mut self.layers[*i];
                    let o = &mut of[layer.domain as usize];
                    let mut marked: Vec<(u32, u8)> = layer
                        .gates
                        .iter()
                        .flat_map(|g| self.pool[g.first as usize..][..g.len as usize].iter())
                        .filter_map(|&s| o[s as usize].map(|t| (s, t)))
                        .collect();
                    marked.sort_unstable();
                    marked.dedup();
                    layer.of_term = marked;
                    for g in &layer.gates {
                        o[g.out as usize] = None;
                    }
                }
                Step::Convert(_) => {}
            }
        }
    }

    /// The recombining program of `kind`.
    pub fn recombining(&self, kind: ConversionKind) -> &Program {
        &self
            .recombine
            .iter()
            .find(|(k, _)| *k == kind)
            .expect("compiled with the conversions it uses")
            .1
    }

    /// The operand pairs of a 2-input product or a dot product.
    #[inline(always)]
    pub fn pairs<'a>(&'a self, g: &MulGate) -> impl Iterator<Item = (u32, u32)> + 'a {
        let ops = self.operands(g);
        let l = if g.dot { ops.len() / 2 } else { 1 };
        let (a, b) = ops.split_at(l);
        a.iter().copied().zip(b.iter().copied())
    }

    /// Refuses `circuit` for a protocol without share conversions when it
    /// needs them (mixed domains, or DOTTR not fused into the products).
    pub fn check_conversions(
        circuit: &Circuit,
        protocol: &str,
        converts: bool,
        fused_truncation: bool,
    ) -> Result<(), RunError> {
        let mixed = circuit.gates().iter().any(|g| {
            ConversionKind::of(g.op, 1).is_some()
                || (matches!(g.op, Op::DotTrunc(_)) && !fused_truncation)
        }) || (circuit.ring().is_some()
            && (0..circuit.num_wires()).any(|w| circuit.domain(w as WireId) == Domain::Bit));
        if mixed && !converts {
            return Err(RunError::Input(format!(
                "{protocol} cannot run this circuit: it mixes Boolean and arithmetic wires or \
                 truncates fixed-point values (A2B, B2A, LTZ or DOTTR gates), which need share \
                 conversions, and {protocol} has none yet"
            )));
        }
        Ok(())
    }

    /// Compiles `circuit` for a protocol (see [`Target`]). An owned circuit
    /// is dropped once scheduled, before the program is built from the
    /// schedule: the two are about the same size, so a large circuit is not
    /// held three times over.
    pub fn compile(circuit: Cow<'_, Circuit>, target: Target) -> Result<Program, RunError> {
        let protocol = target.name;
        Self::check_conversions(&circuit, protocol, target.converts, target.fused_truncation)?;
        let ring = circuit.ring();
        let (schedule, input_domains, output_domains) = {
            let lowered = lower_products(
                &circuit,
                NativeProducts {
                    dot: target.native_dot,
                    dot_trunc: target.fused_truncation,
                },
            );
            (
                Schedule::compile(&lowered, ScheduleOptions::rounds(target.max_fan_in)),
                lowered
                    .inputs()
                    .iter()
                    .map(|v| v.domain)
                    .collect::<Vec<_>>(),
                lowered
                    .outputs()
                    .iter()
                    .map(|v| v.domain)
                    .collect::<Vec<_>>(),
            )
        };
        drop(circuit);
        let mask = ring.map_or(u64::MAX, |r| r.mask());
        let mut program = Program {
            slots: [schedule.slots(Domain::Bit), schedule.slots(Domain::Ring)],
            // The schedule's argument list, moved in once the steps are built.
            pool: Vec::new(),
            inputs: input_domains
                .into_iter()
                .zip(schedule.input_slots().iter().cloned())
                .collect(),
            outputs: output_domains
                .into_iter()
                .zip(schedule.output_slots().iter().cloned())
                .collect(),
            steps: Vec::with_capacity(schedule.groups().len()),
            layers: Vec::new(),
            conversions: Vec::new(),
            recombine: Vec::new(),
            ring,
            ring_lanes: 1,
        };
        for group in schedule.groups() {
            let gates = &schedule.steps()[group.clone()];
            if !schedule.is_round(group) {
                let g = &gates[0];
                let step = linear(&schedule, g, mask);
                match program.steps.last_mut() {
                    Some(Step::Linear(d, run)) if *d == g.domain => run.push(step),
                    _ => program.steps.push(Step::Linear(g.domain, vec![step])),
                }
                continue;
            }
            // One round: its Boolean and ring multiplications and its
            // conversions of each kind, one step each (they read only slots
            // written before the round, so any order is right).
            for domain in [Domain::Bit, Domain::Ring] {
                let mut layer = Layer {
                    of_term: Vec::new(),
                    domain,
                    gates: gates
                        .iter()
                        .filter(|g| {
                            g.domain == domain && ConversionKind::of(g.op, g.num_inputs()).is_none()
                        })
                        .map(|g| MulGate {
                            first: g.first,
                            len: g.num_inputs() as u32,
                            out: schedule.outputs_of(g)[0],
                            dot: matches!(g.op, Op::Dot | Op::DotTrunc(_)),
                            trunc: match g.op {
                                Op::DotTrunc(f) => f,
                                _ => 0,
                            },
                        })
                        .collect(),
                };
                if layer.gates.is_empty() {
                    continue;
                }
                layer.gates.sort_by_key(|g| (g.fan_in(), g.dot, g.len));
                program.steps.push(Step::Layer(program.layers.len()));
                program.layers.push(layer);
            }
            let mut kinds: Vec<ConversionKind> = Vec::new();
            for g in gates {
                if let Some(kind) = ConversionKind::of(g.op, g.num_inputs()) {
                    if !kinds.contains(&kind) {
                        kinds.push(kind);
                    }
                }
            }
            for kind in kinds {
                let of_kind: Vec<&SlotGate> = gates
                    .iter()
                    .filter(|g| ConversionKind::of(g.op, g.num_inputs()) == Some(kind))
                    .collect();
                let ring = ring.expect("conversions need a ring");
                if !program.recombine.iter().any(|(k, _)| *k == kind) {
                    let fan_in = target.conversion_fan_in.min(target.max_fan_in);
                    let sub = kind.circuit(ring, fan_in);
                    let mut sub = Program::compile(
                        Cow::Owned(sub),
                        Target {
                            converts: false,
                            native_dot: false,
                            fused_truncation: false,
                            ..target
                        },
                    )?;
                    sub.trace_terms();
                    program.recombine.push((kind, sub));
                }
                let per_source = kind.sources_per_gate();
                let factor = matches!(kind, ConversionKind::Inject { factor: true, .. });
                program.steps.push(Step::Convert(program.conversions.len()));
                program.conversions.push(Conversion {
                    kind,
                    sources: of_kind
                        .iter()
                        .flat_map(|g| schedule.inputs_of(g)[..per_source].iter().copied())
                        .collect(),
                    factors: of_kind
                        .iter()
                        .filter(|_| factor)
                        .map(|g| schedule.inputs_of(g)[per_source])
                        .collect(),
                    outputs: of_kind
                        .iter()
                        .flat_map(|g| schedule.outputs_of(g).iter().copied())
                        .collect(),
                    per_gate: of_kind[0].num_outputs(),
                });
            }
        }
        program.pool = schedule.into_args();
        Ok(program)
    }
}

/// The local step of a free gate.
fn linear(schedule: &Schedule, g: &SlotGate, mask: u64) -> Linear {
    let ins = schedule.inputs_of(g);
    let out = schedule.outputs_of(g)[0];
    match g.op {
        Op::Xor => Linear::Add {
            a: ins[0],
            b: ins[1],
            out,
        },
        Op::Add if ins.len() == 2 => Linear::Add {
            a: ins[0],
            b: ins[1],
            out,
        },
        Op::Add => Linear::Sum {
            first: g.first,
            len: ins.len() as u32,
            out,
        },
        Op::Sub => Linear::Sub {
            a: ins[0],
            b: ins[1],
            out,
        },
        Op::Neg => Linear::Neg { a: ins[0], out },
        Op::Inv => Linear::AddConst {
            a: ins[0],
            c: u64::MAX,
            out,
        },
        Op::Copy => Linear::Copy { a: ins[0], out },
        Op::ConstBit(b) => Linear::Const {
            c: if b { u64::MAX } else { 0 },
            out,
        },
        Op::AddConst(c) => Linear::AddConst {
            a: ins[0],
            c: c & mask,
            out,
        },
        Op::MulConst(c) => Linear::MulConst {
            a: ins[0],
            c: c & mask,
            out,
        },
        Op::ConstRing(c) => Linear::Const { c: c & mask, out },
        other => unreachable!("{} is not linear", other.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_terms_marks_operands_of_one_term_alone() {
        let ring = RingWidth::W32;
        let mut b = Builder::arithmetic(ring, 4);
        let (t0, t1) = (b.ring_input("t0", 2), b.ring_input("t1", 1));
        let twice = b.ring_op(Op::Add, &[t0[0], t0[1]]); // t0 alone
        let scaled = b.ring_op(Op::MulConst(3), &[t1[0]]); // t1 alone
        let mixed = b.ring_op(Op::Add, &[t0[0], t1[0]]); // both
        let shifted = b.ring_op(Op::AddConst(1), &[t0[1]]); // a constant: neither
        let p = b.ring_op(Op::Mul, &[twice, scaled]);
        let q = b.ring_op(Op::Mul, &[mixed, shifted]);
        let r = b.ring_op(Op::Mul, &[p, t0[0]]); // a product: neither
        b.ring_output("v", vec![q, r]);
        let circuit = b.finish();
        let target = Target {
            name: "test",
            max_fan_in: 2,
            conversion_fan_in: 2,
            converts: false,
            native_dot: false,
            fused_truncation: false,
        };
        let mut program = Program::compile(Cow::Borrowed(&circuit), target).expect("compiles");
        program.trace_terms();
        let slot_of = |v: usize, i: usize| program.inputs[v].1[i];
        let first = &program.layers[0];
        let terms: Vec<u8> = first.of_term.iter().map(|&(_, t)| t).collect();
        // p's operands: twice (t0), scaled (t1); q's: neither.
        assert_eq!(terms, [0, 1], "{:?}", first.of_term);
        // Layer 2: p (a product) and t0[0] itself.
        let second = &program.layers[1];
        assert_eq!(second.of_term, [(slot_of(0, 0), 0)]);
    }
}
