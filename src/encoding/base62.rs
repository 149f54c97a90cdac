//! Base62, `0-9A-Za-z`: v2 drops leading zeros, v3 pads to a fixed width.

use super::{INVALID, as_str, length, table};
use crate::error::{Error, ErrorKind, Result};

/// The base62 alphabet.
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

static BASE62_DIGITS: [u8; 256] = table(BASE62);

/// 62^5, the largest power of 62 below 2^30, so that a remainder shifted
/// left by 32 bits still fits a u64 during long division.
const B5: u64 = 916_132_832;

/// Writes `v`, at most `32 * LIMBS` bits wide, in base62 at the end of
/// `buf` and returns the digits: all `N` of them, zero-padded, if `FIXED`
/// (v3's form), else with leading zeros dropped (v2's; zero is empty).
/// `buf` must hold every digit of `v`.
#[inline]
pub(crate) fn encode_base62<const N: usize, const LIMBS: usize, const FIXED: bool>(
    v: u128,
    buf: &mut [u8; N],
) -> &str {
    const { assert!(LIMBS >= 1 && LIMBS <= 4) };
    // Long division of the value in 32-bit limbs by 62^5 gives five digits
    // per round with only u64 divisions by a constant (multiplies).
    let mut limbs = [0u32; LIMBS];
    for (i, limb) in limbs.iter_mut().enumerate() {
        *limb = (v >> (32 * (LIMBS - 1 - i))) as u32;
    }
    let mut pos = N;
    while limbs != [0; LIMBS] {
        let mut rem = 0u64;
        for limb in &mut limbs {
            let cur = rem << 32 | *limb as u64;
            *limb = (cur / B5) as u32;
            rem = cur % B5;
        }
        let mut chunk = rem as u32;
        let last = limbs == [0; LIMBS];
        for _ in 0..5 {
            if last && chunk == 0 {
                break;
            }
            pos -= 1;
            buf[pos] = BASE62[(chunk % 62) as usize];
            chunk /= 62;
        }
    }
    if FIXED {
        buf[..pos].fill(b'0');
        pos = 0;
    }
    as_str(&buf[pos..])
}

/// Reads a base62 value of at most `bits` bits in its canonical form:
/// exactly `len` digits if `fixed` (v3: zero-padded), else 1..=`len`
/// digits without a leading zero (v2).
#[inline]
pub(crate) fn decode_base62(s: &[u8], bits: u32, len: usize, fixed: bool) -> Result<u128> {
    if fixed {
        if s.len() != len {
            return Err(length(len, s.len()));
        }
    } else {
        if s.is_empty() || s.len() > len {
            return Err(length(len, s.len()));
        }
        if s[0] == b'0' {
            return Err(Error::new(ErrorKind::LeadingZero));
        }
    }
    // Ten digits fit a u64 (62^10 < 2^64): the last ten and the ten before
    // them in independent chains, joined by one widening multiply; a
    // 128-bit value's two digits before those in a third.
    let (rest, tail) = s.split_at(s.len().saturating_sub(10));
    let (head, mid) = match len {
        ..=20 => (&[][..], rest),
        _ => rest.split_at(rest.len().saturating_sub(10)),
    };
    let mut seen = 0u8;
    let mut chunk = |digits: &[u8]| {
        digits.iter().fold(0u64, |v, &c| {
            let d = BASE62_DIGITS[c as usize];
            seen |= d;
            v.wrapping_mul(62).wrapping_add(d as u64)
        })
    };
    let (head, mid, tail) = (chunk(head), chunk(mid), chunk(tail));
    // Digits are below 64: only an invalid byte (0xff) sets the top bits.
    if seen & 0xc0 != 0 {
        let index = s
            .iter()
            .position(|&c| BASE62_DIGITS[c as usize] == INVALID)
            .unwrap_or(0);
        return Err(Error::new(ErrorKind::Char {
            byte: s[index],
            index,
        }));
    }
    let value = if len <= 20 {
        // No head: below 62^20 < 2^120, no overflow.
        Some(mid as u128 * P10 as u128 + tail as u128)
    } else {
        // At most 12 digits above the tail: below 62^12 < 2^72.
        (head as u128 * P10 as u128 + mid as u128)
            .checked_mul(P10 as u128)
            .and_then(|v| v.checked_add(tail as u128))
    };
    match value {
        Some(v) if v.checked_shr(bits).unwrap_or(0) == 0 => Ok(v),
        _ => Err(Error::new(ErrorKind::Overflow { bits })),
    }
}

/// 62^10.
const P10: u64 = 839_299_365_868_340_224;

#[cfg(test)]
mod tests {
    use super::*;

    /// Both base62 styles at their edges: v2's trimmed digits of up to 96
    /// bits (Go's outputs), v3's zero-padded 22 digits of 128 bits.
    #[test]
    fn base62_matches_go_edges() {
        let trimmed: [(u128, &str); 7] = [
            (0, ""),
            (1, "1"),
            (0x3d, "z"),
            (0x3e, "10"),
            (u64::MAX as u128, "LygHa16AHYF"),
            (1 << 64, "LygHa16AHYG"),
            ((1 << 96) - 1, "1f2SI9UJPXvb7vdJ1"),
        ];
        for (v, s) in trimmed {
            assert_eq!(encode_base62::<17, 3, false>(v, &mut [0; 17]), s);
            let back = decode_base62(s.as_bytes(), 96, 17, false);
            assert_eq!(back, if v == 0 { Err(length(17, 0)) } else { Ok(v) });
        }
        let fixed: [(u128, &str); 4] = [
            (0, "0000000000000000000000"),
            (61, "000000000000000000000z"),
            (u128::MAX, "7n42DGM5Tflk9n8mt7Fhc7"),
            (0x030d98d59b818400800000000000098e, "05lBpYW7ZCqf24uXXYjpGA"),
        ];
        for (v, s) in fixed {
            assert_eq!(encode_base62::<22, 4, true>(v, &mut [0; 22]), s);
            assert_eq!(decode_base62(s.as_bytes(), 128, 22, true), Ok(v));
        }
        // One past u128::MAX, and the largest 22 digits.
        for s in ["7n42DGM5Tflk9n8mt7Fhc8", "zzzzzzzzzzzzzzzzzzzzzz"] {
            assert_eq!(
                decode_base62(s.as_bytes(), 128, 22, true),
                Err(Error::new(ErrorKind::Overflow { bits: 128 }))
            );
        }
    }
}
