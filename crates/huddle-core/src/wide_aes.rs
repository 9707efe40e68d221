//! AES-128 on many blocks at once, for the AES-CTR generator (`Prg`) and
//! the fixed-key permutation of multiparty garbling's PRF (π(K) ⊕ K). The
//! `aes` crate encrypts eight blocks at a time with AES-NI; where the CPU
//! has VAES, this encrypts sixteen at a time, four per 512-bit register
//! with AVX-512 or two per 256-bit register with AVX2 (runtime detection),
//! counters made in registers, and the `aes` crate does the rest. Tests check the
//! two paths against each other and FIPS-197's known answer.

use aes::cipher::{BlockEncrypt, KeyInit};
use aes::Block;

/// AES-128 under one key, for many blocks per call: sixteen blocks at a time
/// with VAES where the CPU has it, the `aes` crate's AES-NI (or software)
/// otherwise. Both paths give the same bytes.
#[derive(Clone)]
pub struct WideAes {
    cipher: aes::Aes128,
    /// The expanded key and the register width, for the VAES path (None
    /// without VAES).
    #[cfg(target_arch = "x86_64")]
    round_keys: Option<([u128; 11], wide::Width)>,
}

impl WideAes {
    /// The cipher under `key` (an AES-128 key), with the VAES path's round
    /// keys expanded where this CPU takes it.
    pub fn new(key: [u8; 16]) -> WideAes {
        WideAes {
            cipher: aes::Aes128::new(&key.into()),
            #[cfg(target_arch = "x86_64")]
            round_keys: wide::available().map(|width| {
                // SAFETY: `available` checked AES-NI (and VAES).
                (unsafe { wide::expand(u128::from_le_bytes(key)) }, width)
            }),
        }
    }

    /// Encrypts `data` in place, block after block (a multiple of 16 bytes):
    /// the plain cipher, for the known-answer test.
    #[cfg(test)]
    fn encrypt_bytes(&self, data: &mut [u8]) {
        self.blocks(data, false);
    }

    /// Counter mode: block i of `out` (a multiple of 16 bytes) becomes
    /// AES(first + i), the counter a little-endian 128-bit integer. With
    /// VAES the counters are made in registers, not written out first.
    ///
    /// # Panics
    /// If `out` is not a whole number of 16-byte blocks.
    pub fn counter_blocks(&self, first: u128, out: &mut [u8]) {
        assert!(out.len().is_multiple_of(16), "whole 16-byte blocks");
        let blocks = out.len() / 16;
        let mut done = 0;
        #[cfg(target_arch = "x86_64")]
        if let Some((keys, width)) = &self.round_keys {
            // Within one run of the low 64 bits (the 128-bit carry is left
            // to the narrow path, which a stream meets once in 2^64 blocks).
            if (first as u64).checked_add(blocks as u64).is_some() {
                done = blocks / wide::BLOCKS * wide::BLOCKS;
                // SAFETY: the round keys exist only where `available` held.
                unsafe { wide::counter_blocks(*width, keys, first, &mut out[..16 * done]) };
            }
        }
        let mut counter = first.wrapping_add(done as u128);
        for block in out[16 * done..].chunks_exact_mut(16) {
            block.copy_from_slice(&counter.to_le_bytes());
            counter = counter.wrapping_add(1);
        }
        self.blocks_narrow(&mut out[16 * done..], false);
    }

    /// Replaces every value K (a little-endian block) by π(K) ⊕ K, π being
    /// AES-128 under this key (multiparty garbling's fixed-key PRF).
    pub fn permute_xor(&self, values: &mut [u128]) {
        // SAFETY: a u128 slice is 16 initialized bytes per element, any byte
        // pattern is a u128, and the view ends with this call.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), values.len() * 16)
        };
        self.blocks(bytes, true);
    }

    /// Encrypts each 16-byte block of `data`, XORing its input in when
    /// `feed_forward`: VAES for whole groups of sixteen, the rest narrow.
    fn blocks(&self, data: &mut [u8], feed_forward: bool) {
        assert!(data.len().is_multiple_of(16), "whole 16-byte blocks");
        let mut done = 0;
        #[cfg(target_arch = "x86_64")]
        if let Some((keys, width)) = &self.round_keys {
            done = data.len() / (16 * wide::BLOCKS) * (16 * wide::BLOCKS);
            // SAFETY: the round keys exist only where `available` held.
            unsafe { wide::encrypt(*width, keys, &mut data[..done], feed_forward) };
        }
        self.blocks_narrow(&mut data[done..], feed_forward);
    }

    /// [`blocks`](Self::blocks) through the `aes` crate.
    fn blocks_narrow(&self, data: &mut [u8], feed_forward: bool) {
        const BATCH: usize = 32;
        for chunk in data.chunks_mut(16 * BATCH) {
            let mut input = [0u8; 16 * BATCH];
            if feed_forward {
                input[..chunk.len()].copy_from_slice(chunk);
            }
            // SAFETY: a `Block` is a transparent `[u8; 16]` (alignment 1)
            // and `chunk` is whole blocks, exclusively borrowed here.
            let blocks = unsafe {
                std::slice::from_raw_parts_mut(chunk.as_mut_ptr().cast::<Block>(), chunk.len() / 16)
            };
            self.cipher.encrypt_blocks(blocks);
            if feed_forward {
                for (c, i) in chunk.iter_mut().zip(&input) {
                    *c ^= i;
                }
            }
        }
    }

    /// One block through the `aes` crate.
    pub fn encrypt_block(&self, block: &mut Block) {
        self.cipher.encrypt_block(block);
    }

    /// Whether this CPU takes the VAES path.
    pub fn is_wide(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.round_keys.is_some();
        #[cfg(not(target_arch = "x86_64"))]
        false
    }
}

#[cfg(target_arch = "x86_64")]
mod wide {
    use std::arch::x86_64::*;
    use std::sync::OnceLock;

    /// Blocks per loop iteration: enough independent rounds in flight to
    /// hide AESENC's latency (four 512-bit or eight 256-bit registers).
    pub(crate) const BLOCKS: usize = 16;

    pub(crate) use crate::simd::Width;

    /// Whether this CPU can run the kernels of `width`.
    pub(crate) fn supports(width: Width) -> bool {
        is_x86_feature_detected!("aes")
            && is_x86_feature_detected!("sse2")
            && is_x86_feature_detected!("vaes")
            && width.has_vectors()
    }

    /// The widest registers [`supports`] allows, if any.
    pub(crate) fn available() -> Option<Width> {
        static HAS: OnceLock<Option<Width>> = OnceLock::new();
        *HAS.get_or_init(|| Width::widest(supports))
    }

    /// One step of the AES-128 key schedule: the previous round key and
    /// AESKEYGENASSIST's output for this round's constant.
    #[target_feature(enable = "aes,sse2")]
    fn next_key(key: __m128i, assist: __m128i) -> __m128i {
        let t = _mm_shuffle_epi32::<0xff>(assist);
        let mut k = key;
        k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
        k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
        k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
        _mm_xor_si128(k, t)
    }

    /// The eleven round keys of AES-128 (FIPS-197 Section 5.2).
    ///
    /// # Safety
    /// The CPU must support AES-NI and SSE2.
    #[target_feature(enable = "aes,sse2")]
    pub(crate) unsafe fn expand(key: u128) -> [u128; 11] {
        // SAFETY: u128 and __m128i have the same size.
        let mut k: __m128i = unsafe { std::mem::transmute(key) };
        let mut out = [0u128; 11];
        out[0] = key;
        macro_rules! round {
            ($i:expr, $rcon:expr) => {
                k = next_key(k, _mm_aeskeygenassist_si128::<$rcon>(k));
                // SAFETY: as above.
                out[$i] = unsafe { std::mem::transmute::<__m128i, u128>(k) };
            };
        }
        round!(1, 0x01);
        round!(2, 0x02);
        round!(3, 0x04);
        round!(4, 0x08);
        round!(5, 0x10);
        round!(6, 0x20);
        round!(7, 0x40);
        round!(8, 0x80);
        round!(9, 0x1b);
        round!(10, 0x36);
        out
    }

    /// The kernels for one register width: `$lanes` blocks per register of
    /// type `$reg`, with that width's intrinsics; everything else (counters,
    /// round keys, loops) is the same code for both widths.
    macro_rules! kernels {
        ($width:ident, $features:literal, $reg:ty, $lanes:literal,
         load: $load:ident, store: $store:ident, xor: $xor:ident, add64: $add:ident,
         enc: $enc:ident, last: $last:ident) => {
            pub(crate) mod $width {
                use super::BLOCKS;
                use std::arch::x86_64::*;

                const REGS: usize = BLOCKS / $lanes;

                /// `$lanes` 128-bit values, low lane first, as one register.
                #[target_feature(enable = $features)]
                fn lanes(values: [u128; $lanes]) -> $reg {
                    // SAFETY: the array is exactly one register's bytes.
                    unsafe { $load(values.as_ptr().cast()) }
                }

                /// AES-128 of the blocks in `REGS` registers: the rounds of
                /// each register interleaved, so AESENC's latency is hidden.
                #[target_feature(enable = $features)]
                #[inline]
                fn encrypt_regs(blocks: [$reg; REGS], rk: &[$reg; 11]) -> [$reg; REGS] {
                    let mut s = blocks.map(|b| $xor(b, rk[0]));
                    for key in &rk[1..10] {
                        for x in s.iter_mut() {
                            *x = $enc(*x, *key);
                        }
                    }
                    s.map(|x| $last(x, rk[10]))
                }

                /// [`super::super::WideAes::counter_blocks`] for whole groups
                /// of [`BLOCKS`] blocks whose counters' low 64 bits do not wrap.
                ///
                /// # Safety
                /// The CPU must support `$features`.
                #[target_feature(enable = $features)]
                pub(crate) unsafe fn counter_blocks(
                    keys: &[u128; 11],
                    first: u128,
                    out: &mut [u8],
                ) {
                    debug_assert!(out.len().is_multiple_of(16 * BLOCKS));
                    let rk = keys.map(|k| lanes([k; $lanes]));
                    // Adding to the low 64-bit halves never carries (the
                    // caller's condition).
                    let mut next = lanes(std::array::from_fn(|k| first + k as u128));
                    let step = lanes([$lanes; $lanes]);
                    for chunk in out.chunks_exact_mut(16 * BLOCKS) {
                        let at: *mut $reg = chunk.as_mut_ptr().cast();
                        let counters: [$reg; REGS] = std::array::from_fn(|_| {
                            let c = next;
                            next = $add(next, step);
                            c
                        });
                        for (r, c) in encrypt_regs(counters, &rk).iter().enumerate() {
                            // SAFETY: the chunk is REGS registers long;
                            // unaligned stores.
                            unsafe { $store(at.add(r).cast(), *c) };
                        }
                    }
                }

                /// Encrypts whole groups of [`BLOCKS`] blocks of `data` in
                /// place, XORing each block's input in when `feed_forward`.
                ///
                /// # Safety
                /// The CPU must support `$features`.
                #[target_feature(enable = $features)]
                pub(crate) unsafe fn encrypt(
                    keys: &[u128; 11],
                    data: &mut [u8],
                    feed_forward: bool,
                ) {
                    debug_assert!(data.len().is_multiple_of(16 * BLOCKS));
                    let rk = keys.map(|k| lanes([k; $lanes]));
                    for chunk in data.chunks_exact_mut(16 * BLOCKS) {
                        let at: *mut $reg = chunk.as_mut_ptr().cast();
                        // SAFETY: the chunk is REGS registers long; unaligned
                        // loads and stores.
                        unsafe {
                            let input: [$reg; REGS] =
                                std::array::from_fn(|r| $load(at.add(r).cast()));
                            for (r, mut c) in encrypt_regs(input, &rk).into_iter().enumerate() {
                                if feed_forward {
                                    c = $xor(c, input[r]);
                                }
                                $store(at.add(r).cast(), c);
                            }
                        }
                    }
                }
            }
        };
    }

    kernels!(zmm, "aes,sse2,vaes,avx512f,avx512bw", __m512i, 4,
        load: _mm512_loadu_si512, store: _mm512_storeu_si512, xor: _mm512_xor_si512,
        add64: _mm512_add_epi64, enc: _mm512_aesenc_epi128, last: _mm512_aesenclast_epi128);
    kernels!(ymm, "aes,sse2,vaes,avx2", __m256i, 2,
        load: _mm256_loadu_si256, store: _mm256_storeu_si256, xor: _mm256_xor_si256,
        add64: _mm256_add_epi64, enc: _mm256_aesenc_epi128, last: _mm256_aesenclast_epi128);

    /// [`super::WideAes::counter_blocks`] for whole groups of [`BLOCKS`]
    /// blocks whose counters' low 64 bits do not wrap.
    ///
    /// # Safety
    /// The CPU must have `width` (`available`).
    pub(crate) unsafe fn counter_blocks(
        width: Width,
        keys: &[u128; 11],
        first: u128,
        out: &mut [u8],
    ) {
        // SAFETY: the caller's guarantee.
        unsafe {
            match width {
                Width::Zmm => zmm::counter_blocks(keys, first, out),
                Width::Ymm => ymm::counter_blocks(keys, first, out),
            }
        }
    }

    /// Encrypts whole groups of [`BLOCKS`] blocks of `data` in place.
    ///
    /// # Safety
    /// The CPU must have `width` (`available`).
    pub(crate) unsafe fn encrypt(
        width: Width,
        keys: &[u128; 11],
        data: &mut [u8],
        feed_forward: bool,
    ) {
        // SAFETY: the caller's guarantee.
        unsafe {
            match width {
                Width::Zmm => zmm::encrypt(keys, data, feed_forward),
                Width::Ymm => ymm::encrypt(keys, data, feed_forward),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// FIPS-197 Appendix C.1: AES-128 of 00112233..ff under 00010203..0f.
    #[test]
    fn known_answer_through_both_paths() {
        let key: [u8; 16] = std::array::from_fn(|i| i as u8);
        let plain: [u8; 16] = std::array::from_fn(|i| (i as u8) * 0x11);
        let cipher = [
            0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4,
            0xc5, 0x5a,
        ];
        let want = u128::from_le_bytes(cipher) ^ u128::from_le_bytes(plain);
        let aes = WideAes::new(key);
        // Sixteen copies reach the wide path where there is one.
        let mut values = vec![u128::from_le_bytes(plain); 16];
        aes.permute_xor(&mut values);
        assert!(values.iter().all(|&v| v == want), "wide: {}", aes.is_wide());
        let mut one = [u128::from_le_bytes(plain)];
        aes.permute_xor(&mut one);
        assert_eq!(one[0], want);
        let mut bytes = plain.repeat(17);
        aes.encrypt_bytes(&mut bytes);
        assert!(
            bytes.chunks_exact(16).all(|b| b == cipher),
            "wide: {}",
            aes.is_wide()
        );
    }

    /// Every register width this CPU has, not only the one `WideAes` picks
    /// (a machine with AVX-512 tests the 256-bit kernels too).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_vaes_width_agrees_with_the_aes_crate() {
        use wide::{supports, Width, BLOCKS};
        let key: [u8; 16] = std::array::from_fn(|i| (i as u8).wrapping_mul(37));
        let aes = WideAes::new(key);
        let widths: Vec<Width> = Width::ALL.into_iter().filter(|&w| supports(w)).collect();
        if widths.is_empty() {
            eprintln!("skipped: this CPU has no VAES");
            return;
        }
        // SAFETY: `expand` needs AES-NI and SSE2, part of `supports`.
        let keys = unsafe { wide::expand(u128::from_le_bytes(key)) };
        let first = (7u128 << 64) | (u64::MAX as u128 - 3 * BLOCKS as u128);
        let data: Vec<u8> = (0..16 * BLOCKS * 3).map(|i| (i * 7 + 1) as u8).collect();
        for width in widths {
            let mut counters = vec![0u8; 16 * BLOCKS * 3];
            // SAFETY: `supports(width)` holds.
            unsafe { wide::counter_blocks(width, &keys, first, &mut counters) };
            let mut narrow = vec![0u8; counters.len()];
            for (i, b) in narrow.chunks_exact_mut(16).enumerate() {
                b.copy_from_slice(&(first + i as u128).to_le_bytes());
            }
            aes.blocks_narrow(&mut narrow, false);
            assert_eq!(counters, narrow, "{width:?} counters");
            for feed_forward in [false, true] {
                let mut fast = data.clone();
                // SAFETY: as above.
                unsafe { wide::encrypt(width, &keys, &mut fast, feed_forward) };
                let mut slow = data.clone();
                aes.blocks_narrow(&mut slow, feed_forward);
                assert_eq!(fast, slow, "{width:?} feed_forward {feed_forward}");
            }
        }
    }

    proptest! {
        #[test]
        fn counter_blocks_are_the_encrypted_counters(
            first in prop_oneof![any::<u128>(), (u64::MAX - 40..=u64::MAX).prop_map(u128::from)],
            blocks in 0usize..70,
            key: [u8; 16],
        ) {
            let aes = WideAes::new(key);
            let mut got = vec![0u8; 16 * blocks];
            aes.counter_blocks(first, &mut got);
            for (i, b) in got.chunks_exact(16).enumerate() {
                let mut want = Block::from(first.wrapping_add(i as u128).to_le_bytes());
                aes.encrypt_block(&mut want);
                prop_assert_eq!(b, &want[..], "block {}", i);
            }
        }

        #[test]
        fn both_paths_agree(
            blocks in proptest::collection::vec(any::<[u8; 16]>(), 0..70),
            key: [u8; 16],
            feed_forward: bool,
        ) {
            let aes = WideAes::new(key);
            let mut fast = blocks.concat();
            aes.blocks(&mut fast, feed_forward);
            let mut narrow = blocks.concat();
            aes.blocks_narrow(&mut narrow, feed_forward);
            prop_assert_eq!(&fast, &narrow);
            // And block by block through the aes crate's one-block call.
            for (b, got) in blocks.iter().zip(fast.chunks_exact(16)) {
                let mut one = Block::from(*b);
                aes.encrypt_block(&mut one);
                let want: Vec<u8> = if feed_forward {
                    one.iter().zip(b).map(|(x, y)| x ^ y).collect()
                } else {
                    one.to_vec()
                };
                prop_assert_eq!(got, &want[..]);
            }
        }
    }
}
