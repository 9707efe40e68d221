//! GF(2^128) = GF(2)\[x\]/(x^128 + x^7 + x^2 + x + 1), elements as `u128`
//! with bit i the coefficient of x^i. Addition is XOR. Multiplication uses
//! PCLMULQDQ when the CPU has it (detected at run time) and a portable
//! shift-and-add loop otherwise; tests check the two against each other.
//! Multiparty garbling uses this field for Shamir sharing of 128-bit
//! offsets and permutation bits.

use std::ops::{Add, AddAssign, Mul, MulAssign};

/// Transparent, so that slices of elements load straight into vector
/// registers (see `hardware::scale`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Gf128(pub u128);

impl Gf128 {
    pub const ZERO: Gf128 = Gf128(0);
    pub const ONE: Gf128 = Gf128(1);

    /// The field element for a small integer (its bits as a polynomial).
    pub fn from_u64(v: u64) -> Gf128 {
        Gf128(u128::from(v))
    }

    pub fn from_bytes(b: [u8; 16]) -> Gf128 {
        Gf128(u128::from_le_bytes(b))
    }

    pub fn to_bytes(self) -> [u8; 16] {
        self.0.to_le_bytes()
    }

    /// Multiplication without the hardware path (the reference).
    pub fn mul_portable(self, other: Gf128) -> Gf128 {
        let (lo, hi) = clmul_portable(self.0, other.0);
        Gf128(reduce(lo, hi))
    }

    /// 2·a (multiplication by x): a shift and a conditional fold, for the
    /// garbling PRF's 2·k1 ⊕ 4·k2, which runs on every garbled row.
    #[inline]
    pub fn double(self) -> Gf128 {
        let carry = self.0 >> 127;
        Gf128((self.0 << 1) ^ (carry * 0x87))
    }

    /// `out[i] = k · xs[i]`, for whole slices under one feature check (the
    /// carry-less multiply is inlined into the loop).
    pub fn scale(out: &mut [Gf128], xs: &[Gf128], k: Gf128) {
        assert_eq!(out.len(), xs.len(), "Gf128::scale: slice lengths differ");
        #[cfg(target_arch = "x86_64")]
        if hardware::available() {
            // SAFETY: `available` checked the CPU features.
            unsafe { hardware::scale(out, xs, k, false) };
            return;
        }
        for (o, &x) in out.iter_mut().zip(xs) {
            *o = x.mul_portable(k);
        }
    }

    /// `acc[i] += k · xs[i]` (see [`Gf128::scale`]).
    pub fn scale_add(acc: &mut [Gf128], xs: &[Gf128], k: Gf128) {
        assert_eq!(
            acc.len(),
            xs.len(),
            "Gf128::scale_add: slice lengths differ"
        );
        #[cfg(target_arch = "x86_64")]
        if hardware::available() {
            // SAFETY: `available` checked the CPU features.
            unsafe { hardware::scale(acc, xs, k, true) };
            return;
        }
        for (o, &x) in acc.iter_mut().zip(xs) {
            *o += x.mul_portable(k);
        }
    }

    /// a^e by square and multiply.
    pub fn pow(self, mut e: u128) -> Gf128 {
        let (mut base, mut acc) = (self, Gf128::ONE);
        while e != 0 {
            if e & 1 == 1 {
                acc *= base;
            }
            base *= base;
            e >>= 1;
        }
        acc
    }

    /// The inverse (a^(2^128 - 2)); zero has none.
    pub fn inverse(self) -> Option<Gf128> {
        (self != Gf128::ZERO).then(|| self.pow(u128::MAX - 1))
    }
}

/// 256-bit carry-less product as (low, high).
fn clmul_portable(a: u128, b: u128) -> (u128, u128) {
    let (mut lo, mut hi) = (0u128, 0u128);
    for i in 0..128 {
        if b >> i & 1 == 1 {
            lo ^= a << i;
            if i > 0 {
                hi ^= a >> (128 - i);
            }
        }
    }
    (lo, hi)
}

/// Reduces lo + hi·x^128 modulo x^128 + x^7 + x^2 + x + 1.
#[inline(always)]
fn reduce(lo: u128, hi: u128) -> u128 {
    // x^128 = x^7 + x^2 + x + 1; the bits hi shifts past 128 fold once more.
    let fold = |h: u128| -> (u128, u128) {
        let low = h ^ (h << 1) ^ (h << 2) ^ (h << 7);
        let over = (h >> 127) ^ (h >> 126) ^ (h >> 121);
        (low, over)
    };
    let (l1, over) = fold(hi);
    let (l2, _) = fold(over);
    lo ^ l1 ^ l2
}

#[cfg(target_arch = "x86_64")]
mod hardware {
    use std::arch::x86_64::*;
    use std::sync::OnceLock;

    #[inline]
    pub fn available() -> bool {
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| {
            std::arch::is_x86_feature_detected!("pclmulqdq")
                && std::arch::is_x86_feature_detected!("sse2")
        })
    }

    /// The reduced product, all in one call.
    ///
    /// # Safety
    /// The CPU must support PCLMULQDQ and SSE2 (checked by `available`).
    #[target_feature(enable = "pclmulqdq,sse2")]
    pub unsafe fn mul(a: u128, b: u128) -> u128 {
        // SAFETY: the caller guarantees the target features.
        unsafe {
            let (lo, hi) = clmul(a, b);
            reduce(lo, hi)
        }
    }

    /// lo + hi·x^128 mod x^128 + x^7 + x^2 + x + 1, folding with carry-less
    /// multiplications by 0x87: hi = h1·x^64 + h0 contributes h0·0x87 and
    /// (h1·0x87)·x^64, whose top 7 bits fold once more.
    ///
    /// # Safety
    /// The CPU must support PCLMULQDQ and SSE2 (checked by `available`).
    #[target_feature(enable = "pclmulqdq,sse2")]
    #[inline]
    pub unsafe fn reduce(lo: u128, hi: u128) -> u128 {
        // SAFETY: u128 and __m128i have the same size; the caller
        // guarantees the target features.
        unsafe {
            let poly = _mm_set_epi64x(0, 0x87);
            let h: __m128i = std::mem::transmute(hi);
            let a: u128 = std::mem::transmute(_mm_clmulepi64_si128(h, poly, 0x00));
            let b: u128 = std::mem::transmute(_mm_clmulepi64_si128(h, poly, 0x01));
            let over: __m128i = std::mem::transmute(b >> 64);
            let c: u128 = std::mem::transmute(_mm_clmulepi64_si128(over, poly, 0x00));
            lo ^ a ^ (b << 64) ^ c
        }
    }

    pub use crate::simd::Width;

    /// Whether this CPU can run [`scale_wide`] at `width`.
    pub fn supports(width: Width) -> bool {
        std::arch::is_x86_feature_detected!("vpclmulqdq") && available() && width.has_vectors()
    }

    /// The widest registers [`supports`] allows, if any.
    #[inline]
    pub fn wide_width() -> Option<Width> {
        static HAS: OnceLock<Option<Width>> = OnceLock::new();
        *HAS.get_or_init(|| Width::widest(supports))
    }

    /// out[i] = k·xs[i], or out[i] += k·xs[i] when `add`: four (AVX-512) or
    /// two (AVX2) elements at a time where the CPU has VPCLMULQDQ, the rest
    /// one at a time.
    ///
    /// # Safety
    /// The CPU must support PCLMULQDQ and SSE2 (checked by `available`).
    #[target_feature(enable = "pclmulqdq,sse2")]
    pub unsafe fn scale(out: &mut [super::Gf128], xs: &[super::Gf128], k: super::Gf128, add: bool) {
        let n = out.len().min(xs.len());
        let mut done = 0;
        if let Some(width) = wide_width() {
            done = n / width.lanes() * width.lanes();
            // SAFETY: checked just above.
            unsafe { scale_wide(width, &mut out[..done], &xs[..done], k, add) };
        }
        // SAFETY: the caller guarantees the target features.
        unsafe { scale_narrow(&mut out[done..n], &xs[done..n], k, add) };
    }

    /// [`scale`] one element at a time, in vector registers throughout.
    ///
    /// # Safety
    /// The CPU must support PCLMULQDQ and SSE2.
    #[target_feature(enable = "pclmulqdq,sse2")]
    pub unsafe fn scale_narrow(
        out: &mut [super::Gf128],
        xs: &[super::Gf128],
        k: super::Gf128,
        add: bool,
    ) {
        // SAFETY: Gf128 is a transparent u128, so every element is 16
        // readable (writable) bytes; unaligned loads and stores; the caller
        // guarantees the target features.
        unsafe {
            let k: __m128i = std::mem::transmute(k.0);
            let poly = _mm_set_epi64x(0, 0x87);
            for (o, x) in out.iter_mut().zip(xs) {
                let x = _mm_loadu_si128((x as *const super::Gf128).cast());
                let lo = _mm_clmulepi64_si128(x, k, 0x00);
                let hi = _mm_clmulepi64_si128(x, k, 0x11);
                let mid = _mm_xor_si128(
                    _mm_clmulepi64_si128(x, k, 0x01),
                    _mm_clmulepi64_si128(x, k, 0x10),
                );
                // The 256-bit product is low + high·x^128; high folds with
                // x^128 = 0x87 twice (its top 64 bits overflow once more).
                let low = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
                let high = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
                let a = _mm_clmulepi64_si128(high, poly, 0x00);
                let b = _mm_clmulepi64_si128(high, poly, 0x01);
                let c = _mm_clmulepi64_si128(b, poly, 0x01);
                let mut p = _mm_xor_si128(
                    _mm_xor_si128(low, a),
                    _mm_xor_si128(_mm_slli_si128(b, 8), c),
                );
                let at: *mut __m128i = (o as *mut super::Gf128).cast();
                if add {
                    p = _mm_xor_si128(p, _mm_loadu_si128(at));
                }
                _mm_storeu_si128(at, p);
            }
        }
    }

    /// [`scale_narrow`] `width.lanes()` elements per instruction; the
    /// lengths are equal and a multiple of that.
    ///
    /// # Safety
    /// The CPU must support `width` ([`supports`]).
    pub unsafe fn scale_wide(
        width: Width,
        out: &mut [super::Gf128],
        xs: &[super::Gf128],
        k: super::Gf128,
        add: bool,
    ) {
        debug_assert!(out.len().is_multiple_of(width.lanes()) && out.len() == xs.len());
        // SAFETY: the caller's guarantee.
        unsafe {
            match width {
                Width::Zmm => scale_zmm(out, xs, k, add),
                Width::Ymm => scale_ymm(out, xs, k, add),
            }
        }
    }

    /// One width's [`scale_wide`]: the same steps as [`scale_narrow`] on
    /// `$lanes` elements per register; only the intrinsics differ.
    macro_rules! scale_kernel {
        ($name:ident, $features:literal, $reg:ty, $lanes:literal, load: $load:ident,
         store: $store:ident, xor: $xor:ident, clmul: $clmul:ident,
         shl: $shl:ident, shr: $shr:ident) => {
            /// # Safety
            /// The CPU must support the kernel's features.
            #[target_feature(enable = $features)]
            unsafe fn $name(
                out: &mut [super::Gf128],
                xs: &[super::Gf128],
                k: super::Gf128,
                add: bool,
            ) {
                // SAFETY: as in `scale_narrow`, over chunks of `$lanes`
                // elements (one register); the arrays are one register's
                // bytes; the caller guarantees the target features.
                unsafe {
                    let k: $reg = $load([k.0; $lanes].as_ptr().cast());
                    let poly: $reg = $load([0x87u128; $lanes].as_ptr().cast());
                    for (o, x) in out.chunks_exact_mut($lanes).zip(xs.chunks_exact($lanes)) {
                        let x = $load(x.as_ptr().cast());
                        let lo = $clmul(x, k, 0x00);
                        let hi = $clmul(x, k, 0x11);
                        let mid = $xor($clmul(x, k, 0x01), $clmul(x, k, 0x10));
                        let low = $xor(lo, $shl(mid, 8));
                        let high = $xor(hi, $shr(mid, 8));
                        let a = $clmul(high, poly, 0x00);
                        let b = $clmul(high, poly, 0x01);
                        let c = $clmul(b, poly, 0x01);
                        let mut p = $xor($xor(low, a), $xor($shl(b, 8), c));
                        let at = o.as_mut_ptr();
                        if add {
                            p = $xor(p, $load(at.cast()));
                        }
                        $store(at.cast(), p);
                    }
                }
            }
        };
    }

    scale_kernel!(scale_zmm, "pclmulqdq,sse2,vpclmulqdq,avx512f,avx512bw", __m512i, 4,
        load: _mm512_loadu_si512, store: _mm512_storeu_si512, xor: _mm512_xor_si512,
        clmul: _mm512_clmulepi64_epi128, shl: _mm512_bslli_epi128, shr: _mm512_bsrli_epi128);
    scale_kernel!(scale_ymm, "pclmulqdq,sse2,vpclmulqdq,avx2", __m256i, 2,
        load: _mm256_loadu_si256, store: _mm256_storeu_si256, xor: _mm256_xor_si256,
        clmul: _mm256_clmulepi64_epi128, shl: _mm256_bslli_epi128, shr: _mm256_bsrli_epi128);

    /// # Safety
    /// The CPU must support PCLMULQDQ and SSE2 (checked by `available`).
    #[target_feature(enable = "pclmulqdq,sse2")]
    #[inline]
    pub unsafe fn clmul(a: u128, b: u128) -> (u128, u128) {
        // SAFETY: u128 and __m128i have the same size; the caller
        // guarantees the target features.
        unsafe {
            let x: __m128i = std::mem::transmute(a);
            let y: __m128i = std::mem::transmute(b);
            let lo = _mm_clmulepi64_si128(x, y, 0x00);
            let hi = _mm_clmulepi64_si128(x, y, 0x11);
            let m1 = _mm_clmulepi64_si128(x, y, 0x01);
            let m2 = _mm_clmulepi64_si128(x, y, 0x10);
            let mid = _mm_xor_si128(m1, m2);
            let lo: u128 = std::mem::transmute(lo);
            let hi: u128 = std::mem::transmute(hi);
            let mid: u128 = std::mem::transmute(mid);
            (lo ^ (mid << 64), hi ^ (mid >> 64))
        }
    }
}

impl Mul for Gf128 {
    type Output = Gf128;
    #[inline]
    fn mul(self, other: Gf128) -> Gf128 {
        #[cfg(target_arch = "x86_64")]
        if hardware::available() {
            // SAFETY: `available` checked the CPU features.
            return Gf128(unsafe { hardware::mul(self.0, other.0) });
        }
        self.mul_portable(other)
    }
}

impl MulAssign for Gf128 {
    fn mul_assign(&mut self, other: Gf128) {
        *self = *self * other;
    }
}

impl Add for Gf128 {
    type Output = Gf128;
    #[allow(clippy::suspicious_arithmetic_impl)] // addition in characteristic 2
    fn add(self, other: Gf128) -> Gf128 {
        Gf128(self.0 ^ other.0)
    }
}

impl AddAssign for Gf128 {
    #[allow(clippy::suspicious_op_assign_impl)]
    fn add_assign(&mut self, other: Gf128) {
        self.0 ^= other.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn el(hi: u64, lo: u64) -> Gf128 {
        Gf128(u128::from(hi) << 64 | u128::from(lo))
    }

    #[test]
    fn known_products() {
        // x^127 · x = x^128 = x^7 + x^2 + x + 1.
        assert_eq!(Gf128(1 << 127) * Gf128(2), Gf128(0x87));
        // x^127 · x^127 = x^254 = x^126 · (x^7 + x^2 + x + 1)
        //   = x^133 + x^128 + x^127 + x^126, and x^133 = x^5 · x^128.
        let want = Gf128(0x87 << 5) + Gf128(0x87) + Gf128(1 << 127) + Gf128(1 << 126);
        assert_eq!(Gf128(1 << 127) * Gf128(1 << 127), want);
        assert_eq!(Gf128(0x1234) * Gf128::ONE, Gf128(0x1234));
    }

    proptest! {
        #[test]
        fn doubling_is_multiplication_by_x(a: (u64, u64)) {
            let a = el(a.0, a.1);
            prop_assert_eq!(a.double(), a * Gf128(2));
            prop_assert_eq!(a.double().double(), a * Gf128(4));
        }

        #[test]
        fn batch_scaling_is_elementwise_multiplication(
            xs in proptest::collection::vec((any::<u64>(), any::<u64>()), 0..40),
            k: (u64, u64),
        ) {
            let xs: Vec<Gf128> = xs.iter().map(|&(h, l)| el(h, l)).collect();
            let k = el(k.0, k.1);
            let mut out = vec![Gf128::ZERO; xs.len()];
            Gf128::scale(&mut out, &xs, k);
            let mut acc: Vec<Gf128> = xs.iter().map(|&x| x + Gf128::ONE).collect();
            Gf128::scale_add(&mut acc, &xs, k);
            for (i, &x) in xs.iter().enumerate() {
                prop_assert_eq!(out[i], x.mul_portable(k));
                prop_assert_eq!(acc[i], x + Gf128::ONE + x.mul_portable(k));
            }
        }

        #[test]
        fn every_scaling_path_agrees_with_the_portable_product(
            xs in proptest::collection::vec((any::<u64>(), any::<u64>()), 0..13),
            k: (u64, u64),
            add: bool,
        ) {
            let xs: Vec<Gf128> = xs.iter().map(|&(h, l)| el(h, l)).collect();
            let k = el(k.0, k.1);
            let start: Vec<Gf128> = xs.iter().map(|&x| x.double()).collect();
            let want: Vec<Gf128> = xs
                .iter()
                .zip(&start)
                .map(|(&x, &s)| if add { s + x.mul_portable(k) } else { x.mul_portable(k) })
                .collect();
            #[cfg(target_arch = "x86_64")]
            if hardware::available() {
                let mut out = start.clone();
                // SAFETY: checked just above.
                unsafe { hardware::scale_narrow(&mut out, &xs, k, add) };
                prop_assert_eq!(&out, &want);
                // Every width this CPU has, not only the one `scale` picks.
                for width in hardware::Width::ALL {
                    if !hardware::supports(width) {
                        continue;
                    }
                    let whole = xs.len() / width.lanes() * width.lanes();
                    let mut out = start[..whole].to_vec();
                    // SAFETY: checked just above.
                    unsafe { hardware::scale_wide(width, &mut out, &xs[..whole], k, add) };
                    prop_assert_eq!(&out[..], &want[..whole], "{:?}", width);
                }
            }
        }

        #[test]
        fn hardware_and_portable_agree(a: (u64, u64), b: (u64, u64)) {
            let (x, y) = (el(a.0, a.1), el(b.0, b.1));
            prop_assert_eq!(x * y, x.mul_portable(y));
        }

        #[test]
        fn field_laws(a: (u64, u64), b: (u64, u64), c: (u64, u64)) {
            let (x, y, z) = (el(a.0, a.1), el(b.0, b.1), el(c.0, c.1));
            prop_assert_eq!(x * y, y * x);
            prop_assert_eq!((x * y) * z, x * (y * z));
            prop_assert_eq!(x * (y + z), x * y + x * z);
            if x != Gf128::ZERO {
                prop_assert_eq!(x * x.inverse().expect("non-zero"), Gf128::ONE);
            }
        }
    }
}
