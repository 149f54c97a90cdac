//! `kguid` (imported as `guid`): k-ordered unique ids, 96-bit global ids and
//! their 64-bit local casts, byte for byte the ids of the Go library
//! fogfish/guid v2, made by a lock-free clock that never repeats an id and
//! never blocks. The ids of its newer generation, v3, are in [`v3`] (see below).
//!
//! ```
//! use guid::{Guid, Id, Luid};
//!
//! let a = guid::g(&guid::CLOCK);
//! let b = guid::g(&guid::CLOCK);
//! assert!(a < b); // one clock: strictly increasing, across threads too
//!
//! let text = a.to_string(); // 16 characters, sorts as the id does
//! assert_eq!(text.parse::<Guid>()?, a);
//! assert_eq!(Guid::from_base62(a.to_base62())?, a);
//!
//! let local: Luid = a.to_l64(); // 8 bytes: the node dropped
//! assert_eq!((local.time(), local.seq()), (a.time(), a.seq()));
//! assert_eq!(guid::CLOCK.from_l64(local), a);
//! # Ok::<(), guid::Error>(())
//! ```
//!
//! Every id type of both generations implements [`Id`] (`use guid::Id`):
//! its lengths, bounds ([`Id::MIN`], [`Id::MAX`]), parts and encodings, the
//! same for all five, so generic code takes any of them.
//!
//! # Features
//!
//! | feature | what |
//! |---|---|
//! | `std` (default) | the clocks, `now()` and the time; without it the ids and their encodings build `no_std` (with `alloc`), for `wasm32` too |
//! | `serde` | text in human-readable formats, bytes in compact ones |
//! | `uuid` | [`v3::Xuid`] to and from `uuid::Uuid` |
//! | `postgres`, `sqlx`, `rusqlite` (0.32 to 0.43), `diesel` | ids as `BYTEA`/`BLOB` of their bytes, which sort as the ids do |
//! | `borsh`, `bytemuck`, `zerocopy` | the big-endian bytes, checked where not every value is an id |
//! | `arbitrary` | valid ids, for fuzzing |
//! | `schemars` | the JSON Schema of serde's strings |
//!
//! # Layout
//!
//! ```text
//!  3 bits   47-d bits        32 bits     d bits     14 bits
//! |-------|--------------|--------------|----------|--------|   global id, 96 bits
//!   drift   tick >> d        node        low tick     seq
//!
//!  3 bits          47 bits                14 bits
//! |-------|------------------------------|--------|          local id, 64 bits
//!   drift             tick                  seq
//! ```
//!
//! `tick` is Unix nanoseconds `>> 17` (≈ 131 µs). The drift code `k` (1..=7,
//! default 3) puts the low `d = 18 + k` tick bits below the node, so ids of
//! different nodes sort by node within a window of `2^d` ticks (≈ 4.6
//! minutes by default) and by time across windows: a skewed clock on one
//! node does not reorder the fleet by more than the window. Ids of one
//! clock always sort by time, then sequence.
//!
//! # Guarantees of a [`Clock`]
//!
//! | event | what happens |
//! |---|---|
//! | many threads share a clock | every id is distinct and later than every id that clock issued before it (one atomic read-modify-write on one word) |
//! | the system clock steps back | ids keep increasing from the last one: no duplicate, no wait |
//! | the system clock stalls | the 14-bit sequence counts up |
//! | 16,384 ids within one tick | the next tick is borrowed; ids run ahead of the wall clock until it catches up |
//! | the system clock jumps forward | ids follow it |
//! | restart with the same node id | [`Builder::not_before`] / [`Builder::restore`] start past every earlier id |
//! | inverse clock | the same, mirrored: ids strictly decrease |
//! | the process forks | a random node is redrawn in the child; a chosen node refuses there ([`Clock`'s fork section](clock::Clock#fork)) |
//! | the end of the tick range (2554) | the clock refuses rather than wrap ([`Clock`'s panics section](Clock#panics)) |
//!
//! The Go library, whose sequence is a separate process-wide counter,
//! repeats ids in the stall and step-back rows.
//!
//! # Encodings
//!
//! | form | global id | local id |
//! |---|---|---|
//! | bytes (big-endian) | 12 | 8 |
//! | sortable string (`Display`, `FromStr`) | 16 chars, 6 bits each | 16 chars, 4 bits each |
//! | base62 (leading zeros dropped) | 16–17 chars | 11 chars |
//! | JSON (feature `serde`) | `"<string>"` | `"*<string of the id with node 0>"` |
//!
//! The sortable alphabet is `.0-9A-Z_a-z`, in ASCII order, so strings sort
//! as ids do. Decoders are strict where Go is lax: a character outside the
//! alphabet, a wrong length, a leading base62 zero, a value too wide or a
//! drift code of 0 is an [`Error`], never a guess or a panic.
//!
//! # Go v3
//!
//! [`v3`] holds the ids of fogfish/guid v3, as byte-compatible with it as
//! the root types are with v2: [`v3::Guid`] and [`v3::Luid`] (the same
//! bit positions for a window, but drift codes numbered by a ladder, so
//! the same bytes mean other times and nodes), [`v3::Xuid`] (128 bits, an
//! RFC 9562 UUIDv8 with a 58-bit node), their [`v3::Clock`] (this clock's
//! state machine, Go v3's sequence) and [`v3::Guid::from_v2`] to carry v2
//! ids over. Its base62 is zero-padded to a fixed width.
//!
//! ```
//! use guid::{Id, v3};
//! let old = guid::Guid::now();
//! let new = v3::Guid::from_v2(old); // the same node, time and sequence
//! assert_eq!((new.node(), new.time()), (old.node(), old.time()));
//!
//! let x = v3::Xuid::now(); // 128 bits, sorts by time as the others do
//! assert_eq!(x.to_string().len(), 36); // a canonical UUID string
//! # #[cfg(feature = "uuid")]
//! # {
//! let u = uuid::Uuid::from(x); // feature "uuid": into a UUID column as is
//! assert_eq!(u.get_version_num(), 8);
//! assert_eq!(v3::Xuid::try_from(u)?, x);
//! # }
//! # Ok::<(), guid::Error>(())
//! ```

#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// README's examples run as doctests, so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/v3.md")]
struct V3Doctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/sno.md")]
struct SnoDoctests;

extern crate alloc;

#[cfg(feature = "std")]
pub mod clock;
mod drift;
mod encoding;
mod error;
#[cfg(feature = "std")]
pub mod flake;
#[cfg(feature = "std")]
mod fork;
mod guid;
#[cfg(feature = "std")]
mod health;
mod id;
#[cfg(feature = "std")]
mod id_clock;
mod layout;
mod local;
#[cfg(feature = "std")]
pub mod node;
pub mod sno;
#[cfg(feature = "std")]
mod sync;
#[cfg(feature = "std")]
mod ticker;
#[cfg(feature = "std")]
mod time;
pub mod v3;

/// Optional integrations, one file each, behind the feature of its name.
mod external {
    #[cfg(feature = "arbitrary")]
    mod arbitrary_support;
    #[cfg(feature = "borsh")]
    mod borsh_support;
    #[cfg(feature = "bytemuck")]
    mod bytemuck_support;
    #[cfg(feature = "diesel")]
    mod diesel_support;
    #[cfg(feature = "postgres")]
    mod postgres_support;
    #[cfg(feature = "rusqlite")]
    mod rusqlite_support;
    #[cfg(feature = "schemars")]
    mod schemars_support;
    #[cfg(feature = "serde")]
    pub(crate) mod serde_support;
    #[cfg(feature = "sqlx")]
    mod sqlx_support;
    #[cfg(feature = "uuid")]
    mod uuid_support;
    #[cfg(feature = "zerocopy")]
    mod zerocopy_support;
}

#[cfg(feature = "std")]
use std::sync::LazyLock;

pub use crate::drift::Drift;
pub use crate::error::{Error, ErrorKind, Result};
pub use crate::guid::Guid;
pub use crate::id::Id;
pub use crate::local::Luid;
#[cfg(all(feature = "std", target_os = "linux"))]
pub use crate::time::CoarseClock;
#[cfg(feature = "std")]
pub use crate::{
    clock::{Snapshot, g, l},
    fork::ForkGuard,
    health::Health,
    id_clock::IdClock,
    ticker::Ticker,
    time::{MockTime, TimeSource, WallClock, nanos, unix_nanos},
};

/// The process-wide default clock: the wall clock, the default drift, and
/// the node id named by `CONFIG_GUID_NODE_ID` or else a random one.
///
/// In a forked child it draws a new random node before the child's first
/// id; with `CONFIG_GUID_NODE_ID` set, its node was chosen, and using it in
/// a child of a process that used it panics (see [`Clock`'s fork
/// section](clock::Clock#fork)).
#[cfg(feature = "std")]
pub static CLOCK: LazyLock<Clock> = LazyLock::new(|| Clock::builder().node_from_env().build());

/// Makes v2 ids, [`Guid`] and [`Luid`]: [`clock::Clock`] of the
/// [`V2`](clock::V2) generation. Its guarantees (threads, steps back,
/// stalls, restarts, forks) are in [its table](clock::Clock).
///
/// ```
/// use guid::Id;
/// let clock = guid::Clock::builder().node(7).build();
/// let (a, b) = (clock.g(), clock.g());
/// assert!(a < b);
/// assert_eq!(a.node(), 7);
/// ```
#[cfg(feature = "std")]
pub type Clock = clock::Clock<clock::V2>;

/// Settings of a [`Clock`].
#[cfg(feature = "std")]
pub type Builder = clock::Builder<clock::V2>;

/// Ids of a [`Clock`] handed out from blocks reserved at once, for one
/// thread (see [`clock::Reserved`]).
#[cfg(feature = "std")]
pub type Reserved<'c> = clock::Reserved<'c, clock::V2>;
