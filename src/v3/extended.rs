//! The v3 128-bit id: an RFC 9562 UUIDv8.

use core::cmp::Ordering;
#[cfg(feature = "std")]
use std::time::SystemTime;

#[cfg(feature = "std")]
use super::Clock;
use super::{Drift, Guid, Luid};
use crate::Id;
use crate::encoding;
use crate::error::{Error, ErrorKind, Result};
use crate::id::sealed::Packing;
use crate::layout::{self, NODE_BITS_X};

crate::id::declare! {
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
    /// use guid::{Id, v3};
    /// let x = v3::Xuid::now();
    /// let text = x.to_string();
    /// assert_eq!(&text[14..15], "8"); // version 8
    /// assert_eq!(text.parse::<v3::Xuid>(), Ok(x));
    /// assert_eq!(x.node(), v3::CLOCK.node()); // all 58 bits of the clock's node
    /// ```
    pub struct Xuid([u8; 16]): checked;
    name: "v3::Xuid",
    drift: Drift,
    local: Luid,
    text: layout::Text::Uuid,
    node: NODE_BITS_X,
    store: uuid,
    now: super::CLOCK.x(),
    int: u128, from_u128, fallible,
    bytes: fallible,
}

impl Xuid {
    /// The id made of these parts, as [`Guid::compose`] with a node of 58
    /// bits. Fails if the node or the sequence is too wide.
    ///
    /// ```
    /// use guid::{Id, v3::{Drift, Xuid}};
    /// let id = Xuid::compose(1 << 57, 1_700_000_000_000_000_000, 7, Drift::DEFAULT)?;
    /// assert_eq!((id.node(), id.seq(), id.drift()), (1 << 57, 7, Drift::DEFAULT));
    /// assert_eq!(id.time(), 1_700_000_000_000_000_000 >> 17 << 17);
    /// assert!(Xuid::compose(1 << 58, 0, 0, Drift::DEFAULT).is_err());
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub fn compose(node: u64, time_ns: u64, seq: u16, drift: Drift) -> Result<Xuid> {
        Xuid::from_parts(node, time_ns, seq, drift)
    }

    /// The smallest id of `clock` at time `t`: its node and drift, sequence
    /// 0, and the time in the clock's direction (Go's `X.FromTime`).
    #[cfg(feature = "std")]
    pub fn from_time(clock: &Clock, t: SystemTime) -> Xuid {
        Xuid::from_state(
            clock.drift().code(),
            clock.node(),
            clock.tick_at(t) << layout::SEQ_BITS,
        )
    }

    /// The 128-bit id of a local id made on `node` (Go's `X.FromL`); fails
    /// if `node` is wider than 58 bits.
    pub fn from_l64(local: Luid, node: u64) -> Result<Xuid> {
        match layout::check(node, "node", NODE_BITS_X) {
            Ok(node) => Ok(Xuid::stamp(local.to_u64(), node)),
            Err(e) => Err(e),
        }
    }

    /// Go v3's ring order around `reference` (`OrdRingX(reference).Compare`),
    /// as [`Guid::cmp_ring`] with the 58-bit node: `reference` is taken
    /// modulo 2^58, as Go does.
    pub fn cmp_ring(&self, other: &Xuid, reference: u64) -> Ordering {
        self.ring(other, reference)
    }

    /// The id of 16 big-endian bytes; fails unless they are a UUID of
    /// version 8 and the RFC 9562 variant.
    pub const fn from_bytes(bytes: [u8; 16]) -> Result<Xuid> {
        Xuid::from_u128(u128::from_be_bytes(bytes))
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
            (version, variant) => Err(Error::new(ErrorKind::NotUuidV8 { version, variant })),
        }
    }

    /// Reads the canonical UUID string of a UUIDv8.
    #[inline]
    fn read_text(s: &[u8]) -> Result<Xuid> {
        Xuid::from_u128(encoding::decode_uuid(s)?)
    }
}

impl From<Guid> for Xuid {
    /// The 128-bit id of a global id: the same parts, the node widened
    /// (Go's `X.FromG`).
    fn from(g: Guid) -> Xuid {
        Xuid::stamp(g.to_l64().to_u64(), g.node())
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
