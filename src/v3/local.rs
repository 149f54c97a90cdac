//! The v3 64-bit local id.

use std::time::SystemTime;

use super::{Clock, Drift, Guid, Xuid};
use crate::error::Result;
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
/// use guid::v3;
/// let local = v3::Luid::now();
/// assert_eq!(local.to_string().parse::<v3::Luid>(), Ok(local));
/// assert_eq!(local.to_base62().len(), 11);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
#[cfg_attr(
    feature = "zerocopy",
    derive(
        zerocopy::FromBytes,
        zerocopy::IntoBytes,
        zerocopy::Immutable,
        zerocopy::KnownLayout
    )
)]
#[repr(transparent)]
pub struct Luid(u64);

const _: () = assert!(size_of::<Luid>() == 8);

impl Luid {
    /// The id made of these parts: time in Unix nanoseconds (kept to the
    /// tick), sequence (0..=16383) and drift.
    pub const fn compose(time_ns: u64, seq: u16, drift: Drift) -> Result<Luid> {
        match layout::check(seq as u64, "seq", layout::SEQ_BITS) {
            Ok(seq) => Ok(Luid(layout::pack_l(
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
    pub fn from_time(clock: &Clock, t: SystemTime) -> Luid {
        Luid(layout::pack_l(clock.drift().code(), clock.tick_at(t), 0))
    }

    /// The zero id of a drift: time and sequence 0 (Go's `ZeroL`).
    pub const fn zero(drift: Drift) -> Luid {
        Luid(layout::pack_l(drift.code(), 0, 0))
    }

    /// The drift.
    pub const fn drift(&self) -> Drift {
        Drift::of_code(layout::code_l(self.0))
    }

    /// The distance from `other` to `self` (Go's `Diff`), as
    /// [`Guid::diff`]: time and sequence wrapped, `self`'s drift.
    pub const fn diff(&self, other: &Luid) -> Luid {
        let t = self.time().wrapping_sub(other.time());
        let s = (self.seq() as u64).wrapping_sub(other.seq() as u64);
        Luid(layout::pack_l(
            self.drift().code(),
            layout::tick(t),
            s & SEQ_MAX,
        ))
    }

    /// The global id of this local id made on `node` (Go's `G.FromL`).
    pub const fn to_g(self, node: u32) -> Guid {
        Guid::from_l64(self, node)
    }

    /// The 128-bit id of this local id made on `node` (Go's `X.FromL`);
    /// fails if `node` is wider than 58 bits.
    pub const fn to_x(self, node: u64) -> Result<Xuid> {
        Xuid::from_l64(self, node)
    }

    /// The v3 local id of a v2 local id: the same time and sequence with
    /// the drift [`Guid::from_v2`] gives (Go has no `FromV2` for local ids;
    /// this is the cast of the global one).
    pub const fn from_v2(id: crate::Luid) -> Luid {
        let drift = Drift::from_v2(id.drift());
        Luid(layout::pack_l(
            drift.code(),
            layout::tick(id.time()),
            id.seq() as u64,
        ))
    }

    /// The id of 8 big-endian bytes: every value is a v3 local id.
    pub const fn from_bytes(bytes: [u8; 8]) -> Luid {
        Luid(u64::from_be_bytes(bytes))
    }

    /// The id of 8 bytes (for the shared codecs).
    const fn from_array(bytes: [u8; 8]) -> Result<Luid> {
        Ok(Luid::from_bytes(bytes))
    }

    /// The id of a 64-bit value.
    pub const fn from_u64(v: u64) -> Luid {
        Luid(v)
    }

    /// The id as a signed 64-bit integer that sorts as the id does, for
    /// integer columns: the value with its top bit flipped (as v2's
    /// [`crate::Luid::to_i64`]; `to_u64() as i64` would sort codes 4..=7
    /// first).
    pub const fn to_i64(self) -> i64 {
        (self.0 ^ 1 << 63) as i64
    }

    /// The id of a [`to_i64`](Luid::to_i64) value.
    pub const fn from_i64(v: i64) -> Luid {
        Luid(v as u64 ^ 1 << 63)
    }
}

layout::local_parts!(Luid, drift: Drift);

crate::encoding::id_codec!(Luid, bytes: 8, bits: 64, go: "L", text: local, base62: 11 fixed);

crate::traits::id_traits!(Luid, debug: "v3::Luid", now: super::CLOCK.l(), "crate::v3::CLOCK",
    drift: Drift, epochs: v3, bytes: [u8; 8], infallible, int: u64, to_u64, from_u64, infallible);
