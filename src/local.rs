//! The 64-bit local id: a global id with the node dropped.

#[cfg(feature = "std")]
use std::time::SystemTime;

use crate::Id;
use crate::drift::Drift;
use crate::encoding;
use crate::error::{Error, ErrorKind, Result};
use crate::guid::Guid;
#[cfg(feature = "std")]
use crate::id::sealed::Packing;
use crate::layout;

crate::id::declare! {
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
    /// A local id has two strings, as in Go: `Display` gives 16 characters of
    /// 4 bits each, and JSON (feature `serde`) Go's form, `"*"` and the
    /// 16-character string of the global id with node 0 (6 bits each). Both
    /// readers take both forms:
    ///
    /// ```
    /// let local = guid::l(&guid::CLOCK);
    /// let go = format!("*{}", local.to_g(0)); // what Go's JSON holds
    /// assert_eq!(go.parse::<guid::Luid>(), Ok(local));
    /// # #[cfg(feature = "serde")] {
    /// assert_eq!(serde_json::to_string(&local).unwrap(), format!("\"{go}\""));
    /// assert_eq!(serde_json::from_str::<guid::Luid>(&format!("\"{local}\"")).unwrap(), local);
    /// # }
    /// ```
    pub struct Luid([u8; 8]): checked;
    name: "Luid",
    drift: Drift,
    local: Luid,
    text: layout::Text::Sortable { bits: 4 },
    node: 0,
    store: u64,
    now: crate::CLOCK.l(),
    int: u64, from_u64, fallible,
    bytes: fallible,
}

impl Luid {
    /// The id made of these parts: time in Unix nanoseconds (kept to the
    /// tick), sequence (0..=16383) and drift.
    pub const fn compose(time_ns: u64, seq: u16, drift: Drift) -> Result<Luid> {
        match layout::compose_l(drift.code(), time_ns, seq) {
            Ok(v) => Ok(Luid(v.to_be_bytes())),
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
    #[cfg(feature = "std")]
    pub fn from_time(time: SystemTime, drift: Drift) -> Luid {
        Luid::from_state(
            drift.code(),
            0,
            layout::tick(crate::time::unix_nanos(time)) << layout::SEQ_BITS,
        )
    }

    /// The global id of this local id made on `node` (Go's `FromL`).
    pub fn to_g(self, node: u32) -> Guid {
        Guid::from_l64(self, node)
    }

    /// The id of 8 big-endian bytes; fails if the drift code is 0.
    pub const fn from_bytes(bytes: [u8; 8]) -> Result<Luid> {
        Luid::from_u64(u64::from_be_bytes(bytes))
    }

    /// The 64-bit value.
    pub const fn to_u64(self) -> u64 {
        u64::from_be_bytes(self.0)
    }

    /// The id of a 64-bit value; fails if its drift code is 0.
    pub const fn from_u64(v: u64) -> Result<Luid> {
        if layout::code_l(v) == 0 {
            return Err(Error::new(ErrorKind::Drift));
        }
        Ok(Luid(v.to_be_bytes()))
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
        (self.to_u64() ^ 1 << 63) as i64
    }

    /// The id of a [`to_i64`](Luid::to_i64) value; fails if its drift
    /// code is 0.
    pub const fn from_i64(v: i64) -> Result<Luid> {
        Luid::from_u64(v as u64 ^ 1 << 63)
    }

    /// Reads the text form, and Go's JSON form too: `*` and the string of a
    /// global id, whose node is dropped as Go drops it (Go writes node 0).
    #[inline]
    fn read_text(s: &[u8]) -> Result<Luid> {
        match s.split_first() {
            Some((b'*', global)) => {
                let v = encoding::decode_sortable::<6>(global)?;
                Guid::from_u128(v).map(|g| g.to_l64())
            }
            _ => Luid::from_u64(encoding::decode_sortable::<4>(s)? as u64),
        }
    }
}
