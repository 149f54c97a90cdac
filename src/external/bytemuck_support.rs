//! bytemuck: casts between ids and their in-memory bytes.
//!
//! - `v3::Guid`, `v3::Luid` and `sno::Sno` are `Pod` and `Zeroable`: every
//!   bit pattern is one of them.
//! - `Guid`, `Luid` and `v3::Xuid` are `NoUninit` (cast to bytes freely) and
//!   `CheckedBitPattern` (cast from bytes with `bytemuck::checked`, which
//!   rejects a drift code of 0 or a UUID of another version or variant).
//!
//! Every id is stored as its big-endian bytes, so its in-memory bytes are
//! `to_bytes()`, at any alignment, and sort as the ids do.
//!
//! ```
//! use guid::{Luid, v3};
//! let local = Luid::now();
//! assert_eq!(bytemuck::bytes_of(&local), local.to_bytes());
//! assert_eq!(bytemuck::checked::try_cast::<[u8; 8], Luid>(local.to_bytes()), Ok(local));
//! assert!(bytemuck::checked::try_cast::<[u8; 8], Luid>([0; 8]).is_err()); // drift code 0
//!
//! let ids = [v3::Guid::now(), v3::Guid::now()];
//! let bytes: &[u8] = bytemuck::cast_slice(&ids);
//! assert_eq!(&bytes[12..], ids[1].as_bytes());
//! ```

use bytemuck::CheckedBitPattern;

use crate::{Guid, Luid, v3};

/// `CheckedBitPattern` over `$bits`, the type the id stores: its layout is
/// the id's (the ids are `#[repr(transparent)]`, asserted below by size and
/// alignment), and `$id: TryFrom<$bits>` checks what `from_bytes` does.
macro_rules! checked {
    ($id:ty, $bits:ty) => {
        const _: () = assert!(
            size_of::<$id>() == size_of::<$bits>() && align_of::<$id>() == align_of::<$bits>()
        );

        // SAFETY: `$id` is a `#[repr(transparent)]` wrapper of `$bits` (the
        // assertion above catches a change of size or alignment), and a
        // pattern passes only if `$id::try_from` accepts it, that is, only
        // if it is a valid id.
        unsafe impl CheckedBitPattern for $id {
            type Bits = $bits;

            /// Whether the id's in-memory bytes (its big-endian bytes) are a
            /// valid id.
            fn is_valid_bit_pattern(bits: &$bits) -> bool {
                is_valid::<$id, $bits>(bits)
            }
        }
    };
}

checked!(Guid, [u8; 12]);
checked!(Luid, [u8; 8]);
checked!(v3::Xuid, [u8; 16]);

/// Whether `bits` is an id of type `T`.
fn is_valid<T: TryFrom<B>, B: Copy>(bits: &B) -> bool {
    T::try_from(*bits).is_ok()
}
