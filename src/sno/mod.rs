//! The ids of the Go library muyo/sno, byte for byte: [`Sno`], 10 bytes of
//! time, tick-tock bit, metabyte, partition and sequence, its base32
//! string, and (with `std`) the [`Generator`] that makes them.
//!
//! ```
//! use guid::sno::{Generator, Sno};
//!
//! let generator = Generator::builder().partition(0x4142).build()?;
//! let a = generator.next(1); // the metabyte: any byte of the caller's
//! let b = generator.next(1);
//! assert!(a < b);
//! assert_eq!((b.meta(), b.partition()), (1, 0x4142));
//!
//! let text = a.to_string(); // 16 characters of 2-9a-x, sorts as the id does
//! assert_eq!(text.parse::<Sno>()?, a);
//! assert_eq!(Sno::from_bytes(a.to_bytes()), a);
//! assert!("not a sno".parse::<Sno>().is_err()); // strict: sno's decoder reads on
//! # Ok::<(), guid::Error>(())
//! ```
//!
//! # Layout
//!
//! ```text
//!  39 bits          1 bit   8 bits   16 bits     16 bits
//! |----------------|----|--------|-----------|----------|   80 bits, big-endian
//!   units of 4 ms   tick   meta    partition   sequence
//! ```
//!
//! `units` count 4 ms since 2010-01-01 00:00:00 UTC ([`EPOCH_NS`]), up to
//! 2079-09-07 15:47:35.548 UTC. Every 10 bytes are an id; the derived
//! `Ord` is the byte order, sno's `Compare`. The parts do not spill over
//! byte boundaries but for the tick-tock bit, the lowest bit of byte 4.
//!
//! # Encodings
//!
//! | form | |
//! |---|---|
//! | bytes | 10, big-endian ([`Sno::to_bytes`], `AsRef<[u8]>`) |
//! | string (`Display`, `FromStr`) | 16 characters of `23456789abcdefghijklmnopqrstuvwx`, 5 bits each from the top: two ASCII runs in order, so strings sort as ids do |
//! | JSON (feature `serde`) | `"<string>"`, and `null` for the zero id, as sno writes it; bytes in compact formats |
//! | hex (`{:x}`) | the 10 bytes |
//!
//! The decoder is strict where sno's is not: a length other than 16 or a
//! byte outside the alphabet (uppercase included) is an
//! [`Error`](crate::Error) of kind [`Length`](crate::ErrorKind::Length) or
//! [`Char`](crate::ErrorKind::Char), never a guess or a panic.
//!
//! # The generator
//!
//! [`Generator`] is sno's: a partition, sequence bounds within 0..=65535
//! (sno's `SequenceMin`/`SequenceMax`, checked as sno checks them), the
//! sequence reset on each new 4 ms unit, the tick-tock bit flipped when
//! the clock steps back (and the sequence reset), a separate sequence for
//! [`Generator::next_with_time`] (sno's `NewWithTime`), and [`Snapshot`]s
//! in sno's JSON field names, so a snapshot of the Go library restores a
//! generator here and one taken here restores sno's. Its time comes from a
//! [`TimeSource`](crate::TimeSource) chosen in the [`Builder`], so tests
//! drive it with [`MockTime`](crate::MockTime).
//!
//! # Where the generator differs from sno
//!
//! Where sno blocks, this generator keeps this crate's promise instead:
//! [`Generator::next`] never waits and never repeats an id, and a
//! generator's ids increase. (The ids of [`Generator::next_with_time`],
//! at times the caller gives, are the caller's to keep apart, as in sno.)
//! The ids are then other than those sno would make:
//!
//! - **The sequence of a unit runs out** (`sequence_max` passed within
//!   4 ms): sno waits for the clock to reach the next unit. Here the id
//!   takes the next unit at once, `sequence_min` in it, and ids go on
//!   there (borrowing further units as needed) until the clock catches up:
//!   the same ids sno would make a unit later, made earlier. A clock
//!   behind a borrowed unit is not a step back; while ids run 255 units
//!   (1.02 s) or more ahead of the clock, whatever it reads goes on from
//!   the last id, so a step back then is met as one before the safe point
//!   (below).
//! - **A step back to or before the safe point** (sno's `wallSafe`: the
//!   highest unit of the other timeline, so a second step back before the
//!   clock has passed the first one's high point): sno sleeps until the
//!   clock is past it, then flips the bit. Here ids go on from the last
//!   one, in its unit and timeline (borrowing as above), and the bit flips
//!   at the first step back that is past the safe point.
//! - **Restoring a snapshot whose `wallSafe` is ahead of the clock**: sno
//!   lowers `wallHi` to the clock, and can then repeat ids the saved
//!   generator made in the current timeline. Here `wallHi` stays, and the
//!   rule above applies.
//! - **A snapshot's `sequence`** is the sequence of the last id in the
//!   unit `wallHi` even once the clock has left that unit, where sno writes
//!   `SequenceMin`.
//! - **Times outside 2010 to 2079**: sno wraps them into the 39 bits;
//!   here [`Sno::compose`] and [`Generator::next_with_time`] refuse them,
//!   and [`Generator::try_next`] refuses a clock past the range (a clock
//!   before 2010 reads as its first unit).
//! - **A forked child** refuses to make ids from its parent's generator
//!   ([`ErrorKind::Forked`](crate::ErrorKind::Forked)), where it would
//!   repeat the parent's.
//!
//! The partition drawn for a generator built without one is random for
//! the process, then counts up, as sno's is (sno seeds it from the time).

mod id;
mod snapshot;

#[cfg(feature = "std")]
mod builder;
#[cfg(feature = "std")]
mod generator;

pub use self::id::Sno;
pub use self::snapshot::Snapshot;

#[cfg(feature = "std")]
pub use self::builder::Builder;
#[cfg(feature = "std")]
pub use self::generator::Generator;

/// sno's epoch, 2010-01-01 00:00:00 UTC, in Unix nanoseconds.
pub const EPOCH_NS: u64 = 1_262_304_000_000_000_000;

/// sno's time unit: 4 ms, in nanoseconds.
pub const UNIT_NS: u64 = 4_000_000;

/// The last time unit an id holds (39 bits): 2079-09-07 15:47:35.548 UTC.
pub const MAX_UNITS: u64 = (1 << 39) - 1;

/// The last Unix nanosecond within [`MAX_UNITS`].
const MAX_NS: u64 = EPOCH_NS + MAX_UNITS * UNIT_NS + (UNIT_NS - 1);
