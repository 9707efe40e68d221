//! The bitsliced plaintext evaluator: huddle's trusted third party, the
//! oracle of every protocol test and the baseline of every benchmark.
//!
//! A circuit's [`Schedule`] (dead gates dropped, MAND lowered to 2-input
//! ANDs, wires sharing slots once their last reader has run, so even
//! SHA-256's working set stays in cache) becomes a [`Program`] of kernel
//! instructions once. The
//! program then runs over chunks of 64·W instances: a bit slot holds W words
//! (bit i of word b is instance 64b + i), a ring slot holds 64·W elements.
//! Every operation is a straight loop over a slot that the compiler
//! vectorizes; on x86-64 a second copy of the kernel compiled for AVX2 is
//! selected at run time, so one binary is fast everywhere.

use crate::model::{Circuit, Domain, Op};
use crate::schedule::{Schedule, ScheduleOptions};
use huddle_core::arena::{binary, fill, fold, split_out, src, unary};
use huddle_core::bits::transpose_64x64;
use huddle_core::{BitMatrix, RingWidth};

/// One compiled operation. Slot numbers index the bit or ring arena as the
/// operation's domain says; `first`/`len` index [`Program::args`].
#[derive(Clone, Copy, Debug)]
enum Instr {
    Xor {
        a: u32,
        b: u32,
        o: u32,
    },
    Inv {
        a: u32,
        o: u32,
    },
    CopyBit {
        a: u32,
        o: u32,
    },
    ConstBit {
        one: bool,
        o: u32,
    },
    And {
        a: u32,
        b: u32,
        o: u32,
    },
    AndMany {
        first: u32,
        len: u32,
        o: u32,
    },
    Add {
        a: u32,
        b: u32,
        o: u32,
    },
    AddMany {
        first: u32,
        len: u32,
        o: u32,
    },
    Sub {
        a: u32,
        b: u32,
        o: u32,
    },
    Neg {
        a: u32,
        o: u32,
    },
    Mul {
        a: u32,
        b: u32,
        o: u32,
    },
    MulMany {
        first: u32,
        len: u32,
        o: u32,
    },
    AddConst {
        a: u32,
        c: u64,
        o: u32,
    },
    MulConst {
        a: u32,
        c: u64,
        o: u32,
    },
    ConstRing {
        c: u64,
        o: u32,
    },
    CopyRing {
        a: u32,
        o: u32,
    },
    /// Ring slot `a` to the bit slots args[first..first + k].
    Decompose {
        a: u32,
        first: u32,
    },
    /// The product of the bit slots args[first..first + bits] as a ring
    /// element, times the ring slot that follows them if `factor`.
    Inject {
        first: u32,
        bits: u32,
        factor: bool,
        o: u32,
    },
    /// Σ a_i·b_i over the 2·len operands at `first` (a's, then b's),
    /// truncated by `trunc` bits if nonzero.
    Dot {
        first: u32,
        len: u32,
        trunc: u8,
        o: u32,
    },
    /// Ring slot a to bit slot o: the top bit of each element.
    Ltz {
        a: u32,
        o: u32,
    },
    /// Ring slot a to bit slot o: whether each element is 0 in the ring.
    Eqz {
        a: u32,
        o: u32,
    },
}

/// A circuit compiled for the bitsliced evaluator.
#[derive(Clone, Debug)]
pub struct Program {
    instrs: Vec<Instr>,
    args: Vec<u32>,
    bit_slots: usize,
    ring_slots: usize,
    ring: Option<RingWidth>,
    /// Per input value: its domain and the slot of each wire.
    inputs: Vec<(Domain, Vec<u32>)>,
    outputs: Vec<(Domain, Vec<u32>)>,
}

impl Program {
    /// Translates the circuit's [`Schedule`] (circuit order, reused slots)
    /// into kernel instructions.
    pub fn compile(circuit: &Circuit) -> Program {
        let schedule = Schedule::compile(circuit, ScheduleOptions::local());
        let mut instrs = Vec::with_capacity(schedule.steps().len());
        let mut args = Vec::new();
        for step in schedule.steps() {
            let ins = schedule.inputs_of(step);
            let outs = schedule.outputs_of(step);
            let o = outs[0];
            let mut many = || {
                let first = args.len() as u32;
                args.extend_from_slice(ins);
                (first, ins.len() as u32)
            };
            let instr = match step.op {
                Op::Xor => Instr::Xor {
                    a: ins[0],
                    b: ins[1],
                    o,
                },
                Op::Inv => Instr::Inv { a: ins[0], o },
                Op::ConstBit(one) => Instr::ConstBit { one, o },
                Op::Copy if step.domain == Domain::Bit => Instr::CopyBit { a: ins[0], o },
                Op::Copy => Instr::CopyRing { a: ins[0], o },
                Op::And if ins.len() == 2 => Instr::And {
                    a: ins[0],
                    b: ins[1],
                    o,
                },
                Op::And => {
                    let (first, len) = many();
                    Instr::AndMany { first, len, o }
                }
                Op::Add if ins.len() == 2 => Instr::Add {
                    a: ins[0],
                    b: ins[1],
                    o,
                },
                Op::Add => {
                    let (first, len) = many();
                    Instr::AddMany { first, len, o }
                }
                Op::Sub => Instr::Sub {
                    a: ins[0],
                    b: ins[1],
                    o,
                },
                Op::Neg => Instr::Neg { a: ins[0], o },
                Op::Mul if ins.len() == 2 => Instr::Mul {
                    a: ins[0],
                    b: ins[1],
                    o,
                },
                Op::Mul => {
                    let (first, len) = many();
                    Instr::MulMany { first, len, o }
                }
                Op::AddConst(c) => Instr::AddConst { a: ins[0], c, o },
                Op::MulConst(c) => Instr::MulConst { a: ins[0], c, o },
                Op::ConstRing(c) => Instr::ConstRing { c, o },
                Op::BitDecompose => {
                    let first = args.len() as u32;
                    args.extend_from_slice(outs);
                    Instr::Decompose { a: ins[0], first }
                }
                Op::BitInject | Op::BitMul => {
                    let (first, len) = many();
                    let factor = step.op == Op::BitMul;
                    Instr::Inject {
                        first,
                        bits: len - u32::from(factor),
                        factor,
                        o,
                    }
                }
                Op::Dot | Op::DotTrunc(_) => {
                    let (first, len) = many();
                    let trunc = if let Op::DotTrunc(f) = step.op { f } else { 0 };
                    Instr::Dot {
                        first,
                        len: len / 2,
                        trunc,
                        o,
                    }
                }
                Op::Ltz => Instr::Ltz { a: ins[0], o },
                Op::Eqz => Instr::Eqz { a: ins[0], o },
                Op::Mand => unreachable!("the schedule lowers MAND to ANDs"),
            };
            instrs.push(instr);
        }
        let with_domains = |slots: &[Vec<u32>], domains: Vec<Domain>| {
            domains.into_iter().zip(slots.iter().cloned()).collect()
        };
        Program {
            instrs,
            args,
            bit_slots: schedule.slots(Domain::Bit),
            ring_slots: schedule.slots(Domain::Ring),
            ring: circuit.ring(),
            inputs: with_domains(
                schedule.input_slots(),
                circuit.inputs().iter().map(|v| v.domain).collect(),
            ),
            outputs: with_domains(
                schedule.output_slots(),
                circuit.outputs().iter().map(|v| v.domain).collect(),
            ),
        }
    }

    /// Number of compiled instructions (dead gates removed, MAND expanded).
    pub fn len(&self) -> usize {
        self.instrs.len()
    }

    /// Whether the program has no instructions (no live gate).
    pub fn is_empty(&self) -> bool {
        self.instrs.is_empty()
    }

    /// Slots needed at once: (bit slots, ring slots).
    pub fn slots(&self) -> (usize, usize) {
        (self.bit_slots, self.ring_slots)
    }

    /// A chunk width (words per bit slot) that keeps the arenas near 256 KiB.
    pub fn default_chunk_words(&self) -> usize {
        let bytes_per_word = 8 * (self.bit_slots + 64 * self.ring_slots).max(1);
        (256 * 1024 / bytes_per_word)
            .clamp(1, 64)
            .next_power_of_two()
            .min(64)
    }
}

/// Evaluation settings.
#[derive(Clone, Copy, Debug)]
pub struct EvalOptions {
    /// Words per bit slot (64 instances each); None picks from the program size.
    pub chunk_words: Option<usize>,
    /// Worker threads; 1 evaluates on the calling thread.
    pub threads: usize,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            chunk_words: None,
            threads: 1,
        }
    }
}

/// Why an evaluation request does not fit the circuit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The wrong number of input values.
    #[error("the circuit takes {expected} input values, {given} given")]
    InputCount {
        /// Input values the circuit takes.
        expected: usize,
        /// Input values given.
        given: usize,
    },
    /// An input value of the wrong width.
    #[error("input value {index} ({name}) is {expected} bits wide, {given} given")]
    InputWidth {
        /// The input value's index.
        index: usize,
        /// The input value's name.
        name: String,
        /// Its width in the circuit, in bits.
        expected: usize,
        /// The width given, in bits.
        given: usize,
    },
    /// Input values with different numbers of instances.
    #[error("input value {index} has {given} instances, input value 0 has {expected}")]
    InstanceCount {
        /// The input value's index.
        index: usize,
        /// Instances of input value 0.
        expected: usize,
        /// Instances of input value `index`.
        given: usize,
    },
    /// An input given as hex text that is not a valid value.
    #[error(transparent)]
    Hex(#[from] crate::hex::HexError),
}

/// Evaluates a circuit on batches of instances.
pub struct PlainEvaluator {
    program: Program,
    input_bits: Vec<usize>,
    input_names: Vec<String>,
    output_bits: Vec<usize>,
    options: EvalOptions,
}

impl PlainEvaluator {
    /// An evaluator for `circuit` with the default [`EvalOptions`].
    pub fn new(circuit: &Circuit) -> Self {
        Self::with_options(circuit, EvalOptions::default())
    }

    /// An evaluator for `circuit` with the given options.
    pub fn with_options(circuit: &Circuit, options: EvalOptions) -> Self {
        PlainEvaluator {
            program: Program::compile(circuit),
            input_bits: (0..circuit.inputs().len())
                .map(|i| circuit.input_bits(i))
                .collect(),
            input_names: circuit.inputs().iter().map(|v| v.name.clone()).collect(),
            output_bits: (0..circuit.outputs().len())
                .map(|i| circuit.output_bits(i))
                .collect(),
            options,
        }
    }

    /// The compiled program it runs.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Evaluates every instance. `inputs[i]` has one row per instance and one
    /// column per bit of input value i; the outputs come back the same way.
    pub fn evaluate(&self, inputs: &[BitMatrix]) -> Result<Vec<BitMatrix>, EvalError> {
        if inputs.len() != self.input_bits.len() {
            return Err(EvalError::InputCount {
                expected: self.input_bits.len(),
                given: inputs.len(),
            });
        }
        for (index, m) in inputs.iter().enumerate() {
            if m.cols() != self.input_bits[index] {
                return Err(EvalError::InputWidth {
                    index,
                    name: self.input_names[index].clone(),
                    expected: self.input_bits[index],
                    given: m.cols(),
                });
            }
            if m.rows() != inputs[0].rows() {
                return Err(EvalError::InstanceCount {
                    index,
                    expected: inputs[0].rows(),
                    given: m.rows(),
                });
            }
        }
        let instances = inputs.first().map_or(1, BitMatrix::rows);
        let w = self
            .options
            .chunk_words
            .unwrap_or_else(|| self.program.default_chunk_words())
            .max(1);
        let chunk = 64 * w;
        let chunks = instances.div_ceil(chunk);
        let threads = self.options.threads.clamp(1, chunks.max(1));
        let mut outputs: Vec<BitMatrix> = self
            .output_bits
            .iter()
            .map(|&b| BitMatrix::zeros(instances, b))
            .collect();
        if threads == 1 {
            self.evaluate_range(inputs, 0, instances, w, &mut outputs, 0);
            return Ok(outputs);
        }
        // Contiguous instance ranges per thread, each a whole number of chunks.
        let per_thread = chunks.div_ceil(threads) * chunk;
        let parts: Vec<Vec<BitMatrix>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let (start, end) = (
                        (t * per_thread).min(instances),
                        ((t + 1) * per_thread).min(instances),
                    );
                    scope.spawn(move || {
                        let mut part: Vec<BitMatrix> = self
                            .output_bits
                            .iter()
                            .map(|&b| BitMatrix::zeros(end - start, b))
                            .collect();
                        self.evaluate_range(inputs, start, end, w, &mut part, start);
                        part
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
        for (t, part) in parts.into_iter().enumerate() {
            let start = (t * per_thread).min(instances);
            for (out, p) in outputs.iter_mut().zip(part) {
                out.row_range_mut(start, start + p.rows())
                    .copy_from_slice(p.as_words());
            }
        }
        Ok(outputs)
    }

    /// Evaluates one instance given as hex strings; returns hex strings.
    pub fn evaluate_hex(&self, inputs: &[&str]) -> Result<Vec<String>, EvalError> {
        if inputs.len() != self.input_bits.len() {
            return Err(EvalError::InputCount {
                expected: self.input_bits.len(),
                given: inputs.len(),
            });
        }
        let mut matrices = Vec::with_capacity(inputs.len());
        for (text, &bits) in inputs.iter().zip(&self.input_bits) {
            let words = crate::hex::decode(text, bits)?;
            let mut m = BitMatrix::zeros(1, bits);
            m.row_mut(0).copy_from_slice(&words);
            matrices.push(m);
        }
        let outs = self.evaluate(&matrices)?;
        Ok(outs
            .iter()
            .zip(&self.output_bits)
            .map(|(m, &bits)| crate::hex::encode(m.row(0), bits))
            .collect())
    }

    /// Evaluates instances `start..end` of `inputs` into `outputs`, whose row 0 is instance `out_base`.
    fn evaluate_range(
        &self,
        inputs: &[BitMatrix],
        start: usize,
        end: usize,
        w: usize,
        outputs: &mut [BitMatrix],
        out_base: usize,
    ) {
        let p = &self.program;
        let mut bits = vec![0u64; p.bit_slots * w];
        let mut ring = vec![0u64; p.ring_slots * 64 * w];
        let mut base = start;
        while base < end {
            let rows = (end - base).min(64 * w);
            self.load_inputs(inputs, base, rows, w, &mut bits, &mut ring);
            run(p, w, &mut bits, &mut ring);
            self.store_outputs(outputs, base - out_base, rows, w, &bits, &ring);
            base += rows;
        }
    }

    fn load_inputs(
        &self,
        inputs: &[BitMatrix],
        base: usize,
        rows: usize,
        w: usize,
        bits: &mut [u64],
        ring: &mut [u64],
    ) {
        let p = &self.program;
        let k = p.ring.map_or(0, |r| r.bits() as usize);
        let mask = p.ring.map_or(0, RingWidth::mask);
        let mut block = [0u64; 64];
        for ((domain, slots), m) in p.inputs.iter().zip(inputs) {
            match domain {
                Domain::Bit => {
                    for b in 0..w {
                        for cb in 0..m.words_per_row() {
                            for (i, word) in block.iter_mut().enumerate() {
                                let r = 64 * b + i;
                                *word = if r < rows { m.row(base + r)[cb] } else { 0 };
                            }
                            transpose_64x64(&mut block);
                            for (j, &word) in block.iter().enumerate() {
                                if let Some(&s) = slots.get(64 * cb + j) {
                                    bits[s as usize * w + b] = word;
                                }
                            }
                        }
                    }
                }
                Domain::Ring => {
                    for (j, &s) in slots.iter().enumerate() {
                        let (word, shift) = (j * k / 64, j * k % 64);
                        let dst = &mut ring[s as usize * 64 * w..][..64 * w];
                        for (r, x) in dst.iter_mut().enumerate() {
                            *x = if r < rows {
                                (m.row(base + r)[word] >> shift) & mask
                            } else {
                                0
                            };
                        }
                    }
                }
            }
        }
    }

    fn store_outputs(
        &self,
        outputs: &mut [BitMatrix],
        row0: usize,
        rows: usize,
        w: usize,
        bits: &[u64],
        ring: &[u64],
    ) {
        let p = &self.program;
        let k = p.ring.map_or(0, |r| r.bits() as usize);
        let mask = p.ring.map_or(0, RingWidth::mask);
        let mut block = [0u64; 64];
        for ((domain, slots), m) in p.outputs.iter().zip(outputs.iter_mut()) {
            match domain {
                Domain::Bit => {
                    for b in 0..w.min(rows.div_ceil(64)) {
                        for cb in 0..m.words_per_row() {
                            for (j, word) in block.iter_mut().enumerate() {
                                *word = slots
                                    .get(64 * cb + j)
                                    .map_or(0, |&s| bits[s as usize * w + b]);
                            }
                            transpose_64x64(&mut block);
                            for (i, &word) in block
                                .iter()
                                .enumerate()
                                .take(rows.saturating_sub(64 * b).min(64))
                            {
                                m.row_mut(row0 + 64 * b + i)[cb] = word;
                            }
                        }
                    }
                }
                Domain::Ring => {
                    for (j, &s) in slots.iter().enumerate() {
                        let (word, shift) = (j * k / 64, j * k % 64);
                        let src = &ring[s as usize * 64 * w..][..rows];
                        for (r, &x) in src.iter().enumerate() {
                            m.row_mut(row0 + r)[word] |= (x & mask) << shift;
                        }
                    }
                }
            }
        }
    }
}

/// Runs the program once over the arenas, with the widest build of the
/// kernel the process runs (`huddle_core::simd::kernels_in_use`).
fn run(p: &Program, w: usize, bits: &mut [u64], ring: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    {
        use huddle_core::simd::{kernels_in_use, Kernels};
        match kernels_in_use() {
            // SAFETY: `kernels_in_use` picks only a build the CPU supports.
            Kernels::Avx512 => return unsafe { run_avx512(p, w, bits, ring) },
            // SAFETY: as above.
            Kernels::Avx2 => return unsafe { run_avx2(p, w, bits, ring) },
            Kernels::Baseline => {}
        }
    }
    run_kernel(p, w, bits, ring)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn run_avx512(p: &Program, w: usize, bits: &mut [u64], ring: &mut [u64]) {
    run_kernel(p, w, bits, ring)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn run_avx2(p: &Program, w: usize, bits: &mut [u64], ring: &mut [u64]) {
    run_kernel(p, w, bits, ring)
}

/// Ring values are kept modulo 2^64 inside the run and reduced on output.
#[inline(always)]
fn run_kernel(p: &Program, w: usize, bits: &mut [u64], ring: &mut [u64]) {
    let rw = 64 * w;
    for instr in &p.instrs {
        match *instr {
            Instr::Xor { a, b, o } => binary(bits, w, 0..w, a, b, o, |x, y| x ^ y),
            Instr::And { a, b, o } => binary(bits, w, 0..w, a, b, o, |x, y| x & y),
            Instr::Inv { a, o } => unary(bits, w, 0..w, a, o, |x| !x),
            Instr::CopyBit { a, o } => unary(bits, w, 0..w, a, o, |x| x),
            Instr::ConstBit { one, o } => fill(bits, w, 0..w, o, if one { u64::MAX } else { 0 }),
            Instr::AndMany { first, len, o } => fold(
                bits,
                w,
                0..w,
                &p.args[first as usize..][..len as usize],
                o,
                |x, y| x & y,
            ),
            Instr::Add { a, b, o } => binary(ring, rw, 0..rw, a, b, o, u64::wrapping_add),
            Instr::Sub { a, b, o } => binary(ring, rw, 0..rw, a, b, o, u64::wrapping_sub),
            Instr::Mul { a, b, o } => binary(ring, rw, 0..rw, a, b, o, u64::wrapping_mul),
            Instr::Neg { a, o } => unary(ring, rw, 0..rw, a, o, u64::wrapping_neg),
            Instr::CopyRing { a, o } => unary(ring, rw, 0..rw, a, o, |x| x),
            Instr::AddConst { a, c, o } => unary(ring, rw, 0..rw, a, o, |x| x.wrapping_add(c)),
            Instr::MulConst { a, c, o } => unary(ring, rw, 0..rw, a, o, |x| x.wrapping_mul(c)),
            Instr::ConstRing { c, o } => fill(ring, rw, 0..rw, o, c),
            Instr::AddMany { first, len, o } => fold(
                ring,
                rw,
                0..rw,
                &p.args[first as usize..][..len as usize],
                o,
                u64::wrapping_add,
            ),
            Instr::MulMany { first, len, o } => fold(
                ring,
                rw,
                0..rw,
                &p.args[first as usize..][..len as usize],
                o,
                u64::wrapping_mul,
            ),
            Instr::Decompose { a, first } => {
                let k = p.ring.map_or(0, |r| r.bits() as usize);
                let outs = &p.args[first as usize..][..k];
                let mut block = [0u64; 64];
                for b in 0..w {
                    block.copy_from_slice(&ring[a as usize * rw + 64 * b..][..64]);
                    transpose_64x64(&mut block);
                    for (j, &s) in outs.iter().enumerate() {
                        bits[s as usize * w + b] = block[j];
                    }
                }
            }
            Instr::Dot {
                first,
                len,
                trunc,
                o,
            } => {
                let operands = &p.args[first as usize..][..2 * len as usize];
                let (a, b) = operands.split_at(len as usize);
                let (before, out, after) = split_out(ring, rw, o);
                out.fill(0);
                for (&x, &y) in a.iter().zip(b) {
                    let (x, y) = (src(before, after, rw, o, x), src(before, after, rw, o, y));
                    for ((z, x), y) in out.iter_mut().zip(x).zip(y) {
                        *z = z.wrapping_add(x.wrapping_mul(*y));
                    }
                }
                if let (1.., Some(r)) = (trunc, p.ring) {
                    for z in out.iter_mut() {
                        *z = r.truncate(*z, u32::from(trunc));
                    }
                }
            }
            Instr::Ltz { a, o } => {
                let top = p.ring.map_or(0, |r| r.bits() - 1);
                let src = &ring[a as usize * rw..][..rw];
                for (b, chunk) in src.chunks_exact(64).enumerate() {
                    bits[o as usize * w + b] = chunk
                        .iter()
                        .enumerate()
                        .fold(0, |word, (i, x)| word | ((x >> top) & 1) << i);
                }
            }
            Instr::Eqz { a, o } => {
                let mask = p.ring.map_or(u64::MAX, |r| r.mask());
                let src = &ring[a as usize * rw..][..rw];
                for (b, chunk) in src.chunks_exact(64).enumerate() {
                    bits[o as usize * w + b] = chunk
                        .iter()
                        .enumerate()
                        .fold(0, |word, (i, x)| word | u64::from(x & mask == 0) << i);
                }
            }
            Instr::Inject {
                first,
                bits: m,
                factor,
                o,
            } => {
                let args = &p.args[first as usize..][..m as usize + usize::from(factor)];
                let (sources, x) = args.split_at(m as usize);
                for b in 0..w {
                    let all = sources
                        .iter()
                        .fold(u64::MAX, |acc, &s| acc & bits[s as usize * w + b]);
                    for i in 0..64 {
                        let value = match x.first() {
                            Some(&x) => ring[x as usize * rw + 64 * b + i],
                            None => 1,
                        };
                        ring[o as usize * rw + 64 * b + i] = value * ((all >> i) & 1);
                    }
                }
            }
        }
    }
}
