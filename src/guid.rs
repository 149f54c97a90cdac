//! The 96-bit global id.

use crate::drift::Drift;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{self, SEQ_MAX};
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
    #[inline]
    pub(crate) const fn from_hi_lo((hi, lo): (u32, u64)) -> Guid {
        Guid::from_top_bottom((hi as u64) << 32 | lo >> 32, lo as u32)
    }

    /// Stored as 8 + 4 bytes, the split [`Guid::to_u128`] reads, so a
    /// freshly written id is forwarded from the store buffer to its reader.
    #[inline]
    const fn from_top_bottom(top: u64, bottom: u32) -> Guid {
        let t = top.to_be_bytes();
        let b = bottom.to_be_bytes();
        Guid([
            t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], b[0], b[1], b[2], b[3],
        ])
    }

    #[inline]
    pub(crate) const fn hi(&self) -> u32 {
        let b = &self.0;
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    #[inline]
    pub(crate) const fn lo(&self) -> u64 {
        let b = &self.0;
        u64::from_be_bytes([b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11]])
    }

    /// Packs a clock state `tick << 14 | seq` (a carry past 14 bits is the
    /// tick's, so it never reaches the node).
    #[inline]
    pub(crate) const fn from_state(drift: Drift, node: u32, state: u64) -> Guid {
        Guid::from_hi_lo(layout::pack_g(
            drift.code(),
            state >> layout::SEQ_BITS,
            node,
            state & SEQ_MAX,
        ))
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
            Ok(seq) => Ok(Guid::from_hi_lo(layout::pack_g(
                drift.code(),
                layout::tick(time_ns),
                node,
                seq,
            ))),
            Err(e) => Err(e),
        }
    }

    /// The zero id of a drift: node, time and sequence all 0 (Go's `Z`).
    pub const fn zero(drift: Drift) -> Guid {
        Guid::from_hi_lo(layout::pack_g(drift.code(), 0, 0, 0))
    }

    /// The drift.
    pub const fn drift(&self) -> Drift {
        match Drift::from_code_bits(layout::drift_g(self.hi())) {
            Ok(d) => d,
            // Unreachable: every Guid is checked to have a non-zero code.
            Err(_) => Drift::DEFAULT,
        }
    }

    /// The time in Unix nanoseconds, to the tick (the low 17 bits are 0).
    pub const fn time(&self) -> u64 {
        layout::tick_g(self.hi(), self.lo()) << layout::TICK_SHIFT
    }

    /// The node id.
    pub const fn node(&self) -> u32 {
        layout::node_g(self.hi(), self.lo())
    }

    /// The sequence number, 0..=16383.
    pub const fn seq(&self) -> u16 {
        (self.lo() & SEQ_MAX) as u16
    }

    /// The approximate distance from `other` to `self` (Go's `Diff`): times
    /// and sequences subtracted with wrap-around, packed with `self`'s node
    /// and drift. As in Go, the wrapped sequence difference is ORed into the
    /// low bits unmasked.
    pub const fn diff(&self, other: &Guid) -> Guid {
        let t = self.time().wrapping_sub(other.time());
        let s = (self.seq() as u64).wrapping_sub(other.seq() as u64);
        Guid::from_hi_lo(layout::pack_g(
            self.drift().code(),
            layout::tick(t),
            self.node(),
            s,
        ))
    }

    /// The local id: drift, time and sequence without the node (Go's `ToL`).
    pub const fn to_l64(self) -> Luid {
        Luid::from_parts(
            self.drift(),
            layout::tick_g(self.hi(), self.lo()),
            self.seq(),
        )
    }

    /// The global id of a local id made on `node` (Go's `FromL`).
    pub const fn from_l64(local: Luid, node: u32) -> Guid {
        Guid::from_hi_lo(layout::pack_g(
            local.drift().code(),
            local.tick(),
            node,
            local.seq() as u64,
        ))
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

    /// The 96-bit value.
    pub const fn to_u128(self) -> u128 {
        // Read as 8 + 4 bytes, the split `from_top_bottom` writes.
        let b = &self.0;
        let top = u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        (top as u128) << 32 | u32::from_be_bytes([b[8], b[9], b[10], b[11]]) as u128
    }

    /// The id of a 96-bit value; fails if it is wider or its drift code is 0.
    pub const fn from_u128(v: u128) -> Result<Guid> {
        if v >> 96 != 0 {
            return Err(Error(ErrorKind::Overflow { bits: 96 }));
        }
        Guid::from_bytes(Guid::from_top_bottom((v >> 32) as u64, v as u32).0)
    }
}

crate::encoding::id_codec!(Guid, bytes: 12, bits: 96, char_bits: 6, base62: 17, go: "G");

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

crate::traits::id_traits!(Guid, [u8; 12], u128, to_u128, from_u128, g);
