//! Replicated three-party computation (Araki et al.) over Boolean circuits,
//! semi-honest, following `shared/specs/replicated-3pc.md` in its "Araki
//! form": a secret bit v is shared as x_0 ^ x_1 ^ x_2 = 0 with party i
//! holding (x_i, a_i = x_{i-1} ^ v). Shares are bitsliced: one word carries
//! 64 instances. Correlated randomness comes from two AES-CTR streams per
//! party, keyed with the keys it shares with its neighbours; both holders of a
//! key draw from it in the same order (inputs in order, then AND gates in
//! schedule order).
//!
//! Rounds: one for inputs, one per AND layer (every AND of a layer in one
//! message per link), one for outputs. k-input ANDs are split into 2-input
//! trees first, since the protocol has no native multi-fan-in AND.

use crate::ttp::RunError;
use huddle_circuit::rewrite::split_fan_in;
use huddle_circuit::{BitMatrix, Circuit, Layering, Op, WireId};
use huddle_core::arena::{binary, fill, unary};
use huddle_core::Prg;
use huddle_net::{Network, Phase};

/// Both shares of every wire: `w` words per wire (instances / 64, rounded up).
struct Shares {
    x: Vec<u64>,
    a: Vec<u64>,
    w: usize,
}

impl Shares {
    fn x(&self, wire: WireId) -> &[u64] {
        &self.x[wire as usize * self.w..][..self.w]
    }
    fn a(&self, wire: WireId) -> &[u64] {
        &self.a[wire as usize * self.w..][..self.w]
    }
    fn set(&mut self, wire: WireId, x: &[u64], a: &[u64]) {
        let at = wire as usize * self.w;
        self.x[at..at + self.w].copy_from_slice(x);
        self.a[at..at + self.w].copy_from_slice(a);
    }
}

fn words_to_bytes(words: &[u64], out: &mut Vec<u8>) {
    out.extend(words.iter().flat_map(|w| w.to_le_bytes()));
}

fn bytes_to_words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect()
}

fn draw(prg: &mut Prg, w: usize) -> Vec<u64> {
    let mut v = vec![0u64; w];
    prg.fill_u64(&mut v);
    v
}

/// Runs one party of Replicated 3PC on `instances` instances of a Boolean circuit.
pub fn run(
    net: &mut Network,
    circuit: &Circuit,
    instances: usize,
    own_inputs: &[(usize, BitMatrix)],
) -> Result<Vec<BitMatrix>, RunError> {
    if net.parties() != 3 {
        return Err(RunError::Input(format!(
            "replicated is a 3-party protocol, the run has {} parties",
            net.parties()
        )));
    }
    if !circuit.is_boolean() {
        return Err(RunError::Input(
            "replicated runs Boolean circuits only so far".into(),
        ));
    }
    crate::ttp::check_own_inputs(net.party(), 3, circuit, instances, own_inputs)?;
    let me = net.party();
    let (next, prev) = ((me + 1) % 3, (me + 2) % 3);
    let c = split_fan_in(circuit);
    let w = instances.div_ceil(64).max(1);
    // Two share words per wire and 64 instances, plus the caller's input and output copies.
    let io_bits: usize = (0..c.inputs().len())
        .map(|i| c.input_bits(i))
        .chain((0..c.outputs().len()).map(|o| c.output_bits(o)))
        .sum();
    crate::check_memory(
        &format!("replicated on {instances} instances of this circuit"),
        (c.num_wires() as u128 * 2 + io_bits as u128 * 2) * w as u128 * 8,
    )?;

    // Setup: P_i picks K_{i,i+1} and sends it to P_{i+1}.
    net.set_phase(Phase::Setup);
    let mut entropy =
        Prg::from_entropy().map_err(|e| RunError::Input(format!("no entropy: {e}")))?;
    let my_key = entropy.next_seed();
    net.send(next, my_key.to_vec())?;
    let their_key: [u8; 16] = net
        .recv(prev, 16)?
        .try_into()
        .map_err(|_| RunError::Input("bad key".into()))?;
    let mut k_next = Prg::from_seed(my_key); // K_{i,i+1}
    let mut k_prev = Prg::from_seed(their_key); // K_{i-1,i}

    // Inputs: the dealer d sends a_{d-1} = x_{d+1} ^ v to P_{d-1} and a_{d+1} = x_d ^ v to P_{d+1}.
    net.set_phase(Phase::Online);
    let mut s = Shares {
        x: vec![0; c.num_wires() * w],
        a: vec![0; c.num_wires() * w],
        w,
    };
    let (mut to_prev, mut to_next) = (Vec::new(), Vec::new());
    for (idx, value) in c.inputs().iter().enumerate() {
        let dealer = c.owner(idx, 3);
        let wires = value.first_wire..value.first_wire + value.wires;
        if dealer == me {
            let m = &own_inputs
                .iter()
                .find(|(i, _)| *i == idx)
                .expect("checked above")
                .1;
            let by_wire = m.transpose(); // one row per wire, `instances` columns
            for (j, wire) in wires.enumerate() {
                let v = by_wire.row(j);
                let x_prev = draw(&mut k_prev, w); // x_{d-1} from K_{d-1,d}
                let x_next = draw(&mut k_next, w); // x_{d+1} from K_{d,d+1}
                let x_me: Vec<u64> = x_prev.iter().zip(&x_next).map(|(p, n)| p ^ n).collect();
                let a_me: Vec<u64> = x_prev.iter().zip(v).map(|(p, v)| p ^ v).collect();
                let a_prev: Vec<u64> = x_next.iter().zip(v).map(|(n, v)| n ^ v).collect();
                let a_next: Vec<u64> = x_me.iter().zip(v).map(|(x, v)| x ^ v).collect();
                words_to_bytes(&a_prev, &mut to_prev);
                words_to_bytes(&a_next, &mut to_next);
                s.set(wire, &x_me, &a_me);
            }
        } else {
            // P_{d-1} holds K_{d-1,d} as its "next" key; P_{d+1} holds K_{d,d+1} as its "prev" key.
            let stream = if (dealer + 2) % 3 == me {
                &mut k_next
            } else {
                &mut k_prev
            };
            for wire in wires {
                let x = draw(stream, w);
                let at = wire as usize * w;
                s.x[at..at + w].copy_from_slice(&x);
            }
        }
    }
    if !to_prev.is_empty() {
        net.send(prev, to_prev)?;
    }
    if !to_next.is_empty() {
        net.send(next, to_next)?;
    }
    for dealer in [prev, next] {
        let theirs: Vec<usize> = (0..c.inputs().len())
            .filter(|&i| c.owner(i, 3) == dealer)
            .collect();
        let wires: usize = theirs.iter().map(|&i| c.inputs()[i].wires as usize).sum();
        if wires == 0 {
            continue;
        }
        let words = bytes_to_words(&net.recv(dealer, wires * w * 8)?);
        let mut k = 0;
        for &i in &theirs {
            let v = &c.inputs()[i];
            for wire in v.first_wire..v.first_wire + v.wires {
                let at = wire as usize * w;
                s.a[at..at + w].copy_from_slice(&words[k * w..(k + 1) * w]);
                k += 1;
            }
        }
    }

    // Gates, one message per AND layer.
    let layering = Layering::of(&c);
    let mut pending: Vec<(WireId, WireId, WireId)> = Vec::new();
    let mut pending_layer = 0;
    for gi in layering.schedule(&c) {
        let g = &c.gates()[gi];
        let (ins, outs) = (c.gate_inputs(g), c.gate_outputs(g));
        let layer = layering.gate_layer[gi];
        if !pending.is_empty() && (!g.op.is_interactive() || layer != pending_layer) {
            and_layer(net, &mut s, &pending, &mut k_prev, &mut k_next, prev, next)?;
            pending.clear();
        }
        match g.op {
            Op::And => {
                pending.push((ins[0], ins[1], outs[0]));
                pending_layer = layer;
            }
            Op::Mand => {
                let k = outs.len();
                pending.extend((0..k).map(|i| (ins[i], ins[k + i], outs[i])));
                pending_layer = layer;
            }
            // Linear gates are local and in place (outputs never alias inputs).
            Op::Xor => {
                binary(&mut s.x, w, ins[0], ins[1], outs[0], |p, q| p ^ q);
                binary(&mut s.a, w, ins[0], ins[1], outs[0], |p, q| p ^ q);
            }
            Op::Inv => {
                unary(&mut s.x, w, ins[0], outs[0], |p| p);
                unary(&mut s.a, w, ins[0], outs[0], |p| !p);
            }
            Op::Copy => {
                unary(&mut s.x, w, ins[0], outs[0], |p| p);
                unary(&mut s.a, w, ins[0], outs[0], |p| p);
            }
            // A public bit c is shared as (0, c) at every party.
            Op::ConstBit(bit) => {
                fill(&mut s.x, w, outs[0], 0);
                fill(&mut s.a, w, outs[0], if bit { u64::MAX } else { 0 });
            }
            other => {
                return Err(RunError::Input(format!(
                    "replicated cannot evaluate {} gates",
                    other.name()
                )))
            }
        }
    }
    if !pending.is_empty() {
        and_layer(net, &mut s, &pending, &mut k_prev, &mut k_next, prev, next)?;
    }

    // Outputs to everybody: P_i sends x_i to P_{i+1}; P_i outputs x_{i-1} ^ a_i.
    let out_wires: Vec<WireId> = c
        .outputs()
        .iter()
        .flat_map(|v| v.wires.iter().copied())
        .collect();
    let mut msg = Vec::with_capacity(out_wires.len() * w * 8);
    for &wire in &out_wires {
        words_to_bytes(s.x(wire), &mut msg);
    }
    net.send(next, msg)?;
    let theirs = bytes_to_words(&net.recv(prev, out_wires.len() * w * 8)?);
    let mut k = 0;
    let tail_mask = if instances % 64 == 0 {
        u64::MAX
    } else {
        (1u64 << (instances % 64)) - 1
    };
    let mut outputs = Vec::with_capacity(c.outputs().len());
    for v in c.outputs() {
        let mut by_wire = BitMatrix::zeros(v.wires.len(), instances);
        for (j, &wire) in v.wires.iter().enumerate() {
            let row = by_wire.row_mut(j);
            for (b, (t, a)) in theirs[k * w..(k + 1) * w]
                .iter()
                .zip(s.a(wire))
                .enumerate()
                .take(row.len())
            {
                row[b] = t ^ a;
            }
            if let Some(last) = row.last_mut() {
                *last &= tail_mask;
            }
            k += 1;
        }
        outputs.push(by_wire.transpose());
    }
    Ok(outputs)
}

/// One round for a batch of 2-input ANDs: r_i = a_i b_i ^ x_i y_i ^ alpha_i to
/// P_{i+1}; with r_{i-1} from P_{i-1}, the product share is (r_{i-1} ^ r_i, r_i).
fn and_layer(
    net: &mut Network,
    s: &mut Shares,
    gates: &[(WireId, WireId, WireId)],
    k_prev: &mut Prg,
    k_next: &mut Prg,
    prev: usize,
    next: usize,
) -> Result<(), RunError> {
    let w = s.w;
    let mut rs = Vec::with_capacity(gates.len() * w);
    let mut msg = Vec::with_capacity(gates.len() * w * 8);
    let (mut from_prev, mut from_next) = (vec![0u64; w], vec![0u64; w]);
    for &(u, v, _) in gates {
        // alpha_i = F(K_{i-1,i}) ^ F(K_{i,i+1}): a zero-sharing across the three parties.
        k_prev.fill_u64(&mut from_prev);
        k_next.fill_u64(&mut from_next);
        let (au, av, xu, xv) = (s.a(u), s.a(v), s.x(u), s.x(v));
        rs.extend((0..w).map(|j| (au[j] & av[j]) ^ (xu[j] & xv[j]) ^ from_prev[j] ^ from_next[j]));
    }
    words_to_bytes(&rs, &mut msg);
    net.send(next, msg)?;
    let theirs = bytes_to_words(&net.recv(prev, gates.len() * w * 8)?);
    for (k, &(_, _, out)) in gates.iter().enumerate() {
        let (r, r_prev) = (&rs[k * w..(k + 1) * w], &theirs[k * w..(k + 1) * w]);
        let at = out as usize * w;
        for ((z, p), q) in s.x[at..at + w].iter_mut().zip(r_prev).zip(r) {
            *z = p ^ q;
        }
        s.a[at..at + w].copy_from_slice(r);
    }
    Ok(())
}
