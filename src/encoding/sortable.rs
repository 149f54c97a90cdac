//! The sortable strings: 16 characters of 6 bits (a global id) or 4 bits
//! (a local id) from an alphabet in ASCII order, so strings sort as ids do.

use super::{as_str, length, table};
use crate::error::{Error, ErrorKind, Result};

/// Length of the sortable string, for global and local ids alike.
pub(crate) const STRING_LEN: usize = 16;

/// The sortable alphabet: ASCII order equals value order.
const SORTABLE: &[u8; 64] = b".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";

static SORTABLE_DIGITS: [u8; 256] = table(SORTABLE);

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

/// Writes the 4-bit sortable string of 8 big-endian bytes (a local id's)
/// into `buf`: each byte's two nibbles in order, read from the bytes as
/// they are stored, with no detour through an integer.
#[inline]
pub(crate) fn encode_nibbles<'b>(bytes: &[u8; 8], buf: &'b mut [u8; STRING_LEN]) -> &'b str {
    #[cfg(target_arch = "x86_64")]
    sse2::encode_nibbles(bytes, buf);
    #[cfg(not(target_arch = "x86_64"))]
    encode_nibbles_portable(bytes, buf);
    as_str(buf)
}

/// [`encode_nibbles`] a byte at a time.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn encode_nibbles_portable(bytes: &[u8; 8], out: &mut [u8; STRING_LEN]) {
    for (pair, &b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = SORTABLE[usize::from(b >> 4)];
        pair[1] = SORTABLE[usize::from(b & 0xf)];
    }
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
    Error::new(ErrorKind::Char {
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
            _mm_storeu_si128(out.as_mut_ptr().cast(), symbols(x));
        }
    }

    /// Writes the 4-bit sortable string of 8 big-endian bytes.
    #[inline]
    pub(super) fn encode_nibbles(bytes: &[u8; 8], out: &mut [u8; 16]) {
        // SAFETY: SSE2 is always present on x86_64; the load reads exactly
        // the 8 bytes of `bytes`, the store writes the 16 of `out`.
        unsafe {
            let x = _mm_loadl_epi64(bytes.as_ptr().cast());
            let low = _mm_set1_epi8(0x0f);
            let hi = _mm_and_si128(_mm_srli_epi16(x, 4), low);
            let lo = _mm_and_si128(x, low);
            let cells = _mm_unpacklo_epi8(hi, lo);
            _mm_storeu_si128(out.as_mut_ptr().cast(), symbols(cells));
        }
    }

    /// Maps 16 byte cells (each below 64) to the sortable alphabet.
    #[inline]
    unsafe fn symbols(x: __m128i) -> __m128i {
        // SAFETY: SSE2 arithmetic on registers only.
        unsafe {
            let ge = |k: i8| _mm_cmpgt_epi8(x, _mm_set1_epi8(k - 1));
            let e = _mm_add_epi8(x, _mm_set1_epi8(46));
            let e = _mm_sub_epi8(e, ge(1));
            let e = _mm_add_epi8(e, _mm_and_si128(ge(11), _mm_set1_epi8(7)));
            let e = _mm_add_epi8(e, _mm_and_si128(ge(37), _mm_set1_epi8(4)));
            _mm_sub_epi8(e, ge(38))
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
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "x86_64")]
    use crate::encoding::randoms;

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

    /// The nibble encoder of a local id's bytes against the portable one
    /// and against the encoder of its value.
    #[test]
    fn nibbles_match_the_value_encoder() {
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bytes = x.to_be_bytes();
            let (mut a, mut b, mut c) = ([0; 16], [0; 16], [0; 16]);
            encode_nibbles_portable(&bytes, &mut a);
            assert_eq!(encode_nibbles(&bytes, &mut b).as_bytes(), &a);
            assert_eq!(
                encode_sortable::<4, 16>(u128::from(x), &mut c).as_bytes(),
                &a
            );
        }
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
