//! The canonical UUID string (lowercase hex, dashed 8-4-4-4-12) and the
//! hex of any id's bytes.

use core::fmt;

use super::{INVALID, as_str, length, table};
use crate::error::{Error, ErrorKind, Result};

/// Length of the canonical UUID string, `8-4-4-4-12` hex digits.
pub(crate) const UUID_LEN: usize = 36;

/// Where the canonical UUID string has its dashes.
const DASHES: [usize; 4] = [8, 13, 18, 23];

/// Lowercase hex digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

static HEX_DIGITS: [u8; 256] = table(HEX);

/// Writes the canonical UUID string of `v` (lowercase, dashes at 8, 13,
/// 18 and 23) into `buf` and returns it.
#[inline]
pub(crate) fn encode_uuid(v: u128, buf: &mut [u8; UUID_LEN]) -> &str {
    #[cfg(target_arch = "x86_64")]
    sse2::encode_uuid(v, buf);
    #[cfg(not(target_arch = "x86_64"))]
    encode_uuid_portable(v, buf);
    as_str(buf)
}

/// The runs of digits between the dashes: (start in the string, start in
/// the 32 digits, length).
const RUNS: [(usize, usize, usize); 5] =
    [(0, 0, 8), (9, 8, 4), (14, 12, 4), (19, 16, 4), (24, 20, 12)];

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn encode_uuid_portable(v: u128, buf: &mut [u8; UUID_LEN]) {
    let mut hex = [0u8; 32];
    for (pair, byte) in hex.chunks_exact_mut(2).zip(v.to_be_bytes()) {
        pair[0] = HEX[(byte >> 4) as usize];
        pair[1] = HEX[(byte & 0xf) as usize];
    }
    for (at, from, len) in RUNS {
        buf[at..at + len].copy_from_slice(&hex[from..from + len]);
    }
    for i in DASHES {
        buf[i] = b'-';
    }
}

/// Reads a canonical UUID string: 36 bytes, dashes at 8, 13, 18 and 23,
/// lowercase hex digits elsewhere.
#[inline]
pub(crate) fn decode_uuid(s: &[u8]) -> Result<u128> {
    let s: &[u8; UUID_LEN] = s.try_into().map_err(|_| length(UUID_LEN, s.len()))?;
    #[cfg(target_arch = "x86_64")]
    let v = sse2::decode_uuid(s);
    #[cfg(not(target_arch = "x86_64"))]
    let v = decode_uuid_portable(s);
    v.ok_or_else(|| bad_uuid_char(s))
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn decode_uuid_portable(s: &[u8; UUID_LEN]) -> Option<u128> {
    let (mut v, mut seen) = (0u128, 0u8);
    for (at, _, len) in RUNS {
        for &c in &s[at..at + len] {
            let d = HEX_DIGITS[c as usize];
            seen |= d;
            v = v << 4 | (d & 0xf) as u128;
        }
    }
    let dashes = DASHES.iter().all(|&i| s[i] == b'-');
    (dashes && seen >> 4 == 0).then_some(v)
}

/// The error of the first byte of a UUID string that is neither a dash
/// where one belongs nor a lowercase hex digit elsewhere.
#[cold]
fn bad_uuid_char(s: &[u8; UUID_LEN]) -> Error {
    let index = (0..UUID_LEN)
        .find(|&i| {
            if DASHES.contains(&i) {
                s[i] != b'-'
            } else {
                HEX_DIGITS[s[i] as usize] == INVALID
            }
        })
        .unwrap_or(0);
    Error::new(ErrorKind::Char {
        byte: s[index],
        index,
    })
}

/// Writes big-endian bytes in hex through [`fmt::Formatter::pad_integral`],
/// so that `#`, width and `0` behave as for an integer, with every leading
/// zero of the bytes kept.
pub(crate) fn hex(bytes: &[u8], upper: bool, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let digits: &[u8; 16] = if upper { b"0123456789ABCDEF" } else { HEX };
    let mut buf = [0u8; 32];
    let out = &mut buf[..2 * bytes.len()];
    for (pair, &byte) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = digits[(byte >> 4) as usize];
        pair[1] = digits[(byte & 0xf) as usize];
    }
    f.pad_integral(true, "0x", as_str(out))
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use core::arch::x86_64::*;

    /// Writes the canonical UUID string of `v`.
    #[inline]
    pub(super) fn encode_uuid(v: u128, out: &mut [u8; 36]) {
        let bytes = v.to_be_bytes();
        // SAFETY: SSE2 is always present on x86_64; the load reads exactly
        // the 16 bytes of `bytes`, the stores write bytes 0..32 of `out`,
        // unaligned, and the last four are written as an array.
        unsafe {
            let x = _mm_loadu_si128(bytes.as_ptr().cast());
            let low = _mm_set1_epi8(0x0f);
            let hi = _mm_and_si128(_mm_srli_epi16(x, 4), low);
            let lo = _mm_and_si128(x, low);
            // Each byte's high nibble, then its low one, as digits.
            let digits = |n: __m128i| {
                let letters = _mm_and_si128(_mm_cmpgt_epi8(n, _mm_set1_epi8(9)), _mm_set1_epi8(39));
                _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8(b'0' as i8)), letters)
            };
            let a = digits(_mm_unpacklo_epi8(hi, lo)); // digits 0..16
            let b = digits(_mm_unpackhi_epi8(hi, lo)); // digits 16..32
            let dash = _mm_set1_epi8(b'-' as i8);
            let take = |x: __m128i, mask: __m128i| _mm_and_si128(x, mask);
            // Characters 0..16: digits 0..8, '-', 8..12, '-', 12..14.
            let first = _mm_or_si128(
                _mm_or_si128(
                    take(
                        a,
                        _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0),
                    ),
                    take(
                        _mm_slli_si128(a, 1),
                        _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, 0, 0, 0),
                    ),
                ),
                _mm_or_si128(
                    take(
                        _mm_slli_si128(a, 2),
                        _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1),
                    ),
                    take(
                        dash,
                        _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0, 0),
                    ),
                ),
            );
            // Characters 16..32: digits 14..16, '-', 16..20, '-', 20..28.
            let second = _mm_or_si128(
                _mm_or_si128(
                    take(
                        _mm_srli_si128(a, 14),
                        _mm_setr_epi8(-1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
                    ),
                    take(
                        _mm_slli_si128(b, 3),
                        _mm_setr_epi8(0, 0, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0),
                    ),
                ),
                _mm_or_si128(
                    take(
                        _mm_slli_si128(b, 4),
                        _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1),
                    ),
                    take(
                        dash,
                        _mm_setr_epi8(0, 0, -1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0),
                    ),
                ),
            );
            let out16 = out.as_mut_ptr().cast::<__m128i>();
            _mm_storeu_si128(out16, first);
            _mm_storeu_si128(out16.add(1), second);
            // Characters 32..36: digits 28..32.
            let last = _mm_cvtsi128_si32(_mm_srli_si128(b, 12)) as u32;
            out[32..].copy_from_slice(&last.to_le_bytes());
        }
    }

    /// The value of a canonical UUID string, or None if a dash is missing
    /// or a digit is not lowercase hex.
    #[inline]
    pub(super) fn decode_uuid(s: &[u8; 36]) -> Option<u128> {
        let tail = u32::from_le_bytes([s[32], s[33], s[34], s[35]]);
        // SAFETY: SSE2 is always present on x86_64; the loads read bytes
        // 0..32 of `s`, unaligned, and the store writes the 16 of `bytes`.
        unsafe {
            let input = s.as_ptr().cast::<__m128i>();
            let (v0, v1) = (_mm_loadu_si128(input), _mm_loadu_si128(input.add(1)));
            let tail = _mm_slli_si128(_mm_cvtsi32_si128(tail as i32), 12);
            let take = |x: __m128i, mask: __m128i| _mm_and_si128(x, mask);
            // Digits 0..16: characters 0..8, 9..13, 14..18.
            let a = _mm_or_si128(
                _mm_or_si128(
                    take(
                        v0,
                        _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0),
                    ),
                    take(
                        _mm_srli_si128(v0, 1),
                        _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, 0, 0, 0, 0),
                    ),
                ),
                _mm_or_si128(
                    take(
                        _mm_srli_si128(v0, 2),
                        _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 0, 0),
                    ),
                    _mm_slli_si128(v1, 14),
                ),
            );
            // Digits 16..32: characters 19..23, 24..36.
            let b = _mm_or_si128(
                _mm_or_si128(
                    take(
                        _mm_srli_si128(v1, 3),
                        _mm_setr_epi8(-1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
                    ),
                    take(
                        _mm_srli_si128(v1, 4),
                        _mm_setr_epi8(0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0),
                    ),
                ),
                tail,
            );
            let dash = _mm_set1_epi8(b'-' as i8);
            // Characters 8 and 13 in the first 16, 18 and 23 in the next.
            let dashes = (_mm_movemask_epi8(_mm_cmpeq_epi8(v0, dash)) & 0x2100) == 0x2100
                && (_mm_movemask_epi8(_mm_cmpeq_epi8(v1, dash)) & 0x0084) == 0x0084;
            // Nibbles of 16 characters, and a mask of the valid ones.
            let nibbles = |c: __m128i| {
                let d = _mm_sub_epi8(c, _mm_set1_epi8(b'0' as i8));
                let is_digit = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
                let a = _mm_sub_epi8(c, _mm_set1_epi8(b'a' as i8));
                let is_letter = _mm_cmpeq_epi8(_mm_min_epu8(a, _mm_set1_epi8(5)), a);
                let value = _mm_or_si128(
                    _mm_and_si128(is_digit, d),
                    _mm_and_si128(is_letter, _mm_add_epi8(a, _mm_set1_epi8(10))),
                );
                (value, _mm_or_si128(is_digit, is_letter))
            };
            let (a, ok_a) = nibbles(a);
            let (b, ok_b) = nibbles(b);
            if !dashes || _mm_movemask_epi8(_mm_and_si128(ok_a, ok_b)) != 0xffff {
                return None;
            }
            // Two characters per u16, the first in its low byte: one byte.
            let pair = |x: __m128i| {
                _mm_or_si128(
                    _mm_slli_epi16(_mm_and_si128(x, _mm_set1_epi16(0xff)), 4),
                    _mm_srli_epi16(x, 8),
                )
            };
            let mut bytes = [0u8; 16];
            _mm_storeu_si128(
                bytes.as_mut_ptr().cast(),
                _mm_packus_epi16(pair(a), pair(b)),
            );
            Some(u128::from_be_bytes(bytes))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "x86_64")]
    use crate::encoding::randoms;

    /// The SSE2 UUID codec against the portable one: random values, and
    /// every byte value at every position of a valid string.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_uuid_matches_the_portable_codec() {
        for v in randoms(100) {
            let (mut fast, mut portable) = ([0u8; UUID_LEN], [0u8; UUID_LEN]);
            sse2::encode_uuid(v, &mut fast);
            encode_uuid_portable(v, &mut portable);
            assert_eq!(fast, portable);
            assert_eq!(sse2::decode_uuid(&fast), Some(v));
            for i in 0..UUID_LEN {
                let mut s = portable;
                for byte in 0..=255 {
                    s[i] = byte;
                    assert_eq!(sse2::decode_uuid(&s), decode_uuid_portable(&s), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn uuid_strings_are_canonical() {
        let v = 0x030d98d59b818400800000000000098e;
        let mut buf = [0; UUID_LEN];
        let s = encode_uuid(v, &mut buf);
        assert_eq!(s, "030d98d5-9b81-8400-8000-00000000098e");
        assert_eq!(decode_uuid(s.as_bytes()), Ok(v));
        let bad = |s: &str, byte: u8, index: usize| {
            assert_eq!(
                decode_uuid(s.as_bytes()),
                Err(Error::new(ErrorKind::Char { byte, index }))
            );
        };
        bad("030D98d5-9b81-8400-8000-00000000098e", b'D', 3);
        bad("030d98d5_9b81-8400-8000-00000000098e", b'_', 8);
        bad("030d98d5-9b81-8400-8000-00000000098g", b'g', 35);
        bad("030d98d5-9b81-8400-8000000000000098e", b'0', 23);
    }
}
