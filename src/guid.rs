//! The 96-bit global id.

use crate::Id;
use crate::drift::Drift;
use crate::encoding;
use crate::error::{Error, ErrorKind, Result};
use crate::id::sealed::{Packing, Text};
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
#[cfg_attr(feature = "diesel", derive(diesel::expression::AsExpression, diesel::deserialize::FromSqlRow), diesel(sql_type = diesel::sql_types::Binary))]
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
    #[cfg(feature = "std")]
    /// A new id from the default clock [`CLOCK`](crate::CLOCK).
    #[inline]
    pub fn now() -> Guid {
        crate::CLOCK.g()
    }

    /// The id made of these parts: a 32-bit node, time in Unix nanoseconds
    /// (kept to the tick of 2^17 ns), sequence (0..=16383) and drift: what
    /// a clock with this node and drift gives at this time and sequence.
    /// Fails if the sequence is too wide.
    ///
    /// ```
    /// use guid::{Drift, Guid, Id};
    /// let id = Guid::compose(0x53051caf, 1_700_000_000_000_000_000, 7, Drift::DEFAULT)?;
    /// assert_eq!((id.node(), id.seq(), id.drift()), (0x53051caf, 7, Drift::DEFAULT));
    /// assert_eq!(id.time(), 1_700_000_000_000_000_000 >> 17 << 17);
    /// # Ok::<(), guid::Error>(())
    /// ```
    pub fn compose(node: u32, time_ns: u64, seq: u16, drift: Drift) -> Result<Guid> {
        Guid::from_parts(node as u64, time_ns, seq, drift)
    }

    /// The zero id of a drift: node, time and sequence all 0 (Go's `Z`).
    pub const fn zero(drift: Drift) -> Guid {
        Guid::from_payload(layout::insert_node(
            layout::pack_l(drift.code(), 0, 0),
            Drift::window_of(drift.code()),
            0,
            layout::NODE_BITS_G,
        ))
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
    pub fn diff(&self, other: &Guid) -> Guid {
        let t = self.time().wrapping_sub(other.time());
        let s = (self.seq() as u64).wrapping_sub(other.seq() as u64);
        let local = layout::pack_l(self.drift().code(), layout::tick(t), 0);
        Guid::from_payload(Guid::stamp(local, self.node()).payload() | s as u128)
    }

    /// The global id of a local id made on `node` (Go's `FromL`).
    pub fn from_l64(local: Luid, node: u32) -> Guid {
        Guid::stamp(local.to_u64(), node as u64)
    }

    /// The id of 12 big-endian bytes; fails if the drift code is 0.
    pub const fn from_bytes(bytes: [u8; 12]) -> Result<Guid> {
        if bytes[0] >> 5 == 0 {
            return Err(Error::new(ErrorKind::Drift));
        }
        Ok(Guid(bytes))
    }

    /// The 12 big-endian bytes (Go's `Bytes`).
    pub const fn to_bytes(self) -> [u8; 12] {
        self.0
    }

    /// The 12 big-endian bytes, borrowed.
    pub const fn as_bytes(&self) -> &[u8; 12] {
        &self.0
    }

    /// The 96-bit value.
    pub const fn to_u128(self) -> u128 {
        layout::from_bytes96(&self.0)
    }

    /// The id of a 96-bit value; fails if it is wider or its drift code is 0.
    pub const fn from_u128(v: u128) -> Result<Guid> {
        if v >> 96 != 0 {
            return Err(Error::new(ErrorKind::Overflow { bits: 96 }));
        }
        Guid::from_bytes(layout::bytes96(v))
    }

    /// The id of a 96-bit value with a valid drift code.
    #[inline]
    const fn from_payload(v: u128) -> Guid {
        Guid(layout::bytes96(v))
    }
}

impl Id for Guid {
    const NAME: &'static str = "Guid";
    const MIN: Guid = Guid::zero(Drift::MIN);
    const MAX: Guid = Guid([0xff; 12]);

    type Bytes = [u8; 12];
    type Drift = Drift;
    type Local = Luid;

    #[inline]
    fn from_u128(v: u128) -> Result<Guid> {
        Guid::from_u128(v)
    }

    #[inline]
    fn drift(&self) -> Drift {
        Guid::drift(self)
    }
}

impl Packing for Guid {
    const TEXT: Text = Text::Sortable { bits: 6 };
    const V3: bool = false;
    const NODE: u32 = layout::NODE_BITS_G;

    #[inline]
    fn window(code: u8) -> u32 {
        Drift::window_of(code)
    }

    #[inline]
    fn from_payload(p: u128) -> Guid {
        Guid::from_payload(p)
    }

    #[inline]
    fn from_halves(high: u64, low: u64) -> Guid {
        Guid(layout::bytes96_halves(high, low))
    }

    /// Refuses Go's JSON form of a local id (`*` first) by name.
    #[inline]
    fn parse_text(s: &[u8]) -> Result<Guid> {
        let v = encoding::decode_sortable::<6>(s).map_err(|e| match s.first() {
            Some(b'*') => Error::new(ErrorKind::Marker { local: false }),
            _ => e,
        })?;
        Guid::from_u128(v)
    }
}

crate::id::std_traits!(Guid, bytes: [u8; 12], fallible, int: u128, from_u128, fallible);
