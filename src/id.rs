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
use crate::layout;

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
    type Drift: Copy + Eq + Ord + Hash + Debug + Display + TryFrom<u8, Error = Error> + Into<u8>;
    /// The local id of the generation, what [`to_l64`](Id::to_l64) gives.
    type Local: Id<Drift = Self::Drift>;

    /// The value: the big-endian bytes as an integer.
    #[inline]
    fn to_u128(self) -> u128 {
        let b = self.as_ref();
        match Self::BYTES {
            8 => b.first_chunk().map_or(0, |b| u64::from_be_bytes(*b).into()),
            12 => b.first_chunk().map_or(0, layout::from_bytes96),
            _ => b.first_chunk().map_or(0, |b| u128::from_be_bytes(*b)),
        }
    }

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
        let code = drift.into();
        Ok(Self::stamp(
            layout::pack_l(code, layout::tick(time_ns), seq),
            node,
        ))
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
            12 => array(bytes).map(|b| layout::from_bytes96(&b)),
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
        match (Self::BASE62_LEN, Self::V3) {
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
        let v = encoding::decode_base62(s.as_ref(), Self::BITS, Self::BASE62_LEN, Self::V3);
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
        let ns = if Self::V3 && t >> 63 != 0 {
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
    use crate::error::Result;
    use crate::layout;

    /// The text form of an id type.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub enum Text {
        /// 16 characters of the sortable alphabet, `bits` (6 or 4) each.
        Sortable {
            /// Bits a character.
            bits: u32,
        },
        /// The canonical UUID string.
        Uuid,
    }

    /// Where an id's parts sit, which only the crate states: the trait
    /// cannot be implemented, nor its methods called, outside it.
    pub trait Packing: Sized + Copy {
        /// The text form.
        const TEXT: Text;
        /// Of the v3 generation: zero-padded base62, `epoch` reads the
        /// direction.
        const V3: bool;
        /// The node bits, 0 for a local id.
        const NODE: u32;

        /// The window (low tick bits below the node) of a drift code.
        fn window(code: u8) -> u32;

        /// The value without the UUID's fixed bits: the drift code in its
        /// top 3 bits of `64 + NODE`.
        #[inline]
        fn payload(&self) -> u128
        where
            Self: super::Id,
        {
            match Self::TEXT {
                Text::Uuid => layout::unsplice_uuid(self.to_u128()),
                Text::Sortable { .. } => self.to_u128(),
            }
        }

        /// The id of a payload with a valid drift code.
        fn from_payload(p: u128) -> Self;

        /// The id of the payload `high << 64 | low`, for a batch that counts
        /// `low` under a fixed `high` (a layout may write it the cheaper way
        /// for that).
        #[inline]
        fn from_halves(high: u64, low: u64) -> Self {
            Self::from_payload(u128::from(high) << 64 | u128::from(low))
        }

        /// The drift code.
        #[inline]
        fn code(&self) -> u8
        where
            Self: super::Id,
        {
            (self.payload() >> (61 + Self::NODE)) as u8 & 7
        }

        /// The local id's value and the node.
        #[inline]
        fn parts(&self) -> (u64, u64)
        where
            Self: super::Id,
        {
            let p = self.payload();
            if Self::NODE == 0 {
                return (p as u64, 0);
            }
            layout::remove_node(p, Self::window(self.code()), Self::NODE)
        }

        /// The id of a local id's value stamped with `node`.
        #[inline]
        fn stamp(local: u64, node: u64) -> Self {
            if Self::NODE == 0 {
                return Self::from_payload(local as u128);
            }
            let window = Self::window(layout::code_l(local));
            Self::from_payload(layout::insert_node(local, window, node, Self::NODE))
        }

        /// Packs a clock state `tick << 14 | seq` (a carry past 14 bits is
        /// the tick's, so it never reaches the node).
        #[inline]
        fn from_state(code: u8, node: u64, state: u64) -> Self {
            let local = layout::pack_l(code, state >> layout::SEQ_BITS, state & layout::SEQ_MAX);
            Self::stamp(local, node)
        }

        /// Reads the text form (and, for v2's local id, Go's JSON form).
        fn parse_text(s: &[u8]) -> Result<Self>;
    }
}

/// The std traits every id type implements the same way, on [`Id`], and
/// the conversions of both generations' drifts (`drift`):
/// `Display`, `Debug`, the hex formats, `FromStr`, `AsRef<[u8]>` where the
/// id is stored as bytes, and the conversions to and from bytes, slices,
/// strings and integers (each `TryFrom`, or `From` where every value is an
/// id: `infallible`).
macro_rules! std_traits {
    // The conversions both generations' drifts have: `Default`, from a
    // tolerated skew (also in nanoseconds), from and to the code.
    (drift $drift:ty) => {
        impl $drift {
            /// The drift for a signed skew in nanoseconds (Go's
            /// `time.Duration`); zero and negative skews give the smallest
            /// window, `MIN`.
            pub const fn from_nanos(skew: i64) -> $drift {
                if skew <= 0 {
                    <$drift>::MIN
                } else {
                    <$drift>::from_duration(::core::time::Duration::from_nanos(skew as u64))
                }
            }
        }

        impl Default for $drift {
            fn default() -> Self {
                <$drift>::DEFAULT
            }
        }

        impl From<::core::time::Duration> for $drift {
            /// The drift for a tolerated clock skew
            #[doc = concat!("([`", stringify!($drift), "::from_duration`]).")]
            fn from(skew: ::core::time::Duration) -> Self {
                <$drift>::from_duration(skew)
            }
        }

        impl TryFrom<u8> for $drift {
            type Error = $crate::Error;
            fn try_from(code: u8) -> $crate::Result<$drift> {
                <$drift>::new(code)
            }
        }

        impl From<$drift> for u8 {
            fn from(drift: $drift) -> u8 {
                drift.code()
            }
        }
    };

    ($id:ty, bytes: $bytes:ty, $bytes_conv:ident, int: $int:ty, $from_int:ident, $int_conv:ident) => {
        impl ::core::fmt::Display for $id {
            /// The text form; width and alignment flags pad it.
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.pad($crate::Id::encode(*self, &mut [0; <$id as $crate::Id>::STRING_LEN]))
            }
        }

        impl ::core::fmt::Debug for $id {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "{}({})", <$id as $crate::Id>::NAME, self)
            }
        }

        impl ::core::fmt::LowerHex for $id {
            /// The big-endian bytes in lowercase hex, every leading zero
            /// kept (`{:#x}` adds `0x`).
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                $crate::encoding::hex(&self.to_bytes(), false, f)
            }
        }

        impl ::core::fmt::UpperHex for $id {
            /// The big-endian bytes in uppercase hex, every leading zero
            /// kept (`{:#X}` adds `0x`).
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                $crate::encoding::hex(&self.to_bytes(), true, f)
            }
        }

        impl ::core::str::FromStr for $id {
            type Err = $crate::Error;
            #[inline]
            fn from_str(s: &str) -> $crate::Result<$id> {
                $crate::Id::parse_bytes(s)
            }
        }

        impl TryFrom<&str> for $id {
            type Error = $crate::Error;
            #[inline]
            fn try_from(s: &str) -> $crate::Result<$id> {
                $crate::Id::parse_bytes(s)
            }
        }

        impl TryFrom<&[u8]> for $id {
            type Error = $crate::Error;
            /// The big-endian bytes (not the string).
            #[inline]
            fn try_from(bytes: &[u8]) -> $crate::Result<$id> {
                $crate::Id::from_slice(bytes)
            }
        }

        impl From<$id> for $bytes {
            #[inline]
            fn from(id: $id) -> $bytes {
                id.to_bytes()
            }
        }

        impl From<$id> for $int {
            #[inline]
            fn from(id: $id) -> $int {
                $crate::Id::to_u128(id) as $int
            }
        }

        impl AsRef<[u8]> for $id {
            /// The big-endian bytes.
            #[inline]
            fn as_ref(&self) -> &[u8] {
                self.as_bytes()
            }
        }

        impl Default for $id {
            /// The zero id of the default drift; never generates.
            fn default() -> Self {
                <$id>::zero(<<$id as $crate::Id>::Drift>::DEFAULT)
            }
        }

        $crate::id::std_traits!(@from $id, $bytes, from_bytes, $bytes_conv);
        $crate::id::std_traits!(@from $id, $int, $from_int, $int_conv);
    };

    (@from $id:ty, $from:ty, $make:ident, fallible) => {
        impl TryFrom<$from> for $id {
            type Error = $crate::Error;
            #[inline]
            fn try_from(v: $from) -> $crate::Result<$id> {
                <$id>::$make(v)
            }
        }
    };

    (@from $id:ty, $from:ty, $make:ident, infallible) => {
        impl From<$from> for $id {
            #[inline]
            fn from(v: $from) -> $id {
                <$id>::$make(v)
            }
        }
    };
}

pub(crate) use std_traits;
