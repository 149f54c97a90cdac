//! The v3 128-bit id: an RFC 9562 UUIDv8.

use core::cmp::Ordering;
use std::time::SystemTime;

use super::{Clock, Drift, Guid, Luid, node};
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{self, NODE_BITS_X};

/// A v3 128-bit id (Go v3's `X`): an RFC 9562 UUIDv8 whose 122 bits of
/// payload are a global id with a 58-bit node.
///
/// ```text
/// payload: | code: 3 | tick >> d | node: 58 | low tick: d | seq: 14 |
/// UUID:    payload bits 74..122 | version 8 | payload bits 62..74 | variant 0b10 | payload bits 0..62
/// ```
///
/// A UUID column or API takes it as it is (with the feature `uuid`,
/// `uuid::Uuid::from(x)`); its string is the canonical lowercase UUID,
/// and it sorts, as bytes and as that string, by drift, time and node as
/// a global id does. Every `Xuid` has version 8 and the RFC variant;
/// decoders reject anything else.
///
/// ```
/// use guid::v3;
/// let x = v3::Xuid::now();
/// let text = x.to_string();
/// assert_eq!(&text[14..15], "8"); // version 8
/// assert_eq!(text.parse::<v3::Xuid>(), Ok(x));
/// assert_eq!(x.node(), v3::CLOCK.node()); // all 58 bits of the clock's node
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
pub struct Xuid([u8; 16]);

const _: () = assert!(size_of::<Xuid>() == 16);

impl Xuid {
    /// The smallest id of `clock` at time `t`: its node and drift, sequence
    /// 0, and the time in the clock's direction (Go's `X.FromTime`).
    pub fn from_time(clock: &Clock, t: SystemTime) -> Xuid {
        let local = layout::pack_l(clock.drift().code(), clock.tick_at(t), 0);
        Xuid::stamp(local, clock.node())
    }

    /// The zero id of a drift: node, time and sequence all 0, version and
    /// variant set (Go's `ZeroX`).
    pub const fn zero(drift: Drift) -> Xuid {
        Xuid::stamp(layout::pack_l(drift.code(), 0, 0), 0)
    }

    /// The drift.
    pub const fn drift(&self) -> Drift {
        Drift::of_code(self.0[0] >> 5)
    }

    /// The distance from `other` to `self` (Go's `Diff`), as
    /// [`Guid::diff`], with `self`'s 58-bit node.
    pub const fn diff(&self, other: &Xuid) -> Xuid {
        Xuid::stamp(self.to_l64().diff(&other.to_l64()).to_u64(), self.node())
    }

    /// The 128-bit id of a local id made on `node` (Go's `X.FromL`); fails
    /// if `node` is wider than 58 bits.
    pub const fn from_l64(local: Luid, node: u64) -> Result<Xuid> {
        match layout::check(node, "node", node::BITS) {
            Ok(node) => Ok(Xuid::stamp(local.to_u64(), node)),
            Err(e) => Err(e),
        }
    }

    /// Go v3's ring order around `reference` (`OrdRingX(reference).Compare`),
    /// as [`Guid::cmp_ring`] with the 58-bit node: `reference` is taken
    /// modulo 2^58, as Go does.
    pub fn cmp_ring(&self, other: &Xuid, reference: u64) -> Ordering {
        let drift = self.drift();
        drift.cmp(&other.drift()).then_with(|| {
            layout::cmp_ring(
                self.payload(),
                other.payload(),
                drift.bits(),
                NODE_BITS_X,
                reference & node::MAX,
            )
        })
    }

    /// The id of 16 big-endian bytes; fails unless they are a UUID of
    /// version 8 and the RFC 9562 variant.
    pub const fn from_bytes(bytes: [u8; 16]) -> Result<Xuid> {
        Xuid::from_u128(u128::from_be_bytes(bytes))
    }

    /// The id of 16 bytes, checked (for the shared codecs).
    const fn from_array(bytes: [u8; 16]) -> Result<Xuid> {
        Xuid::from_bytes(bytes)
    }

    /// The 128-bit value.
    pub const fn to_u128(self) -> u128 {
        u128::from_be_bytes(self.0)
    }

    /// The id of a 128-bit value; fails unless it is a UUID of version 8
    /// and the RFC 9562 variant.
    pub const fn from_u128(v: u128) -> Result<Xuid> {
        match layout::uuid_version_variant(v) {
            (8, 0b10) => Ok(Xuid(v.to_be_bytes())),
            (version, variant) => Err(Error(ErrorKind::NotUuidV8 { version, variant })),
        }
    }
}

impl From<Guid> for Xuid {
    /// The 128-bit id of a global id: the same parts, the node widened
    /// (Go's `X.FromG`).
    fn from(g: Guid) -> Xuid {
        Xuid::stamp(g.to_l64().to_u64(), g.node() as u64)
    }
}

impl TryFrom<Xuid> for Guid {
    type Error = Error;

    /// The global id of a 128-bit id (Go's `G.FromX`); fails if the node
    /// does not fit 32 bits.
    fn try_from(x: Xuid) -> Result<Guid> {
        let node = layout::check(x.node(), "node", 32)?;
        Ok(Guid::from_l64(x.to_l64(), node as u32))
    }
}

layout::stamped!(Xuid, bytes: 16, local: Luid, drift: Drift, node: u64, node_bits: 58, path: "guid::v3");

crate::encoding::id_codec!(Xuid, bytes: 16, bits: 128, go: "X", text: uuid, base62: 22 fixed);

crate::traits::id_traits!(Xuid, debug: "v3::Xuid", now: super::CLOCK.x(), "crate::v3::CLOCK",
    drift: Drift, epochs: v3, bytes: [u8; 16], fallible, int: u128, to_u128, from_u128, fallible);
