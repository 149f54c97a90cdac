//! The v3 64-bit local id.

#[cfg(feature = "std")]
use std::time::SystemTime;

#[cfg(feature = "std")]
use super::Clock;
use super::{Drift, Guid, Xuid};
use crate::Id;
use crate::encoding;
use crate::error::Result;
#[cfg(feature = "std")]
use crate::id::sealed::Packing;
use crate::layout;

crate::id::declare! {
    /// A v3 64-bit local id (Go v3's `L`): drift, time and sequence, unique
    /// within one clock.
    ///
    /// ```text
    /// | code: 3 | tick: 47 | seq: 14 |
    /// ```
    ///
    /// The layout of a v2 [`crate::Luid`], but the code names a v3 [`Drift`].
    /// Unlike v2, its JSON is the plain 16-character string, the same as
    /// `Display`. Any 64-bit value is a v3 local id.
    ///
    /// ```
    /// use guid::{Id, v3};
    /// let local = v3::Luid::now();
    /// assert_eq!(local.to_string().parse::<v3::Luid>(), Ok(local));
    /// assert_eq!(local.to_base62().len(), 11);
    /// ```
    pub struct Luid([u8; 8]): pod;
    name: "v3::Luid",
    drift: Drift,
    local: Luid,
    text: layout::Text::Sortable { bits: 4 },
    node: 0,
    store: u64,
    now: super::CLOCK.l(),
    int: u64, from_u64, infallible,
    bytes: infallible,
}

impl Luid {
    /// The id made of these parts, as [`crate::Luid::compose`] with a v3
    /// drift.
    pub const fn compose(time_ns: u64, seq: u16, drift: Drift) -> Result<Luid> {
        match layout::compose_l(drift.code(), time_ns, seq) {
            Ok(v) => Ok(Luid::from_u64(v)),
            Err(e) => Err(e),
        }
    }

    /// The smallest local id of `clock` at time `t`, for range queries:
    /// its drift, sequence 0, and the time in the clock's direction (Go's
    /// `L.FromTime`).
    #[cfg(feature = "std")]
    pub fn from_time(clock: &Clock, t: SystemTime) -> Luid {
        Luid::from_state(
            clock.drift().code(),
            0,
            clock.tick_at(t) << layout::SEQ_BITS,
        )
    }

    /// The global id of this local id made on `node` (Go's `G.FromL`).
    pub fn to_g(self, node: u32) -> Guid {
        Guid::from_l64(self, node)
    }

    /// The 128-bit id of this local id made on `node` (Go's `X.FromL`);
    /// fails if `node` is wider than 58 bits.
    pub fn to_x(self, node: u64) -> Result<Xuid> {
        Xuid::from_l64(self, node)
    }

    /// The v3 local id of a v2 local id: the same time and sequence with
    /// the drift [`Guid::from_v2`] gives (Go has no `FromV2` for local ids;
    /// this is the cast of the global one).
    pub fn from_v2(id: crate::Luid) -> Luid {
        let drift = Drift::from_v2(id.drift());
        Luid::from_u64(layout::pack_l(
            drift.code(),
            layout::tick(id.time()),
            id.seq() as u64,
        ))
    }

    /// The id of 8 big-endian bytes: every value is a v3 local id.
    pub const fn from_bytes(bytes: [u8; 8]) -> Luid {
        Luid(bytes)
    }

    /// The id of a 64-bit value.
    pub const fn from_u64(v: u64) -> Luid {
        Luid(v.to_be_bytes())
    }

    /// The 64-bit value.
    pub const fn to_u64(self) -> u64 {
        u64::from_be_bytes(self.0)
    }

    /// The id as a signed 64-bit integer that sorts as the id does, for
    /// integer columns: the value with its top bit flipped (as v2's
    /// [`crate::Luid::to_i64`]; `to_u64() as i64` would sort codes 4..=7
    /// first).
    pub const fn to_i64(self) -> i64 {
        (self.to_u64() ^ 1 << 63) as i64
    }

    /// The id of a [`to_i64`](Luid::to_i64) value.
    pub const fn from_i64(v: i64) -> Luid {
        Luid::from_u64(v as u64 ^ 1 << 63)
    }

    /// Reads the text form: every 64-bit value is an id.
    #[inline]
    fn read_text(s: &[u8]) -> Result<Luid> {
        Ok(Luid::from_u64(encoding::decode_sortable::<4>(s)? as u64))
    }
}
