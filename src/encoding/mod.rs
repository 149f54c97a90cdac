//! The codecs, as plain functions over an id's value (an unsigned integer
//! of 64, 96 or 128 bits): their bytes, the sortable strings, base62, the
//! UUID string and cells. The [`Id`](crate::Id) trait puts them on every id type.

mod base62;
mod bytes;
mod cells;
mod sortable;
mod uuid;

pub(crate) use self::base62::{decode_base62, encode_base62};
pub(crate) use self::bytes::{bytes96, bytes96_halves, from_bytes96};
pub(crate) use self::cells::{fold, split};
pub(crate) use self::sortable::{STRING_LEN, decode_sortable, encode_nibbles, encode_sortable};
pub(crate) use self::uuid::{decode_uuid, encode_uuid, hex};

use crate::error::{Error, ErrorKind};

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

/// The error of a value of the wrong length.
pub(crate) fn length(expected: usize, found: usize) -> Error {
    Error::new(ErrorKind::Length { expected, found })
}

/// The encoders write only alphabet bytes (ASCII) after an ASCII prefix.
#[inline]
fn as_str(buf: &[u8]) -> &str {
    debug_assert!(buf.is_ascii());
    // SAFETY: every byte written comes from SORTABLE, BASE62 or HEX (the
    // SSE2 encoders compute the same bytes, tested against the tables), or
    // is `-` or the padding `0`, all ASCII; the only prefixes callers leave
    // are ASCII (`*` for local JSON).
    unsafe { core::str::from_utf8_unchecked(buf) }
}

/// `n` values of a xorshift generator, so failures replay.
#[cfg(all(test, target_arch = "x86_64"))]
fn randoms(n: usize) -> impl Iterator<Item = u128> {
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    (0..n).map(move |_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x as u128) << 64 | x.rotate_left(29) as u128
    })
}
