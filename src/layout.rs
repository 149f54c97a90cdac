//! Where each part of an id sits: the bit arithmetic both generations of
//! the Go library share.
//!
//! ```text
//! local  (64 bits):        | code: 3 | tick: 47                      | seq: 14 |
//! global (64 + n bits):    | code: 3 | tick >> d | node: n | tick & (2^d-1) | seq: 14 |
//! ```
//! `tick = ns >> 17`. A global id is its local id with an `n`-bit node
//! inserted at bit `14 + d`, where `d`, the window, is what the drift code
//! selects: `18 + code` in v2, a ladder in v3. `n` is 32 for the global
//! ids of both generations and 58 for the payload of v3's 128-bit id,
//! which [`splice_uuid`] wraps in a UUIDv8. Callers pass the window, never
//! a code: the code → window table is all that differs between the
//! generations.

use crate::error::{Error, ErrorKind, Result};

/// Bits of the sequence.
pub(crate) const SEQ_BITS: u32 = 14;
/// The largest sequence number.
pub(crate) const SEQ_MAX: u64 = (1 << SEQ_BITS) - 1;
/// Nanoseconds per tick, as a shift: one tick is 2^17 ns ≈ 131 µs.
pub(crate) const TICK_SHIFT: u32 = 17;
/// Mask of the 47 tick bits.
pub(crate) const TICK_MASK: u64 = (1 << 47) - 1;
/// Node bits of a global id (both generations).
pub(crate) const NODE_BITS_G: u32 = 32;
/// Node bits of a v3 128-bit id.
pub(crate) const NODE_BITS_X: u32 = 58;

/// The tick of a Unix time in nanoseconds.
#[inline]
pub(crate) const fn tick(ns: u64) -> u64 {
    ns >> TICK_SHIFT
}

/// Packs a local id. `low` is ORed in unmasked: it is the sequence for
/// every id but v2's `Diff`, which ORs a wrapped difference.
#[inline]
pub(crate) const fn pack_l(code: u8, tick: u64, low: u64) -> u64 {
    (code as u64 & 7) << 61 | (tick & TICK_MASK) << SEQ_BITS | low
}

/// A part of an id, or the error for one wider than its `bits`.
pub(crate) const fn check(value: u64, name: &'static str, bits: u32) -> Result<u64> {
    let max = u64::MAX >> (64 - bits);
    if value > max {
        Err(Error::new(ErrorKind::Part { name, value, max }))
    } else {
        Ok(value)
    }
}

/// The drift code of a local id.
#[inline]
pub(crate) const fn code_l(v: u64) -> u8 {
    (v >> 61) as u8
}

/// The tick of a local id.
#[inline]
pub(crate) const fn tick_l(v: u64) -> u64 {
    (v >> SEQ_BITS) & TICK_MASK
}

/// The global value of local id `local` stamped with `node`: the node's
/// low `node_bits` inserted at bit `14 + window`.
#[inline]
pub(crate) const fn insert_node(local: u64, window: u32, node: u64, node_bits: u32) -> u128 {
    let cut = SEQ_BITS + window;
    let node = node & ((1 << node_bits) - 1);
    let low = local & ((1 << cut) - 1);
    if node_bits == 32 && cut >= 32 {
        // A 96-bit id, whose cut is never below 32: its low 32 bits are
        // the local id's, and the 64 above them one word's arithmetic,
        // with no 128-bit shift.
        let top = (local ^ low) | node << (cut - 32) | low >> 32;
        return (top as u128) << 32 | (local as u32) as u128;
    }
    // The bits above the cut move up by the node's width, a constant shift;
    // `cut & 63` (it is at most 44) spares the variable shift a branch.
    ((local ^ low) as u128) << node_bits | (node as u128) << (cut & 63) | low as u128
}

/// The local id and the node of a global value: [`insert_node`] undone.
#[inline]
pub(crate) const fn remove_node(v: u128, window: u32, node_bits: u32) -> (u64, u64) {
    let cut = SEQ_BITS + window;
    let mask = (1 << cut) - 1;
    let node = (v >> (cut & 63)) as u64 & ((1 << node_bits) - 1);
    let local = (v >> node_bits) as u64 & !mask | v as u64 & mask;
    (local, node)
}

/// The 12 big-endian bytes of a 96-bit value, written as 8 + 4 bytes: the
/// split [`from_bytes96`] reads, so that a freshly written id is forwarded
/// from the store buffer to its reader.
#[inline]
pub(crate) const fn bytes96(v: u128) -> [u8; 12] {
    let t = ((v >> 32) as u64).to_be_bytes();
    let b = (v as u32).to_be_bytes();
    [
        t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], b[0], b[1], b[2], b[3],
    ]
}

/// The 12 big-endian bytes of `high << 64 | low` (`high` < 2^32), written
/// as 4 + 8 bytes: in a batch that counts `low`, one store of the constant
/// top and one swap and store an id.
#[inline]
pub(crate) const fn bytes96_halves(high: u64, low: u64) -> [u8; 12] {
    let t = (high as u32).to_be_bytes();
    let b = low.to_be_bytes();
    [
        t[0], t[1], t[2], t[3], b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
    ]
}

/// The 96-bit value of 12 big-endian bytes, read as 8 + 4 bytes.
#[inline]
pub(crate) const fn from_bytes96(b: &[u8; 12]) -> u128 {
    let top = u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    (top as u128) << 32 | u32::from_be_bytes([b[8], b[9], b[10], b[11]]) as u128
}

/// Go v3's ring order of two global values of one window (the same drift
/// code): the high tick bits, then the node counted from `reference`
/// around the ring of `2^node_bits` nodes, then the low tick bits and the
/// sequence.
pub(crate) fn cmp_ring(
    a: u128,
    b: u128,
    window: u32,
    node_bits: u32,
    reference: u64,
) -> core::cmp::Ordering {
    let key = |v: u128| {
        let (local, node) = remove_node(v, window, node_bits);
        let cut = SEQ_BITS + window;
        let around = node.wrapping_sub(reference) & ((1 << node_bits) - 1);
        (local >> cut, around, local & ((1 << cut) - 1))
    };
    key(a).cmp(&key(b))
}

/// Bits 62..=63 of a UUID: the RFC 9562 variant `0b10`.
const UUID_VARIANT: u128 = 0b10 << 62;
/// Bits 76..=79 of a UUID: version 8.
const UUID_VERSION: u128 = 0b1000 << 76;
/// Mask of the low 62 payload bits.
const LOW62: u128 = (1 << 62) - 1;

/// The UUIDv8 of a 122-bit payload: the payload's bits 0..62 stay, the
/// variant takes bits 62..64, payload bits 62..74 move to 64..76, the
/// version takes 76..80 and payload bits 74..122 move to 80..128.
#[inline]
pub(crate) const fn splice_uuid(p: u128) -> u128 {
    p & LOW62 | UUID_VARIANT | (p >> 62 & 0xfff) << 64 | UUID_VERSION | (p >> 74) << 80
}

/// The payload of a UUIDv8: [`splice_uuid`] undone.
#[inline]
pub(crate) const fn unsplice_uuid(x: u128) -> u128 {
    x & LOW62 | (x >> 64 & 0xfff) << 62 | (x >> 80) << 74
}

/// The version nibble and the two variant bits of a UUID.
#[inline]
pub(crate) const fn uuid_version_variant(x: u128) -> (u8, u8) {
    ((x >> 76) as u8 & 0xf, (x >> 62) as u8 & 0b11)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_insertion_round_trips_at_every_window() {
        let local = 0xa30d_98ed_274f_bfff;
        for window in 0..=30 {
            for (node, bits) in [(0xdead_beef, 32), (0x3ff_ffff_ffff_ffff, 58)] {
                let v = insert_node(local, window, node, bits);
                assert_eq!(remove_node(v, window, bits), (local, node));
                assert_eq!((v >> (61 + bits)) as u8, code_l(local));
            }
        }
    }

    #[test]
    fn a_96_bit_id_packed_in_one_word_is_the_128_bit_packing() {
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..10_000 {
            // xorshift: locals and nodes of every bit pattern
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (local, node) = (x, x.rotate_left(29));
            for window in 18..=30 {
                let cut = SEQ_BITS + window;
                let low = local & ((1 << cut) - 1);
                let wide = ((local ^ low) as u128) << 32
                    | ((node & 0xffff_ffff) as u128) << cut
                    | low as u128;
                assert_eq!(insert_node(local, window, node, 32), wide);
            }
        }
    }

    #[test]
    fn uuid_splice_round_trips_and_marks_version_8() {
        for p in [
            0,
            (1 << 122) - 1,
            0x0123_4567_89ab_cdef_0123_4567_89ab_cdef >> 6,
        ] {
            let x = splice_uuid(p);
            assert_eq!(uuid_version_variant(x), (8, 0b10));
            assert_eq!(unsplice_uuid(x), p);
        }
    }
}
