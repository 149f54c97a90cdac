//! What every id type of both generations implements the same way: Go's
//! comparisons and epochs, and the std traits.

use core::fmt;

/// Implements `now`, the epochs and Go's comparisons, `Display`, `Debug`,
/// the hex formats, `FromStr`, `Default` and the conversions to and from
/// bytes, slices, strings and integers for an id type.
///
/// - `debug`: the name `Debug` prints, with its generation for v3.
/// - `now`: the default clock's expression that makes one, and its path
///   for the docs.
/// - `drift`: the drift type whose `DEFAULT` the zero id of `Default` has.
/// - `epochs`: `v2` (`epoch` and `epoch_i`, Go's `EpochT`/`EpochI`) or
///   `v3` (one `epoch`, its direction read from the value).
/// - `bytes`, `int`: the byte array and the integer of the id, each
///   `fallible` (`TryFrom`, the type's `from_bytes`/`$from_int` return a
///   `Result`) or `infallible` (`From`).
macro_rules! id_traits {
    ($id:ident, debug: $debug:literal, now: $now:expr, $clock_doc:literal, drift: $drift:ty,
     epochs: $epochs:ident, bytes: $bytes:ty, $bytes_conv:ident,
     int: $int:ty, $to_int:ident, $from_int:ident, $int_conv:ident) => {
        impl $id {
            #[doc = concat!("A new id from the default clock [`", $clock_doc, "`](", $clock_doc, ").")]
            #[inline]
            pub fn now() -> $id {
                $now
            }

            $crate::traits::id_traits!(@epochs $epochs);

            /// `self` sorts before `other` (Go's `Before`).
            #[inline]
            pub fn before(&self, other: &$id) -> bool {
                self < other
            }

            /// `self` sorts after `other` (Go's `After`).
            #[inline]
            pub fn after(&self, other: &$id) -> bool {
                self > other
            }

            /// `self` and `other` are the same id (Go's `Equal`).
            #[inline]
            pub fn equal(&self, other: &$id) -> bool {
                self == other
            }
        }

        impl ::core::fmt::Display for $id {
            /// The text form; width and alignment flags pad it.
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.pad(self.encode(&mut [0; $id::STRING_LEN]))
            }
        }

        impl ::core::fmt::Debug for $id {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, concat!($debug, "({})"), self)
            }
        }

        impl ::core::fmt::LowerHex for $id {
            /// The big-endian bytes in lowercase hex, every leading zero
            /// kept (`{:#x}` adds `0x`).
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                $crate::traits::hex(&self.to_bytes(), false, f)
            }
        }

        impl ::core::fmt::UpperHex for $id {
            /// The big-endian bytes in uppercase hex, every leading zero
            /// kept (`{:#X}` adds `0x`).
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                $crate::traits::hex(&self.to_bytes(), true, f)
            }
        }

        impl ::core::str::FromStr for $id {
            type Err = $crate::Error;
            #[inline]
            fn from_str(s: &str) -> $crate::Result<$id> {
                $id::parse_bytes(s.as_bytes())
            }
        }

        impl TryFrom<&str> for $id {
            type Error = $crate::Error;
            #[inline]
            fn try_from(s: &str) -> $crate::Result<$id> {
                $id::parse_bytes(s.as_bytes())
            }
        }

        impl TryFrom<&[u8]> for $id {
            type Error = $crate::Error;
            /// The big-endian bytes (not the string).
            #[inline]
            fn try_from(bytes: &[u8]) -> $crate::Result<$id> {
                $id::from_slice(bytes)
            }
        }

        $crate::traits::id_traits!(@from $id, $bytes, from_bytes, $bytes_conv);

        impl From<$id> for $bytes {
            #[inline]
            fn from(id: $id) -> $bytes {
                id.to_bytes()
            }
        }

        $crate::traits::id_traits!(@from $id, $int, $from_int, $int_conv);

        impl From<$id> for $int {
            #[inline]
            fn from(id: $id) -> $int {
                id.$to_int()
            }
        }

        impl Default for $id {
            /// The zero id of the default drift; never generates.
            fn default() -> Self {
                $id::zero(<$drift>::DEFAULT)
            }
        }
    };

    (@from $id:ident, $from:ty, $make:ident, fallible) => {
        impl TryFrom<$from> for $id {
            type Error = $crate::Error;
            #[inline]
            fn try_from(v: $from) -> $crate::Result<$id> {
                $id::$make(v)
            }
        }
    };

    (@from $id:ident, $from:ty, $make:ident, infallible) => {
        impl From<$from> for $id {
            #[inline]
            fn from(v: $from) -> $id {
                $id::$make(v)
            }
        }
    };

    (@epochs v2) => {
        /// The time as a `SystemTime` (Go's `EpochT`; exact where Go's
        /// int64 nanoseconds wrap, past the year 2262).
        pub fn epoch(&self) -> ::std::time::SystemTime {
            $crate::time::from_unix_nanos(self.time() as i128)
        }

        /// The inverse time `u64::MAX - time` read as signed
        /// nanoseconds, as a `SystemTime` (Go's `EpochI`).
        pub fn epoch_i(&self) -> ::std::time::SystemTime {
            $crate::time::from_unix_nanos((u64::MAX - self.time()) as i64 as i128)
        }
    };

    (@epochs v3) => {
        /// The time as a `SystemTime`, its direction read from the value
        /// as Go's `Epoch` does: a time of 2^63 or more is an inverse
        /// clock's `u64::MAX - ns`, and gives back `ns`.
        pub fn epoch(&self) -> ::std::time::SystemTime {
            let t = self.time();
            let ns = if t >> 63 == 0 { t } else { u64::MAX - t };
            $crate::time::from_unix_nanos(ns as i128)
        }
    };
}

pub(crate) use id_traits;

/// Writes big-endian bytes in hex through [`fmt::Formatter::pad_integral`],
/// so that `#`, width and `0` behave as for an integer, with every leading
/// zero of the bytes kept.
pub(crate) fn hex(bytes: &[u8], upper: bool, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let digits: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut buf = [0u8; 32];
    let out = &mut buf[..2 * bytes.len()];
    for (pair, &byte) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = digits[(byte >> 4) as usize];
        pair[1] = digits[(byte & 0xf) as usize];
    }
    // Hex digits are ASCII.
    let text = core::str::from_utf8(out).map_err(|_| fmt::Error)?;
    f.pad_integral(true, "0x", text)
}
