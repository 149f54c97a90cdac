//! The 64-bit local id: a global id with the node dropped.

use std::time::SystemTime;

use crate::drift::Drift;
use crate::error::{Error, ErrorKind, Result};
use crate::guid::Guid;
use crate::layout;

/// A 64-bit local id: drift, time and sequence, unique within one clock.
///
/// ```text
/// | k: 3 | tick: 47 | seq: 14 |
/// ```
///
/// The cast of a [`Guid`] without its node ([`Guid::to_l64`]), for stores
/// that know which process made an id. Ordered by time, then sequence.
///
/// ```
/// let local = guid::l(&guid::CLOCK);
/// assert_eq!(local.to_string().parse::<guid::Luid>(), Ok(local));
/// ```
///
/// Two strings of a local id look alike and are not interchangeable, as in
/// Go: `Display`/`FromStr` give 16 characters of 4 bits each, while JSON
/// (feature `serde`) gives `"*"` and the 16-character string of the global
/// id with node 0 (6 bits each). Neither parses as the other:
///
/// ```
/// # #[cfg(feature = "serde")] {
/// let local = guid::l(&guid::CLOCK);
/// let json = serde_json::to_string(&local).unwrap(); // "\"*…\""
/// assert!(json[2..18].parse::<guid::Luid>() != Ok(local));
/// assert!(serde_json::from_str::<guid::Luid>(&format!("\"*{local}\"")).ok() != Some(local));
/// # }
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::NoUninit))]
#[cfg_attr(
    feature = "zerocopy",
    derive(zerocopy::IntoBytes, zerocopy::Immutable, zerocopy::KnownLayout)
)]
#[repr(transparent)]
pub struct Luid(u64);

const _: () = assert!(size_of::<Luid>() == 8);

impl Luid {
    #[inline]
    const fn from_parts(drift: Drift, tick: u64, seq: u16) -> Luid {
        Luid(layout::pack_l(drift.code(), tick, seq as u64))
    }

    /// The id made of these parts: time in Unix nanoseconds (kept to the
    /// tick), sequence (0..=16383) and drift.
    pub const fn compose(time_ns: u64, seq: u16, drift: Drift) -> Result<Luid> {
        match layout::check(seq as u64, "seq", layout::SEQ_BITS) {
            Ok(_) => Ok(Luid::from_parts(drift, layout::tick(time_ns), seq)),
            Err(e) => Err(e),
        }
    }

    /// The smallest local id at a time, for range queries (Go's `FromT`).
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use guid::{Drift, Luid};
    /// let ten = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    /// let lower = Luid::from_time(ten, Drift::DEFAULT);
    /// // One tick (2^17 ns) later, and one tick earlier.
    /// let after = Luid::compose(1_700_000_000_000_000_000 + (1 << 17), 5, Drift::DEFAULT)?;
    /// let before = Luid::compose(1_700_000_000_000_000_000 - (1 << 17), 5, Drift::DEFAULT)?;
    /// assert!(before < lower && lower < after);
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub fn from_time(time: SystemTime, drift: Drift) -> Luid {
        Luid::from_parts(drift, layout::tick(crate::time::unix_nanos(time)), 0)
    }

    /// The zero id of a drift: time and sequence 0.
    pub const fn zero(drift: Drift) -> Luid {
        Luid::from_parts(drift, 0, 0)
    }

    /// The drift.
    pub const fn drift(&self) -> Drift {
        match Drift::from_code_bits(layout::code_l(self.0)) {
            Ok(d) => d,
            // Unreachable: every Luid is checked to have a non-zero code.
            Err(_) => Drift::DEFAULT,
        }
    }

    /// The approximate distance from `other` to `self` (Go's `Diff`), as
    /// [`Guid::diff`]: the wrapped sequence difference is ORed in unmasked.
    pub const fn diff(&self, other: &Luid) -> Luid {
        let t = self.time().wrapping_sub(other.time());
        let s = (self.seq() as u64).wrapping_sub(other.seq() as u64);
        Luid(layout::pack_l(self.drift().code(), layout::tick(t), s))
    }

    /// The global id of this local id made on `node` (Go's `FromL`).
    pub const fn to_g(self, node: u32) -> Guid {
        Guid::from_l64(self, node)
    }

    /// The id of 8 big-endian bytes; fails if the drift code is 0.
    pub const fn from_bytes(bytes: [u8; 8]) -> Result<Luid> {
        Luid::from_u64(u64::from_be_bytes(bytes))
    }

    /// The id of a 64-bit value; fails if its drift code is 0.
    pub const fn from_u64(v: u64) -> Result<Luid> {
        if layout::code_l(v) == 0 {
            return Err(Error(ErrorKind::Drift));
        }
        Ok(Luid(v))
    }

    /// The id as a signed 64-bit integer that sorts as the id does, for
    /// `BIGINT`/`INT8`/`INTEGER` columns: the value with its top bit flipped.
    ///
    /// `to_u64() as i64` does not keep the order: drift codes 4..=7 set the
    /// top bit, so those ids would read as negative and sort before the
    /// rest in SQL. The flip maps `0..=u64::MAX` onto `i64::MIN..=i64::MAX`
    /// in order. It is not Go's `int64(l)`: exchange ids with Go as bytes,
    /// strings or [`to_u64`](Luid::to_u64).
    ///
    /// ```
    /// use guid::{Drift, Luid};
    /// let a = Luid::compose(1 << 60, 0, Drift::new(3)?)?;
    /// let b = Luid::compose(1 << 60, 0, Drift::new(4)?)?;
    /// assert!(a < b && a.to_i64() < b.to_i64());
    /// assert!((a.to_u64() as i64) > (b.to_u64() as i64)); // the trap
    /// assert_eq!(Luid::from_i64(b.to_i64()), Ok(b));
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub const fn to_i64(self) -> i64 {
        (self.0 ^ 1 << 63) as i64
    }

    /// The id of a [`to_i64`](Luid::to_i64) value; fails if its drift
    /// code is 0.
    pub const fn from_i64(v: i64) -> Result<Luid> {
        Luid::from_u64(v as u64 ^ 1 << 63)
    }

    /// The id of 8 bytes, checked (for the shared codecs).
    const fn from_array(bytes: [u8; 8]) -> Result<Luid> {
        Luid::from_bytes(bytes)
    }
}

layout::local_parts!(Luid, drift: Drift);

crate::encoding::id_codec!(Luid, bytes: 8, bits: 64, go: "L", text: local, base62: 11 trimmed);

crate::traits::id_traits!(Luid, debug: "Luid", now: crate::CLOCK.l(), "crate::CLOCK",
    drift: Drift, epochs: v2, bytes: [u8; 8], fallible, int: u64, to_u64, from_u64, fallible);
