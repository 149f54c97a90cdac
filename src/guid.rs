//! The 96-bit global id.

use crate::drift::Drift;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{self, NODE_BITS_G, SEQ_BITS, SEQ_MAX};
use crate::local::Luid;

/// A 96-bit global id: drift, time, node and sequence, unique across nodes.
///
/// Stored as its 12 big-endian bytes, so the derived `Ord` is the k-order
/// and `Option<Guid>` is 13 bytes. Every `Guid` has a drift code in 1..=7;
/// decoders reject anything else.
///
/// ```
/// let id = guid::g(&guid::CLOCK);
/// let text = id.to_string();
/// assert_eq!(text.len(), 16);
/// assert_eq!(text.parse::<guid::Guid>(), Ok(id));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Guid([u8; 12]);

const _: () = assert!(size_of::<Guid>() == 12);
const _: () = assert!(size_of::<Option<Guid>>() <= 13);

impl Guid {
    /// The id of a 96-bit value whose drift code is not 0.
    #[inline]
    pub(crate) const fn from_value(v: u128) -> Guid {
        Guid(layout::bytes96(v))
    }

    /// The global id of a local id's value stamped with `node`.
    #[inline]
    const fn stamp(local: u64, drift: Drift, node: u32) -> Guid {
        Guid::from_value(layout::insert_node(
            local,
            drift.low_bits(),
            node as u64,
            NODE_BITS_G,
        ))
    }

    /// The local id's value and the node.
    #[inline]
    const fn parts(&self) -> (u64, u64) {
        layout::remove_node(self.to_u128(), self.drift().low_bits(), NODE_BITS_G)
    }

    /// Packs a clock state `tick << 14 | seq` (a carry past 14 bits is the
    /// tick's, so it never reaches the node).
    #[inline]
    pub(crate) const fn from_state(drift: Drift, node: u32, state: u64) -> Guid {
        Guid::stamp(
            layout::pack_l(drift.code(), state >> SEQ_BITS, state & SEQ_MAX),
            drift,
            node,
        )
    }

    /// The id made of these parts: node, time in Unix nanoseconds (kept to
    /// the tick of 2^17 ns), sequence (0..=16383) and drift. It is what a
    /// clock with this node and drift would give at this time and sequence.
    ///
    /// ```
    /// use guid::{Drift, Guid};
    /// let id = Guid::compose(0x53051caf, 1_700_000_000_000_000_000, 7, Drift::DEFAULT)?;
    /// assert_eq!((id.node(), id.seq()), (0x53051caf, 7));
    /// assert_eq!(id.time(), 1_700_000_000_000_000_000 >> 17 << 17);
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub const fn compose(node: u32, time_ns: u64, seq: u16, drift: Drift) -> Result<Guid> {
        match check_seq(seq) {
            Ok(seq) => Ok(Guid::stamp(
                layout::pack_l(drift.code(), layout::tick(time_ns), seq),
                drift,
                node,
            )),
            Err(e) => Err(e),
        }
    }

    /// The zero id of a drift: node, time and sequence all 0 (Go's `Z`).
    pub const fn zero(drift: Drift) -> Guid {
        Guid::stamp(layout::pack_l(drift.code(), 0, 0), drift, 0)
    }

    /// The drift.
    pub const fn drift(&self) -> Drift {
        match Drift::from_code_bits(self.0[0] >> 5) {
            Ok(d) => d,
            // Unreachable: every Guid is checked to have a non-zero code.
            Err(_) => Drift::DEFAULT,
        }
    }

    /// The time in Unix nanoseconds, to the tick (the low 17 bits are 0).
    pub const fn time(&self) -> u64 {
        layout::tick_l(self.parts().0) << layout::TICK_SHIFT
    }

    /// The node id.
    pub const fn node(&self) -> u32 {
        self.parts().1 as u32
    }

    /// The sequence number, 0..=16383.
    pub const fn seq(&self) -> u16 {
        (self.to_u128() as u64 & SEQ_MAX) as u16
    }

    /// The approximate distance from `other` to `self` (Go's `Diff`): times
    /// and sequences subtracted with wrap-around, packed with `self`'s node
    /// and drift. As in Go, the wrapped sequence difference is ORed into the
    /// low 64 bits unmasked.
    pub const fn diff(&self, other: &Guid) -> Guid {
        let t = self.time().wrapping_sub(other.time());
        let s = (self.seq() as u64).wrapping_sub(other.seq() as u64);
        let drift = self.drift();
        let v = Guid::stamp(
            layout::pack_l(drift.code(), layout::tick(t), 0),
            drift,
            self.node(),
        );
        Guid::from_value(v.to_u128() | s as u128)
    }

    /// The local id: drift, time and sequence without the node (Go's `ToL`).
    pub const fn to_l64(self) -> Luid {
        Luid::from_value(self.parts().0)
    }

    /// The global id of a local id made on `node` (Go's `FromL`).
    pub const fn from_l64(local: Luid, node: u32) -> Guid {
        Guid::stamp(local.to_u64(), local.drift(), node)
    }

    /// The 12 big-endian bytes (Go's `Bytes`).
    pub const fn to_bytes(self) -> [u8; 12] {
        self.0
    }

    /// The 12 big-endian bytes, borrowed.
    pub const fn as_bytes(&self) -> &[u8; 12] {
        &self.0
    }

    /// The id of 12 big-endian bytes; fails if the drift code is 0.
    pub const fn from_bytes(bytes: [u8; 12]) -> Result<Guid> {
        if bytes[0] >> 5 == 0 {
            return Err(Error(ErrorKind::Drift));
        }
        Ok(Guid(bytes))
    }

    /// The id of 12 bytes, checked (for the shared codecs).
    const fn from_array(bytes: [u8; 12]) -> Result<Guid> {
        Guid::from_bytes(bytes)
    }

    /// The 96-bit value.
    pub const fn to_u128(self) -> u128 {
        layout::from_bytes96(&self.0)
    }

    /// The id of a 96-bit value; fails if it is wider or its drift code is 0.
    pub const fn from_u128(v: u128) -> Result<Guid> {
        if v >> 96 != 0 {
            return Err(Error(ErrorKind::Overflow { bits: 96 }));
        }
        Guid::from_bytes(Guid::from_value(v).0)
    }
}
crate::encoding::id_codec!(Guid, bytes: 12, bits: 96, go: "G", text: global, base62: 17 trimmed);

/// The sequence as the low bits of an id, or the error for one past 14 bits.
pub(crate) const fn check_seq(seq: u16) -> Result<u64> {
    if seq as u64 > SEQ_MAX {
        Err(Error(ErrorKind::Part {
            name: "seq",
            value: seq as u64,
            max: SEQ_MAX,
        }))
    } else {
        Ok(seq as u64)
    }
}

crate::traits::id_traits!(Guid, debug: "Guid", now: crate::CLOCK.g(), "crate::CLOCK",
    drift: Drift, epochs: v2, bytes: [u8; 12], fallible, int: u128, to_u128, from_u128, fallible);
