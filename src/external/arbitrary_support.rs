//! arbitrary: valid ids of every type from fuzzer input, for fuzz targets
//! that take ids rather than bytes.
//!
//! Each id is made of the next `BYTES` bytes (12, 8, 16 or a sno's 10), read as
//! `from_bytes` reads them (big-endian), fixed up to be valid: a v2 id's
//! drift code 0 becomes 1, and a 128-bit id gets version 8 and the RFC 9562
//! variant. Bytes that already make a valid id give that id, so a fuzzer's
//! byte mutations map onto ids directly; input that runs out reads as zeros.
//!
//! ```
//! use arbitrary::{Arbitrary, Unstructured};
//! use guid::{Guid, v3};
//! let mut u = Unstructured::new(&[0; 28]);
//! let (g, x) = <(Guid, v3::Xuid)>::arbitrary(&mut u)?;
//! assert_eq!(g.drift().code(), 1);
//! assert_eq!(x.to_string(), "00000000-0000-8000-8000-000000000000");
//! # Ok::<(), arbitrary::Error>(())
//! ```

use arbitrary::{Arbitrary, Result, Unstructured};

use crate::sno::Sno;
use crate::{Guid, Luid, v3};

macro_rules! valid {
    ($id:ty, $n:literal, $make:expr) => {
        impl<'a> Arbitrary<'a> for $id {
            fn arbitrary(u: &mut Unstructured<'a>) -> Result<$id> {
                id::<$id, $n>(u, $make)
            }

            fn size_hint(depth: usize) -> (usize, Option<usize>) {
                <[u8; $n]>::size_hint(depth)
            }
        }
    };
}

valid!(Guid, 12, |b| Guid::from_bytes(with_drift(b)));
valid!(Luid, 8, |b| Luid::from_bytes(with_drift(b)));
valid!(v3::Guid, 12, |b| Ok(v3::Guid::from_bytes(b)));
valid!(v3::Luid, 8, |b| Ok(v3::Luid::from_bytes(b)));
valid!(v3::Xuid, 16, |b| v3::Xuid::from_bytes(as_v8(b)));
valid!(Sno, 10, |b| Ok(Sno::from_bytes(b)));

/// The id `make` gives for the next `N` bytes.
fn id<T, const N: usize>(
    u: &mut Unstructured<'_>,
    make: impl FnOnce([u8; N]) -> crate::Result<T>,
) -> Result<T> {
    // `make` fixes the bytes up first, so it never fails.
    make(u.arbitrary()?).map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// Big-endian bytes of a v2 id with a drift code of 0 (the top 3 bits)
/// raised to 1.
fn with_drift<const N: usize>(mut bytes: [u8; N]) -> [u8; N] {
    if bytes[0] >> 5 == 0 {
        bytes[0] |= 1 << 5;
    }
    bytes
}

/// 16 big-endian bytes with the version (bits 76..80) and the variant
/// (bits 62..64) of a UUIDv8 set, the other bits kept.
fn as_v8(bytes: [u8; 16]) -> [u8; 16] {
    let v = u128::from_be_bytes(bytes);
    (v & !(0xf << 76 | 0b11 << 62) | 0x8 << 76 | 0b10 << 62).to_be_bytes()
}
