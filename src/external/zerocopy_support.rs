//! zerocopy: the traits are derived on the id types themselves.
//!
//! | id | traits |
//! |---|---|
//! | `v3::Guid` | `FromBytes`, `FromZeros`, `TryFromBytes`, `IntoBytes`, `Immutable`, `KnownLayout`, `Unaligned` |
//! | `v3::Luid` | `FromBytes`, `FromZeros`, `TryFromBytes`, `IntoBytes`, `Immutable`, `KnownLayout` |
//! | `Guid`, `v3::Xuid` | `IntoBytes`, `Immutable`, `KnownLayout`, `Unaligned` |
//! | `Luid` | `IntoBytes`, `Immutable`, `KnownLayout` |
//!
//! `Guid`, `Luid` and `v3::Xuid` have no `TryFromBytes`: its derive checks
//! only that each field is a valid value of its own type, and every byte
//! array and `u64` is, so it would accept a drift code of 0 or a UUID of
//! another version. The trait may only be derived, and the derive's extra
//! per-field checks are experimental (behind `--cfg zerocopy_unstable_ptr`)
//! and refused on tuple structs. Read such an id as its bytes and check
//! them with `from_bytes`:
//!
//! ```
//! use zerocopy::FromBytes;
//! let id = guid::Guid::now();
//! let wire = zerocopy::IntoBytes::as_bytes(&id).to_vec();
//! let (bytes, _rest) = <[u8; 12]>::read_from_prefix(&wire).unwrap();
//! assert_eq!(guid::Guid::from_bytes(bytes), Ok(id));
//! ```
//!
//! The in-memory bytes of the 64-bit ids are those of a `u64`: native-endian,
//! so on a little-endian machine they are the reverse of `to_bytes()`, and
//! they do not sort as the ids do. Exchange or store `to_bytes()` instead.
//! The 96- and 128-bit ids are stored as their big-endian bytes, so their
//! in-memory bytes are `to_bytes()`, at any alignment:
//!
//! ```
//! use guid::v3;
//! use zerocopy::{FromBytes, IntoBytes};
//! let local = v3::Luid::now();
//! assert_eq!(local.as_bytes(), local.to_u64().to_ne_bytes());
//!
//! let ids = [v3::Guid::now(), v3::Guid::now()];
//! let view = <[v3::Guid]>::ref_from_bytes(ids.as_bytes()).unwrap();
//! assert_eq!(view, ids);
//! ```
