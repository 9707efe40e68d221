//! Values as hexadecimal text.
//!
//! A value of `width` bits is one big-endian hexadecimal number with
//! ceil(width / 4) digits; bit j of the number sits on the value's j-th wire
//! (the lowest-numbered wire is the least significant bit). This is the rule
//! of `vectors.json` in the public circuit collection. In bit storage, bit j
//! is bit j % 64 of word j / 64.

/// Why a hex string is not a valid value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HexError {
    /// The wrong number of digits (`_` separators and the prefix not counted).
    #[error("`{text}` has {found} hex digits, but a {width}-bit value takes exactly {expected}")]
    Length {
        /// The text as given.
        text: String,
        /// The value's width in bits.
        width: usize,
        /// Digits a value of that width takes: ceil(width / 4).
        expected: usize,
        /// Digits found.
        found: usize,
    },
    /// A character that is neither a hex digit nor `_`.
    #[error("`{text}` is not hexadecimal: `{ch}` at position {pos}")]
    Digit {
        /// The text as given.
        text: String,
        /// The offending character.
        ch: char,
        /// Its 0-based character position after any `0x` prefix.
        pos: usize,
    },
    /// The right number of digits, but bits set above the width.
    #[error("`{text}` does not fit in {width} bits")]
    TooWide {
        /// The text as given.
        text: String,
        /// The value's width in bits.
        width: usize,
    },
}

/// Digits of a `width`-bit value.
pub fn digits(width: usize) -> usize {
    width.div_ceil(4)
}

/// Parses a value of `width` bits (an optional `0x` prefix and `_` separators are allowed).
pub fn decode(text: &str, width: usize) -> Result<Vec<u64>, HexError> {
    let body = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    let mut nibbles = Vec::with_capacity(body.len());
    for (pos, ch) in body.chars().enumerate() {
        if ch == '_' {
            continue;
        }
        let v = ch.to_digit(16).ok_or_else(|| HexError::Digit {
            text: text.into(),
            ch,
            pos,
        })?;
        nibbles.push(v as u64);
    }
    if nibbles.len() != digits(width) {
        return Err(HexError::Length {
            text: text.into(),
            width,
            expected: digits(width),
            found: nibbles.len(),
        });
    }
    let mut words = vec![0u64; width.div_ceil(64)];
    for (i, nib) in nibbles.iter().rev().enumerate() {
        let bit = 4 * i;
        if *nib != 0 && bit + (64 - nib.leading_zeros() as usize) > width {
            return Err(HexError::TooWide {
                text: text.into(),
                width,
            });
        }
        if *nib != 0 {
            words[bit / 64] |= nib << (bit % 64);
        }
    }
    Ok(words)
}

/// Formats the low `width` bits of `words` (lowercase, ceil(width / 4) digits);
/// words missing from a short slice count as zero.
pub fn encode(words: &[u64], width: usize) -> String {
    (0..digits(width))
        .rev()
        .map(|i| {
            let bit = 4 * i;
            let live = (width - bit).min(4);
            let nib = (words.get(bit / 64).copied().unwrap_or(0) >> (bit % 64)) & ((1 << live) - 1);
            char::from_digit(nib as u32, 16).unwrap_or('?')
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lowest_wire_is_least_significant() {
        assert_eq!(decode("0001", 16), Ok(vec![1]));
        assert_eq!(decode("8", 4), Ok(vec![8]));
        assert_eq!(encode(&[0x1234], 16), "1234");
        assert_eq!(encode(&[u64::MAX, 1], 65), "1ffffffffffffffff");
        assert_eq!(
            decode("0x_1_ffff_ffff_ffff_ffff", 65),
            Ok(vec![u64::MAX, 1])
        );
    }

    #[test]
    fn rejects_bad_values_with_the_cause() {
        assert!(matches!(
            decode("123", 16),
            Err(HexError::Length {
                expected: 4,
                found: 3,
                ..
            })
        ));
        assert!(matches!(
            decode("12g4", 16),
            Err(HexError::Digit {
                ch: 'g',
                pos: 2,
                ..
            })
        ));
        assert!(matches!(decode("2", 1), Err(HexError::TooWide { .. })));
        assert!(matches!(decode("4", 2), Err(HexError::TooWide { .. })));
        assert_eq!(decode("3", 2), Ok(vec![3]));
    }

    proptest! {
        #[test]
        fn encode_ignores_bits_above_the_width(width in 1usize..130, words in any::<[u64; 3]>()) {
            let text = encode(&words, width);
            prop_assert!(decode(&text, width).is_ok(), "{} is not a {}-bit value", text, width);
        }

        #[test]
        fn round_trips(width in 1usize..300, seed in any::<[u64; 5]>()) {
            let mut words: Vec<u64> = seed[..width.div_ceil(64)].to_vec();
            if width % 64 != 0 {
                let last = words.len() - 1;
                words[last] &= (1u64 << (width % 64)) - 1;
            }
            let text = encode(&words, width);
            prop_assert_eq!(text.len(), digits(width));
            prop_assert_eq!(decode(&text, width), Ok(words));
        }

        #[test]
        fn never_panics(text in "\\\\PC{0,40}", width in 0usize..130) {
            let _ = decode(&text, width);
        }
    }
}
