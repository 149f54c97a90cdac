//! Ids of the Go library's newer generation, fogfish/guid **v3**, byte for
//! byte: [`Guid`] (96 bits), [`Luid`] (64) and [`Xuid`] (128, an RFC 9562
//! UUIDv8), made by a v3 [`Clock`].
//!
//! The crate's root types are v2's and stay its default; everything here
//! is v3, and `Debug` says so (`v3::Guid(…)`). The two generations share
//! the bit positions for a given window but number the drift codes
//! differently ([`Drift`]'s ladder against v2's `18 + code`), so the same
//! bytes or string read as a v2 and as a v3 id give different times and
//! nodes for every code but 5. Convert with [`Guid::from_v2`] (also from a
//! v2 string or base62), never by re-reading bytes.
//!
//! ```
//! use guid::{Id, v3};
//!
//! let a = v3::Guid::now();                 // or v3::g(&v3::CLOCK), as in Go
//! let x = v3::Xuid::now();                 // a UUIDv8 with the clock's 58-bit node
//! assert!(a.to_l64() < x.to_l64());        // one clock: strictly increasing
//! assert_eq!(x.to_string().parse::<v3::Xuid>()?, x);
//! assert_eq!(v3::Guid::from_base62(a.to_base62())?, a);
//!
//! // A v2 id from an older service, carried over with its node and time.
//! let old = guid::Guid::now();
//! let new = v3::Guid::from_v2(old);
//! assert_eq!((new.node(), new.time()), (old.node(), old.time()));
//! # Ok::<(), guid::Error>(())
//! ```
//!
//! # Encodings
//!
//! | form | [`Guid`] | [`Luid`] | [`Xuid`] |
//! |---|---|---|---|
//! | bytes, big-endian | 12 | 8 | 16 (the UUID's) |
//! | `Display`/`FromStr` | 16 chars, 6 bits each, sortable | 16 chars, 4 bits each, sortable | canonical lowercase UUID, 36 chars |
//! | base62 `0-9A-Za-z`, zero-padded | 17 chars | 11 chars | 22 chars |
//! | JSON (feature `serde`) | `"<string>"` | `"<string>"` (no `*`, unlike v2) | `"<UUID>"` |
//!
//! # Strict where Go is lax
//!
//! Every decoder accepts exactly the canonical encodings of valid ids and
//! returns a typed [`Error`](crate::Error) for everything else, where Go
//! v3 reads on (the vector file's `lenient` cases, all checked):
//!
//! | input Go accepts | here |
//! |---|---|
//! | a string byte outside the alphabet (`!`, `-`, space, any non-ASCII byte), which Go reads as digit 0 | [`ErrorKind::Char`](crate::ErrorKind::Char) |
//! | a local string with a symbol past its 16 (`F`…`z`, a global id's string), which Go masks to 4 bits | `Char` |
//! | base62 of another length than 17/11/22: no padding, extra leading zeros, empty (Go: 0) | [`ErrorKind::Length`](crate::ErrorKind::Length) |
//! | a UUID string in uppercase | `Char` (the canonical string is lowercase, so one id has one string) |
//! | JSON `null` (Go: an empty string, then a length error) | a serde type error |
//!
//! JSON escapes inside a JSON string are the JSON parser's business: the
//! unescaped string must be canonical. v3 has no invalid 12- or 8-byte
//! value (drift code 0 is a v3 code), so the global and local decoders
//! reject only malformed text; a 128-bit id must be a UUIDv8
//! ([`ErrorKind::NotUuidV8`](crate::ErrorKind::NotUuidV8)).
//!
//! Other deliberate differences:
//!
//! - [`Guid::from_v2_str`] and [`Guid::from_v2_base62`] read v2 text as
//!   strictly as [`crate::Guid`] does: Go's `FromV2` also takes v2 text of
//!   drift code 0 (which no v2 clock makes, and which is what a v2 *local*
//!   string read as a global one looks like), a zero-padded base62 and
//!   bytes outside the alphabet.
//! - Conversions that would drop bits are errors, where Go masks: a node
//!   past 58 bits ([`Xuid::compose`], [`Builder::node`]) or past 32 bits
//!   for a global id (`Guid::try_from(x)`, as Go's `G.FromX`), a sequence
//!   past 14 bits. [`Xuid::cmp_ring`] takes its reference modulo 2^58, as
//!   Go.
//! - `epoch()` is exact past the year 2262, where Go's int64 nanoseconds
//!   wrap; like Go's `Epoch`, a time of 2^63 or more is read as an inverse
//!   clock's.
//! - The clock never repeats an id: Go's `Mock` clock (one id forever) is
//!   not offered, and its `WithCheckpoint`/`WithSeed` are
//!   [`Clock::snapshot`]/[`Builder::restore`] on the same state word.

mod drift;
mod extended;
mod global;
mod local;
#[cfg(feature = "std")]
pub mod node;

#[cfg(feature = "std")]
use std::sync::LazyLock;

pub use self::drift::Drift;
pub use self::extended::Xuid;
pub use self::global::Guid;
pub use self::local::Luid;
#[cfg(feature = "std")]
pub use crate::clock::{Snapshot, g, l};

/// Makes v3 ids: [`clock::Clock`](crate::clock::Clock) of the [`V3`](crate::clock::V3)
/// generation, with every guarantee of its table (lock-free, never a
/// repeated id, steps back and stalls ride on the sequence, 16,384 ids in
/// a tick borrow the next one, a forked child redraws a random node or
/// refuses a chosen one, the end of the tick range refuses rather than
/// wrap).
///
/// Where it follows Go v3 rather than this crate's v2 clock:
///
/// - the first id of a tick has sequence 1, as Go v3's `++V` gives (the
///   v2 clock starts at 0; an id of sequence 0 still comes from a carry,
///   as in Go), so its ids equal Go's for the same time readings;
/// - the node has 58 bits: global ids carry its low 32, 128-bit ids all.
///
/// Its state is Go v3's checkpoint value `V`: a [`Snapshot`] restores a
/// clock after a Go process's checkpoint and the other way round. Go's
/// `WithCheckpoint` channel is [`snapshot`](crate::clock::Clock::snapshot),
/// read when the caller likes; Go's `WithSeed(v)` is
/// [`restore`](crate::clock::Builder::restore). Go's `Mock` clock, which
/// gives one id forever, is not offered: compose ids instead.
///
/// ```
/// use guid::{Id, MockTime};
/// use guid::v3::{Clock, Drift};
/// let time = MockTime::new(1_700_000_000_000_000_000);
/// let clock = Clock::builder().node(0x84ea1453051caf)?.drift(Drift::DEFAULT).time(time.clone()).build();
/// let (a, b) = (clock.g(), clock.x());
/// assert_eq!((a.seq(), b.seq()), (1, 2)); // Go v3's sequence
/// time.step_back(3_600_000_000_000);      // an hour back
/// assert!(clock.g() > a);
/// # Ok::<(), guid::Error>(())
/// ```
#[cfg(feature = "std")]
pub type Clock = crate::clock::Clock<crate::clock::V3>;

/// Settings of a v3 [`Clock`].
#[cfg(feature = "std")]
pub type Builder = crate::clock::Builder<crate::clock::V3>;

/// Ids of a v3 [`Clock`] handed out from blocks reserved at once, for one
/// thread (see [`crate::clock::Reserved`]).
#[cfg(feature = "std")]
pub type Reserved<'c> = crate::clock::Reserved<'c, crate::clock::V3>;

/// The process-wide default v3 clock (Go v3's `guid.Clock`): the wall
/// clock, the default drift (code 4), and the node named by
/// `CONFIG_GUID_NODE_ID` if it is set and not empty ([`node::from_env`]),
/// else 58 random bits. Forks are handled as by [`crate::CLOCK`].
#[cfg(feature = "std")]
pub static CLOCK: LazyLock<Clock> = LazyLock::new(|| Clock::builder().node_from_env().build());

/// A new 128-bit id from `clock` (Go v3's `X`).
#[cfg(feature = "std")]
#[inline]
pub fn x(clock: &Clock) -> Xuid {
    clock.x()
}
