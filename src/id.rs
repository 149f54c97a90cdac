//! What every id type of both generations is: the [`Id`] trait.

use core::fmt::{Debug, Display, LowerHex, UpperHex};
use core::hash::Hash;
use core::str::FromStr;
#[cfg(feature = "std")]
use std::time::SystemTime;

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use self::sealed::{Packing, Text};
use crate::encoding::{self, STRING_LEN};
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{self, Ladder};

/// An id: [`Guid`](crate::Guid) and [`Luid`](crate::Luid) of v2,
/// [`v3::Guid`](crate::v3::Guid), [`v3::Luid`](crate::v3::Luid) and
/// [`v3::Xuid`](crate::v3::Xuid).
///
/// Each type states its layout (bits, node bits, drift ladder, text form);
/// the trait derives the rest from the value: the parts, every encoding
/// and Go's comparisons. Generic code works on any of them:
///
/// ```
/// use guid::{Id, v3};
///
/// fn describe<I: Id>(id: I) -> String {
///     format!("{} {} at {} ns, seq {}, node {:#x}", I::NAME, id, id.time(), id.seq(), id.node())
/// }
///
/// for line in [describe(guid::Guid::now()), describe(v3::Xuid::now())] {
///     println!("{line}");
/// }
/// let id = guid::Luid::now();
/// assert_eq!(guid::Luid::parse_bytes(id.to_string())?, id);
/// assert_eq!(guid::Luid::from_base62(id.to_base62())?, id);
/// assert!(guid::Luid::MIN <= id && id <= guid::Luid::MAX);
/// # Ok::<(), guid::Error>(())
/// ```
///
/// Sealed: the crate's five types are all there are.
pub trait Id:
    sealed::Packing
    + Copy
    + Eq
    + Ord
    + Hash
    + Debug
    + Display
    + LowerHex
    + UpperHex
    + FromStr<Err = Error>
    + for<'a> TryFrom<&'a str, Error = Error>
    + for<'a> TryFrom<&'a [u8], Error = Error>
    + AsRef<[u8]>
    + Default
    + Send
    + Sync
    + 'static
{
    /// The type's name, with its generation for v3 (`"v3::Xuid"`): what
    /// `Debug` prints and errors name.
    const NAME: &'static str;
    /// Length of [`to_bytes`](Id::to_bytes): 12 (global), 8 (local) or 16
    /// (v3's UUIDv8).
    const BYTES: usize = size_of::<Self::Bytes>();
    /// Bits of the value.
    const BITS: u32 = 8 * Self::BYTES as u32;
    /// Bits of the node: 32 (global), 58 (v3's 128-bit id) or 0 (local).
    const NODE_BITS: u32 = <Self as sealed::Packing>::NODE;
    /// Length of the text form (`Display`, [`encode`](Id::encode)): 16, or
    /// 36 for a UUID.
    const STRING_LEN: usize = match Self::TEXT {
        Text::Uuid => 36,
        Text::Sortable { .. } => STRING_LEN,
    };
    /// Length of the longest base62 string (v3 pads every one to it).
    const BASE62_LEN: usize = match Self::BYTES {
        8 => 11,
        12 => 17,
        _ => 22,
    };
    /// The smallest id: the first in the order, as a bound for range
    /// queries (a v2 id's drift code is at least 1, so it is not all zeros).
    const MIN: Self;
    /// The largest id: every bit that may be set is set.
    const MAX: Self;

    /// The big-endian bytes, `[u8; BYTES]`.
    type Bytes: AsRef<[u8]>
        + AsMut<[u8]>
        + Default
        + Copy
        + Eq
        + Ord
        + Hash
        + Debug
        + Send
        + Sync
        + 'static;
    /// The drift type of the generation ([`crate::Drift`] or
    /// [`v3::Drift`](crate::v3::Drift)).
    type Drift: Copy
        + Eq
        + Ord
        + Hash
        + Debug
        + Display
        + TryFrom<u8, Error = Error>
        + Into<u8>
        + Ladder;
    /// The local id of the generation, what [`to_l64`](Id::to_l64) gives.
    type Local: Id<Drift = Self::Drift>;

    /// The value: the big-endian bytes as an integer.
    fn to_u128(self) -> u128;

    /// The id of a value; fails if it is wider than [`BITS`](Id::BITS) or
    /// not an id of this type.
    fn from_u128(v: u128) -> Result<Self>;

    /// The big-endian bytes (Go's `Bytes`).
    #[inline]
    fn to_bytes(self) -> Self::Bytes {
        let mut bytes = Self::Bytes::default();
        bytes.as_mut().copy_from_slice(self.as_ref());
        bytes
    }

    /// The drift.
    fn drift(&self) -> Self::Drift;

    /// The time in Unix nanoseconds (for an inverse clock's ids, `u64::MAX -`
    /// it), to the tick: the low 17 bits are 0.
    #[inline]
    fn time(&self) -> u64 {
        layout::tick_l(self.parts().0) << layout::TICK_SHIFT
    }

    /// The sequence number, 0..=16383.
    #[inline]
    fn seq(&self) -> u16 {
        (self.payload() as u64 & layout::SEQ_MAX) as u16
    }

    /// The node id, [`NODE_BITS`](Id::NODE_BITS) wide (0 for a local id).
    #[inline]
    fn node(&self) -> u64 {
        self.parts().1
    }

    /// The local id: drift, time and sequence without the node (Go's `ToL`
    /// in v2, `L.FromG`/`L.FromX` in v3); a local id itself.
    #[inline]
    fn to_l64(self) -> Self::Local {
        Self::Local::from_payload(self.parts().0 as u128)
    }

    /// The id of these parts: what a clock of this node and drift gives at
    /// this time (Unix nanoseconds, kept to the tick) and sequence. Fails if
    /// the node is wider than [`NODE_BITS`](Id::NODE_BITS) (a local id's
    /// must be 0) or the sequence wider than 14 bits.
    fn from_parts(node: u64, time_ns: u64, seq: u16, drift: Self::Drift) -> Result<Self> {
        let seq = layout::check(seq as u64, "seq", layout::SEQ_BITS)?;
        let node = match Self::NODE_BITS {
            0 if node != 0 => {
                return Err(Error::new(ErrorKind::Part {
                    name: "node",
                    value: node,
                    max: 0,
                }));
            }
            0 => 0,
            bits => layout::check(node, "node", bits)?,
        };
        let state = layout::tick(time_ns) << layout::SEQ_BITS | seq;
        Ok(Self::from_state(drift.into(), node, state))
    }

    /// The id of exactly [`BYTES`](Id::BYTES) big-endian bytes (Go's
    /// `FromBytes`).
    #[inline]
    fn from_slice(bytes: &[u8]) -> Result<Self> {
        fn array<const N: usize>(bytes: &[u8]) -> Result<[u8; N]> {
            bytes
                .try_into()
                .map_err(|_| encoding::length(N, bytes.len()))
        }
        let v = match Self::BYTES {
            8 => array(bytes).map(|b| u64::from_be_bytes(b) as u128),
            12 => array(bytes).map(|b| encoding::from_bytes96(&b)),
            _ => array(bytes).map(u128::from_be_bytes),
        };
        v.and_then(Self::from_u128).map_err(|e| e.of(Self::NAME))
    }

    /// Writes the text form (what `Display` prints) into the start of
    /// `buf`, without allocating, and returns it.
    ///
    /// # Panics
    ///
    /// If `buf` is shorter than [`STRING_LEN`](Id::STRING_LEN).
    #[inline]
    fn encode(self, buf: &mut [u8]) -> &str {
        match Self::TEXT {
            Text::Uuid => encoding::encode_uuid(self.to_u128(), first(buf)),
            Text::Sortable { bits: 6 } => {
                encoding::encode_sortable::<6, STRING_LEN>(self.to_u128(), first(buf))
            }
            // A local id's 4-bit cells are the nibbles of its stored bytes.
            Text::Sortable { .. } => match self.as_ref().first_chunk::<8>() {
                Some(bytes) => encoding::encode_nibbles(bytes, first(buf)),
                None => unreachable!("a 4-bit string is a local id's, of 8 bytes"),
            },
        }
    }

    /// Parses the text form (Go's `FromString`, minus its leniency), from
    /// bytes so that non-UTF-8 input is a typed error too.
    #[inline]
    fn parse_bytes(s: impl AsRef<[u8]>) -> Result<Self> {
        Self::parse_text(s.as_ref()).map_err(|e| e.of(Self::NAME))
    }

    /// Writes the base62 string into the start of `buf` and returns it
    /// (Go's `Base62`: v2 drops leading zeros, v3 pads to
    /// [`BASE62_LEN`](Id::BASE62_LEN)).
    ///
    /// # Panics
    ///
    /// If `buf` is shorter than [`BASE62_LEN`](Id::BASE62_LEN).
    #[inline]
    fn encode_base62(self, buf: &mut [u8]) -> &str {
        let v = self.to_u128();
        match (Self::BASE62_LEN, Self::Drift::PADDED_BASE62) {
            (11, false) => encoding::encode_base62::<11, 2, false>(v, first(buf)),
            (11, true) => encoding::encode_base62::<11, 2, true>(v, first(buf)),
            (17, false) => encoding::encode_base62::<17, 3, false>(v, first(buf)),
            (17, true) => encoding::encode_base62::<17, 3, true>(v, first(buf)),
            _ => encoding::encode_base62::<22, 4, true>(v, first(buf)),
        }
    }

    /// The base62 string.
    fn to_base62(self) -> String {
        self.encode_base62(&mut [0; 22]).to_owned()
    }

    /// Parses a canonical base62 string (Go's `FromBase62`, minus its
    /// leniency: v2 without leading zeros, v3 zero-padded, nothing past
    /// [`BITS`](Id::BITS)).
    #[inline]
    fn from_base62(s: impl AsRef<[u8]>) -> Result<Self> {
        let v = encoding::decode_base62(
            s.as_ref(),
            Self::BITS,
            Self::BASE62_LEN,
            Self::Drift::PADDED_BASE62,
        );
        v.and_then(Self::from_u128).map_err(|e| e.of(Self::NAME))
    }

    /// The value cut into `n`-bit cells from the top, `BITS / n` of them,
    /// leftover low bits dropped (Go's `Split`); `n` in 1..=8.
    fn split(self, n: u32) -> Result<Vec<u8>> {
        encoding::split(self.to_u128(), Self::BITS, n)
    }

    /// Puts [`split`](Id::split) cells back together (Go's `Fold`).
    fn fold(n: u32, cells: &[u8]) -> Result<Self> {
        encoding::fold(cells, Self::BITS, n).and_then(Self::from_u128)
    }

    /// The time as a `SystemTime` (Go's `EpochT` in v2, exact where Go's
    /// int64 nanoseconds wrap, past the year 2262). v3 reads the direction
    /// from the value as Go's `Epoch` does: a time of 2^63 or more is an
    /// inverse clock's `u64::MAX - ns`, and gives back `ns`.
    #[cfg(feature = "std")]
    fn epoch(&self) -> SystemTime {
        let t = self.time();
        let ns = if Self::Drift::EPOCH_READS_DIRECTION && t >> 63 != 0 {
            u64::MAX - t
        } else {
            t
        };
        crate::time::from_unix_nanos(ns as i128)
    }

    /// The inverse time `u64::MAX - time` read as signed nanoseconds, as a
    /// `SystemTime` (v2's `EpochI`).
    #[cfg(feature = "std")]
    fn epoch_i(&self) -> SystemTime {
        crate::time::from_unix_nanos((u64::MAX - self.time()) as i64 as i128)
    }

    /// `self` sorts before `other` (Go's `Before`).
    fn before(&self, other: &Self) -> bool {
        self < other
    }

    /// `self` sorts after `other` (Go's `After`).
    fn after(&self, other: &Self) -> bool {
        self > other
    }

    /// `self` and `other` are the same id (Go's `Equal`).
    fn equal(&self, other: &Self) -> bool {
        self == other
    }
}

/// The first `N` bytes of a caller's buffer.
#[inline]
fn first<const N: usize>(buf: &mut [u8]) -> &mut [u8; N] {
    buf.first_chunk_mut()
        .expect("the buffer holds the encoding (see the method's panics section)")
}

pub(crate) mod sealed {
    pub use crate::layout::{Packing, Text};
}

mod declare;

pub(crate) use declare::declare;
