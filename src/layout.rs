//! Where each part of an id sits: the one rule of both generations of the
//! Go library, and the [`Packing`] every id type states it through.
//!
//! ```text
//! local  (64 bits):        | code: 3 | tick: 47                      | seq: 14 |
//! global (64 + n bits):    | code: 3 | tick >> d | node: n | tick & (2^d-1) | seq: 14 |
//! ```
//! `tick = ns >> 17`. A global id is its local id with an `n`-bit node
//! inserted at bit `14 + d`, where `d`, the window, is what the drift code
//! selects ([`Ladder`]): `18 + code` in v2, a ladder in v3. `n` is 32 for
//! the global ids of both generations and 58 for the payload of v3's
//! 128-bit id, which [`splice_uuid`] wraps in a UUIDv8. The code → window
//! table, and what each generation's encodings do their own way, is all
//! that differs between the generations.

use core::cmp::Ordering;

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

/// The window bits of each v3 drift code (Go's `driftLadder`).
const LADDER_V3: [u32; 8] = [0, 14, 17, 19, 21, 23, 25, 30];

/// The window of a v2 drift code: `18 + code`.
#[inline]
pub(crate) const fn window_v2(code: u8) -> u32 {
    18 + code as u32
}

/// The window of a v3 drift code: its rung of the ladder.
#[inline]
pub(crate) const fn window_v3(code: u8) -> u32 {
    LADDER_V3[(code & 7) as usize]
}

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

/// The local value of a time in Unix nanoseconds (kept to the tick) and a
/// sequence, or the error for a sequence wider than 14 bits.
pub(crate) const fn compose_l(code: u8, time_ns: u64, seq: u16) -> Result<u64> {
    match check(seq as u64, "seq", SEQ_BITS) {
        Ok(seq) => Ok(pack_l(code, tick(time_ns), seq)),
        Err(e) => Err(e),
    }
}

/// The payload of the zero id of a drift code: node, time and sequence 0.
#[inline]
pub(crate) const fn zero(code: u8, node_bits: u32) -> u128 {
    ((code & 7) as u128) << (61 + node_bits)
}

/// The payload of the largest id: every bit of `64 + node_bits` set.
#[inline]
pub(crate) const fn max(node_bits: u32) -> u128 {
    u128::MAX >> (64 - node_bits)
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

/// Go v3's ring order of two global values of one window (the same drift
/// code): the high tick bits, then the node counted from `reference`
/// around the ring of `2^node_bits` nodes, then the low tick bits and the
/// sequence.
fn cmp_ring(a: u128, b: u128, window: u32, node_bits: u32, reference: u64) -> Ordering {
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

/// The text form of an id type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Text {
    /// 16 characters of the sortable alphabet, `bits` (6 or 4) each.
    Sortable {
        /// Bits a character.
        bits: u32,
    },
    /// The canonical UUID string.
    Uuid,
}

/// A generation's drift codes, stated by its drift type: the window each
/// code selects and what the generation's ids do their own way.
pub trait Ladder: Copy {
    /// Base62 strings are zero-padded to their longest length (v3), not
    /// written without leading zeros (v2).
    const PADDED_BASE62: bool;
    /// `epoch` reads a time of 2^63 or more as an inverse clock's (v3).
    const EPOCH_READS_DIRECTION: bool;
    /// The bits of the wrapped sequence difference `diff` keeps: v2 ORs it
    /// in unmasked, as Go v2 does; v3 keeps its 14 bits.
    const DIFF_SEQ_MASK: u64;

    /// The window (low tick bits below the node) of a drift code.
    fn window(code: u8) -> u32;
}

impl Ladder for crate::Drift {
    const PADDED_BASE62: bool = false;
    const EPOCH_READS_DIRECTION: bool = false;
    const DIFF_SEQ_MASK: u64 = u64::MAX;

    #[inline]
    fn window(code: u8) -> u32 {
        window_v2(code)
    }
}

impl Ladder for crate::v3::Drift {
    const PADDED_BASE62: bool = true;
    const EPOCH_READS_DIRECTION: bool = true;
    const DIFF_SEQ_MASK: u64 = SEQ_MAX;

    #[inline]
    fn window(code: u8) -> u32 {
        window_v3(code)
    }
}

/// Where an id's parts sit, which only the crate states: the trait cannot
/// be implemented, nor its methods called, outside it. A type states its
/// text form, its node bits and how its payload is stored; the rest
/// follows from this module's rule.
pub trait Packing: Sized + Copy {
    /// The text form.
    const TEXT: Text;
    /// The node bits, 0 for a local id.
    const NODE: u32;

    /// The id of a payload with a valid drift code.
    fn from_payload(p: u128) -> Self;

    /// Reads the text form (and, for v2's local id, Go's JSON form).
    fn parse_text(s: &[u8]) -> Result<Self>;

    /// The id of the payload `high << 64 | low`, for a batch that counts
    /// `low` under a fixed `high` (a type may store it the cheaper way for
    /// that).
    #[inline]
    fn from_halves(high: u64, low: u64) -> Self {
        Self::from_payload(u128::from(high) << 64 | u128::from(low))
    }

    /// The window (low tick bits below the node) of a drift code.
    #[inline]
    fn window(code: u8) -> u32
    where
        Self: crate::Id,
    {
        <Self as crate::Id>::Drift::window(code)
    }

    /// The value without the UUID's fixed bits: the drift code in its top
    /// 3 bits of `64 + NODE`.
    #[inline]
    fn payload(&self) -> u128
    where
        Self: crate::Id,
    {
        match Self::TEXT {
            Text::Uuid => unsplice_uuid(self.to_u128()),
            Text::Sortable { .. } => self.to_u128(),
        }
    }

    /// The drift code.
    #[inline]
    fn code(&self) -> u8
    where
        Self: crate::Id,
    {
        (self.payload() >> (61 + Self::NODE)) as u8 & 7
    }

    /// The local id's value and the node.
    #[inline]
    fn parts(&self) -> (u64, u64)
    where
        Self: crate::Id,
    {
        let p = self.payload();
        if Self::NODE == 0 {
            return (p as u64, 0);
        }
        remove_node(p, Self::window(self.code()), Self::NODE)
    }

    /// The id of a local id's value stamped with `node`.
    #[inline]
    fn stamp(local: u64, node: u64) -> Self
    where
        Self: crate::Id,
    {
        if Self::NODE == 0 {
            return Self::from_payload(local as u128);
        }
        let window = Self::window(code_l(local));
        Self::from_payload(insert_node(local, window, node, Self::NODE))
    }

    /// Packs a clock state `tick << 14 | seq` (a carry past 14 bits is the
    /// tick's, so it never reaches the node).
    #[inline]
    fn from_state(code: u8, node: u64, state: u64) -> Self
    where
        Self: crate::Id,
    {
        Self::stamp(pack_l(code, state >> SEQ_BITS, state & SEQ_MAX), node)
    }

    /// The distance from `other` to `self` (Go's `Diff`): times and
    /// sequences subtracted with wrap-around, packed with `self`'s node and
    /// drift, the sequence kept to [`Ladder::DIFF_SEQ_MASK`].
    #[inline]
    fn diff_of(&self, other: &Self) -> Self
    where
        Self: crate::Id,
    {
        let (local, node) = self.parts();
        let t = tick_l(local).wrapping_sub(tick_l(other.parts().0));
        let s = (local & SEQ_MAX).wrapping_sub(other.parts().0 & SEQ_MAX);
        let p = Self::stamp(pack_l(code_l(local), t, 0), node).payload();
        Self::from_payload(p | (s & <Self as crate::Id>::Drift::DIFF_SEQ_MASK) as u128)
    }

    /// Go v3's ring order around `reference` (taken modulo `2^NODE`): by
    /// drift code, then the time above the window, then the node counted
    /// from `reference`, then the time within the window and the sequence.
    fn ring(&self, other: &Self, reference: u64) -> Ordering
    where
        Self: crate::Id,
    {
        let code = self.code();
        code.cmp(&other.code()).then_with(|| {
            let (window, bits) = (Self::window(code), Self::NODE);
            let reference = reference & (u64::MAX >> (64 - bits));
            cmp_ring(self.payload(), other.payload(), window, bits, reference)
        })
    }
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
