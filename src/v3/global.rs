//! The v3 96-bit global id.

use core::cmp::Ordering;
#[cfg(feature = "std")]
use std::time::SystemTime;

#[cfg(feature = "std")]
use super::Clock;
use super::{Drift, Luid};
use crate::Id;
use crate::encoding;
use crate::error::{Error, ErrorKind, Result};
use crate::id::sealed::Packing;
use crate::layout;

crate::id::declare! {
    /// A v3 96-bit global id (Go v3's `G`): drift, time, node and sequence,
    /// unique across nodes.
    ///
    /// ```text
    ///  3 bits   47-d bits     32 bits      d bits     14 bits
    /// | code | tick >> d  |    node    | low tick | seq |
    /// ```
    ///
    /// The bit positions of a v2 [`crate::Guid`] for the same window `d`, but
    /// `d` comes from [`Drift`]'s ladder, so the same bytes read differently
    /// as v2 and as v3 for every code but 5: convert with
    /// [`Guid::from_v2`], never by bytes or strings. Any 12 bytes are a v3 id
    /// (code 0 included).
    ///
    /// ```
    /// use guid::{Id, v3};
    /// let id = v3::Guid::now();
    /// let text = id.to_string(); // 16 characters, sorts as the id does
    /// assert_eq!(text.parse::<v3::Guid>(), Ok(id));
    /// assert_eq!(v3::Guid::from_base62(id.to_base62())?, id); // 17 characters
    /// assert_eq!(id.node(), v3::CLOCK.node() & 0xffff_ffff); // its low 32 bits
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub struct Guid([u8; 12]): pod;
    name: "v3::Guid",
    drift: Drift,
    local: Luid,
    text: layout::Text::Sortable { bits: 6 },
    node: layout::NODE_BITS_G,
    store: u96,
    now: super::CLOCK.g(),
    int: u128, from_u128, fallible,
    bytes: infallible,
}

impl Guid {
    /// The id made of these parts, as [`crate::Guid::compose`] with a v3
    /// drift.
    ///
    /// ```
    /// use guid::{Id, v3::{Drift, Guid}};
    /// let id = Guid::compose(0x53051caf, 1_700_000_000_000_000_000, 7, Drift::MAX)?;
    /// assert_eq!((id.node(), id.seq(), id.drift().code()), (0x53051caf, 7, 7));
    /// assert_eq!(id.time(), 1_700_000_000_000_000_000 >> 17 << 17);
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub fn compose(node: u32, time_ns: u64, seq: u16, drift: Drift) -> Result<Guid> {
        Guid::from_parts(node as u64, time_ns, seq, drift)
    }

    /// The smallest id of `clock` at time `t`: its node and drift, sequence
    /// 0, and the time in the clock's direction (Go's `G.FromTime`).
    #[cfg(feature = "std")]
    pub fn from_time(clock: &Clock, t: SystemTime) -> Guid {
        Guid::from_state(
            clock.drift().code(),
            clock.node(),
            clock.tick_at(t) << layout::SEQ_BITS,
        )
    }

    /// The global id of a local id made on `node` (Go's `G.FromL`).
    pub fn from_l64(local: Luid, node: u32) -> Guid {
        Guid::stamp(local.to_u64(), node as u64)
    }

    /// Go v3's ring order around `reference` (`OrdRingG(reference).Compare`):
    /// by drift code, then the time above the window, then the node counted
    /// from `reference` (`(node - reference) mod 2^32`), then the time within
    /// the window and the sequence. The order of a consistent-hashing ring
    /// that starts at `reference`; with `reference` 0 it is `Ord`.
    ///
    /// ```
    /// use guid::v3::{Drift, Guid};
    /// let t = 1_700_000_000_000_000_000;
    /// let a = Guid::compose(0x10, t, 0, Drift::DEFAULT)?;
    /// let b = Guid::compose(0x90, t, 0, Drift::DEFAULT)?;
    /// assert!(a.cmp_ring(&b, 0).is_lt() && a < b);
    /// assert!(a.cmp_ring(&b, 0x80).is_gt()); // the ring starts at 0x80
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub fn cmp_ring(&self, other: &Guid, reference: u32) -> Ordering {
        self.ring(other, reference.into())
    }

    /// The v3 id of a v2 id (Go's `FromV2`): the same node, time and
    /// sequence, with the v3 drift whose window holds the v2 window
    /// ([`Drift::from_v2`]: v2's default code 3 becomes v3's default 4).
    ///
    /// ```
    /// use guid::{Id, v3};
    /// let old = guid::Guid::now();
    /// let new = v3::Guid::from_v2(old);
    /// assert_eq!((new.node(), new.time(), new.seq()), (old.node(), old.time(), old.seq()));
    /// assert_eq!(new.drift(), v3::Drift::DEFAULT);
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub fn from_v2(id: crate::Guid) -> Guid {
        let local = Luid::from_v2(id.to_l64());
        Guid::stamp(local.to_u64(), id.node())
    }

    /// The v3 id of a v2 id's 16-character string (Go's `FromV2(false, s)`),
    /// read as strictly as [`crate::Guid::parse_bytes`] reads it.
    pub fn from_v2_str(s: impl AsRef<[u8]>) -> Result<Guid> {
        crate::Guid::parse_bytes(s).map(Guid::from_v2)
    }

    /// The v3 id of a v2 id's base62 string, leading zeros dropped as v2
    /// writes it (Go's `FromV2(true, s)`), read as strictly as
    /// [`crate::Guid::from_base62`] reads it.
    pub fn from_v2_base62(s: impl AsRef<[u8]>) -> Result<Guid> {
        crate::Guid::from_base62(s).map(Guid::from_v2)
    }

    /// The id of 12 big-endian bytes: every value is a v3 id.
    pub const fn from_bytes(bytes: [u8; 12]) -> Guid {
        Guid(bytes)
    }

    /// The 96-bit value.
    pub const fn to_u128(self) -> u128 {
        encoding::from_bytes96(&self.0)
    }

    /// The id of a 96-bit value; fails if it is wider.
    pub const fn from_u128(v: u128) -> Result<Guid> {
        if v >> 96 != 0 {
            return Err(Error::new(ErrorKind::Overflow { bits: 96 }));
        }
        Ok(Guid(encoding::bytes96(v)))
    }

    /// Reads the text form: every 96-bit value is an id.
    #[inline]
    fn read_text(s: &[u8]) -> Result<Guid> {
        Ok(Guid(encoding::bytes96(encoding::decode_sortable::<6>(s)?)))
    }
}
