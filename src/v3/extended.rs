//! The v3 128-bit id: an RFC 9562 UUIDv8.

use core::cmp::Ordering;
use std::time::SystemTime;

use super::{Clock, Drift, Guid, Luid, node};
use crate::error::{Error, ErrorKind, Result};
use crate::guid::check_seq;
use crate::layout::{self, NODE_BITS_X, SEQ_BITS, SEQ_MAX};

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
#[repr(transparent)]
pub struct Xuid([u8; 16]);

const _: () = assert!(size_of::<Xuid>() == 16);

impl Xuid {
    /// The id of a local id's value stamped with `node`'s low 58 bits.
    #[inline]
    pub(crate) const fn stamp(local: u64, node: u64) -> Xuid {
        let window = Drift::of_code(layout::code_l(local)).bits();
        let payload = layout::insert_node(local, window, node, NODE_BITS_X);
        Xuid(layout::splice_uuid(payload).to_be_bytes())
    }

    /// The local id's value and the node.
    #[inline]
    const fn parts(&self) -> (u64, u64) {
        let payload = layout::unsplice_uuid(self.to_u128());
        layout::remove_node(payload, self.drift().bits(), NODE_BITS_X)
    }

    /// Packs a clock state `tick << 14 | seq`.
    #[inline]
    pub(crate) const fn from_state(drift: Drift, node: u64, state: u64) -> Xuid {
        Xuid::stamp(
            layout::pack_l(drift.code(), state >> SEQ_BITS, state & SEQ_MAX),
            node,
        )
    }

    /// The id made of these parts: a 58-bit node, time in Unix nanoseconds
    /// (kept to the tick), sequence (0..=16383) and drift. Fails if the
    /// node or the sequence is too wide.
    ///
    /// ```
    /// use guid::v3::{Drift, Xuid};
    /// let x = Xuid::compose(0x84ea1453051caf, 1_700_000_000_000_000_000, 7, Drift::DEFAULT)?;
    /// assert_eq!((x.node(), x.seq()), (0x84ea1453051caf, 7));
    /// assert!(Xuid::compose(1 << 58, 0, 0, Drift::DEFAULT).is_err());
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub const fn compose(node: u64, time_ns: u64, seq: u16, drift: Drift) -> Result<Xuid> {
        let seq = match check_seq(seq) {
            Ok(seq) => seq,
            Err(e) => return Err(e),
        };
        match check_node(node) {
            Ok(node) => Ok(Xuid::stamp(
                layout::pack_l(drift.code(), layout::tick(time_ns), seq),
                node,
            )),
            Err(e) => Err(e),
        }
    }

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

    /// The time in Unix nanoseconds (or an inverse clock's `u64::MAX -
    /// ns`), to the tick: the low 17 bits are 0.
    pub const fn time(&self) -> u64 {
        layout::tick_l(self.parts().0) << layout::TICK_SHIFT
    }

    /// The 58-bit node id.
    pub const fn node(&self) -> u64 {
        self.parts().1
    }

    /// The sequence number, 0..=16383.
    pub const fn seq(&self) -> u16 {
        (self.to_u128() as u64 & SEQ_MAX) as u16
    }

    /// The distance from `other` to `self` (Go's `Diff`), as
    /// [`Guid::diff`], with `self`'s 58-bit node.
    pub const fn diff(&self, other: &Xuid) -> Xuid {
        Xuid::stamp(self.to_l64().diff(&other.to_l64()).to_u64(), self.node())
    }

    /// The local id: drift, time and sequence without the node (Go's
    /// `L.FromX`).
    pub const fn to_l64(self) -> Luid {
        Luid::from_u64(self.parts().0)
    }

    /// The 128-bit id of a local id made on `node` (Go's `X.FromL`); fails
    /// if `node` is wider than 58 bits.
    pub const fn from_l64(local: Luid, node: u64) -> Result<Xuid> {
        match check_node(node) {
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
                layout::unsplice_uuid(self.to_u128()),
                layout::unsplice_uuid(other.to_u128()),
                drift.bits(),
                NODE_BITS_X,
                reference & node::MAX,
            )
        })
    }

    /// The 16 big-endian bytes (Go's `Bytes`), the UUID's bytes.
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0
    }

    /// The 16 big-endian bytes, borrowed.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
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

/// The node, or the error for one past 58 bits.
const fn check_node(node: u64) -> Result<u64> {
    if node > node::MAX {
        Err(Error(ErrorKind::Part {
            name: "node",
            value: node,
            max: node::MAX,
        }))
    } else {
        Ok(node)
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
        let node = x.node();
        if node > u32::MAX as u64 {
            return Err(Error(ErrorKind::Part {
                name: "node",
                value: node,
                max: u32::MAX as u64,
            }));
        }
        Ok(Guid::from_l64(x.to_l64(), node as u32))
    }
}

crate::encoding::id_codec!(Xuid, bytes: 16, bits: 128, go: "X", text: uuid, base62: 22 fixed);

crate::traits::id_traits!(Xuid, debug: "v3::Xuid", now: super::CLOCK.x(), "crate::v3::CLOCK",
    drift: Drift, epochs: v3, bytes: [u8; 16], fallible, int: u128, to_u128, from_u128, fallible);
