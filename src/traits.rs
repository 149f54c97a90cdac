//! What both id types implement the same way: Go's comparisons and
//! epochs, and the std traits.

/// Implements `now`, the epochs and Go's comparisons, `Display`, `Debug`,
/// the hex formats, `FromStr`, `Default` and the conversions to and from
/// bytes, slices, strings and integers for an id type (`$make` is the
/// clock's method that makes one).
macro_rules! id_traits {
    ($id:ident, $bytes:ty, $int:ty, $to_int:ident, $from_int:ident, $make:ident) => {
        impl $id {
            /// A new id from the default clock [`CLOCK`]($crate::CLOCK).
            #[inline]
            pub fn now() -> $id {
                $crate::CLOCK.$make()
            }

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
            /// The sortable string; width and alignment flags pad it.
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.pad(self.encode(&mut [0; $crate::encoding::STRING_LEN]))
            }
        }

        impl ::core::fmt::Debug for $id {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, concat!(stringify!($id), "({})"), self)
            }
        }

        impl ::core::fmt::LowerHex for $id {
            /// The big-endian bytes in lowercase hex (`{:#x}` adds `0x`).
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::LowerHex::fmt(&self.$to_int(), f)
            }
        }

        impl ::core::fmt::UpperHex for $id {
            /// The big-endian bytes in uppercase hex (`{:#X}` adds `0x`).
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::UpperHex::fmt(&self.$to_int(), f)
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

        impl TryFrom<$bytes> for $id {
            type Error = $crate::Error;
            #[inline]
            fn try_from(bytes: $bytes) -> $crate::Result<$id> {
                $id::from_bytes(bytes)
            }
        }

        impl From<$id> for $bytes {
            #[inline]
            fn from(id: $id) -> $bytes {
                id.to_bytes()
            }
        }

        impl TryFrom<$int> for $id {
            type Error = $crate::Error;
            #[inline]
            fn try_from(v: $int) -> $crate::Result<$id> {
                $id::$from_int(v)
            }
        }

        impl From<$id> for $int {
            #[inline]
            fn from(id: $id) -> $int {
                id.$to_int()
            }
        }

        impl Default for $id {
            /// The zero id of the default drift; never generates.
            fn default() -> Self {
                $id::zero($crate::Drift::DEFAULT)
            }
        }
    };
}

pub(crate) use id_traits;
