//! The 96-bit global id.

use crate::drift::Drift;
use crate::error::{Error, ErrorKind, Result};
use crate::layout;
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
#[cfg_attr(feature = "bytemuck", derive(bytemuck::NoUninit))]
#[cfg_attr(
    feature = "zerocopy",
    derive(
        zerocopy::IntoBytes,
        zerocopy::Immutable,
        zerocopy::KnownLayout,
        zerocopy::Unaligned
    )
)]
#[repr(transparent)]
pub struct Guid([u8; 12]);

const _: () = assert!(size_of::<Guid>() == 12);
const _: () = assert!(size_of::<Option<Guid>>() <= 13);

impl Guid {
    /// The zero id of a drift: node, time and sequence all 0 (Go's `Z`).
    pub const fn zero(drift: Drift) -> Guid {
        Guid::stamp(layout::pack_l(drift.code(), 0, 0), 0)
    }

    /// The drift.
    pub const fn drift(&self) -> Drift {
        match Drift::from_code_bits(self.0[0] >> 5) {
            Ok(d) => d,
            // Unreachable: every Guid is checked to have a non-zero code.
            Err(_) => Drift::DEFAULT,
        }
    }

    /// The approximate distance from `other` to `self` (Go's `Diff`): times
    /// and sequences subtracted with wrap-around, packed with `self`'s node
    /// and drift. As in Go, the wrapped sequence difference is ORed into the
    /// low 64 bits unmasked.
    pub const fn diff(&self, other: &Guid) -> Guid {
        let t = self.time().wrapping_sub(other.time());
        let s = (self.seq() as u64).wrapping_sub(other.seq() as u64);
        let local = layout::pack_l(self.drift().code(), layout::tick(t), 0);
        Guid::from_payload(Guid::stamp(local, self.node()).payload() | s as u128)
    }

    /// The global id of a local id made on `node` (Go's `FromL`).
    pub const fn from_l64(local: Luid, node: u32) -> Guid {
        Guid::stamp(local.to_u64(), node)
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
        self.payload()
    }

    /// The id of a 96-bit value; fails if it is wider or its drift code is 0.
    pub const fn from_u128(v: u128) -> Result<Guid> {
        if v >> 96 != 0 {
            return Err(Error(ErrorKind::Overflow { bits: 96 }));
        }
        Guid::from_bytes(layout::bytes96(v))
    }
}
layout::stamped!(Guid, bytes: 12, local: Luid, drift: Drift, node: u32, node_bits: 32, path: "guid");

crate::encoding::id_codec!(Guid, bytes: 12, bits: 96, go: "G", text: global, base62: 17 trimmed);

crate::traits::id_traits!(Guid, debug: "Guid", now: crate::CLOCK.g(), "crate::CLOCK",
    drift: Drift, epochs: v2, bytes: [u8; 12], fallible, int: u128, to_u128, from_u128, fallible);
