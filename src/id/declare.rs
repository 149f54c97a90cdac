//! The declaration of an id type, written once: its struct (stored as its
//! big-endian bytes, with the integrations' derives), what every id type
//! has as a `const fn` or a method of its own, its [`Id`](crate::Id) and
//! [`Packing`](crate::layout::Packing) impls and the std traits, from what
//! the type states: its name, drift, local id, text form, node bits, how
//! its payload is stored and how its text is read.

/// Declares an id type. `checked` types have values that are no id (v2's
/// drift code 0, a UUID of another version), so they derive only the casts
/// to bytes; `pod` types take every bit pattern. `store` is how a payload
/// becomes bytes: `u64`, `u96` (8 + 4 bytes, see
/// [`bytes96`](crate::encoding::bytes96)) or `uuid` (spliced into a
/// UUIDv8). `int` is the integer the type converts with, its constructor,
/// and whether every value of it is an id (`infallible`); `bytes` likewise
/// for its byte array.
macro_rules! declare {
    (
        $(#[$attr:meta])*
        pub struct $id:ident([u8; $n:literal]): $kind:ident;
        name: $name:literal,
        drift: $drift:ty,
        local: $local:ty,
        text: $text:expr,
        node: $node:expr,
        store: $store:ident,
        now: $now:expr,
        int: $int:ty, $from_int:ident, $int_conv:ident,
        bytes: $bytes_conv:ident,
    ) => {
        $crate::id::declare!(@struct $kind $(#[$attr])* pub struct $id([u8; $n]););

        const _: () = assert!(size_of::<$id>() == $n && size_of::<Option<$id>>() <= $n + 1);

        impl $id {
            #[cfg(feature = "std")]
            /// A new id from the default clock of its generation
            /// ([`crate::CLOCK`] or [`crate::v3::CLOCK`]).
            #[inline]
            pub fn now() -> $id {
                $now
            }

            /// The zero id of a drift: time, sequence and node all 0 (Go's
            /// `Z` in v2, `ZeroG`, `ZeroL` and `ZeroX` in v3); a UUID keeps
            /// its version and variant.
            pub const fn zero(drift: $drift) -> $id {
                <$id>::from_payload($crate::layout::zero(drift.code(), $node))
            }

            /// The drift.
            pub const fn drift(&self) -> $drift {
                <$drift>::of_code(self.0[0] >> 5)
            }

            /// The approximate distance from `other` to `self` (Go's
            /// `Diff`): times and sequences subtracted with wrap-around,
            /// packed with `self`'s node and drift. As in Go, v2 ORs the
            /// wrapped sequence difference into the low 64 bits unmasked;
            /// v3 keeps it to its 14 bits.
            pub fn diff(&self, other: &$id) -> $id {
                $crate::layout::Packing::diff_of(self, other)
            }

            #[doc = concat!("The ", $n, " big-endian bytes (Go's `Bytes`).")]
            pub const fn to_bytes(self) -> [u8; $n] {
                self.0
            }

            #[doc = concat!("The ", $n, " big-endian bytes, borrowed.")]
            pub const fn as_bytes(&self) -> &[u8; $n] {
                &self.0
            }

            /// The id of a payload with a valid drift code.
            #[inline]
            const fn from_payload(p: u128) -> $id {
                $crate::id::declare!(@store $store $id p)
            }
        }

        impl $crate::Id for $id {
            const NAME: &'static str = $name;
            const MIN: $id = <$id>::zero(<$drift>::MIN);
            const MAX: $id = <$id>::from_payload($crate::layout::max($node));

            type Bytes = [u8; $n];
            type Drift = $drift;
            type Local = $local;

            #[inline]
            fn to_u128(self) -> u128 {
                $crate::id::declare!(@value $store self)
            }

            #[inline]
            fn from_u128(v: u128) -> $crate::Result<$id> {
                if $n < 16 && v >> (8 * $n % 128) != 0 {
                    return Err($crate::Error::new($crate::ErrorKind::Overflow { bits: 8 * $n }));
                }
                $crate::id::declare!(@make $int_conv <$id>::$from_int(v as $int))
            }

            #[inline]
            fn drift(&self) -> $drift {
                <$id>::drift(self)
            }
        }

        impl $crate::layout::Packing for $id {
            const TEXT: $crate::layout::Text = $text;
            const NODE: u32 = $node;

            #[inline]
            fn from_payload(p: u128) -> $id {
                <$id>::from_payload(p)
            }

            $crate::id::declare!(@halves $store $id);

            #[inline]
            fn parse_text(s: &[u8]) -> $crate::Result<$id> {
                <$id>::read_text(s)
            }
        }

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

        $crate::id::declare!(@hex $id);

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

        impl From<$id> for [u8; $n] {
            #[inline]
            fn from(id: $id) -> [u8; $n] {
                id.0
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
                &self.0
            }
        }

        impl Default for $id {
            /// The zero id of the default drift; never generates.
            fn default() -> Self {
                <$id>::zero(<$drift>::DEFAULT)
            }
        }

        $crate::id::declare!(@from $id, [u8; $n], from_bytes, $bytes_conv);
        $crate::id::declare!(@from $id, $int, $from_int, $int_conv);
    };

    // The struct and its derives: every id is its big-endian bytes.
    (@struct checked $(#[$attr:meta])* pub struct $id:ident([u8; $n:literal]);) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[cfg_attr(feature = "diesel", derive(diesel::expression::AsExpression, diesel::deserialize::FromSqlRow), diesel(sql_type = diesel::sql_types::Binary))]
        #[cfg_attr(feature = "bytemuck", derive(bytemuck::NoUninit))]
        #[cfg_attr(feature = "zerocopy", derive(zerocopy::IntoBytes, zerocopy::Immutable, zerocopy::KnownLayout, zerocopy::Unaligned))]
        #[repr(transparent)]
        pub struct $id([u8; $n]);
    };
    (@struct pod $(#[$attr:meta])* pub struct $id:ident([u8; $n:literal]);) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[cfg_attr(feature = "diesel", derive(diesel::expression::AsExpression, diesel::deserialize::FromSqlRow), diesel(sql_type = diesel::sql_types::Binary))]
        #[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
        #[cfg_attr(feature = "zerocopy", derive(zerocopy::FromBytes, zerocopy::IntoBytes, zerocopy::Immutable, zerocopy::KnownLayout, zerocopy::Unaligned))]
        #[repr(transparent)]
        pub struct $id([u8; $n]);
    };

    // How a payload is stored, and read back as the value.
    (@store u64 $id:ident $p:ident) => { $id(($p as u64).to_be_bytes()) };
    (@store u96 $id:ident $p:ident) => { $id($crate::encoding::bytes96($p)) };
    (@store uuid $id:ident $p:ident) => { $id($crate::layout::splice_uuid($p).to_be_bytes()) };
    (@value u64 $self:ident) => { u64::from_be_bytes($self.0) as u128 };
    (@value u96 $self:ident) => { $crate::encoding::from_bytes96(&$self.0) };
    (@value uuid $self:ident) => { u128::from_be_bytes($self.0) };

    // A 96-bit batch stores its constant top and its counted low half.
    (@halves u96 $id:ident) => {
        #[inline]
        fn from_halves(high: u64, low: u64) -> $id {
            $id($crate::encoding::bytes96_halves(high, low))
        }
    };
    (@halves $store:ident $id:ident) => {};

    (@make fallible $e:expr) => { $e };
    (@make infallible $e:expr) => { Ok($e) };

    // The hex formats of any type that is its bytes (`AsRef<[u8]>`).
    (@hex $id:ty) => {
        impl ::core::fmt::LowerHex for $id {
            /// The big-endian bytes in lowercase hex, every leading zero
            /// kept (`{:#x}` adds `0x`).
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                $crate::encoding::hex(self.as_ref(), false, f)
            }
        }

        impl ::core::fmt::UpperHex for $id {
            /// The big-endian bytes in uppercase hex, every leading zero
            /// kept (`{:#X}` adds `0x`).
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                $crate::encoding::hex(self.as_ref(), true, f)
            }
        }
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
}

pub(crate) use declare;
