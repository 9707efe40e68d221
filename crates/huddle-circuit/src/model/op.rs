//! What wires carry and what gates do: [`Domain`], [`Op`] (with its name in
//! circuit files and whether protocols must interact for it) and the limits
//! on a gate's size. Everything else in the model is built on these.

use std::fmt;

/// Largest fan-in of an AND, ADD or MUL gate.
pub const MAX_FAN_IN: usize = 16;

/// Longest vector of a DOT or DOTTR gate.
pub const MAX_DOT_LEN: usize = 1 << 16;

/// Most bits one B2A or BX2A gate multiplies: with BX2A's ring factor a
/// product of up to 2·3 + 1 share terms, one round at fan-in 7.
pub const MAX_INJECT_BITS: usize = 3;

/// What a wire carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Domain {
    /// One bit.
    Bit,
    /// One element of the circuit's ring.
    Ring,
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Domain::Bit => "Boolean",
            Domain::Ring => "arithmetic",
        })
    }
}

/// A gate's operation. Wire operands live in the operand pool; literal
/// constants live here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    // Boolean domain.
    /// out = a XOR b.
    Xor,
    /// out = NOT a.
    Inv,
    /// out = the constant bit (Bristol `EQ`).
    ConstBit(bool),
    /// out = a (Bristol `EQW`); also copies ring wires.
    Copy,
    /// out = AND of all 2..=16 inputs, evaluated as one gate (one round in
    /// protocols with native multi-fan-in AND).
    And,
    /// Bristol `MAND`: k independent 2-input ANDs o_i = a_i AND b_i, inputs
    /// a_1..a_k b_1..b_k, outputs o_1..o_k. Distinct from a k-input AND.
    Mand,
    // Arithmetic domain (over the circuit's ring).
    /// out = sum of 2..=16 inputs.
    Add,
    /// out = a - b.
    Sub,
    /// out = -a.
    Neg,
    /// out = product of 2..=16 inputs.
    Mul,
    /// out = a + c.
    AddConst(u64),
    /// out = a * c.
    MulConst(u64),
    /// out = c.
    ConstRing(u64),
    // Conversions.
    /// Bit decomposition (A2B): one ring wire to k bit wires, least significant first.
    BitDecompose,
    /// Bit injection (B2A): bit wires b_1..b_m (1 ≤ m ≤
    /// [`MAX_INJECT_BITS`]) to the ring element b_1·..·b_m (0 or 1); with
    /// m = 2 it is Ohata–Nuida's BC2A.
    BitInject,
    /// Bits times a ring element (Ohata–Nuida's BX2A, BCX2A): inputs
    /// b_1..b_m (bits, 1 ≤ m ≤ [`MAX_INJECT_BITS`]) and a ring wire x,
    /// out = b_1·..·b_m·x. A conversion like B2A, so that protocols with
    /// wide multiplications select a value in one round.
    BitMul,
    // Fixed point and comparison.
    /// out = a_1·b_1 + .. + a_l·b_l, inputs a_1..a_l b_1..b_l (l = 1..=
    /// [`MAX_DOT_LEN`]): one gate, so that protocols which can pay for a dot
    /// product what they pay for one multiplication do.
    Dot,
    /// Fixed point with f fractional bits: out = (a_1·b_1 + .. + a_l·b_l)
    /// truncated by the literal f (1 ≤ f < k): the sum read as a signed
    /// k-bit number, ⌊sum / 2^f⌋ (see `RingWidth::truncate`). l = 1 is a
    /// fixed-point multiplication. Protocols truncate probabilistically and
    /// may return ⌊sum / 2^f⌋ + 1 instead (docs/circuit-format.md).
    DotTrunc(u8),
    /// Less than zero: the bit wire out = 1 iff a < 0 as a signed k-bit
    /// number (the top bit of a).
    Ltz,
    /// Equal to zero: the bit wire out = 1 iff a = 0.
    Eqz,
}

impl Op {
    /// The name used in circuit files.
    pub fn name(self) -> &'static str {
        match self {
            Op::Xor => "XOR",
            Op::Inv => "INV",
            Op::ConstBit(_) => "EQ",
            Op::Copy => "EQW",
            Op::And => "AND",
            Op::Mand => "MAND",
            Op::Add => "ADD",
            Op::Sub => "SUB",
            Op::Neg => "NEG",
            Op::Mul => "MUL",
            Op::AddConst(_) => "ADDC",
            Op::MulConst(_) => "MULC",
            Op::ConstRing(_) => "CONST",
            Op::BitDecompose => "A2B",
            Op::BitInject => "B2A",
            Op::Dot => "DOT",
            Op::DotTrunc(_) => "DOTTR",
            Op::Ltz => "LTZ",
            Op::Eqz => "EQZ",
            Op::BitMul => "BX2A",
        }
    }

    /// Whether secret-sharing protocols need interaction for this gate; these
    /// gates define the multiplicative depth. Conversions count as one layer.
    pub fn is_interactive(self) -> bool {
        matches!(
            self,
            Op::And
                | Op::Mand
                | Op::Mul
                | Op::BitDecompose
                | Op::BitInject
                | Op::Dot
                | Op::DotTrunc(_)
                | Op::Ltz
                | Op::Eqz
                | Op::BitMul
        )
    }
}
