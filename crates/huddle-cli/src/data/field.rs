//! One field of a data file or of `--input`: a number of a given width as
//! text and back. Decimal numbers of any width go through `num-bigint`;
//! a field's bits are little-endian 64-bit words (bit j of the value is
//! bit j % 64 of word j / 64, as in a row of a `BitMatrix`). [`codec`]
//! gives the codec of a value's elements in a style; [`put_bits`] and
//! [`get_bits`] place a field's bits in a row and take them out.

use super::style::{DataFormat, Style};
use huddle_circuit::{Circuit, Domain};
use num_bigint::{BigInt, BigUint, Sign};

/// What a field holds and how it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Codec {
    /// The field's width in bits (at least 1).
    pub bits: usize,
    pub format: DataFormat,
    /// Decimal fields are two's complement numbers (a minus sign allowed,
    /// the top bit printed as a sign); else unsigned.
    pub signed: bool,
    /// A fixed-point ring element with this many fractional bits: always
    /// a signed decimal (x·2^f rounded), whatever `format` says.
    pub frac: Option<u8>,
}

impl Codec {
    /// The field's value, `bits.div_ceil(64)` words, bits above the width 0.
    pub fn parse(&self, text: &str) -> Result<Vec<u64>, String> {
        if let Some(f) = self.frac {
            return self.parse_fixed(text, f);
        }
        let value = match self.format {
            DataFormat::Hex => self.parse_hex(text)?,
            DataFormat::Dec => match self.parse_small_decimal(text) {
                Some(small) => return small,
                None => self.parse_decimal(text)?,
            },
        };
        Ok(words_of(&value, self.bits))
    }

    /// The field as text (hex: exactly as many digits as the width takes).
    pub fn render(&self, words: &[u64]) -> String {
        if let (true, None) = (self.bits <= 64, self.frac) {
            return self.render_small(words.first().copied().unwrap_or(0));
        }
        let value = value_of(words, self.bits);
        if let Some(f) = self.frac {
            return fixed_text(&self.as_signed(value), f);
        }
        match self.format {
            DataFormat::Hex => {
                let digits = self.bits.div_ceil(4);
                format!("{:0>digits$}", value.to_str_radix(16))
            }
            DataFormat::Dec if self.signed => self.as_signed(value).to_string(),
            DataFormat::Dec => value.to_string(),
        }
    }

    /// [`Codec::render`] of an integer field of at most 64 bits, in
    /// machine words (the round-trip tests compare it with `u128`'s).
    fn render_small(&self, word: u64) -> String {
        let bits = self.bits;
        let v = word & (u64::MAX >> (64 - bits));
        match self.format {
            DataFormat::Hex => format!("{v:0digits$x}", digits = bits.div_ceil(4)),
            DataFormat::Dec if self.signed && v >> (bits - 1) == 1 => {
                ((v | !(u64::MAX >> (64 - bits))) as i64).to_string()
            }
            DataFormat::Dec => v.to_string(),
        }
    }

    /// Whether [`Codec::render`]'s text is a JSON number in `--json`: a
    /// decimal integer of at most 53 bits (exact in a double); everything
    /// else (hex, wider integers, fixed point) is a JSON string.
    pub fn json_number(&self) -> bool {
        self.format == DataFormat::Dec && self.frac.is_none() && self.bits <= 53
    }

    /// A value below 2^bits read as a two's complement number.
    fn as_signed(&self, value: BigUint) -> BigInt {
        if value.bit(self.bits as u64 - 1) {
            BigInt::from(value) - (BigInt::from(1u8) << self.bits)
        } else {
            BigInt::from(value)
        }
    }

    fn parse_hex(&self, text: &str) -> Result<BigUint, String> {
        let body = text
            .strip_prefix("0x")
            .or_else(|| text.strip_prefix("0X"))
            .unwrap_or(text);
        let digits: String = body.chars().filter(|&c| c != '_').collect();
        if let Some((pos, ch)) = digits.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
            return Err(format!(
                "`{text}` is not hexadecimal: `{ch}` at position {pos}"
            ));
        }
        let most = self.bits.div_ceil(4);
        if digits.is_empty() {
            return Err("an empty field: give a value".into());
        }
        if digits.len() > most {
            return Err(format!(
                "`{text}` has {} hex digits, but a {}-bit field takes at most {most}",
                digits.len(),
                self.bits
            ));
        }
        let value = BigUint::parse_bytes(digits.as_bytes(), 16)
            .ok_or_else(|| format!("`{text}` is not hexadecimal"))?;
        if value.bits() > self.bits as u64 {
            return Err(format!("`{text}` does not fit {}", bits_of(self.bits)));
        }
        Ok(value)
    }

    fn parse_decimal(&self, text: &str) -> Result<BigUint, String> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("`{text}` is not a decimal integer"));
        }
        // More digits than any value of the width has: refused before a
        // long run of digits becomes a number.
        let significant = digits.trim_start_matches('0');
        if negative && !self.signed && !significant.is_empty() {
            return Err(self.negative(text));
        }
        if significant.len() > self.bits * 31 / 100 + 2 {
            return Err(self.out_of_range(text));
        }
        let magnitude = BigUint::parse_bytes(digits.as_bytes(), 10)
            .ok_or_else(|| format!("`{text}` is not a decimal integer"))?;
        let value =
            BigInt::from_biguint(if negative { Sign::Minus } else { Sign::Plus }, magnitude);
        self.wrap(value).ok_or_else(|| self.out_of_range(text))
    }

    /// [`Codec::parse_decimal`] for fields of at most 64 bits and 38
    /// digits, in `i128` (a data file's common case, without big numbers);
    /// None for the others.
    fn parse_small_decimal(&self, text: &str) -> Option<Result<Vec<u64>, String>> {
        let bits = self.bits;
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        if bits > 64
            || digits.is_empty()
            || digits.len() > 38
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let magnitude: i128 = digits.parse().ok()?;
        let value = if text.starts_with('-') {
            -magnitude
        } else {
            magnitude
        };
        let (low, high) = if self.signed {
            (-(1i128 << (bits - 1)), 1i128 << (bits - 1))
        } else {
            (0, 1i128 << bits)
        };
        Some(if value < 0 && !self.signed {
            Err(self.negative(text))
        } else if value < low || value >= high {
            Err(self.out_of_range(text))
        } else {
            Ok(vec![(value as u64) & (u64::MAX >> (64 - bits))])
        })
    }

    fn negative(&self, text: &str) -> String {
        format!(
            "{text} is negative, but the fields are unsigned: give --signed to read them as \
             two's complement numbers"
        )
    }

    fn out_of_range(&self, text: &str) -> String {
        let bits = self.bits;
        if self.signed {
            let half = BigInt::from(1u8) << (bits - 1);
            format!(
                "{text} does not fit the signed {bits}-bit range, {} to {}",
                -&half,
                half - 1
            )
        } else {
            format!(
                "{text} does not fit {} (0 to {})",
                bits_of(bits),
                (BigUint::from(1u8) << bits) - 1u8
            )
        }
    }

    /// `value` as `bits` bits of two's complement, if it is in the field's
    /// range (signed or unsigned).
    fn wrap(&self, value: BigInt) -> Option<BigUint> {
        let bits = self.bits;
        let (low, high) = if self.signed {
            let half = BigInt::from(1u8) << (bits - 1);
            (-half.clone(), half)
        } else {
            (BigInt::ZERO, BigInt::from(1u8) << bits)
        };
        if value < low || value >= high {
            return None;
        }
        let modulus = BigInt::from(1u8) << bits;
        let wrapped = if value.sign() == Sign::Minus {
            value + modulus
        } else {
            value
        };
        wrapped.to_biguint()
    }

    /// A decimal number (an optional sign, digits with an optional point,
    /// an optional exponent) as the nearest multiple of 2^-f, halves away
    /// from zero; refused outside the signed range of the ring.
    fn parse_fixed(&self, text: &str, f: u8) -> Result<Vec<u64>, String> {
        let bits = self.bits;
        let not_a_number = || format!("`{text}` is not a decimal number");
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(at) => (
                &text[..at],
                text[at + 1..]
                    .parse::<i32>()
                    .ok()
                    .filter(|e| e.abs() <= 4096)
                    .ok_or_else(not_a_number)?,
            ),
            None => (text, 0),
        };
        let (negative, unsigned) = match mantissa.strip_prefix('-') {
            Some(m) => (true, m),
            None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
        };
        let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
        let digits = format!("{whole}{fraction}");
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(not_a_number());
        }
        let limit = BigUint::from(1u8) << (bits - 1);
        let out_of_range = || {
            let step = fixed_text(&BigInt::from(1u8), f);
            format!(
                "{text} is outside the fixed-point range of Z_2^{bits} with {f} fractional bits \
                 ({} to {}, in steps of {step})",
                fixed_text(&-BigInt::from(limit.clone()), f),
                fixed_text(&(BigInt::from(limit.clone()) - 1), f)
            )
        };
        // value = digits · 10^scale, scale = exponent − fraction digits.
        let scale = i64::from(exponent) - fraction.len() as i64;
        let significant = digits.trim_start_matches('0').len() as i64;
        // Anything of 10^(bits/3 + 1) or more is out of range anyway.
        if significant + scale > (bits as i64) / 3 + 1 + i64::from(f) {
            return Err(out_of_range());
        }
        let n = BigUint::parse_bytes(digits.as_bytes(), 10).ok_or_else(not_a_number)?;
        let scaled = n << f;
        let units = if scale >= 0 {
            scaled * BigUint::from(10u8).pow(scale as u32)
        } else {
            let divisor = BigUint::from(10u8).pow(scale.unsigned_abs() as u32);
            let (q, r) = (&scaled / &divisor, &scaled % &divisor);
            if r * 2u8 >= divisor {
                q + 1u8
            } else {
                q
            }
        };
        let value = BigInt::from_biguint(if negative { Sign::Minus } else { Sign::Plus }, units);
        let signed = Codec {
            signed: true,
            ..*self
        };
        let wrapped = signed.wrap(value).ok_or_else(out_of_range)?;
        Ok(words_of(&wrapped, bits))
    }
}

/// "1 bit", "8 bits".
fn bits_of(n: usize) -> String {
    if n == 1 {
        "1 bit".into()
    } else {
        format!("{n} bits")
    }
}

/// The exact decimal of `units`·2^-f: at most f digits after the point,
/// trailing zeros dropped.
fn fixed_text(units: &BigInt, f: u8) -> String {
    let f = usize::from(f);
    let magnitude = units.magnitude() * BigUint::from(5u8).pow(f as u32);
    let digits = format!("{magnitude:0>width$}", width = f + 1);
    let (whole, fraction) = digits.split_at(digits.len() - f);
    let fraction = fraction.trim_end_matches('0');
    let sign = if units.sign() == Sign::Minus { "-" } else { "" };
    if fraction.is_empty() {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{fraction}")
    }
}

/// The number in the low `bits` bits of `words` (missing words are 0).
fn value_of(words: &[u64], bits: usize) -> BigUint {
    let mut digits: Vec<u32> = words
        .iter()
        .take(bits.div_ceil(64))
        .flat_map(|&w| [w as u32, (w >> 32) as u32])
        .collect();
    let cut = bits.div_ceil(32);
    digits.truncate(cut);
    if !bits.is_multiple_of(32) {
        if let Some(top) = digits.get_mut(cut - 1) {
            *top &= (1u32 << (bits % 32)) - 1;
        }
    }
    BigUint::new(digits)
}

/// `value` (below 2^bits) as `bits.div_ceil(64)` words.
fn words_of(value: &BigUint, bits: usize) -> Vec<u64> {
    let mut words = value.to_u64_digits();
    words.resize(bits.div_ceil(64), 0);
    words
}

/// The codec of one element of a value of `domain`: a Boolean value is
/// one field of all its `bits`, a ring value one field per element.
pub(super) fn codec(circuit: &Circuit, domain: Domain, bits: usize, style: Style) -> Codec {
    let ring = circuit.ring().map(|r| r.bits() as usize);
    match (domain, ring) {
        (Domain::Ring, Some(k)) => Codec {
            bits: k,
            format: style.format,
            signed: style.signed,
            frac: style.frac,
        },
        _ => Codec {
            bits,
            format: style.format,
            signed: style.signed,
            frac: None,
        },
    }
}

/// ORs the low `bits` bits of `words` into `row` from bit `at`.
pub(super) fn put_bits(row: &mut [u64], at: usize, words: &[u64], bits: usize) {
    for (i, &w) in words.iter().enumerate().take(bits.div_ceil(64)) {
        let len = (bits - i * 64).min(64);
        let w = if len < 64 { w & ((1u64 << len) - 1) } else { w };
        let (word, shift) = ((at + i * 64) / 64, (at + i * 64) % 64);
        row[word] |= w << shift;
        if shift != 0 && shift + len > 64 {
            row[word + 1] |= w >> (64 - shift);
        }
    }
}

/// The `bits` bits of `row` from bit `at`, as words.
pub(super) fn get_bits(row: &[u64], at: usize, bits: usize) -> Vec<u64> {
    (0..bits.div_ceil(64))
        .map(|i| {
            let len = (bits - i * 64).min(64);
            let (word, shift) = ((at + i * 64) / 64, (at + i * 64) % 64);
            let mut w = row[word] >> shift;
            if shift != 0 && shift + len > 64 {
                w |= row[word + 1] << (64 - shift);
            }
            if len < 64 {
                w & ((1u64 << len) - 1)
            } else {
                w
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn codec(bits: usize, format: DataFormat, signed: bool) -> Codec {
        Codec {
            bits,
            format,
            signed,
            frac: None,
        }
    }

    /// `bits` random bits as words.
    fn masked(words: &[u64], bits: usize) -> Vec<u64> {
        words_of(&value_of(words, bits), bits)
    }

    proptest! {
        /// Decimal fields of at most 64 bits take a path of their own in
        /// i128: the same values and the same errors as the big numbers.
        #[test]
        fn small_decimals_agree_with_big_ones(
            magnitude in any::<u128>(),
            shift in 0u32..128,
            negative in any::<bool>(),
            bits in 1usize..=64,
            signed in any::<bool>(),
        ) {
            let c = codec(bits, DataFormat::Dec, signed);
            let text = format!("{}{}", if negative { "-" } else { "" }, magnitude >> shift);
            // Up to 38 digits (u128::MAX has 39).
            let small = c.parse_small_decimal(&text);
            prop_assert_eq!(small.is_some(), text.trim_start_matches('-').len() <= 38);
            let big = c.parse_decimal(&text).map(|v| words_of(&v, bits));
            prop_assert_eq!(small.unwrap_or_else(|| big.clone()), big);
        }

        /// Every width 1..=256, hex and decimal, signed and unsigned: what
        /// is written reads back as the same bits; decimal agrees with an
        /// independent conversion (u128 where it fits).
        #[test]
        fn fields_round_trip_at_every_width(
            raw in proptest::collection::vec(any::<u64>(), 4),
            bits in 1usize..=256,
            signed in any::<bool>(),
        ) {
            let v = masked(&raw, bits);
            for format in [DataFormat::Hex, DataFormat::Dec] {
                let c = codec(bits, format, signed);
                let text = c.render(&v);
                prop_assert_eq!(c.parse(&text).expect("reads what it wrote"), v.clone());
            }
            if bits <= 128 {
                let u = v[0] as u128 | (*v.get(1).unwrap_or(&0) as u128) << 64;
                prop_assert_eq!(codec(bits, DataFormat::Dec, false).render(&v), u.to_string());
                if bits < 128 {
                    let s = if u >> (bits - 1) == 1 { (u | (u128::MAX << bits)) as i128 } else { u as i128 };
                    prop_assert_eq!(codec(bits, DataFormat::Dec, true).render(&v), s.to_string());
                }
                prop_assert_eq!(
                    codec(bits, DataFormat::Hex, false).render(&v),
                    format!("{u:0>w$x}", w = bits.div_ceil(4))
                );
            }
        }

        /// Fixed point over the ring widths: an element's text reads back
        /// as the same element (the text is exact, so within half an ulp),
        /// and a decimal between two steps goes to the nearer one.
        #[test]
        fn fixed_point_round_trips_within_half_an_ulp(
            raw in any::<u64>(),
            ring in prop::sample::select(vec![8usize, 16, 32, 64]),
            f in 1u8..8,
            nudge in -0.49f64..0.49,
        ) {
            prop_assume!(usize::from(f) < ring);
            let c = Codec { bits: ring, format: DataFormat::Dec, signed: true, frac: Some(f) };
            let v = masked(&[raw], ring);
            let text = c.render(&v);
            prop_assert_eq!(c.parse(&text).expect("reads"), v.clone());
            // A number within half a step of v reads as v (f64 is exact
            // here: 16-bit elements and small nudges).
            if ring == 16 {
                let s = (v[0] as u16) as i16;
                let x = (f64::from(s) + nudge) / f64::from(1u32 << f);
                prop_assert_eq!(c.parse(&format!("{x:.12}")).expect("reads"), v);
            }
        }
    }

    #[test]
    fn short_hex_is_zero_extended_and_long_hex_names_the_width() {
        let c = codec(32, DataFormat::Hex, false);
        assert_eq!(c.parse("100").expect("short"), vec![0x100]);
        assert_eq!(c.parse("0x_ff").expect("prefix"), vec![0xff]);
        assert_eq!(c.render(&[0x100]), "00000100");
        let e = c.parse("123456789").expect_err("long");
        assert!(
            e.contains("9 hex digits, but a 32-bit field takes at most 8"),
            "{e}"
        );
        let e = codec(2, DataFormat::Hex, false)
            .parse("4")
            .expect_err("wide");
        assert!(e.contains("does not fit 2 bits"), "{e}");
        let e = c.parse("12g").expect_err("digit");
        assert!(e.contains("not hexadecimal: `g` at position 2"), "{e}");
        assert!(c.parse("").is_err());
    }

    #[test]
    fn decimal_ranges_and_signs_are_checked() {
        let u8c = codec(8, DataFormat::Dec, false);
        let s8 = codec(8, DataFormat::Dec, true);
        assert_eq!(u8c.parse("255").expect("max"), vec![255]);
        let e = u8c.parse("256").expect_err("wide");
        assert!(e.contains("does not fit 8 bits (0 to 255)"), "{e}");
        let e = u8c.parse("-5").expect_err("negative");
        assert!(e.contains("negative") && e.contains("--signed"), "{e}");
        assert_eq!(u8c.parse("-0").expect("zero"), vec![0]);
        assert_eq!(s8.parse("-128").expect("least"), vec![0x80]);
        assert_eq!(s8.parse("127").expect("most"), vec![0x7f]);
        for bad in ["-129", "128"] {
            let e = s8.parse(bad).expect_err(bad);
            assert!(e.contains("the signed 8-bit range, -128 to 127"), "{e}");
        }
        assert_eq!(s8.render(&[0xfb]), "-5");
        assert_eq!(u8c.render(&[0xfb]), "251");
        let e = u8c.parse("12a").expect_err("malformed");
        assert!(e.contains("not a decimal integer"), "{e}");
        // A long run of digits is refused by its length.
        let e = codec(64, DataFormat::Dec, false)
            .parse(&"9".repeat(100_000))
            .expect_err("long");
        assert!(e.contains("does not fit 64 bits"), "{e}");
        // 2^200 − 1 fits 200 bits, 2^200 does not; −2^199 is the least.
        let max = "1606938044258990275541962092341162602522202993782792835301375";
        assert_eq!(
            codec(200, DataFormat::Dec, false).parse(max).expect("fits")[3],
            0xff
        );
        let over = "1606938044258990275541962092341162602522202993782792835301376";
        assert!(codec(200, DataFormat::Dec, false).parse(over).is_err());
        let least = "-803469022129495137770981046170581301261101496891396417650688";
        let s200 = codec(200, DataFormat::Dec, true);
        assert_eq!(s200.parse(least).expect("fits")[3], 0x80);
        assert_eq!(s200.render(&s200.parse(least).expect("fits")), least);
    }

    #[test]
    fn fixed_point_is_exact_and_range_checked() {
        let c = Codec {
            bits: 16,
            format: DataFormat::Hex,
            signed: false,
            frac: Some(4),
        };
        assert_eq!(c.parse("-0.5").expect("reads"), vec![0xfff8]);
        assert_eq!(c.parse("1.5e1").expect("exponent"), vec![240]);
        assert_eq!(c.parse("0.03125").expect("half a step"), vec![1]);
        assert_eq!(c.parse("-0.03125").expect("half a step"), vec![0xffff]);
        assert_eq!(c.render(&[0xfff8]), "-0.5");
        assert_eq!(c.render(&[1]), "0.0625");
        assert_eq!(c.render(&[32]), "2");
        let e = c.parse("5000").expect_err("range");
        assert!(
            e.contains("fixed-point range of Z_2^16 with 4 fractional bits (-2048 to 2047.9375"),
            "{e}"
        );
        assert!(c.parse("1e99999").is_err() && c.parse("abc").is_err());
        let wide = Codec {
            bits: 64,
            frac: Some(16),
            ..c
        };
        let most = wide.render(&[i64::MAX as u64]);
        assert_eq!(most, "140737488355327.9999847412109375");
        assert_eq!(wide.parse(&most).expect("exact"), vec![i64::MAX as u64]);
    }
}
