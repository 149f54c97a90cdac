//! Text and cell encodings shared by global and local ids, on their value
//! as an unsigned integer of `bits` bits (96 or 64).

use crate::error::{Error, ErrorKind, Result};

/// Length of the sortable string, for global and local ids alike.
pub(crate) const STRING_LEN: usize = 16;

/// The sortable alphabet: ASCII order equals value order.
const SORTABLE: &[u8; 64] = b".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";

/// The base62 alphabet.
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Byte → digit for an alphabet, `INVALID` for bytes outside it.
const INVALID: u8 = 0xff;

const fn table(alphabet: &[u8]) -> [u8; 256] {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < alphabet.len() {
        t[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    t
}

static SORTABLE_DIGITS: [u8; 256] = table(SORTABLE);
static BASE62_DIGITS: [u8; 256] = table(BASE62);

/// Writes the sortable string of a value of `16 * W` bits (W = 6 for a
/// global id, 4 for a local one) into the last 16 bytes of `buf` and
/// returns the whole buffer, so a caller may put a prefix in front; the
/// prefix must be ASCII.
#[inline]
pub(crate) fn encode_sortable<const W: u32, const N: usize>(v: u128, buf: &mut [u8; N]) -> &str {
    const { assert!(N >= STRING_LEN && (W == 4 || W == 6)) };
    // Eight characters per u64: the cells spread into bytes, then mapped to
    // the alphabet with byte-wise arithmetic, without a table.
    let half = 8 * W;
    let (top, bottom) = ((v >> half) as u64, v as u64 & ((1 << half) - 1));
    let out = buf
        .last_chunk_mut::<STRING_LEN>()
        .expect("N >= 16, asserted above");
    #[cfg(target_arch = "x86_64")]
    sse2::encode::<W>(top, bottom, out);
    #[cfg(not(target_arch = "x86_64"))]
    {
        out[..8].copy_from_slice(&to_sortable(spread::<W>(top)).to_be_bytes());
        out[8..].copy_from_slice(&to_sortable(spread::<W>(bottom)).to_be_bytes());
    }
    as_str(buf)
}

/// 0x01 in every byte.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
const ONES: u64 = 0x0101_0101_0101_0101;

/// Puts eight W-bit cells of `x` (the first in the top bits) into the eight
/// bytes of a u64, the first cell in the top byte.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
const fn spread<const W: u32>(x: u64) -> u64 {
    if W == 6 {
        let y = (x & 0xffff_ff00_0000) << 8 | x & 0xff_ffff;
        let y = (y & 0x00ff_f000_00ff_f000) << 4 | y & 0x0000_0fff_0000_0fff;
        (y & 0x0fc0_0fc0_0fc0_0fc0) << 2 | y & 0x003f_003f_003f_003f
    } else {
        let y = (x & 0xffff_0000) << 16 | x & 0xffff;
        let y = (y & 0x0000_ff00_0000_ff00) << 8 | y & 0x0000_00ff_0000_00ff;
        (y & 0x00f0_00f0_00f0_00f0) << 4 | y & 0x000f_000f_000f_000f
    }
}

/// Maps eight byte cells (each below 64) to the sortable alphabet:
/// `.`=0, `0-9`=1..10, `A-Z`=11..36, `_`=37, `a-z`=38..63.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
const fn to_sortable(y: u64) -> u64 {
    // 1 in each byte whose cell is at least `k` (cells < 128: no carries).
    const fn at_least(y: u64, k: u64) -> u64 {
        (y + (128 - k) * ONES) >> 7 & ONES
    }
    y + 46 * ONES + at_least(y, 1) + 7 * at_least(y, 11) + 4 * at_least(y, 37) + at_least(y, 38)
}

/// Reads a sortable string of a value of `16 * W` bits.
#[inline]
pub(crate) fn decode_sortable<const W: u32>(s: &[u8]) -> Result<u128> {
    let s: &[u8; STRING_LEN] = s.try_into().map_err(|_| length(STRING_LEN, s.len()))?;
    #[cfg(target_arch = "x86_64")]
    let halves = sse2::decode::<W>(s);
    #[cfg(not(target_arch = "x86_64"))]
    let halves = decode_halves::<W>(s);
    match halves {
        Some((top, bottom)) => Ok((top as u128) << (8 * W) | bottom as u128),
        None => Err(bad_char::<W>(s)),
    }
}

/// The two halves' values of a sortable string of W-bit cells, or None if
/// a byte is outside the first 2^W symbols.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn decode_halves<const W: u32>(s: &[u8; STRING_LEN]) -> Option<(u64, u64)> {
    // Independent shifted terms, not one serial shift-or chain, and the
    // raw digits ORed alongside for the check.
    let (mut top, mut bottom, mut seen) = (0u64, 0u64, 0u8);
    for i in 0..8 {
        let (a, b) = (
            SORTABLE_DIGITS[s[i] as usize],
            SORTABLE_DIGITS[s[i + 8] as usize],
        );
        seen |= a | b;
        let shift = W * (7 - i as u32);
        top |= (a as u64) << shift;
        bottom |= (b as u64) << shift;
    }
    // One branch for the whole string: an invalid byte (0xff) or, for 4-bit
    // cells, a digit past the 16 symbols sets bits above the cell width.
    (seen >> W == 0).then_some((top, bottom))
}

/// The error of the first character outside the alphabet of W-bit cells.
#[cold]
fn bad_char<const W: u32>(s: &[u8; STRING_LEN]) -> Error {
    let index = s
        .iter()
        .position(|&c| SORTABLE_DIGITS[c as usize] >> W != 0)
        .unwrap_or(0);
    Error(ErrorKind::Char {
        byte: s[index],
        index,
    })
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use core::arch::x86_64::*;

    /// Writes the sortable string of two halves of 8W bits each.
    #[inline]
    pub(super) fn encode<const W: u32>(top: u64, bottom: u64, out: &mut [u8; 16]) {
        // SAFETY: SSE2 is always present on x86_64; the store writes exactly
        // the 16 bytes of `out`, unaligned.
        unsafe {
            let x = _mm_set_epi64x(bottom as i64, top as i64);
            let w = |n: u32| _mm_cvtsi32_si128(n as i32);
            // Split each level in two, the upper half to the lower address.
            let x = _mm_or_si128(
                _mm_srl_epi64(x, w(4 * W)),
                _mm_slli_epi64(_mm_and_si128(x, _mm_set1_epi64x((1 << (4 * W)) - 1)), 32),
            );
            let x = _mm_or_si128(
                _mm_srl_epi32(x, w(2 * W)),
                _mm_slli_epi32(_mm_and_si128(x, _mm_set1_epi32((1 << (2 * W)) - 1)), 16),
            );
            let x = _mm_or_si128(
                _mm_srl_epi16(x, w(W)),
                _mm_slli_epi16(_mm_and_si128(x, _mm_set1_epi16((1 << W) - 1)), 8),
            );
            let ge = |k: i8| _mm_cmpgt_epi8(x, _mm_set1_epi8(k - 1));
            let e = _mm_add_epi8(x, _mm_set1_epi8(46));
            let e = _mm_sub_epi8(e, ge(1));
            let e = _mm_add_epi8(e, _mm_and_si128(ge(11), _mm_set1_epi8(7)));
            let e = _mm_add_epi8(e, _mm_and_si128(ge(37), _mm_set1_epi8(4)));
            let e = _mm_sub_epi8(e, ge(38));
            _mm_storeu_si128(out.as_mut_ptr().cast(), e);
        }
    }

    /// The two halves' values of a sortable string of W-bit cells, or None
    /// if a byte is outside the first 2^W symbols. SSE2 is part of x86_64.
    #[inline]
    pub(super) fn decode<const W: u32>(s: &[u8; 16]) -> Option<(u64, u64)> {
        // SAFETY: SSE2 is always present on x86_64; the load reads exactly
        // the 16 bytes of `s`, unaligned.
        unsafe {
            let c = _mm_loadu_si128(s.as_ptr().cast());
            let ge = |k: u8| _mm_cmpgt_epi8(c, _mm_set1_epi8(k as i8 - 1));
            // Cells from characters: the mask of each step is -1.
            let d = _mm_sub_epi8(c, _mm_set1_epi8(46));
            let d = _mm_add_epi8(d, ge(b'0'));
            let d = _mm_sub_epi8(d, _mm_and_si128(ge(b'A'), _mm_set1_epi8(7)));
            let d = _mm_sub_epi8(d, _mm_and_si128(ge(b'_'), _mm_set1_epi8(4)));
            let d = _mm_add_epi8(d, ge(b'a'));
            // Valid: every cell in 0..2^W maps back to its character.
            let dge = |k: i8| _mm_cmpgt_epi8(d, _mm_set1_epi8(k - 1));
            let e = _mm_add_epi8(d, _mm_set1_epi8(46));
            let e = _mm_sub_epi8(e, dge(1));
            let e = _mm_add_epi8(e, _mm_and_si128(dge(11), _mm_set1_epi8(7)));
            let e = _mm_add_epi8(e, _mm_and_si128(dge(37), _mm_set1_epi8(4)));
            let e = _mm_sub_epi8(e, dge(38));
            let out = _mm_or_si128(
                _mm_cmplt_epi8(d, _mm_setzero_si128()),
                _mm_cmpgt_epi8(d, _mm_set1_epi8((1i8 << W) - 1)),
            );
            let ok = _mm_andnot_si128(out, _mm_cmpeq_epi8(e, c));
            if _mm_movemask_epi8(ok) != 0xffff {
                return None;
            }
            // Pack: bytes to 2W bits per u16, 4W per u32, 8W per u64, the
            // earlier character on top.
            let x = _mm_or_si128(
                _mm_sll_epi16(
                    _mm_and_si128(d, _mm_set1_epi16(0xff)),
                    _mm_cvtsi32_si128(W as i32),
                ),
                _mm_srli_epi16(d, 8),
            );
            let x = _mm_or_si128(
                _mm_sll_epi32(
                    _mm_and_si128(x, _mm_set1_epi32(0xffff)),
                    _mm_cvtsi32_si128(2 * W as i32),
                ),
                _mm_srli_epi32(x, 16),
            );
            let x = _mm_or_si128(
                _mm_sll_epi64(
                    _mm_and_si128(x, _mm_set1_epi64x(0xffff_ffff)),
                    _mm_cvtsi32_si128(4 * W as i32),
                ),
                _mm_srli_epi64(x, 32),
            );
            let top = _mm_cvtsi128_si64(x) as u64;
            let bottom = _mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x)) as u64;
            Some((top, bottom))
        }
    }

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
            return Err(Error(ErrorKind::LeadingZero));
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
        return Err(Error(ErrorKind::Char {
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
        _ => Err(Error(ErrorKind::Overflow { bits })),
    }
}

/// 62^10.
const P10: u64 = 839_299_365_868_340_224;

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
    Error(ErrorKind::Char {
        byte: s[index],
        index,
    })
}

/// Cuts a `bits`-wide value into `n`-bit cells from the top (Go's `Split`);
/// leftover low bits are dropped.
pub(crate) fn split(v: u128, bits: u32, n: u32) -> Result<Vec<u8>> {
    check_cell_width(n)?;
    let mask = (1u128 << n) - 1;
    Ok((1..=bits / n)
        .map(|i| ((v >> (bits - n * i)) & mask) as u8)
        .collect())
}

/// Puts `n`-bit cells back together (Go's `Fold`): exactly `bits / n` cells,
/// each below 2^n; the dropped low bits are zero.
pub(crate) fn fold(cells: &[u8], bits: u32, n: u32) -> Result<u128> {
    check_cell_width(n)?;
    let count = (bits / n) as usize;
    if cells.len() != count {
        return Err(length(count, cells.len()));
    }
    let mut v = 0u128;
    for (index, &value) in cells.iter().enumerate() {
        if u32::from(value) >> n != 0 {
            return Err(Error(ErrorKind::Cell { value, index }));
        }
        v = v << n | value as u128;
    }
    Ok(v << (bits % n))
}

fn check_cell_width(n: u32) -> Result<()> {
    if (1..=8).contains(&n) {
        Ok(())
    } else {
        Err(Error(ErrorKind::CellWidth(n)))
    }
}

pub(crate) fn length(expected: usize, found: usize) -> Error {
    Error(ErrorKind::Length { expected, found })
}

/// Implements an id type's encodings once for every family of both
/// generations, on its value as a `$bits`-bit integer (the type's
/// `to_u128`, and `from_u128` that checks it): bytes from a slice (the
/// type's `from_array` checks them), the text form `$text` (see
/// [`text_form`]), base62 of at most `$base62` digits in the style
/// `$pad`, and cells. `$go` is the letter Go's names end in (`FromStringG`,
/// `FoldL`). Conversions take the id by value: it is `Copy`.
macro_rules! id_codec {
    ($id:ident, bytes: $bytes:literal, bits: $bits:literal, go: $go:literal,
     text: $text:ident, base62: $base62:literal $pad:ident) => {
        impl $id {
            #[doc = concat!("Length of [`", stringify!($id), "::to_bytes`].")]
            pub const BYTES: usize = $bytes;
            #[doc = concat!("Length of the ", $crate::encoding::text_form!(doc $text), ".")]
            pub const STRING_LEN: usize = $crate::encoding::text_form!(len $text);
            /// The longest base62 string.
            pub const BASE62_LEN: usize = $base62;

            #[doc = concat!("The id of a byte slice of exactly ", $bytes, " big-endian bytes (Go's `FromBytes`).")]
            pub fn from_slice(bytes: &[u8]) -> $crate::Result<$id> {
                let bytes: [u8; $bytes] = bytes
                    .try_into()
                    .map_err(|_| $crate::encoding::length($bytes, bytes.len()))?;
                $id::from_array(bytes)
            }

            #[doc = concat!("Writes the ", $crate::encoding::text_form!(doc $text), " into `buf`, without allocating, and returns it (what `Display` prints).")]
            #[inline]
            pub fn encode(self, buf: &mut [u8; $crate::encoding::text_form!(len $text)]) -> &str {
                ($crate::encoding::text_form!(encode $text))(self.to_u128(), buf)
            }

            #[doc = concat!("Parses the ", $crate::encoding::text_form!(doc $text), " (Go's `FromString", $go, "`, minus its leniency), from bytes so that non-UTF-8 input is a typed error too.")]
            #[inline]
            pub fn parse_bytes(s: impl AsRef<[u8]>) -> $crate::Result<$id> {
                $id::from_u128(($crate::encoding::text_form!(decode $text))(s.as_ref())?)
            }

            #[doc = concat!("Writes the base62 string into `buf` and returns it (Go's `Base62`: ", $crate::encoding::text_form!(doc $pad), ", at most ", $base62, " characters).")]
            #[inline]
            pub fn encode_base62(self, buf: &mut [u8; $base62]) -> &str {
                $crate::encoding::encode_base62::<
                    $base62,
                    { ($bits as usize).div_ceil(32) },
                    { $crate::encoding::text_form!(fixed $pad) },
                >(self.to_u128(), buf)
            }

            /// The base62 string.
            pub fn to_base62(self) -> String {
                self.encode_base62(&mut [0; $base62]).to_owned()
            }

            #[doc = concat!("Parses a canonical base62 string (Go's `FromBase62`, minus its leniency: ", $crate::encoding::text_form!(doc $pad), ", at most ", $base62, " characters, nothing past ", $bits, " bits).")]
            #[inline]
            pub fn from_base62(s: impl AsRef<[u8]>) -> $crate::Result<$id> {
                $id::from_u128($crate::encoding::decode_base62(
                    s.as_ref(),
                    $bits,
                    $base62,
                    $crate::encoding::text_form!(fixed $pad),
                )?)
            }

            #[doc = concat!("The value cut into `n`-bit cells from the top, ", $bits, " / `n` of them, leftover low bits dropped (Go's `Split`); `n` in 1..=8.")]
            pub fn split(self, n: u32) -> $crate::Result<Vec<u8>> {
                $crate::encoding::split(self.to_u128(), $bits, n)
            }

            #[doc = concat!("Puts [`", stringify!($id), "::split`] cells back together (Go's `Fold", $go, "`).")]
            pub fn fold(n: u32, cells: &[u8]) -> $crate::Result<$id> {
                $id::from_u128($crate::encoding::fold(cells, $bits, n)?)
            }
        }
    };
}

pub(crate) use id_codec;

/// The text forms and base62 styles of [`id_codec`]: `global` and `local`
/// are the sortable strings of 6 and 4 bits a character, `uuid` the
/// canonical UUID string; base62 is `trimmed` (v2: leading zeros dropped)
/// or `fixed` (v3: zero-padded to its full width).
macro_rules! text_form {
    (len uuid) => {
        $crate::encoding::UUID_LEN
    };
    (len $sortable:ident) => {
        $crate::encoding::STRING_LEN
    };
    (encode global) => {
        $crate::encoding::encode_sortable::<6, { $crate::encoding::STRING_LEN }>
    };
    (encode local) => {
        $crate::encoding::encode_sortable::<4, { $crate::encoding::STRING_LEN }>
    };
    (encode uuid) => {
        $crate::encoding::encode_uuid
    };
    (decode global) => {
        $crate::encoding::decode_sortable::<6>
    };
    (decode local) => {
        $crate::encoding::decode_sortable::<4>
    };
    (decode uuid) => {
        $crate::encoding::decode_uuid
    };
    (doc global) => {
        "16-character sortable string (6 bits a character)"
    };
    (doc local) => {
        "16-character sortable string (4 bits a character)"
    };
    (doc uuid) => {
        "36-character canonical UUID string (lowercase hex, dashed 8-4-4-4-12)"
    };
    (doc trimmed) => {
        "leading zeros dropped"
    };
    (doc fixed) => {
        "zero-padded to its full width"
    };
    (fixed trimmed) => {
        false
    };
    (fixed fixed) => {
        true
    };
}

pub(crate) use text_form;

/// The encoders above write only alphabet bytes (ASCII) after an ASCII prefix.
#[inline]
fn as_str(buf: &[u8]) -> &str {
    debug_assert!(buf.is_ascii());
    // SAFETY: every byte written comes from SORTABLE, BASE62 or HEX (the
    // SSE2 encoders compute the same bytes, tested against the tables), or
    // is `-` or the padding `0`, all ASCII; the only prefixes callers leave
    // are ASCII (`*` for local JSON).
    unsafe { core::str::from_utf8_unchecked(buf) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` values of a xorshift generator, so failures replay.
    #[cfg(target_arch = "x86_64")]
    fn randoms(n: usize) -> impl Iterator<Item = u128> {
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        (0..n).map(move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x as u128) << 64 | x.rotate_left(29) as u128
        })
    }

    /// The SSE2 codec against the portable one: random values, and every
    /// byte value at every position of a valid string.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_matches_the_portable_codec() {
        fn check<const W: u32>(v: u128) {
            let half = 8 * W;
            let (top, bottom) = ((v >> half) as u64, v as u64 & ((1 << half) - 1));
            let mut portable = [0u8; STRING_LEN];
            portable[..8].copy_from_slice(&to_sortable(spread::<W>(top)).to_be_bytes());
            portable[8..].copy_from_slice(&to_sortable(spread::<W>(bottom)).to_be_bytes());
            let mut fast = [0u8; STRING_LEN];
            sse2::encode::<W>(top, bottom, &mut fast);
            assert_eq!(fast, portable);
            for i in 0..STRING_LEN {
                let mut s = portable;
                for byte in 0..=255 {
                    s[i] = byte;
                    assert_eq!(sse2::decode::<W>(&s), decode_halves::<W>(&s), "{s:?}");
                }
            }
        }
        for v in randoms(200) {
            check::<6>(v & ((1 << 96) - 1));
            check::<4>(v & ((1 << 64) - 1));
        }
    }

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
                Err(Error(ErrorKind::Overflow { bits: 128 }))
            );
        }
    }

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
                Err(Error(ErrorKind::Char { byte, index }))
            );
        };
        bad("030D98d5-9b81-8400-8000-00000000098e", b'D', 3);
        bad("030d98d5_9b81-8400-8000-00000000098e", b'_', 8);
        bad("030d98d5-9b81-8400-8000-00000000098g", b'g', 35);
        bad("030d98d5-9b81-8400-8000000000000098e", b'0', 23);
    }

    #[test]
    fn sortable_rejects_digits_past_the_local_alphabet() {
        let err = decode_sortable::<4>(b"52.F81E986821B4E").unwrap_err();
        assert_eq!(
            err.kind(),
            ErrorKind::Char {
                byte: b'F',
                index: 3
            }
        );
        assert!(decode_sortable::<4>(b"52.E81E986821B4E").is_ok());
    }
}
