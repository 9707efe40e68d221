//! AES itself on top of the S-box circuit: bytes of wires, the key
//! expansion, the rounds (SubBytes through the S-box, ShiftRows as wiring,
//! MixColumns in XORs, AddRoundKey) and the public generator [`aes`].

use super::depth::SboxDepth;
use super::field::gf256_mul;
use super::sbox::sbox;
use crate::builder::Builder;
use crate::model::{Circuit, WireId};

type Byte = [WireId; 8];

/// The bytes of a value whose hex has byte 0 leftmost: byte i's bits sit
/// on wires (n - 1 - i) * 8 .. + 8, least significant first.
fn bytes_of(wires: &[WireId]) -> Vec<Byte> {
    let n = wires.len() / 8;
    (0..n)
        .map(|i| std::array::from_fn(|j| wires[(n - 1 - i) * 8 + j]))
        .collect()
}

fn wires_of(bytes: &[Byte]) -> Vec<WireId> {
    bytes
        .iter()
        .rev()
        .flat_map(|byte| byte.iter().copied())
        .collect()
}

fn xor_bytes(b: &mut Builder, x: &Byte, y: &Byte) -> Byte {
    std::array::from_fn(|j| b.xor(x[j], y[j]))
}

fn xor_constant(b: &mut Builder, x: &Byte, c: u8) -> Byte {
    std::array::from_fn(|j| if c >> j & 1 == 1 { b.not(x[j]) } else { x[j] })
}

fn sub_byte(b: &mut Builder, s: &Circuit, x: &Byte) -> Byte {
    let out = b.call(s, &[x]);
    std::array::from_fn(|j| out[0][j])
}

/// Multiplication by x in GF(2^8): 3 XORs.
fn xtime(b: &mut Builder, a: &Byte) -> Byte {
    let mut r = [a[7]; 8];
    r[1..8].copy_from_slice(&a[0..7]);
    for j in [1, 3, 4] {
        r[j] = b.xor(a[j - 1], a[7]);
    }
    r
}

/// The round keys (Nr + 1 of 16 bytes) of a `key` of 16, 24 or 32 bytes.
fn expand_key(b: &mut Builder, s: &Circuit, key: &[Byte]) -> Vec<Vec<Byte>> {
    let nk = key.len() / 4;
    let rounds = nk + 6;
    let mut words: Vec<[Byte; 4]> = key.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
    let mut rcon = 1u8;
    for i in nk..4 * (rounds + 1) {
        let mut temp = words[i - 1];
        if i % nk == 0 {
            temp = [temp[1], temp[2], temp[3], temp[0]];
            temp = temp.map(|byte| sub_byte(b, s, &byte));
            temp[0] = xor_constant(b, &temp[0], rcon);
            rcon = gf256_mul(rcon, 2);
        } else if nk > 6 && i % nk == 4 {
            temp = temp.map(|byte| sub_byte(b, s, &byte));
        }
        let prev = words[i - nk];
        words.push(std::array::from_fn(|r| xor_bytes(b, &prev[r], &temp[r])));
    }
    words
        .chunks(4)
        .map(|w| w.iter().flat_map(|word| word.iter().copied()).collect())
        .collect()
}

/// AES encryption of one block. `key_bits` is 128, 192 or 256. Inputs:
/// the key (or, with `expanded`, the (Nr + 1) · 128-bit round keys, round 0
/// first), then the plaintext; output the ciphertext; all byte 0 leftmost
/// in hex, as in `shared/circuits/aes_128.txt`.
pub fn aes(key_bits: u32, expanded: bool, depth: SboxDepth) -> Result<Circuit, String> {
    if ![128, 192, 256].contains(&key_bits) {
        return Err(format!("AES keys are 128, 192 or 256 bits, not {key_bits}"));
    }
    let rounds = key_bits as usize / 32 + 6;
    let s = sbox(depth);
    let mut b = Builder::boolean(depth.fan_in());
    let key_input = if expanded {
        b.input("round_keys", 128 * (rounds as u32 + 1))
    } else {
        b.input("key", key_bits)
    };
    let state = bytes_of(&b.input("plaintext", 128));
    let round_keys: Vec<Vec<Byte>> = if expanded {
        bytes_of(&key_input)
            .chunks(16)
            .map(<[Byte]>::to_vec)
            .collect()
    } else {
        expand_key(&mut b, s, &bytes_of(&key_input))
    };
    Ok(encrypt(b, s, state, &round_keys))
}

fn encrypt(mut b: Builder, s: &Circuit, mut state: Vec<Byte>, keys: &[Vec<Byte>]) -> Circuit {
    let rounds = keys.len() - 1;
    for (i, byte) in state.iter_mut().enumerate() {
        *byte = xor_bytes(&mut b, byte, &keys[0][i]);
    }
    for (round, key) in keys.iter().enumerate().skip(1) {
        let sub: Vec<Byte> = state.iter().map(|x| sub_byte(&mut b, s, x)).collect();
        // ShiftRows: byte (row r, column c) = 4c + r takes column c + r.
        let mut shifted: Vec<Byte> = (0..16)
            .map(|i| sub[(i % 4) + 4 * ((i / 4 + i % 4) % 4)])
            .collect();
        if round < rounds {
            for column in shifted.chunks_mut(4) {
                // b_i = 2 a_i + 3 a_{i+1} + a_{i+2} + a_{i+3}
                //     = xtime(u_i) + u_{i+1} + a_{i+3}, u_i = a_i + a_{i+1}:
                // 108 XORs a column (the textbook a_i + t + xtime(u_i),
                // t the sum of all four, takes 116).
                let a: [Byte; 4] = [column[0], column[1], column[2], column[3]];
                let u: [Byte; 4] =
                    std::array::from_fn(|i| xor_bytes(&mut b, &a[i], &a[(i + 1) % 4]));
                for i in 0..4 {
                    let doubled = xtime(&mut b, &u[i]);
                    let rest = xor_bytes(&mut b, &u[(i + 1) % 4], &a[(i + 3) % 4]);
                    column[i] = xor_bytes(&mut b, &doubled, &rest);
                }
            }
        }
        state = shifted
            .iter()
            .enumerate()
            .map(|(i, x)| xor_bytes(&mut b, x, &key[i]))
            .collect();
    }
    b.output("ciphertext", wires_of(&state));
    b.finish()
}
