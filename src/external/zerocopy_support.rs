//! zerocopy: the traits are derived on the id types themselves.
//!
//! | id | traits |
//! |---|---|
//! | `v3::Guid` | `FromBytes`, `FromZeros`, `TryFromBytes`, `IntoBytes`, `Immutable`, `KnownLayout`, `Unaligned` |
//! | `v3::Luid` | `FromBytes`, `FromZeros`, `TryFromBytes`, `IntoBytes`, `Immutable`, `KnownLayout`, `Unaligned` |
//! | `sno::Sno` | `FromBytes`, `FromZeros`, `TryFromBytes`, `IntoBytes`, `Immutable`, `KnownLayout`, `Unaligned` |
//! | `Guid`, `Luid`, `v3::Xuid` | `IntoBytes`, `Immutable`, `KnownLayout`, `Unaligned` |
//!
//! `Guid`, `Luid` and `v3::Xuid` have no `TryFromBytes`: its derive checks
//! only that each field is a valid value of its own type, and every byte
//! array is, so it would accept a drift code of 0 or a UUID of
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
//! Every id is stored as its big-endian bytes, so its in-memory bytes are
//! `to_bytes()`, at any alignment:
//!
//! ```
//! use guid::v3;
//! use zerocopy::{FromBytes, IntoBytes};
//! let local = v3::Luid::now();
//! assert_eq!(IntoBytes::as_bytes(&local), local.to_bytes());
//!
//! let ids = [v3::Guid::now(), v3::Guid::now()];
//! let view = <[v3::Guid]>::ref_from_bytes(ids.as_bytes()).unwrap();
//! assert_eq!(view, ids);
//! ```
