//! The v3 64-bit local id.

#[cfg(feature = "std")]
use std::time::SystemTime;

#[cfg(feature = "std")]
use super::Clock;
use super::{Drift, Guid, Xuid};
use crate::Id;
use crate::encoding;
use crate::error::{Error, ErrorKind, Result};
use crate::id::sealed::{Packing, Text};
use crate::layout::{self, SEQ_MAX};

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
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "diesel", derive(diesel::expression::AsExpression, diesel::deserialize::FromSqlRow), diesel(sql_type = diesel::sql_types::Binary))]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
#[cfg_attr(
    feature = "zerocopy",
    derive(
        zerocopy::FromBytes,
        zerocopy::IntoBytes,
        zerocopy::Immutable,
        zerocopy::KnownLayout,
        zerocopy::Unaligned
    )
)]
#[repr(transparent)]
pub struct Luid([u8; 8]);

const _: () = assert!(size_of::<Luid>() == 8);

impl Luid {
    #[cfg(feature = "std")]
    /// A new id from the default clock [`v3::CLOCK`](crate::v3::CLOCK).
    #[inline]
    pub fn now() -> Luid {
        super::CLOCK.l()
    }

    /// The id made of these parts: time in Unix nanoseconds (kept to the
    /// tick), sequence (0..=16383) and drift.
    pub const fn compose(time_ns: u64, seq: u16, drift: Drift) -> Result<Luid> {
        match layout::check(seq as u64, "seq", layout::SEQ_BITS) {
            Ok(seq) => Ok(Luid::from_u64(layout::pack_l(
                drift.code(),
                layout::tick(time_ns),
                seq,
            ))),
            Err(e) => Err(e),
        }
    }

    /// The smallest local id of `clock` at time `t`, for range queries:
    /// its drift, sequence 0, and the time in the clock's direction (Go's
    /// `L.FromTime`).
    #[cfg(feature = "std")]
    pub fn from_time(clock: &Clock, t: SystemTime) -> Luid {
        Luid::from_u64(layout::pack_l(clock.drift().code(), clock.tick_at(t), 0))
    }

    /// The zero id of a drift: time and sequence 0 (Go's `ZeroL`).
    pub const fn zero(drift: Drift) -> Luid {
        Luid::from_u64(layout::pack_l(drift.code(), 0, 0))
    }

    /// The drift.
    pub const fn drift(&self) -> Drift {
        Drift::of_code(self.0[0] >> 5)
    }

    /// The distance from `other` to `self` (Go's `Diff`), as
    /// [`Guid::diff`]: time and sequence wrapped, `self`'s drift.
    pub fn diff(&self, other: &Luid) -> Luid {
        let t = self.time().wrapping_sub(other.time());
        let s = (self.seq() as u64).wrapping_sub(other.seq() as u64);
        Luid::from_u64(layout::pack_l(
            self.drift().code(),
            layout::tick(t),
            s & SEQ_MAX,
        ))
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

    /// The 8 big-endian bytes (Go's `Bytes`).
    pub const fn to_bytes(self) -> [u8; 8] {
        self.0
    }

    /// The 8 big-endian bytes, borrowed.
    pub const fn as_bytes(&self) -> &[u8; 8] {
        &self.0
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
}

impl Id for Luid {
    const NAME: &'static str = "v3::Luid";
    const MIN: Luid = Luid([0; 8]);
    const MAX: Luid = Luid([0xff; 8]);

    type Bytes = [u8; 8];
    type Drift = Drift;
    type Local = Luid;

    #[inline]
    fn from_u128(v: u128) -> Result<Luid> {
        if v >> 64 != 0 {
            return Err(Error::new(ErrorKind::Overflow { bits: 64 }));
        }
        Ok(Luid::from_u64(v as u64))
    }

    #[inline]
    fn drift(&self) -> Drift {
        Luid::drift(self)
    }
}

impl Packing for Luid {
    const TEXT: Text = Text::Sortable { bits: 4 };
    const V3: bool = true;
    const NODE: u32 = 0;

    #[inline]
    fn window(code: u8) -> u32 {
        Drift::window_of(code)
    }

    #[inline]
    fn from_payload(p: u128) -> Luid {
        Luid::from_u64(p as u64)
    }

    /// Every 64-bit value is an id: nothing to check past the text.
    #[inline]
    fn parse_text(s: &[u8]) -> Result<Luid> {
        Ok(Luid::from_u64(encoding::decode_sortable::<4>(s)? as u64))
    }
}

crate::id::std_traits!(Luid, bytes: [u8; 8], infallible, int: u64, from_u64, infallible);
