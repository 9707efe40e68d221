//! AES under a key in counter mode, block (call ‖ index): the randomness
//! both realizations draw, PRSS from every key its party holds and the
//! trusted dealer from its own. A call number per functionality call keeps
//! every call's values apart.

use aes::cipher::BlockEncrypt;

pub(super) fn counter_block(call: u64, index: u64) -> aes::Block {
    aes::Block::from(((call as u128) << 64 | index as u128).to_le_bytes())
}

pub(super) fn block_value(b: &aes::Block) -> u128 {
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(b);
    u128::from_le_bytes(bytes)
}

/// `count` pseudo-random values AES_k(call ‖ i), i = 0..count.
pub(super) fn stream(cipher: &aes::Aes128, call: u64, count: usize, out: &mut Vec<u128>) {
    let mut blocks: Vec<aes::Block> = (0..count as u64).map(|i| counter_block(call, i)).collect();
    cipher.encrypt_blocks(&mut blocks);
    out.clear();
    out.extend(blocks.iter().map(block_value));
}
