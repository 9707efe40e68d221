//! Constant-round multiparty garbling (BMR) with an honest majority:
//! Ben-Efraim and Omri's BGW3_opt (t = ⌈n/2⌉ − 1, three offline rounds) and
//! BGW2_opt (t = ⌈n/3⌉ − 1, two offline rounds), semi-honest, any n ≥ 3.
//!
//! Offline (the functionality F_GC of their Figure 1, Section 3.3):
//! 1. every party Shamir-shares (degree t) a random permutation bit for
//!    every AND output; the owner of an input wire shares its λ alone; each
//!    key-contributing party j ∈ {0..t} shares its offset R^j;
//! 2. BGW3_opt only: GRR degree reduction of the products λ_u·λ_v;
//! 3. for every AND gate, (α, β) and j ≤ t each party converts its share of
//!    ((λ_u ⊕ α)(λ_v ⊕ β) ⊕ λ_w)·R^j to an additive share (times its
//!    reconstruction constant), adds its own F² values and, for j itself,
//!    k^j_{w,0}, masks with a PRG-derived additive sharing of zero and sends
//!    the result to the evaluator (party 0), who sums the garbled rows.
//!    Output wires' λ shares go to the evaluator as well.
//!
//! The optimizations of Sections 3.1–3.2 that are built: PRF values and keys
//! are never Shamir-shared (only λ and R are), only t + 1 parties contribute
//! keys (superseeds of (t + 1)·16 bytes), and zero shares come from pairwise
//! PRG seeds agreed in the setup phase. Not built yet: switching each of
//! them off (the Ben-Efraim–Lindell–Omri baseline), the hypercube last round,
//! and the malicious BGW2_opt^mal.
//!
//! Phases: setup (zero-sharing seeds), offline = function-independent
//! preprocessing (round 1 and dealt zero shares), dependent =
//! function-dependent preprocessing (rounds 2 and 3), online.
//!
//! Online (their Figure 2): input owners send e_w = x ⊕ λ_w to the key
//! contributors, the contributors send k^j_{w,e_w} to the evaluator, the
//! evaluator decrypts gate by gate (free XOR; an AND row yields every
//! contributor's key, and the evaluator's own part tells e_out) and sends
//! the outputs to every other party: three rounds whatever the depth.

// Loops run over party ids and contributor indices that index several
// tables at once; index loops say that more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod field;

use crate::sharing::Transport;
use crate::ttp::RunError;
use field::{reconstruction, share_each, DoubleKeyPrf};
use huddle_circuit::{BitMatrix, Circuit, Op};
use huddle_core::{Gf128, Prg};
use huddle_net::{PartyId, Phase};

/// The party that evaluates the garbled circuit.
pub const EVALUATOR: PartyId = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Three offline rounds (degree reduction), t < n/2.
    Bgw3,
    /// Two offline rounds, t < n/3.
    Bgw2,
}

impl Variant {
    /// The corruption bound t for n parties.
    pub fn threshold(self, n: usize) -> usize {
        match self {
            Variant::Bgw3 => n.div_ceil(2) - 1,
            Variant::Bgw2 => n.div_ceil(3) - 1,
        }
    }
}

/// The optimizations of Sections 3.1–3.2 that can be switched off to
/// measure them ("all off" is the Ben-Efraim–Lindell–Omri baseline shape,
/// except that PRF values are never Shamir-shared here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Optimizations {
    /// Section 3.1: PRF values and keys are added after share conversion
    /// and never Shamir-shared; off, every contributor Shamir-shares all its
    /// F² values and output keys in round 1 (degree 2t, or 3t for BGW2) and
    /// the evaluator interpolates the rows (cubic work in n).
    pub reduced_complexity: bool,
    /// Only t + 1 parties contribute keys (superseeds of (t + 1)·16 bytes)
    /// instead of all n.
    pub short_superseeds: bool,
    /// Additive zero shares from pairwise PRG seeds agreed in the setup
    /// phase, instead of t + 1 dealers sending random strings in round 1.
    pub prg_zero_sharing: bool,
    /// The last offline round as ⌈log2 n⌉ rounds of pairwise sums
    /// ("hypercube") instead of everybody sending to the evaluator.
    pub hypercube: bool,
}

impl Default for Optimizations {
    fn default() -> Self {
        Optimizations {
            reduced_complexity: true,
            short_superseeds: true,
            prg_zero_sharing: true,
            hypercube: false,
        }
    }
}

impl Optimizations {
    pub const NONE: Optimizations = Optimizations {
        reduced_complexity: false,
        short_superseeds: false,
        prg_zero_sharing: false,
        hypercube: false,
    };

    /// Parses `none`, `all`, or a comma list of `reduced`, `short`,
    /// `prgzero`, `hypercube`.
    pub fn parse(text: &str) -> Result<Optimizations, String> {
        let mut o = Optimizations::NONE;
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "none" => {}
                "all" => {
                    o = Optimizations {
                        reduced_complexity: true,
                        short_superseeds: true,
                        prg_zero_sharing: true,
                        hypercube: true,
                    }
                }
                "reduced" => o.reduced_complexity = true,
                "short" => o.short_superseeds = true,
                "prgzero" => o.prg_zero_sharing = true,
                "hypercube" => o.hypercube = true,
                other => {
                    return Err(format!(
                    "unknown optimization `{other}` (known: reduced, short, prgzero, hypercube, all, none)"
                ))
                }
            }
        }
        Ok(o)
    }

    /// Whether additive zero shares are needed (only with reduced complexity:
    /// without it the rows stay Shamir shares of a fresh polynomial).
    pub fn zero_sharing(self) -> bool {
        self.reduced_complexity
    }

    /// Key-contributing parties: t + 1 with short superseeds, else n.
    pub fn contributors(self, variant: Variant, n: usize) -> usize {
        if self.short_superseeds {
            variant.threshold(n) + 1
        } else {
            n
        }
    }
}

/// The circuit as garbling sees it: 2-input ANDs and free gates.
#[derive(Clone, Copy, Debug)]
enum Step {
    Xor(u32, u32, u32),
    Inv(u32, u32),
    Copy(u32, u32),
    Const(u32),
    And(u32, u32, u32),
}

struct Plan {
    steps: Vec<Step>,
    wires: usize,
    ands: usize,
    /// (owner, wires) per input value.
    inputs: Vec<(PartyId, Vec<u32>)>,
    consts: Vec<(u32, bool)>,
    outputs: Vec<Vec<u32>>,
}

impl Plan {
    fn new(circuit: &Circuit, parties: usize) -> Result<Plan, RunError> {
        if !circuit.is_boolean() {
            return Err(RunError::Input(
                "garbling runs Boolean circuits only".into(),
            ));
        }
        let c = huddle_circuit::rewrite::limit_fan_in(circuit, 2);
        let mut steps = Vec::with_capacity(c.gates().len());
        let mut consts = Vec::new();
        for g in c.gates() {
            let (i, o) = (c.gate_inputs(g), c.gate_outputs(g));
            match g.op {
                Op::Xor => steps.push(Step::Xor(i[0], i[1], o[0])),
                Op::Inv => steps.push(Step::Inv(i[0], o[0])),
                Op::Copy => steps.push(Step::Copy(i[0], o[0])),
                Op::ConstBit(v) => {
                    steps.push(Step::Const(o[0]));
                    consts.push((o[0], v));
                }
                Op::And => steps.push(Step::And(i[0], i[1], o[0])),
                Op::Mand => {
                    let k = o.len();
                    for (j, &out) in o.iter().enumerate() {
                        steps.push(Step::And(i[j], i[k + j], out));
                    }
                }
                other => {
                    return Err(RunError::Input(format!(
                        "garbling runs Boolean circuits only, not {}",
                        other.name()
                    )))
                }
            }
        }
        let ands = steps.iter().filter(|s| matches!(s, Step::And(..))).count();
        let inputs = c
            .inputs()
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let wires = (v.first_wire..v.first_wire + v.wires).collect();
                (circuit.owner(i, parties), wires)
            })
            .collect();
        let outputs = c.outputs().iter().map(|v| v.wires.clone()).collect();
        Ok(Plan {
            steps,
            wires: c.num_wires(),
            ands,
            inputs,
            consts,
            outputs,
        })
    }

    fn input_wires_of(&self, p: PartyId) -> usize {
        self.inputs
            .iter()
            .filter(|(o, _)| *o == p)
            .map(|(_, w)| w.len())
            .sum()
    }

    fn all_input_wires(&self) -> usize {
        self.inputs.iter().map(|(_, w)| w.len()).sum()
    }

    fn output_wires(&self) -> usize {
        self.outputs.iter().map(Vec::len).sum()
    }
}

/// Size of the garbled circuit: 4 rows of one 16-byte key per contributor
/// for every AND gate.
pub fn garbled_circuit_bytes(ands: usize, contributors: usize) -> usize {
    4 * ands * contributors * 16
}

fn to_bytes(values: &[Gf128]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_bytes()).collect()
}

fn from_bytes(bytes: &[u8]) -> Vec<Gf128> {
    bytes
        .chunks_exact(16)
        .map(|c| {
            let mut b = [0u8; 16];
            b.copy_from_slice(c);
            Gf128::from_bytes(b)
        })
        .collect()
}

fn pack_bits(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, &b) in bits.iter().enumerate() {
        out[i / 8] |= u8::from(b) << (i % 8);
    }
    out
}

fn unpack_bits(bytes: &[u8], count: usize) -> Vec<bool> {
    (0..count)
        .map(|i| bytes[i / 8] >> (i % 8) & 1 == 1)
        .collect()
}

fn tweak(instance: usize, gate: usize, j: usize) -> u128 {
    (instance as u128) << 80 | (gate as u128) << 16 | j as u128
}

fn bit(b: bool) -> Gf128 {
    Gf128(u128::from(b))
}

/// What one party holds per instance after the offline phase.
struct Garbling {
    /// Shamir share of λ per wire.
    lambda: Vec<Gf128>,
    /// This party's zero keys per wire (key contributors only).
    keys: Vec<u128>,
    /// Permutation bits of this party's own input wires (wire, λ).
    own_lambda: Vec<(u32, bool)>,
    /// Evaluator: λ of every output wire, in output order.
    output_lambda: Vec<bool>,
}

/// Runs one party of `variant` for `instances` instances; `own_inputs` as in
/// [`crate::ttp::run`]. Returns every output value at the parties that
/// learn them (party 0 always does; `reveal_to` other than 0 is refused).
pub fn run<T: Transport>(
    net: &mut T,
    variant: Variant,
    circuit: &Circuit,
    instances: usize,
    own_inputs: &[(usize, BitMatrix)],
    options: crate::RunOptions,
) -> Result<Vec<BitMatrix>, RunError> {
    let (me, n) = (net.party(), net.parties());
    if n < 3 {
        return Err(RunError::Input(format!(
            "garbling with an honest majority needs at least 3 parties, not {n}"
        )));
    }
    if let Some(to) = options.reveal_to.filter(|&p| p != EVALUATOR) {
        return Err(RunError::Input(format!(
            "in BMR the evaluator (party 0) learns the outputs; --reveal-to {to} is not supported"
        )));
    }
    crate::ttp::check_own_inputs(me, n, circuit, instances, own_inputs)?;
    let plan = Plan::new(circuit, n)?;
    let t = variant.threshold(n);
    let opts = options.garble;
    let contributors = opts.contributors(variant, n);
    let contributes = me < contributors;
    let constants = reconstruction(n);
    let mut prg = Prg::from_entropy().map_err(|e| RunError::Input(format!("randomness: {e}")))?;
    let prf = DoubleKeyPrf::new();

    // Setup: pairwise seeds for additive zero sharing; the lower party of
    // each pair draws the seed.
    net.set_phase(Phase::Setup);
    let mut zero: Vec<Option<Prg>> = (0..n).map(|_| None).collect();
    let seeded = if opts.zero_sharing() && opts.prg_zero_sharing {
        n
    } else {
        0
    };
    for (p, slot) in zero.iter_mut().enumerate().take(seeded).skip(me + 1) {
        let seed = prg.next_seed();
        net.send(p, seed.to_vec())?;
        *slot = Some(Prg::from_seed(seed));
    }
    for (p, slot) in zero.iter_mut().enumerate().take(me.min(seeded)) {
        let bytes = net.recv(p, 16)?;
        let mut seed = [0u8; 16];
        seed.copy_from_slice(&bytes);
        *slot = Some(Prg::from_seed(seed));
    }

    net.set_phase(Phase::Offline);
    // Round 1: my λ contributions, my R, my keys.
    let and_outputs: Vec<u32> = plan
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::And(_, _, o) => Some(*o),
            _ => None,
        })
        .collect();
    let my_inputs: Vec<u32> = plan
        .inputs
        .iter()
        .filter(|(o, _)| *o == me)
        .flat_map(|(_, w)| w.iter().copied())
        .collect();
    let mut out_msgs: Vec<Vec<Gf128>> = vec![Vec::new(); n];
    let mut states: Vec<Garbling> = Vec::with_capacity(instances);
    let mut my_offset: Vec<Gf128> = Vec::with_capacity(instances);
    let mut my_share_sum: Vec<Vec<Gf128>> = Vec::with_capacity(instances);
    for _ in 0..instances {
        let mut own_shares: Vec<Gf128> = Vec::new();
        let mut own_lambda = Vec::new();
        let mut secrets: Vec<Gf128> = Vec::new();
        for _ in &and_outputs {
            secrets.push(bit(prg.next_u64() & 1 == 1));
        }
        for &w in &my_inputs {
            let l = prg.next_u64() & 1 == 1;
            own_lambda.push((w, l));
            secrets.push(bit(l));
        }
        let offset = if contributes {
            let r = field::random(&mut prg);
            secrets.push(r);
            r
        } else {
            Gf128::ZERO
        };
        for s in secrets {
            share_each(s, t, n, &mut prg, |p, v| {
                if p == me {
                    own_shares.push(v);
                } else {
                    out_msgs[p].push(v);
                }
            });
        }
        let mut keys = vec![0u128; if contributes { plan.wires } else { 0 }];
        if contributes {
            for k in keys.iter_mut() {
                *k = prg.next_u64() as u128 | (prg.next_u64() as u128) << 64;
            }
            // Free gates: keys follow from their inputs (free XOR).
            for s in &plan.steps {
                match *s {
                    Step::Xor(a, b, o) => keys[o as usize] = keys[a as usize] ^ keys[b as usize],
                    Step::Inv(a, o) => keys[o as usize] = keys[a as usize] ^ offset.0,
                    Step::Copy(a, o) => keys[o as usize] = keys[a as usize],
                    Step::Const(_) | Step::And(..) => {}
                }
            }
        }
        my_offset.push(offset);
        my_share_sum.push(own_shares);
        states.push(Garbling {
            lambda: vec![Gf128::ZERO; plan.wires],
            keys,
            own_lambda,
            output_lambda: Vec::new(),
        });
    }
    for (p, msg) in out_msgs.iter().enumerate() {
        if p != me {
            net.send(p, to_bytes(msg))?;
        }
    }
    // Without PRG zero sharing, the first t + 1 parties deal additive
    // sharings of zero for every garbled-row value, in this round.
    let rows_len = instances * plan.ands * 4 * contributors;
    let mut shared_rows_own: Vec<Gf128> = Vec::new();
    let mut dealt_zero: Vec<u128> = Vec::new();
    let dealt = opts.zero_sharing() && !opts.prg_zero_sharing;
    if dealt {
        dealt_zero = vec![0u128; rows_len];
        if me <= t {
            let mut bytes = vec![0u8; 16 * rows_len];
            for p in (0..n).filter(|&p| p != me) {
                prg.fill_bytes(&mut bytes);
                for (z, c) in dealt_zero.iter_mut().zip(bytes.chunks_exact(16)) {
                    let mut b = [0u8; 16];
                    b.copy_from_slice(c);
                    *z ^= u128::from_le_bytes(b);
                }
                net.send(p, bytes.clone())?;
            }
        }
    }
    // Without reduced complexity, every contributor Shamir-shares its F²
    // values and its output-wire zero keys, at the degree of χ·R.
    let row_degree = match variant {
        Variant::Bgw3 => 2 * t,
        Variant::Bgw2 => 3 * t,
    };
    let per_gate = 4 * contributors + 1;
    if !opts.reduced_complexity && contributes {
        let mut msgs: Vec<Vec<Gf128>> =
            vec![Vec::with_capacity(instances * plan.ands * per_gate); n];
        let mut values = Vec::with_capacity(4 * contributors);
        for (inst, state) in states.iter().enumerate() {
            let mut and_index = 0;
            for s in &plan.steps {
                let Step::And(a, b, o) = *s else { continue };
                gate_prf(
                    &prf,
                    &state.keys,
                    my_offset[inst].0,
                    (a, b),
                    inst,
                    and_index,
                    contributors,
                    &mut values,
                );
                for &v in values
                    .iter()
                    .chain(std::iter::once(&state.keys[o as usize]))
                {
                    share_each(Gf128(v), row_degree, n, &mut prg, |p, sh| msgs[p].push(sh));
                }
                and_index += 1;
            }
        }
        for (p, msg) in msgs.iter().enumerate() {
            if p != me {
                net.send(p, to_bytes(msg))?;
            }
        }
        shared_rows_own = std::mem::take(&mut msgs[me]);
    }
    // Per instance from party p: its AND λs, its input λs, its R if it contributes.
    let per_instance =
        |p: PartyId| plan.ands + plan.input_wires_of(p) + usize::from(p < contributors);
    let mut received: Vec<Vec<Gf128>> = Vec::with_capacity(n);
    for p in 0..n {
        received.push(if p == me {
            my_share_sum.concat()
        } else {
            from_bytes(&net.recv(p, 16 * per_instance(p) * instances)?)
        });
    }
    if dealt {
        for d in (0..=t).filter(|&d| d != me) {
            let bytes = net.recv(d, 16 * rows_len)?;
            for (z, c) in dealt_zero.iter_mut().zip(bytes.chunks_exact(16)) {
                let mut b = [0u8; 16];
                b.copy_from_slice(c);
                *z ^= u128::from_le_bytes(b);
            }
        }
    }
    // Shares of Σ_i F_i per row, and of k^j_{w,0} per gate and j.
    let mut row_shares: Vec<Gf128> = Vec::new();
    let mut key_shares: Vec<Gf128> = Vec::new();
    if !opts.reduced_complexity {
        row_shares = vec![Gf128::ZERO; rows_len];
        key_shares = vec![Gf128::ZERO; instances * plan.ands * contributors];
        for p in 0..contributors {
            let values = if p == me {
                std::mem::take(&mut shared_rows_own)
            } else {
                from_bytes(&net.recv(p, 16 * instances * plan.ands * per_gate)?)
            };
            for (g, chunk) in values.chunks_exact(per_gate).enumerate() {
                for (r, &v) in chunk[..4 * contributors].iter().enumerate() {
                    row_shares[g * 4 * contributors + r] += v;
                }
                key_shares[g * contributors + p] = chunk[4 * contributors];
            }
        }
    }
    // Offsets: [R^j] per instance for j < contributors.
    let mut offset_shares: Vec<Vec<Gf128>> = vec![Vec::new(); instances];
    for (inst, state) in states.iter_mut().enumerate() {
        for (p, values) in received.iter().enumerate() {
            let k = per_instance(p);
            let mine = &values[inst * k..(inst + 1) * k];
            for (a, &w) in and_outputs.iter().enumerate() {
                state.lambda[w as usize] += mine[a];
            }
            let owned: Vec<u32> = plan
                .inputs
                .iter()
                .filter(|(o, _)| *o == p)
                .flat_map(|(_, w)| w.iter().copied())
                .collect();
            for (i, &w) in owned.iter().enumerate() {
                state.lambda[w as usize] = mine[plan.ands + i];
            }
            if p < contributors {
                offset_shares[inst].push(mine[k - 1]);
            }
        }
        // Free gates: λ follows (constants have λ = 0).
        for s in &plan.steps {
            match *s {
                Step::Xor(a, b, o) => {
                    state.lambda[o as usize] = state.lambda[a as usize] + state.lambda[b as usize];
                }
                Step::Inv(a, o) | Step::Copy(a, o) => {
                    state.lambda[o as usize] = state.lambda[a as usize];
                }
                Step::Const(o) => state.lambda[o as usize] = Gf128::ZERO,
                Step::And(..) => {}
            }
        }
    }

    // Function-dependent preprocessing from here on (the paper's Section 5
    // phases): everything above needed only the number of ANDs and inputs.
    net.set_phase(Phase::Dependent);
    // Round 2 (BGW3 only): degree reduction of λ_u·λ_v.
    let products: Vec<Vec<Gf128>> = states
        .iter()
        .map(|s| {
            plan.steps
                .iter()
                .filter_map(|st| match *st {
                    Step::And(a, b, _) => Some(s.lambda[a as usize] * s.lambda[b as usize]),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let products = match variant {
        Variant::Bgw2 => products,
        Variant::Bgw3 => {
            let mut msgs: Vec<Vec<Gf128>> = vec![Vec::new(); n];
            let mut kept: Vec<Gf128> = Vec::new();
            for v in products.iter().flatten() {
                share_each(*v, t, n, &mut prg, |p, s| {
                    if p == me {
                        kept.push(s);
                    } else {
                        msgs[p].push(s);
                    }
                });
            }
            for (p, msg) in msgs.iter().enumerate() {
                if p != me {
                    net.send(p, to_bytes(msg))?;
                }
            }
            let total = plan.ands * instances;
            let mut reduced = vec![Gf128::ZERO; total];
            for p in 0..n {
                let sub = if p == me {
                    std::mem::take(&mut kept)
                } else {
                    from_bytes(&net.recv(p, 16 * total)?)
                };
                for (r, s) in reduced.iter_mut().zip(sub) {
                    *r += constants[p] * s;
                }
            }
            reduced
                .chunks(plan.ands.max(1))
                .map(<[Gf128]>::to_vec)
                .collect()
        }
    };

    // Round 3: additive shares of the garbled rows (and output λ shares) to the evaluator.
    let c_me = constants[me];
    // c_me·[R^j]: the share conversion folded into the offset, once per instance.
    let scaled_offsets: Vec<Vec<Gf128>> = offset_shares
        .iter()
        .map(|r| r.iter().map(|&x| x * c_me).collect())
        .collect();
    // Evaluator: every instance's garbled rows (per AND gate, (α, β), j), summed in place.
    let mut rows_msg: Vec<u128> = Vec::with_capacity(instances * plan.ands * 4 * contributors);
    let mut prf_in: Vec<u128> = Vec::with_capacity(4 * contributors);
    for (inst, state) in states.iter().enumerate() {
        let offset = my_offset[inst].0;
        let mut and_index = 0;
        for s in &plan.steps {
            let Step::And(a, b, o) = *s else { continue };
            let lab = products[inst][and_index];
            let (la, lb, lo) = (
                state.lambda[a as usize],
                state.lambda[b as usize],
                state.lambda[o as usize],
            );
            let local = opts.reduced_complexity && contributes;
            if local {
                gate_prf(
                    &prf,
                    &state.keys,
                    offset,
                    (a, b),
                    inst,
                    and_index,
                    contributors,
                    &mut prf_in,
                );
            }
            let gate = inst * plan.ands + and_index;
            // χ_αβ·S = (λ_uv + λ_w)·S + β·(λ_u·S) + α·(λ_v·S) + αβ·S with
            // S = c_me·[R^j]: three multiplications per j instead of four.
            let base_at = rows_msg.len();
            rows_msg.resize(base_at + 4 * contributors, 0);
            for j in 0..contributors {
                let s = scaled_offsets[inst][j];
                let base = ((lab + lo) * s).0;
                let (with_a, with_b) = ((la * s).0, (lb * s).0);
                let chi = [
                    base,
                    base ^ with_a,
                    base ^ with_b,
                    base ^ with_a ^ with_b ^ s.0,
                ];
                for (ab, &v) in chi.iter().enumerate() {
                    let row = ab * contributors + j;
                    let mut v = v;
                    if local {
                        v ^= prf_in[row];
                        if me == j {
                            v ^= state.keys[o as usize];
                        }
                    } else if !opts.reduced_complexity {
                        // Shamir shares of Σ F and k^j, converted like χ·R.
                        v ^= ((row_shares[gate * 4 * contributors + row]
                            + key_shares[gate * contributors + j])
                            * c_me)
                            .0;
                    }
                    rows_msg[base_at + row] = v;
                }
            }
            and_index += 1;
        }
    }
    // Zero masks: pairwise PRG streams drawn in the same order by both ends,
    // or the dealt sharings of round 1.
    if !opts.zero_sharing() {
        // The rows are (converted) Shamir shares of fresh random polynomials.
    } else if opts.prg_zero_sharing {
        apply_zero_masks(&mut rows_msg, &mut zero);
    } else {
        for (v, z) in rows_msg.iter_mut().zip(&dealt_zero) {
            *v ^= z;
        }
        drop(dealt_zero);
    }
    // Output λ shares, made additive like the rows.
    for state in &states {
        for &w in plan.outputs.iter().flatten() {
            rows_msg.push((state.lambda[w as usize] * constants[me]).0);
        }
    }
    let total = sum_at_evaluator(net, rows_msg, opts.hypercube)?;
    let mut rows = Vec::new();
    if let Some(mut sum) = total {
        let out_l = sum.split_off(rows_len);
        rows = sum;
        let per_out = plan.output_wires();
        for (inst, state) in states.iter_mut().enumerate() {
            state.output_lambda = out_l[inst * per_out..(inst + 1) * per_out]
                .iter()
                .map(|l| match l {
                    0 => Ok(false),
                    1 => Ok(true),
                    _ => Err(RunError::Input(
                        "an output permutation bit reconstructs to neither 0 nor 1".into(),
                    )),
                })
                .collect::<Result<_, _>>()?;
        }
    }

    online(
        net,
        &plan,
        &mut states,
        &rows,
        instances,
        own_inputs,
        contributors,
        &my_offset,
        &prf,
    )
}

/// This contributor's F² values for one AND gate: for (α, β) and every
/// contributor j, F²_{k_{u,α}, k_{v,β}}(instance ‖ gate ‖ j), in row order.
#[allow(clippy::too_many_arguments)]
fn gate_prf(
    prf: &DoubleKeyPrf,
    keys: &[u128],
    offset: u128,
    (a, b): (u32, u32),
    inst: usize,
    and_index: usize,
    contributors: usize,
    out: &mut Vec<u128>,
) {
    out.clear();
    for alpha in 0..2u128 {
        for beta in 0..2u128 {
            let ka = keys[a as usize] ^ (offset * alpha);
            let kb = keys[b as usize] ^ (offset * beta);
            for j in 0..contributors {
                out.push(DoubleKeyPrf::input(
                    Gf128(ka),
                    Gf128(kb),
                    tweak(inst, and_index, j),
                ));
            }
        }
    }
    prf.apply(out);
}

/// Sums every party's additive vector at the evaluator: directly (one
/// round) or over a hypercube (⌈log2 n⌉ rounds in which half of the
/// remaining parties send their running sum to a partner). Returns the
/// sum at the evaluator, None elsewhere.
fn sum_at_evaluator<T: Transport>(
    net: &mut T,
    mut acc: Vec<u128>,
    hypercube: bool,
) -> Result<Option<Vec<u128>>, RunError> {
    let (me, n) = (net.party(), net.parties());
    let encode = |v: &[u128]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let absorb = |acc: &mut Vec<u128>, bytes: &[u8]| {
        for (a, c) in acc.iter_mut().zip(bytes.chunks_exact(16)) {
            let mut b = [0u8; 16];
            b.copy_from_slice(c);
            *a ^= u128::from_le_bytes(b);
        }
    };
    if !hypercube {
        if me != EVALUATOR {
            net.send(EVALUATOR, encode(&acc))?;
            return Ok(None);
        }
        for p in 1..n {
            let bytes = net.recv(p, 16 * acc.len())?;
            absorb(&mut acc, &bytes);
        }
        return Ok(Some(acc));
    }
    let mut step = 1;
    while step < n {
        if me % (2 * step) == step {
            net.send(me - step, encode(&acc))?;
            return Ok(None);
        }
        if me % (2 * step) == 0 && me + step < n {
            let bytes = net.recv(me + step, 16 * acc.len())?;
            absorb(&mut acc, &bytes);
        }
        step *= 2;
    }
    Ok(Some(acc))
}

/// XORs this party's additive share of zero into every value: one draw
/// from each pairwise stream, so each draw appears at exactly two parties.
fn apply_zero_masks(values: &mut [u128], streams: &mut [Option<Prg>]) {
    // In chunks, so the masks never take as much memory as the values.
    const CHUNK: usize = 4096;
    let mut buf = vec![0u8; 16 * CHUNK];
    for stream in streams.iter_mut().flatten() {
        for part in values.chunks_mut(CHUNK) {
            let bytes = &mut buf[..16 * part.len()];
            stream.fill_bytes(bytes);
            for (v, c) in part.iter_mut().zip(bytes.chunks_exact(16)) {
                let mut b = [0u8; 16];
                b.copy_from_slice(c);
                *v ^= u128::from_le_bytes(b);
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn online<T: Transport>(
    net: &mut T,
    plan: &Plan,
    states: &mut [Garbling],
    rows: &[u128],
    instances: usize,
    own_inputs: &[(usize, BitMatrix)],
    contributors: usize,
    offsets: &[Gf128],
    prf: &DoubleKeyPrf,
) -> Result<Vec<BitMatrix>, RunError> {
    let (me, n) = (net.party(), net.parties());
    net.set_phase(Phase::Online);
    // Round A: masked inputs e = x ⊕ λ from their owners to the contributors.
    let mut external: Vec<Vec<bool>> = vec![vec![false; plan.wires]; instances];
    let mut mine: Vec<bool> = Vec::new();
    for (inst, state) in states.iter().enumerate() {
        let mut k = 0;
        for (index, (owner, wires)) in plan.inputs.iter().enumerate() {
            if *owner != me {
                continue;
            }
            let (_, m) = own_inputs
                .iter()
                .find(|(i, _)| *i == index)
                .expect("checked: every owned input is given");
            for (col, &w) in wires.iter().enumerate() {
                let (lw, l) = state.own_lambda[k];
                debug_assert_eq!(lw, w);
                k += 1;
                let e = m.get(inst, col) ^ l;
                external[inst][w as usize] = e;
                mine.push(e);
            }
        }
    }
    let packed = pack_bits(&mine);
    for p in 0..contributors {
        if p != me && !packed.is_empty() {
            net.send(p, packed.clone())?;
        }
    }
    if me < contributors {
        for p in (0..n).filter(|&p| p != me) {
            let count = plan.input_wires_of(p) * instances;
            if count == 0 {
                continue;
            }
            let bits = unpack_bits(&net.recv(p, count.div_ceil(8))?, count);
            let mut it = bits.into_iter();
            for ext in external.iter_mut() {
                for (_, wires) in plan.inputs.iter().filter(|(o, _)| *o == p) {
                    for &w in wires {
                        ext[w as usize] = it.next().expect("counted");
                    }
                }
            }
        }
    }
    if me >= contributors {
        return finish_outputs(net, plan, instances);
    }
    // Round B: the contributors' keys for the inputs (and constants) to the evaluator.
    let key_of = |state: &Garbling, inst: usize, w: u32, e: bool| {
        state.keys[w as usize] ^ if e { offsets[inst].0 } else { 0 }
    };
    let mut input_keys: Vec<u128> = Vec::new();
    for (inst, state) in states.iter().enumerate() {
        for (_, wires) in &plan.inputs {
            for &w in wires {
                input_keys.push(key_of(state, inst, w, external[inst][w as usize]));
            }
        }
        for &(w, v) in &plan.consts {
            input_keys.push(key_of(state, inst, w, v));
        }
    }
    if me != EVALUATOR {
        net.send(
            EVALUATOR,
            input_keys.iter().flat_map(|k| k.to_le_bytes()).collect(),
        )?;
        return finish_outputs(net, plan, instances);
    }
    let per_inst = plan.all_input_wires() + plan.consts.len();
    let mut keys_from: Vec<Vec<u128>> = vec![input_keys];
    for p in 1..contributors {
        let bytes = net.recv(p, 16 * per_inst * instances)?;
        keys_from.push(
            bytes
                .chunks_exact(16)
                .map(|c| {
                    let mut b = [0u8; 16];
                    b.copy_from_slice(c);
                    u128::from_le_bytes(b)
                })
                .collect(),
        );
    }
    // Evaluation, instance by instance.
    let mut results: Vec<Vec<bool>> = Vec::with_capacity(instances);
    let mut prf_in: Vec<u128> = Vec::with_capacity(contributors * contributors);
    for (inst, state) in states.iter().enumerate() {
        let ext = &mut external[inst];
        let mut keys = vec![0u128; plan.wires * contributors];
        let mut k = inst * per_inst;
        for (_, wires) in &plan.inputs {
            for &w in wires {
                for j in 0..contributors {
                    keys[w as usize * contributors + j] = keys_from[j][k];
                }
                k += 1;
            }
        }
        for &(w, v) in &plan.consts {
            for j in 0..contributors {
                keys[w as usize * contributors + j] = keys_from[j][k];
            }
            ext[w as usize] = v;
            k += 1;
        }
        let mut and_index = 0;
        for s in &plan.steps {
            match *s {
                Step::Xor(a, b, o) => {
                    ext[o as usize] = ext[a as usize] ^ ext[b as usize];
                    for j in 0..contributors {
                        keys[o as usize * contributors + j] = keys[a as usize * contributors + j]
                            ^ keys[b as usize * contributors + j];
                    }
                }
                Step::Inv(a, o) => {
                    ext[o as usize] = !ext[a as usize];
                    for j in 0..contributors {
                        keys[o as usize * contributors + j] = keys[a as usize * contributors + j];
                    }
                }
                Step::Copy(a, o) => {
                    ext[o as usize] = ext[a as usize];
                    for j in 0..contributors {
                        keys[o as usize * contributors + j] = keys[a as usize * contributors + j];
                    }
                }
                Step::Const(..) => {}
                Step::And(a, b, o) => {
                    let (ea, eb) = (ext[a as usize], ext[b as usize]);
                    prf_in.clear();
                    for j in 0..contributors {
                        for i in 0..contributors {
                            prf_in.push(DoubleKeyPrf::input(
                                Gf128(keys[a as usize * contributors + i]),
                                Gf128(keys[b as usize * contributors + i]),
                                tweak(inst, and_index, j),
                            ));
                        }
                    }
                    prf.apply(&mut prf_in);
                    let row = ((inst * plan.ands + and_index) * 4
                        + usize::from(ea) * 2
                        + usize::from(eb))
                        * contributors;
                    for j in 0..contributors {
                        let mut key = rows[row + j];
                        for i in 0..contributors {
                            key ^= prf_in[j * contributors + i];
                        }
                        keys[o as usize * contributors + j] = key;
                    }
                    let mine = keys[o as usize * contributors];
                    ext[o as usize] = if mine == state.keys[o as usize] {
                        false
                    } else if mine == state.keys[o as usize] ^ offsets[inst].0 {
                        true
                    } else {
                        return Err(RunError::Input(format!(
                            "garbled AND gate {and_index} of instance {inst} decrypts to neither of the evaluator's keys: abort"
                        )));
                    };
                    and_index += 1;
                }
            }
        }
        let bits: Vec<bool> = plan
            .outputs
            .iter()
            .flatten()
            .zip(&state.output_lambda)
            .map(|(&w, &l)| ext[w as usize] ^ l)
            .collect();
        results.push(bits);
    }
    // Round C: the outputs to every other party.
    let flat: Vec<bool> = results.concat();
    let packed = pack_bits(&flat);
    for p in 1..n {
        net.send(p, packed.clone())?;
    }
    net.stop_clock();
    Ok(matrices(plan, &flat, instances))
}

fn finish_outputs<T: Transport>(
    net: &mut T,
    plan: &Plan,
    instances: usize,
) -> Result<Vec<BitMatrix>, RunError> {
    let count = plan.output_wires() * instances;
    let bits = unpack_bits(&net.recv(EVALUATOR, count.div_ceil(8))?, count);
    net.stop_clock();
    Ok(matrices(plan, &bits, instances))
}

fn matrices(plan: &Plan, flat: &[bool], instances: usize) -> Vec<BitMatrix> {
    let per = plan.output_wires();
    let mut out: Vec<BitMatrix> = plan
        .outputs
        .iter()
        .map(|w| BitMatrix::zeros(instances, w.len()))
        .collect();
    for inst in 0..instances {
        let mut k = inst * per;
        for (m, wires) in out.iter_mut().zip(&plan.outputs) {
            for col in 0..wires.len() {
                m.set(inst, col, flat[k]);
                k += 1;
            }
        }
    }
    out
}
